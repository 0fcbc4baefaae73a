//! `scopecheck check`: the main job. Runs every corpus entry — litmus tests listed in a
//! `MANIFEST.csv` and the bug-reproduction kernel models — compares each with its expected verdict,
//! prints a summary table and exits non-zero on any mismatch.

use indicatif::{ProgressBar, ProgressStyle};
use scopecheck_model::axiomatic::{self, Model, Options};
use scopecheck_model::litmus;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Corpus directories (searched recursively for `MANIFEST.csv`; `bugs/` runs the kernel models).
    #[arg(default_value = "corpus")]
    pub paths: Vec<PathBuf>,
    /// Loop unrolling bound for litmus tests.
    #[arg(long, default_value_t = Options::default().unroll)]
    pub unroll: u32,
    /// Run each bug model under every engine that fits it (loom, shuttle random and PCT, DFS)
    /// instead of the one it asks for.
    #[arg(long)]
    pub every_engine: bool,
    /// Print every entry, not only mismatches and the summary.
    #[arg(long, short)]
    pub verbose: bool,
}

/// What an entry is expected to do and what it did.
pub struct Outcome {
    pub entry: String,
    pub kind: &'static str,
    pub expected: String,
    pub got: String,
    pub status: Status,
    pub seconds: f64,
    /// Where the entry comes from and why it deserves its verdict (shown on mismatch).
    pub about: String,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Status {
    /// The verdict matches the manifest.
    Match,
    /// It matches, but exploration was cut by a bound: the agreement is bounded.
    Bounded,
    Mismatch,
    /// The entry could not be run (bad input); counts as a failure.
    Error,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Match => "ok",
            Status::Bounded => "ok (bounded)",
            Status::Mismatch => "MISMATCH",
            Status::Error => "ERROR",
        }
    }

    fn failed(self) -> bool {
        matches!(self, Status::Mismatch | Status::Error)
    }
}

/// One litmus row of a manifest: `file,model,expected` with expected `allowed` or `forbidden`
/// (is some final state satisfying the condition's proposition allowed by the model?).
struct LitmusRow {
    file: PathBuf,
    model: Model,
    allowed: bool,
}

pub fn run(args: Args) -> ExitCode {
    let mut rows = Vec::new();
    let mut outcomes = Vec::new();
    let mut bug_dirs = Vec::new();
    for path in &args.paths {
        if !path.exists() {
            eprintln!(
                "scopecheck check: {}: no such file or directory",
                path.display()
            );
            return ExitCode::from(2);
        }
        if let Err(e) = collect(path, &mut rows, &mut outcomes, &mut bug_dirs) {
            eprintln!("scopecheck check: {e}");
            return ExitCode::from(2);
        }
    }
    let bugs = if bug_dirs.is_empty() {
        Vec::new()
    } else {
        crate::bugs::all()
    };
    let total = rows.len() + bugs.len();
    let bar = ProgressBar::new(total as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").expect("static template"),
    );
    let opts = Options {
        unroll: args.unroll,
        witnesses: false,
    };
    for row in &rows {
        bar.set_message(row.file.display().to_string());
        outcomes.push(check_litmus(row, &opts));
        bar.inc(1);
    }
    for bug in &bugs {
        bar.set_message(bug.name.to_string());
        outcomes.extend(crate::bugs::check(bug, args.every_engine));
        bar.inc(1);
    }
    bar.finish_and_clear();
    report(&outcomes, args.verbose)
}

/// Finds manifests and `bugs/` directories under `path`. Malformed manifest rows become
/// `Error` outcomes so the rest of the corpus still runs.
fn collect(
    path: &Path,
    rows: &mut Vec<LitmusRow>,
    outcomes: &mut Vec<Outcome>,
    bug_dirs: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    if path.is_file() {
        if path.file_name().is_some_and(|n| n == "MANIFEST.csv") {
            read_manifest(path, rows, outcomes)?;
        }
        return Ok(());
    }
    if path.file_name().is_some_and(|n| n == "bugs") {
        bug_dirs.push(path.to_path_buf());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for e in entries {
        if e.is_dir() || e.file_name().is_some_and(|n| n == "MANIFEST.csv") {
            collect(&e, rows, outcomes, bug_dirs)?;
        }
    }
    Ok(())
}

fn read_manifest(
    manifest: &Path,
    rows: &mut Vec<LitmusRow>,
    outcomes: &mut Vec<Outcome>,
) -> std::io::Result<()> {
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let text = std::fs::read_to_string(manifest)?;
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = match fields.as_slice() {
            [file, model, expected] => Model::from_name(model)
                .ok_or_else(|| format!("unknown model `{model}`"))
                .and_then(|model| match *expected {
                    "allowed" => Ok((file, model, true)),
                    "forbidden" => Ok((file, model, false)),
                    other => Err(format!(
                        "expected `allowed` or `forbidden`, found `{other}`"
                    )),
                }),
            _ => Err("expected `file,model,expected`".to_string()),
        };
        match parsed {
            Ok((file, model, allowed)) => rows.push(LitmusRow {
                file: dir.join(file),
                model,
                allowed,
            }),
            Err(message) => outcomes.push(Outcome {
                entry: format!("{}:{}", manifest.display(), n + 1),
                kind: "manifest",
                expected: String::new(),
                got: message,
                status: Status::Error,
                seconds: 0.0,
                about: String::new(),
            }),
        }
    }
    Ok(())
}

fn verdict_word(allowed: bool) -> &'static str {
    if allowed {
        "allowed"
    } else {
        "forbidden"
    }
}

fn check_litmus(row: &LitmusRow, opts: &Options) -> Outcome {
    let start = Instant::now();
    let entry = row.file.display().to_string();
    let expected = format!("{} {}", row.model.name(), verdict_word(row.allowed));
    let error = |got: String| Outcome {
        entry: entry.clone(),
        kind: "litmus",
        expected: expected.clone(),
        got,
        status: Status::Error,
        seconds: start.elapsed().as_secs_f64(),
        about: String::new(),
    };
    let program = match litmus::parse_file(&row.file) {
        Ok(p) => p,
        Err(e) => return error(e.to_string()),
    };
    let analysis = match axiomatic::analyze(&program, row.model.clone(), opts) {
        Ok(a) => a,
        Err(e) => return error(format!("{}:{e}", row.file.display())),
    };
    let allowed = analysis.satisfiable(&program);
    let status = match (allowed == row.allowed, analysis.bounded) {
        (false, _) => Status::Mismatch,
        (true, true) => Status::Bounded,
        (true, false) => Status::Match,
    };
    Outcome {
        entry,
        kind: "litmus",
        expected,
        got: format!("{} {}", row.model.name(), verdict_word(allowed)),
        status,
        seconds: start.elapsed().as_secs_f64(),
        about: String::new(),
    }
}

/// The summary table: mismatches and errors always, every entry with `--verbose`.
fn report(outcomes: &[Outcome], verbose: bool) -> ExitCode {
    let shown: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| verbose || o.status.failed())
        .collect();
    if !shown.is_empty() {
        let first_line = |s: &str| s.lines().next().unwrap_or("").to_string();
        let width = |f: &dyn Fn(&Outcome) -> usize, title: &str| {
            shown
                .iter()
                .map(|o| f(o))
                .max()
                .unwrap_or(0)
                .max(title.len())
        };
        let (we, wx, wg) = (
            width(&|o| o.entry.len(), "entry"),
            width(&|o| o.expected.len(), "expected"),
            width(&|o| first_line(&o.got).len(), "got"),
        );
        println!(
            "{:<we$}  {:<7}  {:<wx$}  {:<wg$}  {:>8}  status",
            "entry", "kind", "expected", "got", "seconds"
        );
        for o in &shown {
            println!(
                "{:<we$}  {:<7}  {:<wx$}  {:<wg$}  {:>8.3}  {}",
                o.entry,
                o.kind,
                o.expected,
                first_line(&o.got),
                o.seconds,
                o.status.word()
            );
            if o.status == Status::Error && o.got.lines().count() > 1 {
                println!("{}", o.got);
            }
            if o.status.failed() && !o.about.is_empty() {
                println!("    {}", o.about);
            }
        }
        println!();
    }
    let count = |kind: &str, pred: &dyn Fn(&Outcome) -> bool| {
        outcomes
            .iter()
            .filter(|o| o.kind == kind && pred(o))
            .count()
    };
    println!(
        "{:<10} {:>6} {:>8} {:>9} {:>10} {:>7}",
        "kind", "total", "matched", "bounded", "mismatched", "errors"
    );
    for kind in ["litmus", "model", "manifest"] {
        let total = count(kind, &|_| true);
        if total == 0 {
            continue;
        }
        println!(
            "{:<10} {:>6} {:>8} {:>9} {:>10} {:>7}",
            kind,
            total,
            count(kind, &|o| o.status == Status::Match),
            count(kind, &|o| o.status == Status::Bounded),
            count(kind, &|o| o.status == Status::Mismatch),
            count(kind, &|o| o.status == Status::Error),
        );
    }
    let seconds: f64 = outcomes.iter().map(|o| o.seconds).sum();
    let failed = outcomes.iter().filter(|o| o.status.failed()).count();
    println!(
        "{} entries, {} as expected, {} failed, {:.2}s",
        outcomes.len(),
        outcomes.len() - failed,
        failed,
        seconds
    );
    if outcomes.is_empty() {
        println!("nothing to check: no MANIFEST.csv or bugs/ directory found");
        return ExitCode::from(2);
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
