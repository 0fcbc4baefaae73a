//! The corpus: `scopecheck check corpus/` (the README's main job) must pass. The cuTile guide's
//! tile kernels (producer/consumer, double buffering, …) are tested here, through the corpus.
//! Every bug model under every engine that fits it runs in one place only,
//! `check_cli::every_engine_rows_carry_their_own_time` (`check --every-engine corpus/bugs` must
//! exit 0: every engine's verdict agrees with the case's expectation).

use std::process::Command;

#[test]
fn the_main_job_passes_on_the_shipped_corpus() {
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["check", "corpus"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "scopecheck check corpus failed");
    assert!(stdout.contains("0 failed"), "{stdout}");
}
