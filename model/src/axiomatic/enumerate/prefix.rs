//! [`Prefix`]: the axioms on a valuation's reads-from pairs while its reads are being given
//! values, so `values/` drops a valuation as soon as its forced pairs fail.

use super::order::{common, grown};
use super::sync::{barrier_syncs, fence_orders};
use crate::axiomatic::events::Trace;
use crate::axiomatic::execution::Events;
use crate::axiomatic::models::{
    coherence_forbidden, coherence_required, prepare, Checker, Dynamic,
};
use crate::axiomatic::rel::{members, Rel};
use crate::axiomatic::Model;
use crate::litmus::*;

/// A necessary test for reads-from pairs that a partial valuation already forces (a read whose
/// value only one write can supply): whether some consistent execution may have them all.
/// Built once per combination of thread paths, from the paths' events (values play no part in
/// it), so that [`crate::axiomatic::values::Valuations`] drops a valuation's branch as soon as the reads
/// valued so far cannot be read from those writes in any consistent execution — instead of
/// listing every valuation and letting [`super::Explorer`] reject each in turn.
///
/// It asks what `Search::coherence_floor`, the per-location axioms and
/// [`Checker::partial_ok`] ask of a prefix,
/// with the least of everything the later choices can only add to: the forced reads-from
/// pairs, the synchronization common to every fence.sc order and barrier matching,
/// coherence with the initial writes first and the pairs causality requires. Each of those
/// axioms is monotone (more pairs never repair a violation), so every execution with these
/// pairs fails whenever this fails.
pub struct Prefix {
    pub(super) ev: Events,
    pub(super) checker: Box<dyn Checker>,
    pub(super) fence_floor: Rel,
    /// The barrier synchronization every matching has (none when barrier ids depend on
    /// values).
    pub(super) barrier_floor: Rel,
    /// The initial writes before every other write to their location.
    pub(super) init_first: Rel,
}

impl Prefix {
    /// For the events of `combo` (one trace per thread; their values are not used).
    /// `lasts`: writes that end coherence at their location, each with the other writes there
    /// (deciding a condition that only such a final value can decide: every execution looked
    /// for has those pairs, which `Search::choose_last` adds). `barriers_fixed`: every
    /// barrier's id and count are constants, so `combo`'s barriers match as every
    /// valuation's do.
    pub fn new(
        p: &Program,
        model: &Model,
        combo: &[&Trace],
        lasts: &[(usize, Vec<usize>)],
        barriers_fixed: bool,
    ) -> Result<Prefix, String> {
        let ev = Events::build(p, combo)?;
        let checker = prepare(model, &ev);
        let fence_floor = fence_orders(&ev, checker.morally_strong())
            .map_or_else(|_| Rel::empty(ev.n), |orders| common(&orders));
        let mut init_first = Rel::empty(ev.n);
        for i in members(ev.init) {
            init_first.set_row(i, ev.loc.row(i) & ev.w & !ev.init);
        }
        for (last, others) in lasts {
            for &w in others {
                init_first.add(w, *last);
            }
        }
        let options = match barriers_fixed {
            true => barrier_syncs(&ev),
            false => Vec::new(),
        };
        let barrier_floor = match options.is_empty() {
            true => Rel::empty(ev.n),
            false => common(&options),
        };
        Ok(Prefix {
            barrier_floor,
            ev,
            checker,
            fence_floor,
            init_first,
        })
    }

    /// Whether some consistent execution may read from these (write, read) pairs (event ids:
    /// the initial writes first, then each thread's events in order).
    pub fn possible(&self, pairs: &[(usize, usize)]) -> bool {
        let ev = &self.ev;
        let rf = Rel::from_pairs(ev.n, pairs.iter().copied());
        let none = Rel::empty(ev.n);
        let x = Dynamic {
            rf: &rf,
            co: &none,
            fr: &none,
            sync_fence: &self.fence_floor,
            sync_barrier: &self.barrier_floor,
        };
        let cause = self.checker.causality(ev, &x);
        if !rf.seq(&cause).irreflexive() {
            return false;
        }
        let Some(co) = grown(&self.init_first, &coherence_required(ev, &cause)) else {
            return false;
        };
        if !(&co & &coherence_forbidden(ev, &rf, &cause)).is_empty() {
            return false;
        }
        let fr = rf.inv().seq(&co);
        let x = Dynamic {
            co: &co,
            fr: &fr,
            ..x
        };
        self.checker.location_ok(ev, &rf, &co, &fr) && self.checker.partial_ok(ev, &x)
    }
}
