//! The scheduling API between the runtime and the engines: the scheduling points a GPU thread
//! passes ([`Point`], with the [`Footprint`] of an asynchronous step), the per-execution services
//! an engine provides ([`Sched`]), and the exploration strategy the driver hands executions to
//! ([`Engine`]). The runtime defines it and calls through it; the engines implement it and
//! import nothing else of the runtime but replay tokens, so imports flow from the engines to the
//! runtime and never back.

use std::sync::Arc;

/// What a GPU thread is about to do at a scheduling point (loom keys its mirrors on it; the
/// DFS's partial-order reduction decides from it which operations commute, see
/// the engine's `dependent` (`engine::tree`)).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Point {
    /// A load of this location.
    Read(usize),
    /// A store or read-modify-write of this location.
    Write(usize),
    /// A step of the asynchronous-copy machinery (an issue, a copy agent's element or
    /// completion step, a wait for a group), by what it reads and writes (see [`Footprint`]).
    Async(Footprint),
    /// An operation that reads and writes only its own thread's state (a release, acquire or
    /// acq_rel fence, a proxy fence): independent of every other thread's operations.
    Local,
    /// An arrival at this block's `syncthreads` (plain or voting): it touches only the block's
    /// barrier instances and, on completion, the views of the threads that arrived. Arrivals at
    /// one instance commute with each other (whichever comes last completes it, with the same
    /// views, votes and wake-ups), and other memory operations commute with them.
    Barrier(usize),
    /// An arrival at one of block `block`'s named barriers (`bar.sync`, `bar.arrive`) with
    /// barrier `id`. With a thread `count`, arrivals at one id and count fill its instances in
    /// arrival order, `count` at a time: the engine's `dependent_in` (`engine::dependence`)
    /// lets two of them commute when they join the same instance, which only the executed
    /// trace knows. Without a count an arrival completes once the rest of the block arrived,
    /// exited or waits elsewhere, so it conflicts with every arrival of its block.
    NamedBarrier {
        /// The block (CTA) whose barrier it is, by its grid-wide index.
        block: usize,
        /// The barrier's id (`bar.sync a`: the operand `a`, 0 to 15 in the PTX ISA).
        id: i64,
        /// The thread count the arrival names (`bar.sync a, b`: the operand `b`); `None` for
        /// the whole CTA (`bar.sync a`).
        count: Option<u32>,
        /// Whether the arriving thread waits for the instance to complete (`bar.sync`,
        /// `barrier.sync`) rather than going on (`bar.arrive`).
        wait: bool,
    },
    /// An arrival at a warp-synchronous operation (`bar.warp.sync`/`__syncwarp`, a shuffle, a
    /// vote, a match) of the warp `warp` (its grid-wide key) in block `block`, over `mask`.
    Warp {
        /// The block (CTA) the warp belongs to, by its grid-wide index.
        block: usize,
        /// The warp's grid-wide key.
        warp: usize,
        /// The `membermask` operand: bit `i` set when lane `i` takes part (0 for
        /// `activemask`, which has none).
        mask: u64,
        /// The operation's name as the runtime records it (`elect.sync`,
        /// [`ACTIVEMASK`], ...).
        op: &'static str,
    },
    /// A `fence.sc`: it meets the other `fence.sc`s (the fence-SC order) and its own thread's
    /// view only.
    ScFence,
    /// An operation that changes this mbarrier's state (init, arrive, expect-tx, inval, a
    /// cluster barrier's arrive): it touches that mbarrier's state and its own thread's view
    /// only.
    MBarrier(usize),
    /// A `test_wait`/`try_wait` of this mbarrier (or a cluster barrier's wait): it reads the
    /// mbarrier's state (its phase, what its completed phases released) and writes only its own
    /// thread's (its view, whether it blocks). Two waits commute; a wait conflicts with every
    /// operation that changes the mbarrier.
    MBarrierWait(usize),
    /// Anything else visible: dependent with every operation but [`Point::Local`] ones.
    Other,
}

/// What a step of the asynchronous-copy machinery touches besides its own thread's state.
///
/// The state it may share with other threads is of five kinds: memory locations (an element
/// of a copy reads its source and writes its destination), a copy agent's queue (issues append
/// to it, in an order that decides the order of the copies), a copy itself (its issue queues it,
/// its agent's first step takes it up), a thread's asynchronous groups (the agent's step that
/// completes a copy or its reading marks the copy's group, a `wait_group` reads the groups it
/// waits for), and mbarriers (a copy's `complete_tx`; a `cp.async.mbarrier.arrive` performed
/// when the copy completes). The engine's `dependent` (`engine::tree`) has the argument for each.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// The location it reads.
    pub read: Option<usize>,
    /// The location it stores to (a copy's element write).
    pub write: Option<usize>,
    /// The copy agents whose queue it appends to (an issue).
    pub queues: [Option<usize>; 2],
    /// The copy an issue queues and its agent's first step takes up, named by its issuer and
    /// the issuer's epoch at the issue (the take-up happens after the issue).
    pub copy: Option<(usize, u32)>,
    /// The async-group a step marks: the group of the copy it completes, or whose reading it
    /// completes (a `.bulk_group` copy's last read).
    pub group: Option<GroupKey>,
    /// The async-groups a step reads: those of [`GroupKey::thread`] and
    /// [`GroupKey::bulk`] numbered below [`GroupKey::number`] (a `wait_group`, which waits
    /// for every committed group but the most recent ones; a `cp.async.mbarrier.arrive`, which
    /// counts every pending `cp.async` of its thread: `usize::MAX`).
    pub waits: Option<GroupKey>,
    /// The mbarriers it may operate on (a `complete_tx`'s; those of the issuer's CTA, for a
    /// `cp.async` completion that performs the issuer's pending `cp.async.mbarrier.arrive`s).
    pub mbarriers: [Option<usize>; 4],
    /// It may operate on any mbarrier (a `cp.async` completion in a CTA with more mbarriers
    /// than `mbarriers` holds).
    pub any_mbarrier: bool,
}

/// One thread's async-group: its `cp.async`-groups and its bulk async-groups are numbered
/// apart (`bulk`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey {
    /// The thread that issued the group's copies.
    pub thread: usize,
    /// A bulk async-group (`cp.async.bulk ... .bulk_group`), not a `cp.async`-group.
    pub bulk: bool,
    /// The group's number (in [`Footprint::waits`]: the first group not read).
    pub number: usize,
}

impl GroupKey {
    /// Whether a step that reads the groups below `self` reads `group`.
    pub fn covers(&self, group: GroupKey) -> bool {
        self.thread == group.thread && self.bulk == group.bulk && group.number < self.number
    }
}

impl Footprint {
    /// Whether the groups one step marks are read or marked by the other.
    pub fn groups_meet(&self, other: &Footprint) -> bool {
        let meets = |a: &Footprint, b: &Footprint| {
            a.group
                .is_some_and(|g| b.group == Some(g) || b.waits.is_some_and(|w| w.covers(g)))
        };
        meets(self, other) || meets(other, self)
    }

    /// The copy agents whose queue it appends to.
    pub fn queues(&self) -> impl Iterator<Item = usize> + '_ {
        self.queues.iter().flatten().copied()
    }

    /// The mbarriers it names.
    pub fn mbarriers(&self) -> impl Iterator<Item = usize> + '_ {
        self.mbarriers.iter().flatten().copied()
    }
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
    /// Make parked GPU thread `thread` runnable again (a no-op if it is not parked).
    fn unpark(&self, thread: usize);
    /// `thread`'s latest operation (or what it did after it) ended the execution: a failure,
    /// a bound, a discarded execution. Engines that reason about independence must treat that
    /// operation as conflicting with everything.
    fn halted(&self, _thread: usize) {}
    /// `thread`'s latest operation, at a [`Point::MBarrier`] or a [`Point::Async`] on one
    /// mbarrier, turned out to do `step` (reported right after the step, before the threads it
    /// woke are unparked). An engine that reasons about independence may use it; without it the
    /// operation conflicts with every operation on its mbarrier.
    fn mbarrier_step(&self, _thread: usize, _step: MBarrierStep) {}
}

/// What one operation that changes an mbarrier did in the current phase, as the runtime saw it
/// when the operation ran: the DFS's partial-order reduction lets such operations commute by it
/// (the engine's `dependent_in` has the argument), the way a counted named-barrier arrival is
/// placed in its instance.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MBarrierStep {
    /// The mbarrier.
    pub bar: usize,
    /// Its current phase when the operation ran.
    pub phase: u32,
    /// What it changed there.
    pub effect: MBarrierEffect,
    /// The operation completed the phase (PTX ISA, *mbarrier*: "the current phase is completed
    /// when the pending arrival count reaches zero and the tx-count reaches zero").
    pub completes: bool,
}

/// What an operation changed on an mbarrier ([`MBarrierStep`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MBarrierEffect {
    /// An arrive-on operation of at least one arrival (with the tx-count an `.expect_tx` adds
    /// first) whose result the thread keeps only as the phase (PTX ISA, *mbarrier.arrive*: the
    /// returned `state` is opaque; a thread that keeps it whole can read the pending count
    /// from it, which the order of the arrivals changes: that arrive is a [`Self::Count`]).
    Arrival,
    /// Any other change of the phase's counts: an `expect_tx`, a `complete_tx`, an arrive whose
    /// state the thread keeps.
    Count,
    /// Only a copy in flight counted on it (the issue of a bulk copy that completes on it),
    /// which nothing but an `mbarrier.init` reads (a re-init while copies are in flight is
    /// misuse).
    InFlight,
}

/// Whether the engine should go on after an execution.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the next execution, if the engine has one left.
    Continue,
    /// End the exploration now (a failure was found, or the caller's budget is spent).
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
    /// GPU threads: every thread of every block, and each block's asynchronous copy agent.
    pub threads: usize,
    /// Memory locations of the runtime ([`Point::Read`] / [`Point::Write`] index them).
    pub locations: usize,
    /// Blocks ([`Point::Barrier`], [`Point::NamedBarrier`]) and mbarriers ([`Point::MBarrier`],
    /// [`Point::MBarrierWait`]).
    pub blocks: usize,
    /// Mbarrier objects ([`Point::MBarrier`], [`Point::MBarrierWait`] index them).
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

/// An exploration strategy: it runs a kernel's executions (one [`RunOne`] call each) and decides,
/// through the [`Sched`] it hands each execution, who runs next and which store a load reads.
pub trait Engine: Send + Sync {
    /// The engine's name with its parameters, as reports print it (`dfs`, `shuttle-pct(seed=1,
    /// depth=3, iterations=100)`).
    fn name(&self) -> String;
    /// The most GPU threads the engine can run, if limited.
    fn max_threads(&self) -> Option<usize> {
        None
    }
    /// Whether executions may discard every failed spin-loop iteration after which the spinner
    /// did not stay blocked (the runtime's spin module): sound only for an exhaustive
    /// engine that then explores the same execution without that iteration, and worth it only
    /// for one that steers by what was discarded (a random scheduler would discard nearly every
    /// run of a spin-wait).
    fn prunes_spins(&self) -> bool {
        false
    }
    /// Run executions until `run` returns [`Flow::Stop`] or the engine is done.
    fn explore(&self, shape: Shape, run: RunOne) -> Exploration;
}

/// The `op` of an `activemask` step's [`Point::Warp`]. Unlike the exchanges, `activemask` steps
/// of one warp never commute: the lanes waiting at the instruction when one of them takes its
/// mask form its group (PTX ISA, *activemask*), so their order decides the masks.
pub const ACTIVEMASK: &str = "activemask";
