//! The cat interpreter's cost: every shared PTX litmus test decided under the engine's Rust
//! `ptx-v7.5` and under `ptx-v7.5.cat` in one process, alternating rounds, best round of each.
//! The goal: the cat model within 1.5x of the Rust one.
//!
//! `SCOPECHECK_SHARED=/path/to/shared cargo run --release -p scopecheck-model --example cat_speed`

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::cat::CatModel;
use scopecheck_model::litmus::{collect_files, parse_file, Program};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn shared_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        std::env::var_os("SCOPECHECK_SHARED").map(PathBuf::from),
        Some(root.join("../shared")),
    ]
    .into_iter()
    .flatten()
    .find(|d| d.join("oracle/ptx/tests").is_dir())
}

/// The whole suite's time, how many conditions hold, and each test's time.
fn run(programs: &[Program], model: &Model) -> (Duration, usize, Vec<Duration>) {
    let start = Instant::now();
    let mut each = Vec::with_capacity(programs.len());
    let mut holds = 0;
    for p in programs {
        let t = Instant::now();
        let a = analyze(p, model.clone(), &Options::default()).expect("the shared tests analyse");
        each.push(t.elapsed());
        holds += usize::from(a.holds);
    }
    (start.elapsed(), holds, each)
}

fn main() {
    let Some(shared) = shared_dir() else {
        println!("SKIP cat_speed: no shared/oracle/ptx (set SCOPECHECK_SHARED)");
        return;
    };
    let tests = shared.join("oracle/ptx/tests");
    let files = collect_files(std::slice::from_ref(&tests)).expect("the oracle is readable");
    let programs: Vec<Program> = files
        .iter()
        .map(|f| parse_file(f).expect("the shared tests parse"))
        .collect();
    let rust = Model::PtxV75;
    let cat = Model::Cat(Arc::new(CatModel::builtin("ptx-v7.5").expect("built in")));
    let rounds = 5;
    let (mut best_rust, mut best_cat) = (Duration::MAX, Duration::MAX);
    let mut each_rust = vec![Duration::MAX; programs.len()];
    let mut each_cat = each_rust.clone();
    let keep_best = |best: &mut Vec<Duration>, new: Vec<Duration>| {
        for (b, t) in best.iter_mut().zip(new) {
            *b = (*b).min(t);
        }
    };
    for _ in 0..rounds {
        let (t, holds_rust, each) = run(&programs, &rust);
        best_rust = best_rust.min(t);
        keep_best(&mut each_rust, each);
        let (t, holds_cat, each) = run(&programs, &cat);
        best_cat = best_cat.min(t);
        keep_best(&mut each_cat, each);
        assert_eq!(holds_rust, holds_cat, "the two models agree");
    }
    // Where the interpreter costs most: the tests with the largest difference.
    let mut gaps: Vec<(Duration, usize)> = (0..programs.len())
        .map(|i| (each_cat[i].saturating_sub(each_rust[i]), i))
        .collect();
    gaps.sort_unstable_by(|a, b| b.cmp(a));
    for &(_, i) in gaps.iter().take(5) {
        println!(
            "  {}: Rust {:.2} ms, cat {:.2} ms",
            files[i].display(),
            each_rust[i].as_secs_f64() * 1e3,
            each_cat[i].as_secs_f64() * 1e3
        );
    }
    println!(
        "{} PTX tests, best of {rounds}: Rust ptx-v7.5 {:.1} ms, ptx-v7.5.cat {:.1} ms: {:.2}x (goal <= 1.5x)",
        programs.len(),
        best_rust.as_secs_f64() * 1e3,
        best_cat.as_secs_f64() * 1e3,
        best_cat.as_secs_f64() / best_rust.as_secs_f64()
    );
}
