//! The producer/consumer example of the cuTile memory-model guide as a tile kernel model:
//! block 0 stores a tile of data and raises a flag with RELEASE; block 1 waits for the flag with
//! ACQUIRE and reads the tile. The scope of the flag operations is a command-line choice.
//!
//! ```text
//! cargo run --example producer_consumer -- --scope block    # scoped race: exits 1
//! cargo run --example producer_consumer -- --scope device   # verified: exits 0
//! ```
//! `--help` lists the options: `--scope`, `--engine dfs|loom|random|pct`, `--iterations`,
//! `--seed` and `--depth` for shuttle's random and PCT schedulers, `--replay TOKEN`.

mod common;

use clap::Parser;
use scopecheck_model::check;
use scopecheck_model::kernel::{Checker, Grid, Kernel, MemoryOrder, MemoryScope, TileCtx};
use std::process::ExitCode;

const TILE: usize = 4;

/// The cuTile guide's producer/consumer tile kernel under a chosen scope and engine.
#[derive(Parser, Debug)]
#[command(name = "producer_consumer")]
struct Args {
    /// Scope of the flag's release store and acquire loads.
    #[arg(long, value_enum, default_value_t = Scope::Device)]
    scope: Scope,
    #[command(flatten)]
    engine: common::EngineArgs,
}

#[derive(Copy, Clone, Debug, clap::ValueEnum)]
enum Scope {
    /// `.cta`
    Block,
    /// `.cluster`
    Cluster,
    /// `.gpu`
    Device,
    /// `.sys`
    #[value(alias = "sys")]
    System,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let scope = match args.scope {
        Scope::Block => MemoryScope::Block,
        Scope::Cluster => MemoryScope::Cluster,
        Scope::Device => MemoryScope::Device,
        Scope::System => MemoryScope::System,
    };

    let mut kernel = Kernel::new("producer_consumer", Grid::tiles(2));
    let data = kernel.global::<f32>("data", TILE);
    let ready_flag = kernel.global::<i32>("ready_flag", 1);
    let output = kernel.global::<f32>("output", TILE);
    let body = move |ct: &TileCtx| {
        if ct.bid() == 0 {
            // Producer: fill the tile, then publish it.
            let value: Vec<f32> = (0..TILE).map(|i| i as f32).collect();
            ct.store(&data, 0, &value);
            ct.atomic_store(&ready_flag, 0, 1, MemoryOrder::Release, scope);
        } else {
            // Consumer: wait for the flag, then read the tile.
            while ct.atomic_load(&ready_flag, 0, MemoryOrder::Acquire, scope) != 1 {
                ct.spin_loop();
            }
            let tile = ct.load(&data, 0, TILE);
            check!(
                tile.iter().enumerate().all(|(i, &x)| x == i as f32),
                "consumer saw {tile:?}"
            );
            let doubled: Vec<f32> = tile.iter().map(|x| x * 2.0).collect();
            ct.store(&output, 0, &doubled);
        }
    };

    let report = match &args.engine.replay {
        Some(token) => Checker::replay_tiles(token, &kernel, body),
        None => args.engine.checker().check_tiles(&kernel, body),
    };
    print!("{report}");
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
