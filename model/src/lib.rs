//! scopecheck's model crate: litmus programs, the axiomatic PTX / Tile IR models, and the scoped
//! operational runtime that kernel models run on under loom, shuttle or our own DFS.
//!
//! Features (all default): `shuttle` (the runtime and what runs on it: `kernel`, `engine`,
//! `runtime`, `differential`), `loom` (`Checker::loom()`), `arbitrary` (random litmus programs).
//! Without them the crate is the litmus front end, the axiomatic and cat models and the herd log.

pub mod axiomatic;
pub mod cat;
#[cfg(feature = "shuttle")]
pub mod differential;
#[cfg(feature = "shuttle")]
pub mod engine;
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
