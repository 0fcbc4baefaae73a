//! One location at a time: its reads-from, then its coherence order, each pruned by the
//! per-location axioms and the coherence pairs causality fixes (see the module doc of
//! `enumerate`).

use super::order::{add_transitive, grown};
use super::search::{Floor, Place, Rf, Search, Tally, PREFIX_CHECK};
use crate::axiomatic::models::{coherence_forbidden, coherence_required, Dynamic};
use crate::axiomatic::rel::{bit, members, Rel, Set};

impl Search<'_> {
    /// The per-location axioms on the choices made so far. Sound for pruning: those axioms are
    /// monotone (more rf, co or fr pairs never repair a violation), and every pair chosen so far
    /// is one of the final execution's.
    pub(super) fn locations_ok(&self, rf: &Rf, co: &Rel) -> bool {
        let fr = rf.inv.seq(co);
        self.checker.location_ok(self.ev, &rf.rel, co, &fr)
    }

    /// Chooses rf and co for the physical location `at` (an index into [`Self::places`]),
    /// prunes, and recurses on the rest. `floor`: the last location's, once every location is
    /// chosen (its causality order is then that of the complete reads-from under the common
    /// synchronization).
    pub(super) fn location(
        &self,
        at: usize,
        rf: &Rf,
        co: &Rel,
        floor: Option<&Floor>,
        tally: &mut Tally,
    ) {
        if !tally.open(None) || !self.budget.go_on() {
            return;
        }
        let Some(here) = self.places.get(at) else {
            self.finish(rf, co, floor, tally);
            return;
        };
        // The initial write comes first in coherence: the initial values are in memory before
        // any thread runs.
        let mut co_l = co.clone();
        for (i, &a) in here.init.iter().enumerate() {
            for &b in here.init[i + 1..].iter().chain(&here.writes) {
                co_l.add(a, b);
            }
        }
        if here.reads.is_empty() {
            // Nothing read here: reads-from, so causality, is the last location's.
            self.choose_coherence(at, rf, &co_l, floor, tally);
        } else {
            self.reads_from(at, here.reads.len(), rf, &co_l, tally);
        }
    }

    /// With every read of location `at` given its source: its coherence order. `prior`: the
    /// last location's floor, when reads-from is still what it was computed with.
    pub(super) fn choose_coherence(
        &self,
        at: usize,
        rf: &Rf,
        co: &Rel,
        prior: Option<&Floor>,
        tally: &mut Tally,
    ) {
        if !tally.viable(self.ev, &rf.rel, co) || !self.partial_ok(rf, co) {
            return;
        }
        if let Some((floor, co)) = self.coherence_floor(rf, co, prior) {
            self.choose_last(at, &floor, rf, &co, tally);
        }
    }

    /// When the final state reports location `at`'s value: each write that can be
    /// coherence-last (the final value comes from a write that every other write to the
    /// location precedes in coherence), ordered after the others before the rest of the
    /// coherence order is oriented — so a branch whose final value is not worth finding (a
    /// state already found, or one that cannot decide the condition) is dropped before its
    /// orientations are listed. Then the morally strong pairs left ([`Self::orient`]).
    ///
    /// Every (orientation, last write) pair of choices is met once: the last write's pairs are
    /// all oriented towards it, and the others are oriented after.
    pub(super) fn choose_last(
        &self,
        at: usize,
        floor: &Floor,
        rf: &Rf,
        co: &Rel,
        tally: &mut Tally,
    ) {
        let here = &self.places[at];
        if !here.observed {
            self.orient(at, floor, 0, rf, co, tally);
            return;
        }
        let value = |w: usize| self.ev.value(w).expect("writes have values");
        let all = here.writes.iter().fold(Set::EMPTY, |s, &w| s | bit(w));
        let lasts: Vec<usize> = match here.writes.is_empty() {
            true => here.init.last().copied().into_iter().collect(),
            false => here
                .writes
                .iter()
                .copied()
                .filter(|&t| co.row(t) & all == Set::EMPTY)
                .collect(),
        };
        for t in lasts {
            if !tally.open(Some(&[value(t)])) {
                continue;
            }
            let mut co_t = co.clone();
            for &w in here.writes.iter().filter(|&&w| w != t) {
                add_transitive(&mut co_t, w, t);
            }
            if !(&co_t & &floor.forbidden).is_empty() || !self.locations_ok(rf, &co_t) {
                continue;
            }
            if let Some(targets) = &mut tally.targets {
                targets.push(value(t));
            }
            self.orient(at, floor, 0, rf, &co_t, tally);
            if let Some(targets) = &mut tally.targets {
                targets.pop();
            }
        }
    }

    /// Chooses the writes the first `k` reads of location `at` read from, the last read first
    /// (so choices come in odometer order, the first read turning fastest), dropping a choice
    /// that violates a per-location axiom (or, where asked, a global one partial choices can
    /// break: [`Collector::prefix_global`]); then the coherence order.
    pub(super) fn reads_from(&self, at: usize, k: usize, rf: &Rf, co: &Rel, tally: &mut Tally) {
        let here = &self.places[at];
        if !self.budget.go_on() {
            return;
        }
        let Some(k) = k.checked_sub(1) else {
            self.choose_coherence(at, rf, co, None, tally);
            return;
        };
        let (r, ws) = &self.candidates[here.reads[k]];
        // How many ways the reads still open can go: checking a prefix pays only when that
        // many completions could be dropped at once.
        let completions: usize = here.reads[..k]
            .iter()
            .map(|&j| self.candidates[j].1.len())
            .product();
        // One copy for all the choices, each added and taken back.
        let mut rf_r = rf.clone();
        for &w in ws {
            if self.ev.rmw.row(*r) != Set::EMPTY
                && members(rf.rel.row(w)).any(|other| self.never_share(here, w, *r, other))
            {
                continue;
            }
            if tally.done() {
                return;
            }
            rf_r.rel.set_row(w, rf.rel.row(w) | bit(*r));
            rf_r.inv.set_row(*r, bit(w));
            // The collector's condition on partial choices first: it is cheap next to the
            // model's axioms, and monotone, so a read it rejects is rejected with every
            // completion. Then the per-location axioms, and where asked the global ones that
            // partial choices can break (both monotone; [`Collector::prefix_global`]).
            if tally.viable(self.ev, &rf_r.rel, co)
                && ((k > 0 && completions < PREFIX_CHECK)
                    || (self.locations_ok(&rf_r, co)
                        && (!tally.prefix_global || self.partial_ok(&rf_r, co))))
            {
                self.reads_from(at, k, &rf_r, co, tally);
            }
            rf_r.rel.set_row(w, rf.rel.row(w));
        }
    }

    /// Whether the reads of two read-modify-writes at `here` can never both read from `w`:
    /// with only those two reads-from pairs and the least coherence between `w` and the two RMW
    /// writes that any execution has (the initial write first, each morally strong pair in one
    /// direction or the other), the per-location axioms fail. They are monotone, so every
    /// execution with both pairs fails them too, and the choice is dropped before any coherence
    /// order is built (Atomicity: whichever RMW writes first comes between the other one's
    /// source and its write).
    pub(super) fn never_share(&self, here: &Place, w: usize, r1: usize, r2: usize) -> bool {
        let ev = self.ev;
        let key = (w, r1.min(r2), r1.max(r2));
        if let Some(&known) = self.never_share.borrow().get(&key) {
            return known;
        }
        let write_of = |r: usize| members(ev.rmw.row(r)).next();
        let (Some(w1), Some(w2)) = (write_of(r1), write_of(r2)) else {
            return false;
        };
        let mut rf = Rel::empty(ev.n);
        rf.add(w, r1);
        rf.add(w, r2);
        let inv = rf.inv();
        let mut base = Rel::empty(ev.n);
        for &init in &here.init {
            for x in [w, w1, w2].into_iter().filter(|&x| x != init) {
                base.add(init, x);
            }
        }
        let ms = self.checker.morally_strong();
        let pairs: Vec<(usize, usize)> = [(w, w1), (w, w2), (w1, w2)]
            .into_iter()
            .filter(|&(a, b)| ms.has(a, b) || ms.has(b, a))
            .collect();
        let mut some_order_passes = false;
        for mask in 0..1u32 << pairs.len() {
            let mut co = base.clone();
            for (k, &(a, b)) in pairs.iter().enumerate() {
                match mask & (1 << k) == 0 {
                    true => co.add(a, b),
                    false => co.add(b, a),
                }
            }
            let co = co.plus();
            if co.irreflexive() {
                let fr = inv.seq(&co);
                if self.checker.location_ok(ev, &rf, &co, &fr) {
                    some_order_passes = true;
                    break;
                }
            }
        }
        self.never_share
            .borrow_mut()
            .insert(key, !some_order_passes);
        !some_order_passes
    }

    /// With reads-from chosen up to this location: the causality these reads-from pairs and
    /// the synchronization common to every choice already imply (all later choices only add to
    /// it), and the coherence chosen so far grown by every pair the Coherence and Causality
    /// axioms then require ([`coherence_required`]: for this location's writes, and for earlier
    /// locations' whose reads-from causality has grown since). `None` when that already breaks
    /// those axioms: a read causally before the write it reads from, or a required pair
    /// against the coherence chosen so far (a cycle).
    ///
    /// `prior`: a floor computed with the same reads-from, whose causality (which passed) holds.
    pub(super) fn coherence_floor(
        &self,
        rf: &Rf,
        co: &Rel,
        prior: Option<&Floor>,
    ) -> Option<(Floor, Rel)> {
        let ev = self.ev;
        let cause = match prior {
            Some(prior) => prior.cause.clone(),
            None => {
                let none = Rel::empty(ev.n);
                let x = Dynamic {
                    rf: &rf.rel,
                    co: &none,
                    fr: &none,
                    sync_fence: self.fence_floor,
                    sync_barrier: &self.barrier_floor,
                };
                let cause = self.checker.causality(ev, &x);
                if !rf.rel.seq(&cause).irreflexive() {
                    return None;
                }
                cause
            }
        };
        let co = grown(co, &coherence_required(ev, &cause))?;
        let forbidden = coherence_forbidden(ev, &rf.rel, &cause);
        if !(&co & &forbidden).is_empty() {
            return None;
        }
        Some((Floor { cause, forbidden }, co))
    }

    /// Orients the morally strong pairs of location `at`'s writes from the `k`-th on (PTX ISA
    /// "Coherence order": morally strong overlapping writes are related in coherence order;
    /// others only when causality relates them), keeping coherence transitive: a pair that
    /// the pairs so far already order is not chosen again, so every coherence order comes
    /// once. Each choice only adds pairs, so a prefix failing a per-location axiom (monotone)
    /// is dropped with every completion.
    pub(super) fn orient(
        &self,
        at: usize,
        floor: &Floor,
        k: usize,
        rf: &Rf,
        co: &Rel,
        tally: &mut Tally,
    ) {
        let here = &self.places[at];
        // States only: once a branch has found every memory it can reach, its other
        // orientations have nothing new.
        if !self.budget.go_on() || !tally.open(None) || !tally.viable(self.ev, &rf.rel, co) {
            return;
        }
        // Pairs already ordered (by program order, by the floor or by an earlier orientation)
        // are passed over in a loop: a location may have thousands of them, one stack frame
        // each would overflow the stack.
        let next = here.ms_pairs[k..]
            .iter()
            .position(|&(a, b)| !co.has(a, b) && !co.has(b, a));
        let Some(skip) = next else {
            self.close_location(at, floor, rf, co, tally);
            return;
        };
        let k = k + skip;
        let (a, b) = here.ms_pairs[k];
        for (x, y) in [(a, b), (b, a)] {
            let mut co_k = co.clone();
            add_transitive(&mut co_k, x, y);
            if (&co_k & &floor.forbidden).is_empty() && self.locations_ok(rf, &co_k) {
                self.orient(at, floor, k + 1, rf, &co_k, tally);
            }
        }
    }

    /// With location `at`'s coherence chosen (its last write, where reported, and every morally
    /// strong pair oriented): the next location.
    pub(super) fn close_location(
        &self,
        at: usize,
        floor: &Floor,
        rf: &Rf,
        co: &Rel,
        tally: &mut Tally,
    ) {
        // A reported location's last write and each orientation after it passed the
        // per-location axioms when chosen; another may have only the floor's pairs.
        if (self.places[at].observed || self.locations_ok(rf, co)) && self.partial_ok(rf, co) {
            self.location(at + 1, rf, co, Some(floor), tally);
        }
    }

    /// The global axioms that partial choices can already break ([`Checker::partial_ok`]), on
    /// the reads-from and coherence chosen so far under the synchronization every fence.sc
    /// order and barrier matching has.
    pub(super) fn partial_ok(&self, rf: &Rf, co: &Rel) -> bool {
        let fr = rf.inv.seq(co);
        let x = Dynamic {
            rf: &rf.rel,
            co,
            fr: &fr,
            sync_fence: self.fence_floor,
            sync_barrier: &self.barrier_floor,
        };
        self.checker.partial_ok(self.ev, &x)
    }
}
