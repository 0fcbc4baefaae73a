//! Where the engine differential spends its time: per-program cost of the axiomatic engine, the
//! runtime's state-caching search and the SC reference on generated programs, as percentiles
//! (and the runtime's DFS engine, for comparison, with `--dfs`).
//!
//! `cargo run --release -p scopecheck-model --example fuzz_throughput -- [programs] [max-events] [--dfs]`
//!
//! The axiomatic engine runs as the differential runs it: asked which of the states the runtime
//! and the SC reference reach it allows. `ALL_STATES=1` makes it find every allowed state
//! instead, and `COUNT=1` also count every consistent execution (the default of `scopecheck
//! litmus`). With `AXIOMATIC_ONLY=1` in the environment only the axiomatic engine runs, for
//! every allowed state (the other rows are left out), and the slowest seeds are listed
//! (`SLOWEST=n` of them, 5 by default), to find the tail quickly.

use scopecheck_model::axiomatic::{allowed_among, analyze, analyze_states, Model, Options};
use scopecheck_model::differential::sc;
use scopecheck_model::engine::Dfs;
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::runtime::litmus::{explore_states, explore_with, Options as RuntimeOptions};
use std::collections::BTreeSet;
use std::time::Instant;

fn main() {
    let with_dfs = std::env::args().any(|a| a == "--dfs");
    let mut args = std::env::args().skip(1).filter(|a| a != "--dfs");
    let n: u64 = args.next().map_or(1000, |a| a.parse().expect("programs"));
    let limits = Limits {
        max_events: args.next().map_or(Limits::differential().max_events, |a| {
            a.parse().expect("max events")
        }),
        ..Limits::differential()
    };
    let dfs = Dfs {
        max_executions: 20_000,
        ..Dfs::default()
    };
    let (mut axiomatic, mut runtime, mut sequential, mut configurations) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut dfs_ms, mut executions) = (Vec::new(), Vec::new());
    let axiomatic_only = std::env::var_os("AXIOMATIC_ONLY").is_some_and(|v| v != "0");
    let mut slowest: Vec<(f64, u64)> = Vec::new();
    let flag = |name: &str| std::env::var_os(name).is_some_and(|v| v != "0");
    let count = flag("COUNT");
    let all_states = count || axiomatic_only || flag("ALL_STATES");
    let run_axiomatic = if count { analyze } else { analyze_states };
    let start = Instant::now();
    for seed in 0..n {
        let p = from_seed_with(seed, &limits);
        let t0 = Instant::now();
        let mut asked = BTreeSet::new();
        if !axiomatic_only {
            let r = explore_states(&p, &RuntimeOptions::default());
            let t1 = Instant::now();
            let sc = sc::final_states(&p).unwrap_or_default();
            runtime.push((t1 - t0).as_secs_f64() * 1e3);
            sequential.push(t1.elapsed().as_secs_f64() * 1e3);
            configurations.push(r.configurations as f64);
            asked = r.states.union(&sc).cloned().collect();
        }
        let t2 = Instant::now();
        if all_states {
            let _ = run_axiomatic(&p, Model::PtxV75, &Options::default());
        } else {
            let _ = allowed_among(&p, Model::PtxV75, &Options::default(), &asked);
        }
        let ms = t2.elapsed().as_secs_f64() * 1e3;
        axiomatic.push(ms);
        slowest.push((ms, seed));
        if with_dfs {
            let t4 = Instant::now();
            let d = explore_with(&p, &dfs, &RuntimeOptions::default());
            dfs_ms.push(t4.elapsed().as_secs_f64() * 1e3);
            executions.push((d.executions + d.cut) as f64);
        }
    }
    let secs = start.elapsed().as_secs_f64() - dfs_ms.iter().sum::<f64>() / 1e3;
    println!(
        "{n} programs of at most {} instructions in {secs:.2} s: {:.0} programs/s",
        limits.max_events,
        n as f64 / secs
    );
    for (name, v) in [
        ("axiomatic ms", &mut axiomatic),
        ("runtime ms", &mut runtime),
        ("SC reference ms", &mut sequential),
        ("runtime configurations", &mut configurations),
        ("DFS ms", &mut dfs_ms),
        ("DFS executions", &mut executions),
    ] {
        if v.is_empty() {
            continue;
        }
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.sort_by(f64::total_cmp);
        let at = |q: usize| v[(v.len() * q / 100).min(v.len() - 1)];
        println!(
            "{name:>20}: mean {mean:.3}, median {:.3}, p90 {:.3}, p99 {:.3}, max {:.3}",
            at(50),
            at(90),
            at(99),
            at(100)
        );
    }
    if axiomatic_only {
        slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
        let list: Vec<String> = slowest
            .iter()
            .take(std::env::var("SLOWEST").map_or(5, |v| v.parse().expect("SLOWEST: a count")))
            .map(|(ms, seed)| format!("seed {seed} ({ms:.1} ms)"))
            .collect();
        println!("slowest axiomatic: {}", list.join(", "));
    }
}
