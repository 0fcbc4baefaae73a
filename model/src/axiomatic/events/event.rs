//! What an event of a thread does ([`Kind`]), the event with what it depends on
//! ([`ThreadEvent`]), and a thread's run with concrete values ([`Trace`]).

use crate::litmus::*;
use std::rc::Rc;

/// What one event of a thread does; `V` is a concrete [`Value`] in a [`Trace`], an
/// [`Expr`](super::expr::Expr) over the path's reads in a `Path`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind<V = Value> {
    /// `rmw`: a write of the same instruction follows this read.
    Read {
        /// The location read.
        loc: LocId,
        /// Its proxy, order and scope.
        access: Access,
        /// The value the read returns.
        value: V,
        /// Whether it is the read of a read-modify-write (`atom`, `red`).
        rmw: bool,
    },
    /// `rmw`: this write completes the read just before it.
    Write {
        /// The location written.
        loc: LocId,
        /// Its proxy, order and scope.
        access: Access,
        /// The value written.
        value: V,
        /// Whether it is the write of a read-modify-write (`atom`, `red`).
        rmw: bool,
    },
    /// A `fence` / `membar` (its order and scope) or a `fence.proxy.*`.
    Fence(Fence),
    /// A `bar.cta.sync` / `bar.cta.arrive`: one arrival at a CTA barrier.
    Barrier {
        /// Arrive and wait (`sync`), or arrive only.
        op: BarrierOp,
        /// The barrier's name: threads meet only at equal ids.
        id: Vec<V>,
        /// The number of threads that complete one instance, when the instruction gives it
        /// (otherwise every thread of the CTA).
        quorum: Option<V>,
    },
    /// `barrier.cluster.arrive{.release|.relaxed}` / `barrier.cluster.wait`: one use of the
    /// cluster's barrier (see [`ClusterBarrier`]).
    ClusterBarrier(ClusterBarrier),
    /// `fence.mbarrier_init.release.cluster`: a fence, at `.cluster` scope with `.release`
    /// semantics, that applies only to the thread's earlier `mbarrier.init`s (PTX ISA,
    /// *membar/fence*: "fence.mbarrier_init is a light-weight fence ... that applies to prior
    /// mbarrier.init operations"). Models say what it orders (`ptx-v8.cat`, `FMBINIT`).
    MbarrierInitFence,
}

/// A cluster barrier event. PTX ISA, *barrier.cluster*: "each thread in the cluster arrives at
/// the barrier" and `barrier.cluster.wait` "causes the executing thread to wait for all
/// non-exited threads of the cluster to perform barrier.cluster.arrive"; "barrier.cluster.arrive
/// ... has .release semantics by default" (`.relaxed` drops them) and "barrier.cluster.wait has
/// .acquire semantics by default". The k-th arrive of every thread of a cluster joins the k-th
/// instance; a wait belongs to the instance of its thread's latest arrive.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClusterBarrier {
    /// `barrier.cluster.arrive`, `.release` unless `.relaxed`.
    Arrive {
        /// `.release` (the default); `false` for `.relaxed`.
        release: bool,
    },
    /// `barrier.cluster.wait` (`.acquire`).
    Wait,
}

/// One event of a thread's path or trace: what it does ([`Kind`]), the statement it comes from,
/// the reads it depends on and, for asynchronous copies, where program order applies to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThreadEvent<V = Value> {
    /// Index of the statement in the thread's body.
    pub stmt: usize,
    /// What the event does.
    pub kind: Kind<V>,
    /// Indices (within the trace) of the reads this event depends on (shared: every
    /// valuation of a path has the same).
    pub deps: Rc<[usize]>,
    /// For the read and the write of a `cp.async`: the index of the first event after the
    /// `cp.async.wait_group` that waited for the copy's group (`usize::MAX` when none does).
    /// Program order runs from the copy only to its own write and to the events from there on;
    /// the events in between are unordered with it. `None` for every other event.
    pub copy_until: Option<usize>,
    /// For the events of a bulk copy (`cp.async.bulk`), which the async proxy performs apart
    /// from the issuing thread's program order: the index of the copy's first event. `None` for
    /// the thread's own events.
    pub copy: Option<usize>,
    /// For the events of a `.bulk_group` bulk copy: the index of the first event of its thread
    /// after the `cp.async.bulk.wait_group` that waited for it (for the source read, also a
    /// `wait_group.read`). `None` while no wait has.
    pub completed_at: Option<usize>,
}

/// One way a thread can run to its end, with the values its loads returned.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The thread's events in program order, with concrete values.
    pub events: Vec<ThreadEvent>,
    /// The final value of every register of the thread, by register name.
    pub regs: Vec<(Reg, Value)>,
}
