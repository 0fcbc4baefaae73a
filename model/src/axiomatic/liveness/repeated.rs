//! The repeated iterations of the spinning threads and the conditions under which one round
//! of them can be copied forever (the lasso of a fair non-terminating run).

use super::runs::Run;
use crate::axiomatic::enumerate::{Accept, CoFloor};
use crate::axiomatic::events::Kind;
use crate::axiomatic::execution::Events;
use crate::axiomatic::models::{Checker, Dynamic};
use crate::axiomatic::rel::{bit, members, Rel, Set};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

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
///   what they held at its start (checked in `hangs`).
///
/// Then reads-from, coherence and from-reads (a read of `Sₖ₊₁` reads `Sₖ₊₁`, the last write of
/// `Sₖ` at its location, or a write with no successor) never lead from a later round back to an
/// earlier one, and no edge leads back into `P` from beyond `S₁`: a cycle of a relation the
/// model builds from them either lies in `P ∪ I ∪ S`, which is consistent, or within one round
/// `Sₖ`, whose events and relations are those of `S`. So the infinite run is consistent, and
/// each spinning thread runs its iteration forever. A quiet iteration (no writes: the spin of
/// [`Fate::Spins`](super::verdict::Fate::Spins) in the description of `liveness`) is the case
/// where (a) and (b) need no copies.
pub(super) struct Repeated {
    /// By event id: whether it belongs to a repeated iteration.
    pub(super) in_s: Rc<Vec<bool>>,
    pub(super) reads: Rc<Vec<usize>>,
    pub(super) writes: Rc<Vec<usize>>,
    /// Writes of an iteration before a repeated one, with their copy in the repeated one.
    pub(super) copies: Vec<(usize, usize)>,
}

impl Repeated {
    pub(super) fn new(combo: &[&Run], first: &[usize], events: usize) -> Repeated {
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
    /// that partial choices can already fail (see
    /// [`Collector::viable`](crate::axiomatic::enumerate::Collector::viable)): `(accept, viable)`.
    pub(super) fn conditions(&self, same: Rc<HashSet<usize>>) -> (Accept, Accept) {
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
    pub(super) fn same_valued(&self, ev: &Events) -> Rc<HashSet<usize>> {
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
    pub(super) fn sources_possible(
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
    pub(super) fn may_read(&self, ev: &Events, checker: &dyn Checker, r: usize, w: usize) -> bool {
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
    /// ([`Collector::co_floor`](crate::axiomatic::enumerate::Collector::co_floor)).
    pub(super) fn co_floor(&self) -> CoFloor {
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
