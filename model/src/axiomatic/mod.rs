//! The axiomatic engine: every final state a memory model allows for a litmus program.
//!
//! `events/` turns each thread into paths (loops unrolled to a bound, loaded values symbolic),
//! `values/` chooses reads-from and computes the values along it, giving concrete traces,
//! `enumerate.rs` builds
//! candidate executions from them (reads-from, coherence, fence.sc order, barrier matching) and
//! `models/` judges each one with the model's axioms (its cat text, [`crate::cat`], evaluated
//! in the relation algebra of `rel.rs`). `dot.rs` draws a witness execution. `targets.rs` lets the search skip executions
//! of final states it already has, when only the states are asked for ([`analyze_states`]).
//!
//! Choices where the sources leave room, each checked against Dartagnan's verdicts on the 169
//! shared PTX tests (all agree under both PTX models):
//! - Coherence order is partial, as the PTX ISA and the Tile IR specification define it: "a
//!   partial transitive order that relates overlapping write operations"; two writes are related
//!   if they are morally strong or related in causality order (happens-before in Tile IR), and
//!   writes in a data race stay unrelated. The initial write comes before every other write
//!   (the initial values are in memory before any thread runs). From-reads is `rf^-1 ; co` with
//!   `co` transitive. The Causality axiom, with a partial order, only forbids a read's source
//!   to be coherence-before a write causally before the read; it does not order them
//!   ([`models::coherence_forbidden`]).
//! - A final state reports the locations the condition reads ([`FinalMemory`]); the final value
//!   of one comes from a write every other write to it precedes in coherence, in a consistent
//!   execution (so the search orders the last write after the others where it reports the
//!   value, and nowhere else).
//! - Executions are counted once per reads-from, synchronization, orientation of the morally
//!   strong write pairs and last write of each reported location, with the least coherence
//!   these allow (every other consistent coherence order with the same choices only adds
//!   pairs no axiom asks for, and reaches the same final state).
//! - Observation chains through RMWs as the PTX ISA defines it (`(ms & rf) ; (rmw ; ms & rf)*`),
//!   not only one step: a release read by an RMW whose write an acquire reads synchronizes.
//! - Barriers: `bar.cta.sync a[, b[, q]]` meet when all id operands agree (by value, so register
//!   ids are dynamic) in one CTA; without a quorum the k-th barrier of each thread joins the
//!   k-th instance; with quorum `q`, instances have exactly `q` barriers, and one left out blocks
//!   its thread, so it must be the thread's last event (final states come from runs that end).
//!   `arrive` does not wait. A matching whose instances wait for each other in a cycle is a
//!   deadlock, with no final state, under every model.
//! - fence.sc: one total order of all fence.sc operations, of which only morally strong pairs
//!   synchronize; we enumerate the distinct restrictions.

mod analysis;
pub mod budget;
mod condition;
pub mod dot;
pub mod enumerate;
pub mod events;
pub mod execution;
pub mod liveness;
mod model;
pub mod models;
pub mod rel;
mod state;
pub mod targets;
pub mod values;
pub mod wanted;
pub use analysis::{Analysis, AnalysisError, Options};
pub use budget::{Progress, Report, Stop};
pub use condition::{condition_holds_on, filter_admits};
pub use execution::{ExecEvent, Execution};
pub use model::{Model, ModelError};
pub use state::{observed_locations, FinalMemory, FinalState, StateCount};

use crate::litmus::{Program, Quantifier, Span};
use std::collections::{BTreeSet, HashMap};
use std::ops::ControlFlow;
use std::rc::Rc;

/// Every final state `model` allows for `p`.
///
/// With [`Options::condition_only`], only the states that decide the condition are looked for
/// ([`analyze_states`] with that goal).
pub fn analyze(p: &Program, model: Model, opts: &Options) -> Result<Analysis, AnalysisError> {
    let how = How {
        count_executions: !opts.condition_only,
        ..How::counting(|search, tally| search.pruned(tally))
    };
    explore(p, model, opts, how)
}

/// Every final state `model` allows for `p`, as [`analyze`] finds them (with the same `holds` and
/// `bounded`), without counting executions: the search stops looking for executions of a final
/// state it already has ([`targets`]), so `executions`, `racy_executions` and each state's
/// `witnesses` only count the executions met on the way (at least one per state).
pub fn analyze_states(
    p: &Program,
    model: Model,
    opts: &Options,
) -> Result<Analysis, AnalysisError> {
    let how = How {
        count_executions: false,
        ..How::counting(|search, tally| search.pruned(tally))
    };
    explore(p, model, opts, how)
}

/// Which of the `wanted` final states `model` allows for `p`: the states [`analyze_states`]
/// finds, intersected with `wanted`, found without looking for the others (valuations whose
/// registers no wanted state has are not explored, and the search ends once every wanted state
/// is found). The engine differential asks this about the states the runtime reaches.
pub fn allowed_among(
    p: &Program,
    model: Model,
    opts: &Options,
    wanted: &BTreeSet<FinalState>,
) -> Result<BTreeSet<FinalState>, AnalysisError> {
    let how = How {
        count_executions: false,
        wanted: Some(wanted::Wanted::new(
            p,
            &observed_locations(p, opts.memory),
            wanted.iter().cloned().collect(),
        )),
        ..How::counting(|search, tally| search.pruned(tally))
    };
    let analysis = explore(p, model, opts, how)?;
    Ok(analysis.states.into_iter().map(|s| s.state).collect())
}

/// Valuations are checked while they are chosen ([`enumerate::Prefix`]) when the reads may
/// choose their sources in more than this many ways.
const PREFIX_BREADTH: u64 = 64;

/// The next combination of paths (or of `liveness.rs`'s runs), one per thread (an odometer
/// over `choice`); `false` after the last.
fn next_choice<T>(choice: &mut [usize], per_thread: &[Vec<T>]) -> bool {
    for (c, paths) in choice.iter_mut().zip(per_thread) {
        *c += 1;
        if *c < paths.len() {
            return true;
        }
        *c = 0;
    }
    false
}

/// How [`explore`] goes through the candidate executions (public for the tests that compare
/// the pruned search with the exhaustive reference).
pub struct How {
    /// Count every consistent execution, or only find the final states.
    pub count_executions: bool,
    /// The search of one combination of traces (the pruned one, or in tests the exhaustive
    /// reference).
    pub search: enumerate::SearchFn,
    /// Judge every valuation, also those whose values flow in a cycle through reads-from,
    /// under models that forbid them too (the reference for tests).
    pub every_valuation: bool,
    /// Finding final states only: the only ones asked about.
    pub wanted: Option<wanted::Wanted>,
    /// Valuations are checked while they are chosen ([`enumerate::Prefix`]) when their reads
    /// may choose sources in more than this many ways (tests compare with and without).
    pub prefix_breadth: u64,
}

impl How {
    /// Count every consistent execution found by `search`, with the default prefix breadth.
    pub fn counting(search: enumerate::SearchFn) -> How {
        How {
            count_executions: true,
            search,
            every_valuation: false,
            wanted: None,
            prefix_breadth: PREFIX_BREADTH,
        }
    }
}

/// Goes through `p`'s candidate executions under `model` as `how` says.
pub fn explore(
    p: &Program,
    model: Model,
    opts: &Options,
    how: How,
) -> Result<Analysis, AnalysisError> {
    let How {
        count_executions,
        search,
        every_valuation,
        wanted,
        prefix_breadth,
    } = how;
    let wanted_count = wanted.as_ref().map(wanted::Wanted::count);
    let observed = observed_locations(p, opts.memory);
    let limits = budget::Limits {
        timeout: opts.timeout,
        max_executions: opts.max_executions,
        max_memory: opts.max_memory,
        interrupt: opts.interrupt.clone(),
    };
    let budget = budget::Budget::new(&limits, opts.progress.clone());
    // Deciding the condition: the states that decide it.
    let decide = (opts.condition_only && wanted.is_none())
        .then_some(p.condition.quantifier != Quantifier::Forall);
    let decisive = |s: &FinalState| {
        decide.is_some_and(|sat| condition_holds_on(p, s) == sat && filter_admits(p, s))
    };
    let paths = events::paths(p, opts.unroll).map_err(|e| AnalysisError {
        span: e.span,
        message: e.message,
    })?;
    let mut out = enumerate::Collector {
        witnesses: opts.witnesses,
        states: HashMap::default(),
        executions: 0,
        racy: 0,
        racy_states: HashMap::default(),
        states_only: !count_executions,
        accept: None,
        viable: None,
        co_floor: None,
        first_only: false,
        prefix_global: false,
    };
    // Guard against programs whose thread paths multiply beyond any reasonable search.
    const MAX_COMBINATIONS: u64 = 100_000_000;
    let combinations = paths
        .per_thread
        .iter()
        .try_fold(1u64, |acc, ps| acc.checked_mul(ps.len() as u64))
        .filter(|&c| c <= MAX_COMBINATIONS);
    if combinations.is_none() {
        return Err(AnalysisError {
            span: p.condition.span,
            message: format!(
                "the threads' paths combine into more than {MAX_COMBINATIONS} candidates; lower --unroll or split the test"
            ),
        });
    }
    // A path cut by the unroll bound that some valuation makes possible (its thread and
    // backward branch): such runs make the result bounded. The condition is decided on the runs that finish within
    // the bound, as herd7 does ("unrolling limit exceeded at L, legal outcomes may be
    // missing", its verdict then marked `Loop`): with none, `forall` and `~exists` hold over
    // no execution and `exists` does not.
    let mut cut: Option<(usize, Span)> = None;
    let mut choice = vec![0usize; paths.per_thread.len()];
    // Without cut paths, whose possibility decides boundedness and is judged on every
    // valuation, a model with No-Thin-Air needs only the valuations without data-flow cycles.
    let grounded = model.forbids_thin_air()
        && !every_valuation
        && paths
            .per_thread
            .iter()
            .flatten()
            .all(|path| path.cut.is_none());
    // Asked about given states: every one found ends the search.
    let all_found = |out: &enumerate::Collector| {
        budget.set_states(out.states.len());
        wanted_count == Some(out.states.len())
            || budget.stopped().is_some()
            || (decide.is_some() && out.states.keys().any(decisive))
    };
    if paths.per_thread.iter().all(|ps| !ps.is_empty()) {
        'combos: loop {
            let combo: Vec<&events::Path> = choice
                .iter()
                .enumerate()
                .map(|(t, &i)| &paths.per_thread[t][i])
                .collect();
            let mut valuations = values::Valuations::new(p, &combo);
            if model.thin_air_values() {
                valuations.allow_thin_air(p);
            }
            let wanted_here = wanted.as_ref().map(|w| {
                let names: Vec<String> = combo
                    .iter()
                    .enumerate()
                    .flat_map(|(t, path)| path.regs.keys().map(move |r| format!("P{t}:{r}")))
                    .collect();
                w.for_registers(&names)
            });
            // Valuations are narrowed to wanted registers only without cut paths: every
            // valuation of those counts for `cut`.
            if let (true, Some(here)) = (grounded, &wanted_here) {
                if here.registers.is_empty() {
                    if next_choice(&mut choice, &paths.per_thread) {
                        continue 'combos;
                    }
                    break;
                }
                valuations.want_registers(Rc::clone(here));
            }
            let cut_here = combo
                .iter()
                .enumerate()
                .find_map(|(t, path)| path.cut.map(|span| (t, span)));
            if let Some(c) = cut_here {
                if cut.is_none() && valuations.any() {
                    cut = Some(c);
                }
            } else {
                // Deciding the condition: valuations whose registers already decide it the
                // other way are not worth a search. (A cut combination's valuations all count
                // for `cut`: it is never narrowed.)
                if let (false, Some(sat)) = (every_valuation, decide) {
                    valuations.want_condition(p, sat);
                }
                // Many valuations: drop those whose forced reads-from pairs no consistent
                // execution has while they are being chosen (a few reads in, rather than one
                // by one once complete).
                let skeleton;
                let prefix;
                let check;
                if !every_valuation && valuations.breadth() > prefix_breadth {
                    // Deciding the condition: the final values it needs may fix the last
                    // write of a location (or rule out these paths).
                    let lasts = match decide {
                        Some(sat) => valuations.forced_last_writes(p, sat, &observed),
                        None => Some(Vec::new()),
                    };
                    let Some(lasts) = lasts else {
                        if next_choice(&mut choice, &paths.per_thread) {
                            continue 'combos;
                        }
                        break;
                    };
                    skeleton = valuations.skeleton();
                    let traces: Vec<&events::Trace> = skeleton.iter().collect();
                    prefix =
                        enumerate::Prefix::new(p, &model, &traces, &lasts, barriers_fixed(&combo))
                            .map_err(|message| AnalysisError {
                                span: p.condition.span,
                                message,
                            })?;
                    // Out of budget, every branch closes (the answer is then bounded).
                    check = |pairs: &[(usize, usize)]| budget.go_on() && prefix.possible(pairs);
                    valuations.check_reads_from(&check);
                }
                let mut result = Ok(());
                let mut explorer = enumerate::Explorer::new(
                    p,
                    model.clone(),
                    search,
                    wanted_here,
                    &observed,
                    &budget,
                );
                if let Some(sat) = decide {
                    explorer.decide(sat);
                }
                let for_each = if grounded {
                    values::Valuations::for_each_grounded
                } else {
                    values::Valuations::for_each
                };
                for_each(&valuations, &mut |traces| {
                    if !budget.go_on() {
                        return ControlFlow::Break(());
                    }
                    let combo: Vec<&events::Trace> = traces.iter().collect();
                    result = explorer.explore(&combo, &mut out);
                    if result.is_err() || all_found(&out) {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                result.map_err(|message| AnalysisError {
                    span: p.condition.span,
                    message,
                })?;
                if all_found(&out) {
                    break;
                }
            }
            if all_found(&out) || !next_choice(&mut choice, &paths.per_thread) {
                break;
            }
        }
    }
    let stopped = budget.stopped();
    let flag_names = model.cat().flag_names();
    let mut states: Vec<StateCount> = out
        .states
        .into_iter()
        .map(|(state, (witnesses, example))| StateCount {
            racy: out.racy_states.get(&state).map_or(0, |r| r.0),
            flags: models::flag_names_in(
                &flag_names,
                out.racy_states.get(&state).map_or(0, |r| r.1),
            ),
            state,
            witnesses,
            example,
        })
        .collect();
    states.sort_unstable_by(|a, b| a.state.cmp(&b.state));
    // herd's `filter`: executions whose final state fails it are not considered at all.
    let mut executions = out.executions;
    states.retain(|s| {
        let admitted = filter_admits(p, &s.state);
        if !admitted {
            executions = executions.saturating_sub(s.witnesses);
        }
        admitted
    });
    let sat = |s: &StateCount| condition_holds_on(p, &s.state);
    let holds = match p.condition.quantifier {
        Quantifier::Exists => states.iter().any(sat),
        Quantifier::NotExists => !states.iter().any(sat),
        Quantifier::Forall => states.iter().all(sat),
    };
    Ok(Analysis {
        states,
        holds,
        bounded: cut.is_some() || stopped.is_some(),
        cut,
        stopped,
        executions,
        racy_executions: match p.filter {
            None => out.racy,
            // Races of executions the filter drops are not considered either.
            Some(_) => out
                .racy_states
                .iter()
                .filter(|(s, _)| filter_admits(p, s))
                .map(|(_, n)| n.0)
                .sum(),
        },
    })
}

/// Whether every barrier of these paths has a constant id and count (then every valuation's
/// barriers match alike).
fn barriers_fixed(paths: &[&events::Path]) -> bool {
    paths
        .iter()
        .flat_map(|path| &path.events)
        .all(|e| match &e.kind {
            events::Kind::Barrier { id, quorum, .. } => id
                .iter()
                .chain(quorum)
                .all(|x| matches!(x, events::Expr::Const(_))),
            _ => true,
        })
}
