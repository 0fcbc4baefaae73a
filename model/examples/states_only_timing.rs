//! Counting every consistent execution against finding the final states only, per litmus file:
//! the time each takes (best of a few runs) and whether both give the same states.
//!
//! `cargo run --release -p scopecheck-model --example states_only_timing -- FILE...`
//!
//! `REPEAT=n` runs the states-only search n more times per file, alone (for a profiler).

use scopecheck_model::axiomatic::{
    analyze, analyze_states, Analysis, AnalysisError, Model, Options,
};
use scopecheck_model::litmus::parse;
use std::time::Instant;

type Analyze =
    fn(&scopecheck_model::litmus::Program, Model, &Options) -> Result<Analysis, AnalysisError>;

/// The best of three runs, in milliseconds, and the last result.
fn timed(run: Analyze, p: &scopecheck_model::litmus::Program) -> (f64, Analysis) {
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..3 {
        let t = Instant::now();
        let a = run(p, Model::PtxV75, &Options::default()).expect("the engine analyses it");
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        result = Some(a);
    }
    (best, result.expect("ran"))
}

fn main() {
    let (mut total_count, mut total_states) = (0.0, 0.0);
    for file in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&file).expect("a readable file");
        let p = parse(&src, &file).expect("a litmus test");
        let (count_ms, counted) = timed(analyze, &p);
        let (states_ms, found) = timed(analyze_states, &p);
        let repeat: usize = std::env::var("REPEAT").map_or(0, |n| n.parse().expect("a count"));
        for _ in 0..repeat {
            let _ = analyze_states(&p, Model::PtxV75, &Options::default());
        }
        let same = counted
            .states
            .iter()
            .map(|s| &s.state)
            .eq(found.states.iter().map(|s| &s.state))
            && counted.holds == found.holds
            && counted.bounded == found.bounded;
        total_count += count_ms;
        total_states += states_ms;
        println!(
            "{file}: {} states; counting {} executions {count_ms:.2} ms, states only ({} executions) {states_ms:.2} ms, {:.0}x{}",
            counted.states.len(),
            counted.executions,
            found.executions,
            count_ms / states_ms,
            if same { "" } else { "  DIFFERENT STATES" }
        );
    }
    println!("total: counting {total_count:.1} ms, states only {total_states:.1} ms");
}
