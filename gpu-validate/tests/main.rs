//! Every libtest integration test of `scopecheck-gpu`, in one binary: one compile and one link
//! instead of one per file (issue 33). Each file keeps its content and becomes a module here. The
//! NVRTC checks, which are skipped at run time without NVRTC, are libtest-mimic trials in
//! `tests/nvrtc_trials.rs`.
//!
//! ADDING A TEST FILE: put `tests/NAME.rs` beside this file and add `mod NAME;` below (in
//! alphabetical order); Cargo no longer discovers test files on its own (`autotests = false`).
//! Run one file's tests with `cargo test --release -p scopecheck-gpu --test gpu -- NAME::`.

mod async_codegen;
mod campaign_shapes;
mod codegen_golden;
mod host_thread;
mod shapes_model;
/// The library's own module tests (they were `#[cfg(test)]` modules in `src/`).
mod unit;
