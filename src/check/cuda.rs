//! The CUDA kernel corpus (`corpus/cuda/MANIFEST.csv`, read by [`crate::cuda_corpus`]) as
//! `scopecheck check` entries: each row's committed PTX runs through this executable's
//! `scopecheck kernel FILE.ptx --json` at the launch of the kernel's `// scopecheck:` line, and
//! its exit status and failure kind are compared with the row's expectation; a failure's trace
//! must name a line of the source file (the `.cu`).

use super::outcome::{Outcome, Status};
use crate::cuda_corpus::Row;
use std::time::{Duration, Instant};

/// How long one kernel may run before the entry counts as an error (a checker that hangs).
const LIMIT: Duration = Duration::from_secs(600);

/// Runs one row's PTX and compares the verdict with the manifest.
pub fn check(row: &Row) -> Outcome {
    let start = Instant::now();
    let ptx = row.ptx();
    let run = std::env::current_exe()
        .and_then(|exe| crate::cuda_corpus::run(&exe, &ptx, &row.flags, LIMIT));
    let (got, status) = match run {
        Ok(run) => match run.agrees(&row.expected) {
            // A failure must be shown at its source line (the PTX's `.loc`), not only in PTX.
            Ok(()) if run.kind.is_some() && !names_source(&run, row) => (
                format!("{} (its trace names no source line)", run.describe()),
                Status::Mismatch,
            ),
            Ok(()) => (run.describe(), Status::Match),
            Err(got) => (got, Status::Mismatch),
        },
        Err(e) => (format!("cannot run scopecheck kernel: {e}"), Status::Error),
    };
    Outcome {
        entry: ptx.display().to_string(),
        kind: "cuda",
        expected: row.expected.to_string(),
        got,
        status,
        seconds: start.elapsed().as_secs_f64(),
        about: format!("{} ({})", row.reason, row.at),
    }
}

/// Whether the run's report names a line of the row's source file.
fn names_source(run: &crate::cuda_corpus::Run, row: &Row) -> bool {
    row.source_name()
        .is_some_and(|name| run.names_source_line(&name))
}
