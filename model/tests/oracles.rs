//! The `harness = false` checks of `scopecheck-model`, in one binary of libtest-mimic trials:
//! those that read the shared oracle (`../shared/oracle` beside the repository, or
//! `$SCOPECHECK_SHARED`). libtest's filters, `--list`, `--ignored` and its summary work; without
//! the oracle each trial is *ignored* with the reason, never passed.
//!
//! ADDING A FILE: a check that needs the shared oracle goes in a file beside this one with
//! `pub fn trials(shared: Option<&Path>) -> Vec<libtest_mimic::Trial>`, declared below with
//! `mod NAME;` (behind the features it needs) and its trials added in `main`. A plain `#[test]`
//! goes in `main.rs` instead. Run one trial with
//! `cargo test --release -p scopecheck-model --test oracles -- NAME`.

/// The shared oracle's location (`$SCOPECHECK_SHARED`, else `../shared`).
mod common_shared;
mod liveness_oracle;
#[cfg(all(feature = "loom", feature = "arbitrary"))]
mod shared_oracle;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let shared = common_shared::shared_dir();
    let mut trials = Vec::new();
    #[cfg(all(feature = "loom", feature = "arbitrary"))]
    trials.extend(shared_oracle::trials(shared.as_deref()));
    trials.extend(liveness_oracle::trials(shared.as_deref()));
    libtest_mimic::run(&args, trials).exit();
}
