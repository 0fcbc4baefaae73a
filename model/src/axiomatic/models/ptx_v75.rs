//! PTX ISA 7.5 memory model with proxies, after Dat3M's `ptx-v7.5.cat` (which follows NVIDIA's
//! mixedproxy Alloy model and the PTX ISA "Memory Consistency Model" chapter).
//!
//! Differences from 6.0: operations are morally strong only through the same proxy and the same
//! virtual address; program order is part of causality; and causality between accesses through
//! different proxies or aliases is preserved only through proxy fences in the same CTA.

use super::{Checker, Dynamic};
use crate::axiomatic::execution::Events;
use crate::axiomatic::rel::Rel;

pub struct PtxV75 {
    ms: Rel,
    release_pattern: Rel,
    acquire_pattern: Rel,
    /// `[F]; (same-proxy & scta); [M]`: a proxy fence and the accesses of its proxy in its CTA.
    proxy_fence_ops: Rel,
    /// Every access is generic and no location has a second name: then (cause-base being
    /// transitive) every proxy-preserving clause is contained in the first, `vloc & cause-base`.
    generic_only: bool,
}

impl PtxV75 {
    pub fn new(ev: &Events) -> PtxV75 {
        let strong_m = ev.strong_w | ev.strong_r;
        let strong_op = strong_m | ev.f;
        let sr_proxy = &ev.sr & &ev.same_proxy;
        let po_proxy = &ev.po & &ev.same_proxy;
        // Morally strong: through one proxy, fences with strong operations in scope or in po,
        // strong accesses to one virtual address in each other's scope, or any two accesses to
        // one virtual address in program order.
        let sr_fence = &sr_proxy.restrict(strong_op, ev.f) | &sr_proxy.restrict(ev.f, strong_op);
        let po_fence = &po_proxy.restrict(strong_op, ev.f) | &po_proxy.restrict(ev.f, strong_op);
        let sr_m = (&sr_proxy & &ev.vloc).restrict(strong_m, strong_m);
        let po_m = (&po_proxy & &ev.vloc).restrict(ev.m, ev.m);
        let ms = &(&sr_fence | &po_fence) | &(&sr_m | &po_m);

        let po_vloc = &ev.po & &ev.vloc;
        let release_pattern = &po_vloc.opt().restrict(ev.rel_w, ev.strong_w)
            | &ev.po.restrict(ev.f_acq_rel, ev.strong_w);
        let acquire_pattern = &po_vloc.opt().restrict(ev.strong_r, ev.acq_r)
            | &ev.po.restrict(ev.strong_r, ev.f_acq_rel);
        let proxy_fence_ops = (&ev.same_proxy & &ev.scta).restrict(ev.f, ev.m);
        let generic_only = (ev.m & !ev.init & !ev.gen).is_empty() && ev.vloc == ev.loc;
        PtxV75 {
            ms,
            release_pattern,
            acquire_pattern,
            proxy_fence_ops,
            generic_only,
        }
    }

    fn observation(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        super::observation(&self.ms, x.rf, &ev.rmw)
    }

    fn sync(&self, obs: &Rel) -> Rel {
        &self.ms & &self.release_pattern.seq(obs).seq(&self.acquire_pattern)
    }

    /// `cause = observation? ; proxy-preserved-cause-base`.
    fn cause(&self, ev: &Events, x: &Dynamic<'_>, obs: &Rel) -> Rel {
        let cb = &super::base_causality(&ev.po, &self.sync(obs), x) | &ev.po;
        if self.generic_only {
            return obs.opt().seq(&(&ev.vloc & &cb).restrict(ev.gen, ev.gen));
        }

        let gen = ev.id(ev.gen);
        // cause-base into a proxy fence of the source's proxy, and out of one into its proxy.
        let into_fence = &cb & &self.proxy_fence_ops.inv();
        let out_of_fence = &cb & &self.proxy_fence_ops;
        let alias_fence = ev.id(ev.f_alias);
        let via_alias = cb.seq(&alias_fence).seq(&cb);
        let same_cta_proxy_vloc = &(&ev.same_proxy & &ev.scta) & &ev.vloc;

        let mut ppcb = (&ev.vloc & &cb).restrict(ev.gen, ev.gen);
        ppcb = &ppcb | &(&same_cta_proxy_vloc & &cb).restrict(ev.m, ev.m);
        let mut by_vloc = into_fence.seq(&cb).seq(&gen);
        by_vloc = &by_vloc | &gen.seq(&cb).seq(&out_of_fence);
        by_vloc = &by_vloc | &into_fence.seq(&cb).seq(&out_of_fence);
        ppcb = &ppcb | &(&ev.vloc & &by_vloc);
        let con = ev.m & ev.con;
        let mut by_loc = cb.seq(&ev.id(ev.f_con)).seq(&cb).restrict(con, con);
        by_loc = &by_loc | &gen.seq(&via_alias).seq(&gen);
        by_loc = &by_loc | &into_fence.seq(&via_alias).seq(&gen);
        by_loc = &by_loc | &gen.seq(&via_alias).seq(&out_of_fence);
        by_loc = &by_loc | &into_fence.seq(&via_alias).seq(&out_of_fence);
        ppcb = &ppcb | &(&ev.loc & &by_loc);
        obs.opt().seq(&ppcb)
    }
}

impl Checker for PtxV75 {
    fn morally_strong(&self) -> &Rel {
        &self.ms
    }

    fn location_ok(&self, ev: &Events, rf: &Rel, co: &Rel, fr: &Rel) -> bool {
        // Atomicity: no morally strong write between an RMW's read and its write.
        let atomicity = (&self.ms & fr).seq(&(&self.ms & co));
        // SC-per-Location: morally strong communication agrees with program order per location.
        let sc_per_location = &(&self.ms & &(&(rf | co) | fr)) | &ev.po_loc;
        (&atomicity & &ev.rmw).is_empty() && sc_per_location.acyclic()
    }

    fn causality(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        self.cause(ev, x, &self.observation(ev, x))
    }

    fn global_ok(&self, ev: &Events, x: &Dynamic<'_>, cause: &Rel) -> Result<(), &'static str> {
        // Coherence: causality between writes to one location is coherence order.
        if !(&cause.restrict(ev.w, ev.w) & &ev.loc).subset_of(x.co) {
            return Err("coherence");
        }
        // Morally strong writes to one location are ordered by coherence (coherence is partial:
        // writes in a data race may stay unordered).
        if !super::coherence_relates_morally_strong(ev, &self.ms, x.co) {
            return Err("coherence-ms");
        }
        // FenceSC: causality between fence.sc pairs agrees with their order.
        if !cause.restrict(ev.f_sc, ev.f_sc).subset_of(x.sync_fence) {
            return Err("fence-sc");
        }
        // No-Thin-Air: no value depends on itself.
        if !(x.rf | &ev.dep).acyclic() {
            return Err("no-thin-air");
        }
        // Causality: no read observes a write causality places after it, no cycle through fr.
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
