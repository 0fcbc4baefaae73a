//! Candidate executions: for every combination of thread traces, choose reads-from (only among
//! writes of the value the read returned), a coherence order per location, an order of the
//! morally strong fence.sc pairs, and a matching of barriers — then ask the model.
//!
//! Pruning, location by location (each only drops candidates the axioms reject, so the
//! consistent executions, their number and their order are those of trying every candidate —
//! a test checks this against an exhaustive search):
//! - the per-location axioms (SC-per-Location, Atomicity) are checked as soon as a location's
//!   reads-from (and, with many completions left, part of it) and then its coherence order are
//!   chosen, so inconsistent choices for early locations never multiply with later ones;
//! - the Coherence and Causality axioms fix coherence pairs as soon as reads-from is known (the
//!   causality order does not depend on coherence), so coherence orders are built only in
//!   agreement with them, one write at a time (a location nothing reads reuses the last
//!   location's causality: reads-from has not grown);
//! - Atomicity is also applied while a coherence order is built: once an RMW's source is
//!   placed and its write is not, no morally strong write may come between them;
//! - events, the model's static relations and the fence.sc orders are built once per
//!   combination of thread paths, not per valuation;
//! - with many valuations, [`Prefix`] lets `values/` drop a valuation while its reads are
//!   being given values, once the reads-from pairs they force fail these same axioms.
//!
//! A reported location's coherence-last write is chosen before its morally strong pairs are
//! oriented (`Search::choose_last`), so the final value is known before the orientations.
//!
//! Searching for the final states only ([`super::analyze_states`]), branches that can only
//! reach states already found are dropped as well ([`super::targets`]).

mod collector;
mod explore;
mod location;
mod order;
mod prefix;
mod search;
mod sync;

pub use collector::{Accept, CoFloor, Collector};
pub use explore::{Explorer, SearchFn};
pub use prefix::Prefix;
pub use search::{Search, Tally};
