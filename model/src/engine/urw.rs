//! Uniform random walk (URW; Zhao, Wolff, Mathur and Roychoudhury, "Selectively Uniform
//! Concurrency Testing", ASPLOS 2025) at the granularity of our decisions, beside shuttle's random
//! walk (the `Random` engine) and PCT (`pct.rs`).
//!
//! A plain random walk picks each runnable thread with equal probability, so it samples
//! interleavings far from uniformly: a thread with few operations left is run early more often
//! than in a uniformly chosen interleaving. If every thread `i` has `n_i` operations left, the
//! interleavings of those operations are the multinomial `(Σ n_i)! / Π n_i!`, and the fraction
//! of them whose next operation is `i`'s is `n_i / Σ n_j`: picking thread `i` with that
//! probability, then decrementing `n_i`, draws every interleaving with the same probability
//! (the paper's argument for URW). The counts `n_i` are not known in advance: as in the paper and
//! shuttle's `UrwRandomScheduler`, the first execution is a plain random walk that counts the
//! operations of every thread, and later executions start from those counts (a thread that
//! outlives its estimate keeps weight 1; one never seen gets the smallest estimate). Store
//! choices are uniform.

use super::walk::Walk;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// URW's decision source.
pub(crate) struct UrwState {
    rng: StdRng,
    iterations: usize,
    done: usize,
    /// Per GPU thread, the operations the trial execution counted (empty until it ran).
    estimate: Vec<u64>,
    /// During the trial execution: the operations counted so far.
    counted: Vec<u64>,
    /// Per GPU thread, the operations it has left in the current execution (estimated).
    left: Vec<u64>,
}

impl UrwState {
    /// `iterations` executions from `seed`.
    pub fn new(seed: u64, iterations: usize) -> UrwState {
        UrwState {
            rng: StdRng::seed_from_u64(seed),
            iterations,
            done: 0,
            estimate: Vec::new(),
            counted: Vec::new(),
            left: Vec::new(),
        }
    }

    fn trial(&self) -> bool {
        self.estimate.is_empty()
    }

    /// The weight of `thread`: the operations it has left (at least 1: it is runnable).
    fn weight(&mut self, thread: usize) -> u64 {
        if self.left.len() <= thread {
            let fallback = self.estimate.iter().copied().filter(|&n| n > 0).min();
            let fallback = fallback.unwrap_or(1);
            let from = self.left.len();
            self.left.extend((from..=thread).map(|_| fallback));
        }
        self.left[thread].max(1)
    }
}

impl Walk for UrwState {
    fn new_execution(&mut self) -> bool {
        if self.done >= self.iterations {
            return false;
        }
        if self.done == 1 {
            // The trial execution ended: its counts are the estimates.
            self.estimate = std::mem::take(&mut self.counted);
        }
        self.done += 1;
        self.left = self.estimate.clone();
        true
    }

    fn choose(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }

    fn decide(&mut self, threads: &[usize]) -> usize {
        let chosen = if self.trial() {
            self.rng.gen_range(0..threads.len())
        } else {
            let weights: Vec<u64> = threads.iter().map(|&t| self.weight(t)).collect();
            let mut pick = self.rng.gen_range(0..weights.iter().sum::<u64>());
            let mut chosen = 0;
            for (i, w) in weights.iter().enumerate() {
                if pick < *w {
                    chosen = i;
                    break;
                }
                pick -= w;
            }
            chosen
        };
        let thread = threads[chosen];
        if self.trial() {
            if self.counted.len() <= thread {
                self.counted.resize(thread + 1, 0);
            }
            self.counted[thread] += 1;
        } else {
            let left = &mut self.left[thread];
            *left = left.saturating_sub(1).max(1);
        }
        chosen
    }
}
