//! Liveness against the shared oracle's verdicts: `oracle/ptx-liveness` (1 = the program
//! cannot hang under fair scheduling, 0 = some consistent execution can hang), under both PTX
//! models. Every verdict must agree. The oracle lives outside the repository
//! (`$SCOPECHECK_SHARED`, else `../shared`); without it the test prints a skip line.

mod common_shared;

use scopecheck_model::axiomatic::liveness::{liveness, Options};
use scopecheck_model::axiomatic::Model;
use scopecheck_model::litmus::parse_file;

/// A plain `main` (harness = false) so that a missing oracle is reported as *skipped*, never as
/// passed: libtest has no run-time skip.
fn main() {
    let Some(suite) = common_shared::shared_dir()
        .map(|d| d.join("oracle/ptx-liveness"))
        .filter(|d| d.join("expected.csv").is_file())
    else {
        println!("SKIP liveness oracle: no shared/oracle/ptx-liveness (set SCOPECHECK_SHARED)");
        println!("liveness_oracle: 0 passed, 0 failed, 1 skipped");
        return;
    };
    let csv = std::fs::read_to_string(suite.join("expected.csv")).expect("a readable expected.csv");
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
    let (mut agreed, mut hangs) = (0usize, 0usize);
    let mut disagreements = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let program =
            parse_file(&suite.join("tests").join(fields[0])).unwrap_or_else(|e| panic!("{e}"));
        for &(col, ref model) in &columns {
            let expected = match fields.get(col) {
                Some(&"1") => true,
                Some(&"0") => false,
                _ => continue,
            };
            hangs += usize::from(!expected);
            match liveness(&program, model.clone(), &Options::default()) {
                Ok(l) if l.terminates == expected => agreed += 1,
                Ok(l) => disagreements.push(format!(
                    "{} under {model}: expected {}, got {}",
                    fields[0], expected as u8, l.terminates as u8
                )),
                Err(e) => disagreements.push(format!("{} under {model}: error {e}", fields[0])),
            }
        }
    }
    for d in &disagreements {
        println!("DISAGREE {d}");
    }
    println!(
        "liveness_oracle: {agreed} passed, {} failed, 0 skipped ({hangs} of the verdicts are `can hang`)",
        disagreements.len()
    );
    if !disagreements.is_empty() {
        std::process::exit(1);
    }
}
