//! Our own exhaustive engine: depth-first enumeration of decision sequences (which thread
//! performs the next operation, which store each load reads), run on shuttle's coroutines, with
//! dynamic partial-order reduction (see [`super::tree`]) and, for spin loops, only the failed
//! iterations a hang needs (see [`Engine::prunes_spins`]).

use super::explore::{explore_with, Mode};
use super::tree::Tree;
use crate::runtime::sched::{Engine, Exploration, RunOne, Shape};

/// Exhaustive DFS over schedules and store choices, up to `max_executions`.
#[derive(Clone, Debug)]
pub struct Dfs {
    /// The budget: executions started, discarded ones included; the search stops, incomplete,
    /// when it is spent.
    pub max_executions: u64,
    /// Explore one schedule per class of equivalent ones (dynamic partial-order reduction) and
    /// discard the executions with failed spin-loop iterations that others cover; `false` tries
    /// every enabled thread at every scheduling point and keeps every spin iteration that is not
    /// a repeat (the reference the reduction is tested against).
    pub reduction: bool,
}

impl Default for Dfs {
    fn default() -> Dfs {
        Dfs {
            max_executions: 1_000_000,
            reduction: true,
        }
    }
}

impl Engine for Dfs {
    fn name(&self) -> String {
        if self.reduction {
            "dfs".to_string()
        } else {
            "dfs(unreduced)".to_string()
        }
    }

    fn prunes_spins(&self) -> bool {
        self.reduction
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        explore_with(
            Mode::Dfs(Box::new(Tree::new(self.reduction))),
            self.max_executions,
            shape,
            run,
        )
        .0
    }
}
