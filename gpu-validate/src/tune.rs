//! Environment tuning (the approach of MC Mutants and of published GPU litmus campaigns): draw
//! `n` random environments for one test, run each on a fixed instance budget, and keep the one
//! whose weak outcome (the condition's target states) shows at the highest rate per instance.
//! The winner is written next to the test as JSON so that later runs reuse it.

use crate::codegen::{Harness, MAX_OBSERVABLES};
use crate::diff::{self, Allowed};
use crate::runner::{Compiled, DeviceInfo, Gpu, GpuError, Layout, Params};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use scopecheck_model::litmus::Program;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One sampled environment and what it produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Trial {
    pub params: Params,
    pub instances: u64,
    /// Instances in a target state of the condition.
    pub weak: u64,
    pub seconds: f64,
    /// `weak / instances`.
    pub rate: f64,
    /// The run stopped early (watchdog or device error); such a trial never wins.
    pub error: Option<String>,
}

/// What `--tune` writes beside a test: the environment to reuse and how it was found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TunedEnv {
    pub test: String,
    pub device: DeviceInfo,
    pub date: String,
    /// Instances each trial ran.
    pub budget_per_trial: u64,
    /// The winner (`launches` as tuned; runs that reuse it set their own budget).
    pub params: Params,
    pub rate: f64,
    /// Every trial, best first.
    pub trials: Vec<Trial>,
}

/// Where the tuned environment of the test in `file` lives: `<stem>.env.json` beside it.
pub fn env_path(file: &Path) -> PathBuf {
    file.with_extension("env.json")
}

/// The environment to reuse for `file`: its own `<stem>.env.json`, else an `env.json` in its
/// directory (one environment tuned for a whole family of variants).
pub fn find_env(file: &Path) -> Option<PathBuf> {
    let own = env_path(file);
    if own.is_file() {
        return Some(own);
    }
    let dir = file.parent()?.join("env.json");
    dir.is_file().then_some(dir)
}

/// Read a tuned environment.
pub fn read_env(path: &Path) -> Result<TunedEnv, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// One random environment around `base` (whose seed, watchdog and batch are kept). Spinning
/// readers are tried only when the harness has some.
pub fn sample(rng: &mut impl Rng, base: &Params, harness: &Harness) -> Params {
    fn pick<T: Copy>(rng: &mut impl Rng, xs: &[T]) -> T {
        *xs.choose(rng).expect("non-empty")
    }
    Params {
        instances_log2: pick(rng, &[14, 15, 16, 17, 18]),
        per_block_log2: rng.gen_range(0..=7),
        stride: pick(rng, &[1, 2, 8, 32, 64]),
        permute_locations: rng.gen_bool(0.75),
        layout: pick(rng, &[Layout::Spread, Layout::Warp]),
        barrier_spins: pick(rng, &[0, 500, 2000, 8000]),
        pre_stress: pick(rng, &[0, 0, 16, 32, 128]),
        stress_blocks: pick(rng, &[0, 0, 66, 132, 264]),
        stress_iters: pick(rng, &[64, 256]),
        stress_pattern: rng.gen_range(0..4),
        scratch_lines_log2: pick(rng, &[0, 2, 6, 10]),
        occupancy_smem: pick(rng, &[0, 0, 16 * 1024, 48 * 1024]),
        spin_bound: if harness.spins.is_empty() {
            0
        } else {
            pick(rng, &[0, 0, 256, 4096])
        },
        ..base.clone()
    }
}

/// Launches that give at least `budget` instances at `2^instances_log2` per launch.
pub fn launches_for(budget: u64, instances_log2: u32) -> u64 {
    budget.div_ceil(1u64 << instances_log2.clamp(5, 26)).max(1)
}

/// Run `n` sampled environments (the first is `base` itself) of `budget` instances each; trials
/// best first (highest weak rate, then fastest; stopped runs last).
pub fn tune(
    gpu: &Gpu,
    compiled: &Compiled,
    program: &Program,
    allowed: &Allowed,
    base: &Params,
    n: usize,
    budget: u64,
) -> Result<Vec<Trial>, GpuError> {
    let h = &compiled.harness;
    debug_assert!(h.observables.len() <= MAX_OBSERVABLES);
    let mut rng = rand::rngs::StdRng::seed_from_u64(base.seed ^ 0x7e57);
    let mut trials = Vec::with_capacity(n);
    for i in 0..n {
        let mut params = if i == 0 {
            base.clone()
        } else {
            sample(&mut rng, base, h)
        };
        params.launches = launches_for(budget, params.instances_log2);
        params.batch = params.launches.min(64);
        params.seed = base.seed.wrapping_add(i as u64);
        let run = gpu.run(compiled, &params)?;
        let d = diff::diff(program, h, allowed, &run);
        let weak = d.target_count(program, &h.observables);
        trials.push(Trial {
            params,
            instances: run.instances,
            weak,
            seconds: run.seconds,
            rate: weak as f64 / run.instances.max(1) as f64,
            error: run.error,
        });
    }
    trials.sort_by(|a, b| {
        a.error
            .is_some()
            .cmp(&b.error.is_some())
            .then(b.rate.total_cmp(&a.rate))
            .then(a.seconds.total_cmp(&b.seconds))
    });
    Ok(trials)
}
