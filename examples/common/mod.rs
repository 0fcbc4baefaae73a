//! The engine options both examples take (clap): which engine explores the kernel, and for
//! shuttle's sampling engines how many executions and from which seed.

use scopecheck_model::kernel::Checker;

/// The exploring engine.
#[derive(Copy, Clone, Debug, clap::ValueEnum)]
pub enum Engine {
    /// Our exhaustive DFS over schedules and store choices.
    Dfs,
    /// Loom's exhaustive exploration (at most 4 GPU threads).
    Loom,
    /// Shuttle's random scheduler (`--iterations` executions from `--seed`).
    Random,
    /// Shuttle's PCT scheduler (`--iterations` executions of depth `--depth` from `--seed`).
    Pct,
}

#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    /// The engine that explores the kernel.
    #[arg(long, value_enum, default_value_t = Engine::Dfs)]
    pub engine: Engine,
    /// Executions for the sampling engines (random, pct).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: u32,
    /// Seed of shuttle's random and PCT schedulers (the same seed gives the same executions).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// PCT's bug depth (the number of priority change points, plus one).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: u32,
    /// Replay the failing execution of a replay token instead of exploring.
    #[arg(long, value_name = "TOKEN")]
    pub replay: Option<String>,
}

impl EngineArgs {
    /// The checker these options name.
    pub fn checker(&self) -> Checker {
        let n = self.iterations as usize;
        match self.engine {
            Engine::Dfs => Checker::dfs(),
            Engine::Loom => Checker::loom(),
            Engine::Random => Checker::random(n, self.seed),
            Engine::Pct => Checker::pct(n, self.depth as usize, self.seed),
        }
    }
}
