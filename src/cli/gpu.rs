//! `scopecheck gpu`: run litmus files on the GPU and diff each observed final state against the
//! model (also `--bench` for throughput and `--mutants` for the mutation score).

use scopecheck_gpu::diff::{self, Allowed, TestDiff};
use scopecheck_gpu::record::{self, TestRecord};
use scopecheck_gpu::runner::{Compiled, DeviceInfo, Gpu, GpuError, Layout, Params};
use scopecheck_gpu::{codegen, mutate, oracle};
use scopecheck_model::litmus::{self, Program};
use serde::Serialize;
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
    /// Memory model the observations are checked against.
    #[arg(long, default_value = "ptx-v7.5")]
    pub model: String,
    /// Write every result as JSON here.
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
    #[arg(long, default_value_t = 0x5c09ec4ec)]
    pub seed: u64,
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

/// A finite number of seconds above zero.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        Ok(_) => Err(format!("{s} is not a number of seconds above 0")),
        Err(e) => Err(e.to_string()),
    }
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
            ..Params::default()
        };
        if self.stress {
            p.barrier_spins = 2000;
            p.stress_blocks = 132;
            p.pre_stress = 32;
            p.per_block_log2 = 5;
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

fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            for e in entries {
                if e.is_dir() || e.extension().is_some_and(|x| x == "litmus") {
                    walk(&e, out)?;
                }
            }
            Ok(())
        } else if p.exists() {
            out.push(p.to_path_buf());
            Ok(())
        } else {
            Err(format!("{}: no such file or directory", p.display()))
        }
    }
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out)?;
    }
    Ok(out)
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
    let gpu = match scopecheck_gpu::open() {
        Ok(g) => g,
        Err(GpuError::NoGpu(why)) => {
            println!(
                "scopecheck gpu: no GPU ({why}); skipped {} test(s)",
                tests.len()
            );
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
    println!(
        "device: {} (sm {}, {} SMs), driver {} (CUDA {})",
        gpu.info.name,
        gpu.info.compute_capability,
        gpu.info.multiprocessors,
        gpu.info.driver,
        gpu.info.driver_cuda_version
    );
    let date = record::now_utc();
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
    };
    let mut session = Session {
        args: &args,
        gpu: &gpu,
        date,
        out,
    };
    let ok = if args.bench {
        session.bench(&tests)
    } else if args.mutants {
        session.mutants(&tests)
    } else {
        session.check_all(&tests)
    };
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&session.out).expect("results serialise");
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

fn emit(tests: &[Test], dir: &Path, bad: usize) -> ExitCode {
    let mut failed = bad;
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
            Err(u) => println!("{}: {u}", t.file.display()),
        }
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
    instances: u64,
    weak: u64,
    killed: bool,
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
}

impl Session<'_> {
    fn skip(&mut self, file: &Path, reason: String, unsupported: bool) {
        println!("{}: {reason}", file.display());
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

    fn run_one(&mut self, t: &Test, program: &Program, params: &Params) -> Option<TestRecord> {
        let (compiled, allowed) = self.prepare(&t.file, program)?;
        let result = match self.gpu.run(&compiled, params) {
            Ok(r) => r,
            Err(e) => {
                self.skip(&t.file, e.to_string(), false);
                return None;
            }
        };
        let d = diff::diff(program, &compiled.harness, &allowed, &result);
        Some(TestRecord {
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
        let params = self.args.params();
        let mut ok = true;
        for t in tests {
            let Some(rec) = self.run_one(t, &t.program, &params) else {
                ok = false;
                continue;
            };
            print_record(&rec);
            if rec.diff.violations > 0 {
                ok = false;
                match record::write_violation(&self.args.violations, &rec) {
                    Ok(p) => println!("  VIOLATION recorded in {}", p.display()),
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
                );
                let Some(rec) = self.run_one(t, &t.program, &params) else {
                    ok = false;
                    break;
                };
                let rate = rec.diff.condition_count() as f64 / rec.instances.max(1) as f64;
                println!(
                    "bench {}: 2^{k} instances/launch, stride {stride}: {} instances in {:.3} s = {:.3e} instances/s (condition {:.3}%)",
                    t.program.name,
                    rec.instances,
                    rec.seconds,
                    rec.instances_per_s,
                    100.0 * rate
                );
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
        let params = self.args.params();
        let budget = params.launches << params.instances_log2.clamp(5, 26);
        let (mut live, mut killed) = (0usize, 0usize);
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
            println!(
                "== {} (weak outcome forbidden by {})",
                t.program.name, self.args.model
            );
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
                let Some(rec) = self.run_one(t, &m.program, &params) else {
                    ok = false;
                    continue;
                };
                let weak: u64 = rec
                    .diff
                    .observed
                    .iter()
                    .filter(|r| {
                        let values: Vec<i64> = mh
                            .observables
                            .iter()
                            .map(|o| r.state[&o.name(&m.program)])
                            .collect();
                        diff::is_target(&m.program, &mh.observables, &values)
                    })
                    .map(|r| r.count)
                    .sum();
                let is_killed = weak > 0;
                killed += usize::from(is_killed);
                println!(
                    "  {:<40} {:>12} instances, weak {:>9}  {}",
                    m.what,
                    rec.instances,
                    weak,
                    if is_killed { "killed" } else { "survived" }
                );
                if rec.diff.violations > 0 {
                    ok = false;
                    if let Ok(p) = record::write_violation(&self.args.violations, &rec) {
                        println!("  VIOLATION recorded in {}", p.display());
                    }
                }
                self.out.mutants.push(MutantRow {
                    test: t.program.name.clone(),
                    mutation: m.what.clone(),
                    instances: rec.instances,
                    weak,
                    killed: is_killed,
                });
                self.out.tests.push(rec);
            }
        }
        println!(
            "mutation score: {killed}/{live} live mutants killed, budget {budget} instances each"
        );
        self.out.mutation_score = Some(MutationScore {
            live,
            killed,
            budget_instances_per_mutant: budget,
        });
        ok
    }
}

fn print_record(rec: &TestRecord) {
    let d: &TestDiff = &rec.diff;
    println!("== {} ({})", rec.name, rec.file);
    println!(
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
        println!(
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
        println!(
            "  {} {:<40} allowed, not seen",
            if r.condition { "*" } else { " " },
            fmt_state(&r.state)
        );
    }
    if d.timeouts + d.wide + d.lost > 0 {
        println!(
            "  unclassified: {} timed out, {} too wide, {} lost",
            d.timeouts, d.wide, d.lost
        );
    }
    if !d.unknown_keys.is_empty() {
        println!("  classifier produced unknown keys: {:x?}", d.unknown_keys);
    }
    if let Some(e) = &rec.error {
        println!("  stopped early: {e}");
    }
}
