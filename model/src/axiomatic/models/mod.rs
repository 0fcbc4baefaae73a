//! Memory models: each a page of axioms over the relations of `execution.rs`.
//!
//! A model first derives what does not depend on the execution's choices (morally strong pairs,
//! release and acquire patterns) once per combination of thread traces, then judges each
//! candidate: cheaply per location while reads-from and coherence are still being chosen, and
//! in full once every choice is made.

pub mod ptx_v60;
pub mod ptx_v75;
pub mod tileir;

use super::execution::Events;
use super::rel::Rel;
use super::Model;

/// The choices that make a candidate execution.
pub struct Dynamic<'a> {
    pub rf: &'a Rel,
    /// Coherence order: a partial order per physical location (transitive), the initial write
    /// before every other write, morally strong writes ordered one way or the other, writes
    /// ordered by causality in that direction (see [`coherence_relates_morally_strong`] and the
    /// models' Coherence axioms). Two writes in a data race may stay unordered.
    pub co: &'a Rel,
    /// From-reads: `rf^-1 ; co` (with `co` transitive, a read is from-read-before every write
    /// coherence-after its source, not only the next one).
    pub fr: &'a Rel,
    /// The fence.sc order restricted to morally strong pairs.
    pub sync_fence: &'a Rel,
    /// Barrier synchronization (see `enumerate.rs`).
    pub sync_barrier: &'a Rel,
}

/// A model prepared for one set of events.
pub trait Checker {
    /// Morally strong pairs (the fence.sc order only relates these).
    fn morally_strong(&self) -> &Rel;
    /// The axioms that only relate accesses to one location (SC-per-Location, Atomicity), on
    /// the locations chosen so far. Must be monotone — adding pairs to `rf`, `co` or `fr` never
    /// turns a violation into a pass — because the enumeration checks it on partial choices
    /// and drops every completion of a prefix that fails.
    fn location_ok(&self, ev: &Events, rf: &Rel, co: &Rel, fr: &Rel) -> bool;
    /// The causality order that the Coherence and Causality axioms (which every model here has,
    /// in the forms `[W]; cause; [W] & loc ⊆ co` up to identity and `(rf | fr) ; cause`
    /// irreflexive) compare coherence with. It reads reads-from and the synchronization
    /// choices, never `x.co` or `x.fr`, and only grows as they grow.
    fn causality(&self, ev: &Events, x: &Dynamic<'_>) -> Rel;
    /// The axioms beyond single locations, for an execution that passes `location_ok`, given
    /// its causality order (`self.causality(ev, x)`); `Err` names the first one violated.
    fn global_ok(&self, ev: &Events, x: &Dynamic<'_>, cause: &Rel) -> Result<(), &'static str>;
    /// The axioms beyond single locations that part of the choices can already break, on the
    /// choices made so far (reads-from and coherence of the locations chosen, the
    /// synchronization every choice has): `false` only when every completion fails `global_ok`
    /// too. The default checks nothing here (the model's global axioms wait for complete
    /// candidates).
    fn partial_ok(&self, _ev: &Events, _x: &Dynamic<'_>) -> bool {
        true
    }
    /// Every axiom; `Err` names the first one violated.
    fn consistent(&self, ev: &Events, x: &Dynamic<'_>) -> Result<(), &'static str> {
        if !self.location_ok(ev, x.rf, x.co, x.fr) {
            return Err("sc-per-location/atomicity");
        }
        self.global_ok(ev, x, &self.causality(ev, x))
    }
    /// Release/acquire synchronization of a consistent execution (for witnesses).
    fn synchronizes(&self, ev: &Events, x: &Dynamic<'_>) -> Rel;
    /// Data races of a consistent execution, as the model defines them (PTX: conflicting
    /// accesses neither morally strong nor ordered by causality, [`data_races`]; Tile IR, where
    /// they are undefined behaviour: the same with happens-before).
    fn races(&self, ev: &Events, x: &Dynamic<'_>) -> Rel;
}

pub fn prepare(model: &Model, ev: &Events) -> Box<dyn Checker> {
    match model {
        Model::Cat(m) => Box::new(m.prepare(ev)),
        Model::PtxV60 => Box::new(ptx_v60::PtxV60::new(ev)),
        Model::PtxV75 => Box::new(ptx_v75::PtxV75::new(ev)),
        Model::TileIr => Box::new(tileir::TileIr::new(ev)),
    }
}

/// The coherence pairs every consistent execution with (at least) this causality order has,
/// from the Coherence axiom every model has: causality between two writes to one location is
/// coherence order.
///
/// (With a total coherence order, the Causality axiom — no `fr ; cause` cycle — would require
/// more: a write causally before a read coherence-before the write the read reads from. With
/// PTX's partial order it only forbids the opposite pair: see [`coherence_forbidden`]. Taking
/// those pairs as required is what made an earlier partial-order attempt drop executions
/// where the two writes race and stay unordered.)
pub fn coherence_required(ev: &Events, cause: &Rel) -> Rel {
    (&cause.restrict(ev.w, ev.w) & &ev.loc).minus_id()
}

/// The coherence pairs no consistent execution with (at least) these reads-from pairs and this
/// causality order has, from the Causality axiom (`(rf | fr) ; cause` irreflexive): when a read
/// reads from `w` and a write `w'` to its location is causally before it, `w` is not
/// coherence-before `w'` (that would put `w'` in from-reads after the read). Pairs
/// `rf ; cause^-1` between writes to one location.
pub fn coherence_forbidden(ev: &Events, rf: &Rel, cause: &Rel) -> Rel {
    (&rf.seq(&cause.inv()).restrict(ev.w, ev.w) & &ev.loc).minus_id()
}

/// Whether coherence relates every pair of morally strong writes to one location (PTX ISA
/// "Coherence order": "Two overlapping write operations are related in coherence order if they
/// are morally strong or if they are related in causality order"; the Tile IR specification,
/// §7.6, says the same with happens-before). `co` is transitive, so this is one test of the
/// pairs, not of chains of them.
pub fn coherence_relates_morally_strong(ev: &Events, ms: &Rel, co: &Rel) -> bool {
    let ms_writes = (&ms.restrict(ev.w, ev.w) & &ev.loc).minus_id();
    ms_writes.subset_of(&(co | &co.inv()))
}

/// Observation order (PTX ISA "Observation Order"): a write is observed by a morally strong read
/// of it, or through a chain of atomic RMWs, each observing the previous one's write:
/// `(ms & rf) ; (rmw ; (ms & rf))*`. Like Dat3M we also count `rmw` itself, so that an RMW's
/// read carries causality to its write.
pub fn observation(ms: &Rel, rf: &Rel, rmw: &Rel) -> Rel {
    let observed = ms & rf;
    let chained = observed.seq(&rmw.seq(&observed).star());
    &chained | rmw
}

/// Data races (PTX ISA, "Data races"): "Two overlapping memory operations are said to conflict
/// when at least one of them is a write. Two conflicting memory operations are said to be in a
/// data-race if they are not related in causality order and they are not morally strong."
/// `order` is the model's causality order (Tile IR: happens-before), `ms` its morally strong
/// pairs. Overlapping is physical (one location, whatever address names it); the initial writes
/// are not operations of the program and race with nothing. The relations are between
/// *operations*, and an atomic read-modify-write is one operation whose read and write are two
/// events here: the operations are ordered when some event of one is ordered before some event
/// of the other (`(rmw | rmw^-1)? ; order ; (rmw | rmw^-1)?`). So an `atom.add` whose write a
/// later RMW observes is causally before what follows that RMW in program order, its read
/// included (the counter reset of a threadfence reduction).
pub fn data_races(ev: &Events, order: &Rel, ms: &Rel) -> Rel {
    let conflicting = (&ev.loc.restrict(ev.w, ev.m) | &ev.loc.restrict(ev.m, ev.w)).minus_id();
    let same_op = (&ev.rmw | &ev.rmw.inv()).opt();
    let order = same_op.seq(order).seq(&same_op);
    let ordered = &(&order | &order.inv()) | ms;
    (&conflicting - &ordered).restrict(!ev.init, !ev.init)
}

/// Base causality (PTX ISA "Base Causality Order"): synchronization — release/acquire patterns,
/// morally strong fence.sc pairs and barrier instances — chained through `order` (program order;
/// token order in Tile IR): `order? ; (sync ; order?)+`.
pub fn base_causality(order: &Rel, sync: &Rel, x: &Dynamic<'_>) -> Rel {
    let order_opt = order.opt();
    let base = &(sync | x.sync_fence) | x.sync_barrier;
    order_opt.seq(&base.seq(&order_opt).plus())
}
