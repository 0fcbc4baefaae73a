//! What the search of every combination reports into ([`Collector`]), and the hooks a caller
//! (liveness) gives it.

use crate::axiomatic::execution::{Events, Execution};
use crate::axiomatic::rel::Rel;
use crate::axiomatic::FinalState;
use crate::hash::Mix;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::rc::Rc;

/// What every consistent execution contributes to.
pub struct Collector {
    /// Keep one example execution per final state ([`crate::axiomatic::Options::witnesses`]).
    pub witnesses: bool,
    /// Hashed while the search runs; [`crate::axiomatic::analyze`] sorts them.
    pub states: HashMap<FinalState, (u64, Option<Execution>), BuildHasherDefault<Mix>>,
    /// Consistent executions found (a lower bound in states-only searches, see `targets`).
    pub executions: u64,
    /// Consistent executions with a data race (models that define races only).
    pub racy: u64,
    /// Those racy executions by final state (herd's `filter` drops some states), each with the
    /// flags they raise ([`crate::axiomatic::models::Checker::raised`]).
    pub racy_states: HashMap<FinalState, (u64, u64), BuildHasherDefault<Mix>>,
    /// States only (see [`crate::axiomatic::targets`]): executions (and their races) are counted only
    /// until each final state has one.
    pub states_only: bool,
    /// Only consistent executions this accepts count (`None`: all of them).
    pub accept: Option<Accept>,
    /// A necessary condition for `accept` that partial choices can already fail, and never
    /// pass again once failed (monotone: more reads-from and coherence pairs cannot mend it);
    /// branches failing it are dropped before their coherence is oriented further.
    pub viable: Option<Accept>,
    /// Coherence pairs every execution `accept` takes has (`None`: none): the search starts
    /// from those of them that coherence orders one way or the other anyway (morally strong
    /// pairs), so it never lists the other orientation, and prunes with them from the first
    /// choice. Pairs that are not morally strong are left to `accept`.
    pub co_floor: Option<CoFloor>,
    /// Stop at the first execution counted (a witness is all that is asked).
    pub first_only: bool,
    /// Check the global axioms that partial choices can break ([`crate::axiomatic::models::Checker::partial_ok`]) on
    /// reads-from prefixes too, as the per-location ones are, not only once a location's
    /// reads all have sources. It pays where a cycle through reads-from and the choices made
    /// at other locations rejects most branches (the liveness search of read-modify-write
    /// chains, whose coherence floor already orders most writes: 2_threads_4/145 of the
    /// vulkan-liveness suite 1.5 s -> 0.25 s); on the safety searches of the shared Vulkan
    /// suite it was measured no faster (`examples/cat_speed`), so it is asked for.
    pub prefix_global: bool,
}

/// Coherence pairs wanted in every accepted execution, given the events.
pub type CoFloor = Rc<dyn Fn(&Events) -> Rel>;

/// A further condition on consistent executions, given the events, reads-from and coherence
/// order (`liveness.rs`: the reads of a repeating iteration read coherence-last writes).
pub type Accept = Rc<dyn Fn(&Events, &Rel, &Rel) -> bool>;

/// Per write and pair of read-modify-write reads (the lower first): whether the two can never
/// both read from the write. It depends only on the events' static relations, the same for
/// every valuation of one combination of paths, so it is worked out once per triple.
pub(super) type NeverShare = RefCell<HashMap<(usize, usize, usize), bool, BuildHasherDefault<Mix>>>;
