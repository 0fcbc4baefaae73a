//! The axiomatic engine against Dartagnan's verdicts on the 169 shared PTX litmus tests.
//!
//! `expected.csv` gives, per test and model, 1 when the final condition holds and 0 when it does
//! not. Every verdict must agree. The oracle lives outside the repository: `$SCOPECHECK_SHARED` when
//! set, else `<repo>/../shared`; without it the test is reported as skipped.
//!
//! Each analysis is also written as herd7's log (`litmus --format herd`) and checked line by
//! line against the shape herd7 prints and herdtools' `mcompare7` reads (`herd_shape`), its
//! `Ok`/`No` being the expected verdict.

mod herd_shape;

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::expected::Expected;
use scopecheck_model::herd;
use scopecheck_model::litmus::parse_file;
use std::path::PathBuf;

fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SCOPECHECK_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    Some(dir).filter(|d| d.join("oracle/ptx/expected.csv").is_file())
}

/// A plain `main` (harness = false) so that a missing oracle is reported as *skipped*, never
/// as passed: libtest has no run-time skip.
fn main() {
    let Some(shared) = shared_dir() else {
        println!("SKIP oracle: no shared/oracle/ptx (set SCOPECHECK_SHARED)");
        println!("oracle: 0 passed, 0 failed, 1 skipped");
        return;
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

    let mut agree = vec![0usize; columns.len()];
    let mut total = vec![0usize; columns.len()];
    let mut disagreements = Vec::new();
    let mut herd_mismatches = Vec::new();
    let mut passed = 0usize;
    for row in &table.rows {
        let test = row.test.as_str();
        let path = oracle.join("tests").join(test);
        let program = parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
        for (k, (col, model)) in columns.iter().enumerate() {
            let Some(expected) = row.verdicts[*col] else {
                continue;
            };
            total[k] += 1;
            let analysis = analyze(&program, model.clone(), &Options::default());
            let herd_ok = match &analysis {
                Ok(a) => herd_log_agrees(&herd::log(&program, a, 0.0, true), expected)
                    .map_err(|e| {
                        herd_mismatches.push(format!("{} under {model}: herd log: {e}", test))
                    })
                    .is_ok(),
                Err(_) => false,
            };
            if herd_ok && analysis.as_ref().is_ok_and(|a| a.holds == expected) {
                passed += 1;
            }
            match analysis {
                Ok(a) if a.holds == expected => agree[k] += 1,
                Ok(a) => disagreements.push(format!(
                    "{} under {model}: expected {}, got {} ({} states{})",
                    test,
                    expected as u8,
                    a.holds as u8,
                    a.states.len(),
                    if a.bounded { ", bounded" } else { "" }
                )),
                Err(e) => disagreements.push(format!("{} under {model}: error {e}", test)),
            }
        }
    }
    for (k, (_, model)) in columns.iter().enumerate() {
        println!("oracle {model}: {}/{} verdicts agree", agree[k], total[k]);
    }
    for d in &disagreements {
        println!("DISAGREE {d}");
    }
    let total: usize = total.iter().sum();
    println!(
        "oracle: herd7-format logs of {}/{total} analyses follow herd7's lines",
        total - herd_mismatches.len()
    );
    for m in &herd_mismatches {
        println!("HERD {m}");
    }
    println!(
        "oracle: {passed} passed, {} failed, 0 skipped",
        total - passed
    );
    if passed < total {
        std::process::exit(1);
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
