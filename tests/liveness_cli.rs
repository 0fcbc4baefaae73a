//! `scopecheck litmus --liveness` end to end: verdict words, JSON, Graphviz witness, bad flags.

use std::process::{Command, Output};

fn scopecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

const WEAK: &str = "corpus/litmus/liveness/spin-weak-flag-overwritten.litmus";
const LATER: &str = "corpus/litmus/liveness/spin-flag-set-later-block.litmus";

#[test]
fn text_names_the_hanging_thread_the_loop_and_the_repeating_iteration() {
    let out = scopecheck(&["litmus", "--liveness", WEAK]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Liveness: can hang"), "{text}");
    assert!(text.contains("Threads: P0 spins, P1 done"), "{text}");
    assert!(
        text.contains(
            "P0 spins forever in the loop closed at 12:2: ld.weak r0, f; bne r0, 2, LC00"
        ),
        "{text}"
    );
    assert!(text.contains("repeats forever: e"), "{text}");
    let fair = String::from_utf8(scopecheck(&["litmus", "--liveness", LATER]).stdout).unwrap();
    assert!(fair.contains("Liveness: terminates"), "{fair}");
}

#[test]
fn json_carries_terminates_and_the_witness_per_progress_model() {
    for (progress, terminates) in [("fair", true), ("obe", false), ("lobe", false)] {
        let out = scopecheck(&[
            "litmus",
            "--liveness",
            "--progress",
            progress,
            "--json",
            LATER,
        ]);
        assert_eq!(out.status.code(), Some(0));
        let line = String::from_utf8(out.stdout).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
        assert_eq!(v["terminates"], terminates, "{line}");
        assert_eq!(v["progress"], progress);
        assert_eq!(v["hang"].is_object(), !terminates, "{line}");
        if !terminates {
            assert_eq!(v["hang"]["fates"], serde_json::json!(["spins", "stopped"]));
        }
    }
}

#[test]
fn dot_marks_the_repeating_iteration() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("liveness-dot");
    let _ = std::fs::remove_dir_all(&dir);
    let out = scopecheck(&["litmus", "--liveness", "--dot", dir.to_str().unwrap(), WEAK]);
    assert_eq!(out.status.code(), Some(0));
    let dot = std::fs::read_to_string(dir.join("spin-weak-flag-overwritten.dot")).unwrap();
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.contains("color=red, penwidth=2"), "{dot}");
    assert!(dot.contains("hang_p0 [shape=note"), "{dot}");
}

#[test]
fn bad_progress_names_and_unroll_zero_exit_2() {
    let out = scopecheck(&["litmus", "--liveness", "--progress", "unfair", WEAK]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown progress model `unfair`"));
    let out = scopecheck(&["litmus", "--progress", "obe", WEAK]);
    assert_eq!(out.status.code(), Some(2), "--progress needs --liveness");
    let out = scopecheck(&["litmus", "--liveness", "--unroll", "0", WEAK]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("spin-weak-flag-overwritten.litmus:"), "{err}");
    assert!(err.contains("--unroll 1"), "{err}");
}
