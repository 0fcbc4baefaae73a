//! Our own exhaustive engine: depth-first enumeration of every decision sequence (which thread
//! performs the next operation, which store each load reads), run on shuttle's coroutines.

use super::shuttle::{explore_with, Mode};
use super::{Engine, Exploration, RunOne, Shape};

/// The decisions of the current execution, with how many options each had. Replaying the prefix
/// and bumping the last decision with options left enumerates every sequence exactly once.
#[derive(Debug, Default)]
pub struct BranchLog {
    stack: Vec<(usize, usize)>,
    pos: usize,
    started: bool,
    exhausted: bool,
}

impl BranchLog {
    /// Prepare the next execution; `false` when every sequence has been run.
    pub fn next_execution(&mut self) -> bool {
        self.pos = 0;
        if !std::mem::replace(&mut self.started, true) {
            return true;
        }
        while let Some((chosen, options)) = self.stack.last_mut() {
            if *chosen + 1 < *options {
                *chosen += 1;
                return true;
            }
            self.stack.pop();
        }
        self.exhausted = true;
        false
    }

    /// Take a decision among `n` options.
    pub fn branch(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let choice = match self.stack.get(self.pos) {
            Some(&(chosen, options)) if options == n => chosen,
            // The prefix diverged (the kernel is not deterministic): restart this branch.
            Some(_) => {
                self.stack.truncate(self.pos);
                self.stack.push((0, n));
                0
            }
            None => {
                self.stack.push((0, n));
                0
            }
        };
        self.pos += 1;
        choice
    }

    pub fn exhausted(&self) -> bool {
        self.exhausted
    }
}

/// Exhaustive DFS over schedules and store choices, up to `max_executions`.
#[derive(Clone, Debug)]
pub struct Dfs {
    pub max_executions: u64,
}

impl Default for Dfs {
    fn default() -> Dfs {
        Dfs {
            max_executions: 1_000_000,
        }
    }
}

impl Engine for Dfs {
    fn name(&self) -> String {
        "dfs".to_string()
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        explore_with(
            Mode::Dfs(BranchLog::default()),
            self.max_executions,
            shape,
            run,
        )
        .0
    }
}
