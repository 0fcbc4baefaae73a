//! The CUDA corpus (`corpus/cuda/MANIFEST.csv`) through the `scopecheck kernel` binary: every
//! row's committed `.ptx` always, and its `.cu` through NVRTC when NVRTC is found (a visible skip
//! line otherwise; rows of PTX from other compilers have no `.cu`). Each run must exit as the row
//! says (0 pass, 1 a failure) with the row's failure kind in its `--json` report, a `pass` row
//! without bounding flags must be verified complete (every execution explored), and a failure's
//! trace must name a line of the source (the `.cu`, or the file of the PTX's `.file`).
//! Without NVRTC, `scopecheck kernel FILE.cu` must say in one line how to get it, exit 2.
//!
//! libtest-mimic trials of `tests/oracles.rs` (one per file), so that the `.cu` runs are
//! *ignored* with the reason without NVRTC, never passed: libtest has no run-time skip.

#[path = "../src/cuda_corpus.rs"]
#[allow(dead_code, unused_imports)]
mod manifest;

use libtest_mimic::{Completion, Failed, Trial};
use manifest::{Expected, Row};
use scopecheck_gpu::nvrtc::{Search, Toolkit};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
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
    let run = manifest::run(exe(), file, &row.flags, LIMIT).map_err(|e| e.to_string())?;
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

/// One trial per row's `.ptx` and per `.cu` (ignored, with NVRTC's absence as the reason, when
/// NVRTC is not found), and the missing-NVRTC message (ignored where the loader finds NVRTC).
pub fn trials() -> Vec<Trial> {
    let manifest = root().join("corpus/cuda/MANIFEST.csv");
    let (rows, errors) = manifest::read_manifest(&manifest).unwrap_or_else(|e| panic!("{e}"));
    assert!(errors.is_empty(), "{errors:#?}");
    let nvrtc = Toolkit::find(&Search::from_env()).map_err(|e| e.to_string());
    let mut trials = Vec::new();
    for row in rows {
        let row = Arc::new(row);
        let ptx = row.ptx();
        let r = Arc::clone(&row);
        trials.push(Trial::test(
            format!("cuda_corpus::{}", ptx.display()),
            move || check(&r, &ptx).map_err(Failed::from),
        ));
        if let Some(cu) = row.cu().map(Path::to_path_buf) {
            let name = format!("cuda_corpus::{}", cu.display());
            let nvrtc = nvrtc.clone();
            let r = Arc::clone(&row);
            trials.push(Trial::ignorable_test(name, move || match nvrtc {
                Ok(_) => check(&r, &cu)
                    .map(|()| Completion::Completed)
                    .map_err(Failed::from),
                Err(e) => Ok(Completion::ignored_with(e)),
            }));
        }
    }
    trials.push(Trial::ignorable_test(
        "cuda_corpus::missing_nvrtc_is_one_line_exit_2",
        || {
            // Only meaningful where the loader itself cannot find NVRTC.
            let loader_only = Search {
                loader_path: true,
                ..Search::default()
            };
            if Toolkit::find(&loader_only).is_ok() {
                return Ok(Completion::ignored_with("NVRTC is on the loader path"));
            }
            missing_nvrtc_is_one_line_exit_2()
                .map(|()| Completion::Completed)
                .map_err(Failed::from)
        },
    ));
    trials
}
