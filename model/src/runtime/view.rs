//! Views: what a thread knows. A vector clock per *scope-widening level* (for happens-before and
//! race attribution), a per-location coherence floor (the oldest store it may still read), and
//! the single writes it observed (for causality order, which is not a prefix of a thread).
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
/// Every level: what program order (the same thread) gives.
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
    /// Writes that precede this point in causality order only through observation, sorted.
    observed: Vec<Observed>,
}

/// PTX "Causality Order": X precedes Y if X precedes Y in base causality order, *or X precedes
/// some Z in observation order and Z precedes Y in base causality order*. The second clause
/// orders the observed write alone, not what precedes it in its own thread, so it cannot be a
/// vector-clock component: a view keeps the observed writes themselves, and they travel with
/// the view along base causality (program order, synchronization joins).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Observed {
    /// The thread that wrote.
    pub thread: u32,
    /// The writer's clock counter at the write ([`View::tick`]'s value then).
    pub epoch: u32,
    /// The levels at which the observation (a morally strong reads-from chain) holds.
    pub levels: LevelMask,
}

impl View {
    /// The view of a thread that has done nothing yet, over `threads` GPU threads and
    /// `locations` locations: every clock 0, every floor at the initial store.
    pub fn new(threads: usize, locations: usize) -> View {
        View {
            words: vec![0; LEVELS * threads + locations],
            threads: threads as u32,
            observed: Vec::new(),
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

    /// Per location, the oldest store still readable, to raise (after a read or a write of it).
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

    /// Does the write `(thread, epoch)` precede this view in causality order at `level`, through
    /// base causality or through observation followed by base causality?
    pub fn causes(&self, level: usize, thread: usize, epoch: u32) -> bool {
        self.knows(level, thread, epoch) || self.observes(level, thread, epoch)
    }

    /// Does the write `(thread, epoch)` precede this view through observation (by a read of its
    /// location) followed by base causality, at `level`?
    pub fn observes(&self, level: usize, thread: usize, epoch: u32) -> bool {
        self.observed.iter().any(|o| {
            o.thread as usize == thread && o.epoch == epoch && o.levels & (1 << level) != 0
        })
    }

    /// The writes observed so far (for state keys and for the chains RMW stores carry).
    pub fn observed(&self) -> &[Observed] {
        &self.observed
    }

    /// Note that the thread observed a write (at the levels in `o.levels`).
    pub fn observe(&mut self, o: Observed) {
        if o.levels == 0 {
            return;
        }
        match self
            .observed
            .binary_search_by_key(&(o.thread, o.epoch), |x| (x.thread, x.epoch))
        {
            Ok(i) => self.observed[i].levels |= o.levels,
            Err(i) => self.observed.insert(i, o),
        }
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
        for o in &other.observed {
            self.observe(Observed {
                levels: o.levels & mask,
                ..*o
            });
        }
    }
}
