//! What the enumeration asks of a memory model ([`Checker`]), and the coherence pairs it derives
//! from a causality order. Every model is cat text ([`crate::cat`]; the named ones are the
//! built-in `.cat` files): it first derives what does not depend on the execution's choices
//! (morally strong pairs, release and acquire patterns) once per combination of thread traces,
//! then judges each candidate: cheaply per location while reads-from and coherence are still
//! being chosen, and in full once every choice is made.

use super::execution::Events;
use super::rel::Rel;
use super::Model;

/// The choices that make a candidate execution.
pub struct Dynamic<'a> {
    /// Reads-from: from each write to the reads that return its value (each read has exactly
    /// one source).
    pub rf: &'a Rel,
    /// Coherence order: a partial order per physical location (transitive), the initial write
    /// before every other write, morally strong writes ordered one way or the other, writes
    /// ordered by causality in that direction (the models' Coherence axioms, e.g. `Coherence`
    /// and `Coherence-ms` in `ptx-v7.5.cat`). Two writes in a data race may stay unordered.
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
    /// Data races of a consistent execution, as the model's `flag`s define them (PTX:
    /// conflicting accesses neither morally strong nor ordered by causality; Tile IR, where they
    /// are undefined behaviour: the same with happens-before).
    fn races(&self, ev: &Events, x: &Dynamic<'_>) -> Rel;
    /// The flags a consistent execution raises, as a bit set: bit `i` for the `i`-th of
    /// [`Checker::flag_names`] (a model's 64th and later flags share bit 63).
    fn raised(&self, ev: &Events, x: &Dynamic<'_>) -> u64;
    /// The names of the model's flags (`flag ... as NAME`), in the order of the model text.
    fn flag_names(&self) -> Vec<&'static str>;
}

/// The names of the flags in `mask` ([`Checker::raised`]), in the order of `names`.
pub fn flag_names_in(names: &[&'static str], mask: u64) -> Vec<&'static str> {
    names
        .iter()
        .enumerate()
        .filter(|&(i, _)| mask & (1 << i.min(63)) != 0)
        .map(|(_, &name)| name)
        .collect()
}

/// The model's checker for these events.
pub fn prepare(model: &Model, ev: &Events) -> Box<dyn Checker> {
    Box::new(model.cat().prepare(ev))
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
