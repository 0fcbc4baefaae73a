//! `scopecheck check`: the main job. Runs every corpus entry — litmus tests listed in a
//! `MANIFEST.csv` and the bug-reproduction kernel models — compares each with its expected verdict,
//! prints a summary table and exits non-zero on any mismatch. Entries run in parallel (rayon);
//! the table lists them in corpus order whatever the order they finish in.

use crate::check::{self, Corpus, Outcome, Settings, Status};
use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
use indicatif::{ProgressBar, ProgressStyle};
use scopecheck_model::axiomatic::Options;
use serde::Serialize;
use std::convert::Infallible;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Corpus directories (searched recursively for `MANIFEST.csv`; `bugs/` runs the kernel
    /// models). A manifest row is `file,model,expected`: the model named as `--model` names it
    /// (a registered name or `NAME.cat`, see `scopecheck litmus --help`, or a `.cat` path
    /// relative to the manifest's directory).
    #[arg(default_value = "corpus")]
    pub paths: Vec<PathBuf>,
    /// Loop unrolling bound for litmus tests.
    #[arg(long, default_value_t = Options::default().unroll)]
    pub unroll: u32,
    /// Run each bug model under every engine that fits it (loom, shuttle random and PCT, DFS)
    /// instead of the one it asks for.
    #[arg(long)]
    pub every_engine: bool,
    /// Keep exploring each bug model past its first failure and list its distinct failures
    /// (`Checker::all_failures`); the verdict is still that of the first.
    #[arg(long)]
    pub all_failures: bool,
    /// Print every entry, not only mismatches and the summary.
    #[arg(long, short)]
    pub verbose: bool,
    /// Worker threads (default: one per core; at most 256).
    #[arg(long, short, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Print one JSON object instead of the table: `entries` (every entry, in table order, each
    /// with `entry`, `kind` (litmus, model, cuda, manifest), `expected`, `got`, `status` (ok,
    /// bounded, mismatch, error), `seconds`, `about`), `total`, `as_expected`, `failed`,
    /// `seconds` (wall clock) and `interrupted` (true when a signal stopped the run: `entries`
    /// are those finished by then).
    #[arg(long)]
    pub json: bool,
}

/// `scopecheck check`.
pub fn run(args: Args) -> ExitCode {
    let start = Instant::now();
    let mut corpus = Corpus::default();
    for path in &args.paths {
        if !path.exists() {
            eprintln!(
                "scopecheck check: {}: no such file or directory",
                path.display()
            );
            return ExitCode::from(2);
        }
        if let Err(e) = check::collect(path, &mut corpus) {
            eprintln!("scopecheck check: {e}");
            return ExitCode::from(2);
        }
    }
    if corpus.is_empty() {
        eprintln!(
            "scopecheck check: nothing to check in {}: no MANIFEST.csv and no bugs/ directory",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::from(2);
    }
    let bugs = check::bug_cases(&corpus);
    // The bar counts what the table counts.
    let bar = ProgressBar::new(check::row_count(&corpus, &bugs, args.every_engine)).with_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} rows, {elapsed} elapsed, ETA {eta} {msg}",
        )
        .expect("static template"),
    );
    bar.set_position(corpus.outcomes.len() as u64);
    let settings = Settings {
        litmus: Options {
            unroll: args.unroll,
            witnesses: false,
            ..Options::default()
        },
        every_engine: args.every_engine,
        all_failures: args.all_failures,
        jobs: args.jobs.map(usize::from),
    };
    let _flag = crate::interrupt::flag();
    let done = |rows: &[Outcome]| {
        if let Some(first) = rows.first() {
            bar.set_message(first.entry.clone());
        }
        bar.inc(rows.len() as u64);
    };
    // On SIGINT or SIGTERM: the rows finished so far, marked interrupted, without waiting for
    // the jobs still running.
    let interrupted = |outcomes: Vec<Outcome>| -> Infallible {
        bar.finish_and_clear();
        let code = report(&outcomes, &args, start.elapsed().as_secs_f64(), true);
        crate::output::flush();
        std::process::exit(i32::from(code))
    };
    let outcomes = match check::run_jobs(
        &corpus,
        &bugs,
        &settings,
        &done,
        &crate::interrupt::requested,
        &interrupted,
    ) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("scopecheck check: {e}");
            return ExitCode::from(2);
        }
    };
    bar.finish_and_clear();
    ExitCode::from(report(
        &outcomes,
        &args,
        start.elapsed().as_secs_f64(),
        crate::interrupt::requested(),
    ))
}

/// One entry in `check --json`.
#[derive(Serialize)]
struct JsonEntry<'a> {
    entry: &'a str,
    kind: &'a str,
    expected: &'a str,
    got: &'a str,
    status: &'static str,
    seconds: f64,
    about: &'a str,
}

/// `check --json`: every entry and the totals (field names documented at [`Args::json`]).
#[derive(Serialize)]
struct JsonReport<'a> {
    entries: Vec<JsonEntry<'a>>,
    total: usize,
    as_expected: usize,
    failed: usize,
    seconds: f64,
    interrupted: bool,
}

/// Prints the report of `outcomes` (the table, or `--json`) and returns the exit status: 130
/// when interrupted, else 1 when an entry failed, else 0.
fn report(outcomes: &[Outcome], args: &Args, seconds: f64, interrupted: bool) -> u8 {
    let failed = outcomes.iter().filter(|o| o.status.failed()).count();
    if args.json {
        let json = JsonReport {
            entries: outcomes
                .iter()
                .map(|o| JsonEntry {
                    entry: &o.entry,
                    kind: o.kind,
                    expected: &o.expected,
                    got: &o.got,
                    status: o.status.json_word(),
                    seconds: o.seconds,
                    about: &o.about,
                })
                .collect(),
            total: outcomes.len(),
            as_expected: outcomes.len() - failed,
            failed,
            seconds,
            interrupted,
        };
        match serde_json::to_string(&json) {
            Ok(line) => println!("{line}"),
            Err(e) => {
                eprintln!("scopecheck check: {e}");
                return 2;
            }
        }
    } else {
        table(outcomes, args.verbose, seconds);
        if interrupted {
            println!(
                "interrupted: the table holds the {} entries finished before the signal",
                outcomes.len()
            );
        }
    }
    if interrupted {
        crate::interrupt::EXIT_INTERRUPTED
    } else if failed > 0 {
        1
    } else {
        0
    }
}

/// The summary table: mismatches and errors always, every entry with `--verbose`; then the full
/// text of each error (a caret diagnostic would break the table), the counts per kind, and the
/// wall-clock time of the run.
fn table(outcomes: &[Outcome], verbose: bool, seconds: f64) {
    let shown: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| verbose || o.status.failed())
        .collect();
    if !shown.is_empty() {
        let first_line = |s: &str| s.lines().next().unwrap_or("").to_string();
        let mut table = Table::new();
        table
            .load_style(presets::ASCII_MARKDOWN)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_header(["entry", "kind", "expected", "got", "seconds", "status"]);
        for o in &shown {
            table.add_row([
                o.entry.clone(),
                o.kind.to_string(),
                o.expected.clone(),
                first_line(&o.got),
                format!("{:.3}", o.seconds),
                o.status.word().to_string(),
            ]);
        }
        if let Some(column) = table.column_mut(4) {
            column.set_cell_alignment(CellAlignment::Right);
        }
        println!("{table}");
        println!();
        for o in shown.iter().filter(|o| o.status.failed()) {
            let detail = o.got.lines().count() > 1;
            if detail || !o.about.is_empty() {
                println!("{} ({}):", o.entry, o.status.word());
                if detail {
                    println!("{}", o.got);
                }
                if !o.about.is_empty() {
                    println!("    {}", o.about);
                }
                println!();
            }
        }
    }
    let count = |kind: &str, pred: &dyn Fn(&Outcome) -> bool| {
        outcomes
            .iter()
            .filter(|o| o.kind == kind && pred(o))
            .count()
    };
    let mut summary = Table::new();
    summary.load_style(presets::NOTHING).set_header([
        "kind",
        "total",
        "matched",
        "bounded",
        "mismatched",
        "errors",
    ]);
    for kind in ["litmus", "model", "cuda", "manifest"] {
        let total = count(kind, &|_| true);
        if total == 0 {
            continue;
        }
        summary.add_row([
            kind.to_string(),
            total.to_string(),
            count(kind, &|o| o.status == Status::Match).to_string(),
            count(kind, &|o| o.status == Status::Bounded).to_string(),
            count(kind, &|o| o.status == Status::Mismatch).to_string(),
            count(kind, &|o| o.status == Status::Error).to_string(),
        ]);
    }
    for column in summary.column_iter_mut().skip(1) {
        column.set_cell_alignment(CellAlignment::Right);
    }
    println!("{summary}");
    let failed = outcomes.iter().filter(|o| o.status.failed()).count();
    println!(
        "{} entries, {} as expected, {} failed, {:.2}s",
        outcomes.len(),
        outcomes.len() - failed,
        failed,
        seconds
    );
}
