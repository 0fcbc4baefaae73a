//! The CUDA corpus (`corpus/cuda/MANIFEST.csv`) through the `scopecheck kernel` binary: every
//! row's committed `.ptx` always, and its `.cu` through NVRTC when NVRTC is found (a visible skip
//! line otherwise; rows of PTX from other compilers have no `.cu`). Each run must exit as the row
//! says (0 pass, 1 a failure) with the row's failure kind in its `--json` report, a `pass` row
//! without bounding flags must be verified complete (every execution explored), and a failure's
//! trace must name a line of the source (the `.cu`, or the file of the PTX's `.file`).
//! Without NVRTC, `scopecheck kernel FILE.cu` must say in one line how to get it, exit 2.
//!
//! A plain `main` (harness = false) so that the `.cu` runs are reported as *skipped* without
//! NVRTC, never as passed: libtest has no run-time skip.

#[path = "../src/cuda_corpus.rs"]
#[allow(dead_code, unused_imports)]
mod cuda_corpus;

use cuda_corpus::{Expected, Row};
use scopecheck_gpu::nvrtc::{Search, Toolkit};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// One kernel run may take this long before it counts as a failure.
const LIMIT: Duration = Duration::from_secs(300);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_scopecheck"))
}

/// Runs one file of a row; `Err` says how it disagreed.
fn check(row: &Row, file: &Path) -> Result<(), String> {
    let run = cuda_corpus::run(exe(), file, &row.flags, LIMIT).map_err(|e| e.to_string())?;
    run.agrees(&row.expected).map_err(|got| {
        format!(
            "expected {}, got {got}\n--- stdout\n{}--- stderr\n{}",
            row.expected, run.stdout, run.stderr
        )
    })?;
    // A fixed kernel with no bounding flags must be verified for every execution (the DFS
    // explored them all), not merely bounded with nothing found.
    if matches!(row.expected, Expected::Pass) && row.flags.is_empty() {
        let report: serde_json::Value =
            serde_json::from_str(&run.stdout).map_err(|e| format!("--json report: {e}"))?;
        if report["complete"] != serde_json::Value::Bool(true) {
            return Err(format!(
                "a pass row without flags must be verified complete, got: {}",
                run.stdout
            ));
        }
    }
    let source = row.source_name().ok_or("the PTX has no line information")?;
    if matches!(row.expected, Expected::Fail(_)) && !run.names_source_line(&source) {
        return Err(format!(
            "the failure's trace names no line of {source}:\n{}",
            run.stdout
        ));
    }
    Ok(())
}

/// Without NVRTC anywhere, a `.cu` is refused in one line that says how to get NVRTC, exit 2.
fn missing_nvrtc_is_one_line_exit_2() -> Result<(), String> {
    let out = Command::new(exe())
        .args(["kernel", "corpus/cuda/last_block_reduce.cu", "--json"])
        .current_dir(root())
        .env_remove("VIRTUAL_ENV")
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_INCLUDE_PATH")
        .env("PATH", "/nonexistent")
        .env("LD_LIBRARY_PATH", "/nonexistent")
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() != Some(2) {
        return Err(format!("exit {:?}, stderr: {stderr}", out.status.code()));
    }
    if stderr.trim().lines().count() != 1
        || !stderr.contains("pip install nvidia-cuda-nvrtc nvidia-cuda-cccl")
    {
        return Err(format!(
            "expected one line naming the pip packages, got: {stderr}"
        ));
    }
    Ok(())
}

fn main() {
    let manifest = root().join("corpus/cuda/MANIFEST.csv");
    let (rows, errors) = cuda_corpus::read_manifest(&manifest).unwrap_or_else(|e| panic!("{e}"));
    assert!(errors.is_empty(), "{errors:#?}");
    let nvrtc = Toolkit::find(&Search::from_env());
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut record = |name: String, outcome: Result<(), String>| match outcome {
        Ok(()) => {
            println!("test {name} ... ok");
            passed += 1;
        }
        Err(why) => {
            println!("test {name} ... FAILED\n{why}");
            failed += 1;
        }
    };
    for row in &rows {
        let ptx = row.ptx();
        record(ptx.display().to_string(), check(row, &ptx));
        match (row.cu(), &nvrtc) {
            (None, _) => {}
            (Some(cu), Ok(_)) => record(cu.display().to_string(), check(row, cu)),
            (Some(cu), Err(e)) => {
                println!("SKIP {}: {e}", cu.display());
                skipped += 1;
            }
        }
    }
    // Only meaningful where the loader itself cannot find NVRTC.
    let loader_only = Search {
        loader_path: true,
        ..Search::default()
    };
    if Toolkit::find(&loader_only).is_ok() {
        println!("SKIP missing_nvrtc_is_one_line_exit_2: NVRTC is on the loader path");
        skipped += 1;
    } else {
        record(
            "missing_nvrtc_is_one_line_exit_2".to_string(),
            missing_nvrtc_is_one_line_exit_2(),
        );
    }
    println!("cuda_corpus: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}
