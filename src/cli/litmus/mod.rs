//! `scopecheck litmus`: the axiomatic oracle on litmus files.
//!
//! For each test: its name, the condition and whether it holds (with herd7's `Ok`/`No`: `Ok`
//! when some allowed final state satisfies the proposition), every allowed final state with the
//! number of executions reaching it, and the time taken. `--json` prints one object per test
//! and line instead; `--dot DIR` writes one Graphviz file per test with a witness execution.
//! `--runtime` also runs the program on the operational runtime (exhaustively, by state caching)
//! and marks the allowed states it reaches; a reached state the model forbids is an engine
//! disagreement and makes the exit status 1. `--format herd` prints herd7's log instead
//! (`scopecheck_model::herd`), so that herdtools' `mcompare7`/`msum7` read it beside herd7's.

use scopecheck_model::axiomatic::liveness::{Progress, Verdict};
use scopecheck_model::axiomatic::{
    analyze, dot, Model, Options, Progress as Reporter, Report as ProgressReport,
};
use scopecheck_model::cat::registry;
use scopecheck_model::differential::reached::RuntimeStates;
use scopecheck_model::herd;
use scopecheck_model::litmus::error::render as litmus_errors;
use scopecheck_model::litmus::{dialect, parse_all, read_source, walk_files, LitmusError};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod print;

use print::{print_human, write_dot, Report};

#[derive(clap::Args)]
pub struct Args {
    /// Litmus files or directories (searched recursively for `*.litmus`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    // Every registered model, one per line (`cat::registry::help`).
    #[arg(long, default_value = "ptx-v7.5", value_parser = super::parse_model, help = registry::help())]
    pub model: Model,
    /// How many times each backward branch may be taken in one run of a thread.
    #[arg(long, default_value_t = Options::default().unroll)]
    pub unroll: u32,
    /// Write a Graphviz witness execution per test into this directory.
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// Output: `human` (every allowed state with its execution count, `*` on those satisfying
    /// the proposition), `herd` (herd7's log lines, which herdtools' `mcompare7` and `msum7`
    /// read) or `json` (one object per test and line).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Same as `--format json`.
    #[arg(long)]
    pub json: bool,
    /// Also explore the program on the operational runtime and mark the allowed states it
    /// reaches; a reached state the model forbids is an engine disagreement (exit status 1).
    #[arg(long)]
    pub runtime: bool,
    /// Report per test whether some consistent execution has a data race, as the model defines
    /// one (its `flag`s: Tile IR's data race, a cat model's `flag ~empty … as NAME`); `--json`
    /// adds `race_free`. A model without a race definition is an error.
    #[arg(long)]
    pub races: bool,
    /// Decide liveness instead: whether some consistent execution can hang (a thread spinning
    /// forever or blocked forever at a barrier); prints `terminates` or `can hang`.
    #[arg(long, conflicts_with_all = ["runtime", "races", "condition_only", "timeout", "max_executions"])]
    pub liveness: bool,
    /// With --liveness: the forward-progress model (fair, obe, hsa, hsa_obe, lobe).
    #[arg(long, default_value = "fair", value_parser = super::liveness::parse_progress, requires = "liveness")]
    pub progress: Progress,
    /// Stop each test's search after SECS seconds and answer with the states found so far
    /// (marked bounded). Default 60; 0 for no limit.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Stop each test's search once the process holds more than MIB mebibytes and answer with
    /// the states found so far (marked bounded). Default: 4096, or half the address-space
    /// limit (`ulimit -v`) when that is lower; 0 for no limit.
    #[arg(long, value_name = "MIB")]
    pub max_memory: Option<u64>,
    /// Stop each test's search after N consistent executions (marked bounded).
    #[arg(long, value_name = "N")]
    pub max_executions: Option<u64>,
    /// Decide the condition only: look only for final states that decide it and stop at the
    /// first (listed states are then that one at most).
    #[arg(long)]
    pub condition_only: bool,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("`{text}` is not a number of seconds"))
}

/// How `scopecheck litmus` prints each test.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// scopecheck's own report: states with execution counts, file, model, runtime marks.
    Human,
    /// herd7's log, line for line.
    Herd,
    /// One JSON object per test and line.
    Json,
}

pub fn run(args: Args) -> ExitCode {
    if args.liveness && (args.format == Format::Herd) {
        eprintln!("scopecheck litmus: --liveness has no herd log: use --format human or json");
        return ExitCode::from(2);
    }
    let (files, unreadable) = walk_files(&args.paths);
    for e in &unreadable {
        eprintln!("scopecheck litmus: {e}");
    }
    if files.is_empty() {
        if unreadable.is_empty() {
            eprintln!("scopecheck litmus: no .litmus files under the given paths");
        }
        return ExitCode::from(2);
    }
    if let Some(dir) = &args.dot {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("scopecheck litmus: cannot create {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    let opts = Options {
        unroll: args.unroll,
        witnesses: args.dot.is_some(),
        timeout: crate::budget::timeout(args.timeout),
        max_executions: args.max_executions,
        max_memory: crate::budget::max_memory(args.max_memory),
        interrupt: Some(crate::interrupt::flag()),
        condition_only: args.condition_only,
        ..Options::default()
    };
    let (mut all_decided, mut disagreements, mut bounded) = (unreadable.is_empty(), 0, 0);
    let dot_names = dot::file_names(&files.iter().map(|f| f.as_path()).collect::<Vec<_>>());
    for (done, (file, dot_name)) in files.iter().zip(&dot_names).enumerate() {
        match decide(file, dot_name, &args, &opts) {
            Ok(Decided::Runtime { agree }) => disagreements += usize::from(!agree),
            Ok(Decided::Liveness { bounded: b }) => bounded += usize::from(b),
            Err(e) => {
                eprintln!("{e}");
                all_decided = false;
            }
        }
        if crate::interrupt::requested() {
            eprintln!(
                "scopecheck litmus: interrupted after {} of {} file(s)",
                done + 1,
                files.len()
            );
            return ExitCode::from(crate::interrupt::EXIT_INTERRUPTED);
        }
    }
    if !all_decided {
        ExitCode::from(2)
    } else if disagreements > 0 {
        eprintln!(
            "scopecheck litmus: the runtime reached forbidden states in {disagreements} test(s)"
        );
        ExitCode::from(1)
    } else if bounded > 0 {
        eprintln!(
            "scopecheck litmus: {bounded} liveness verdict(s) bounded: no hang within the raised unroll bound, none proven impossible"
        );
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// What deciding one file found beyond what it printed.
enum Decided {
    /// The axiomatic analysis; with `--runtime`, whether the runtime agrees with the model.
    Runtime { agree: bool },
    /// `--liveness`: whether the verdict is bounded.
    Liveness { bounded: bool },
}

/// Parses, analyses and reports one file; errors carry file:line:col and a caret. Returns
/// whether the runtime (with `--runtime`) agrees with the model.
fn decide(file: &Path, dot_name: &str, args: &Args, opts: &Options) -> Result<Decided, String> {
    let name = file.display().to_string();
    let src = read_source(file).map_err(|e| e.to_string())?;
    let program = parse_all(&src, &name).map_err(|errors| litmus_errors(&errors))?;
    // A model that reads none of a dialect's own base sets would judge the test as if its
    // qualifiers were absent ([`dialect::refusal`]).
    if let Some(needs) = dialect::refusal(&program, |names| args.model.reads_any(names)) {
        return Err(format!("{name}: {needs}, not {}", args.model));
    }
    if args.liveness {
        let ask = super::liveness::Ask {
            model: &args.model,
            unroll: args.unroll,
            progress: args.progress,
            dot: args.dot.as_deref(),
            json: args.json,
        };
        return super::liveness::decide(file, &src, &program, &ask).map(|verdict| {
            Decided::Liveness {
                bounded: verdict == Verdict::Bounded,
            }
        });
    }
    if args.races && !args.model.defines_races() {
        return Err(format!(
            "{name}: --races: the model {} defines no data race (a cat model defines one with `flag ~empty RELATION as NAME`)",
            args.model
        ));
    }
    let start = Instant::now();
    let progress = {
        let name = name.clone();
        Reporter(Arc::new(move |r: &ProgressReport| {
            eprintln!(
                "scopecheck litmus: {name}: {:.0} s, {} executions, {} states so far",
                r.elapsed.as_secs_f64(),
                r.executions,
                r.states
            )
        }))
    };
    let opts = &Options {
        progress: Some(progress),
        ..opts.clone()
    };
    let analysis = analyze(&program, args.model.clone(), opts)
        .map_err(|e| LitmusError::at(&name, &src, e.span, e.message).to_string())?;
    if let (Some((t, span)), true) = (analysis.cut, analysis.states.is_empty()) {
        let message = format!(
            "warning: no run finishes within the unroll bound of {} loop iterations (P{t} takes this branch once more): the condition is judged on no execution, as herd7 judges it on the runs that finish (raise --unroll)",
            args.unroll
        );
        eprintln!("{}", LitmusError::at(&name, &src, span, message));
    }
    let runtime = args
        .runtime
        .then(|| RuntimeStates::explore(&program, &args.model, opts, &analysis));
    // `Time` covers what was asked for: the model's analysis and, with `--runtime`, the runtime's.
    let seconds = start.elapsed().as_secs_f64();
    if let Some(dir) = &args.dot {
        write_dot(&dir.join(dot_name), &program, &args.model, &analysis)?;
    }
    let format = if args.json { Format::Json } else { args.format };
    // A race is reported when asked for, and always where the model makes it undefined
    // behaviour or is a user's model with a flag; under PTX a racy weak read still returns
    // some value the axioms allow, so the PTX models report races only with `--races`.
    let show_races = args.races || (args.model.defines_races() && !args.model.is_ptx());
    if format == Format::Herd {
        print!("{}", herd::log(&program, &analysis, seconds, show_races));
        if let Some(r) = runtime.as_ref().filter(|r| !r.forbidden.is_empty()) {
            eprintln!(
                "{name}: the runtime reaches {} state(s) {} forbids",
                r.forbidden.len(),
                args.model
            );
        }
    } else if format == Format::Json {
        let report = Report {
            test: &program.name,
            file: name,
            model: args.model.name(),
            condition: program.condition.quantifier.keyword(),
            holds: analysis.holds,
            states: analysis.states.iter().map(|s| &s.state).collect(),
            bounded: analysis.bounded,
            stopped: analysis.stopped,
            seconds,
            racy_executions: show_races.then_some(analysis.racy_executions),
            race_free: args.races.then_some(analysis.racy_executions == 0),
            runtime: runtime.as_ref(),
        };
        println!(
            "{}",
            serde_json::to_string(&report).expect("reports serialize")
        );
    } else {
        print_human(
            &program,
            &name,
            &args.model,
            &analysis,
            runtime.as_ref(),
            seconds,
            show_races,
        );
    }
    Ok(Decided::Runtime {
        agree: runtime.is_none_or(|r| r.forbidden.is_empty()),
    })
}
