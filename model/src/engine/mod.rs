//! Engines: they decide *who runs next* and *which store a load reads* — nothing else. All
//! memory-model semantics live in [`crate::runtime`]; loom's and shuttle's own atomics are used
//! only as scheduling points and as a source of choices, never for their semantics.
//!
//! One execution runs like this: the driver (on the engine's main thread) spawns one engine
//! thread per GPU thread through [`Sched::spawn`]; before every visible operation a GPU thread
//! calls [`Sched::point`] (the engine may switch threads there); a load that may read several
//! stores asks [`Sched::choose`] (or, under loom, takes the store loom's mirror load returned);
//! a thread that must wait (barrier, spin loop) parks until another unparks it.
//!
//! Extension points for asynchronous agents (TMA copies, mbarrier completions): an agent is just
//! one more thread spawned through `spawn`, which the engine schedules like any other; blocking
//! and waking go through `park`/`unpark`.

pub mod dfs;
mod explore;
#[cfg(feature = "loom")]
pub mod loom;
mod pct;
pub mod shuttle;
pub mod tree;

use std::sync::Arc;

/// What a GPU thread is about to do at a scheduling point (loom keys its mirrors on it).
#[derive(Copy, Clone, Debug)]
pub enum Point {
    /// A load of this location.
    Read(usize),
    /// A store or read-modify-write of this location.
    Write(usize),
    /// One element of a bulk copy: reads `src`, writes `dst` (asynchronously).
    Copy { src: usize, dst: usize },
    /// An operation that reads and writes only its own thread's state (a release, acquire or
    /// acq_rel fence, a proxy fence): independent of every other thread's operations.
    Local,
    /// An arrival at this block's `syncthreads` (plain or voting): it touches only the block's
    /// barrier instances and, on completion, the views of the threads that arrived. Arrivals at
    /// one instance commute with each other (whichever comes last completes it, with the same
    /// views, votes and wake-ups), and other memory operations commute with them.
    Barrier(usize),
    /// An arrival at one of this block's named barriers (`bar.sync`, `bar.arrive` with an id):
    /// like [`Point::Barrier`], except that the order of arrivals decides which of them form an
    /// instance (a thread count, or a `syncthreads` counting them), so they do not commute with
    /// each other or with the block's `syncthreads` arrivals.
    NamedBarrier(usize),
    /// A `fence.sc`: it meets the other `fence.sc`s (the fence-SC order) and its own thread's
    /// view only.
    ScFence,
    /// An operation on this mbarrier (init, arrive, expect-tx, wait): it touches that
    /// mbarrier's state and its own thread's view only.
    MBarrier(usize),
    /// A lane's step in one of this warp's exchanges (`activemask`, `vote/shfl/match/redux.sync`,
    /// `bar.warp.sync`): it touches only the warp's pending exchange (which lanes arrived, with
    /// what mask and value) and, when `bar.warp.sync` completes, the views of its lanes — like a
    /// [`Point::Barrier`] arrival, other memory operations commute with it. Steps of one warp
    /// do not commute with each other: their order decides which lanes form an `activemask`
    /// group and which arrival completes an exchange. A lane's exit, which an exchange waiting
    /// for the non-exited lanes observes, is an [`Point::Other`] point.
    Warp(usize),
    /// A fence, barrier, or anything else visible.
    Other,
}

/// Per-execution engine services, called from the engine's threads.
pub trait Sched: Send + Sync {
    /// Start GPU thread `thread` (called in thread order from the main thread).
    fn spawn(&self, thread: usize, body: Box<dyn FnOnce() + Send + 'static>);
    /// Wait for every spawned thread.
    fn join_all(&self);
    /// A scheduling point before one visible operation of `thread`. Under loom, for a
    /// [`Point::Read`], returns the mirror version loom chose to read.
    fn point(&self, thread: usize, point: Point) -> Option<u32>;
    /// Choose one of `n >= 2` options.
    fn choose(&self, n: usize) -> usize;
    /// Block the calling thread until [`Sched::unpark`] (may return spuriously).
    fn park(&self, thread: usize);
    fn unpark(&self, thread: usize);
    /// `thread`'s latest operation (or what it did after it) ended the execution: a failure,
    /// a bound, a discarded execution. Engines that reason about independence must treat that
    /// operation as conflicting with everything.
    fn halted(&self, _thread: usize) {}
}

/// Whether the engine should go on after an execution.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
    /// Go on; the execution was discarded (infeasible, or a failed spin iteration another
    /// execution covers): it is not one of the executions a report counts, so it does not
    /// count toward an engine's execution budget either.
    Discarded,
}

/// One execution, run on the engine's main thread.
pub type RunOne = Arc<dyn Fn(&Arc<dyn Sched>) -> Flow + Send + Sync>;

/// The size of the kernel being explored.
#[derive(Copy, Clone, Debug)]
pub struct Shape {
    pub threads: usize,
    pub locations: usize,
    /// Blocks ([`Point::Barrier`], [`Point::NamedBarrier`]) and mbarriers ([`Point::MBarrier`]).
    pub blocks: usize,
    pub mbarriers: usize,
}

/// How much an engine explored.
#[derive(Clone, Debug, Default)]
pub struct Exploration {
    /// Executions started (including infeasible ones).
    pub executions: u64,
    /// Whether every execution the engine can reach was explored (exhaustive engines only).
    pub complete: bool,
    /// A problem with the exploration itself (e.g. a replay token that does not fit).
    pub error: Option<String>,
}

pub trait Engine: Send + Sync {
    fn name(&self) -> String;
    /// The most GPU threads the engine can run, if limited.
    fn max_threads(&self) -> Option<usize> {
        None
    }
    /// Whether executions may discard every failed spin-loop iteration after which the spinner
    /// did not stay blocked ([`crate::runtime`]'s spin module): sound only for an exhaustive
    /// engine that then explores the same execution without that iteration, and worth it only
    /// for one that steers by what was discarded (a random scheduler would discard nearly every
    /// run of a spin-wait).
    fn prunes_spins(&self) -> bool {
        false
    }
    /// Run executions until `run` returns [`Flow::Stop`] or the engine is done.
    fn explore(&self, shape: Shape, run: RunOne) -> Exploration;
}

pub use self::dfs::Dfs;
#[cfg(feature = "loom")]
pub use self::loom::Loom;
pub use self::shuttle::{Pct, Random, Replay};
