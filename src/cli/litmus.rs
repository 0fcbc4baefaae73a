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
    allowed_among, analyze, condition_holds_on, dot, filter_admits, Analysis, FinalMemory,
    FinalState, Model, Options, Progress as Reporter, Report as ProgressReport, Stop,
};
use scopecheck_model::cat::registry;
use scopecheck_model::differential::runtime_unmodelled;
use scopecheck_model::herd;
use scopecheck_model::litmus::error::render as litmus_errors;
use scopecheck_model::litmus::print::{prop, Level};
use scopecheck_model::litmus::{parse_all, read_source, walk_files, LitmusError, Program};
use scopecheck_model::runtime::litmus::{explore_states, Options as RuntimeOptions};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// The `--json` line of one test.
#[derive(Serialize)]
struct Report<'a> {
    test: &'a str,
    file: String,
    model: &'a str,
    condition: &'static str,
    holds: bool,
    states: Vec<&'a scopecheck_model::axiomatic::FinalState>,
    bounded: bool,
    /// Why the search stopped early (`timeout`, `max-executions`), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<Stop>,
    seconds: f64,
    /// Executions with a data race (undefined behaviour); Tile IR only.
    #[serde(skip_serializing_if = "Option::is_none")]
    racy_executions: Option<u64>,
    /// With `--races`: no consistent execution has a data race.
    #[serde(skip_serializing_if = "Option::is_none")]
    race_free: Option<bool>,
    /// With `--runtime`: the final states the operational runtime reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime: Option<&'a RuntimeStates>,
}

/// What the operational runtime reaches on a test (`--runtime`).
#[derive(Serialize)]
struct RuntimeStates {
    reached: BTreeSet<FinalState>,
    /// Reached, but forbidden by the model: an engine disagreement.
    forbidden: Vec<FinalState>,
    /// Every execution explored (not cut by the search budget, a deadlock or the unroll bound).
    complete: bool,
    /// Allowed states the runtime does not reach: the runtime never lets a load read a store
    /// that is not yet executed (load buffering), so these are outside what it can verify.
    unreached: usize,
    configurations: u64,
    /// Seconds the runtime's exploration took (part of the test's `Time`).
    seconds: f64,
    /// Why the runtime was not compared, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
}

impl RuntimeStates {
    /// `allowed` is the model's analysis; when it lists only some allowed states (stopped by
    /// its budget, or `--condition-only`), the reached states it does not list are decided by
    /// the model one by one ([`allowed_among`], without the budget): a state is called
    /// forbidden only when the model has been asked about it.
    fn explore(p: &Program, model: &Model, opts: &Options, allowed: &Analysis) -> RuntimeStates {
        let mut out = RuntimeStates {
            reached: BTreeSet::new(),
            forbidden: Vec::new(),
            complete: false,
            unreached: 0,
            configurations: 0,
            seconds: 0.0,
            skipped: None,
        };
        let partial = allowed_listed_partially(opts, allowed);
        let start = Instant::now();
        if let Some(why) = runtime_unmodelled(p) {
            out.skipped = Some(why.to_string());
            return out;
        }
        let mut o = explore_states(p, &RuntimeOptions::default());
        out.seconds = start.elapsed().as_secs_f64();
        // The runtime reports every location; compare the ones the analysis reports.
        o.states = std::mem::take(&mut o.states)
            .into_iter()
            .map(|s| s.reported(p, FinalMemory::Condition))
            .collect();
        if let Some(e) = o.error {
            out.skipped = Some(e);
            return out;
        }
        let allowed: BTreeSet<&FinalState> = allowed.states.iter().map(|s| &s.state).collect();
        // States the test's `filter` leaves out are not compared, as the model's are not.
        let o_states: BTreeSet<FinalState> = o
            .states
            .into_iter()
            .filter(|s| filter_admits(p, s))
            .collect();
        let mut unlisted: BTreeSet<FinalState> = o_states
            .iter()
            .filter(|s| !allowed.contains(s))
            .cloned()
            .collect();
        if partial && !unlisted.is_empty() {
            let exact = Options {
                condition_only: false,
                timeout: None,
                max_executions: None,
                progress: None,
                ..opts.clone()
            };
            match allowed_among(p, model.clone(), &exact, &unlisted) {
                Ok(also) => unlisted.retain(|s| !also.contains(s)),
                Err(e) => {
                    out.skipped = Some(format!(
                        "the model cannot decide the runtime's states: {}",
                        e.message
                    ));
                    return out;
                }
            }
        }
        out.forbidden = unlisted.into_iter().collect();
        out.unreached = allowed.iter().filter(|s| !o_states.contains(s)).count();
        out.reached = o_states;
        out.complete = o.complete;
        out.configurations = o.configurations;
        out
    }
}

/// Whether the analysis lists only some of the allowed states: its search stopped at a budget,
/// or it was asked to decide the condition only.
fn allowed_listed_partially(opts: &Options, a: &Analysis) -> bool {
    opts.condition_only || a.stopped.is_some()
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
    // A model that reads none of a dialect's annotations would judge the test as if they
    // were absent ([`Model::reads_vulkan`]).
    if program.vulkan.is_some() && !args.model.reads_vulkan() {
        return Err(format!(
            "{name}: a Vulkan test needs a Vulkan model: --model vulkan.cat (or vulkan-nochains.cat), not {}",
            args.model
        ));
    }
    if program.opencl.is_some() && !args.model.reads_opencl() {
        return Err(format!(
            "{name}: an OpenCL test needs an OpenCL model: --model opencl.cat, not {}",
            args.model
        ));
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

fn condition_text(p: &Program) -> String {
    format!(
        "{} ({})",
        p.condition.quantifier.keyword(),
        prop(p, &p.condition.prop, Level::Or)
    )
}

fn print_human(
    p: &Program,
    file: &str,
    model: &Model,
    a: &Analysis,
    runtime: Option<&RuntimeStates>,
    seconds: f64,
    show_races: bool,
) {
    println!("Test {} ({file}) under {model}", p.name);
    println!("States {}", a.states.len());
    if a.states.is_empty() {
        println!("  (no execution runs to its end: every candidate is forbidden or deadlocks)");
    }
    for s in &a.states {
        let mark = if condition_holds_on(p, &s.state) {
            " *"
        } else {
            ""
        };
        let reached = match runtime {
            Some(r) if r.reached.contains(&s.state) => "  [runtime]",
            _ => "",
        };
        println!("  {:>6} x  {}{mark}{reached}", s.witnesses, s.state);
    }
    // herd7's verdict: `Ok` when the condition validates (exists: some state satisfies the
    // proposition; ~exists: none does; forall: all do), `No` otherwise.
    println!("{}", if a.holds { "Ok" } else { "No" });
    let why = match a.stopped {
        Some(Stop::Interrupted) => {
            " (interrupted: bounded, the states found before the signal)".to_string()
        }
        Some(stop) => {
            format!(" (bounded: the search stopped at its {stop} budget; states found so far)")
        }
        None if a.bounded => " (bounded: loops cut at the unroll bound)".to_string(),
        None => String::new(),
    };
    let verdict = if a.holds { "holds" } else { "does not hold" };
    println!("Condition {} {verdict}{why}", condition_text(p));
    if show_races {
        println!(
            "Data races in {} of {} executions{}",
            a.racy_executions,
            a.executions,
            if a.racy_executions > 0 && *model == Model::TileIr {
                " (undefined behaviour)"
            } else {
                ""
            }
        );
        println!(
            "{}",
            if a.racy_executions == 0 {
                "Race-free: no consistent execution has a data race"
            } else {
                "Racy: some consistent execution has a data race"
            }
        );
    }
    if let Some(r) = runtime {
        print_runtime(model, a, r);
    }
    // With `--runtime`, `Time` includes the runtime's exploration, shown in parentheses.
    let of_runtime = runtime.map_or(String::new(), |r| format!(" (runtime {:.4} s)", r.seconds));
    println!(
        "Executions {}  Time {seconds:.4} s{of_runtime}",
        a.executions
    );
    println!();
}

fn print_runtime(model: &Model, a: &Analysis, r: &RuntimeStates) {
    if let Some(why) = &r.skipped {
        println!("Runtime: {why}");
        return;
    }
    let extent = if r.complete {
        "exhaustive"
    } else {
        "bounded: the search was cut short"
    };
    println!(
        "Runtime reaches {} of {} allowed states ({extent}, {} configurations)",
        r.reached.len() - r.forbidden.len(),
        a.states.len(),
        r.configurations
    );
    if r.unreached > 0 {
        println!(
            "Runtime cannot reach {} allowed state(s): its verdicts cover executions without \
             load buffering (a load never reads a store not yet executed)",
            r.unreached
        );
    }
    if !r.forbidden.is_empty() {
        println!(
            "Runtime reaches {} state(s) {model} forbids (an engine disagreement):",
            r.forbidden.len()
        );
        for s in &r.forbidden {
            println!("  {s}");
        }
    }
}

/// `DIR/<file stem>.dot`: a witness of a state satisfying the proposition when there is one
/// (the interesting execution), else of the first allowed state.
fn write_dot(path: &Path, p: &Program, model: &Model, a: &Analysis) -> Result<(), String> {
    let Some(text) = dot::render_analysis(p, model, a) else {
        return Ok(());
    };
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
