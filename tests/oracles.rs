//! The `harness = false` checks of the `scopecheck` CLI, in one binary of libtest-mimic trials:
//! the shared PTX oracle (`oracle`, one trial per test), the CUDA corpus (`cuda_corpus`, one
//! trial per `.ptx` and `.cu`) and the libFuzzer smoke run (`fuzz_smoke`). libtest's filters,
//! `--list`, `--ignored` and its summary work; a check that cannot run here (no `../shared`, no
//! NVRTC, no cargo-fuzz) is an *ignored* trial with the reason, never a pass.
//!
//! ADDING A FILE: a check that may have to be skipped at run time goes in `tests/NAME.rs` with
//! `pub fn trials() -> Vec<libtest_mimic::Trial>` (ignored trials for what is missing), declared
//! below with `mod NAME;` and its trials added in `main`. A plain `#[test]` goes in a file that
//! `tests/main.rs` declares instead. Run one trial with
//! `cargo test --release --test oracles -- NAME`.

mod herd_shape;

#[cfg(feature = "gpu")]
mod cuda_corpus;
mod fuzz_smoke;
mod oracle;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = Vec::new();
    // The libFuzzer run first: it is the longest, and the others fill the other threads.
    trials.extend(fuzz_smoke::trials());
    trials.extend(oracle::trials(oracle::shared_dir().as_deref()));
    #[cfg(feature = "gpu")]
    trials.extend(cuda_corpus::trials());
    libtest_mimic::run(&args, trials).exit();
}
