//! `scopecheck gpu`'s arguments, checked by clap, and the library options they become.

use scopecheck_gpu::runner::{Layout, Params};
use scopecheck_gpu::session::{Mode, Options};
use scopecheck_gpu::tune;
use std::path::PathBuf;
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
        super::super::parse_model(s)?;
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

    /// What the library's session needs from the command line.
    pub fn options(&self) -> Options {
        Options {
            model: self.model.clone(),
            params: self.params(),
            budget: self.budget,
            iterations: self.iterations,
            spin: self.spin,
            tuned: self.tuned,
            tune: self.tune,
            tune_budget: self.tune_budget,
            confidence: self.confidence,
            violations: self.violations.clone(),
            mode: if self.bench {
                Mode::Bench
            } else if self.mutants {
                Mode::Mutants
            } else {
                Mode::Check
            },
        }
    }
}
