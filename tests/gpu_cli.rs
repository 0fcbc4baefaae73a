//! `scopecheck gpu` end to end: without a GPU it says so in one line and exits 0; with one it
//! prints a histogram.

use std::process::Command;

#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
fn scopecheck(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("scopecheck runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_on_a_file_runs_or_says_there_is_no_gpu() {
    let (ok, stdout, stderr) = scopecheck(&[
        "gpu",
        "corpus/gpu-shapes/MP-relaxed-gpu.litmus",
        "--iterations",
        "2",
        "--model",
        "none",
    ]);
    if stdout.starts_with("scopecheck gpu: no GPU") {
        eprintln!("SKIP (no GPU here): {}", stdout.trim());
        assert!(ok, "no GPU must exit 0: {stdout}{stderr}");
        assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
        assert!(stdout.contains("skipped 1 test(s)"), "{stdout}");
    } else {
        assert!(ok, "{stdout}{stderr}");
        assert!(stdout.contains("== MP-relaxed-gpu"), "{stdout}");
        assert!(
            stdout.contains("P1:r0=1 P1:r1=1"),
            "the SC outcome shows: {stdout}"
        );
    }
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_reports_parse_errors_with_a_position() {
    let dir = std::env::temp_dir().join(format!("scopecheck-gpu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.litmus");
    std::fs::write(
        &bad,
        "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.bogus x, 1 ;\nexists (x == 1)\n",
    )
    .unwrap();
    let (ok, _stdout, stderr) = scopecheck(&["gpu", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("bad.litmus:4:"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "gpu")]
#[test]
fn emit_writes_the_harness_without_a_gpu() {
    let dir = std::env::temp_dir().join(format!("scopecheck-gpu-emit-{}", std::process::id()));
    let (ok, stdout, stderr) = scopecheck(&[
        "gpu",
        "corpus/gpu-shapes/MP-rel-acq-gpu.litmus",
        "--emit",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}{stderr}");
    let cu = std::fs::read_to_string(dir.join("MP-rel-acq-gpu.cu")).unwrap();
    assert!(cu.contains("st.release.gpu.global.u32"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_refuses_impossible_arguments() {
    let shape = "corpus/gpu-shapes/MP-relaxed-gpu.litmus";
    for (flag, value) in [
        ("--instances-log2", "99"),
        ("--per-block-log2", "11"),
        ("--iterations", "0"),
        ("--stride", "0"),
        ("--scratch-lines-log2", "40"),
        ("--watchdog", "0"),
        ("--budget", "0"),
        ("--tune", "0"),
        ("--tune-budget", "0"),
        ("--confidence", "1"),
        ("--confidence", "0"),
        ("--devices", "x"),
    ] {
        let (ok, stdout, stderr) = scopecheck(&["gpu", shape, flag, value]);
        assert!(!ok, "{flag} {value} accepted: {stdout}");
        assert!(stdout.is_empty(), "{flag} {value}: {stdout}");
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
    }
}

#[cfg(feature = "gpu")]
#[test]
fn emit_counts_the_async_corpus_refusals_with_their_reason() {
    let dir = std::env::temp_dir().join(format!("scopecheck-gpu-async-{}", std::process::id()));
    let (ok, stdout, stderr) = scopecheck(&[
        "gpu",
        "corpus/litmus/async",
        "corpus/litmus/cp-async",
        "--emit",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}{stderr}");
    // Every program but the one multi-GPU cluster test gets its harness.
    let programs: usize = ["corpus/litmus/async", "corpus/litmus/cp-async"]
        .iter()
        .map(|d| {
            std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(d))
                .unwrap()
                .filter(|e| {
                    let p = e.as_ref().unwrap().path();
                    p.extension().is_some_and(|x| x == "litmus")
                })
                .count()
        })
        .sum();
    assert!(
        stdout.contains(&format!(
            "emit: {} harness(es) written, 1 refused",
            programs - 1
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("  1 refused: cluster placements in a program that spans several GPUs"),
        "{stdout}"
    );
    // A cluster test and a bulk-copy test get their harness.
    let cu = std::fs::read_to_string(dir.join("MP-dsmem-cluster.cu")).unwrap();
    assert!(cu.contains("mapa.shared::cluster.u32"));
    let cu = std::fs::read_to_string(dir.join("TMA-load-wait.cu")).unwrap();
    assert!(cu.contains("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"));
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(feature = "gpu")]
#[test]
fn json_without_a_gpu_records_the_skip() {
    let dir = std::env::temp_dir().join(format!("scopecheck-gpu-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("results.json");
    let (ok, stdout, stderr) = scopecheck(&[
        "gpu",
        "corpus/gpu-shapes/MP-relaxed-gpu.litmus",
        "--iterations",
        "2",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("the JSON is written")).unwrap();
    if stdout.starts_with("scopecheck gpu: no GPU") {
        let skipped = json["skipped"].as_str().unwrap();
        assert!(skipped.starts_with("skipped: no GPU"), "{json}");
        assert_eq!(json["tests"].as_array().unwrap().len(), 1, "{json}");
        assert_eq!(json["model"], "ptx-v7.5");
    } else {
        eprintln!("a GPU is here: the JSON holds its results");
        assert!(json.get("skipped").is_none(), "{json}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(not(feature = "gpu"))]
#[test]
fn a_build_without_gpu_support_says_so_in_one_line() {
    let dir = std::env::temp_dir().join(format!("scopecheck-nogpu-{}", std::process::id()));
    let cu = dir.join("k.cu");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&cu, "__global__ void k() {}\n").unwrap();
    for args in [
        vec![
            "gpu",
            "corpus/gpu-shapes/MP-relaxed-gpu.litmus",
            "--iterations",
            "2",
        ],
        vec![
            "fuzz",
            "--gpu",
            "--programs",
            "1",
            "--save",
            dir.to_str().unwrap(),
        ],
        vec![
            "kernel",
            cu.to_str().unwrap(),
            "--grid",
            "1",
            "--block",
            "1",
        ],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("built without GPU support"),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
