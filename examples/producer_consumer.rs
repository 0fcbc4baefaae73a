//! The producer/consumer example of the cuTile memory-model guide as a tile kernel model:
//! block 0 stores a tile of data and raises a flag with RELEASE; block 1 waits for the flag with
//! ACQUIRE and reads the tile. The scope of the flag operations is a command-line choice.
//!
//! ```text
//! cargo run --example producer_consumer -- --scope block    # scoped race: exits 1
//! cargo run --example producer_consumer -- --scope device   # verified: exits 0
//! ```
//! Options: `--scope block|cluster|device|system`, `--engine dfs|loom|random|pct`,
//! `--replay TOKEN`.

use scopecheck_model::check;
use scopecheck_model::kernel::{Checker, Grid, Kernel, MemoryOrder, MemoryScope, TileCtx};
use std::process::ExitCode;

const TILE: usize = 4;

fn main() -> ExitCode {
    let mut scope = MemoryScope::Device;
    let mut engine = "dfs".to_string();
    let mut replay = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        match (arg.as_str(), value) {
            ("--scope", Some(v)) => {
                scope = match v.as_str() {
                    "block" => MemoryScope::Block,
                    "cluster" => MemoryScope::Cluster,
                    "device" => MemoryScope::Device,
                    "system" | "sys" => MemoryScope::System,
                    other => return usage(&format!("unknown scope `{other}`")),
                }
            }
            ("--engine", Some(v)) => engine = v,
            ("--replay", Some(v)) => replay = Some(v),
            (other, _) => return usage(&format!("unexpected argument `{other}`")),
        }
    }

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

    let report = match replay {
        Some(token) => Checker::replay_tiles(&token, &kernel, body),
        None => {
            let Some(checker) = Checker::by_name(&engine, 1000) else {
                return usage(&format!("unknown engine `{engine}`"));
            };
            checker.check_tiles(&kernel, body)
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
    eprintln!("usage: producer_consumer [--scope block|cluster|device|system] [--engine dfs|loom|random|pct] [--replay TOKEN]");
    ExitCode::from(2)
}
