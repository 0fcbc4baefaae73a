//! The TMA + mbarrier pipeline of `mbarrier-pipeline-phase-bug.zh.md` as a kernel model: a
//! thread issues a bulk copy of point `p` into stage `p % STAGES` (completing on that stage's
//! mbarrier), waits on the barrier and reads the stage.
//!
//! ```text
//! cargo run --example mbarrier_pipeline -- --stages 2 --stale-parity   # data race / hang: exits 1
//! cargo run --example mbarrier_pipeline -- --stages 2                  # phase bit flipped on wrap: exits 0
//! cargo run --example mbarrier_pipeline -- --stages 1                  # exits 0
//! ```
//! Options: `--stages N`, `--points N`, `--stale-parity` (wait parity `p & 1`, as the document's
//! kernel does), `--barrier-per-point` (the document's fix 1), `--cutlass` (full/empty barrier
//! pipeline instead), `--engine dfs|loom|random|pct`, `--replay TOKEN`.

#[path = "../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod corpus;

use corpus::mbarrier::{cutlass_pipeline, seed_pipeline, Barriers, Parity};
use corpus::Body;
use scopecheck_model::kernel::Checker;
use std::process::ExitCode;

fn main() -> ExitCode {
    let (mut stages, mut points) = (2usize, 3usize);
    let (mut stale, mut per_point) = (false, false);
    let mut cutlass = false;
    let mut engine = "dfs".to_string();
    let mut replay = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stale-parity" => stale = true,
            "--barrier-per-point" => per_point = true,
            "--cutlass" => cutlass = true,
            "--stages" | "--points" | "--engine" | "--replay" => {
                let Some(value) = args.next() else {
                    return usage(&format!("{arg} needs a value"));
                };
                match arg.as_str() {
                    "--stages" | "--points" => {
                        let Ok(n) = value.parse::<usize>() else {
                            return usage(&format!("{arg} takes a number, not `{value}`"));
                        };
                        if n == 0 {
                            return usage(&format!("{arg} must be at least 1"));
                        }
                        if arg == "--stages" {
                            stages = n;
                        } else {
                            points = n;
                        }
                    }
                    "--engine" => engine = value,
                    _ => replay = Some(value),
                }
            }
            other => return usage(&format!("unexpected argument `{other}`")),
        }
    }
    // A barrier per point is waited on with parity 0 (its only phase) unless the stale parity
    // is asked for; otherwise the parity is the phase bit flipped when the stage index wraps.
    let parity = match (stale, per_point) {
        (true, _) => Parity::OfPoint,
        (false, true) => Parity::FirstPhase,
        (false, false) => Parity::PhaseBit,
    };
    let barriers = if per_point {
        Barriers::PerPoint
    } else {
        Barriers::PerStage
    };
    let (kernel, body) = if cutlass {
        cutlass_pipeline(stages, points, 1, 0)
    } else {
        seed_pipeline(stages, points, parity, barriers)
    };
    let Body::Threads(body) = body else {
        unreachable!("the pipelines are thread-level kernels")
    };
    let report = match replay {
        Some(token) => Checker::replay(&token, &kernel, move |t| body(t)),
        None => {
            let Some(checker) = Checker::by_name(&engine, 1000) else {
                return usage(&format!("unknown engine `{engine}`"));
            };
            checker.check(&kernel, move |t| body(t))
        }
    };
    print!("{report}");
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("error: {problem}");
    eprintln!(
        "usage: mbarrier_pipeline [--stages N] [--points N] [--stale-parity] [--barrier-per-point] \
         [--cutlass] [--engine dfs|loom|random|pct] [--replay TOKEN]"
    );
    ExitCode::from(2)
}
