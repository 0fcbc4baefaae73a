//! Every libtest integration test of `scopecheck-model`, in one binary: one compile and one link
//! against the release crate instead of one per file (issue 33). Each file keeps its content and
//! becomes a module here; a file that needs a feature is compiled only with it, as its
//! `required-features` used to say. The checks that read the shared oracle run in the
//! `harness = false` binary `tests/oracles.rs`, where a missing oracle is an *ignored* trial.
//!
//! ADDING A TEST FILE: put `model/tests/NAME.rs` beside this file and add `mod NAME;` below (in
//! alphabetical order, behind `#[cfg(feature = "...")]` when it needs `shuttle`, `loom` or
//! `arbitrary`); Cargo no longer discovers test files on its own (`autotests = false`). Shared
//! helpers are the modules `common_shared`, `corpus` and `search_support` (`use crate::corpus;`,
//! not `mod`).
//! Run one file's tests with `cargo test --release -p scopecheck-model --test model -- NAME::`.

/// The shared oracle's location (`$SCOPECHECK_SHARED`, else `../shared`).
#[allow(dead_code)]
mod common_shared;
/// The bug models of `corpus/bugs` (also compiled into the CLI), once for every file using them.
#[cfg(feature = "shuttle")]
#[path = "../../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod corpus;
/// The header, check and verdict helpers of the PTX interpreter's test files.
#[cfg(feature = "shuttle")]
mod ptx_support;
/// The generator and search outcome the generated-kernel proofs share.
#[cfg(feature = "shuttle")]
mod search_support;

#[cfg(feature = "shuttle")]
mod async_group_reduction;
#[cfg(feature = "shuttle")]
mod async_reduction;
#[cfg(feature = "arbitrary")]
#[allow(dead_code)]
mod axiomatic_states_only;
#[cfg(feature = "shuttle")]
mod barrier_reduction;
#[cfg(feature = "arbitrary")]
mod cat_models;
#[cfg(feature = "shuttle")]
mod dependence;
#[cfg(feature = "shuttle")]
mod dfs_reduction;
#[cfg(feature = "shuttle")]
mod fuzz_corpus;
#[cfg(all(feature = "shuttle", feature = "arbitrary"))]
mod fuzz_differential;
#[cfg(feature = "shuttle")]
mod fuzz_findings;
#[cfg(feature = "arbitrary")]
mod fuzz_generator;
#[cfg(feature = "loom")]
mod kernel_atomics;
#[cfg(feature = "shuttle")]
mod kernel_clusters;
#[cfg(feature = "shuttle")]
mod kernel_hangs;
#[cfg(feature = "loom")]
#[allow(dead_code)]
mod kernel_litmus;
#[cfg(feature = "loom")]
mod kernel_mbarrier;
#[cfg(feature = "shuttle")]
mod kernel_message_passing;
#[cfg(feature = "shuttle")]
mod kernel_occupancy;
#[cfg(feature = "shuttle")]
mod kernel_replay;
#[cfg(feature = "shuttle")]
mod kernel_shared_memory;
#[cfg(feature = "shuttle")]
mod kernel_st_async;
#[cfg(feature = "shuttle")]
mod kernel_tensor_map;
#[cfg(feature = "shuttle")]
mod kernel_tokens;
#[cfg(feature = "shuttle")]
mod kernel_verified;
#[cfg(feature = "shuttle")]
mod kernel_warp_intrinsics;
#[cfg(feature = "shuttle")]
mod kernel_warps;
#[cfg(feature = "shuttle")]
mod litmus_alu;
mod litmus_async;
mod litmus_dialects;
#[allow(dead_code)]
mod litmus_parse;
#[cfg(all(feature = "shuttle", feature = "arbitrary"))]
#[allow(dead_code)]
mod litmus_states;
#[cfg(feature = "shuttle")]
mod litmus_warp_order;
mod liveness;
mod opencl_dialect;
#[cfg(feature = "shuttle")]
mod parallel_dfs;
#[cfg(feature = "shuttle")]
mod ptx_async;
#[cfg(feature = "shuttle")]
mod ptx_exec;
#[cfg(feature = "shuttle")]
mod ptx_half;
#[path = "ptx_parse/main.rs"]
mod ptx_parse;
#[cfg(feature = "shuttle")]
mod ptx_st_async;
#[cfg(feature = "shuttle")]
mod ptx_tensor;
mod shared_skip;
#[cfg(feature = "shuttle")]
mod spin_polling;
mod tile_ir_tokens;
/// The library's own module tests (they were `#[cfg(test)]` modules in `src/`).
mod unit;
#[cfg(feature = "shuttle")]
mod urw;
