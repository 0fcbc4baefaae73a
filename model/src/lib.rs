//! scopecheck's model crate: litmus programs, the axiomatic PTX / Tile IR models, and the scoped
//! operational runtime that kernel models run on under loom, shuttle or our own DFS.
//!
//! Features (all default): `shuttle` (the runtime and what runs on it: `kernel`, `engine`,
//! `runtime`, `differential`), `loom` (`Checker::loom()`), `arbitrary` (random litmus programs).
//! Without them the crate is the litmus front end, the axiomatic and cat models and the herd log.

#![warn(missing_docs)]
// Every public item is documented (issue 33, item 4): no module is exempt.

pub mod axiomatic;
pub mod cat;
pub mod diagnostic;
#[cfg(feature = "shuttle")]
pub mod differential;
// The book's Rust examples (docs/*.md), run by `cargo test --doc`; the kernel API needs shuttle.
#[cfg(all(doctest, feature = "shuttle"))]
mod docs;
#[cfg(feature = "shuttle")]
pub mod engine;
pub mod expected;
pub mod hash;
pub mod herd;
pub mod input;
#[cfg(feature = "shuttle")]
pub mod kernel;
pub mod litmus;
pub mod ptx;
#[cfg(feature = "shuttle")]
pub mod runtime;
pub mod scope;
