//! The axiomatic engine against Dartagnan's verdicts on the 169 shared PTX litmus tests.
//!
//! `expected.csv` gives, per test and model, 1 when the final condition holds and 0 when it does
//! not. Every verdict must agree. The oracle lives outside the repository: `$SCOPECHECK_SHARED` when
//! set, else `<repo>/../shared`; without it the check is one *ignored* trial that says so.
//! With it, one libtest-mimic trial per test (`oracle::NAME`) judges every column it has.
//!
//! Each analysis is also written as herd7's log (`litmus --format herd`) and checked line by
//! line against the shape herd7 prints and herdtools' `mcompare7` reads (`herd_shape`), its
//! `Ok`/`No` being the expected verdict.

use crate::herd_shape;

use libtest_mimic::{Completion, Failed, Trial};
use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::expected::Expected;
use scopecheck_model::expected::Row;
use scopecheck_model::herd;
use scopecheck_model::litmus::parse_file;
use std::path::{Path, PathBuf};

/// The shared data folder when it holds the PTX oracle.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SCOPECHECK_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    Some(dir).filter(|d| d.join("oracle/ptx/expected.csv").is_file())
}

/// One trial per test of `oracle/ptx`, or one ignored trial when there is no oracle.
pub fn trials(shared: Option<&Path>) -> Vec<Trial> {
    let Some(shared) = shared else {
        return vec![Trial::ignorable_test("oracle", || {
            Ok(Completion::ignored_with(
                "no oracle/ptx/expected.csv in $SCOPECHECK_SHARED or ../shared",
            ))
        })];
    };
    let oracle = shared.join("oracle/ptx");
    let table = Expected::read(&oracle.join("expected.csv")).unwrap_or_else(|e| panic!("{e}"));
    let columns: Vec<(usize, Model)> = table
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            Model::from_name(&h.replace("ptx_v", "ptx-v").replace('_', ".")).map(|m| (i, m))
        })
        .collect();
    assert_eq!(
        columns.len(),
        2,
        "expected.csv names both PTX models: {:?}",
        table.columns
    );
    table
        .rows
        .into_iter()
        .map(|row| {
            let (path, columns) = (oracle.join("tests").join(&row.test), columns.clone());
            Trial::test(format!("oracle::{}", row.test), move || {
                judge(&path, &row, &columns)
            })
        })
        .collect()
}

/// Every verdict of one test: the analysis under each model with a verdict must agree with it,
/// and its herd7-format log (`litmus --format herd`) must follow herd7's lines and say `Ok`
/// exactly when the condition is expected to hold.
fn judge(path: &Path, row: &Row, columns: &[(usize, Model)]) -> Result<(), Failed> {
    let test = row.test.as_str();
    let program = parse_file(path).map_err(|e| e.to_string())?;
    let mut wrong = Vec::new();
    for (col, model) in columns {
        let Some(expected) = row.verdicts[*col] else {
            continue;
        };
        match analyze(&program, model.clone(), &Options::default()) {
            Ok(a) if a.holds == expected => {
                if let Err(e) = herd_log_agrees(&herd::log(&program, &a, 0.0, true), expected) {
                    wrong.push(format!("{test} under {model}: herd log: {e}"));
                }
            }
            Ok(a) => wrong.push(format!(
                "{test} under {model}: expected {}, got {} ({} states{})",
                expected as u8,
                a.holds as u8,
                a.states.len(),
                if a.bounded { ", bounded" } else { "" }
            )),
            Err(e) => wrong.push(format!("{test} under {model}: error {e}")),
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

/// One analysis's herd log has herd7's shape and says `Ok` exactly when the oracle expects the
/// condition to hold (`holds` is the condition's validation, which `Ok` reports).
fn herd_log_agrees(log: &str, expected: bool) -> Result<(), String> {
    let blocks = herd_shape::blocks(log);
    if blocks.len() != 1 {
        return Err(format!("{} blocks in\n{log}", blocks.len()));
    }
    let lines = blocks[0].clone();
    let checked = std::panic::catch_unwind(move || herd_shape::check_block(&lines))
        .map_err(|_| format!("not herd's shape:\n{log}"))?;
    let ok = checked.2.ends_with("Ok");
    if ok != expected {
        return Err(format!(
            "says {} for expected {}:\n{log}",
            checked.2, expected as u8
        ));
    }
    Ok(())
}
