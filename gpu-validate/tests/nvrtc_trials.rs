//! The `harness = false` checks of `scopecheck-gpu`, in one binary of libtest-mimic trials: the
//! NVRTC cases (`nvrtc`) and the async corpus's harnesses through NVRTC (`async_nvrtc`, one trial
//! per program). Without NVRTC the cases needing it are *ignored* with the reason, never passed.
//!
//! ADDING A FILE: a check that may have to be skipped at run time goes in `tests/NAME.rs` with
//! `pub fn trials() -> Vec<libtest_mimic::Trial>`, declared below with `mod NAME;` and its trials
//! added in `main`. A plain `#[test]` goes in a file that `tests/main.rs` declares instead. Run
//! one trial with `cargo test --release -p scopecheck-gpu --test nvrtc_trials -- NAME`.

mod async_nvrtc;
mod nvrtc;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = nvrtc::trials();
    trials.extend(async_nvrtc::trials());
    libtest_mimic::run(&args, trials).exit();
}
