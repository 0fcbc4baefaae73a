//! The corpus's bug-reproduction kernel models (`corpus/bugs/`), compiled into the CLI so that
//! `scopecheck check corpus/` runs them next to the litmus tests.

#[path = "../corpus/bugs/mod.rs"]
mod corpus;

pub use corpus::{all, BugCase};

use crate::cli::check::{Outcome, Status};
use scopecheck_model::kernel::Report;
use std::time::Instant;

/// Runs one case — the way it asks to be explored, or under every engine that fits it — and
/// compares each report with its expectation.
pub fn check(case: &BugCase, every_engine: bool) -> Vec<Outcome> {
    if !every_engine {
        let start = Instant::now();
        return vec![outcome(
            case,
            &case.run_default(),
            start,
            case.name.to_string(),
        )];
    }
    let start = Instant::now();
    case.run_every_engine()
        .iter()
        .map(|r| outcome(case, r, start, format!("{} [{}]", case.name, r.engine)))
        .collect()
}

fn outcome(case: &BugCase, report: &Report, start: Instant, entry: String) -> Outcome {
    let got = case.got_words(report);
    let status = match (
        case.agrees(report),
        report.complete || report.failure.is_some(),
    ) {
        (false, _) => Status::Mismatch,
        (true, true) => Status::Match,
        (true, false) => Status::Bounded,
    };
    Outcome {
        entry,
        kind: "model",
        expected: case.expected_words(),
        got,
        status,
        seconds: start.elapsed().as_secs_f64(),
        about: format!("{} (from {})", case.about, case.source),
    }
}
