//! The cat interpreter's cost: every shared PTX litmus test decided under the engine's Rust
//! `ptx-v7.5` and under `ptx-v7.5.cat` in one process, alternating rounds, best round of each.
//! The goal: the cat model within 1.5x of the Rust one. Then the totals of the Vulkan and
//! OpenCL suites under their cat models (every test analysed in full: states and races).
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
    for (suite, models) in [
        ("vulkan", &["vulkan", "vulkan-nochains"][..]),
        ("opencl", &["opencl"][..]),
    ] {
        suite_total(&shared, suite, models);
    }
}

/// Analyses every test of `oracle/<suite>` under each model, twice: deciding the condition
/// (as the oracle test does, a 5 s budget per test) and listing every state and race (a 1 s
/// budget per test); prints each total, the slowest test and any without an answer.
fn suite_total(shared: &std::path::Path, suite: &str, models: &[&str]) {
    let tests = shared.join("oracle").join(suite).join("tests");
    let Ok(files) = collect_files(std::slice::from_ref(&tests)) else {
        println!("SKIP {suite}: no {}", tests.display());
        return;
    };
    let programs: Vec<Program> = files
        .iter()
        .map(|f| parse_file(f).expect("the shared tests parse"))
        .collect();
    for name in models {
        let model = Model::Cat(Arc::new(CatModel::builtin(name).expect("built in")));
        for (what, condition_only, budget) in [
            ("deciding the condition", true, 5),
            ("all states and races", false, 1),
        ] {
            let opts = Options {
                timeout: Some(Duration::from_secs(budget)),
                condition_only,
                ..Options::default()
            };
            let (mut slowest, mut unanswered) = ((Duration::ZERO, 0), Vec::new());
            let start = Instant::now();
            for (i, p) in programs.iter().enumerate() {
                let t = Instant::now();
                match analyze(p, model.clone(), &opts) {
                    Ok(a) if a.stopped.is_none() => {}
                    Ok(_) => unanswered.push(format!("{}: out of budget", files[i].display())),
                    Err(e) => unanswered.push(format!("{}: {e}", files[i].display())),
                }
                slowest = slowest.max((t.elapsed(), i));
            }
            println!(
                "{} {suite} tests under {name}.cat, {what}: {:.1} ms in all, slowest {} ({:.1} ms){}",
                programs.len(),
                start.elapsed().as_secs_f64() * 1e3,
                files[slowest.1].display(),
                slowest.0.as_secs_f64() * 1e3,
                match unanswered.len() {
                    0 => String::new(),
                    n => format!(", {n} without an answer within {budget} s:"),
                }
            );
            for line in &unanswered {
                println!("  {line}");
            }
        }
    }
}
