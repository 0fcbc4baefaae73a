//! The PTX suite of the shared oracle (Dat3M's PTX litmus tests with Dartagnan's verdicts,
//! `shared/oracle/ptx`): `ptx-v7.5.cat` and `ptx-v6.0.cat` decide each test's condition as
//! Dartagnan does (columns `ptx_v7_5` and `ptx_v6_0`), searching only for a state that decides
//! it (as `--condition-only` does; `tests/oracle.rs` checks the full analysis and its herd7
//! log). Run from `shared_oracle.rs`, which reports it as skipped without the oracle.

use super::oracle_suite::{agreement, assert_every_verdict, Column};
use std::path::Path;

const COLUMNS: [Column; 2] = [
    ("ptx_v7_5", "ptx-v7.5", false),
    ("ptx_v6_0", "ptx-v6.0", false),
];

/// The PTX models against Dartagnan's verdicts, column by column.
pub fn ptx_models_agree_with_dartagnan(shared: &Path) {
    assert_every_verdict(agreement(shared, "ptx", &COLUMNS));
}
