//! Choosing sources read by read and computing the values along the choice: every valuation
//! ([`Valuations::for_each`]).

use super::valuations::{Source, Valuations, Values};
use crate::axiomatic::events::{Kind, ThreadEvent, Trace};
use crate::hash::Mix;
use crate::litmus::Value;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::ops::ControlFlow;

impl<'a> Valuations<'a> {
    /// Calls `f` with the traces of every distinct valuation that satisfies every assumption,
    /// until `f` breaks.
    pub fn for_each(&self, f: &mut dyn FnMut(Vec<Trace>) -> ControlFlow<()>) {
        let n = self.paths.iter().map(|path| path.events.len()).sum();
        let mut seen: HashSet<Values, BuildHasherDefault<Mix>> = HashSet::default();
        let mut emit = |values: &Values| {
            if seen.insert(values.clone()) {
                f(self.traces(values))
            } else {
                ControlFlow::Continue(())
            }
        };
        let _ = self.choose(&mut vec![None; self.reads.len()], &vec![None; n], &mut emit);
    }

    /// Whether some valuation satisfies every assumption.
    pub fn any(&self) -> bool {
        let mut found = false;
        self.for_each(&mut |_| {
            found = true;
            ControlFlow::Break(())
        });
        found
    }

    /// Chooses a source for one more read, and for the rest. The read with the fewest options
    /// goes first, and sources whose values are already known count once per distinct value:
    /// what follows depends on the value read, not on which write supplied it.
    pub(super) fn choose(
        &self,
        rf: &mut Vec<Option<Source>>,
        values: &Values,
        emit: &mut dyn FnMut(&Values) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        // Reads that branches test first: a path's assumptions then fail (or its reads-from
        // pairs do) before the reads that only fill registers multiply the branches.
        let open = (0..self.reads.len())
            .filter(|&k| rf[k].is_none() && values[self.flat(k)].is_none())
            .min_by_key(|&k| {
                (
                    self.mentioned_by[k].0.is_empty(),
                    self.count_options(k, values),
                )
            });
        let Some(k) = open else {
            return self.settle(rf, values.clone(), emit);
        };
        let before = match self.rf_check {
            Some(_) => self.fixed_pairs(rf, values),
            None => Vec::new(),
        };
        for option in self.options(k, values) {
            let mut next = values.clone();
            match option {
                Ok(v) => next[self.flat(k)] = Some(v),
                Err(source) => rf[k] = Some(source),
            }
            self.propagate(rf, &mut next);
            if !self.possible(&next) {
                rf[k] = None;
                continue;
            }
            if let Some(only) = self.choice_possible(rf, &next, k, &before) {
                if only.is_some() {
                    rf[k] = only;
                }
                self.choose(rf, &next, emit)?;
            }
            rf[k] = None;
        }
        ControlFlow::Continue(())
    }

    /// How many options [`Self::options`] gives, without allocating (it ranks every open
    /// read at every step); beyond 16 known values each counts as distinct.
    pub(super) fn count_options(&self, k: usize, values: &Values) -> usize {
        let mut known = [0 as Value; 16];
        let (mut distinct, mut count) = (0, 0);
        for &s in &self.reads[k].2 {
            match self.source_value(Some(s), values) {
                Some(v) if known[..distinct].contains(&v) => {}
                Some(v) if distinct < known.len() => {
                    known[distinct] = v;
                    distinct += 1;
                    count += 1;
                }
                _ => count += 1,
            }
        }
        count
    }

    /// What read `k` may return: each value its sources are known to write (`Ok`), and each
    /// source whose value is not known yet (`Err`).
    pub(super) fn options(&self, k: usize, values: &Values) -> Vec<Result<Value, Source>> {
        let mut known = Vec::new();
        let mut pending = Vec::new();
        for &s in &self.reads[k].2 {
            match self.source_value(Some(s), values) {
                Some(v) => known.push(v),
                None => pending.push(Err(s)),
            }
        }
        known.sort();
        known.dedup();
        known.into_iter().map(Ok).chain(pending).collect()
    }

    /// With every source chosen: values left open lie on a data-flow cycle; take each value in
    /// play (and each value [`Self::allow_thin_air`] names) for the first of them, and keep
    /// the valuations that every source confirms.
    pub(super) fn settle(
        &self,
        rf: &[Option<Source>],
        mut values: Values,
        emit: &mut dyn FnMut(&Values) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        self.propagate(rf, &mut values);
        // Values only grow: a guess its source already contradicts, or a broken assumption,
        // stays so whatever is guessed next.
        if !self.possible(&values) || !self.confirmed(rf, &values) {
            return ControlFlow::Continue(());
        }
        let open = (0..self.reads.len()).find(|&k| values[self.flat(k)].is_none());
        let Some(k) = open else {
            // Reads given a value directly chose it among their sources' values.
            if self.satisfied(&values) {
                return emit(&values);
            }
            return ControlFlow::Continue(());
        };
        let mut in_play: Vec<Value> = self.reads[k]
            .2
            .iter()
            .filter_map(|&s| self.source_value(Some(s), &values))
            .chain(self.named.iter().copied())
            .collect();
        if let Some(base) = self.unnamed {
            let mut taken: Vec<Value> = values
                .iter()
                .flatten()
                .filter(|&&v| v >= base)
                .copied()
                .collect();
            taken.sort_unstable();
            taken.dedup();
            let next = taken.last().map_or(base, |v| v.saturating_add(1));
            in_play.extend(taken);
            in_play.push(next);
        }
        in_play.sort();
        in_play.dedup();
        for v in in_play {
            let mut guessed = values.clone();
            guessed[self.flat(k)] = Some(v);
            self.settle(rf, guessed, emit)?;
        }
        ControlFlow::Continue(())
    }

    /// Every read with a chosen source holds that source's value, where both are known.
    pub(super) fn confirmed(&self, rf: &[Option<Source>], values: &Values) -> bool {
        (0..self.reads.len()).all(|k| match (values[self.flat(k)], rf[k]) {
            (Some(v), Some(_)) => self.source_value(rf[k], values).is_none_or(|w| w == v),
            _ => true,
        })
    }

    /// The value a source writes, once it can be computed.
    pub(super) fn source_value(&self, source: Option<Source>, values: &Values) -> Option<Value> {
        match source? {
            Source::Initial(v) => Some(v),
            Source::Write(t, j) => match &self.paths[t].events[j].kind {
                Kind::Write { value, .. } => value.eval(&|i| values[self.offset[t] + i]),
                _ => None,
            },
        }
    }

    /// Computes every read value its chosen source determines, to a fixpoint.
    pub(super) fn propagate(&self, rf: &[Option<Source>], values: &mut Values) {
        loop {
            let mut changed = false;
            for (k, &source) in rf.iter().enumerate() {
                let at = self.flat(k);
                if values[at].is_none() {
                    if let Some(v) = self.source_value(source, values) {
                        values[at] = Some(v);
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// No assumption is contradicted by the values known so far.
    pub(super) fn possible(&self, values: &Values) -> bool {
        self.paths.iter().enumerate().all(|(t, path)| {
            let read = |i: usize| values[self.offset[t] + i];
            path.assumes.iter().all(|a| a.holds(&read) != Some(false))
        }) && self.goal_open(values)
    }

    /// The paths with their values filled in.
    pub(super) fn traces(&self, values: &Values) -> Vec<Trace> {
        self.paths
            .iter()
            .enumerate()
            .map(|(t, path)| {
                let read = |i: usize| values[self.offset[t] + i];
                let value = |e: &crate::axiomatic::events::Expr| {
                    e.eval(&read).expect("every read has a value")
                };
                let events = path
                    .events
                    .iter()
                    .map(|e| ThreadEvent {
                        stmt: e.stmt,
                        deps: e.deps.clone(),
                        copy_until: e.copy_until,
                        copy: e.copy,
                        completed_at: e.completed_at,
                        kind: match &e.kind {
                            Kind::Read {
                                loc,
                                access,
                                value: v,
                                rmw,
                            } => Kind::Read {
                                loc: *loc,
                                access: *access,
                                value: value(v),
                                rmw: *rmw,
                            },
                            Kind::Write {
                                loc,
                                access,
                                value: v,
                                rmw,
                            } => Kind::Write {
                                loc: *loc,
                                access: *access,
                                value: value(v),
                                rmw: *rmw,
                            },
                            Kind::Fence(f) => Kind::Fence(*f),
                            Kind::ClusterBarrier(b) => Kind::ClusterBarrier(*b),
                            Kind::MbarrierInitFence => Kind::MbarrierInitFence,
                            Kind::Barrier { op, id, quorum } => Kind::Barrier {
                                op: *op,
                                id: id.iter().map(value).collect(),
                                quorum: quorum.as_ref().map(value),
                            },
                        },
                    })
                    .collect();
                let regs = path
                    .regs
                    .iter()
                    .map(|(r, e)| (r.clone(), value(e)))
                    .collect();
                Trace { events, regs }
            })
            .collect()
    }
}
