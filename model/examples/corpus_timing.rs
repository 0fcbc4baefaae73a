//! Replays a cargo-fuzz corpus of the `engines` target (litmus text or generator bytes, decoded
//! as the target decodes them) and prints the slowest inputs with the time each engine took.
//!
//! `cargo run --release -p scopecheck-model --example corpus_timing -- DIR [how-many]`
//!
//! The axiomatic engine runs as the target runs it, asked about the states the runtime and the
//! SC reference reach; `ALL_STATES=1` makes it find every allowed state instead, and `COUNT=1`
//! also count every consistent execution.

use scopecheck_model::axiomatic::{allowed_among, analyze, analyze_states, Model, Options};
use scopecheck_model::differential::{decode_input, sc};
use scopecheck_model::litmus::print;
use scopecheck_model::runtime::litmus::{explore_states, Options as RuntimeOptions};
use std::collections::BTreeSet;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("a corpus directory");
    let show: usize = args.next().map_or(5, |a| a.parse().expect("how many"));
    let flag = |name: &str| std::env::var_os(name).is_some_and(|v| v != "0");
    let count = flag("COUNT");
    let all_states = count || flag("ALL_STATES");
    let run_axiomatic = if count { analyze } else { analyze_states };
    let mut timings = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        let data = std::fs::read(&path).expect("a readable file");
        let Some(p) = decode_input(&data) else {
            continue;
        };
        let t0 = Instant::now();
        let reached = explore_states(&p, &RuntimeOptions::default()).states;
        let asked: BTreeSet<_> = match sc::final_states(&p) {
            Some(sc) => reached.union(&sc).cloned().collect(),
            None => reached,
        };
        let t1 = Instant::now();
        if all_states {
            let _ = run_axiomatic(&p, Model::PtxV75, &Options::default());
        } else {
            let _ = allowed_among(&p, Model::PtxV75, &Options::default(), &asked);
        }
        let t2 = Instant::now();
        // (axiomatic, runtime with the SC reference)
        timings.push(((t2 - t1).as_secs_f64(), (t1 - t0).as_secs_f64(), path, p));
    }
    let n = timings.len();
    let (ax, rt): (f64, f64) = timings
        .iter()
        .fold((0.0, 0.0), |(a, r), t| (a + t.0, r + t.1));
    println!(
        "{n} inputs: axiomatic {:.3} ms, runtime {:.3} ms on average",
        ax * 1e3 / n as f64,
        rt * 1e3 / n as f64
    );
    let mut totals: Vec<f64> = timings.iter().map(|t| t.0 + t.1).collect();
    totals.sort_by(|a, b| b.total_cmp(a));
    let sum: f64 = totals.iter().sum();
    let share = |fraction: f64| {
        let top = ((n as f64 * fraction).ceil() as usize).max(1);
        totals[..top.min(n)].iter().sum::<f64>() / sum * 100.0
    };
    println!(
        "the slowest 1% of inputs take {:.0}% of the time, the slowest 10% {:.0}%",
        share(0.01),
        share(0.10)
    );
    // `RUNTIME=1` ranks by the runtime's time alone.
    let runtime_only = std::env::var_os("RUNTIME").is_some();
    let cost = |t: &(f64, f64, std::path::PathBuf, _)| if runtime_only { t.1 } else { t.0 + t.1 };
    timings.sort_by(|a, b| cost(b).total_cmp(&cost(a)));
    for (a, r, path, p) in timings.iter().take(show) {
        println!(
            "--- {}: axiomatic {:.1} ms, runtime {:.1} ms\n{}",
            path.display(),
            a * 1e3,
            r * 1e3,
            print(p)
        );
    }
}
