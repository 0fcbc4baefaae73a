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

/// Everything a thread (or a release snapshot) knows: a vector clock per level (one counter per
/// GPU thread) and a coherence floor per location, in one allocation (views are copied at every
/// release and, in the state-caching search, at every step).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Level `l`'s counter for thread `t` at `l * threads + t`, then the floors: per location,
    /// the index (in modification order) of the oldest store still readable.
    words: Vec<u32>,
    threads: u32,
}

impl View {
    pub fn new(threads: usize, locations: usize) -> View {
        View {
            words: vec![0; LEVELS * threads + locations],
            threads: threads as u32,
        }
    }

    fn clocks_len(&self) -> usize {
        LEVELS * self.threads as usize
    }

    /// Level `level`'s vector clock.
    pub fn clock(&self, level: usize) -> &[u32] {
        let n = self.threads as usize;
        &self.words[level * n..(level + 1) * n]
    }

    /// Per location, the oldest store still readable.
    pub fn floor(&self) -> &[u32] {
        &self.words[self.clocks_len()..]
    }

    pub fn floor_mut(&mut self) -> &mut [u32] {
        let start = self.clocks_len();
        &mut self.words[start..]
    }

    /// Advance `thread`'s own component at every level; returns the new epoch.
    pub fn tick(&mut self, thread: usize) -> u32 {
        let n = self.threads as usize;
        let epoch = self.words[thread] + 1;
        for level in 0..LEVELS {
            self.words[level * n + thread] = epoch;
        }
        epoch
    }

    /// Does the event `(thread, epoch)` happen before this view at `level`?
    pub fn knows(&self, level: usize, thread: usize, epoch: u32) -> bool {
        self.words[level * self.threads as usize + thread] >= epoch
    }

    /// Join `other` at the levels in `mask`. Coherence floors travel with level 0 only: the
    /// widened levels never change what a load may read.
    pub fn join(&mut self, other: &View, mask: LevelMask) {
        let n = self.threads as usize;
        let join = |a: &mut [u32], b: &[u32]| {
            for (a, b) in a.iter_mut().zip(b) {
                *a = (*a).max(*b);
            }
        };
        for level in 0..LEVELS {
            if mask & (1 << level) != 0 {
                let range = level * n..(level + 1) * n;
                join(&mut self.words[range.clone()], &other.words[range]);
            }
        }
        if mask & 1 != 0 {
            let start = self.clocks_len();
            join(&mut self.words[start..], &other.words[start..]);
        }
    }
}
