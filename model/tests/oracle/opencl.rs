//! The OpenCL suite of the shared oracle (Dat3M's OpenCL litmus tests in herd's OpenCL C
//! dialect with Dartagnan's verdicts, `shared/oracle/opencl`): every test parses as OpenCL and
//! its printed form parses back to the same program; `opencl.cat` decides each test's condition
//! (column `opencl`) and whether some consistent execution has a data race (column
//! `opencl_dr`: 1 = race-free). Run from `shared_oracle.rs`, which reports it as skipped
//! without the oracle.

use super::oracle_suite::{agreement, assert_every_verdict, parse_and_round_trip, Column};
use std::path::Path;

const COLUMNS: [Column; 2] = [("opencl", "opencl", false), ("opencl_dr", "opencl", true)];

/// Every OpenCL test of the oracle parses, and printing it gives text that parses back to it.
pub fn opencl_tests_parse_and_round_trip(shared: &Path) {
    let n = parse_and_round_trip(shared, "opencl", |p| {
        scopecheck_model::litmus::opencl::test_of(p).is_some()
    });
    assert!(n >= 100, "found only {n} OpenCL tests");
    println!("{n} OpenCL tests parse and round-trip");
}

/// `opencl.cat` against Dartagnan's verdicts, column by column.
pub fn opencl_model_agrees_with_dartagnan(shared: &Path) {
    assert_every_verdict(agreement(shared, "opencl", &COLUMNS));
}
