//! Liveness against the shared oracle's verdicts (1 = the program cannot hang, 0 = some
//! consistent execution can hang; an empty cell is no verdict): `oracle/ptx-liveness`, fair
//! scheduling, columns `ptx_v6_0` and `ptx_v7_5` (the model), and `oracle/vulkan-liveness`
//! under `vulkan.cat`, columns the progress models (`fair`, `hsa`, `hsa_obe`, `obe`, `lobe`),
//! loops unrolled 4 times as Dartagnan's verdicts were. Every verdict given is judged and must
//! agree, or be `bounded` (no hang found, but a run the bound cut after a state-changing
//! iteration is not covered: an ignored trial that names it, never a pass) where the oracle says 1;
//! `examples/liveness_timing.rs` measures them (`--only TEST --column NAME`). The
//! oracle lives outside the repository (`$SCOPECHECK_SHARED`, else `../shared`).
//!
//! One libtest-mimic trial per test of a suite (`liveness_oracle::ptx-liveness::NAME`); a
//! suite whose folder is missing is one *ignored* trial that says so, never a pass, and so is a
//! test whose only non-agreeing verdicts are `bounded` (named in the reason).

use libtest_mimic::{Completion, Failed, Trial};
use scopecheck_model::axiomatic::liveness::{liveness, Options, Progress, Verdict};
use scopecheck_model::axiomatic::Model;
use scopecheck_model::expected::{Expected, Row};
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

/// The trials of both suites: one per test, or one ignored trial per missing suite.
pub fn trials(shared: Option<&Path>) -> Vec<Trial> {
    let mut trials = Vec::new();
    for suite in &SUITES {
        let name = format!("liveness_oracle::{}", suite.name);
        let dir = shared.map(|s| s.join("oracle").join(suite.name));
        let Some(dir) = dir.filter(|d| d.join("expected.csv").is_file()) else {
            let why = format!(
                "no oracle/{}/expected.csv in $SCOPECHECK_SHARED or ../shared",
                suite.name
            );
            trials.push(Trial::ignorable_test(name, move || {
                Ok(Completion::ignored_with(why))
            }));
            continue;
        };
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
        for row in table.rows {
            let (dir, columns, unroll) = (dir.clone(), columns.clone(), suite.unroll);
            trials.push(Trial::ignorable_test(
                format!("{name}::{}", row.test),
                move || judge(&dir, &row, &columns, unroll),
            ));
        }
    }
    trials
}

/// Every verdict the oracle gives for one test: a disagreement fails the trial; `bounded` where
/// Dartagnan proves termination ignores it (nothing was proven, nothing contradicted), naming
/// each such verdict.
fn judge(
    dir: &Path,
    row: &Row,
    columns: &[(usize, Model, Progress)],
    unroll: u32,
) -> Result<Completion, Failed> {
    let test = row.test.as_str();
    let program = parse_file(&dir.join("tests").join(test)).map_err(|e| e.to_string())?;
    let mut disagreements = Vec::new();
    let mut bounded = Vec::new();
    for (col, model, progress) in columns {
        let Some(expected) = row.verdicts[*col] else {
            continue;
        };
        let opts = Options {
            unroll,
            progress: *progress,
            // Dartagnan's verdicts are for this bound: `terminates` must be proven at it
            // (every cut run covered), a hang found within it.
            max_unroll: Some(unroll),
        };
        match liveness(&program, model.clone(), &opts) {
            Ok(l) if l.terminates == expected => {}
            // Dartagnan says `terminates`, we say `bounded`: the bound cut a loop after an
            // iteration that changes the state, and the search cannot yet tell whether a
            // consistent execution reaches that cut.
            Ok(l) if expected && l.verdict == Verdict::Bounded => bounded.push(format!(
                "bounded under {model}, {progress} at unroll {}",
                l.unroll
            )),
            Ok(l) => disagreements.push(format!(
                "{test} under {model}, {progress}: expected {}, got {} ({} at unroll {})",
                expected as u8,
                l.terminates as u8,
                l.verdict.name(),
                l.unroll
            )),
            Err(e) => disagreements.push(format!("{test} under {model}, {progress}: error {e}")),
        }
    }
    if !disagreements.is_empty() {
        return Err(disagreements.join("\n").into());
    }
    if !bounded.is_empty() {
        return Ok(Completion::ignored_with(bounded.join("; ")));
    }
    Ok(Completion::Completed)
}
