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

/// One counter per GPU thread.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct VClock(Vec<u32>);

impl VClock {
    pub fn new(threads: usize) -> VClock {
        VClock(vec![0; threads])
    }

    pub fn get(&self, thread: usize) -> u32 {
        self.0[thread]
    }

    pub fn set(&mut self, thread: usize, value: u32) {
        self.0[thread] = value;
    }

    pub fn join(&mut self, other: &VClock) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }
}

/// Everything a thread (or a release snapshot) knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub clocks: [VClock; LEVELS],
    /// Per location: index (in modification order) of the oldest store still readable.
    pub floor: Vec<u32>,
}

impl View {
    pub fn new(threads: usize, locations: usize) -> View {
        View {
            clocks: std::array::from_fn(|_| VClock::new(threads)),
            floor: vec![0; locations],
        }
    }

    /// Advance `thread`'s own component at every level; returns the new epoch.
    pub fn tick(&mut self, thread: usize) -> u32 {
        let epoch = self.clocks[0].get(thread) + 1;
        for clock in &mut self.clocks {
            clock.set(thread, epoch);
        }
        epoch
    }

    /// Does the event `(thread, epoch)` happen before this view at `level`?
    pub fn knows(&self, level: usize, thread: usize, epoch: u32) -> bool {
        self.clocks[level].get(thread) >= epoch
    }

    /// Join `other` at the levels in `mask`. Coherence floors travel with level 0 only: the
    /// widened levels never change what a load may read.
    pub fn join(&mut self, other: &View, mask: LevelMask) {
        for level in 0..LEVELS {
            if mask & (1 << level) != 0 {
                self.clocks[level].join(&other.clocks[level]);
            }
        }
        if mask & 1 != 0 {
            for (a, b) in self.floor.iter_mut().zip(&other.floor) {
                *a = (*a).max(*b);
            }
        }
    }
}
