//! The corpus: `scopecheck check corpus/` (the README's main job) must pass, and every bug model
//! must show its expected verdict under every engine that fits it. The cuTile guide's tile
//! kernels (producer/consumer, double buffering, …) are tested here, through the corpus.

#[path = "../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod bugs;

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

#[test]
fn every_bug_model_has_its_verdict_under_every_engine() {
    let mut disagreements = Vec::new();
    for case in bugs::all() {
        for report in case.run_every_engine() {
            println!(
                "{}: {} under {}",
                case.name,
                case.got_words(&report),
                report.engine
            );
            assert!(report.executions > 0, "{report}");
            if !case.agrees(&report) {
                disagreements.push(format!(
                    "{} under {}: expected {}\n{report}",
                    case.name,
                    report.engine,
                    case.expected_words()
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n\n"));
}
