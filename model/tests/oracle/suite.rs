//! A suite of the shared oracle (`shared/oracle/<suite>`: `tests/` and `expected.csv` with
//! Dartagnan's verdicts) checked column by column against the built-in cat models, and every
//! test of it parsed and printed back. Used by `vulkan.rs` and `opencl.rs` beside it (all three are modules of `shared_oracle.rs`).

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::cat::CatModel;
use scopecheck_model::expected::Expected;
use scopecheck_model::litmus::{parse, parse_file, print, Program};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// One column of `expected.csv`: its name, the built-in model deciding it, and whether the
/// verdict is race freedom (else: the final condition holds).
pub type Column = (&'static str, &'static str, bool);

/// Our verdict for one column: the condition holds (decided as `--condition-only` does: the
/// search looks for a state that decides it), or no admitted execution races (every
/// execution looked at). Loops are unrolled as Dartagnan does (a bounded answer is a
/// verdict); a search stopped by its time budget (5 s) has none.
fn verdict(p: &Program, model: &Model, races: bool) -> Result<bool, String> {
    let opts = Options {
        timeout: Some(Duration::from_secs(5)),
        condition_only: !races,
        ..Options::default()
    };
    let a = analyze(p, model.clone(), &opts).map_err(|e| e.to_string())?;
    if a.stopped.is_some() {
        return Err("no verdict: the search ran out of time".into());
    }
    Ok(match races {
        true => a.racy_executions == 0,
        false => a.holds,
    })
}

/// Every test and column with a verdict; returns (column, agreeing, with a verdict) per column
/// and prints each disagreement.
pub fn agreement(shared: &Path, suite: &str, columns: &[Column]) -> Vec<(String, usize, usize)> {
    let dir = shared.join("oracle").join(suite);
    let table = Expected::read(&dir.join("expected.csv")).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for &(column, model_name, races) in columns {
        let col = table
            .column(column)
            .unwrap_or_else(|| panic!("column {column}"));
        let model = Model::Cat(Arc::new(CatModel::builtin(model_name).expect("built in")));
        let (mut agree, mut total) = (0, 0);
        for (test, expected) in table.verdicts(col) {
            total += 1;
            let path = dir.join("tests").join(test);
            let p = parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
            match verdict(&p, &model, races) {
                Ok(v) if v == expected => agree += 1,
                Ok(v) => println!("  {column}: {test} expected {expected}, got {v}"),
                Err(e) => println!("  {column}: {test} error {e}"),
            }
        }
        println!("{column}: {agree}/{total} agree with Dartagnan");
        out.push((column.to_string(), agree, total));
    }
    out
}

/// Every verdict of every column agrees (the disagreements were printed by [`agreement`]).
pub fn assert_every_verdict(results: Vec<(String, usize, usize)>) {
    for (column, agree, total) in results {
        assert_eq!(agree, total, "{column}: {agree}/{total} agree");
    }
}

/// Every test of the suite parses, `is_dialect` holds of it, and printing it gives text that
/// parses back to it; returns how many there are.
pub fn parse_and_round_trip(shared: &Path, suite: &str, is_dialect: fn(&Program) -> bool) -> usize {
    let files = walk(&shared.join("oracle").join(suite).join("tests"));
    for f in &files {
        let p = parse_file(f).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            is_dialect(&p),
            "{}: not read in the {suite} dialect",
            f.display()
        );
        let text = print(&p);
        let back = parse(&text, "printed").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, p, "{} does not round-trip:\n{text}", f.display());
    }
    files.len()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable").flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "litmus") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
