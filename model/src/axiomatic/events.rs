//! From a program to events: each thread is run on its own, giving every *path* it can take
//! (loops unrolled up to a bound), with the values its loads return left symbolic.
//!
//! A load's value is [`Expr::Read`] of its own event; registers, stored values and barrier ids
//! are expressions over such reads. Where a branch or a CAS depends on a loaded value, the path
//! forks and each side records the condition it assumed. `values.rs` later chooses reads-from,
//! computes the values along it and keeps the choices that satisfy every condition: the
//! *traces* (paths with concrete values) that `enumerate.rs` turns into candidate executions.
//!
//! Each event remembers the reads it depends on (data dependencies through registers and control
//! dependencies through branches), which the No-Thin-Air axiom needs.

use crate::litmus::async_ops::{Arrival, BulkCompletion, MbarrierState};
use crate::litmus::*;
use crate::scope::{Order, Scope};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

/// What one event of a thread does; `V` is a concrete [`Value`] in a [`Trace`], an [`Expr`]
/// over the path's reads in a [`Path`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind<V = Value> {
    /// `rmw`: a write of the same instruction follows this read.
    Read {
        /// The location read.
        loc: LocId,
        /// Its proxy, order and scope.
        access: Access,
        /// The value the read returns.
        value: V,
        /// Whether it is the read of a read-modify-write (`atom`, `red`).
        rmw: bool,
    },
    /// `rmw`: this write completes the read just before it.
    Write {
        /// The location written.
        loc: LocId,
        /// Its proxy, order and scope.
        access: Access,
        /// The value written.
        value: V,
        /// Whether it is the write of a read-modify-write (`atom`, `red`).
        rmw: bool,
    },
    /// A `fence` / `membar` (its order and scope) or a `fence.proxy.*`.
    Fence(Fence),
    /// A `bar.cta.sync` / `bar.cta.arrive`: one arrival at a CTA barrier.
    Barrier {
        /// Arrive and wait (`sync`), or arrive only.
        op: BarrierOp,
        /// The barrier's name: threads meet only at equal ids.
        id: Vec<V>,
        /// The number of threads that complete one instance, when the instruction gives it
        /// (otherwise every thread of the CTA).
        quorum: Option<V>,
    },
    /// `barrier.cluster.arrive{.release|.relaxed}` / `barrier.cluster.wait`: one use of the
    /// cluster's barrier (see [`ClusterBarrier`]).
    ClusterBarrier(ClusterBarrier),
    /// `fence.mbarrier_init.release.cluster`: a fence, at `.cluster` scope with `.release`
    /// semantics, that applies only to the thread's earlier `mbarrier.init`s (PTX ISA,
    /// *membar/fence*: "fence.mbarrier_init is a light-weight fence ... that applies to prior
    /// mbarrier.init operations"). Models say what it orders (`ptx-v8.cat`, `FMBINIT`).
    MbarrierInitFence,
}

/// A cluster barrier event. PTX ISA, *barrier.cluster*: "each thread in the cluster arrives at
/// the barrier" and `barrier.cluster.wait` "causes the executing thread to wait for all
/// non-exited threads of the cluster to perform barrier.cluster.arrive"; "barrier.cluster.arrive
/// ... has .release semantics by default" (`.relaxed` drops them) and "barrier.cluster.wait has
/// .acquire semantics by default". The k-th arrive of every thread of a cluster joins the k-th
/// instance; a wait belongs to the instance of its thread's latest arrive.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClusterBarrier {
    /// `barrier.cluster.arrive`, `.release` unless `.relaxed`.
    Arrive {
        /// `.release` (the default); `false` for `.relaxed`.
        release: bool,
    },
    /// `barrier.cluster.wait` (`.acquire`).
    Wait,
}

/// One event of a thread's path or trace: what it does ([`Kind`]), the statement it comes from,
/// the reads it depends on and, for asynchronous copies, where program order applies to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThreadEvent<V = Value> {
    /// Index of the statement in the thread's body.
    pub stmt: usize,
    /// What the event does.
    pub kind: Kind<V>,
    /// Indices (within the trace) of the reads this event depends on (shared: every
    /// valuation of a path has the same).
    pub deps: Rc<[usize]>,
    /// For the read and the write of a `cp.async`: the index of the first event after the
    /// `cp.async.wait_group` that waited for the copy's group (`usize::MAX` when none does).
    /// Program order runs from the copy only to its own write and to the events from there on;
    /// the events in between are unordered with it. `None` for every other event.
    pub copy_until: Option<usize>,
    /// For the events of a bulk copy (`cp.async.bulk`), which the async proxy performs apart
    /// from the issuing thread's program order: the index of the copy's first event. `None` for
    /// the thread's own events.
    pub copy: Option<usize>,
    /// For the events of a `.bulk_group` bulk copy: the index of the first event of its thread
    /// after the `cp.async.bulk.wait_group` that waited for it (for the source read, also a
    /// `wait_group.read`). `None` while no wait has.
    pub completed_at: Option<usize>,
}

/// One way a thread can run to its end, with the values its loads returned.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The thread's events in program order, with concrete values.
    pub events: Vec<ThreadEvent>,
    /// The final value of every register of the thread, by register name.
    pub regs: Vec<(Reg, Value)>,
}

/// A value computed from constants and the values of a path's reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A value known without reading memory (an immediate, an initial register value).
    Const(Value),
    /// The value returned by the read at this index of the path.
    Read(usize),
    /// The wrapping sum of two values (PTX `add`).
    Add(Box<Expr>, Box<Expr>),
    /// The wrapping difference of two values (PTX `sub`).
    Sub(Box<Expr>, Box<Expr>),
    /// The value an `atom`/`red` of this operation writes, from the old value and the operand
    /// ([`RmwOp::apply`]; never `Cas`, whose write is its `new` operand).
    Rmw(RmwOp, Box<Expr>, Box<Expr>),
    /// The state `mbarrier.init` writes for this count ([`MbarrierState::init`]).
    MbarInit(Box<Expr>),
    /// An mbarrier's state after a tx-count change and arrivals:
    /// [`MbarrierState::update`]`(state, arrivals, tx)`.
    MbarUpdate(Box<[Expr; 3]>),
    /// 1 when the phase of parity `.1` has completed in mbarrier state `.0`, else 0
    /// ([`MbarrierState::completed`]).
    MbarDone(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// `a + b`, folded when both are constants.
    fn add(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_add(*y)),
            _ => Expr::Add(Box::new(a), Box::new(b)),
        }
    }

    /// `a - b`, folded when both are constants.
    fn sub(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_sub(*y)),
            _ => Expr::Sub(Box::new(a), Box::new(b)),
        }
    }

    /// What an RMW of `op` writes over `old` with operand `arg`, folded when both are constants.
    fn rmw(op: RmwOp, old: Expr, arg: Expr) -> Expr {
        match (op, &old, &arg) {
            (RmwOp::Add, ..) => Expr::add(old, arg),
            (RmwOp::Sub, ..) => Expr::sub(old, arg),
            (RmwOp::Exch, ..) => arg,
            (_, Expr::Const(a), Expr::Const(b)) => {
                Expr::Const(op.apply(*a, *b, 0).expect("only a CAS fails"))
            }
            _ => Expr::Rmw(op, Box::new(old), Box::new(arg)),
        }
    }

    /// Appends the index of every read the expression mentions.
    pub fn reads(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Const(_) => {}
            Expr::Read(i) => out.push(*i),
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Rmw(_, a, b) | Expr::MbarDone(a, b) => {
                a.reads(out);
                b.reads(out);
            }
            Expr::MbarInit(a) => a.reads(out),
            Expr::MbarUpdate(args) => args.iter().for_each(|a| a.reads(out)),
        }
    }

    /// The value, once every read it mentions has one (`read` gives them by index).
    pub fn eval(&self, read: &impl Fn(usize) -> Option<Value>) -> Option<Value> {
        match self {
            Expr::Const(v) => Some(*v),
            Expr::Read(i) => read(*i),
            Expr::Add(a, b) => Some(a.eval(read)?.wrapping_add(b.eval(read)?)),
            Expr::Sub(a, b) => Some(a.eval(read)?.wrapping_sub(b.eval(read)?)),
            Expr::Rmw(op, a, b) => op.apply(a.eval(read)?, b.eval(read)?, 0),
            Expr::MbarInit(count) => Some(MbarrierState::init(count.eval(read)?)),
            Expr::MbarUpdate(args) => {
                let [state, arrivals, tx] = &**args;
                Some(MbarrierState::update(
                    state.eval(read)?,
                    arrivals.eval(read)?,
                    tx.eval(read)?,
                ))
            }
            Expr::MbarDone(state, parity) => Some(Value::from(MbarrierState::completed(
                state.eval(read)?,
                parity.eval(read)?,
            ))),
        }
    }
}

/// A comparison a path assumed about its values (the side of a branch or a CAS it took).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Assumption {
    /// The comparison assumed to hold between `a` and `b`.
    pub cmp: Cmp,
    /// Its left operand.
    pub a: Expr,
    /// Its right operand.
    pub b: Expr,
    /// How many events the path had when it assumed this: the assumption decides which events
    /// follow, so a prefix of fewer events ([`Path::prefix`]) does not need it.
    pub at: usize,
}

impl Assumption {
    /// `Some(false)` once the values show the path impossible; `None` while undecided.
    pub fn holds(&self, read: &impl Fn(usize) -> Option<Value>) -> Option<bool> {
        let (a, b) = (self.a.eval(read)?, self.b.eval(read)?);
        Some(match self.cmp {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        })
    }
}

/// One way a thread can run, its values symbolic.
#[derive(Clone, Debug)]
pub struct Path {
    /// The thread's events in program order, their values symbolic.
    pub events: Vec<ThreadEvent<Expr>>,
    /// Every register's value at the path's end (empty for a [`Path::prefix`]).
    pub regs: BTreeMap<Reg, Expr>,
    /// What the path assumed at branches and CAS operations that depend on loaded values.
    pub assumes: Vec<Assumption>,
    /// The backward branch whose bound cut this path short (or, recording lassos, at whose
    /// taking it is cut: see [`paths_with_lassos`]); `None` for a path that ends.
    pub cut: Option<Span>,
    /// For a cut path, when the cutting branch was taken before: the iteration between its
    /// last two takings (recorded only by [`paths_with_lassos`]).
    pub lasso: Option<Lasso>,
}

/// The last iteration of a cut path: what ran between the last two takings of the backward
/// branch that the bound cut (`liveness.rs` judges whether it can repeat forever).
#[derive(Clone, Debug)]
pub struct Lasso {
    /// Index of the iteration's first event in the path.
    pub start: usize,
    /// The statements the iteration ran, in order: from the branch's target to the branch.
    pub stmts: Vec<usize>,
    /// Every register's value when the iteration began.
    pub regs_before: BTreeMap<Reg, Expr>,
    /// Index of the first event of the iteration before it, when that one ran the same
    /// statements (the earlier of two equal iterations: what a repeated iteration that writes
    /// may read from, see `liveness.rs`).
    pub previous: Option<usize>,
    /// The unroll bound cut the path here (the branch would be taken once more than the bound
    /// allows), rather than the lasso recording a shorter prefix before a repeated iteration.
    pub bound: bool,
}

impl Path {
    /// The first `n` events of the path, with the assumptions that decided them: the run of a
    /// thread that stops (blocks, or is never scheduled again) after them. Its registers are
    /// left out (they may depend on reads it never made).
    pub fn prefix(&self, n: usize) -> Path {
        Path {
            events: self.events[..n].to_vec(),
            regs: BTreeMap::new(),
            assumes: self.assumes.iter().filter(|a| a.at < n).cloned().collect(),
            cut: None,
            lasso: None,
        }
    }
}

/// Every path of every thread (including those cut by the bound).
pub struct Paths {
    /// For each thread, by thread index, the paths it can take.
    pub per_thread: Vec<Vec<Path>>,
}

/// Why a program cannot be turned into paths.
pub struct TraceError {
    /// Where in the litmus source the statement that cannot be run is.
    pub span: Span,
    /// What is wrong, one line.
    pub message: String,
}

/// The most paths one thread may have before we give up.
const MAX_PATHS: usize = 200_000;

/// The most events one path of a thread may have: far more than an execution the engine can
/// search, so a longer path only means a loop unrolled past any use (a huge `--unroll`, or a
/// loop that never exits); checked while unrolling, before the events are allocated.
pub const MAX_PATH_EVENTS: usize = 1024;

/// The most events all the paths of one thread may hold together (memory stays in the low
/// hundreds of megabytes).
pub const MAX_THREAD_EVENTS: usize = 1_000_000;

/// The most statements one thread's unrolling may step through, over all its paths: a loop
/// without events (`L: goto L`) under a huge `--unroll` ends here instead of spinning.
pub const MAX_STEPS: u64 = 2_000_000;

/// Every register a thread mentions, with its initial value.
pub fn registers(p: &Program, t: ThreadId) -> BTreeMap<Reg, Value> {
    let mut regs = BTreeMap::new();
    let mut note = |r: &Reg| {
        regs.entry(r.clone()).or_insert_with(|| p.initial_reg(t, r));
    };
    for i in p.reg_init.iter().filter(|i| i.thread == t) {
        note(&i.reg);
    }
    for stmt in &p.threads[t].body {
        for r in stmt.instr.regs() {
            note(r);
        }
    }
    collect_condition_regs(&p.condition.prop, t, &mut note);
    regs
}

fn collect_condition_regs(prop: &Prop, t: ThreadId, note: &mut impl FnMut(&Reg)) {
    match prop {
        Prop::True => {}
        Prop::Cmp(_, a, b) => {
            for term in [a, b] {
                if let Term::Reg(th, r) = term {
                    if *th == t {
                        note(r);
                    }
                }
            }
        }
        Prop::Not(p) => collect_condition_regs(p, t, note),
        Prop::And(a, b) | Prop::Or(a, b) => {
            collect_condition_regs(a, t, note);
            collect_condition_regs(b, t, note);
        }
    }
}

/// Every path of every thread.
pub fn paths(p: &Program, unroll: u32) -> Result<Paths, TraceError> {
    let per_thread = (0..p.threads.len())
        .map(|t| thread_paths(p, t, unroll, false))
        .collect::<Result<_, _>>()?;
    Ok(Paths { per_thread })
}

/// Every path of every thread, each cut path with its last iteration ([`Path::lasso`]); a path
/// is also cut at every taking of a backward branch that was taken before (not only where the
/// bound cuts it), so that a repeated iteration may follow any shorter prefix.
pub fn paths_with_lassos(p: &Program, unroll: u32) -> Result<Paths, TraceError> {
    let per_thread = (0..p.threads.len())
        .map(|t| thread_paths(p, t, unroll, true))
        .collect::<Result<_, _>>()?;
    Ok(Paths { per_thread })
}

/// A register's value and the reads it was computed from.
#[derive(Clone)]
struct Tainted {
    value: Expr,
    deps: BTreeSet<usize>,
}

impl Tainted {
    fn constant(value: Value) -> Tainted {
        Tainted {
            value: Expr::Const(value),
            deps: BTreeSet::new(),
        }
    }

    /// The value `read` returned.
    fn read(read: usize) -> Tainted {
        Tainted {
            value: Expr::Read(read),
            deps: BTreeSet::from([read]),
        }
    }

    /// A value computed from two others: both sets of dependencies.
    fn combine(&self, other: &Tainted, value: Expr) -> Tainted {
        Tainted {
            value,
            deps: self.deps.union(&other.deps).copied().collect(),
        }
    }
}

#[derive(Clone)]
struct State {
    pc: usize,
    regs: HashMap<Reg, Tainted>,
    /// Reads every later event depends on through a branch.
    ctrl: BTreeSet<usize>,
    events: Vec<ThreadEvent<Expr>>,
    assumes: Vec<Assumption>,
    /// Times each backward branch (by statement index) has been taken.
    loops: HashMap<usize, u32>,
    /// The events of the `cp.async` copies issued since the last `cp.async.commit_group`.
    cp_open: Vec<usize>,
    /// The events of each committed `cp.async` group no `cp.async.wait_group` has waited for
    /// yet, oldest first.
    cp_groups: Vec<Vec<usize>>,
    /// The first events of the `.bulk_group` bulk copies issued since the last
    /// `cp.async.bulk.commit_group`.
    bulk_open: Vec<usize>,
    /// The first events of the copies of each committed bulk async-group, oldest first, until a
    /// `cp.async.bulk.wait_group` (not `.read`) has waited for the group.
    bulk_groups: Vec<Vec<usize>>,
    /// Recording lassos: every statement run so far, and for each backward branch taken, the
    /// events, the statements run and the registers at its last taking.
    trail: Option<Trail>,
}

#[derive(Clone, Default)]
struct Trail {
    stmts: Vec<usize>,
    taken: HashMap<usize, (usize, usize, HashMap<Reg, Tainted>)>,
    /// For each backward branch taken twice or more: the events and statements run at the
    /// taking before the last.
    before_last: HashMap<usize, (usize, usize)>,
}

impl State {
    fn operand(&self, o: &Operand) -> Tainted {
        match o {
            Operand::Imm(v) => Tainted::constant(*v),
            Operand::Reg(r) => self.regs[r].clone(),
        }
    }

    fn push(&mut self, stmt: usize, kind: Kind<Expr>, data: &BTreeSet<usize>) -> usize {
        let deps = data.union(&self.ctrl).copied().collect::<Vec<_>>().into();
        self.events.push(ThreadEvent {
            stmt,
            kind,
            deps,
            copy_until: None,
            copy: None,
            completed_at: None,
        });
        self.events.len() - 1
    }

    /// `cp.async.commit_group`.
    fn cp_commit(&mut self) {
        let group = std::mem::take(&mut self.cp_open);
        self.cp_groups.push(group);
    }

    /// `cp.async.wait_group n`: the copies of every committed group but the `n` most recent
    /// are ordered before the events from here on.
    fn cp_wait(&mut self, n: usize) {
        let until = self.next_event();
        while self.cp_groups.len() > n {
            for e in self.cp_groups.remove(0) {
                self.events[e].copy_until = Some(until);
            }
        }
    }

    /// `cp.async.bulk.wait_group{.read} n`: PTX ISA, *cp.async.bulk.wait_group*: it "will cause
    /// the executing thread to wait until only N or fewer of the most recent bulk async-groups
    /// are pending and all the prior bulk async-groups committed by the executing threads are
    /// complete"; with `.read`, "the waiting has to be done until all the bulk async operations
    /// in the specified bulk async-group have completed reading from their source locations".
    /// The copies of every committed group but the `n` most recent complete (their source reads
    /// only, with `.read`) before the events from here on.
    fn bulk_wait(&mut self, n: usize, read: bool) {
        let at = self.next_event();
        let waited = self.bulk_groups.len().saturating_sub(n);
        for group in &self.bulk_groups[..waited] {
            for &first in group {
                // A bulk_group copy's events: the source read, then the destination write.
                let events = if read {
                    first..first + 1
                } else {
                    first..first + 2
                };
                for e in events {
                    let done = &mut self.events[e].completed_at;
                    *done = Some(done.map_or(at, |d| d.min(at)));
                }
            }
        }
        if !read {
            self.bulk_groups.drain(..waited);
        }
    }

    /// The index the next event will have.
    fn next_event(&self) -> usize {
        self.events.len()
    }

    fn into_path(self, cut: Option<(usize, Span)>, bound: bool) -> Path {
        let lasso = cut
            .zip(self.trail.as_ref())
            .and_then(|((branch, _), trail)| {
                let (start, from, regs) = trail.taken.get(&branch)?;
                let stmts = &trail.stmts[*from..];
                // The iteration before: the one between the two takings before, or, when the
                // branch was taken only once before, the first iteration, from the loop's
                // entry (the statements just before the last taking, when they are the same
                // statements: each statement makes the same events, which `liveness.rs`
                // checks event for event).
                let len = self.events.len() - start;
                let first = (*from >= stmts.len()
                    && &trail.stmts[*from - stmts.len()..*from] == stmts
                    && *start >= len)
                    .then(|| start - len);
                let previous = match trail.before_last.get(&branch) {
                    Some(&(events, earlier)) => {
                        (&trail.stmts[earlier..*from] == stmts).then_some(events)
                    }
                    None => first,
                };
                Some(Lasso {
                    bound,
                    start: *start,
                    stmts: stmts.to_vec(),
                    previous,
                    regs_before: regs
                        .iter()
                        .map(|(r, v)| (r.clone(), v.value.clone()))
                        .collect(),
                })
            });
        Path {
            events: self.events,
            regs: self.regs.into_iter().map(|(r, v)| (r, v.value)).collect(),
            assumes: self.assumes,
            cut: cut.map(|(_, span)| span),
            lasso,
        }
    }
}

/// The two sides of a comparison: `(cmp holds?, state assuming it)` for each side that the
/// constants leave possible.
fn sides(s: State, cmp: Cmp, a: &Tainted, b: &Tainted) -> Vec<(bool, State)> {
    if let (Expr::Const(x), Expr::Const(y)) = (&a.value, &b.value) {
        let holds = match cmp {
            Cmp::Eq => x == y,
            Cmp::Ne => x != y,
        };
        return vec![(holds, s)];
    }
    let negated = match cmp {
        Cmp::Eq => Cmp::Ne,
        Cmp::Ne => Cmp::Eq,
    };
    let mut other = s.clone();
    let mut yes = s;
    for (state, cmp) in [(&mut yes, cmp), (&mut other, negated)] {
        let at = state.events.len();
        state.assumes.push(Assumption {
            cmp,
            a: a.value.clone(),
            b: b.value.clone(),
            at,
        });
    }
    vec![(true, yes), (false, other)]
}

fn thread_paths(
    p: &Program,
    t: ThreadId,
    unroll: u32,
    lassos: bool,
) -> Result<Vec<Path>, TraceError> {
    let body = &p.threads[t].body;
    let labels = p.threads[t].labels();
    let start = State {
        pc: 0,
        regs: registers(p, t)
            .into_iter()
            .map(|(r, value)| (r, Tainted::constant(value)))
            .collect(),
        ctrl: BTreeSet::new(),
        events: Vec::new(),
        assumes: Vec::new(),
        loops: HashMap::new(),
        cp_open: Vec::new(),
        cp_groups: Vec::new(),
        bulk_open: Vec::new(),
        bulk_groups: Vec::new(),
        trail: lassos.then(Trail::default),
    };
    let mut paths = Vec::new();
    let mut stack = vec![start];
    let (mut steps, mut held) = (0u64, 0usize);
    while let Some(mut s) = stack.pop() {
        steps += 1;
        if s.events.len() > MAX_PATH_EVENTS || steps > MAX_STEPS || held > MAX_THREAD_EVENTS {
            let what = if steps > MAX_STEPS {
                format!("more than {MAX_STEPS} unrolled statements")
            } else if held > MAX_THREAD_EVENTS {
                format!("paths of more than {MAX_THREAD_EVENTS} events in all")
            } else {
                format!("a run of more than {MAX_PATH_EVENTS} events")
            };
            return Err(TraceError {
                span: p.threads[t].span,
                message: format!(
                    "thread P{t} has {what} within the unroll bound of {unroll} loop iterations (a loop that never exits?); lower --unroll"
                ),
            });
        }
        if paths.len() > MAX_PATHS {
            return Err(TraceError {
                span: p.threads[t].span,
                message: format!(
                    "thread P{t} has more than {MAX_PATHS} distinct paths; lower --unroll"
                ),
            });
        }
        let Some(stmt) = body.get(s.pc) else {
            held += s.events.len();
            paths.push(s.into_path(None, false));
            continue;
        };
        let here = s.pc;
        s.pc += 1;
        if let Some(trail) = &mut s.trail {
            trail.stmts.push(here);
        }
        match &stmt.instr {
            Instr::Load { access, dst, loc } => {
                let r = s.next_event();
                let kind = Kind::Read {
                    loc: *loc,
                    access: *access,
                    value: Expr::Read(r),
                    rmw: false,
                };
                s.push(here, kind, &BTreeSet::new());
                s.regs.insert(dst.clone(), Tainted::read(r));
                stack.push(s);
            }
            Instr::Store { access, loc, value } => {
                let v = s.operand(value);
                s.write(here, *access, *loc, &v, false);
                stack.push(s);
            }
            Instr::Atom {
                access,
                op,
                dst,
                loc,
                operand,
                new,
            } => {
                let arg = s.operand(operand);
                let cas_new = new.as_ref().map(|n| s.operand(n));
                for mut n in s.rmw(here, *access, *op, *loc, &arg, cas_new.as_ref()) {
                    let r = n.read;
                    n.state.regs.insert(dst.clone(), Tainted::read(r));
                    stack.push(n.state);
                }
            }
            Instr::Red {
                access,
                op,
                loc,
                operand,
            } => {
                let arg = s.operand(operand);
                for n in s.rmw(here, *access, *op, *loc, &arg, None) {
                    stack.push(n.state);
                }
            }
            Instr::Fence(f) => {
                s.push(here, Kind::Fence(*f), &BTreeSet::new());
                stack.push(s);
            }
            Instr::Barrier { op, id, quorum } => {
                let ids: Vec<Tainted> = id.iter().map(|o| s.operand(o)).collect();
                let q = quorum.as_ref().map(|o| s.operand(o));
                let mut deps = BTreeSet::new();
                for d in ids.iter().chain(q.iter()) {
                    deps.extend(d.deps.iter().copied());
                }
                let kind = Kind::Barrier {
                    op: *op,
                    id: ids.into_iter().map(|t| t.value).collect(),
                    quorum: q.map(|q| q.value),
                };
                s.push(here, kind, &deps);
                stack.push(s);
            }
            Instr::WarpSync { mask } => {
                // A barrier among the mask's lanes (see `Instr::WarpSync`).
                let (id, quorum) = Instr::warp_barrier(*mask);
                let kind = Kind::Barrier {
                    op: BarrierOp::Sync,
                    id: id.iter().map(|&v| Expr::Const(v)).collect(),
                    quorum: Some(Expr::Const(quorum)),
                };
                s.push(here, kind, &BTreeSet::new());
                stack.push(s);
            }
            Instr::CpAsync { dst, src } => {
                // PTX ISA, *cp.async*: it "initiates an asynchronous copy operation of data from
                // the location specified by source address operand src to the location
                // specified by destination address operand dst"; the non-bulk copy is not one
                // of the operations PTX performs in the async proxy, so it reads and writes
                // through the generic proxy, as weak accesses (it has no `.sem`). It writes the
                // value it read: the write depends on the read.
                let weak = Access {
                    proxy: Proxy::Generic,
                    order: Order::Weak,
                    scope: None,
                };
                let r = s.next_event();
                let kind = Kind::Read {
                    loc: *src,
                    access: weak,
                    value: Expr::Read(r),
                    rmw: false,
                };
                s.push(here, kind, &BTreeSet::new());
                s.write(here, weak, *dst, &Tainted::read(r), false);
                for e in [r, r + 1] {
                    s.events[e].copy_until = Some(usize::MAX);
                    s.cp_open.push(e);
                }
                stack.push(s);
            }
            Instr::CpAsyncCommit => {
                s.cp_commit();
                stack.push(s);
            }
            Instr::CpAsyncWait { n, all } => {
                // PTX ISA, *cp.async.wait_group*: it makes "the executing thread wait till only
                // N or fewer of the most recent cp.async-groups are pending and all the prior
                // cp.async-groups committed by the executing thread are complete";
                // *cp.async.wait_all* "is equivalent to: cp.async.commit_group;
                // cp.async.wait_group 0;".
                if *all {
                    s.cp_commit();
                }
                s.cp_wait(*n as usize);
                stack.push(s);
            }
            Instr::Mov { dst, src } => {
                let v = s.operand(src);
                s.regs.insert(dst.clone(), v);
                stack.push(s);
            }
            Instr::Add { dst, a, b } => {
                let (a, b) = (s.operand(a), s.operand(b));
                let sum = a.combine(&b, Expr::add(a.value.clone(), b.value.clone()));
                s.regs.insert(dst.clone(), sum);
                stack.push(s);
            }
            Instr::Async(op) => stack.extend(s.async_op(here, op)),
            Instr::Label(_) => stack.push(s),
            Instr::Branch { cond, target } => {
                let Some(&dest) = labels.get(target.as_str()) else {
                    return Err(TraceError {
                        span: stmt.span,
                        message: format!("branch to undefined label `{target}`"),
                    });
                };
                let outcomes = match cond {
                    None => vec![(true, s)],
                    Some((cmp, a, b)) => {
                        let (a, b) = (s.operand(a), s.operand(b));
                        s.ctrl.extend(a.deps.iter().chain(&b.deps).copied());
                        sides(s, *cmp, &a, &b)
                    }
                };
                for (taken, mut s) in outcomes {
                    if taken {
                        if dest <= here {
                            let times = s.loops.entry(here).or_insert(0);
                            *times += 1;
                            if *times > unroll {
                                held += s.events.len();
                                paths.push(s.into_path(Some((here, stmt.span)), true));
                                continue;
                            }
                            if s.trail
                                .as_ref()
                                .is_some_and(|t| t.taken.contains_key(&here))
                            {
                                // Recording lassos: the run may also repeat the iteration that
                                // ends here forever, after fewer takings than the bound allows
                                // (a shorter prefix: a path cut here).
                                held += s.events.len();
                                paths.push(s.clone().into_path(Some((here, stmt.span)), false));
                            }
                            if let Some(trail) = &mut s.trail {
                                let at = (s.events.len(), trail.stmts.len(), s.regs.clone());
                                if let Some((events, stmts, _)) = trail.taken.insert(here, at) {
                                    trail.before_last.insert(here, (events, stmts));
                                }
                            }
                        }
                        s.pc = dest;
                    }
                    stack.push(s);
                }
            }
        }
    }
    // Depth-first search from a stack yields paths in reverse choice order; keep them stable.
    paths.reverse();
    Ok(paths)
}

/// One outcome of an RMW: the state after it and the index of its read.
struct RmwOutcome {
    state: State,
    read: usize,
}

impl State {
    /// A store of `v` to `loc`, depending on the reads `v` was computed from.
    fn write(&mut self, stmt: usize, access: Access, loc: LocId, v: &Tainted, rmw: bool) {
        let kind = Kind::Write {
            loc,
            access,
            value: v.value.clone(),
            rmw,
        };
        self.push(stmt, kind, &v.deps);
    }

    /// An RMW: a read, then (unless a CAS fails) a write of the new value. A CAS forks into
    /// success and failure, each assuming how the value read compares with the expected one.
    fn rmw(
        self,
        stmt: usize,
        access: Access,
        op: RmwOp,
        loc: LocId,
        arg: &Tainted,
        cas_new: Option<&Tainted>,
    ) -> Vec<RmwOutcome> {
        let (ra, wa) = split_rmw(access);
        let r = self.next_event();
        let old = Tainted::read(r);
        // PTX ISA, *atom*: "atomically loads the original value at location a into destination
        // register d, performs a reduction operation with operand b and the value in location
        // a, and stores the result of the specified operation at location a"; `red` is the same
        // without `d`. Every operation but a CAS writes; a CAS writes only when it compares equal.
        let new_value = match op {
            RmwOp::Cas => None,
            op => Some(Expr::rmw(op, old.value.clone(), arg.value.clone())),
        };
        let outcomes: Vec<(Option<Expr>, State)> = match new_value {
            Some(v) => vec![(Some(v), self)],
            None => sides(self, Cmp::Eq, &old, arg)
                .into_iter()
                .map(|(swapped, s)| {
                    let written = cas_new.map_or(Expr::Const(0), |n| n.value.clone());
                    (swapped.then_some(written), s)
                })
                .collect(),
        };
        outcomes
            .into_iter()
            .map(|(written, mut s)| {
                let kind = Kind::Read {
                    loc,
                    access: ra,
                    value: Expr::Read(r),
                    rmw: written.is_some(),
                };
                s.push(stmt, kind, &BTreeSet::new());
                if let Some(v) = written {
                    let mut from = old.combine(arg, v.clone());
                    if let Some(n) = cas_new {
                        from = from.combine(n, v);
                    }
                    s.write(stmt, wa, loc, &from, true);
                }
                RmwOutcome { state: s, read: r }
            })
            .collect()
    }
}

/// The order of the read and the write halves of an RMW: acquire stays with the read, release
/// with the write; each half is at least relaxed.
pub fn split_rmw(access: Access) -> (Access, Access) {
    let read = if access.order.is_acquire() {
        Order::Acquire
    } else {
        Order::Relaxed
    };
    let write = if access.order.is_release() {
        Order::Release
    } else {
        Order::Relaxed
    };
    (
        Access {
            order: read,
            ..access
        },
        Access {
            order: write,
            ..access
        },
    )
}

impl State {
    /// An asynchronous instruction's events. An mbarrier instruction is memory events on the
    /// barrier's location, whose value is the packed [`MbarrierState`]: `mbarrier.init` a weak write; arrive, expect-tx and complete-tx
    /// atomic read-modify-writes (PTX ISA, *mbarrier*: "operations on an mbarrier object are
    /// performed atomically"), an arrive with its `.release` on the write; `try_wait` a strong
    /// read. PTX ISA, *mbarrier.test_wait/try_wait*: the acquire pattern is that of a wait that
    /// returns True ("when the wait completes, it synchronizes with the release pattern"), so the
    /// path forks: on the side where the phase has completed the read acquires, on the other it
    /// is relaxed. The other asynchronous instructions: bulk copies ([`State::bulk_copy`],
    /// [`State::async_copy`]), their groups ([`State::bulk_wait`]), `fence.mbarrier_init`
    /// ([`Kind::MbarrierInitFence`]) and cluster barriers ([`Kind::ClusterBarrier`]).
    fn async_op(mut self, stmt: usize, op: &AsyncOp) -> Vec<State> {
        let strong = |order: Order, scope: Scope| Access {
            proxy: Proxy::Generic,
            order,
            scope: Some(scope),
        };
        let zero = Tainted::constant(0);
        match op {
            AsyncOp::MbarrierInit { bar, count } => {
                let count = self.operand(count);
                let state = Tainted {
                    value: Expr::MbarInit(Box::new(count.value.clone())),
                    deps: count.deps,
                };
                let weak = Access {
                    proxy: Proxy::Generic,
                    order: Order::Weak,
                    scope: None,
                };
                self.write(stmt, weak, *bar, &state, false);
                vec![self]
            }
            AsyncOp::MbarrierArrive {
                bar,
                order,
                scope,
                arrival,
                ..
            } => {
                let (arrivals, tx) = match arrival {
                    Arrival::Count(n) => (self.operand(n), zero),
                    Arrival::ExpectTx(bytes) => (Tainted::constant(1), self.operand(bytes)),
                };
                self.mbar_rmw(stmt, strong(*order, *scope), *bar, &arrivals, &tx);
                vec![self]
            }
            AsyncOp::MbarrierExpectTx {
                bar, scope, bytes, ..
            } => {
                let tx = self.operand(bytes);
                self.mbar_rmw(stmt, strong(Order::Relaxed, *scope), *bar, &zero, &tx);
                vec![self]
            }
            AsyncOp::MbarrierCompleteTx {
                bar, scope, bytes, ..
            } => {
                let bytes = self.operand(bytes);
                let tx = Tainted {
                    value: Expr::sub(Expr::Const(0), bytes.value.clone()),
                    deps: bytes.deps,
                };
                self.mbar_rmw(stmt, strong(Order::Relaxed, *scope), *bar, &zero, &tx);
                vec![self]
            }
            AsyncOp::MbarrierTryWait {
                dst,
                bar,
                order,
                scope,
                parity,
            } => {
                let r = self.next_event();
                let parity = self.operand(parity);
                let done = Tainted::read(r).combine(
                    &parity,
                    Expr::MbarDone(Box::new(Expr::Read(r)), Box::new(parity.value.clone())),
                );
                let sides = match order.is_acquire() {
                    true => sides(self, Cmp::Eq, &done, &Tainted::constant(1)),
                    false => vec![(false, self)],
                };
                sides
                    .into_iter()
                    .map(|(completed, mut s)| {
                        let order = if completed { *order } else { Order::Relaxed };
                        let kind = Kind::Read {
                            loc: *bar,
                            access: strong(order, *scope),
                            value: Expr::Read(r),
                            rmw: false,
                        };
                        s.push(stmt, kind, &BTreeSet::new());
                        s.regs.insert(dst.clone(), done.clone());
                        s
                    })
                    .collect()
            }
            AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::Mbarrier(bar),
            } => {
                self.bulk_copy(stmt, *dst, *src, *size, *bar);
                vec![self]
            }
            AsyncOp::BulkCopy {
                dst,
                src,
                size: _,
                completion: BulkCompletion::BulkGroup,
            } => {
                let first = self.async_copy(stmt, *dst, *src);
                self.bulk_open.push(first);
                vec![self]
            }
            AsyncOp::BulkCommitGroup => {
                // PTX ISA, *cp.async.bulk.commit_group*: it "creates a new bulk async-group
                // per thread and batches all prior cp.async.bulk instructions ... into the new
                // bulk async-group"; with none, "an empty bulk async-group is created".
                let group = std::mem::take(&mut self.bulk_open);
                self.bulk_groups.push(group);
                vec![self]
            }
            AsyncOp::BulkWaitGroup { pending, read } => {
                self.bulk_wait(*pending as usize, *read);
                vec![self]
            }
            AsyncOp::FenceMbarrierInit => {
                self.push(stmt, Kind::MbarrierInitFence, &BTreeSet::new());
                vec![self]
            }
            AsyncOp::ClusterArrive { order } => {
                let release = order.is_release();
                let kind = Kind::ClusterBarrier(ClusterBarrier::Arrive { release });
                self.push(stmt, kind, &BTreeSet::new());
                vec![self]
            }
            AsyncOp::ClusterWait => {
                self.push(
                    stmt,
                    Kind::ClusterBarrier(ClusterBarrier::Wait),
                    &BTreeSet::new(),
                );
                vec![self]
            }
        }
    }

    /// A bulk copy completed through an mbarrier: the copy's accesses ([`State::async_copy`]),
    /// then the complete-tx of `size` bytes on `bar`, a relaxed `.cluster` read-modify-write of
    /// the barrier's state.
    fn bulk_copy(&mut self, stmt: usize, dst: LocId, src: LocId, size: Value, bar: LocId) {
        let first = self.async_copy(stmt, dst, src);
        let complete = Access {
            proxy: Proxy::Generic,
            order: Order::Relaxed,
            scope: Some(Scope::Cluster),
        };
        let zero = Tainted::constant(0);
        self.mbar_rmw(stmt, complete, bar, &zero, &Tainted::constant(-size));
        for e in &mut self.events[first..] {
            e.copy = Some(first);
        }
    }

    /// A bulk copy's accesses: an async-proxy read of `src` and write of `dst` (weak: the copy
    /// promises no atomicity). The events belong to the copy, not to the thread's program order
    /// ([`ThreadEvent::copy`]). Returns the copy's first event.
    fn async_copy(&mut self, stmt: usize, dst: LocId, src: LocId) -> usize {
        let first = self.next_event();
        let weak = Access {
            proxy: Proxy::Async,
            order: Order::Weak,
            scope: None,
        };
        let read = Kind::Read {
            loc: src,
            access: weak,
            value: Expr::Read(first),
            rmw: false,
        };
        self.push(stmt, read, &BTreeSet::new());
        self.write(stmt, weak, dst, &Tainted::read(first), false);
        for e in &mut self.events[first..] {
            e.copy = Some(first);
        }
        first
    }

    /// An atomic update of an mbarrier's state: a read, then the write of
    /// [`MbarrierState::update`] of what it read.
    fn mbar_rmw(
        &mut self,
        stmt: usize,
        access: Access,
        bar: LocId,
        arrivals: &Tainted,
        tx: &Tainted,
    ) {
        let (ra, wa) = split_rmw(access);
        let r = self.next_event();
        let kind = Kind::Read {
            loc: bar,
            access: ra,
            value: Expr::Read(r),
            rmw: true,
        };
        self.push(stmt, kind, &BTreeSet::new());
        let old = Tainted::read(r);
        let value = Expr::MbarUpdate(Box::new([
            old.value.clone(),
            arrivals.value.clone(),
            tx.value.clone(),
        ]));
        let new = old.combine(arrivals, value.clone()).combine(tx, value);
        self.write(stmt, wa, bar, &new, true);
    }
}
