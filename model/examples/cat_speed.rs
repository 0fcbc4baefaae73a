//! The cat evaluator's cost: every shared PTX litmus test analysed under `ptx-v7.5.cat` and
//! `ptx-v6.0.cat` (best of 5 rounds, and the slowest tests), then the totals of the Vulkan and
//! OpenCL suites under their cat models (deciding the condition, and every state and race).
//! (Until the Rust transliterations of the PTX models were removed, this compared them: on the
//! 169 PTX tests `ptx-v7.5.cat` took 1.29x-1.30x the Rust model's time on a loaded machine,
//! 457M against 387M instructions under callgrind; see README, "Memory models as cat text".)
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
    let rounds = 5;
    for model in [Model::PtxV75, Model::PtxV60] {
        let mut best = Duration::MAX;
        let mut each = vec![Duration::MAX; programs.len()];
        let mut holds = 0;
        for _ in 0..rounds {
            let (t, h, times) = run(&programs, &model);
            best = best.min(t);
            holds = h;
            for (b, t) in each.iter_mut().zip(times) {
                *b = (*b).min(t);
            }
        }
        let mut slowest: Vec<(Duration, usize)> =
            each.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        slowest.sort_unstable_by(|a, b| b.cmp(a));
        println!(
            "{} PTX tests under {model}.cat, best of {rounds}: {:.1} ms ({holds} conditions hold)",
            programs.len(),
            best.as_secs_f64() * 1e3
        );
        for &(t, i) in slowest.iter().take(3) {
            println!("  {}: {:.2} ms", files[i].display(), t.as_secs_f64() * 1e3);
        }
    }
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
