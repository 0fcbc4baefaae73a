//! The library's tests of its own modules, one file per module (`nvrtc_cache` tests
//! `nvrtc::cache`). They were `#[cfg(test)]` modules inside the library; here they compile into
//! the one test binary instead of a second, test-configured build of the library (issue 33).

mod codegen_alu;
mod confidence;
mod diff;
mod host;
mod mutate;
mod nvrtc_cache;
mod outcome;
mod record;
mod runner;
mod tune;
