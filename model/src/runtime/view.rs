//! Views: what a thread knows. A vector clock per *scope-widening level* (for happens-before and
//! race attribution) and a per-location coherence floor (the oldest store it may still read).
//!
//! Level 0 is the real execution. Level `k` (1..=3) replays the same execution's synchronization
//! *as if* every strong operation had scope at least `Scope::ALL[k]` (cluster, gpu, sys). A race
//! that disappears at level `k` is a *scoped race* that scope `Scope::ALL[k]` would fix. Only
//! level 0 decides what loads may read; the other levels are bookkeeping for the diagnosis.

use crate::scope::Scope;

/// Number of scope-widening levels (real, ≥cluster, ≥gpu, ≥sys).
pub const LEVELS: usize = 4;
/// A set of levels, one bit per level.
pub type LevelMask = u8;
pub const ALL_LEVELS: LevelMask = (1 << LEVELS) - 1;

/// The scope an operation has at a widening level.
pub fn widened(scope: Scope, level: usize) -> Scope {
    scope.max(Scope::ALL[level])
}

/// Everything a thread (or a release snapshot) knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// A vector clock per level, one counter per GPU thread: level `l`'s counter for thread
    /// `t` at `l * threads + t` (one allocation: views are copied at every release).
    clocks: Vec<u32>,
    /// Per location: index (in modification order) of the oldest store still readable.
    pub floor: Vec<u32>,
}

impl View {
    pub fn new(threads: usize, locations: usize) -> View {
        View {
            clocks: vec![0; LEVELS * threads],
            floor: vec![0; locations],
        }
    }

    fn threads(&self) -> usize {
        self.clocks.len() / LEVELS
    }

    /// Level `level`'s vector clock.
    pub fn clock(&self, level: usize) -> &[u32] {
        let n = self.threads();
        &self.clocks[level * n..(level + 1) * n]
    }

    /// Advance `thread`'s own component at every level; returns the new epoch.
    pub fn tick(&mut self, thread: usize) -> u32 {
        let n = self.threads();
        let epoch = self.clocks[thread] + 1;
        for level in 0..LEVELS {
            self.clocks[level * n + thread] = epoch;
        }
        epoch
    }

    /// Does the event `(thread, epoch)` happen before this view at `level`?
    pub fn knows(&self, level: usize, thread: usize, epoch: u32) -> bool {
        self.clocks[level * self.threads() + thread] >= epoch
    }

    /// Join `other` at the levels in `mask`. Coherence floors travel with level 0 only: the
    /// widened levels never change what a load may read.
    pub fn join(&mut self, other: &View, mask: LevelMask) {
        let n = self.threads();
        for level in 0..LEVELS {
            if mask & (1 << level) != 0 {
                let range = level * n..(level + 1) * n;
                for (a, b) in self.clocks[range.clone()]
                    .iter_mut()
                    .zip(&other.clocks[range])
                {
                    *a = (*a).max(*b);
                }
            }
        }
        if mask & 1 != 0 {
            for (a, b) in self.floor.iter_mut().zip(&other.floor) {
                *a = (*a).max(*b);
            }
        }
    }
}
