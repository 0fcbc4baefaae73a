//! `--emit DIR`: the generated CUDA harness of each test, written as a file, no GPU used.

use super::options::{Log, Test};
use crate::{codegen, record};
use std::collections::BTreeMap;
use std::path::Path;

/// What `--emit` did.
#[derive(Debug, Default)]
pub struct EmitSummary {
    /// Harnesses written.
    pub written: usize,
    /// Files that could not be written.
    pub failed: usize,
    /// Each reason the harness generator gave, with how many programs it refused for it.
    pub refused: BTreeMap<String, usize>,
}

/// Writes `DIR/<slug of the test's name>.cu` for every test the harness can express, saying each
/// file written or refused; `Err` when `dir` cannot be created.
pub fn emit(tests: &[Test], dir: &Path, log: &dyn Log) -> Result<EmitSummary, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut summary = EmitSummary::default();
    for t in tests {
        match codegen::generate(&t.program) {
            Ok(h) => {
                let path = dir.join(format!("{}.cu", record::slug(&t.program.name)));
                if let Err(e) = std::fs::write(&path, &h.source) {
                    log.err(&format!("{}: {e}", path.display()));
                    summary.failed += 1;
                } else {
                    summary.written += 1;
                    log.out(&format!("{}: wrote {}\n", t.file.display(), path.display()));
                }
            }
            Err(u) => {
                log.out(&format!("{}: {u}\n", t.file.display()));
                *summary.refused.entry(u.0.clone()).or_insert(0) += 1;
            }
        }
    }
    Ok(summary)
}
