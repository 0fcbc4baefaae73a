//! scopecheck's model crate: litmus programs, the axiomatic PTX / Tile IR models, and the scoped
//! operational runtime that kernel models run on under loom, shuttle or our own DFS.

pub mod axiomatic;
pub mod cat;
pub mod differential;
pub mod engine;
pub mod hash;
pub mod herd;
pub mod kernel;
pub mod litmus;
pub mod runtime;
pub mod scope;
