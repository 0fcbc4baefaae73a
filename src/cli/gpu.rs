//! `scopecheck gpu`: run litmus files on the GPU and diff each observed final state against the
//! model (also `--bench` for throughput and `--mutants` for the mutation score).

use scopecheck_gpu::diff::{self, Allowed, TestDiff};
use scopecheck_gpu::mutate::{Operator, Side};
use scopecheck_gpu::record::{self, TestRecord};
use scopecheck_gpu::runner::{Compiled, DeviceInfo, Gpu, GpuError, Layout, Params};
use scopecheck_gpu::tune::{self, TunedEnv};
use scopecheck_gpu::{codegen, confidence, mutate, oracle};
use scopecheck_model::litmus::{self, Program};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Litmus files or directories (searched recursively for `*.litmus`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Launches per test.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,
    /// Instances per test (replaces `--iterations`: as many launches as this budget needs).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: Option<u64>,
    // Every registered model, one per line, and `none` (`cat::registry::help`).
    #[arg(long, default_value = "ptx-v7.5", value_parser = parse_model,
          help = format!("{}\n  none  ask no model: report the observed states only", scopecheck_model::cat::registry::help()))]
    pub model: String,
    /// Write every result as JSON here. Without a GPU the file records
    /// `"skipped": "skipped: no GPU (REASON)"` and the tests that would have run, and the exit
    /// status is 0 (2 if a test could not be read).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Where forbidden observations are recorded.
    #[arg(long, default_value = "corpus/violations")]
    pub violations: PathBuf,
    /// Instances per launch, as a power of two (5 to 26: what the harness can index).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(5..=26))]
    pub instances_log2: u32,
    /// Instances side by side in one block, as a power of two (0 to 10: at most 1024 threads a
    /// block).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub per_block_log2: u32,
    /// Words between two locations' slots (32 words = 128 bytes: one cache line each).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub stride: u32,
    /// Litmus threads of one CTA in different warps (`spread`) or adjacent lanes (`warp`).
    #[arg(long, default_value = "spread", value_parser = parse_layout)]
    pub layout: Layout,
    /// Spins of the per-instance start barrier (0: off).
    #[arg(long, default_value_t = 0)]
    pub barrier_spins: u32,
    /// Scratch accesses per testing thread before the test (0: off).
    #[arg(long, default_value_t = 0)]
    pub pre_stress: u32,
    /// Extra memory-stress blocks running beside the test.
    #[arg(long, default_value_t = 0)]
    pub stress_blocks: u32,
    /// Scratch accesses per thread of a stress block.
    #[arg(long, default_value_t = 64)]
    pub stress_iters: u32,
    /// Scratch lines the stress traffic spreads over, as a power of two (fewer: more contention).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=20))]
    pub scratch_lines_log2: u32,
    /// Seed of the random stream that picks each launch's location permutations and stress
    /// addresses: the same seed, settings and GPU repeat a run's launches.
    #[arg(long, default_value_t = 0x5c09ec4ec)]
    pub seed: u64,
    /// Index each location array through a fresh random permutation per launch (`false`:
    /// instance `i` uses slot `i` of every array).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub permute_locations: bool,
    /// Stress step: 0 store+load, 1 store+store, 2 load+load, 3 load+store.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..4))]
    pub stress_pattern: u32,
    /// Dynamic shared memory reserved per block, in bytes (≤ 49152): lowers occupancy.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=49152))]
    pub occupancy_smem: u32,
    /// Spinning readers: a load the condition pins to a value other than its location's initial
    /// one is retried up to this many times until it returns that value (0: off). Instances
    /// whose reader gives up are reported as such, never as a final state.
    #[arg(long, default_value_t = 0)]
    pub spin: u32,
    /// Tune: try this many random environments per test (the defaults first), each on
    /// `--tune-budget` instances, keep the one with the highest weak-outcome rate, write it
    /// beside the test as `<stem>.env.json`, then run the test with it.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub tune: Option<usize>,
    /// Instances per tuning trial.
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub tune_budget: u64,
    /// Reuse tuned environments: `<stem>.env.json` beside a test, else `env.json` in its
    /// directory; tests without one run with the command line's settings. `--budget`, `--seed`,
    /// `--watchdog` and a non-zero `--spin` still apply.
    #[arg(long)]
    pub tuned: bool,
    /// Confidence of MC Mutants' reproducibility rule: a weak outcome counts as reproducible
    /// when seen at least ⌈−ln(1−p)⌉ times within the budget.
    #[arg(long, default_value_t = 0.95, value_parser = probability)]
    pub confidence: f64,
    /// GPUs to run on, one worker each, in parallel: `all` or a list like `0,1` (default: GPU 0).
    /// The JSON then holds one result set, histograms included, per device.
    #[arg(long, value_parser = parse_devices)]
    pub devices: Option<Devices>,
    /// The stress preset that killed the most mutants on an H100 (see gpu-validate/NOTES.md):
    /// `--barrier-spins 2000 --stress-blocks 132 --pre-stress 32 --per-block-log2 5`, replacing
    /// those four settings.
    #[arg(long)]
    pub stress: bool,
    /// Seconds a batch of launches may take before the watchdog gives up.
    #[arg(long, default_value_t = 20.0, value_parser = positive_seconds)]
    pub watchdog: f64,
    /// Print instances/s for several launch shapes instead of diffing (≥ 1e8 instances each).
    #[arg(long)]
    pub bench: bool,
    /// Mutation score: weaken one ordering or scope of each test whose condition the model
    /// forbids, and count the mutants whose (now allowed) outcome the GPU shows within
    /// `--iterations` launches.
    #[arg(long)]
    pub mutants: bool,
    /// Write the generated CUDA harness of each test into this directory and exit (no GPU used).
    #[arg(long)]
    pub emit: Option<PathBuf>,
}

/// `--model`: `none`, or a model by the registry's rules, checked now so that an unknown name
/// is a usage error before any GPU work.
fn parse_model(s: &str) -> Result<String, String> {
    if s != "none" {
        super::parse_model(s)?;
    }
    Ok(s.to_string())
}

/// A finite number of seconds above zero.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        Ok(_) => Err(format!("{s} is not a number of seconds above 0")),
        Err(e) => Err(e.to_string()),
    }
}

/// A probability strictly between 0 and 1 (at 1, ⌈−ln(1−p)⌉ is infinite).
fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1.0 => Ok(p),
        Ok(_) => Err(format!("{s} is not a probability strictly between 0 and 1")),
        Err(e) => Err(e.to_string()),
    }
}

/// Which GPUs `--devices` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// Every GPU the driver lists.
    All,
    /// These device indices, each once, in the order given.
    List(Vec<usize>),
}

fn parse_devices(s: &str) -> Result<Devices, String> {
    if s == "all" {
        return Ok(Devices::All);
    }
    let mut list = Vec::new();
    for part in s.split(',') {
        let d: usize = part
            .trim()
            .parse()
            .map_err(|_| format!("`{part}` is not a device index (use `all` or e.g. `0,1`)"))?;
        if !list.contains(&d) {
            list.push(d);
        }
    }
    Ok(Devices::List(list))
}

fn parse_layout(s: &str) -> Result<Layout, String> {
    match s {
        "spread" => Ok(Layout::Spread),
        "warp" => Ok(Layout::Warp),
        _ => Err(format!("unknown layout `{s}` (spread, warp)")),
    }
}

impl Args {
    fn params(&self) -> Params {
        let mut p = Params {
            launches: self.iterations,
            instances_log2: self.instances_log2,
            per_block_log2: self.per_block_log2,
            stride: self.stride,
            layout: self.layout,
            barrier_spins: self.barrier_spins,
            pre_stress: self.pre_stress,
            stress_blocks: self.stress_blocks,
            stress_iters: self.stress_iters,
            scratch_lines_log2: self.scratch_lines_log2,
            seed: self.seed,
            watchdog_s: self.watchdog,
            permute_locations: self.permute_locations,
            stress_pattern: self.stress_pattern,
            spin_bound: self.spin,
            occupancy_smem: self.occupancy_smem,
            ..Params::default()
        };
        if self.stress {
            p.barrier_spins = 2000;
            p.stress_blocks = 132;
            p.pre_stress = 32;
            p.per_block_log2 = 5;
        }
        if let Some(b) = self.budget {
            p.launches = tune::launches_for(b, p.instances_log2);
        }
        p
    }

    /// The command line's settings with a tuned environment's in their place (budget, seed and
    /// watchdog stay the command line's).
    fn with_env(&self, env: &Params) -> Params {
        let own = self.params();
        let mut p = Params {
            launches: own.launches,
            seed: own.seed,
            watchdog_s: own.watchdog_s,
            batch: own.batch,
            ..env.clone()
        };
        p.launches = match self.budget {
            Some(b) => tune::launches_for(b, p.instances_log2),
            None => self.iterations,
        };
        if self.spin > 0 {
            // An explicit `--spin` turns spinning readers on over any environment.
            p.spin_bound = self.spin;
        }
        p
    }
}

/// A litmus file, read and parsed.
struct Test {
    file: PathBuf,
    source: String,
    program: Program,
}

/// The litmus files under `paths`, walked as every command walks them
/// (`scopecheck_model::input::walk`: sorted, loop-safe, each file once).
fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        return Err(format!("{}: no such file or directory", missing.display()));
    }
    litmus::collect_files(paths).map_err(|e| e.to_string())
}

fn load(files: &[PathBuf]) -> (Vec<Test>, usize) {
    let mut tests = Vec::new();
    let mut bad = 0;
    for f in files {
        let source = match std::fs::read_to_string(f) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: {e}", f.display());
                bad += 1;
                continue;
            }
        };
        match litmus::parse(&source, &f.display().to_string()) {
            Ok(program) => tests.push(Test {
                file: f.clone(),
                source,
                program,
            }),
            Err(e) => {
                eprintln!("{e}");
                bad += 1;
            }
        }
    }
    (tests, bad)
}

pub fn run(args: Args) -> ExitCode {
    let files = match collect(&args.paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("scopecheck gpu: {e}");
            return ExitCode::from(2);
        }
    };
    let (tests, bad) = load(&files);
    if let Some(dir) = &args.emit {
        return emit(&tests, dir, bad);
    }
    let count = match scopecheck_gpu::device_count() {
        Ok(n) => n,
        Err(GpuError::NoGpu(why)) => {
            println!(
                "scopecheck gpu: no GPU ({why}); skipped {} test(s)",
                tests.len()
            );
            if let Some(path) = &args.json {
                let record = NoGpu {
                    command: std::env::args().collect(),
                    date: record::now_utc(),
                    model: args.model.clone(),
                    skipped: format!("skipped: no GPU ({why})"),
                    tests: tests.iter().map(|t| t.file.display().to_string()).collect(),
                };
                let json = serde_json::to_string_pretty(&record).expect("a record serialises");
                if let Err(e) = std::fs::write(path, json + "\n") {
                    eprintln!("scopecheck gpu: writing {}: {e}", path.display());
                    return ExitCode::from(2);
                }
                println!("results written to {}", path.display());
            }
            return if bad == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            };
        }
        Err(e) => {
            eprintln!("scopecheck gpu: {e}");
            return ExitCode::from(2);
        }
    };
    let devices = match &args.devices {
        None => vec![0],
        Some(Devices::All) => (0..count).collect(),
        Some(Devices::List(l)) => l.clone(),
    };
    if let Some(d) = devices.iter().find(|&&d| d >= count) {
        eprintln!("scopecheck gpu: --devices names GPU {d}, but the driver sees {count}");
        return ExitCode::from(2);
    }
    if devices.len() > 1 && args.tune.is_some() {
        eprintln!("scopecheck gpu: --tune writes one environment per test; tune on one device");
        return ExitCode::from(2);
    }
    let date = record::now_utc();
    let several = devices.len() > 1;
    // One worker per device, each with its own context, all in parallel.
    let results: Vec<Result<(bool, Output), String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = devices
            .iter()
            .map(|&d| {
                let (args, tests, date) = (&args, &tests, date.clone());
                scope.spawn(move || run_device(args, tests, d, date, several))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err("a device worker panicked".into()))
            })
            .collect()
    });
    let mut ok = true;
    let mut outputs = Vec::new();
    for r in results {
        match r {
            Ok((good, out)) => {
                ok &= good;
                outputs.push(out);
            }
            Err(e) => {
                eprintln!("scopecheck gpu: {e}");
                ok = false;
            }
        }
    }
    if let Some(path) = &args.json {
        let json = if !several && outputs.len() == 1 {
            serde_json::to_string_pretty(&outputs[0])
        } else {
            serde_json::to_string_pretty(&MultiOutput {
                command: std::env::args().collect(),
                date,
                devices: outputs,
            })
        }
        .expect("results serialise");
        if let Err(e) = std::fs::write(path, json + "\n") {
            eprintln!("scopecheck gpu: writing {}: {e}", path.display());
            return ExitCode::from(2);
        }
        println!("results written to {}", path.display());
    }
    if ok && bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Everything one device does for the command; `Err` when the device cannot be opened.
fn run_device(
    args: &Args,
    tests: &[Test],
    ordinal: usize,
    date: String,
    several: bool,
) -> Result<(bool, Output), String> {
    let gpu = scopecheck_gpu::open_device(ordinal).map_err(|e| e.to_string())?;
    let prefix = if several {
        format!("[gpu {ordinal}] ")
    } else {
        String::new()
    };
    println!(
        "{prefix}device {ordinal}: {} (sm {}, {} SMs), driver {} (CUDA {})",
        gpu.info.name,
        gpu.info.compute_capability,
        gpu.info.multiprocessors,
        gpu.info.driver,
        gpu.info.driver_cuda_version
    );
    let out = Output {
        command: std::env::args().collect(),
        device: gpu.info.clone(),
        date: date.clone(),
        model: args.model.clone(),
        params: args.params(),
        tests: vec![],
        unsupported: vec![],
        errors: vec![],
        bench: vec![],
        mutants: vec![],
        mutation_score: None,
        operators: vec![],
        tuned: vec![],
    };
    let mut session = Session {
        args,
        gpu: &gpu,
        date,
        out,
        prefix,
    };
    let ok = if args.bench {
        session.bench(tests)
    } else if args.mutants {
        session.mutants(tests)
    } else {
        session.check_all(tests)
    };
    Ok((ok, session.out))
}

fn emit(tests: &[Test], dir: &Path, bad: usize) -> ExitCode {
    let mut failed = bad;
    // Each reason the harness gives, with how many programs it refused for it.
    let mut refused: std::collections::BTreeMap<String, usize> = Default::default();
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("scopecheck gpu: {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    for t in tests {
        match codegen::generate(&t.program) {
            Ok(h) => {
                let path = dir.join(format!("{}.cu", record::slug(&t.program.name)));
                if let Err(e) = std::fs::write(&path, &h.source) {
                    eprintln!("{}: {e}", path.display());
                    failed += 1;
                } else {
                    println!("{}: wrote {}", t.file.display(), path.display());
                }
            }
            Err(u) => {
                println!("{}: {u}", t.file.display());
                *refused.entry(u.0.clone()).or_insert(0usize) += 1;
            }
        }
    }
    let total: usize = refused.values().sum();
    println!(
        "emit: {} harness(es) written, {total} refused",
        tests.len() - total
    );
    for (why, n) in &refused {
        println!("  {n} refused: {why}");
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Everything `--json` writes. Each test record repeats device, date and parameters; the header
/// says them once for the whole run (bench and mutant rows rely on it).
#[derive(Serialize)]
struct Output {
    command: Vec<String>,
    device: DeviceInfo,
    date: String,
    model: String,
    params: Params,
    tests: Vec<TestRecord>,
    unsupported: Vec<Skipped>,
    errors: Vec<Skipped>,
    bench: Vec<BenchRow>,
    mutants: Vec<MutantRow>,
    mutation_score: Option<MutationScore>,
    /// The mutation table: per operator and side, live mutants and how many the device killed.
    operators: Vec<OperatorRow>,
    /// Tuned environments written by `--tune`.
    tuned: Vec<TunedRow>,
}

/// `--json` on a machine without a GPU: what was asked, and why nothing ran.
#[derive(Serialize)]
struct NoGpu {
    command: Vec<String>,
    date: String,
    model: String,
    /// `skipped: no GPU (REASON)`.
    skipped: String,
    /// The tests that would have run.
    tests: Vec<String>,
}

/// `--json` with `--devices` naming several GPUs: one result set per device.
#[derive(Serialize)]
struct MultiOutput {
    command: Vec<String>,
    date: String,
    devices: Vec<Output>,
}

#[derive(Serialize)]
struct TunedRow {
    test: String,
    env_file: String,
    trials: usize,
    budget_per_trial: u64,
    rate: f64,
    default_rate: f64,
}

#[derive(Serialize)]
struct OperatorRow {
    operator: String,
    side: String,
    live: usize,
    killed: usize,
    /// Live mutants whose weak outcome never showed: the hardware behaved more strongly than
    /// the model requires (or the budget was too small).
    never_shown: usize,
}

#[derive(Serialize)]
struct Skipped {
    file: String,
    reason: String,
}

#[derive(Serialize)]
struct BenchRow {
    test: String,
    instances_log2: u32,
    stride: u32,
    instances: u64,
    seconds: f64,
    instances_per_s: f64,
    condition_rate: f64,
}

#[derive(Serialize)]
struct MutantRow {
    test: String,
    mutation: String,
    operator: Operator,
    side: Side,
    instances: u64,
    weak: u64,
    killed: bool,
    /// MC Mutants' rule at `--confidence`: enough kills to expect them again with this budget.
    reproducible: bool,
}

#[derive(Serialize)]
struct MutationScore {
    live: usize,
    killed: usize,
    budget_instances_per_mutant: u64,
}

struct Session<'a> {
    args: &'a Args,
    gpu: &'a Gpu,
    date: String,
    out: Output,
    /// `[gpu N] ` when several devices print at once.
    prefix: String,
}

impl Session<'_> {
    /// Print a block of lines at once (workers of several devices interleave whole blocks).
    fn say(&self, text: &str) {
        let mut block = String::new();
        for line in text.lines() {
            let _ = writeln!(block, "{}{line}", self.prefix);
        }
        print!("{block}");
    }

    /// The settings a test runs with, and where they came from.
    fn params_for(&mut self, t: &Test) -> (Params, String) {
        if self.args.tuned {
            if let Some(path) = tune::find_env(&t.file) {
                match tune::read_env(&path) {
                    Ok(env) => {
                        return (
                            self.args.with_env(&env.params),
                            format!("tuned: {}", path.display()),
                        )
                    }
                    Err(e) => self.say(&format!("{e}; using the command line's settings")),
                }
            }
        }
        (self.args.params(), "command line".into())
    }

    fn skip(&mut self, file: &Path, reason: String, unsupported: bool) {
        self.say(&format!("{}: {reason}", file.display()));
        let s = Skipped {
            file: file.display().to_string(),
            reason,
        };
        if unsupported {
            self.out.unsupported.push(s);
        } else {
            self.out.errors.push(s);
        }
    }

    /// Generate, compile and the model's allowed set, or why not.
    fn prepare(&mut self, file: &Path, program: &Program) -> Option<(Compiled, Allowed)> {
        let harness = match codegen::generate(program) {
            Ok(h) => h,
            Err(u) => {
                self.skip(file, u.to_string(), true);
                return None;
            }
        };
        let allowed = match oracle::allowed(program, &harness.observables, &self.args.model) {
            Ok(a) => a,
            Err(e) => {
                // The hardware's answer is still worth having: run, and list it unjudged.
                let reason = format!("{e}; running without a verdict");
                self.skip(file, reason.clone(), false);
                Allowed {
                    model: format!("{} (no verdict: {e})", self.args.model),
                    states: None,
                    bounded: false,
                }
            }
        };
        match self.gpu.compile(&harness) {
            Ok(c) => Some((c, allowed)),
            Err(e) => {
                self.skip(file, e.to_string(), false);
                None
            }
        }
    }

    fn run_one(
        &mut self,
        t: &Test,
        program: &Program,
        params: &Params,
        env: &str,
    ) -> Option<TestRecord> {
        let (compiled, allowed) = self.prepare(&t.file, program)?;
        self.run_compiled(t, program, &compiled, &allowed, params, env)
    }

    fn run_compiled(
        &mut self,
        t: &Test,
        program: &Program,
        compiled: &Compiled,
        allowed: &Allowed,
        params: &Params,
        env: &str,
    ) -> Option<TestRecord> {
        let result = match self.gpu.run(compiled, params) {
            Ok(r) => r,
            Err(e) => {
                self.skip(&t.file, e.to_string(), false);
                return None;
            }
        };
        let d = diff::diff(program, &compiled.harness, allowed, &result);
        let weak = d.target_count(program, &compiled.harness.observables);
        Some(TestRecord {
            weak,
            reproducible: confidence::reproducible(weak, self.args.confidence),
            confidence: self.args.confidence,
            env: env.to_string(),
            name: program.name.clone(),
            file: t.file.display().to_string(),
            device: self.gpu.info.clone(),
            date: self.date.clone(),
            params: params.clone(),
            instances: result.instances,
            seconds: result.seconds,
            instances_per_s: result.instances as f64 / result.seconds.max(1e-9),
            diff: d,
            error: result.error,
            litmus: if program == &t.program {
                t.source.clone()
            } else {
                litmus::print(program)
            },
        })
    }

    /// Run every test and print its diff; false when anything failed or a violation showed.
    fn check_all(&mut self, tests: &[Test]) -> bool {
        let mut ok = true;
        for t in tests {
            let rec = if let Some(n) = self.args.tune {
                self.tune_and_run(t, n)
            } else {
                let (params, env) = self.params_for(t);
                self.run_one(t, &t.program, &params, &env)
            };
            let Some(rec) = rec else {
                ok = false;
                continue;
            };
            self.say(&format_record(&rec));
            if rec.diff.violations > 0 {
                ok = false;
                match record::write_violation(&self.args.violations, &rec) {
                    Ok(p) => self.say(&format!("  VIOLATION recorded in {}", p.display())),
                    Err(e) => eprintln!("  VIOLATION could not be recorded: {e}"),
                }
            }
            if rec.error.is_some() || !rec.diff.unknown_keys.is_empty() {
                ok = false;
            }
            self.out.tests.push(rec);
        }
        ok
    }

    /// `--tune N`: sample environments, keep the best, write it beside the test, run with it.
    fn tune_and_run(&mut self, t: &Test, n: usize) -> Option<TestRecord> {
        let (compiled, allowed) = self.prepare(&t.file, &t.program)?;
        let (base, _) = self.params_for(t);
        let trials = match tune::tune(
            self.gpu,
            &compiled,
            &t.program,
            &allowed,
            &base,
            n.max(1),
            self.args.tune_budget,
        ) {
            Ok(tr) => tr,
            Err(e) => {
                self.skip(&t.file, e.to_string(), false);
                return None;
            }
        };
        let best = trials[0].clone();
        let default_rate = trials
            .iter()
            .find(|tr| tr.params.seed == base.seed)
            .map_or(0.0, |tr| tr.rate);
        let env = TunedEnv {
            test: t.program.name.clone(),
            device: self.gpu.info.clone(),
            date: self.date.clone(),
            budget_per_trial: self.args.tune_budget,
            params: best.params.clone(),
            rate: best.rate,
            trials,
        };
        let path = tune::env_path(&t.file);
        let json = serde_json::to_string_pretty(&env).expect("environments serialise");
        if let Err(e) = std::fs::write(&path, json + "\n") {
            self.skip(&t.file, format!("writing {}: {e}", path.display()), false);
            return None;
        }
        self.say(&format!(
            "{}: tuned over {} environments of {} instances: weak rate {:.4}% (defaults {:.4}%), written to {}",
            t.file.display(),
            env.trials.len(),
            self.args.tune_budget,
            100.0 * best.rate,
            100.0 * default_rate,
            path.display()
        ));
        self.out.tuned.push(TunedRow {
            test: t.program.name.clone(),
            env_file: path.display().to_string(),
            trials: env.trials.len(),
            budget_per_trial: self.args.tune_budget,
            rate: best.rate,
            default_rate,
        });
        let params = self.args.with_env(&best.params);
        let source = format!("tuned: {}", path.display());
        self.run_compiled(t, &t.program, &compiled, &allowed, &params, &source)
    }

    fn bench(&mut self, tests: &[Test]) -> bool {
        let mut ok = true;
        for t in tests {
            for (k, stride) in [(16u32, 32u32), (20, 32), (22, 32), (22, 8), (22, 1)] {
                let mut params = self.args.params();
                params.instances_log2 = k;
                params.stride = stride;
                // At least 1e8 instances, after one warm-up launch.
                params.launches = (100_000_000u64)
                    .div_ceil(1 << k)
                    .max(self.args.iterations.min(1 << 10));
                params.batch = params.launches;
                let _ = self.run_one(
                    t,
                    &t.program,
                    &Params {
                        launches: 1,
                        ..params.clone()
                    },
                    "command line",
                );
                let Some(rec) = self.run_one(t, &t.program, &params, "command line") else {
                    ok = false;
                    break;
                };
                let rate = rec.diff.condition_count() as f64 / rec.instances.max(1) as f64;
                self.say(&format!(
                    "bench {}: 2^{k} instances/launch, stride {stride}: {} instances in {:.3} s = {:.3e} instances/s (condition {:.3}%)",
                    t.program.name,
                    rec.instances,
                    rec.seconds,
                    rec.instances_per_s,
                    100.0 * rate
                ));
                ok &= rec.error.is_none() && rec.diff.violations == 0;
                self.out.bench.push(BenchRow {
                    test: t.program.name.clone(),
                    instances_log2: k,
                    stride,
                    instances: rec.instances,
                    seconds: rec.seconds,
                    instances_per_s: rec.instances_per_s,
                    condition_rate: rate,
                });
                self.out.tests.push(rec);
            }
        }
        ok
    }

    fn mutants(&mut self, tests: &[Test]) -> bool {
        let (mut live, mut killed) = (0usize, 0usize);
        let mut table: BTreeMap<(Operator, Side), (usize, usize)> = BTreeMap::new();
        let mut budget = 0u64;
        let mut ok = true;
        for t in tests {
            let harness = match codegen::generate(&t.program) {
                Ok(h) => h,
                Err(u) => {
                    self.skip(&t.file, u.to_string(), true);
                    continue;
                }
            };
            let allowed = match oracle::allowed(&t.program, &harness.observables, &self.args.model)
            {
                Ok(a) => a,
                Err(e) => {
                    self.skip(&t.file, e, false);
                    ok = false;
                    continue;
                }
            };
            let target =
                |p: &Program, values: &[i64]| diff::is_target(p, &harness.observables, values);
            let Some(states) = &allowed.states else {
                self.skip(
                    &t.file,
                    "--mutants needs a model (not `none`)".into(),
                    false,
                );
                ok = false;
                continue;
            };
            if states.iter().any(|s| target(&t.program, s)) {
                continue; // the model allows this shape's weak outcome: no mutants to make
            }
            // Mutants run in the environment of the test they come from.
            let (params, env) = self.params_for(t);
            budget = budget.max(params.launches << params.instances_log2.clamp(5, 26));
            self.say(&format!(
                "== {} (weak outcome forbidden by {}; {env})",
                t.program.name, self.args.model
            ));
            for m in mutate::mutants(&t.program) {
                let Ok(mh) = codegen::generate(&m.program) else {
                    continue;
                };
                let Ok(ma) = oracle::allowed(&m.program, &mh.observables, &self.args.model) else {
                    continue;
                };
                if !ma
                    .states
                    .iter()
                    .flatten()
                    .any(|s| diff::is_target(&m.program, &mh.observables, s))
                {
                    continue; // still forbidden: not a live mutant
                }
                live += 1;
                let Some(rec) = self.run_one(t, &m.program, &params, &env) else {
                    ok = false;
                    continue;
                };
                let weak = rec.weak;
                let is_killed = weak > 0;
                killed += usize::from(is_killed);
                let row = table.entry((m.operator, m.side)).or_default();
                row.0 += 1;
                row.1 += usize::from(is_killed);
                self.say(&format!(
                    "  {:<40} {:<22} {:>12} instances, weak {:>9}  {}{}",
                    m.what,
                    m.operator.name(),
                    rec.instances,
                    weak,
                    if is_killed { "killed" } else { "survived" },
                    if rec.diff.spin_misses > 0 {
                        format!(" ({} spins gave up)", rec.diff.spin_misses)
                    } else {
                        String::new()
                    }
                ));
                if rec.diff.violations > 0 {
                    ok = false;
                    if let Ok(p) = record::write_violation(&self.args.violations, &rec) {
                        self.say(&format!("  VIOLATION recorded in {}", p.display()));
                    }
                }
                self.out.mutants.push(MutantRow {
                    test: t.program.name.clone(),
                    mutation: m.what.clone(),
                    operator: m.operator,
                    side: m.side,
                    instances: rec.instances,
                    weak,
                    killed: is_killed,
                    reproducible: rec.reproducible,
                });
                self.out.tests.push(rec);
            }
        }
        let mut text = format!(
            "mutation score: {killed}/{live} live mutants killed, budget {budget} instances each\n\
             {:<24} {:<6} {:>5} {:>7} {:>12}\n",
            "operator", "side", "live", "killed", "never shown"
        );
        for op in Operator::ALL {
            for ((o, side), (l, k)) in &table {
                if *o != op {
                    continue;
                }
                let _ = writeln!(
                    text,
                    "{:<24} {:<6} {:>5} {:>7} {:>12}",
                    op.name(),
                    side.name(),
                    l,
                    k,
                    l - k
                );
                self.out.operators.push(OperatorRow {
                    operator: op.name().into(),
                    side: side.name().into(),
                    live: *l,
                    killed: *k,
                    never_shown: l - k,
                });
            }
        }
        self.say(&text);
        self.out.mutation_score = Some(MutationScore {
            live,
            killed,
            budget_instances_per_mutant: budget,
        });
        ok
    }
}

/// A test's histogram as text.
fn format_record(rec: &TestRecord) -> String {
    let d: &TestDiff = &rec.diff;
    let mut out = String::new();
    let _ = writeln!(out, "== {} ({})", rec.name, rec.file);
    let _ = writeln!(
        out,
        "  model {}{}; {} instances in {:.3} s ({:.3e}/s)",
        d.model,
        if d.bounded { " (bounded)" } else { "" },
        rec.instances,
        rec.seconds,
        rec.instances_per_s
    );
    let fmt_state = |s: &std::collections::BTreeMap<String, i64>| {
        s.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for r in &d.observed {
        let _ = writeln!(
            out,
            "  {} {:<40} {:<10} {:>12} ({:.4}%)",
            if r.condition { "*" } else { " " },
            fmt_state(&r.state),
            match r.allowed {
                Some(true) => "allowed",
                Some(false) => "FORBIDDEN",
                None if d.bounded => "unjudged",
                None => "-",
            },
            r.count,
            100.0 * r.count as f64 / rec.instances.max(1) as f64
        );
    }
    for r in &d.not_seen {
        let _ = writeln!(
            out,
            "  {} {:<40} allowed, not seen",
            if r.condition { "*" } else { " " },
            fmt_state(&r.state)
        );
    }
    if d.timeouts + d.wide + d.lost > 0 {
        let _ = writeln!(
            out,
            "  unclassified: {} timed out, {} too wide, {} lost",
            d.timeouts, d.wide, d.lost
        );
    }
    if !d.unknown_keys.is_empty() {
        let _ = writeln!(
            out,
            "  classifier produced unknown keys: {:x?}",
            d.unknown_keys
        );
    }
    if let Some(e) = &rec.error {
        let _ = writeln!(out, "  stopped early: {e}");
    }
    if d.spin_misses > 0 {
        let _ = writeln!(
            out,
            "  spinning reader gave up (flag never seen, no final state): {} instances",
            d.spin_misses
        );
    }
    if d.filtered > 0 {
        let _ = writeln!(
            out,
            "  left out by the test's filter: {} instances",
            d.filtered
        );
    }
    let _ = writeln!(
        out,
        "  weak outcome: {} ({:.4}%); reproducible at {}: {} (needs {}); environment: {}",
        rec.weak,
        100.0 * rec.weak as f64 / rec.instances.max(1) as f64,
        rec.confidence,
        if rec.reproducible { "yes" } else { "no" },
        confidence::needed(rec.confidence),
        rec.env
    );
    out
}
