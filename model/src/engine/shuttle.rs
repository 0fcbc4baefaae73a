//! The strategies that take their decisions from shuttle's randomness or from a record: shuttle's
//! random scheduler, PCT and the uniform random walk over our decisions, and replay of a token. Each is a decision source
//! handed to the shared driver (engine/explore.rs), as the DFS hands it its tree.

use super::explore::{explore_with, Mode};
use super::pct::PctState;
use super::urw::UrwState;
use crate::runtime::report::Token;
use crate::runtime::sched::{Engine, Exploration, RunOne, Shape};
use shuttle::scheduler::RandomScheduler;

/// Shuttle's random scheduler: `iterations` random executions from `seed`.
#[derive(Clone, Debug)]
pub struct Random {
    /// Random executions to run.
    pub iterations: usize,
    /// The seed of shuttle's random number generator: one seed, one sequence of executions.
    pub seed: u64,
}

impl Engine for Random {
    fn name(&self) -> String {
        format!(
            "shuttle-random(seed={}, iterations={})",
            self.seed, self.iterations
        )
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        let inner = RandomScheduler::new_from_seed(self.seed, self.iterations);
        explore_with(Mode::Inner(Box::new(inner)), u64::MAX, shape, run).0
    }
}

/// PCT (probabilistic concurrency testing) with bug depth `depth`, on shuttle's coroutines.
#[derive(Clone, Debug)]
pub struct Pct {
    /// Executions to run, each with fresh priorities and change points.
    pub iterations: usize,
    /// The bug depth `d`: each execution has `d - 1` priority change points.
    pub depth: usize,
    /// The seed of the priorities and change points: one seed, one sequence of executions.
    pub seed: u64,
}

impl Engine for Pct {
    fn name(&self) -> String {
        format!(
            "shuttle-pct(seed={}, depth={}, iterations={})",
            self.seed, self.depth, self.iterations
        )
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        let pct = PctState::new(self.seed, self.depth, self.iterations);
        explore_with(Mode::Walk(Box::new(pct)), u64::MAX, shape, run).0
    }
}

/// The uniform random walk (`engine/urw.rs`): `iterations` executions from `seed`, each
/// interleaving drawn with (nearly) the same probability once the first execution estimated
/// every thread's operations.
#[derive(Clone, Debug)]
pub struct Urw {
    /// Executions to run.
    pub iterations: usize,
    /// The seed of the walk's random choices: one seed, one sequence of executions.
    pub seed: u64,
}

impl Engine for Urw {
    fn name(&self) -> String {
        format!(
            "shuttle-urw(seed={}, iterations={})",
            self.seed, self.iterations
        )
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        let urw = UrwState::new(self.seed, self.iterations);
        explore_with(Mode::Walk(Box::new(urw)), u64::MAX, shape, run).0
    }
}

/// Re-run exactly the execution a replay token describes.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The recorded execution: its decisions, in order (a token printed by a report).
    pub token: Token,
}

impl Engine for Replay {
    fn name(&self) -> String {
        "replay".to_string()
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        let mode = Mode::Replay {
            decisions: self.token.decisions.clone(),
            pos: 0,
            started: false,
        };
        explore_with(mode, 1, shape, run).0
    }
}
