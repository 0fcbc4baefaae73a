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
//!   with the same value (`repeated.rs` gives the conditions and why the round can be copied
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

mod barriers;
pub mod bound;
mod describe;
mod hangs;
mod repeated;
mod runs;
mod verdict;

pub use bound::Cut;
pub use describe::{describe, dot};
pub use verdict::{Fate, Hang, Liveness, Options, Progress, Stuck, Verdict, DEFAULT_RAISE};

use barriers::{barrier_instance_of, Arrival};
use hangs::hangs;
use runs::{runs, Run};

use super::events::{self, Kind};
use super::{AnalysisError, Model};
use crate::litmus::Program;
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
