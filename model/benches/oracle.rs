//! Decides every shared PTX litmus test under one model (ptx-v7.5 unless `SCOPECHECK_MODEL` names
//! another) and prints the total time and the slowest tests. A plain `harness = false` bench:
//! `cargo bench -p scopecheck-model --bench oracle`.

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::litmus::{collect_files, parse_file};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SCOPECHECK_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    Some(dir).filter(|d| d.join("oracle/ptx/tests").is_dir())
}

fn main() {
    let Some(shared) = shared_dir() else {
        println!("SKIP bench oracle: no shared/oracle/ptx (set SCOPECHECK_SHARED)");
        return;
    };
    let model = std::env::var("SCOPECHECK_MODEL")
        .ok()
        .and_then(|m| Model::from_name(&m))
        .unwrap_or_default();
    let tests = shared.join("oracle/ptx/tests");
    let files = collect_files(std::slice::from_ref(&tests)).expect("oracle directory is readable");
    let programs: Vec<_> = files
        .iter()
        .map(|f| {
            (
                f.strip_prefix(&tests).unwrap_or(f).display().to_string(),
                parse_file(f),
            )
        })
        .collect();
    let opts = Options::default();
    // One untimed round warms caches; the best of the timed rounds is reported.
    let rounds = 5;
    let mut best: Option<(Duration, Vec<(Duration, String)>)> = None;
    for round in 0..=rounds {
        let mut per_test = Vec::new();
        let start = Instant::now();
        for (name, program) in &programs {
            let Ok(program) = program else { continue };
            let t = Instant::now();
            let decided = analyze(program, model.clone(), &opts);
            per_test.push((t.elapsed(), name.clone()));
            if round == 0 && std::env::var_os("SCOPECHECK_BENCH_VERBOSE").is_some() {
                eprintln!("{:>9.3} ms  {name}", t.elapsed().as_secs_f64() * 1e3);
            }
            assert!(decided.is_ok(), "{name}: {}", decided.unwrap_err());
        }
        let total = start.elapsed();
        if round > 0 && best.as_ref().is_none_or(|(b, _)| total < *b) {
            best = Some((total, per_test));
        }
    }
    let (total, mut per_test) = best.expect("at least one timed round");
    per_test.sort_by(|a, b| b.cmp(a));
    println!(
        "oracle bench: {} tests decided under {model} in {:.1} ms (best of {rounds} rounds, one core)",
        per_test.len(),
        total.as_secs_f64() * 1e3
    );
    println!("slowest:");
    for (d, name) in per_test.iter().take(5) {
        println!("  {:>9.3} ms  {name}", d.as_secs_f64() * 1e3);
    }
}
