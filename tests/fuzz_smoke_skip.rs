//! The libFuzzer smoke run (`tests/fuzz_smoke.rs`) on a machine without cargo-fuzz says
//! *skipped* in the closing line CI reads, never `ok`: its test binary is run with a `PATH` that
//! holds no `cargo`.

use std::path::PathBuf;
use std::process::Command;

/// The `fuzz_smoke` test binary of this build (built by cargo first when this test ran alone),
/// found through cargo's JSON messages, as trybuild-style tests do.
fn fuzz_smoke_binary() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "test",
            "--release",
            "--no-run",
            "--test",
            "fuzz_smoke",
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
        .filter(|l| l.contains("\"name\":\"fuzz_smoke\""))
        .find_map(|l| {
            let at = l.find("\"executable\":\"")? + "\"executable\":\"".len();
            let end = l[at..].find('"')?;
            Some(PathBuf::from(&l[at..at + end]))
        })
        .expect("cargo names the fuzz_smoke executable")
}

#[test]
fn without_cargo_fuzz_the_smoke_run_is_reported_skipped() {
    let empty = std::env::temp_dir().join(format!("scopecheck-no-cargo-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(fuzz_smoke_binary())
        .env("PATH", &empty)
        .output()
        .expect("run fuzz_smoke");
    let text = String::from_utf8_lossy(&out.stdout);
    std::fs::remove_dir_all(&empty).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("fuzz_smoke: 0 passed, 0 failed, 1 skipped"),
        "{text}"
    );
    assert!(text.contains("SKIPPED"), "{text}");
}
