//! Times the liveness check on the shared oracle's liveness suites, each in one process, and
//! prints the figures (never asserts on them).
//!
//! `cargo run --release -p scopecheck-model --example liveness_timing [SHARED_DIR] [--each]`
//! (default: `$SCOPECHECK_SHARED`, else `../shared`). For each suite and column (PTX model, or
//! progress model under `vulkan.cat`): verdicts decided, how many can hang, how many agree with
//! the oracle's (cells without a verdict are not run), total and slowest time. `--each` prints every test's verdict and time;
//! `--only TEXT` (repeatable) keeps the tests whose path contains one of the texts, `--column
//! NAME` (repeatable) the columns named so.

use scopecheck_model::axiomatic::liveness::{liveness, Options, Progress};
use scopecheck_model::axiomatic::Model;
use scopecheck_model::expected::{Expected, Row};
use scopecheck_model::litmus::parse_file;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How a suite reads a column header: the model and progress model it names.
type Column = Box<dyn Fn(&str) -> Option<(Model, Progress)>>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let each = args.iter().any(|a| a == "--each");
    // `--vulkan-unroll N`: the Vulkan suite's bound (Dartagnan's is 4).
    let vulkan_unroll = args
        .iter()
        .position(|a| a == "--vulkan-unroll")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(4);
    let values_of = |flag: &str| -> Vec<String> {
        args.windows(2)
            .filter(|w| w[0] == flag)
            .map(|w| w[1].clone())
            .collect()
    };
    let (only, wanted_columns) = (values_of("--only"), values_of("--column"));
    let shared = args
        .iter()
        .enumerate()
        .find(|&(i, a)| {
            !a.starts_with("--")
                && a.parse::<u32>().is_err()
                && (i == 0 || !["--only", "--column"].contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| a)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("SCOPECHECK_SHARED").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    // `vulkan.cat` where it is built in (the Vulkan suite is left out otherwise).
    let vulkan = Model::load("vulkan.cat").ok();
    let suites: [(&str, u32, Column); 2] = [
        (
            "ptx-liveness",
            2,
            Box::new(|h: &str| {
                Model::from_name(&h.replace("ptx_v", "ptx-v").replace('_', "."))
                    .map(|m| (m, Progress::Fair))
            }),
        ),
        (
            "vulkan-liveness",
            vulkan_unroll,
            Box::new(move |h: &str| Some((vulkan.clone()?, Progress::from_name(h)?))),
        ),
    ];
    for (suite, unroll, column) in &suites {
        let dir = shared.join("oracle").join(suite);
        let Ok(table) = Expected::read(&dir.join("expected.csv")) else {
            println!("no suite at {} (pass the shared directory)", dir.display());
            continue;
        };
        let rows: Vec<&Row> = table
            .rows
            .iter()
            .filter(|r| only.is_empty() || only.iter().any(|o| r.test.contains(o.as_str())))
            .collect();
        let programs: Vec<_> = rows
            .iter()
            .map(|r| parse_file(&dir.join("tests").join(&r.test)))
            .collect();
        let all = Instant::now();
        let mut columns = 0;
        for (col, h) in table.columns.iter().enumerate() {
            if !wanted_columns.is_empty() && !wanted_columns.iter().any(|c| c == h) {
                continue;
            }
            let Some((model, progress)) = column(h) else {
                continue;
            };
            columns += 1;
            let opts = Options {
                unroll: *unroll,
                progress,
                max_unroll: None,
            };
            let start = Instant::now();
            let (mut decided, mut hangs, mut agree, mut errors) = (0, 0, 0, 0);
            let mut slowest = (Duration::ZERO, "-");
            for (row, p) in rows.iter().zip(&programs) {
                // No verdict to compare with: not timed.
                let Some(expected) = row.verdicts[col] else {
                    continue;
                };
                let Ok(p) = p else {
                    errors += 1;
                    continue;
                };
                let t = Instant::now();
                let verdict = liveness(p, model.clone(), &opts);
                let took = t.elapsed();
                match &verdict {
                    Ok(l) => {
                        decided += 1;
                        hangs += usize::from(!l.terminates);
                        agree += usize::from(expected == l.terminates);
                    }
                    Err(_) => errors += 1,
                }
                if each {
                    let got = match &verdict {
                        Ok(l) => (l.terminates as u8).to_string(),
                        Err(e) => format!("error {e}"),
                    };
                    let want = expected as u8;
                    println!(
                        "  {} {progress}: got {got} expected {want} {:.3} s",
                        row.test,
                        took.as_secs_f64()
                    );
                }
                if took > slowest.0 {
                    slowest = (took, row.test.as_str());
                }
            }
            let given = rows.iter().filter(|r| r.verdicts[col].is_some()).count();
            println!(
                "{suite} under {model}, progress {progress}, unroll {unroll}: {decided} tests, \
                 {hangs} can hang, {agree}/{given} oracle verdicts agree, {errors} errors, \
                 {:.3} s (slowest {:.4} s: {})",
                start.elapsed().as_secs_f64(),
                slowest.0.as_secs_f64(),
                slowest.1
            );
        }
        if columns == 0 {
            println!("{suite}: skipped, no column run (none selected with --column, or vulkan.cat not built in)");
            continue;
        }
        println!(
            "{suite}, every column, one process: {:.3} s",
            all.elapsed().as_secs_f64()
        );
    }
}
