//! `scopecheck fuzz`: the engine differential from the command line.

use std::process::Command;

fn scopecheck(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .output()
        .expect("run scopecheck");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn fuzz_checks_programs_and_reports_progress() {
    let dir = std::env::temp_dir().join(format!("scopecheck-fuzz-cli-{}", std::process::id()));
    let (code, stdout, stderr) = scopecheck(&[
        "fuzz",
        "--seconds",
        "120",
        "--programs",
        "25",
        "--seed",
        "0",
        "--save",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("seeds from 0"), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("25 programs checked,") && last.contains("exec/s, 0 findings"),
        "{stderr}"
    );
    assert!(!dir.exists(), "no finding, so nothing saved");
}

#[test]
fn fuzz_rejects_bad_arguments() {
    let (code, _, stderr) = scopecheck(&["fuzz", "--seconds", "soon"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--seconds"), "{stderr}");
}

#[test]
fn fuzz_refuses_impossible_arguments() {
    for args in [
        ["fuzz", "--max-events", "0"],
        ["fuzz", "--max-events", "1000"],
        ["fuzz", "--seconds", "0"],
        ["fuzz", "--jobs", "0"],
        ["fuzz", "--programs", "0"],
    ] {
        let (code, stdout, stderr) = scopecheck(&args);
        assert_eq!(code, 2, "{args:?} accepted: {stdout}{stderr}");
        assert!(stderr.contains(args[1]), "{args:?}: {stderr}");
    }
}

#[test]
fn fuzz_jobs_runs_that_many_workers() {
    let (code, stdout, stderr) = scopecheck(&[
        "fuzz",
        "--jobs",
        "3",
        "--programs",
        "30",
        "--seed",
        "0",
        "--seconds",
        "120",
    ]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("3 workers"), "{stderr}");
    // Each worker takes every third seed, so each checks exactly ten of the thirty programs.
    assert!(
        stderr
            .lines()
            .any(|l| l == "3 workers, programs per worker: 10 10 10"),
        "{stderr}"
    );
}

#[test]
fn fuzz_gpu_writes_programs_the_harness_runs() {
    let dir = std::env::temp_dir().join(format!("scopecheck-fuzz-gpu-{}", std::process::id()));
    let (code, stdout, stderr) = scopecheck(&[
        "fuzz",
        "--gpu",
        "--programs",
        "300",
        "--seed",
        "0",
        "--save",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        stderr.contains("wrote 300 programs from seed 0"),
        "{stderr}"
    );
    assert!(stderr.contains("0 refused by the harness"), "{stderr}");
    let mut warp_files = 0;
    for seed in 0..300 {
        let path = dir.join(format!("gpu-{seed}.litmus"));
        let text = std::fs::read_to_string(&path).expect("one file per seed");
        let p = scopecheck_model::litmus::parse(&text, &path.display().to_string())
            .unwrap_or_else(|e| panic!("{e}"));
        warp_files += usize::from(p.uses_warps());
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(warp_files > 0, "no program with warp-level instructions");
    assert!(
        stderr.contains(&format!("({warp_files} with warp-level instructions)")),
        "{stderr}"
    );
    // `--gpu` writes programs: it needs a directory and a count.
    let (code, _, stderr) = scopecheck(&["fuzz", "--gpu", "--programs", "3"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn fuzz_json_is_one_object_with_stable_fields() {
    let dir = std::env::temp_dir().join(format!("scopecheck-fuzz-json-{}", std::process::id()));
    let (code, stdout, stderr) = scopecheck(&[
        "fuzz",
        "--seconds",
        "120",
        "--programs",
        "10",
        "--seed",
        "0",
        "--json",
        "--save",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let json: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    assert_eq!(json["first_seed"], 0);
    assert_eq!(json["programs_checked"], 10);
    assert_eq!(json["findings"].as_array().map(Vec::len), Some(0));
    assert_eq!(json["interrupted"], false);
    for field in [
        "seconds",
        "workers",
        "incomplete",
        "hopper",
        "bulk_copies",
        "cluster_barriers",
    ] {
        assert!(json[field].is_number(), "{field}: {json}");
    }
}
