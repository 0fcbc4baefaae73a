//! Tile IR memory model (Tile IR specification, chapter 7 "Memory Model"), a weakening of PTX.
//!
//! Each litmus thread is one tile block. Scopes are tile_block (our `Cta`), device (`Gpu`) and
//! sys. The one change from PTX 6.0 that matters: *program order does not order memory
//! operations* — only token order does (a statement waits for the operations whose tokens it
//! consumes). So wherever PTX says `po`, this model says token order; "restricted program order"
//! in the definition of moral strength is token order between accesses to one location.
//! Program dependencies do not order either, and the specification states No-Thin-Air only
//! informally, so there is no dependency axiom: load buffering is visible without tokens. Values
//! still cannot come from thin air here: a read whose value would justify itself through
//! reads-from only takes values already in play at its location (see `values.rs`).

use super::{Checker, Dynamic};
use crate::axiomatic::execution::Events;
use crate::axiomatic::rel::Rel;

pub struct TileIr {
    ms: Rel,
    release_pattern: Rel,
    acquire_pattern: Rel,
    /// Token order between accesses to one location.
    tko_loc: Rel,
}

impl TileIr {
    pub fn new(ev: &Events) -> TileIr {
        let tko = &ev.token_order;
        let strong_m = ev.strong_w | ev.strong_r;
        let strong_op = strong_m | ev.f;
        let tko_loc = tko & &ev.loc;
        // Morally strong: accesses to one location ordered by tokens (either way), or strong
        // operations each of whose scope includes the other's tile block.
        let restricted_po = (&tko_loc | &tko_loc.inv()).restrict(ev.m, ev.m);
        let sr_m = (&ev.sr & &ev.loc).restrict(strong_m, strong_m);
        let sr_fence = &ev.sr.restrict(strong_op, ev.f) | &ev.sr.restrict(ev.f, strong_op);
        let tko_fence = &tko.restrict(strong_op, ev.f) | &tko.restrict(ev.f, strong_op);
        let ms = (&(&restricted_po | &sr_m) | &(&sr_fence | &tko_fence)).minus_id();
        let release_pattern = &tko_loc.opt().restrict(ev.rel_w, ev.strong_w)
            | &tko.restrict(ev.f_acq_rel, ev.strong_w);
        let acquire_pattern = &tko_loc.opt().restrict(ev.strong_r, ev.acq_r)
            | &tko.restrict(ev.strong_r, ev.f_acq_rel);
        TileIr {
            ms,
            release_pattern,
            acquire_pattern,
            tko_loc,
        }
    }

    fn observation(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        super::observation(&self.ms, x.rf, &ev.rmw)
    }

    fn sync(&self, obs: &Rel) -> Rel {
        &self.ms & &self.release_pattern.seq(obs).seq(&self.acquire_pattern)
    }

    /// Happens-before: token order and synchronization, transitively.
    pub fn happens_before(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        let sync = self.sync(&self.observation(ev, x));
        &super::base_causality(&ev.token_order, &sync, x) | &ev.token_order
    }
}

impl Checker for TileIr {
    fn morally_strong(&self) -> &Rel {
        &self.ms
    }

    fn location_ok(&self, ev: &Events, rf: &Rel, co: &Rel, fr: &Rel) -> bool {
        // Atomicity: no morally strong write between an RMW's read and its write.
        let atomicity = (&self.ms & fr).seq(&(&self.ms & co));
        // SC-per-Location, with token order in place of program order.
        (&atomicity & &ev.rmw).is_empty()
            && (&(&self.ms & &(&(rf | co) | fr)) | &self.tko_loc).acyclic()
    }

    /// Happens-before, extended by observation.
    fn causality(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        let obs = self.observation(ev, x);
        let hb = self.happens_before(ev, x);
        &hb | &obs.seq(&(&hb | &self.tko_loc))
    }

    fn global_ok(&self, ev: &Events, x: &Dynamic<'_>, cause: &Rel) -> Result<(), &'static str> {
        // Coherence: writes ordered by happens-before are ordered by coherence.
        if !(&cause.restrict(ev.w, ev.w) & &ev.loc).subset_of(x.co) {
            return Err("coherence");
        }
        // Morally strong writes to one location are ordered by coherence (coherence is partial:
        // writes in a data race may stay unordered).
        if !super::coherence_relates_morally_strong(ev, &self.ms, x.co) {
            return Err("coherence-ms");
        }
        if !cause.restrict(ev.f_sc, ev.f_sc).subset_of(x.sync_fence) {
            return Err("fence-sc");
        }
        // Causality: no read observes a write that happens after it.
        if !(x.rf | x.fr).seq(cause).irreflexive() {
            return Err("causality");
        }
        Ok(())
    }

    fn synchronizes(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        self.sync(&self.observation(ev, x))
    }

    /// Conflicting accesses (one location, at least one a write) neither ordered by
    /// happens-before nor morally strong: a data race, undefined behaviour in Tile IR.
    fn races(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        super::data_races(ev, &self.happens_before(ev, x), &self.ms)
    }
}
