//! Liveness against the shared oracle's verdicts (1 = the program cannot hang, 0 = some
//! consistent execution can hang; an empty cell is no verdict): `oracle/ptx-liveness`, fair
//! scheduling, columns `ptx_v6_0` and `ptx_v7_5` (the model), and `oracle/vulkan-liveness`
//! under `vulkan.cat`, columns the progress models (`fair`, `hsa`, `hsa_obe`, `obe`, `lobe`),
//! loops unrolled 4 times as Dartagnan's verdicts were. Every verdict given is judged and must
//! agree, or be `bounded` (no hang found, but a run the bound cut after a state-changing
//! iteration is not covered: counted as skipped and named, never as a pass) where the oracle says 1;
//! `examples/liveness_timing.rs` measures them (`--only TEST --column NAME`). The
//! oracle lives outside the repository
//! (`$SCOPECHECK_SHARED`, else `../shared`); without it the test prints a skip line.

mod common_shared;

use scopecheck_model::axiomatic::liveness::{liveness, Options, Progress, Verdict};
use scopecheck_model::axiomatic::Model;
use scopecheck_model::expected::Expected;
use scopecheck_model::litmus::parse_file;
use std::path::Path;

/// One suite: its folder, how to read a column header, and the unroll bound.
struct Suite {
    name: &'static str,
    column: fn(&str) -> Option<(Model, Progress)>,
    unroll: u32,
}

const SUITES: [Suite; 2] = [
    Suite {
        name: "ptx-liveness",
        column: |h| {
            Model::from_name(&h.replace("ptx_v", "ptx-v").replace('_', "."))
                .map(|m| (m, Progress::Fair))
        },
        unroll: 2,
    },
    Suite {
        name: "vulkan-liveness",
        column: |h| Some((Model::load("vulkan.cat").ok()?, Progress::from_name(h)?)),
        unroll: 4,
    },
];

/// A plain `main` (harness = false) so that a missing oracle is reported as *skipped*, never as
/// passed: libtest has no run-time skip.
fn main() {
    let Some(shared) = common_shared::shared_dir() else {
        println!("SKIP liveness oracle: no shared/oracle (set SCOPECHECK_SHARED)");
        println!(
            "liveness_oracle: 0 passed, 0 failed, {} skipped",
            SUITES.len()
        );
        return;
    };
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for suite in &SUITES {
        let dir = shared.join("oracle").join(suite.name);
        if !dir.join("expected.csv").is_file() {
            println!("SKIP {}: no {}", suite.name, dir.display());
            skipped += 1;
            continue;
        }
        let (agreed, disagreements, bounded) = run(suite, &dir);
        for d in &disagreements {
            println!("DISAGREE {}: {d}", suite.name);
        }
        // Dartagnan says `terminates`, we say `bounded`: the bound cut a loop after an iteration
        // that changes the state, and the search cannot yet tell whether a consistent execution
        // reaches that cut. Not a pass (nothing was proven) and not a wrong verdict: counted
        // as skipped, each named.
        for b in &bounded {
            println!("BOUNDED {}: {b}", suite.name);
        }
        println!(
            "{}: {agreed} of {} verdicts agree, {} bounded where Dartagnan proves termination",
            suite.name,
            agreed + disagreements.len() + bounded.len(),
            bounded.len()
        );
        passed += agreed;
        failed += disagreements.len();
        skipped += bounded.len();
    }
    println!("liveness_oracle: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}

/// Every verdict of one suite: how many agree, and the disagreements.
fn run(suite: &Suite, dir: &Path) -> (usize, Vec<String>, Vec<String>) {
    let table = Expected::read(&dir.join("expected.csv")).unwrap_or_else(|e| panic!("{e}"));
    let columns: Vec<(usize, Model, Progress)> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let (m, p) = (suite.column)(h.trim())
                .unwrap_or_else(|| panic!("{}: unknown column {h:?}", suite.name));
            (i, m, p)
        })
        .collect();
    let mut agreed = 0;
    let mut disagreements = Vec::new();
    let mut bounded = Vec::new();
    for row in &table.rows {
        let test = row.test.as_str();
        let program = parse_file(&dir.join("tests").join(test)).unwrap_or_else(|e| panic!("{e}"));
        for (col, model, progress) in &columns {
            let Some(expected) = row.verdicts[*col] else {
                continue;
            };
            let opts = Options {
                unroll: suite.unroll,
                progress: *progress,
                // Dartagnan's verdicts are for this bound: `terminates` must be proven at it
                // (every cut run covered), a hang found within it.
                max_unroll: Some(suite.unroll),
            };
            match liveness(&program, model.clone(), &opts) {
                Ok(l) if l.terminates == expected => agreed += 1,
                Ok(l) if expected && l.verdict == Verdict::Bounded => bounded.push(format!(
                    "{} under {model}, {progress}: bounded at unroll {}",
                    test, l.unroll
                )),
                Ok(l) => disagreements.push(format!(
                    "{} under {model}, {progress}: expected {}, got {} ({} at unroll {})",
                    test,
                    expected as u8,
                    l.terminates as u8,
                    l.verdict.name(),
                    l.unroll
                )),
                Err(e) => {
                    disagreements.push(format!("{} under {model}, {progress}: error {e}", test))
                }
            }
        }
    }
    (agreed, disagreements, bounded)
}
