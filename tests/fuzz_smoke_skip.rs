//! The libFuzzer smoke run (`tests/fuzz_smoke.rs`) on a machine without cargo-fuzz is an
//! *ignored* trial in the summary CI reads, never `ok`: its test binary (`tests/oracles.rs`) is
//! run with a `PATH` that holds no `cargo`.

use std::path::PathBuf;
use std::process::Command;

/// The `oracles` test binary of this build, which holds the smoke run (built by cargo first when
/// this test ran alone),
/// found through cargo's JSON messages, as trybuild-style tests do.
fn fuzz_smoke_binary() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "test",
            "--release",
            "--no-run",
            "--test",
            "oracles",
            "--message-format=json",
        ])
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = String::from_utf8_lossy(&out.stdout);
    json.lines()
        .filter(|l| l.contains("\"name\":\"oracles\""))
        .find_map(|l| {
            let at = l.find("\"executable\":\"")? + "\"executable\":\"".len();
            let end = l[at..].find('"')?;
            Some(PathBuf::from(&l[at..at + end]))
        })
        .expect("cargo names the oracles executable")
}

#[test]
fn without_cargo_fuzz_the_smoke_run_is_reported_skipped() {
    let empty = std::env::temp_dir().join(format!("scopecheck-no-cargo-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(fuzz_smoke_binary())
        .args(["fuzz_smoke::", "--test-threads=1"])
        .env("PATH", &empty)
        .output()
        .expect("run fuzz_smoke");
    let text = String::from_utf8_lossy(&out.stdout);
    std::fs::remove_dir_all(&empty).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("0 passed; 0 failed; 1 ignored"), "{text}");
    let trial =
        "test fuzz_smoke::engines_target_runs_clean_under_libfuzzer ... ignored (no nightly";
    assert!(text.contains(trial), "{text}");
}
