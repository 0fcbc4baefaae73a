//! [`Search`]: the candidate executions of one combination of traces, location by location
//! (`location.rs`), then every fence.sc order and barrier matching (`finish`), counted in a
//! [`Tally`].

use super::collector::{Accept, Collector, NeverShare};
use super::order::grown;
use crate::axiomatic::budget::Budget;
use crate::axiomatic::events::Trace;
use crate::axiomatic::execution::{immediate, EventInfo, Events, ExecEvent, Execution};
use crate::axiomatic::models::{coherence_required, Checker, Dynamic};
use crate::axiomatic::rel::{bit, members, Rel, Set};
use crate::axiomatic::targets::Targets;
use crate::axiomatic::FinalState;
use crate::litmus::*;
use std::collections::BTreeMap;

/// Reads-from choices are checked before every read has its source only when at least this many
/// completions hang on them.
pub(super) const PREFIX_CHECK: usize = 4;

/// Reads-from pairs, and the same inverted (for `fr = rf^-1 ; co`).
#[derive(Clone)]
pub(super) struct Rf {
    pub(super) rel: Rel,
    pub(super) inv: Rel,
}

/// The causality of the reads-from pairs chosen so far, under the synchronization common to
/// every option (what the coherence order grew by is in the coherence passed along with it).
pub(super) struct Floor {
    pub(super) cause: Rel,
    /// Coherence pairs the Causality axiom rules out ([`coherence_forbidden`]).
    pub(super) forbidden: Rel,
}

/// The final state's registers: the traces' (every valuation of a combination has the same
/// registers, with its own values).
pub(super) fn registers(combo: &[&Trace], reg_keys: &[Vec<String>]) -> BTreeMap<String, Value> {
    let mut regs = BTreeMap::new();
    for (tr, keys) in combo.iter().zip(reg_keys) {
        for (key, (_, v)) in keys.iter().zip(&tr.regs) {
            regs.insert(key.clone(), *v);
        }
    }
    regs
}

/// Per observed physical location, the values its coherence-last write may have: any of its
/// writes', the initial value when it has none.
pub(super) fn last_values(ev: &Events, places: &[Place]) -> Vec<Vec<Value>> {
    let value = |w: &usize| ev.value(*w).expect("writes have values");
    places
        .iter()
        .filter(|place| place.observed)
        .map(|place| match place.writes.is_empty() {
            true => place.init.iter().map(value).collect(),
            false => place.writes.iter().map(value).collect(),
        })
        .collect()
}

/// The candidate executions of one combination of traces.
pub struct Search<'a> {
    pub(super) p: &'a Program,
    /// Coherence pairs the search starts from ([`Collector::co_floor`]).
    pub(super) co_floor: Rel,
    pub(super) ev: &'a Events,
    pub(super) checker: &'a dyn Checker,
    pub(super) combo: &'a [&'a Trace],
    /// Keep the first execution reaching each final state.
    pub(super) witnesses: bool,
    /// Every read with the writes it may read from.
    pub(super) candidates: &'a [(usize, Vec<usize>)],
    /// Per physical location, in order.
    pub(super) places: &'a [Place],
    pub(super) reg_keys: &'a [Vec<String>],
    pub(super) fence_orders: &'a [Rel],
    pub(super) barrier_options: Vec<Rel>,
    /// What every fence order, and every barrier matching, has in common.
    pub(super) fence_floor: &'a Rel,
    pub(super) barrier_floor: Rel,
    pub(super) never_share: &'a NeverShare,
    /// The writes of the locations whose final value is reported.
    pub(super) observed_writes: Set,
    pub(super) budget: &'a Budget,
}

/// The choices to make at one physical location: its reads (with their candidate writes) and
/// its non-initial writes, whose coherence order is chosen.
pub(super) struct Place {
    /// Indices into [`Search::candidates`] (which lists every read, in order).
    pub(super) reads: Vec<usize>,
    pub(super) init: Vec<usize>,
    pub(super) writes: Vec<usize>,
    /// The pairs of `writes` that are morally strong (lower index first): coherence orders
    /// them one way or the other.
    pub(super) ms_pairs: Vec<(usize, usize)>,
    /// Whether the final state reports this location's value (then its coherence order has a
    /// last write).
    pub(super) observed: bool,
}

impl Place {
    pub(super) fn of(ev: &Events, p: &Program, l: LocId, ms: &Rel, observed: bool) -> Place {
        let here = |e: usize| ev.location(e).map(|x| p.physical(x)) == Some(l);
        let reads = members(ev.r)
            .enumerate()
            .filter(|&(_, r)| here(r))
            .map(|(k, _)| k)
            .collect();
        let (init, writes) = members(ev.w)
            .filter(|&w| here(w))
            .partition(|&w| ev.init & bit(w) != Set::EMPTY);
        let writes: Vec<usize> = writes;
        let mut ms_pairs = Vec::new();
        for (i, &a) in writes.iter().enumerate() {
            for &b in &writes[i + 1..] {
                if ms.has(a, b) || ms.has(b, a) {
                    ms_pairs.push((a, b));
                }
            }
        }
        // Nearest pairs first (events are laid out in trace order): a thread's consecutive
        // writes are oriented before the pairs their order implies by transitivity, so the
        // search goes about as deep as there are writes, not as there are pairs.
        ms_pairs.sort_by_key(|&(a, b)| (b - a, a));
        Place {
            reads,
            init,
            writes,
            ms_pairs,
            observed,
        }
    }
}

/// The consistent executions of one combination of traces, grouped by the writes they leave
/// coherence-last (with the traces' registers, these make the final state), in the order first
/// found; `Search::merge` adds them to the [`Collector`].
#[derive(Default)]
pub struct Tally {
    pub(super) executions: u64,
    pub(super) racy: u64,
    /// Last writes, executions, racy executions, the flags they raise, the first execution (on
    /// request).
    pub(super) by_last_writes: Vec<(Set, u64, u64, u64, Option<Execution>)>,
    /// States only: the final memories still to find.
    pub(super) targets: Option<Targets>,
    /// The collector's further condition on executions.
    pub(super) accept: Option<Accept>,
    /// Its monotone necessary condition on partial choices.
    pub(super) viable: Option<Accept>,
    /// Stop once an execution is counted.
    pub(super) first_only: bool,
    /// [`Collector::prefix_global`].
    pub(super) prefix_global: bool,
}

impl Tally {
    /// Whether the branch can still reach a final state worth finding (always, when counting):
    /// `next`, the values the location being ordered may end with (`None`: any).
    pub(super) fn open(&self, next: Option<&[Value]>) -> bool {
        !self.done() && self.targets.as_ref().is_none_or(|t| t.open(next))
    }

    /// Whether the one execution asked for is found ([`Collector::first_only`]).
    pub(super) fn done(&self) -> bool {
        self.first_only && self.executions > 0
    }

    /// Whether the partial choices may still be accepted.
    pub(super) fn viable(&self, ev: &Events, rf: &Rel, co: &Rel) -> bool {
        self.viable.as_ref().is_none_or(|f| f(ev, rf, co))
    }
}

impl Search<'_> {
    /// Every candidate, pruned as early as the axioms allow.
    pub fn pruned(&self, tally: &mut Tally) {
        let empty = Rel::empty(self.ev.n);
        let rf = Rf {
            rel: empty.clone(),
            inv: empty,
        };
        self.location(0, &rf, &self.co_floor, None, tally);
    }

    /// How many candidates [`Self::exhaustive`] judges, at most: every reads-from choice, times
    /// every order of each location's writes, times every fence order and barrier matching.
    /// Tests use it to leave out programs the reference search would take minutes over.
    pub fn exhaustive_size(&self) -> f64 {
        let reads_from: f64 = self
            .candidates
            .iter()
            .map(|(_, ws)| ws.len() as f64)
            .product();
        let orders: f64 = self
            .places
            .iter()
            .map(|pl| (1..=pl.writes.len()).map(|k| k as f64).product::<f64>())
            .product();
        reads_from * orders * self.fence_orders.len() as f64 * self.barrier_options.len() as f64
    }

    /// Every candidate, each judged in full by [`Checker::consistent`]: the reference that
    /// [`Self::pruned`] must agree with. Candidates are every reads-from and, per location,
    /// every transitive coherence relation with the initial write first (and a last write
    /// where the final value is reported). Consistent ones are counted when their coherence
    /// is the least one for its choices (the initial write first, the orientation of the
    /// morally strong pairs, the last write, the pairs causality requires): the executions the
    /// pruned search lists. The final states of all consistent candidates must be those of
    /// the counted ones (checked here).
    pub fn exhaustive(&self, tally: &mut Tally) {
        let ev = self.ev;
        let mut choice = vec![0usize; self.candidates.len()];
        loop {
            let mut rf = Rel::empty(ev.n);
            for (k, (r, ws)) in self.candidates.iter().enumerate() {
                rf.add(ws[choice[k]], *r);
            }
            let empty = Rel::empty(ev.n);
            let mut every_last = Vec::new();
            self.every_coherence(self.places, &rf, &empty, &empty, tally, &mut every_last);
            let mut counted: Vec<Set> = tally.by_last_writes[..].iter().map(|e| e.0).collect();
            counted.sort_unstable();
            every_last.sort_unstable();
            every_last.dedup();
            for last in every_last {
                assert!(
                    counted.binary_search(&last).is_ok(),
                    "a consistent coherence order reaches a final memory no least one does"
                );
            }
            let mut k = 0;
            loop {
                if k == choice.len() {
                    return;
                }
                choice[k] += 1;
                if choice[k] < self.candidates[k].1.len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }

    /// `base`: the pairs every coherence chosen so far must have (initial write first, last
    /// write last); `every_last`: the final memories (as last writes) of every consistent
    /// candidate.
    fn every_coherence(
        &self,
        places: &[Place],
        rf: &Rel,
        co: &Rel,
        base: &Rel,
        tally: &mut Tally,
        every_last: &mut Vec<Set>,
    ) {
        let ev = self.ev;
        let Some((here, rest)) = places.split_first() else {
            let fr = rf.inv().seq(co);
            let ms = self.checker.morally_strong();
            let ms_writes = &(ms | &ms.inv()).restrict(ev.w, ev.w) & &ev.loc;
            for sync_fence in self.fence_orders {
                for sync_barrier in &self.barrier_options {
                    let x = Dynamic {
                        rf,
                        co,
                        fr: &fr,
                        sync_fence,
                        sync_barrier,
                    };
                    if self.checker.consistent(ev, &x).is_err() {
                        continue;
                    }
                    every_last.push(
                        members(self.observed_writes)
                            .filter(|&w| co.row(w) == Set::EMPTY)
                            .fold(Set::EMPTY, |s, w| s | bit(w)),
                    );
                    let cause = self.checker.causality(ev, &x);
                    let required = coherence_required(ev, &cause);
                    let least = (&(base | &(co & &ms_writes)) | &required).plus();
                    if least == *co {
                        self.record(&x, tally);
                    }
                }
            }
            return;
        };
        let others = &here.writes;
        let mut pairs = Vec::new();
        for (i, &a) in others.iter().enumerate() {
            for &b in &others[i + 1..] {
                pairs.push((a, b));
            }
        }
        // Each pair unordered, one way or the other.
        let mut code = vec![0u8; pairs.len()];
        loop {
            let mut co_l = co.clone();
            let mut base_l = base.clone();
            for &i in &here.init {
                for &w in others {
                    co_l.add(i, w);
                    base_l.add(i, w);
                }
            }
            for (&(a, b), &c) in pairs.iter().zip(&code) {
                match c {
                    1 => co_l.add(a, b),
                    2 => co_l.add(b, a),
                    _ => {}
                }
            }
            if co_l.plus() == co_l && co_l.irreflexive() {
                let all = others.iter().fold(Set::EMPTY, |s, &w| s | bit(w));
                let last: Vec<usize> = others
                    .iter()
                    .copied()
                    .filter(|&t| co_l.row(t) & all == Set::EMPTY)
                    .collect();
                if !here.observed || others.is_empty() {
                    self.every_coherence(rest, rf, &co_l, &base_l, tally, every_last);
                } else if let [t] = last[..] {
                    for &w in others.iter().filter(|&&w| w != t) {
                        base_l.add(w, t);
                    }
                    self.every_coherence(rest, rf, &co_l, &base_l, tally, every_last);
                }
            }
            let Some(k) = code.iter().position(|&c| c < 2) else {
                break;
            };
            code[k] += 1;
            for c in &mut code[..k] {
                *c = 0;
            }
        }
    }

    /// Every fence.sc order and barrier matching, then the axioms beyond single locations
    /// (every location already passed its own). Coherence grows by the pairs a synchronization
    /// beyond the common one requires.
    pub(super) fn finish(&self, rf: &Rf, co: &Rel, floor: Option<&Floor>, tally: &mut Tally) {
        let fr = rf.inv.seq(co);
        for sync_fence in self.fence_orders {
            for sync_barrier in &self.barrier_options {
                if tally.done() {
                    return;
                }
                let x = Dynamic {
                    rf: &rf.rel,
                    co,
                    fr: &fr,
                    sync_fence,
                    sync_barrier,
                };
                // Causality reads rf and the synchronization only: under the common
                // synchronization it was computed with the last location's floor, and the
                // coherence pairs it requires are in `co` already.
                let common = sync_fence == self.fence_floor && *sync_barrier == self.barrier_floor;
                let computed;
                let mut co_x = None;
                let cause = match floor {
                    Some(floor) if common => &floor.cause,
                    _ => {
                        computed = self.checker.causality(self.ev, &x);
                        let required = coherence_required(self.ev, &computed);
                        if !required.subset_of(co) {
                            match grown(co, &required) {
                                Some(c) if self.locations_ok(rf, &c) => co_x = Some(c),
                                _ => continue,
                            }
                        }
                        &computed
                    }
                };
                let fr_x = co_x.as_ref().map(|c| rf.inv.seq(c));
                let x = Dynamic {
                    co: co_x.as_ref().unwrap_or(co),
                    fr: fr_x.as_ref().unwrap_or(&fr),
                    ..x
                };
                let accepted = || {
                    tally
                        .accept
                        .as_ref()
                        .is_none_or(|f| f(self.ev, &rf.rel, x.co))
                };
                if self.checker.global_ok(self.ev, &x, cause).is_ok() && accepted() {
                    self.record(&x, tally);
                    // States only: this branch's final state is found.
                    if let Some(targets) = &mut tally.targets {
                        targets.found();
                        return;
                    }
                }
            }
        }
    }

    pub(super) fn record(&self, x: &Dynamic<'_>, tally: &mut Tally) {
        // The coherence-last write of each location whose final value is read.
        let last = members(self.observed_writes)
            .filter(|&w| x.co.row(w) == Set::EMPTY)
            .fold(Set::EMPTY, |s, w| s | bit(w));
        tally.executions += 1;
        self.budget.execution();
        let raised = self.checker.raised(self.ev, x);
        let racy = u64::from(raised != 0);
        tally.racy += racy;
        match tally.by_last_writes.iter_mut().find(|(l, ..)| *l == last) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += racy;
                entry.3 |= raised;
            }
            None => {
                let example = self.witnesses.then(|| self.witness(x));
                tally.by_last_writes.push((last, 1, racy, raised, example));
            }
        }
    }

    /// Adds what one combination of traces found to the collector: final states are the
    /// traces' registers (the same for all) and the values of the writes left last.
    pub(super) fn merge(&self, tally: Tally, out: &mut Collector) {
        out.executions += tally.executions;
        out.racy += tally.racy;
        if tally.by_last_writes.is_empty() {
            return;
        }
        let p = self.p;
        let regs = registers(self.combo, self.reg_keys);
        for (last, count, racy, raised, example) in tally.by_last_writes {
            let mut state = FinalState {
                regs: regs.clone(),
                mem: BTreeMap::new(),
            };
            for w in members(last) {
                let l = p.physical(self.ev.location(w).expect("writes have locations"));
                state.mem.insert(
                    p.locations[l].name.clone(),
                    self.ev.value(w).expect("writes have values"),
                );
            }
            if racy > 0 {
                let entry = out.racy_states.entry(state.clone()).or_insert((0, 0));
                entry.0 += racy;
                entry.1 |= raised;
            }
            let entry = out.states.entry(state).or_insert((0, None));
            entry.0 += count;
            if entry.1.is_none() {
                entry.1 = example;
            }
        }
    }

    pub(super) fn witness(&self, x: &Dynamic<'_>) -> Execution {
        let ev = self.ev;
        let events = (0..ev.n)
            .map(|e| {
                let EventInfo { thread, stmt, .. } = ev.info[e];
                let span = thread
                    .zip(stmt)
                    .map(|(t, s)| self.p.threads[t].body[s].span);
                ExecEvent {
                    id: e,
                    thread,
                    span,
                    label: ev.label(self.p, e),
                }
            })
            .collect();
        Execution {
            events,
            po: immediate(&ev.po),
            rmw: ev.rmw.pairs().collect(),
            rf: x.rf.pairs().collect(),
            co: immediate(x.co),
            fr: x.fr.pairs().collect(),
            sync: self.checker.synchronizes(ev, x).pairs().collect(),
            sc: x.sync_fence.pairs().collect(),
            barrier: x.sync_barrier.pairs().collect(),
        }
    }
}
