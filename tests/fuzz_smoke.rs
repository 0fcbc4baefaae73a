//! The cargo-fuzz `engines` target under libFuzzer for 20 seconds, seeded from `corpus/litmus`:
//! the engine differential must run clean. 20 s (60 s before issue 33) still replays every seed
//! of `corpus/litmus` (libFuzzer reads the whole seed corpus before it mutates, and the run
//! fails on the first input the differential rejects) and then mutates from them: the pipeline
//! is proven, and longer runs are the campaigns' job (`fuzz/campaigns`). Needs a nightly toolchain and cargo-fuzz (`.ci/run`
//! installs cargo-fuzz when it is missing); without them the trial is *ignored* with the reason
//! (a libtest-mimic trial of `tests/oracles.rs`, since libtest has no run-time skip). (The same
//! check runs on stable in `model/tests/fuzz_differential.rs`.)

use libtest_mimic::{Completion, Trial};
use std::path::PathBuf;
use std::process::Command;

/// A `cargo +nightly` command with the variables of the enclosing `cargo test` removed, so the
/// fuzz crate builds with its own toolchain, flags and target directory.
fn nightly_cargo() -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg("+nightly");
    for var in [
        "RUSTUP_TOOLCHAIN",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO",
        "RUSTC",
        "RUSTC_WRAPPER",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn cargo_fuzz_available() -> bool {
    nightly_cargo()
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// How the smoke run builds the target: `cargo fuzz --dev` (debug assertions and overflow checks
/// on) at opt-level 1 without debug information. The smoke run proves the pipeline — the target
/// builds with libFuzzer's instrumentation, replays every `corpus/litmus` seed and mutates from
/// them without a finding — not throughput, which the campaigns (`fuzz/campaigns`, default
/// release builds) provide. Measured on 2 cores (2026-11-28): the release build cargo-fuzz makes
/// by default (16 codegen units) takes 6.0 CPU-minutes, this one 3.8 (opt-level 0: 2.6, but
/// libFuzzer then executes 20 times fewer inputs, too few to be sure the seeds are replayed within
/// the run). `.ci/run` starts the same build in the background, so these must match it.
const BUILD_FLAGS: &[&str] = &["-s", "none", "--no-trace-compares", "--dev"];

/// The profile settings of [`BUILD_FLAGS`], as cargo's environment overrides.
const BUILD_ENV: &[(&str, &str)] = &[
    ("CARGO_PROFILE_DEV_OPT_LEVEL", "1"),
    ("CARGO_PROFILE_DEV_DEBUG", "false"),
];

/// Why the smoke run did not happen.
struct Skip(&'static str);

/// The smoke run as one trial, ignored with the reason when cargo-fuzz or the fuzz crate's
/// dependencies are missing.
pub fn trials() -> Vec<Trial> {
    vec![Trial::ignorable_test(
        "fuzz_smoke::engines_target_runs_clean_under_libfuzzer",
        || match engines_target_runs_clean_under_libfuzzer() {
            Ok(()) => Ok(Completion::Completed),
            Err(Skip(why)) => Ok(Completion::ignored_with(why)),
        },
    )]
}

fn engines_target_runs_clean_under_libfuzzer() -> Result<(), Skip> {
    if !cargo_fuzz_available() {
        return Err(Skip(
            "no nightly toolchain with cargo-fuzz (`cargo install cargo-fuzz --locked`)",
        ));
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // Build first, offline: a machine without the fuzz crate's dependencies in its cargo cache
    // skips (there is nothing to fetch them from in CI); any other build failure is ours.
    let build = nightly_cargo()
        .current_dir(repo.join("fuzz"))
        .env("CARGO_NET_OFFLINE", "true")
        .envs(BUILD_ENV.iter().copied())
        .args(["fuzz", "build"])
        .args(BUILD_FLAGS)
        .arg("engines")
        .output()
        .expect("run cargo fuzz build");
    if !build.status.success() {
        let err = String::from_utf8_lossy(&build.stderr);
        let offline = [
            "offline",
            "failed to download",
            "no matching package",
            "failed to get",
        ];
        if offline.iter().any(|hint| err.contains(hint)) {
            return Err(Skip(
                "the fuzz crate's dependencies are not available offline (`cargo fetch` in fuzz/)",
            ));
        }
        panic!("the fuzz crate does not build:\n{err}");
    }
    let corpus = std::env::temp_dir().join(format!("scopecheck-fuzz-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&corpus).unwrap();
    let out = nightly_cargo()
        .current_dir(repo.join("fuzz"))
        .env("CARGO_NET_OFFLINE", "true")
        .envs(BUILD_ENV.iter().copied())
        .args(["fuzz", "run"])
        .args(BUILD_FLAGS)
        .arg("engines")
        .arg(&corpus)
        .arg(repo.join("corpus/litmus"))
        .args([
            "--",
            "-max_total_time=20",
            "-seed=1",
            "-print_final_stats=1",
        ])
        .output()
        .expect("run cargo fuzz");
    let _ = std::fs::remove_dir_all(&corpus);
    let log = String::from_utf8_lossy(&out.stderr);
    for line in log.lines().filter(|l| {
        l.starts_with("stat::")
            || l.starts_with("engines:")
            || l.contains("DONE")
            || l.contains("INITED cov:")
    }) {
        println!("{line}");
    }
    assert!(
        out.status.success(),
        "the engines target failed under libFuzzer:\n{}",
        log.lines()
            .rev()
            .take(80)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        log.contains("stat::number_of_executed_units"),
        "libFuzzer printed no final stats:\n{log}"
    );
    // `#N\tINITED cov: ...`: libFuzzer replayed the whole seed corpus before the time ran out.
    assert!(
        log.contains("INITED cov:"),
        "libFuzzer did not finish replaying corpus/litmus:\n{log}"
    );
    Ok(())
}
