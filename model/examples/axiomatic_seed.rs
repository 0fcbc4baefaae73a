//! Prints one generated program and how long the axiomatic engine takes on it, per model: for
//! looking into the slow tail that `fuzz_throughput` reports.
//!
//! `cargo run --release -p scopecheck-model --example axiomatic_seed -- <seed> [max-events] [repeat] [model]`

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::litmus::print;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().expect("seed").parse().expect("seed");
    let limits = Limits {
        max_events: args.next().map_or(Limits::differential().max_events, |a| {
            a.parse().expect("max events")
        }),
        ..Limits::differential()
    };
    let repeat: u32 = args.next().map_or(1, |a| a.parse().expect("repeat"));
    let only = args
        .next()
        .map(|m| Model::from_name(&m).expect("a model name"));
    let p = from_seed_with(seed, &limits);
    println!("{}", print(&p));
    for model in Model::ALL {
        if only.as_ref().is_some_and(|m| *m != model) {
            continue;
        }
        let t0 = Instant::now();
        let mut result = None;
        for _ in 0..repeat {
            result = Some(analyze(&p, model.clone(), &Options::default()));
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3 / f64::from(repeat);
        match result.expect("repeat ≥ 1") {
            Ok(a) => println!(
                "{model}: {ms:.3} ms, {} states, {} executions, holds {}",
                a.states.len(),
                a.executions,
                a.holds
            ),
            Err(e) => println!("{model}: {ms:.3} ms, error {e}"),
        }
    }
}
