//! `scopecheck fuzz`: the engine differential in-process, for users without cargo-fuzz.
//!
//! Generates small litmus programs from consecutive seeds, runs each on the axiomatic engine
//! (ptx-v7.5; ptx-v8 for programs with Hopper's asynchronous instructions or shared memory) and on
//! the operational runtime (exhaustive, by state caching), and reports every program where
//! the runtime reaches a state the axioms forbid, the two disagree on whether some execution has
//! a data race, or an engine fails, shrunk to a few instructions. The engines run on a worker thread so that `--seconds` holds even when one
//! program takes long: at the deadline the run reports and ends, abandoning that program.
//!
//! A finding is written to disk first (`--save DIR`, else `fuzz-findings/` in the current
//! directory), as generated, before it is shrunk or reported; then its seed and the command
//! that reproduces it are printed on a line of their own, and again in the closing summary.

mod gpu;
mod json;

use json::{JsonFinding, JsonSummary};

use scopecheck_model::differential::campaign::{self, Campaign, Message, Report};
use scopecheck_model::differential::Options;
use scopecheck_model::litmus::arbitrary::Limits;
use scopecheck_model::litmus::print;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(clap::Args)]
pub struct Args {
    /// How long to fuzz, in seconds (at most a year).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=365 * 86_400))]
    pub seconds: u64,
    /// First seed (programs use consecutive seeds); random when not given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop after this many programs, even before the time is up.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub programs: Option<u64>,
    /// Most instructions per program (2 to 32: a program has two threads of at least one
    /// instruction each; past 32 no engine answers in reasonable time).
    #[arg(long, default_value_t = Limits::differential().max_events as u64,
          value_parser = clap::value_parser!(u64).range(2..=32))]
    pub max_events: u64,
    /// Most `add`/`sub` read-modify-writes per program (slow for the axiomatic engine).
    #[arg(long, default_value_t = Limits::differential().max_arith_rmws)]
    pub arith: usize,
    /// Let `add`/`sub` take a register operand (a loaded value): data-dependent values, which
    /// multiply the value sets the axiomatic engine computes along reads-from.
    #[arg(long)]
    pub arith_registers: bool,
    /// Most distinct runtime configurations per program (the check stays sound when cut short).
    #[arg(long, default_value_t = Options::default().runtime_configurations,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub runtime_configurations: u64,
    /// Worker threads, each checking every `jobs`-th seed (default: one per core; at most 256).
    #[arg(long, short, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Write each finding as a `.litmus` file into this directory (as generated the moment
    /// it is found, then shrunk); default `fuzz-findings` in the current directory.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Fuzz the GPU instead: write the `--programs` programs the GPU fuzzer generates (one GPU,
    /// no clusters or CTA barriers; warp-level instructions, which the harness runs on adjacent
    /// lanes of one warp) from consecutive seeds into `--save` as `gpu-<seed>.litmus`, for
    /// `scopecheck gpu DIR` to run and diff against the model. A program the harness refuses is
    /// reported and not written (exit status 1).
    #[arg(long, requires_all = ["save", "programs"])]
    pub gpu: bool,
    /// Print one JSON object at the end instead of the findings' lines: `first_seed`,
    /// `seconds` (wall clock), `workers`, `programs_checked`, `incomplete` (runtime explorations
    /// cut by the budget), `hopper`, `bulk_copies`, `cluster_barriers` (programs that agreed
    /// with those features), `findings` (each with `seed`, `finding`, `saved`, `reproduce`,
    /// `shrunk`: the shrunk program, or null when the run ended before the shrinking did) and
    /// `interrupted` (true when a signal stopped the run).
    #[arg(long, conflicts_with = "gpu")]
    pub json: bool,
}

/// The directory findings are saved into when `--save` is not given.
const DEFAULT_SAVE: &str = "fuzz-findings";

/// `scopecheck fuzz`.
pub fn run(args: Args) -> ExitCode {
    let first = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    if let (true, Some(dir), Some(n)) = (args.gpu, &args.save, args.programs) {
        return gpu::programs(first, n, dir);
    }
    let limits = Limits {
        max_events: args.max_events as usize,
        max_arith_rmws: args.arith,
        arith_register_operands: args.arith_registers,
        ..Limits::differential()
    };
    let opts = Options {
        runtime_configurations: args.runtime_configurations,
        ..Options::default()
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
        u64::from,
    );
    eprintln!(
        "scopecheck fuzz: ptx-v7.5 (ptx-v8 for async/shared-memory programs) axioms vs the runtime (state caching), seeds from {first}, {} s, {jobs} workers",
        args.seconds
    );
    let save = args
        .save
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SAVE));
    let reproduce = reproduce_command(&args);
    let running = campaign::start(&Campaign {
        first,
        jobs,
        programs: args.programs,
        limits,
        options: opts,
        save: save.clone(),
        reproduce: reproduce.clone(),
    });
    let (rx, counts, per_worker) = (running.messages, running.counts, running.per_worker);

    let tty = std::io::stderr().is_terminal();
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.seconds);
    let mut findings = 0u64;
    // Each finding's seed, in the order found, for the closing summary.
    let mut seeds: Vec<u64> = Vec::new();
    // With --json: every finding, in the order found.
    let mut json_findings: Vec<JsonFinding> = Vec::new();
    let interrupt = crate::interrupt::flag();
    let progress = |findings: u64, end: &str| {
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        // Findings are counted as checked programs too.
        let checked = counts.checked.load(Relaxed) + findings;
        let incomplete = counts.incomplete.load(Relaxed);
        eprint!(
            "{}{checked} programs checked, {:.0} exec/s, {findings} findings ({incomplete} runtime explorations cut by the budget){end}",
            if tty { "\r" } else { "" },
            checked as f64 / secs
        );
        let _ = std::io::stderr().flush();
    };
    let mut next_report = start + Duration::from_secs(1);
    loop {
        let now = Instant::now();
        if now >= deadline || interrupt.load(Relaxed) {
            break;
        }
        // Woken at least every 100 ms to see a signal.
        let wake = next_report
            .min(deadline)
            .min(now + Duration::from_millis(100));
        match rx.recv_timeout(wake - now) {
            Ok(Message::Found {
                seed,
                summary,
                path,
            }) => {
                findings += 1;
                seeds.push(seed);
                let again = reproduce.replace("SEED", &seed.to_string());
                if args.json {
                    json_findings.push(JsonFinding {
                        seed,
                        finding: summary,
                        saved: path,
                        reproduce: again,
                        shrunk: None,
                    });
                } else {
                    if tty {
                        eprintln!();
                    }
                    println!("finding at seed {seed}: {summary}");
                    println!("reproduce: {again}");
                    println!("saved {} (shrinking it now)", path.display());
                }
            }
            Ok(Message::Shrunk(report)) if args.json => {
                if let Some(f) = json_findings.iter_mut().find(|f| f.seed == report.seed) {
                    f.finding = report.finding.to_string();
                    f.shrunk = Some(print(&report.shrunk));
                }
            }
            Ok(Message::Shrunk(report)) => show(&report),
            Ok(Message::Unsaved(e)) => {
                eprintln!("scopecheck fuzz: {e}");
                return ExitCode::from(2);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if Instant::now() >= next_report {
            next_report += Duration::from_secs(1);
            progress(findings, if tty { "" } else { "\n" });
        }
    }
    let shares: Vec<String> = per_worker
        .iter()
        .map(|n| n.load(Relaxed).to_string())
        .collect();
    eprintln!("{jobs} workers, programs per worker: {}", shares.join(" "));
    let agreed = counts.checked.load(Relaxed).max(1) as f64;
    let (hopper, copies) = (
        counts.hopper.load(Relaxed),
        counts.bulk_copies.load(Relaxed),
    );
    let cluster = counts.cluster_barriers.load(Relaxed);
    eprintln!(
        "programs that agreed: {hopper} with Hopper features ({:.1}%), {copies} with bulk copies ({:.1}%), {cluster} with cluster barriers ({:.1}%)",
        100.0 * hopper as f64 / agreed,
        100.0 * copies as f64 / agreed,
        100.0 * cluster as f64 / agreed
    );
    progress(findings, "\n");
    let interrupted = crate::interrupt::requested();
    if args.json {
        let summary = JsonSummary {
            first_seed: first,
            seconds: start.elapsed().as_secs_f64(),
            workers: jobs,
            programs_checked: counts.checked.load(Relaxed) + findings,
            incomplete: counts.incomplete.load(Relaxed),
            hopper,
            bulk_copies: copies,
            cluster_barriers: cluster,
            findings: json_findings,
            interrupted,
        };
        match serde_json::to_string(&summary) {
            Ok(line) => println!("{line}"),
            Err(e) => {
                eprintln!("scopecheck fuzz: {e}");
                return ExitCode::from(2);
            }
        }
    }
    for seed in seeds.iter().filter(|_| !args.json) {
        println!(
            "finding at seed {seed}: reproduce: {} (saved in {})",
            reproduce.replace("SEED", &seed.to_string()),
            save.display()
        );
    }
    if interrupted {
        eprintln!(
            "scopecheck fuzz: interrupted; the summary above counts the programs checked so far"
        );
        ExitCode::from(crate::interrupt::EXIT_INTERRUPTED)
    } else if findings == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Prints a shrunk finding (saved already).
fn show(r: &Report) {
    println!("finding at seed {} shrunk: {}", r.seed, r.finding);
    if r.shrunk != r.generated {
        println!("--- shrunk from:\n{}", print(&r.generated));
    }
}

/// The command that checks one seed's program again, with the options that shape the program
/// and its check (`SEED` stands for the seed).
fn reproduce_command(args: &Args) -> String {
    let mut cmd = "scopecheck fuzz --seed SEED --programs 1 --jobs 1".to_string();
    if args.max_events != Limits::differential().max_events as u64 {
        cmd += &format!(" --max-events {}", args.max_events);
    }
    if args.arith != Limits::differential().max_arith_rmws {
        cmd += &format!(" --arith {}", args.arith);
    }
    if args.arith_registers {
        cmd += " --arith-registers";
    }
    if args.runtime_configurations != Options::default().runtime_configurations {
        cmd += &format!(" --runtime-configurations {}", args.runtime_configurations);
    }
    cmd
}
