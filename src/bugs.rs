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
///
/// Each outcome's time is that of its own exploration: under `every_engine`, one row per engine,
/// each timed alone.
pub fn check(case: &BugCase, every_engine: bool) -> Vec<Outcome> {
    if !every_engine {
        let start = Instant::now();
        let report = case.run_default();
        return vec![outcome(case, &report, start, case.name.to_string())];
    }
    case.every_engine()
        .iter()
        .map(|checker| {
            let start = Instant::now();
            let report = case.run(checker);
            let entry = format!("{} [{}]", case.name, report.engine);
            outcome(case, &report, start, entry)
        })
        .collect()
}

fn outcome(case: &BugCase, report: &Report, start: Instant, entry: String) -> Outcome {
    let seconds = start.elapsed().as_secs_f64();
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
        seconds,
        about: format!("{} (from {})", case.about, case.source),
    }
}
