//! The TMA + mbarrier pipeline of `mbarrier-pipeline-phase-bug.zh.md` as a kernel model: a
//! thread issues a bulk copy of point `p` into stage `p % STAGES` (completing on that stage's
//! mbarrier), waits on the barrier and reads the stage.
//!
//! ```text
//! cargo run --example mbarrier_pipeline -- --stages 2 --stale-parity   # data race / hang: exits 1
//! cargo run --example mbarrier_pipeline -- --stages 2                  # phase bit flipped on wrap: exits 0
//! cargo run --example mbarrier_pipeline -- --stages 1                  # exits 0
//! ```
//! `--help` lists the options: `--stages N`, `--points N`, `--stale-parity` (wait parity
//! `p & 1`, as the document's kernel does), `--barrier-per-point` (the document's fix 1),
//! `--cutlass` (full/empty barrier pipeline instead), `--engine dfs|loom|random|pct`,
//! `--iterations`, `--seed` and `--depth` for shuttle's random and PCT schedulers, `--replay TOKEN`.

#[path = "../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod corpus;

mod common;

use clap::Parser;
use corpus::mbarrier::{cutlass_pipeline, seed_pipeline, Barriers, Parity};
use corpus::Body;
use scopecheck_model::kernel::Checker;
use std::process::ExitCode;

/// The TMA + mbarrier pipeline of the seed document as a kernel model.
#[derive(Parser, Debug)]
#[command(name = "mbarrier_pipeline")]
struct Args {
    /// Pipeline stages (shared-memory buffers, one mbarrier each).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    stages: u16,
    /// Points copied and read, one after another.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..))]
    points: u16,
    /// Wait with parity `p & 1`, as the document's kernel does (the bug when STAGES > 1).
    #[arg(long)]
    stale_parity: bool,
    /// One barrier per point, waited with parity 0 (the document's fix 1).
    #[arg(long)]
    barrier_per_point: bool,
    /// A CUTLASS-style full/empty barrier pipeline instead.
    #[arg(long)]
    cutlass: bool,
    #[command(flatten)]
    engine: common::EngineArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (stages, points) = (usize::from(args.stages), usize::from(args.points));
    let (stale, per_point, cutlass) = (args.stale_parity, args.barrier_per_point, args.cutlass);
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
    let report = match &args.engine.replay {
        Some(token) => Checker::replay(token, &kernel, move |t| body(t)),
        None => args.engine.checker().check(&kernel, move |t| body(t)),
    };
    print!("{report}");
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
