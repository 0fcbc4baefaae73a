//! The cargo-fuzz `engines` target under libFuzzer for 60 seconds, seeded from `corpus/litmus`:
//! the engine differential must run clean. Needs a nightly toolchain and cargo-fuzz (`.ci/run`
//! installs cargo-fuzz when it is missing); without them the test is reported as skipped in the
//! closing line `fuzz_smoke: 0 passed, 0 failed, 1 skipped` — a plain `main` (harness = false),
//! since libtest has no run-time skip. (The same check runs on stable in
//! `model/tests/fuzz_differential.rs`.)

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

/// Why the smoke run did not happen.
struct Skip(&'static str);

fn main() -> std::process::ExitCode {
    let name = "engines_target_runs_clean_under_libfuzzer";
    println!("running 1 test");
    let outcome = std::panic::catch_unwind(engines_target_runs_clean_under_libfuzzer);
    let (passed, failed, skipped) = match outcome {
        Ok(Ok(())) => {
            println!("test {name} ... ok");
            (1, 0, 0)
        }
        Ok(Err(Skip(why))) => {
            println!("test {name} ... SKIPPED: {why}");
            (0, 0, 1)
        }
        Err(_) => {
            println!("test {name} ... FAILED");
            (0, 1, 0)
        }
    };
    println!();
    println!("fuzz_smoke: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
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
        .args([
            "fuzz",
            "build",
            "-s",
            "none",
            "--no-trace-compares",
            "engines",
        ])
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
        .args([
            "fuzz",
            "run",
            "-s",
            "none",
            "--no-trace-compares",
            "engines",
        ])
        .arg(&corpus)
        .arg(repo.join("corpus/litmus"))
        .args([
            "--",
            "-max_total_time=60",
            "-seed=1",
            "-print_final_stats=1",
        ])
        .output()
        .expect("run cargo fuzz");
    let _ = std::fs::remove_dir_all(&corpus);
    let log = String::from_utf8_lossy(&out.stderr);
    for line in log
        .lines()
        .filter(|l| l.starts_with("stat::") || l.starts_with("engines:") || l.contains("DONE"))
    {
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
    Ok(())
}
