//! `scopecheck check`: the main job. Runs every corpus entry — litmus tests listed in a
//! `MANIFEST.csv` and the bug-reproduction kernel models — compares each with its expected verdict,
//! prints a summary table and exits non-zero on any mismatch. Entries run in parallel (rayon);
//! the table lists them in corpus order whatever the order they finish in.

use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use scopecheck_model::axiomatic::liveness::{self, Progress};
use scopecheck_model::axiomatic::{self, Model, Options};
use scopecheck_model::litmus;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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

/// What an entry is expected to do and what it did.
pub struct Outcome {
    pub entry: String,
    pub kind: &'static str,
    pub expected: String,
    pub got: String,
    pub status: Status,
    /// The time this entry (this engine, under `--every-engine`) took.
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

    /// The status in `--json`: one lowercase word.
    fn json_word(self) -> &'static str {
        match self {
            Status::Match => "ok",
            Status::Bounded => "bounded",
            Status::Mismatch => "mismatch",
            Status::Error => "error",
        }
    }
}

/// One litmus row of a manifest: `file,model,expected` with expected `allowed` or `forbidden`
/// (is some final state satisfying the condition's proposition allowed by the model?), or a
/// liveness verdict `terminates` / `can-hang`, under a progress model with `:obe` etc. (fair
/// when none is given).
struct LitmusRow {
    file: PathBuf,
    model: Model,
    expect: Expect,
    /// `MANIFEST.csv:LINE`, the row that names the test.
    row: String,
}

/// One unit of work: a litmus row, a bug model, or a CUDA kernel.
enum Job<'a> {
    Litmus(&'a LitmusRow),
    Bug(&'a crate::bugs::BugCase),
    Cuda(&'a crate::cuda_corpus::Row),
}

pub fn run(args: Args) -> ExitCode {
    let start = Instant::now();
    let mut rows = Vec::new();
    let mut outcomes = Vec::new();
    let mut bug_dirs = Vec::new();
    let mut cuda = Vec::new();
    for path in &args.paths {
        if !path.exists() {
            eprintln!(
                "scopecheck check: {}: no such file or directory",
                path.display()
            );
            return ExitCode::from(2);
        }
        if let Err(e) = collect(path, &mut rows, &mut outcomes, &mut bug_dirs, &mut cuda) {
            eprintln!("scopecheck check: {e}");
            return ExitCode::from(2);
        }
    }
    let bugs = if bug_dirs.is_empty() {
        Vec::new()
    } else {
        crate::bugs::all()
    };
    if rows.is_empty() && bugs.is_empty() && cuda.is_empty() && outcomes.is_empty() {
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
    let jobs: Vec<Job> = rows
        .iter()
        .map(Job::Litmus)
        .chain(bugs.iter().map(Job::Bug))
        .chain(cuda.iter().map(Job::Cuda))
        .collect();
    // The bar counts what the table counts: one row per litmus row, CUDA row and manifest
    // error, and per bug model one row, or one per engine under `--every-engine`.
    let rows_of = |job: &Job| match job {
        Job::Bug(bug) if args.every_engine => bug.every_engine().len() as u64,
        _ => 1,
    };
    let total = outcomes.len() as u64 + jobs.iter().map(rows_of).sum::<u64>();
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} rows, {elapsed} elapsed, ETA {eta} {msg}",
        )
        .expect("static template"),
    );
    bar.set_position(outcomes.len() as u64);
    let opts = Options {
        unroll: args.unroll,
        witnesses: false,
        ..Options::default()
    };
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.map_or(0, usize::from))
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("scopecheck check: cannot start worker threads: {e}");
            return ExitCode::from(2);
        }
    };
    let interrupt = crate::interrupt::flag();
    // The workers send each job's rows as it finishes; this thread gathers them and, on SIGINT
    // or SIGTERM, reports the rows finished so far (marked interrupted) without waiting for the
    // jobs still running.
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<Outcome>)>();
    let mut finished: Vec<Option<Vec<Outcome>>> = (0..jobs.len()).map(|_| None).collect();
    let interrupted = std::thread::scope(|scope| {
        let (jobs, opts, bar, interrupt) = (&jobs, &opts, &bar, &interrupt);
        scope.spawn(move || {
            pool.install(|| {
                jobs.par_iter()
                    .enumerate()
                    .for_each_with(tx, |tx, (i, job)| {
                        if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                            return;
                        }
                        let done = match job {
                            Job::Litmus(row) => vec![check_litmus(row, opts)],
                            Job::Bug(bug) => {
                                crate::bugs::check(bug, args.every_engine, args.all_failures)
                            }
                            Job::Cuda(row) => vec![crate::cuda_check::check(row)],
                        };
                        if let Some(first) = done.first() {
                            bar.set_message(first.entry.clone());
                        }
                        bar.inc(done.len() as u64);
                        let _ = tx.send((i, done));
                    })
            })
        });
        loop {
            match rx.recv_timeout(std::time::Duration::from_millis(100)) {
                Ok((i, done)) => finished[i] = Some(done),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    break crate::interrupt::requested();
                }
            }
            if crate::interrupt::requested() {
                // The rows that arrived meanwhile are reported too.
                while let Ok((i, done)) = rx.try_recv() {
                    finished[i] = Some(done);
                }
                bar.finish_and_clear();
                outcomes.extend(finished.iter_mut().filter_map(Option::take).flatten());
                let code = report(&outcomes, &args, start.elapsed().as_secs_f64(), true);
                crate::output::flush();
                // The jobs still running are abandoned, not waited for.
                std::process::exit(i32::from(code));
            }
        }
    });
    bar.finish_and_clear();
    outcomes.extend(finished.into_iter().flatten().flatten());
    ExitCode::from(report(
        &outcomes,
        &args,
        start.elapsed().as_secs_f64(),
        interrupted,
    ))
}

/// Finds manifests (litmus or CUDA, told apart by their header) and `bugs/` directories under
/// `path` (walked by `scopecheck_model::input::walk`, sorted by name, following links but never around a cycle: each
/// directory is visited once). Malformed manifest rows become `Error` outcomes so the rest of the
/// corpus still runs.
fn collect(
    path: &Path,
    rows: &mut Vec<LitmusRow>,
    outcomes: &mut Vec<Outcome>,
    bug_dirs: &mut Vec<PathBuf>,
    cuda: &mut Vec<crate::cuda_corpus::Row>,
) -> std::io::Result<()> {
    let is_manifest = |p: &Path| p.file_name().is_some_and(|n| n == "MANIFEST.csv");
    let mut seen = std::collections::HashSet::new();
    for entry in scopecheck_model::input::walk(path, &mut seen) {
        let entry = entry?;
        if entry.file_type().is_dir() && entry.file_name() == "bugs" {
            bug_dirs.push(entry.path().to_path_buf());
        } else if is_manifest(entry.path()) {
            let manifest = entry.path();
            // Bounded, and never blocking on a FIFO (`scopecheck_model::input`).
            let bytes = scopecheck_model::input::read_bytes(manifest)
                .map_err(|e| std::io::Error::other(format!("{}: {e}", manifest.display())))?;
            if crate::cuda_corpus::is_manifest(&bytes) {
                let (found, errors) = crate::cuda_corpus::read_manifest(manifest)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                cuda.extend(found);
                outcomes.extend(errors.into_iter().map(|message| Outcome {
                    entry: manifest.display().to_string(),
                    kind: "manifest",
                    expected: String::new(),
                    got: message,
                    status: Status::Error,
                    seconds: 0.0,
                    about: String::new(),
                }));
            } else {
                read_manifest(manifest, rows, outcomes)?;
            }
        }
    }
    Ok(())
}

/// Reads `file,model,expected` rows with the `csv` crate (a header line first; `#` starts a
/// comment line; fields are trimmed). A row that is not one of those becomes an `Error` outcome at
/// `MANIFEST.csv:LINE`; a file that is not UTF-8 text becomes one naming the file.
fn read_manifest(
    manifest: &Path,
    rows: &mut Vec<LitmusRow>,
    outcomes: &mut Vec<Outcome>,
) -> std::io::Result<()> {
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let bytes = match scopecheck_model::input::read_bytes(manifest) {
        Ok(bytes) => bytes,
        Err(scopecheck_model::input::InputError::Io(e)) => {
            return Err(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", manifest.display()),
            ))
        }
        Err(e) => {
            return Err(std::io::Error::other(format!(
                "{}: {e}",
                manifest.display()
            )));
        }
    };
    let manifest_error = |line: Option<u64>, message: String| Outcome {
        entry: match line {
            Some(line) => format!("{}:{line}", manifest.display()),
            None => manifest.display().to_string(),
        },
        kind: "manifest",
        expected: String::new(),
        got: message,
        status: Status::Error,
        seconds: 0.0,
        about: String::new(),
    };
    if let Err(e) = std::str::from_utf8(&bytes) {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        outcomes.push(manifest_error(
            None,
            format!(
                "not a text file: invalid UTF-8 on line {line} (expected CSV rows `file,model,expected`)"
            ),
        ));
        return Ok(());
    }
    // The csv crate's positions count neither the comment nor the blank lines it skips before a
    // record (its byte offset is where that skipping began): find the record's own line.
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let line_at = |pos: Option<&csv::Position>| {
        pos.map(|p| {
            let end = (p.byte() as usize).min(bytes.len());
            let mut line = bytes[..end].iter().filter(|&&b| b == b'\n').count();
            while lines.get(line).is_some_and(|l| {
                let l = l.trim_ascii();
                l.is_empty() || l.starts_with(b"#")
            }) {
                line += 1;
            }
            line as u64 + 1
        })
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(bytes.as_slice());
    match reader.headers() {
        Ok(h) if h.iter().eq(["file", "model", "expected"]) => {}
        Ok(h) => {
            let line = line_at(h.position());
            outcomes.push(manifest_error(
                line,
                format!(
                    "expected the header `file,model,expected`, found `{}`",
                    h.iter().collect::<Vec<_>>().join(",")
                ),
            ));
            return Ok(());
        }
        Err(e) => {
            outcomes.push(manifest_error(None, e.to_string()));
            return Ok(());
        }
    }
    // The model column by the registry's rules (a `.cat` path relative to the manifest's
    // directory), each name loaded once per manifest.
    let mut models: HashMap<String, Result<Model, String>> = HashMap::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = line_at(e.position());
                outcomes.push(manifest_error(line, e.to_string()));
                continue;
            }
        };
        let line = line_at(record.position()).unwrap_or(0);
        if record.iter().all(str::is_empty) {
            continue;
        }
        let parsed = match (record.len(), record.get(0), record.get(1), record.get(2)) {
            (3, Some(file), Some(model), Some(expected)) => models
                .entry(model.to_string())
                .or_insert_with(|| Model::load_from(model, Some(dir)).map_err(|e| e.to_string()))
                .clone()
                .and_then(|model| Ok((file, model, Expect::parse(expected)?))),
            (n, ..) => Err(format!(
                "expected 3 fields `file,model,expected`, found {n}"
            )),
        };
        match parsed {
            Ok((file, model, expect)) => rows.push(LitmusRow {
                file: dir.join(file),
                model,
                expect,
                row: format!("{}:{line}", manifest.display()),
            }),
            Err(message) => outcomes.push(manifest_error(Some(line), message)),
        }
    }
    Ok(())
}

#[derive(Copy, Clone)]
enum Expect {
    Allowed(bool),
    Terminates(bool, Progress),
}

impl Expect {
    fn parse(word: &str) -> Result<Expect, String> {
        let (verdict, progress) = word.split_once(':').unwrap_or((word, "fair"));
        let progress = || {
            Progress::from_name(progress)
                .ok_or_else(|| format!("unknown progress model `{progress}`"))
        };
        match verdict {
            "allowed" | "forbidden" if word == verdict => Ok(Expect::Allowed(verdict == "allowed")),
            "terminates" => Ok(Expect::Terminates(true, progress()?)),
            "can-hang" => Ok(Expect::Terminates(false, progress()?)),
            _ => Err(format!(
                "expected `allowed`, `forbidden`, `terminates` or `can-hang` (with `:PROGRESS`), found `{word}`"
            )),
        }
    }

    fn word(self, model: &Model) -> String {
        match self {
            Expect::Allowed(allowed) => format!("{} {}", model.name(), verdict_word(allowed)),
            Expect::Terminates(terminates, progress) => format!(
                "{} {progress} {}",
                model.name(),
                if terminates { "terminates" } else { "can hang" }
            ),
        }
    }
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
    let expected = row.expect.word(&row.model);
    let error = |got: String| Outcome {
        entry: entry.clone(),
        kind: "litmus",
        expected: expected.clone(),
        got,
        status: Status::Error,
        seconds: start.elapsed().as_secs_f64(),
        about: String::new(),
    };
    if !row.file.is_file() {
        return error(format!(
            "{}: the test it names does not exist: {}",
            row.row,
            row.file.display()
        ));
    }
    let program = match litmus::parse_file(&row.file) {
        Ok(p) => p,
        Err(e) => return error(e.to_string()),
    };
    let (got, matches, bounded) = match row.expect {
        Expect::Allowed(expected) => match axiomatic::analyze(&program, row.model.clone(), opts) {
            Ok(a) => {
                let allowed = a.satisfiable(&program);
                (Expect::Allowed(allowed), allowed == expected, a.bounded)
            }
            Err(e) => return error(format!("{}:{e}", row.file.display())),
        },
        // A liveness verdict is one for runs within the unroll bound, as documented.
        Expect::Terminates(expected, progress) => {
            let o = liveness::Options {
                unroll: opts.unroll,
                progress,
                max_unroll: None,
            };
            // A bounded verdict found no hang: it matches `terminates` as a bounded result.
            match liveness::liveness(&program, row.model.clone(), &o) {
                Ok(l) => (
                    Expect::Terminates(l.hang.is_none(), progress),
                    l.hang.is_none() == expected,
                    l.verdict == liveness::Verdict::Bounded,
                ),
                Err(e) => return error(format!("{}:{e}", row.file.display())),
            }
        }
    };
    let status = match (matches, bounded) {
        (false, _) => Status::Mismatch,
        (true, true) => Status::Bounded,
        (true, false) => Status::Match,
    };
    Outcome {
        entry,
        kind: "litmus",
        expected,
        got: got.word(&row.model),
        status,
        seconds: start.elapsed().as_secs_f64(),
        about: String::new(),
    }
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
