//! Every libtest integration test of the `scopecheck` CLI, in one binary: one compile and one
//! link instead of one per file (issue 33). Each file keeps its content and becomes a module
//! here; files that need the `gpu` feature are compiled only with it, as their
//! `required-features` used to say. The `harness = false` checks (the shared oracle, the CUDA
//! corpus, the libFuzzer smoke run) are libtest-mimic trials in `tests/oracles.rs`;
//! `tests/readme_transcripts.rs` stays its own binary.
//!
//! ADDING A TEST FILE: put `tests/NAME.rs` beside this file and add `mod NAME;` below (in
//! alphabetical order, behind `#[cfg(feature = "gpu")]` when it needs the GPU feature); Cargo no
//! longer discovers test files on its own (`autotests = false`). The shared helpers are the
//! modules `runner` and `herd_shape`: write `use crate::runner;`, not `mod runner;`. Run one
//! file's tests with `cargo test --release --test cli -- NAME::`.

mod herd_shape;
mod runner;

mod check_cli;
mod corpus;
mod dot_cli;
mod examples_cli;
mod fuzz_cli;
#[cfg(feature = "gpu")]
mod fuzz_gpu;
mod fuzz_smoke_skip;
mod gpu_cli;
mod hostile;
mod kernel_cli;
mod layering;
mod litmus_bad_input;
mod litmus_cli;
mod litmus_herd;
mod liveness_cli;
mod manifests;
mod models_cli;
mod verdicts_cli;
