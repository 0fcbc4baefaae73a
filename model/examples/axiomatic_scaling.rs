//! How the axiomatic engine scales: prints figures, asserts nothing.
//!
//! `cargo run --release -p scopecheck-model --example axiomatic_scaling -- [TIMEOUT_SECS [TxN...]]`
//!
//! 1. The shared PTX tests (`$SCOPECHECK_SHARED/oracle/ptx`, else `../shared`), in one
//!    process: every state under each model the oracle names (as `cargo test --test oracle`
//!    runs them), then deciding the condition only; CPU seconds and whether the verdicts agree
//!    with the oracle.
//! 2. Random relaxed programs of t threads × n accesses over two locations (`.gpu`-scoped
//!    relaxed loads and stores, threads in two CTAs, a condition on two registers and `x`'s
//!    final value taken from one random interleaving, so it holds): the time to decide the condition (`condition_only`) and to find every
//!    final state (`analyze_states`), each under a timeout (default 10 s: a run that reaches
//!    it answers *bounded*), with the peak resident memory of each run (each runs in a child
//!    process of its own, so the figure is its own).

use scopecheck_model::axiomatic::{analyze, analyze_states, Analysis, Model, Options};
use scopecheck_model::litmus::{parse, parse_file, Program};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// CPU seconds this process has used (user + system), from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends with the last ')'): utime is the 12th, stime
    // the 13th, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// The peak resident set size of this process in MiB (`VmHWM`).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn shared_dir() -> Option<PathBuf> {
    [
        std::env::var_os("SCOPECHECK_SHARED").map(PathBuf::from),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared")),
    ]
    .into_iter()
    .flatten()
    .find(|d| d.join("oracle/ptx/expected.csv").is_file())
}

/// The shared tests with their expected verdicts per model.
fn shared_suite() -> Option<Vec<(Program, Model, bool)>> {
    let oracle = shared_dir()?.join("oracle/ptx");
    let table = scopecheck_model::expected::Expected::read(&oracle.join("expected.csv")).ok()?;
    let columns: Vec<(usize, Model)> = table
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            Model::from_name(&h.replace("ptx_v", "ptx-v").replace('_', ".")).map(|m| (i, m))
        })
        .collect();
    let mut suite = Vec::new();
    for row in &table.rows {
        let program = parse_file(&oracle.join("tests").join(&row.test)).ok()?;
        for &(col, ref model) in &columns {
            let Some(expected) = row.verdicts[col] else {
                continue;
            };
            suite.push((program.clone(), model.clone(), expected));
        }
    }
    Some(suite)
}

fn run_suite(suite: &[(Program, Model, bool)], opts: &Options) -> (f64, f64, usize) {
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    let agree = suite
        .iter()
        .filter(|(p, m, expected)| analyze(p, m.clone(), opts).is_ok_and(|a| a.holds == *expected))
        .count();
    (cpu_seconds() - cpu, wall.elapsed().as_secs_f64(), agree)
}

/// A small deterministic generator (xorshift), so the table is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// t threads of n relaxed `.gpu` accesses to x or y (about half loads), stores of distinct
/// values, threads alternating between two CTAs. The condition asks for the values of the first
/// two loads and x's final value in one random interleaving (so it holds: sequentially
/// consistent outcomes are allowed, and deciding it means finding a witness).
fn random_program(t: usize, n: usize, seed: u64) -> Program {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut value = 1;
    // Per thread: (is a load, location 0 = x / 1 = y, stored value or register).
    let mut threads: Vec<Vec<(bool, usize, u64)>> = Vec::new();
    for _ in 0..t {
        let mut ops = Vec::new();
        let mut regs = 0;
        for _ in 0..n {
            let loc = rng.below(2) as usize;
            if rng.below(2) == 0 {
                ops.push((true, loc, regs));
                regs += 1;
            } else {
                ops.push((false, loc, value));
                value += 1;
            }
        }
        threads.push(ops);
    }
    // One random interleaving.
    let mut memory = [0u64; 2];
    let mut next = vec![0usize; t];
    let mut loaded: Vec<(usize, u64, u64)> = Vec::new();
    while let Some(th) = {
        let live: Vec<usize> = (0..t).filter(|&th| next[th] < n).collect();
        (!live.is_empty()).then(|| live[rng.below(live.len() as u64) as usize])
    } {
        let (load, loc, v) = threads[th][next[th]];
        if load {
            loaded.push((th, v, memory[loc]));
        } else {
            memory[loc] = v;
        }
        next[th] += 1;
    }
    loaded.sort_unstable();
    let name = |l: usize| if l == 0 { "x" } else { "y" };
    let width = 26;
    let header: Vec<String> = (0..t)
        .map(|th| format!("{:width$}", format!("P{th}@cta {},gpu 0", th % 2)))
        .collect();
    let mut text = format!(
        "PTX random-{t}x{n}\n{{\nx=0;\ny=0;\n}}\n {} ;\n",
        header.join(" | ")
    );
    for row in 0..n {
        let cells: Vec<String> = threads
            .iter()
            .map(|ops| {
                let (load, loc, v) = ops[row];
                let op = match load {
                    true => format!("ld.relaxed.gpu r{v}, {}", name(loc)),
                    false => format!("st.relaxed.gpu {}, {v}", name(loc)),
                };
                format!("{op:width$}")
            })
            .collect();
        text.push_str(&format!(" {} ;\n", cells.join(" | ")));
    }
    let mut terms: Vec<String> = loaded
        .iter()
        .take(2)
        .map(|(th, r, v)| format!("P{th}:r{r} == {v}"))
        .collect();
    terms.push(format!("x == {}", memory[0]));
    text.push_str(&format!("exists ({})\n", terms.join(" /\\ ")));
    parse(&text, "random").expect("generated programs parse")
}

fn describe(a: &Analysis) -> String {
    let verdict = if a.holds { "holds" } else { "does not hold" };
    match a.stopped {
        Some(stop) => format!("{verdict}, bounded ({stop})"),
        None => verdict.to_string(),
    }
}

/// One measurement, in this process (a child of the table's): `decide` or `states` for the
/// random t×n program, printed as `seconds peak_MiB states verdict`.
fn measure_one(mode: &str, t: usize, n: usize, timeout: f64) {
    let p = random_program(t, n, (t * 100 + n) as u64);
    let opts = Options {
        timeout: Some(Duration::from_secs_f64(timeout)),
        condition_only: mode == "decide",
        ..Options::default()
    };
    let start = Instant::now();
    let a = match mode {
        "decide" => analyze(&p, Model::PtxV75, &opts),
        _ => analyze_states(&p, Model::PtxV75, &opts),
    }
    .expect("it analyses");
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{seconds:.3} {:.1} {} {}",
        peak_mib(),
        a.states.len(),
        describe(&a)
    );
}

/// Runs [`measure_one`] in a child process, so that each figure has its own peak memory.
fn measure(mode: &str, t: usize, n: usize, timeout: f64) -> (f64, f64, usize, String) {
    let out = std::process::Command::new(std::env::current_exe().expect("own path"))
        .args([
            "--one",
            mode,
            &t.to_string(),
            &n.to_string(),
            &timeout.to_string(),
        ])
        .output()
        .expect("run a measurement");
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let mut fields = line.splitn(4, ' ');
    let mut number = || fields.next().and_then(|f| f.parse::<f64>().ok());
    match (number(), number(), number()) {
        (Some(s), Some(mib), Some(states)) => {
            let verdict = line.splitn(4, ' ').nth(3).unwrap_or("").to_string();
            (s, mib, states as usize, verdict)
        }
        _ => (f64::NAN, f64::NAN, 0, format!("failed: {}", out.status)),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--one") {
        let number = |i: usize| args[i].parse::<usize>().expect("a number");
        let timeout = args[5].parse::<f64>().expect("a number");
        measure_one(&args[2], number(3), number(4), timeout);
        return;
    }
    let timeout = args.get(1).map_or(10.0, |s| {
        s.parse::<f64>().expect("TIMEOUT_SECS is a number")
    });
    match shared_suite() {
        Some(suite) => {
            let every = run_suite(&suite, &Options::default());
            let decide = Options {
                condition_only: true,
                ..Options::default()
            };
            let decided = run_suite(&suite, &decide);
            println!(
                "shared PTX tests: {} verdicts (both models), one process",
                suite.len()
            );
            println!(
                "  every state:        {:.3} s CPU ({:.3} s wall), {}/{} agree with the oracle",
                every.0,
                every.1,
                every.2,
                suite.len()
            );
            println!(
                "  condition only:     {:.3} s CPU ({:.3} s wall), {}/{} agree with the oracle",
                decided.0,
                decided.1,
                decided.2,
                suite.len()
            );
        }
        None => println!("shared PTX tests: not found (set SCOPECHECK_SHARED)"),
    }
    println!();
    println!(
        "random relaxed programs, 2 locations, ptx-v7.5, timeout {timeout} s per run, \
         each run in its own process (peak resident memory)"
    );
    println!(
        "{:>6}  {:>9} {:>7}  {:<30} {:>9} {:>7} {:>7}  {:<30}",
        "t×n", "decide s", "MiB", "verdict", "states s", "MiB", "states", "verdict"
    );
    // Sizes named after the timeout (`4x5 8x8`) replace the default list.
    let mut sizes: Vec<(usize, usize)> = args
        .iter()
        .skip(2)
        .map(|a| {
            let (t, n) = a.split_once(['x', '×']).expect("sizes read TxN");
            (
                t.parse().expect("T is a number"),
                n.parse().expect("N is a number"),
            )
        })
        .collect();
    if sizes.is_empty() {
        sizes = vec![(3, 5), (4, 4), (4, 5), (5, 5), (6, 6), (8, 8)];
    }
    for (t, n) in sizes {
        let (d_s, d_mib, _, d_verdict) = measure("decide", t, n, timeout);
        let (s_s, s_mib, states, s_verdict) = measure("states", t, n, timeout);
        println!(
            "{:>6}  {:>9.3} {:>7.1}  {:<30} {:>9.3} {:>7.1} {:>7}  {:<30}",
            format!("{t}×{n}"),
            d_s,
            d_mib,
            d_verdict,
            s_s,
            s_mib,
            states,
            s_verdict
        );
    }
}
