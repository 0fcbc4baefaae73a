//! The Vulkan suite of the shared oracle (Dat3M's Vulkan litmus tests with Dartagnan's
//! verdicts, `shared/oracle/vulkan`): every test parses in the Vulkan dialect and its printed
//! form parses back to the same program; `vulkan.cat` and `vulkan-nochains.cat` decide each
//! test's condition (columns `vulkan`, `vulkan_nochains`) and whether some consistent
//! execution admitted by its filter has a data race (columns `vulkan_dr`,
//! `vulkan_dr_nochains`: 1 = race-free). Run from `shared_oracle.rs`, which reports it as
//! skipped without the oracle.

use super::oracle_suite::{agreement, assert_every_verdict, parse_and_round_trip, Column};
use std::path::Path;

const COLUMNS: [Column; 4] = [
    ("vulkan", "vulkan", false),
    ("vulkan_nochains", "vulkan-nochains", false),
    ("vulkan_dr", "vulkan", true),
    ("vulkan_dr_nochains", "vulkan-nochains", true),
];

/// Every Vulkan test of the oracle parses, and printing it gives text that parses back to it.
pub fn vulkan_tests_parse_and_round_trip(shared: &Path) {
    let n = parse_and_round_trip(shared, "vulkan", |p| {
        p.dialect() == scopecheck_model::litmus::vulkan::DIALECT
    });
    assert!(n >= 100, "found only {n} Vulkan tests");
    println!("{n} Vulkan tests parse and round-trip");
}

/// `vulkan.cat` and `vulkan-nochains.cat` against Dartagnan's verdicts, column by column.
pub fn vulkan_models_agree_with_dartagnan(shared: &Path) {
    assert_every_verdict(agreement(shared, "vulkan", &COLUMNS));
}
