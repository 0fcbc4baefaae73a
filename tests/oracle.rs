//! The axiomatic engine against Dartagnan's verdicts on the 169 shared PTX litmus tests.
//!
//! `expected.csv` gives, per test and model, 1 when the final condition holds and 0 when it does
//! not. Every verdict must agree. The oracle lives outside the repository: `$SCOPECHECK_SHARED` when
//! set, else `<repo>/../shared`; without it the test is reported as skipped.

use scopecheck_model::axiomatic::{analyze, Model, Options};
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
    let csv =
        std::fs::read_to_string(oracle.join("expected.csv")).expect("expected.csv is readable");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let columns: Vec<(usize, Model)> = header
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            Model::from_name(&h.replace("ptx_v", "ptx-v").replace('_', ".")).map(|m| (i, m))
        })
        .collect();
    assert_eq!(
        columns.len(),
        2,
        "expected.csv names both PTX models: {header:?}"
    );

    let mut agree = vec![0usize; columns.len()];
    let mut total = vec![0usize; columns.len()];
    let mut disagreements = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        let path = oracle.join("tests").join(fields[0]);
        let program = parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
        for (k, (col, model)) in columns.iter().enumerate() {
            let expected = match fields.get(*col).map(|s| s.trim()) {
                Some("1") => true,
                Some("0") => false,
                _ => continue,
            };
            total[k] += 1;
            match analyze(&program, model.clone(), &Options::default()) {
                Ok(a) if a.holds == expected => agree[k] += 1,
                Ok(a) => disagreements.push(format!(
                    "{} under {model}: expected {}, got {} ({} states{})",
                    fields[0],
                    expected as u8,
                    a.holds as u8,
                    a.states.len(),
                    if a.bounded { ", bounded" } else { "" }
                )),
                Err(e) => disagreements.push(format!("{} under {model}: error {e}", fields[0])),
            }
        }
    }
    for (k, (_, model)) in columns.iter().enumerate() {
        println!("oracle {model}: {}/{} verdicts agree", agree[k], total[k]);
    }
    for d in &disagreements {
        println!("DISAGREE {d}");
    }
    let (agreed, total): (usize, usize) = (agree.iter().sum(), total.iter().sum());
    println!("oracle: {agreed} passed, {} failed", total - agreed);
    if !disagreements.is_empty() {
        std::process::exit(1);
    }
}
