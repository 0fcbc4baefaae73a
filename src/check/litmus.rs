//! A litmus row checked: the axiomatic engine's verdict (or the liveness verdict) under the row's
//! model, against the row's expectation.

use super::manifest::{Expect, LitmusRow};
use super::outcome::{Outcome, Status};
use scopecheck_model::axiomatic::liveness;
use scopecheck_model::axiomatic::{self, Options};
use scopecheck_model::litmus;
use std::time::Instant;

/// Runs one litmus row and compares its verdict with the manifest's.
pub fn check_litmus(row: &LitmusRow, opts: &Options) -> Outcome {
    let start = Instant::now();
    let entry = row.file.display().to_string();
    let expected = row.expect.word(&row.model);
    let error = |got: String| Outcome {
        entry: entry.clone(),
        kind: "litmus",
        expected: expected.clone(),
        got,
        status: Status::Error,
        seconds: start.elapsed().as_secs_f64(),
        about: String::new(),
    };
    if !row.file.is_file() {
        return error(format!(
            "{}: the test it names does not exist: {}",
            row.row,
            row.file.display()
        ));
    }
    let program = match litmus::parse_file(&row.file) {
        Ok(p) => p,
        Err(e) => return error(e.to_string()),
    };
    let (got, matches, bounded) = match row.expect {
        Expect::Allowed(expected) => match axiomatic::analyze(&program, row.model.clone(), opts) {
            Ok(a) => {
                let allowed = a.satisfiable(&program);
                (Expect::Allowed(allowed), allowed == expected, a.bounded)
            }
            Err(e) => return error(format!("{}:{e}", row.file.display())),
        },
        // A liveness verdict is one for runs within the unroll bound, as documented.
        Expect::Terminates(expected, progress) => {
            let o = liveness::Options {
                unroll: opts.unroll,
                progress,
                max_unroll: None,
            };
            // A bounded verdict found no hang: it matches `terminates` as a bounded result.
            match liveness::liveness(&program, row.model.clone(), &o) {
                Ok(l) => (
                    Expect::Terminates(l.hang.is_none(), progress),
                    l.hang.is_none() == expected,
                    l.verdict == liveness::Verdict::Bounded,
                ),
                Err(e) => return error(format!("{}:{e}", row.file.display())),
            }
        }
    };
    let status = match (matches, bounded) {
        (false, _) => Status::Mismatch,
        (true, true) => Status::Bounded,
        (true, false) => Status::Match,
    };
    Outcome {
        entry,
        kind: "litmus",
        expected,
        got: got.word(&row.model),
        status,
        seconds: start.elapsed().as_secs_f64(),
        about: String::new(),
    }
}
