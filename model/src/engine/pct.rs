//! PCT's decision source (see [`PctState`]), driven by the exploration driver
//! ([`super::explore`]) for the `Pct` (shuttle) engine.

use super::walk::Walk;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// PCT (Burckhardt et al., ASPLOS 2010) at the granularity of our decisions: every execution
/// gives the GPU threads fresh random priorities and picks `depth - 1` change points among the
/// decisions; the highest-priority pending thread runs, and at a change point it drops to the
/// lowest priority. (Shuttle's own PCT counts its own steps, and on small kernels its change
/// points land on every step, which makes some two-step orders unreachable.)
pub(crate) struct PctState {
    rng: StdRng,
    depth: usize,
    iterations: usize,
    done: usize,
    priorities: Vec<u64>,
    change_points: Vec<usize>,
    step: usize,
    max_steps: usize,
    lowest: u64,
}

impl PctState {
    pub fn new(seed: u64, depth: usize, iterations: usize) -> PctState {
        PctState {
            rng: StdRng::seed_from_u64(seed),
            depth: depth.max(1),
            iterations,
            done: 0,
            priorities: Vec::new(),
            change_points: Vec::new(),
            step: 0,
            max_steps: 1,
            lowest: u64::MAX / 2,
        }
    }

    fn priority(&mut self, thread: usize) -> u64 {
        while self.priorities.len() <= thread {
            let p = self.rng.gen_range(u64::MAX / 2..u64::MAX);
            self.priorities.push(p);
        }
        self.priorities[thread]
    }
}

impl Walk for PctState {
    /// Start an execution: fresh priorities and change points; `false` once all ran.
    fn new_execution(&mut self) -> bool {
        if self.done >= self.iterations {
            return false;
        }
        self.done += 1;
        self.priorities.clear();
        self.step = 0;
        self.lowest = u64::MAX / 2;
        let k = self.max_steps;
        self.change_points = (0..self.depth - 1)
            .map(|_| self.rng.gen_range(1..=k))
            .collect();
        true
    }

    /// A data choice among `n` options, from PCT's randomness.
    fn choose(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }

    /// Index (into `threads`) of the thread to run.
    fn decide(&mut self, threads: &[usize]) -> usize {
        self.step += 1;
        self.max_steps = self.max_steps.max(self.step);
        let best = |me: &mut PctState| {
            (0..threads.len())
                .max_by_key(|&i| me.priority(threads[i]))
                .expect("a decision has candidates")
        };
        let mut chosen = best(self);
        if self.change_points.contains(&self.step) {
            self.lowest -= 1;
            self.priorities[threads[chosen]] = self.lowest;
            chosen = best(self);
        }
        chosen
    }
}
