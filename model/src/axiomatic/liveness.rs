//! Liveness: can some consistent execution of a litmus program hang, under a GPU
//! forward-progress model?
//!
//! A program *hangs* when some thread never finishes although the scheduler gives it every
//! chance the progress model promises. In the axiomatic setting an infinite run is judged by a
//! finite execution ("Recurrence Sets for Proving Fair Non-termination under Axiomatic Memory
//! Consistency Models", Dartagnan's liveness check, reduces a spin loop to one repeated
//! iteration): every thread has either
//! - **finished** (a complete path),
//! - **spun**: run a prefix and then one iteration of a loop that passes no barrier, whose
//!   registers at its end are those it began with (for the registers it reads before writing:
//!   it changes nothing the next iteration reads), and whose reads read writes that the next
//!   round will offer again. For an iteration that *writes nothing* that means
//!   *coherence-last* writes: once no thread writes any more, a read that sees the
//!   coherence-latest write keeps seeing it (coherence forbids going back), so the next
//!   iteration reads the same values, computes the same, and branches back again: forever.
//!   An iteration that writes (an exchange handed back and forth, an RMW that rewrites the
//!   value it read) repeats when its writes are coherence-last and its reads read the spinning
//!   iterations' writes, or writes of the iteration before that the repeated one writes again
//!   with the same value (`Repeated` below gives the conditions and why the round can be copied
//!   forever);
//! - **blocked** at a `bar.sync` that no arrival can complete (see [`Progress`] for who still
//!   arrives);
//! - or, only where the progress model allows it, **stopped** after a prefix of its run (never
//!   scheduled again, or never started).
//!
//! The execution made of these runs must be consistent under the memory model (the same
//! axioms, reads-from, coherence and barrier matching as [`super::analyze`]), and at least one
//! thread must spin or block. Loops are unrolled as in [`super::analyze`] (`unroll` takings of
//! each backward branch): the prefix of a spinning thread may take each backward branch up to
//! `unroll - 1` times before the repeated iteration. `terminates` is said only when every run the
//! bound cut is covered by the runs searched ([`bound`]: its last iteration changes nothing); else
//! the bound is raised up to a budget ([`Options::max_unroll`]) and, with no hang found there
//! either, the verdict is [`Verdict::Bounded`].
//!
//! Barriers (PTX ISA, `bar.sync`: "the barrier is complete when the expected number of threads
//! arrive"): without a count, barrier `a` expects the threads of the CTA that take part in it
//! (some run of theirs arrives at `a`, the litmus reading [`super::analyze`] matches barriers
//! by), and a thread that has exited no longer does: instance `n` of `a` waits for the `n`-th
//! arrival of every such thread that has not finished. A Vulkan control barrier (`cbar`) waits
//! for the threads of the instance of its execution scope instead, at most the workgroup
//! ("Scope for execution must be limited to Workgroup or Subgroup", Vulkan's SPIR-V
//! environment; the same instances [`super::analyze`] matches `cbar`s in). With a count `q`
//! (the litmus dialect's quorum, `bar.cta.sync a, b, q`) the barrier is released once `q`
//! threads of the instance have arrived, and a thread whose arrival finds fewer than `q`
//! arrivals in the whole execution (its `n`-th arrival: fewer than `n * q`) waits forever.
//! Arrivals beyond the quorum are not judged to hang (the dialect's reading, which the shared
//! oracle's verdicts follow: three threads at a barrier of quorum two terminate).

pub mod bound;

pub use bound::Cut;

use super::enumerate::{Accept, CoFloor, Collector, Explorer};
use super::events::{self, Expr, Kind, Path, ThreadEvent, Trace};
use super::execution::{barrier_instance, Events, Execution};
use super::models::{Checker, Dynamic};
use super::rel::{bit, members, Rel, Set};
use super::{AnalysisError, Model};
use crate::hash::Mix;
use crate::litmus::{BarrierOp, Instr, Program, Reg, Span, ThreadId, Value};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::ops::ControlFlow;
use std::rc::Rc;

/// GPU forward-progress models (Sorensen et al., "Specifying and testing GPU workgroup progress
/// models", OOPSLA 2021), applied to the threads of a litmus test in id order. Each says which
/// threads the scheduler guarantees to keep running; a hang needs every guaranteed thread to
/// have finished, spun or blocked, while the others may stop anywhere.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub enum Progress {
    /// Every thread progresses: each one finishes, spins or blocks.
    #[default]
    Fair,
    /// Occupancy-bound execution: "once a thread has started it keeps being scheduled", but a
    /// thread that has not started may never start. Each thread has not started, or finishes,
    /// spins or blocks.
    Obe,
    /// HSA: only the lowest-id thread that has not finished is guaranteed to run. That thread
    /// spins or blocks (all lower ones finished); every other thread may stop anywhere.
    Hsa,
    /// Both OBE's and HSA's guarantees: started threads progress, and so does the lowest-id
    /// unfinished one (started or not).
    HsaObe,
    /// Linear OBE: once a thread has started, every thread with a lower or equal id is
    /// guaranteed to progress. Threads up to the highest started id finish, spin or block;
    /// the ones above it have not started.
    Lobe,
}

impl Progress {
    /// Every progress model: fair, OBE, HSA, HSA+OBE, LOBE (`--progress` accepts each
    /// [`Progress::name`]).
    pub const ALL: [Progress; 5] = [
        Progress::Fair,
        Progress::Obe,
        Progress::Hsa,
        Progress::HsaObe,
        Progress::Lobe,
    ];

    /// The model's name on the command line and in reports (`fair`, `obe`, `hsa`, `hsa_obe`,
    /// `lobe`).
    pub fn name(self) -> &'static str {
        match self {
            Progress::Fair => "fair",
            Progress::Obe => "obe",
            Progress::Hsa => "hsa",
            Progress::HsaObe => "hsa_obe",
            Progress::Lobe => "lobe",
        }
    }

    /// The model [`Progress::name`] names; `None` for any other name.
    pub fn from_name(name: &str) -> Option<Progress> {
        Progress::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Threads may stop after any prefix of their run (HSA), not only before they start.
    fn stops_anywhere(self) -> bool {
        self == Progress::Hsa
    }

    /// Threads may be left unstarted at all.
    fn may_stop(self) -> bool {
        self != Progress::Fair
    }

    /// Whether the threads' fates agree with the model's guarantees (and some thread hangs).
    fn allows(self, fates: &[Fate]) -> bool {
        let stuck = |f: &Fate| matches!(f, Fate::Spins | Fate::Blocked);
        let runs_on = |f: &Fate| f != &Fate::Stopped;
        if !fates.iter().any(stuck) {
            return false;
        }
        // The lowest-id thread that has not finished.
        let lowest = fates.iter().position(|f| f != &Fate::Done);
        match self {
            Progress::Fair => fates.iter().all(runs_on),
            // A stopped thread is, under these models, one that never started (its run is
            // empty: see `runs`).
            Progress::Obe => true,
            Progress::Hsa => lowest.is_some_and(|t| stuck(&fates[t])),
            Progress::HsaObe => lowest.is_some_and(|t| stuck(&fates[t])),
            Progress::Lobe => match fates.iter().rposition(runs_on) {
                Some(m) => fates[..=m].iter().all(runs_on),
                None => false,
            },
        }
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the liveness check is asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many times each backward branch may be taken (at least 1: the repeated iteration is
    /// the one between the last two takings).
    pub unroll: u32,
    /// Which threads the scheduler guarantees to progress (fair: every one).
    pub progress: Progress,
    /// The budget: when no hang is found but the bound cut a run after an iteration that
    /// changes the state ([`bound`]), the search is repeated with the bound raised by one, up to
    /// this bound (the answer is then [`Verdict::Bounded`]); `None`: [`DEFAULT_RAISE`] above
    /// `unroll`. vsyncer's "bound increase" loop asks the same of Dartagnan: an unroll bound
    /// that some execution reaches proves nothing.
    pub max_unroll: Option<u32>,
}

/// How far above `--unroll` the search raises the bound by default.
pub const DEFAULT_RAISE: u32 = 2;

impl Options {
    /// The highest bound the search may raise `unroll` to.
    pub fn budget(&self) -> u32 {
        self.max_unroll
            .unwrap_or(self.unroll.saturating_add(DEFAULT_RAISE))
            .max(self.unroll)
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            unroll: super::Options::default().unroll,
            progress: Progress::Fair,
            max_unroll: None,
        }
    }
}

/// How a thread's run ends in a hanging execution.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// It ran to its end.
    Done,
    /// It repeats one iteration of a loop forever (one that writes nothing, or one whose
    /// writes the next round writes again).
    Spins,
    /// It waits forever at a barrier.
    Blocked,
    /// The progress model let it stop (or never start) here.
    Stopped,
}

impl Fate {
    /// The fate as reports print it (`done`, `spins`, `blocked`, `stopped`).
    pub fn name(self) -> &'static str {
        match self {
            Fate::Done => "done",
            Fate::Spins => "spins",
            Fate::Blocked => "blocked",
            Fate::Stopped => "stopped",
        }
    }
}

/// A thread that never finishes, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Stuck {
    /// The thread.
    pub thread: ThreadId,
    /// How its run ends: [`Fate::Spins`] or [`Fate::Blocked`].
    pub fate: Fate,
    /// Spinning: the backward branch of the loop; blocked: the barrier.
    pub span: Span,
    /// Spinning: the statements of the repeating iteration, in order.
    pub iteration_stmts: Vec<usize>,
    /// Event ids (in [`Hang::execution`]) of the thread before the repeated iteration (all of
    /// its events when it blocks).
    pub prefix: Vec<usize>,
    /// Event ids of the repeated iteration (empty when it blocks).
    pub iteration: Vec<usize>,
}

/// A witness that the program can hang.
#[derive(Clone, Debug, Serialize)]
pub struct Hang {
    /// Each thread's fate, by thread id.
    pub fates: Vec<Fate>,
    /// The threads that never finish.
    pub stuck: Vec<Stuck>,
    /// The consistent execution of the threads' runs.
    pub execution: Execution,
}

/// What the search proved.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// No consistent execution hangs: every run the bound cut was covered ([`bound`]).
    Terminates,
    /// Some consistent execution hangs ([`Liveness::hang`]).
    CanHang,
    /// No hang within the bound, but a run the bound cut may go on to one
    /// ([`Liveness::cut`]), also at the budget's highest bound.
    Bounded,
}

impl Verdict {
    /// The verdict as the reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Terminates => "terminates",
            Verdict::CanHang => "can hang",
            Verdict::Bounded => "bounded",
        }
    }
}

/// The verdict.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// No consistent execution hangs, proven: `verdict == Verdict::Terminates`.
    pub terminates: bool,
    /// What the search proved.
    pub verdict: Verdict,
    /// [`Verdict::CanHang`]: the hanging execution found.
    pub hang: Option<Hang>,
    /// Bounded: the run the highest bound cut after an iteration that changes the state.
    pub cut: Option<Cut>,
    /// The unroll bound the verdict was reached at (between [`Options::unroll`] and
    /// [`Options::budget`]).
    pub unroll: u32,
}

impl Liveness {
    fn new(verdict: Verdict, hang: Option<Hang>, cut: Option<Cut>, unroll: u32) -> Liveness {
        Liveness {
            terminates: verdict == Verdict::Terminates,
            verdict,
            hang,
            cut,
            unroll,
        }
    }
}

/// One way a thread's run can end, as a path to put in a candidate execution.
struct Run {
    path: Path,
    fate: Fate,
    /// Spinning: the lasso's iteration start, the registers it reads before writing them
    /// (values before and after), the statements and the branch.
    spin: Option<Spin>,
    /// Blocked: the barrier it waits at.
    barrier: Option<Waiting>,
}

struct Spin {
    start: usize,
    /// The iteration before, when it ran the same statements (index of its first event): the
    /// writes a repeated iteration may read from in the previous round.
    previous: Option<usize>,
    live_in: Vec<(Expr, Expr)>,
    stmts: Vec<usize>,
    span: Span,
}

struct Waiting {
    /// The barrier statement.
    stmt: usize,
    id: Vec<Expr>,
    quorum: Option<Expr>,
    span: Span,
}

/// Decides whether `p` can hang under `model` and the progress model: `terminates` only when
/// the search at some bound between `opts.unroll` and [`Options::budget`] finds no hang and
/// every run that bound cut is covered ([`bound`]); a hang found at any bound is a hang; else
/// [`Verdict::Bounded`]. A raised bound whose paths exceed the search's limits ends the
/// raising (bounded at the bound before).
pub fn liveness(p: &Program, model: Model, opts: &Options) -> Result<Liveness, AnalysisError> {
    if opts.unroll == 0 {
        return Err(AnalysisError {
            span: p.condition.span,
            message: "liveness needs --unroll 1 or more (a repeated iteration lies between two \
                      takings of a backward branch)"
                .to_string(),
        });
    }
    let mut unroll = opts.unroll;
    let mut searched = search(p, &model, opts.progress, unroll)?;
    loop {
        match searched {
            (Some(hang), _) => {
                return Ok(Liveness::new(Verdict::CanHang, Some(hang), None, unroll))
            }
            (None, None) => return Ok(Liveness::new(Verdict::Terminates, None, None, unroll)),
            (None, Some(cut)) if unroll >= opts.budget() => {
                return Ok(Liveness::new(Verdict::Bounded, None, Some(cut), unroll))
            }
            (None, Some(cut)) => match search(p, &model, opts.progress, unroll + 1) {
                Ok(next) => {
                    unroll += 1;
                    searched = next;
                }
                Err(_) => return Ok(Liveness::new(Verdict::Bounded, None, Some(cut), unroll)),
            },
        }
    }
}

/// One search at one bound: a hang, else the first run the bound cut that is not covered.
fn search(
    p: &Program,
    model: &Model,
    progress: Progress,
    unroll: u32,
) -> Result<(Option<Hang>, Option<Cut>), AnalysisError> {
    let opts = &Options {
        unroll,
        progress,
        max_unroll: None,
    };
    let model = model.clone();
    let paths = events::paths_with_lassos(p, opts.unroll).map_err(|e| AnalysisError {
        span: e.span,
        message: e.message,
    })?;
    let cut = bound::first_cut(p, &paths.per_thread);
    let runs: Vec<Vec<Run>> = paths
        .per_thread
        .iter()
        .enumerate()
        .map(|(t, ps)| runs(p, t, ps, opts.progress))
        .collect();
    const MAX_COMBINATIONS: u64 = 10_000_000;
    let combinations = runs
        .iter()
        .try_fold(1u64, |acc, rs| acc.checked_mul(rs.len() as u64))
        .filter(|&c| c <= MAX_COMBINATIONS);
    if combinations.is_none() {
        return Err(AnalysisError {
            span: p.condition.span,
            message: format!(
                "the threads' runs combine into more than {MAX_COMBINATIONS} candidates; lower --unroll or split the test"
            ),
        });
    }
    if runs.iter().any(Vec::is_empty) {
        return Ok((None, cut));
    }
    // Per thread and path, the barriers it arrives at, by instance and id (who may still
    // arrive).
    let arrivals: Vec<Vec<Vec<Arrival>>> = paths
        .per_thread
        .iter()
        .enumerate()
        .map(|(t, ps)| {
            ps.iter()
                .map(|path| {
                    path.events
                        .iter()
                        .filter_map(|e| match &e.kind {
                            Kind::Barrier { id, .. } => {
                                Some((barrier_instance_of(p, t, e.stmt), id.as_slice()))
                            }
                            _ => None,
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let hang_of = |choice: &[usize]| -> Result<Option<Hang>, AnalysisError> {
        let combo: Vec<&Run> = choice.iter().zip(&runs).map(|(&i, rs)| &rs[i]).collect();
        let fates: Vec<Fate> = combo.iter().map(|r| r.fate).collect();
        if !opts.progress.allows(&fates) {
            return Ok(None);
        }
        hangs(p, model.clone(), &combo, &arrivals)
    };
    let found = |hang: Hang| (Some(hang), None);
    // The fewest events first (where the combinations are few enough to sort): the search of
    // a combination costs more the more events it has, and a hang is often found in a short
    // one (a short prefix before the repeated iteration). Every combination is judged before
    // `terminates` all the same; the order only decides which witness is reported first.
    const SORTED_COMBINATIONS: u64 = 1 << 20;
    let mut choice = vec![0usize; runs.len()];
    if combinations.is_some_and(|c| c <= SORTED_COMBINATIONS) {
        let mut all = Vec::new();
        loop {
            let size: usize = choice
                .iter()
                .zip(&runs)
                .map(|(&i, rs)| rs[i].path.events.len())
                .sum();
            all.push((size, choice.clone()));
            if !super::next_choice(&mut choice, &runs) {
                break;
            }
        }
        all.sort_by_key(|(size, _)| *size);
        for (_, choice) in all {
            if let Some(hang) = hang_of(&choice)? {
                return Ok(found(hang));
            }
        }
    } else {
        loop {
            if let Some(hang) = hang_of(&choice)? {
                return Ok(found(hang));
            }
            if !super::next_choice(&mut choice, &runs) {
                break;
            }
        }
    }
    Ok((None, cut))
}

/// The runs found so far, each once: a run is its fate, its events and the assumptions
/// they rest on (two paths may share a prefix or a blocked barrier). A run is compared before
/// it is built, so the many prefixes that stopping threads share are not copied.
#[derive(Default)]
struct Distinct {
    out: Vec<Run>,
    /// By hash of (fate, events, assumptions): the runs in `out` with it.
    seen: HashMap<u64, Vec<usize>, BuildHasherDefault<Mix>>,
}

impl Distinct {
    /// Adds the run of `fate` over the first `n` events of `path` and its assumptions made
    /// before event `m` (`make` builds it), unless it is already there. `prefix`: the hash of
    /// each prefix of the path's events ([`prefix_hashes`]).
    fn add(
        &mut self,
        (fate, path, prefix): (Fate, &Path, &[u64]),
        n: usize,
        m: usize,
        make: impl FnOnce() -> Run,
    ) {
        let events = &path.events[..n];
        let assumes = || path.assumes.iter().filter(|a| a.at < m);
        let mut h = Mix::default();
        (fate, prefix[n]).hash(&mut h);
        assumes().for_each(|a| a.hash(&mut h));
        let same = self.seen.entry(h.finish()).or_default();
        let out = &mut self.out;
        let known = same.iter().any(|&i| {
            out[i].fate == fate
                && out[i].path.events == events
                && out[i].path.assumes.iter().eq(assumes())
        });
        if !known {
            same.push(out.len());
            out.push(make());
        }
    }
}

/// The hash of every prefix of the events, the empty one first: each from the one before and
/// the next event, so all of them cost one pass.
fn prefix_hashes(events: &[ThreadEvent<Expr>]) -> Vec<u64> {
    let mut out = Vec::with_capacity(events.len() + 1);
    out.push(0);
    for e in events {
        let mut h = Mix::default();
        (out[out.len() - 1], e).hash(&mut h);
        out.push(h.finish());
    }
    out
}

/// Every way thread `t`'s run can end: finished paths, spins, blocked barriers and (where the
/// progress model lets threads stop) prefixes, each once.
fn runs(p: &Program, t: ThreadId, paths: &[Path], progress: Progress) -> Vec<Run> {
    let body = &p.threads[t].body;
    let mut runs = Distinct::default();
    for path in paths {
        let whole = (path.events.len(), usize::MAX);
        let prefix = prefix_hashes(&path.events);
        match (&path.cut, &path.lasso) {
            (None, _) => runs.add((Fate::Done, path, &prefix), whole.0, whole.1, || Run {
                path: path.clone(),
                fate: Fate::Done,
                spin: None,
                barrier: None,
            }),
            (Some(span), Some(lasso)) => {
                // A repeated iteration passes no barrier (a barrier's instances are counted by
                // `barriers_block`); its writes are judged in `hangs`.
                let no_barrier = path.events[lasso.start..]
                    .iter()
                    .all(|e| !matches!(e.kind, Kind::Barrier { .. }));
                // The iteration before it, event for event the same statements.
                let previous = lasso.previous.filter(|&before| {
                    let len = path.events.len() - lasso.start;
                    lasso.start - before == len
                        && (0..len).all(|i| {
                            path.events[before + i].stmt == path.events[lasso.start + i].stmt
                        })
                });
                if no_barrier {
                    let live_in = live_in(body.iter().map(|s| &s.instr), &lasso.stmts)
                        .into_iter()
                        .map(|r| (lasso.regs_before[&r].clone(), path.regs[&r].clone()))
                        .collect();
                    runs.add((Fate::Spins, path, &prefix), whole.0, whole.1, || {
                        let mut spinning = path.clone();
                        spinning.cut = None;
                        spinning.lasso = None;
                        Run {
                            path: spinning,
                            fate: Fate::Spins,
                            spin: Some(Spin {
                                start: lasso.start,
                                previous,
                                live_in,
                                stmts: lasso.stmts.clone(),
                                span: *span,
                            }),
                            barrier: None,
                        }
                    });
                }
            }
            (Some(_), None) => {}
        }
        for (i, e) in path.events.iter().enumerate() {
            if let Kind::Barrier {
                op: BarrierOp::Sync,
                id,
                quorum,
            } = &e.kind
            {
                // The branch choices up to the barrier (inclusive) decide that it is reached.
                runs.add((Fate::Blocked, path, &prefix), i, i + 1, || {
                    let mut before = path.prefix(i + 1);
                    before.events.pop();
                    Run {
                        path: before,
                        fate: Fate::Blocked,
                        spin: None,
                        barrier: Some(Waiting {
                            stmt: e.stmt,
                            id: id.clone(),
                            quorum: quorum.clone(),
                            span: body[e.stmt].span,
                        }),
                    }
                });
            }
        }
        if progress.may_stop() {
            let longest = if progress.stops_anywhere() {
                path.events.len()
            } else {
                1
            };
            // A thread stops between instructions: never between an RMW's read and write.
            let splits_rmw =
                |n: usize| n > 0 && matches!(path.events[n - 1].kind, Kind::Read { rmw: true, .. });
            for n in (0..longest).filter(|&n| !splits_rmw(n)) {
                runs.add((Fate::Stopped, path, &prefix), n, n, || Run {
                    path: path.prefix(n),
                    fate: Fate::Stopped,
                    spin: None,
                    barrier: None,
                });
            }
        }
    }
    runs.out
}

/// The registers the statements read before they write them, in order of first read.
fn live_in<'a>(instrs: impl Iterator<Item = &'a Instr> + Clone, stmts: &[usize]) -> Vec<Reg> {
    let instrs: Vec<&Instr> = instrs.collect();
    let (mut read, mut written) = (Vec::new(), BTreeSet::new());
    for &s in stmts {
        for r in instrs[s].read_regs() {
            if !written.contains(r) && !read.contains(r) {
                read.push(r.clone());
            }
        }
        written.extend(instrs[s].written_reg().cloned());
    }
    read
}

/// The value of an expression over a trace's reads.
fn value_in(trace: &Trace, e: &Expr) -> Option<Value> {
    e.eval(&|i| match trace.events.get(i)?.kind {
        Kind::Read { value, .. } => Some(value),
        _ => None,
    })
}

/// The barrier instance a barrier statement of thread `t` joins: its CTA in PTX, the instance
/// of its execution scope (at most the workgroup) in Vulkan ([`barrier_instance`]).
fn barrier_instance_of(p: &Program, t: ThreadId, stmt: usize) -> Instance {
    let thread = &p.threads[t];
    barrier_instance(
        thread.placement,
        thread.body[stmt].vulkan,
        p.vulkan.as_ref().map(|v| v.placements[t]),
    )
}

/// A barrier instance ([`barrier_instance`]).
type Instance = (u32, u32, u32);

/// One arrival of a path at a barrier: the instance it joins and the id.
type Arrival<'a> = (Instance, &'a [Expr]);

/// A barrier's identity: its instance and the id values.
type BarrierKey = (Instance, Vec<Value>);

/// Whether every blocked thread's barrier really never completes, given the runs' values.
fn barriers_block(
    p: &Program,
    combo: &[&Run],
    traces: &[Trace],
    arrivals_of: &[Vec<Vec<Arrival>>],
) -> bool {
    // Whether some run of thread `u` arrives at barrier `key` `nth` times (an id computed from
    // loaded values may be any).
    let may_arrive = |u: usize, (instance, id): &BarrierKey, nth: usize| {
        arrivals_of[u].iter().any(|path| {
            let times = path
                .iter()
                .filter(|(at, ids)| {
                    at == instance
                        && ids.len() == id.len()
                        && ids.iter().zip(id).all(|(e, v)| match e {
                            Expr::Const(c) => c == v,
                            _ => true,
                        })
                })
                .count();
            times >= nth
        })
    };
    let key = |t: ThreadId, stmt: usize, id: &[Value]| -> BarrierKey {
        (barrier_instance_of(p, t, stmt), id.to_vec())
    };
    // Per barrier: each thread's completed `bar.sync`s, and its arrivals (completed, `arrive`,
    // and the one it waits at).
    let mut passed: HashMap<BarrierKey, Vec<usize>> = HashMap::new();
    let mut arrived: HashMap<BarrierKey, Vec<usize>> = HashMap::new();
    let n = combo.len();
    let mut waiting = Vec::new();
    for (t, (run, trace)) in combo.iter().zip(traces).enumerate() {
        for e in &trace.events {
            if let Kind::Barrier { op, id, .. } = &e.kind {
                let k = key(t, e.stmt, id);
                arrived.entry(k.clone()).or_insert_with(|| vec![0; n])[t] += 1;
                if *op == BarrierOp::Sync {
                    passed.entry(k).or_insert_with(|| vec![0; n])[t] += 1;
                }
            }
        }
        if let Some(w) = &run.barrier {
            let Some(id) =
                w.id.iter()
                    .map(|e| value_in(trace, e))
                    .collect::<Option<Vec<Value>>>()
            else {
                return false;
            };
            let quorum = match &w.quorum {
                Some(q) => match value_in(trace, q) {
                    Some(q) => Some(q),
                    None => return false,
                },
                None => None,
            };
            let k = key(t, w.stmt, &id);
            arrived.entry(k.clone()).or_insert_with(|| vec![0; n])[t] += 1;
            waiting.push((t, k, quorum));
        }
    }
    let zeros = vec![0; n];
    waiting.iter().all(|(t, k, quorum)| {
        let arrivals = arrived.get(k).unwrap_or(&zeros);
        let passes = passed.get(k).unwrap_or(&zeros);
        // This is the thread's `nth` arrival at the barrier.
        let nth = arrivals[*t];
        match quorum {
            // Released once `q` threads arrived: blocked while fewer than `nth * q` ever do.
            Some(q) => (arrivals.iter().sum::<usize>() as i64) < (nth as i64).saturating_mul(*q),
            // Every thread of the instance that takes part (some run of it arrives there) and
            // has not finished must arrive an `nth` time; no thread got past its `nth` arrival
            // (that instance would have released this one too).
            None => {
                let missing = (0..n).any(|u| {
                    u != *t
                        && combo[u].fate != Fate::Done
                        && arrivals[u] < nth
                        && may_arrive(u, k, nth)
                });
                missing && passes.iter().all(|&c| c < nth)
            }
        }
    })
}

/// The repeated iterations of one combination of runs (event ids), and what makes them
/// repeat forever.
///
/// Let `S` be the repeated iterations of the spinning threads, `I` (where a thread has one) the
/// iteration each ran just before with the same statements, and `P` everything else. The
/// execution `P ∪ I ∪ S` stands for the infinite one `P ∪ I ∪ S₁ ∪ S₂ ∪ …` in which every
/// `Sₖ₊₁` is a copy of `S = S₁` that reads from `Sₖ₊₁` where `S` reads from `S`, from `Sₖ`
/// where `S` reads from `I`, and the same write where `S` reads from `P`, its writes coming
/// after `Sₖ`'s in coherence. That run is well-formed and computes what `S` computed when
/// - every write of `S` is coherence-after every other write to its location (`Sₖ₊₁`'s
///   writes go after all of `Sₖ`'s and `P`'s);
/// - every read of `S` reads (a) a write of `S`, (b) a write `w` of `I` whose copy in `S` writes
///   the same value and after which only writes of `S` come in coherence, or (c) a write no
///   other write follows in coherence (it stays the latest forever: no copy writes there);
/// - each spinning thread's registers that the iteration reads before writing hold at its end
///   what they held at its start (checked in [`hangs`]).
///
/// Then reads-from, coherence and from-reads (a read of `Sₖ₊₁` reads `Sₖ₊₁`, the last write of
/// `Sₖ` at its location, or a write with no successor) never lead from a later round back to an
/// earlier one, and no edge leads back into `P` from beyond `S₁`: a cycle of a relation the
/// model builds from them either lies in `P ∪ I ∪ S`, which is consistent, or within one round
/// `Sₖ`, whose events and relations are those of `S`. So the infinite run is consistent, and
/// each spinning thread runs its iteration forever. A quiet iteration (no writes: the spin of
/// [`Fate::Spins`] in the module's description) is the case where (a) and (b) need no copies.
struct Repeated {
    /// By event id: whether it belongs to a repeated iteration.
    in_s: Rc<Vec<bool>>,
    reads: Rc<Vec<usize>>,
    writes: Rc<Vec<usize>>,
    /// Writes of an iteration before a repeated one, with their copy in the repeated one.
    copies: Vec<(usize, usize)>,
}

impl Repeated {
    fn new(combo: &[&Run], first: &[usize], events: usize) -> Repeated {
        let mut in_s = vec![false; events];
        let (mut reads, mut writes, mut copies) = (Vec::new(), Vec::new(), Vec::new());
        for (r, &f) in combo.iter().zip(first) {
            let Some(spin) = &r.spin else { continue };
            for (i, e) in r.path.events.iter().enumerate().skip(spin.start) {
                in_s[f + i] = true;
                match e.kind {
                    Kind::Read { .. } => reads.push(f + i),
                    Kind::Write { .. } => writes.push(f + i),
                    _ => {}
                }
                if let (Some(before), Kind::Write { .. }) = (spin.previous, &e.kind) {
                    copies.push((f + before + (i - spin.start), f + i));
                }
            }
        }
        Repeated {
            in_s: Rc::new(in_s),
            reads: Rc::new(reads),
            writes: Rc::new(writes),
            copies,
        }
    }

    /// The condition on reads-from and coherence for one valuation of the runs, and its part
    /// that partial choices can already fail (see [`Collector::viable`]): `(accept, viable)`.
    fn conditions(&self, same: Rc<HashSet<usize>>) -> (Accept, Accept) {
        let (in_s, reads, writes) = (self.in_s.clone(), self.reads.clone(), self.writes.clone());
        // No write of `S` is followed by another write; every read of `S` reads (a), (b) or
        // (c). Both only fail more as reads-from and coherence grow.
        let viable: Accept = Rc::new(move |ev: &Events, rf: &Rel, co: &Rel| {
            writes
                .iter()
                .all(|&ws| members(co.row(ws)).all(|w| in_s[w]))
                && reads.iter().all(|&r| {
                    members(ev.w).filter(|&w| rf.has(w, r)).all(|w| {
                        in_s[w] || members(co.row(w)).all(|x| same.contains(&w) && in_s[x])
                    })
                })
        });
        let (in_s, writes, partial) = (self.in_s.clone(), self.writes.clone(), viable.clone());
        // And every write of `S` follows every other write to its location.
        let accept: Accept = Rc::new(move |ev: &Events, rf: &Rel, co: &Rel| {
            partial(ev, rf, co)
                && writes.iter().all(|&ws| {
                    members(ev.w)
                        .filter(|&w| !in_s[w] && ev.loc.has(w, ws))
                        .all(|w| co.has(w, ws))
                })
        });
        (accept, viable)
    }

    /// (b): the writes of `I` whose copy in `S` writes the same value, under one valuation
    /// (its values set in `ev`).
    fn same_valued(&self, ev: &Events) -> Rc<HashSet<usize>> {
        Rc::new(
            self.copies
                .iter()
                .filter(|&&(w, copy)| ev.value(w).is_some() && ev.value(w) == ev.value(copy))
                .map(|&(w, _)| w)
                .collect(),
        )
    }

    /// A necessary condition for one valuation (its values set in `ev`), checked before its
    /// search: every read of `S` has a write it may read from under (a), (b) or (c). Such a
    /// write stores the value the read returns (never the read's own write, for an RMW), is
    /// in `S`, or else is followed in coherence only by writes of `S`: so it is not followed
    /// by a write of `P` or `I` it must be ordered with, and where `S` writes the location it
    /// is a write of (b). A write must be ordered with the other writes to its location that
    /// are morally strong to it ("morally strong overlapping writes are related in
    /// coherence order"), and the initial write comes before every other one.
    ///
    /// Whether a read may read a write so is decided on the least execution every accepted
    /// execution with that reads-from pair contains: that pair alone in reads-from, and in
    /// coherence the initial write first, every write before the writes of `S` at its
    /// location (`accept`), and, for a write `w` outside `S`, every write of `P` and `I` it
    /// must be ordered with before `w`; no synchronization. The per-location axioms and the
    /// global ones that partial choices can break are monotone
    /// ([`Checker::location_ok`], [`Checker::partial_ok`]): when they fail on it, they fail
    /// on every execution in which the read reads that write, and the read has no source.
    /// The answer depends on the events alone, not on values: `known` keeps it per (read,
    /// write) for the combination's other valuations.
    fn sources_possible(
        &self,
        ev: &Events,
        checker: &dyn Checker,
        same: &HashSet<usize>,
        known: &mut HashMap<(usize, usize), bool>,
    ) -> bool {
        self.reads.iter().all(|&r| {
            let here = ev.w & ev.loc.row(r);
            let s_writes_here = self.writes.iter().any(|&ws| here & bit(ws) != Set::EMPTY);
            members(here)
                .filter(|&w| ev.value(w) == ev.value(r) && !ev.rmw.has(r, w))
                .filter(|&w| self.in_s[w] || !s_writes_here || same.contains(&w))
                .any(|w| {
                    *known
                        .entry((r, w))
                        .or_insert_with(|| self.may_read(ev, checker, r, w))
                })
        })
    }

    /// Whether read `r` of `S` may read `w` in some accepted execution, on the least execution
    /// that has it ([`Self::sources_possible`]).
    fn may_read(&self, ev: &Events, checker: &dyn Checker, r: usize, w: usize) -> bool {
        let here = ev.w & ev.loc.row(r);
        let ms = checker.morally_strong();
        let mut rf = Rel::empty(ev.n);
        rf.add(w, r);
        let mut co = Rel::empty(ev.n);
        for x in members(here) {
            if ev.init & bit(x) != Set::EMPTY {
                for y in members(here & !ev.init) {
                    co.add(x, y);
                }
            }
            if !self.in_s[x] {
                for &ws in self
                    .writes
                    .iter()
                    .filter(|&&ws| here & bit(ws) != Set::EMPTY)
                {
                    co.add(x, ws);
                }
                let ordered = ms.has(x, w) || ms.has(w, x) || ev.init & bit(w) != Set::EMPTY;
                if !self.in_s[w] && x != w && ordered {
                    co.add(x, w);
                }
            }
        }
        let co = co.plus();
        if !co.irreflexive() {
            return false;
        }
        let fr = rf.inv().seq(&co);
        let none = Rel::empty(ev.n);
        let x = Dynamic {
            rf: &rf,
            co: &co,
            fr: &fr,
            sync_fence: &none,
            sync_barrier: &none,
        };
        checker.location_ok(ev, &rf, &co, &fr) && checker.partial_ok(ev, &x)
    }

    /// The coherence pairs `accept` asks for: every other write to its location before each
    /// write of `S`. Every accepted execution has them, so the search may start from them
    /// ([`Collector::co_floor`]).
    fn co_floor(&self) -> CoFloor {
        let (in_s, writes) = (self.in_s.clone(), self.writes.clone());
        Rc::new(move |ev: &Events| {
            let mut floor = Rel::empty(ev.n);
            for &ws in writes.iter() {
                for w in members(ev.w & ev.loc.row(ws)).filter(|&w| !in_s[w]) {
                    floor.add(w, ws);
                }
            }
            floor
        })
    }
}

/// The first consistent execution of one combination of runs in which the spinning threads'
/// iterations really repeat and the blocked threads really wait; `None` when there is none.
fn hangs(
    p: &Program,
    model: Model,
    combo: &[&Run],
    arrivals: &[Vec<Vec<Arrival>>],
) -> Result<Option<Hang>, AnalysisError> {
    let paths: Vec<&Path> = combo.iter().map(|r| &r.path).collect();
    let mut valuations = super::values::Valuations::new(p, &paths);
    // A hang is an execution the model admits, so its valuations are those the safety
    // engine judges ([`super::analyze`]): under a model without a No-Thin-Air axiom that
    // allows thin-air values (Vulkan, OpenCL; not Tile IR, `withoutthinair`) a read on a
    // data-flow cycle through reads-from may return any value its cycle confirms, and such an
    // execution is as consistent as any other. Leaving those values out would call
    // `terminates` a program that the model lets spin on a self-justified value (a loop
    // waiting for a flag that only a cycle of copies sets). Under the PTX models the grounded
    // valuations below are the only ones with consistent executions.
    if model.thin_air_values() {
        valuations.allow_thin_air(p);
    }
    // Event ids: initial writes (one per physical location) come first, then each thread's.
    let mut first = Vec::with_capacity(combo.len());
    let mut at = p
        .locations
        .iter()
        .enumerate()
        .filter(|&(l, _)| p.physical(l) == l)
        .count();
    for r in combo {
        first.push(at);
        at += r.path.events.len();
    }
    let repeated = Repeated::new(combo, &first, at);
    let mut out = Collector {
        witnesses: true,
        states: HashMap::default(),
        executions: 0,
        racy: 0,
        racy_states: HashMap::default(),
        states_only: false,
        accept: None,
        viable: None,
        co_floor: Some(repeated.co_floor()),
        // One execution is the witness; the search stops there.
        first_only: true,
        // Cycles through reads-from reject most branches of these searches: cut them early.
        prefix_global: true,
    };
    // Every location gets a coherence-last write (one every other write precedes), so that
    // "reads a coherence-last write" means what it did with a total coherence order.
    let observed = super::observed_locations(p, super::FinalMemory::All);
    let budget = super::budget::Budget::new(&super::budget::Limits::default(), None);
    let mut explorer = Explorer::new(
        p,
        model.clone(),
        |search, tally| search.pruned(tally),
        None,
        &observed,
        &budget,
    );
    let mut result = Ok(());
    let mut found: Option<Vec<Trace>> = None;
    let mut known = HashMap::new();
    let for_each = if model.forbids_thin_air() {
        super::values::Valuations::for_each_grounded
    } else {
        super::values::Valuations::for_each
    };
    for_each(&valuations, &mut |traces| {
        let repeats = combo.iter().zip(&traces).all(|(r, tr)| {
            r.spin.as_ref().is_none_or(|s| {
                s.live_in
                    .iter()
                    .all(|(a, b)| value_in(tr, a).is_some() && value_in(tr, a) == value_in(tr, b))
            })
        });
        if !repeats || !barriers_block(p, combo, &traces, arrivals) {
            return ControlFlow::Continue(());
        }
        let refs: Vec<&Trace> = traces.iter().collect();
        let same = match explorer.prepared(&refs) {
            Ok((ev, checker)) => {
                let same = repeated.same_valued(ev);
                if !repeated.sources_possible(ev, checker, &same, &mut known) {
                    return ControlFlow::Continue(());
                }
                same
            }
            Err(e) => {
                result = Err(e);
                return ControlFlow::Break(());
            }
        };
        let (accept, viable) = repeated.conditions(same);
        (out.accept, out.viable) = (Some(accept), Some(viable));
        result = explorer.explore(&refs, &mut out);
        if result.is_err() || out.executions > 0 {
            found = Some(traces);
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    result.map_err(|message| AnalysisError {
        span: p.condition.span,
        message,
    })?;
    let (Some(_), Some(execution)) = (
        found,
        out.states.into_values().find_map(|(_, example)| example),
    ) else {
        return Ok(None);
    };
    let fates = combo.iter().map(|r| r.fate).collect();
    let stuck = combo
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.fate, Fate::Spins | Fate::Blocked))
        .map(|(t, r)| {
            let ids = first[t]..first[t] + r.path.events.len();
            match (&r.spin, &r.barrier) {
                (Some(s), _) => Stuck {
                    thread: t,
                    fate: r.fate,
                    span: s.span,
                    iteration_stmts: s.stmts.clone(),
                    prefix: ids.clone().take(s.start).collect(),
                    iteration: ids.skip(s.start).collect(),
                },
                (None, w) => Stuck {
                    thread: t,
                    fate: r.fate,
                    span: w.as_ref().map_or(p.threads[t].span, |w| w.span),
                    iteration_stmts: Vec::new(),
                    prefix: ids.collect(),
                    iteration: Vec::new(),
                },
            }
        })
        .collect();
    Ok(Some(Hang {
        fates,
        stuck,
        execution,
    }))
}

/// A one-line description of how a thread is stuck: `P1 spins forever in the loop closed at
/// 9:2: ld.weak r2, f; bne r2, 1, LC11; goto LC10`.
pub fn describe(p: &Program, s: &Stuck) -> String {
    let body = &p.threads[s.thread].body;
    match s.fate {
        Fate::Spins => {
            let iteration: Vec<String> = s
                .iteration_stmts
                .iter()
                .filter(|&&i| !matches!(body[i].instr, Instr::Label(_)))
                .map(|&i| crate::litmus::print::instr(p, &body[i].instr))
                .collect();
            format!(
                "P{} spins forever in the loop closed at {}: {}",
                s.thread,
                s.span,
                iteration.join("; ")
            )
        }
        _ => format!("P{} waits forever at the barrier at {}", s.thread, s.span),
    }
}

/// Graphviz of the hanging execution ([`super::dot::render`]), with each stuck thread's
/// repeated iteration (or barrier wait) marked in red and a note naming it.
pub fn dot(p: &Program, hang: &Hang) -> String {
    let mut out = super::dot::render(p, &hang.execution);
    let closing = out.rfind('}').unwrap_or(out.len());
    let mut marks = String::new();
    for s in &hang.stuck {
        for e in &s.iteration {
            marks.push_str(&format!("  e{e} [color=red, penwidth=2];\n"));
        }
        let note = describe(p, s).replace('\\', "\\\\").replace('"', "\\\"");
        marks.push_str(&format!(
            "  hang_p{} [shape=note, color=red, label=\"{note}\"];\n",
            s.thread
        ));
        if let Some(e) = s.iteration.first().or(s.prefix.last()) {
            marks.push_str(&format!(
                "  hang_p{} -> e{e} [color=red, style=dashed, constraint=false];\n",
                s.thread
            ));
        }
    }
    out.insert_str(closing, &marks);
    out
}
