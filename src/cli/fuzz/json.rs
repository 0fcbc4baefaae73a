//! The JSON object `scopecheck fuzz --json` prints.

use serde::Serialize;
use std::path::PathBuf;

/// One finding in `fuzz --json`.
#[derive(Serialize)]
pub(super) struct JsonFinding {
    pub(super) seed: u64,
    pub(super) finding: String,
    pub(super) saved: PathBuf,
    pub(super) reproduce: String,
    pub(super) shrunk: Option<String>,
}

/// `fuzz --json` (field names documented at [`super::Args::json`]).
#[derive(Serialize)]
pub(super) struct JsonSummary {
    pub(super) first_seed: u64,
    pub(super) seconds: f64,
    pub(super) workers: u64,
    pub(super) programs_checked: u64,
    pub(super) incomplete: u64,
    pub(super) hopper: u64,
    pub(super) bulk_copies: u64,
    pub(super) cluster_barriers: u64,
    pub(super) findings: Vec<JsonFinding>,
    pub(super) interrupted: bool,
}
