//! The corpus's bug-reproduction kernel models (`corpus/bugs/`), compiled into the CLI so that
//! `scopecheck check corpus/` runs them next to the litmus tests.

#[path = "../../corpus/bugs/mod.rs"]
mod corpus;

pub use corpus::{all, BugCase};

use super::outcome::{Outcome, Status};
use scopecheck_model::kernel::{Checker, Report};
use std::time::Instant;

/// Runs one case — the way it asks to be explored, or under every engine that fits it — and
/// compares each report with its expectation.
///
/// Each outcome's time is that of its own exploration: under `every_engine`, one row per engine,
/// each timed alone.
/// With `all_failures`, each exploration goes on past the first failure and the outcome lists
/// every distinct failure it found.
pub fn check(case: &BugCase, every_engine: bool, all_failures: bool) -> Vec<Outcome> {
    let widen = |c: Checker| if all_failures { c.all_failures() } else { c };
    if !every_engine {
        let start = Instant::now();
        let report = case.run(&widen(case.default_checker()));
        return vec![outcome(case, &report, start, case.name.to_string())];
    }
    case.every_engine()
        .into_iter()
        .map(|checker| {
            let start = Instant::now();
            let report = case.run(&widen(checker));
            let entry = format!("{} [{}]", case.name, report.engine);
            outcome(case, &report, start, entry)
        })
        .collect()
}

fn outcome(case: &BugCase, report: &Report, start: Instant, entry: String) -> Outcome {
    let seconds = start.elapsed().as_secs_f64();
    let mut got = case.got_words(report);
    if report.failures.len() > 1 {
        let kinds: Vec<String> = report.failures[1..]
            .iter()
            .map(|f| format!("{}: {}", f.kind, f.headline))
            .collect();
        got = format!("{got} (+{} more: {})", kinds.len(), kinds.join("; "));
    }
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
