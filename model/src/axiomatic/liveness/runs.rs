//! Every way one thread's run can end (PTX ISA, forward progress: a thread finishes, spins in a
//! loop, waits at a barrier, or, where the progress model allows it, stops): the runs a hang is
//! made of, each once.

use super::verdict::{Fate, Progress};
use crate::axiomatic::events::{Expr, Kind, Path, ThreadEvent};
use crate::hash::Mix;
use crate::litmus::{BarrierOp, Instr, Program, Reg, Span, ThreadId};
use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// One way a thread's run can end, as a path to put in a candidate execution.
pub(super) struct Run {
    pub(super) path: Path,
    pub(super) fate: Fate,
    /// Spinning: the lasso's iteration start, the registers it reads before writing them
    /// (values before and after), the statements and the branch.
    pub(super) spin: Option<Spin>,
    /// Blocked: the barrier it waits at.
    pub(super) barrier: Option<Waiting>,
}

pub(super) struct Spin {
    pub(super) start: usize,
    /// The iteration before, when it ran the same statements (index of its first event): the
    /// writes a repeated iteration may read from in the previous round.
    pub(super) previous: Option<usize>,
    pub(super) live_in: Vec<(Expr, Expr)>,
    pub(super) stmts: Vec<usize>,
    pub(super) span: Span,
}

pub(super) struct Waiting {
    /// The barrier statement.
    pub(super) stmt: usize,
    pub(super) id: Vec<Expr>,
    pub(super) quorum: Option<Expr>,
    pub(super) span: Span,
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
pub(super) fn runs(p: &Program, t: ThreadId, paths: &[Path], progress: Progress) -> Vec<Run> {
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
