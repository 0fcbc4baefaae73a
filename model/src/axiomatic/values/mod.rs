//! Values along reads-from: which values the reads of a combination of paths (one per thread)
//! can return, found by choosing for each read a write to its location and computing values
//! along that choice (as herd does for loop-free code), instead of guessing them.
//!
//! Reads are given sources one at a time; after each choice every value that can be computed
//! is, and a choice that contradicts an assumption of a path (a branch or CAS side) is dropped
//! at once. A read whose source's value depends on the read itself (a cycle of data flow
//! through reads-from) cannot be computed: it takes each value already in play at its location
//! (the initial value, or one an evaluated write stores there) and keeps those that its source
//! then confirms. Such executions are thin air, which the PTX models' No-Thin-Air axiom rejects;
//! under a model without such an axiom (Tile IR, Vulkan, OpenCL) a cycle may justify any value,
//! and such a read also takes one value of each class the program's comparisons tell apart
//! ([`Valuations::allow_thin_air`]).
//!
//! Under the PTX models, whose No-Thin-Air axiom rejects every execution with such a cycle,
//! only valuations without one can have consistent executions; [`Valuations::for_each_grounded`]
//! finds exactly those, by values rather than by sources, and much faster on chains of
//! read-modify-writes (where almost every write's value depends on a read).
//!
//! Each distinct valuation gives one trace per thread; `enumerate.rs` then chooses reads-from
//! again, among the writes of the value each read returned, with coherence and the rest.

mod goal;
mod grounded;
mod reads_from;
mod search;
mod valuations;

pub use goal::GOAL_DEPTH;
pub use valuations::{RfCheck, Valuations};
