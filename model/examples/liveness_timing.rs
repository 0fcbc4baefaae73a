//! Times the liveness check on the shared oracle's liveness suites, each in one process, and
//! prints the figures (never asserts on them).
//!
//! `cargo run --release -p scopecheck-model --example liveness_timing [SHARED_DIR]`
//! (default: `$SCOPECHECK_SHARED`, else `../shared`). For each suite and model: tests decided,
//! how many can hang, total and slowest time.

use scopecheck_model::axiomatic::liveness::{liveness, Options};
use scopecheck_model::axiomatic::Model;
use scopecheck_model::litmus::{collect_files, parse_file};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let shared = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("SCOPECHECK_SHARED").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let suite = shared.join("oracle/ptx-liveness/tests");
    let Ok(files) = collect_files(std::slice::from_ref(&suite)) else {
        println!(
            "no suite at {} (pass the shared directory)",
            suite.display()
        );
        return;
    };
    let programs: Vec<_> = files
        .iter()
        .filter_map(|f| parse_file(f).ok().map(|p| (f, p)))
        .collect();
    let all = Instant::now();
    for model in [Model::PtxV60, Model::PtxV75] {
        let start = Instant::now();
        let (mut hangs, mut errors) = (0, 0);
        let mut slowest = (Duration::ZERO, None);
        for (file, p) in &programs {
            let t = Instant::now();
            match liveness(p, model.clone(), &Options::default()) {
                Ok(l) => hangs += usize::from(!l.terminates),
                Err(_) => errors += 1,
            }
            let took = t.elapsed();
            if took > slowest.0 {
                slowest = (took, Some(file));
            }
        }
        println!(
            "ptx-liveness under {model}: {} tests, {hangs} can hang, {errors} errors, {:.3} s (slowest {:.4} s: {})",
            programs.len(),
            start.elapsed().as_secs_f64(),
            slowest.0.as_secs_f64(),
            slowest.1.map_or("-".into(), |f| f.display().to_string())
        );
    }
    println!(
        "ptx-liveness, both models, one process: {:.3} s",
        all.elapsed().as_secs_f64()
    );
}
