//! `scopecheck litmus --format herd`: every line has the shape herd7 prints and herdtools'
//! log reader (the lexer `mcompare7` and `msum7` share) expects, test after test.

use crate::herd_shape::{blocks, check_block};
use std::process::Command;

fn herd_log(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["litmus", "--format", "herd"])
        .args(args)
        .output()
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_corpus_test_logs_in_herds_shape() {
    // Every shape directory; `liveness/` holds tests that never finish by design (decided by
    // `--liveness`, not by the final states).
    let mut dirs: Vec<String> = std::fs::read_dir("corpus/litmus")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("liveness") && !p.ends_with("opencl"))
        .map(|p| p.display().to_string())
        .collect();
    dirs.sort();
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let mut log = herd_log(&dirs);
    // The OpenCL tests under their own model.
    log.push_str(&herd_log(&["--model", "opencl", "corpus/litmus/opencl"]));
    let tests = blocks(&log);
    assert!(tests.len() > 150, "{} tests", tests.len());
    for block in &tests {
        let (_, kind, validation, pos, neg) = check_block(block);
        // herd's rule: exists validates with a positive execution, forall with no negative one,
        // ~exists with no execution satisfying the proposition (Positive/Negative swapped).
        let ok = validation.ends_with("Ok");
        let validates = match kind.as_str() {
            "Allowed" => pos > 0,
            "Forbidden" => pos == 0,
            _ => neg == 0,
        };
        assert_eq!(ok, validates, "{block:?}");
    }
}

/// Message passing: the condition's registers, written herd's way, and no memory location (the
/// condition names none).
#[test]
fn states_show_the_condition_locations_herds_way() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("herd-mp");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("MP.litmus");
    std::fs::write(
        &file,
        "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;\n st.weak x, 1        | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak r1, x        ;\n~exists (1:r0 == 1 /\\ 1:r1 == 0)\n",
    )
    .unwrap();
    let log = herd_log(&[file.to_str().unwrap()]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 13, "{log}");
    assert_eq!(lines[12], "", "an empty line ends the test");
    let lines = &lines[..12];
    assert_eq!(
        lines,
        [
            "Test MP Forbidden",
            "States 3",
            "1:r0=0; 1:r1=0;",
            "1:r0=0; 1:r1=1;",
            "1:r0=1; 1:r1=1;",
            "Ok",
            "Witnesses",
            "Positive: 3 Negative: 0",
            "Condition ~exists (1:r0=1 /\\ 1:r1=0)",
            "Observation MP Never 0 3",
            lines[10],
            lines[11],
        ],
        "{log}"
    );
    check_block(lines);
}
