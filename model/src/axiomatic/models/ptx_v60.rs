//! PTX ISA 6.0 memory model (scoped, no proxies), after Dat3M's `ptx-v6.0.cat` and Lustig et
//! al., "A Formal Analysis of the NVIDIA PTX Memory Consistency Model" (ASPLOS 2019).

use super::{Checker, Dynamic};
use crate::axiomatic::execution::Events;
use crate::axiomatic::rel::Rel;

pub struct PtxV60 {
    ms: Rel,
    release_pattern: Rel,
    acquire_pattern: Rel,
}

impl PtxV60 {
    pub fn new(ev: &Events) -> PtxV60 {
        let strong_m = ev.strong_w | ev.strong_r;
        let strong_op = strong_m | ev.f;
        // Morally strong: fences with strong operations in scope or in po, strong accesses to
        // one location in each other's scope, or accesses to one location of one thread.
        let sr_fence = &ev.sr.restrict(strong_op, ev.f) | &ev.sr.restrict(ev.f, strong_op);
        let po_fence = &ev.po.restrict(strong_op, ev.f) | &ev.po.restrict(ev.f, strong_op);
        let sr_m = (&ev.sr & &ev.loc).restrict(strong_m, strong_m);
        let po_m = (&ev.int & &ev.loc).restrict(ev.m, ev.m);
        let ms = (&(&sr_fence | &po_fence) | &(&sr_m | &po_m)).minus_id();

        let release_pattern = &ev.po_loc.opt().restrict(ev.rel_w, ev.strong_w)
            | &ev.po.restrict(ev.f_acq_rel, ev.strong_w);
        let acquire_pattern = &ev.po_loc.opt().restrict(ev.strong_r, ev.acq_r)
            | &ev.po.restrict(ev.strong_r, ev.f_acq_rel);
        PtxV60 {
            ms,
            release_pattern,
            acquire_pattern,
        }
    }

    fn observation(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        super::observation(&self.ms, x.rf, &ev.rmw)
    }

    fn sync(&self, obs: &Rel) -> Rel {
        &self.ms & &self.release_pattern.seq(obs).seq(&self.acquire_pattern)
    }

    /// `cause = cause-base | observation ; (cause-base | po-loc)`.
    fn cause(&self, ev: &Events, x: &Dynamic<'_>, obs: &Rel) -> Rel {
        let cause_base = super::base_causality(&ev.po, &self.sync(obs), x);
        &cause_base | &obs.seq(&(&cause_base | &ev.po_loc))
    }
}

impl Checker for PtxV60 {
    fn morally_strong(&self) -> &Rel {
        &self.ms
    }

    fn location_ok(&self, ev: &Events, rf: &Rel, co: &Rel, fr: &Rel) -> bool {
        // Atomicity: no morally strong write between an RMW's read and its write.
        let atomicity = (&self.ms & fr).seq(&(&self.ms & co));
        // SC-per-Location (6.0 form): morally strong communication followed by po-loc.
        let sc_per_location = (&self.ms & &(&(rf | co) | fr)).seq(&ev.po_loc);
        (&atomicity & &ev.rmw).is_empty() && sc_per_location.acyclic()
    }

    fn causality(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        self.cause(ev, x, &self.observation(ev, x))
    }

    fn global_ok(&self, ev: &Events, x: &Dynamic<'_>, cause: &Rel) -> Result<(), &'static str> {
        let co_or_id = x.co.opt();
        // Coherence: causality between writes to one location is coherence order.
        if !(&cause.restrict(ev.w, ev.w) & &ev.loc)
            .plus()
            .subset_of(&co_or_id)
        {
            return Err("coherence");
        }
        // Morally strong writes to one location are ordered by coherence.
        if !super::coherence_relates_morally_strong(ev, &self.ms, x.co) {
            return Err("coherence-ms");
        }
        // FenceSC: causality between fence.sc pairs agrees with their order.
        if !cause.restrict(ev.f_sc, ev.f_sc).subset_of(x.sync_fence) {
            return Err("fence-sc");
        }
        if !(x.rf | &ev.dep).acyclic() {
            return Err("no-thin-air");
        }
        if !(x.rf | x.fr).seq(cause).irreflexive() {
            return Err("causality");
        }
        Ok(())
    }

    fn synchronizes(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        self.sync(&self.observation(ev, x))
    }

    /// Conflicting accesses neither morally strong nor related in causality order (PTX ISA,
    /// "Data races"; see [`super::data_races`]).
    fn races(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        super::data_races(ev, &self.causality(ev, x), &self.ms)
    }
}
