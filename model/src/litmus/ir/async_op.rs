//! Hopper's asynchronous instructions as plain data: mbarrier objects, bulk copies
//! (`cp.async.bulk`, the TMA), thread-block clusters and distributed shared memory. A leaf of
//! the IR: an `Instr::Async` carries an [`AsyncOp`], a shared location its [`SharedOf`]; the
//! parser (`parse/async_ops.rs`), the printer and the program-level checks live in the
//! `async_ops` module, which imports the IR.
//!
//! Shared memory belongs to one CTA (a location's `shared`): its own threads reach it through
//! `.shared::cta` (or the generic window), the other CTAs of its cluster through
//! `.shared::cluster` (PTX ISA, *State spaces*: "the shared memory window of a CTA ... is also
//! accessible to other CTAs in the cluster through the `.shared::cluster` window").

use super::operand::{LocId, Operand, Reg, Value};
use crate::scope::{Order, Placement, Scope};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The CTA whose shared memory holds a location (`x @ shared cta 1,gpu 0 = 0`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SharedOf {
    /// The owning CTA's id.
    pub cta: u32,
    /// The owning CTA's GPU.
    pub gpu: u32,
}

impl SharedOf {
    /// Whether a thread at `p` runs in the owning CTA.
    pub fn is_own(&self, p: &Placement) -> bool {
        p.cta == self.cta && p.gpu == self.gpu
    }
}

impl fmt::Display for SharedOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shared cta {},gpu {}", self.cta, self.gpu)
    }
}

/// How an instruction names the state space of a shared-memory operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SharedWindow {
    /// `.shared::cta` (or `.shared`): the executing CTA's own shared memory.
    Cta,
    /// `.shared::cluster`: the shared memory of any CTA of the executing thread's cluster.
    Cluster,
}

impl SharedWindow {
    /// The qualifier (`shared::cta`, `shared::cluster`).
    pub fn name(self) -> &'static str {
        match self {
            SharedWindow::Cta => "shared::cta",
            SharedWindow::Cluster => "shared::cluster",
        }
    }
}

/// What an `mbarrier.arrive` adds to the current phase.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Arrival {
    /// `mbarrier.arrive bar[, count]`: `count` arrivals (1 when omitted).
    Count(Operand),
    /// `mbarrier.arrive.expect_tx bar, bytes`: one arrival after raising the phase's
    /// tx-count by `bytes` (PTX ISA, *mbarrier.arrive*: "performs an expect-tx operation prior
    /// to the arrive-on operation").
    ExpectTx(Operand),
}

impl Arrival {
    /// The instruction's `.expect_tx` qualifier (or nothing) and its count operand, as PTX
    /// writes them: `mbarrier.arrive{.expect_tx}... bar, n`.
    pub fn ptx_parts(&self) -> (&'static str, &Operand) {
        match self {
            Arrival::Count(n) => ("", n),
            Arrival::ExpectTx(n) => (".expect_tx", n),
        }
    }
}

/// How a bulk copy reports its completion.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BulkCompletion {
    /// `.mbarrier::complete_tx::bytes`: a complete-tx of the copy's size on this mbarrier,
    /// which lies in the destination's CTA.
    Mbarrier(LocId),
    /// `.bulk_group`: the copy joins the thread's current bulk async-group, which
    /// `cp.async.bulk.commit_group` closes and `cp.async.bulk.wait_group` waits for.
    BulkGroup,
}

/// One Hopper asynchronous-pipeline or cluster instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AsyncOp {
    /// `mbarrier.init bar, count`: phase 0, `count` pending arrivals, tx-count 0. PTX ISA,
    /// *mbarrier.init*: the barrier must lie in the executing CTA's shared memory.
    MbarrierInit {
        /// The mbarrier: a location in shared memory holding its packed state.
        bar: LocId,
        /// The expected arrival count of each phase.
        count: Operand,
    },
    /// `mbarrier.arrive{.expect_tx}{.release|.relaxed}{.cta|.cluster}{.shared::cta|.shared::cluster}
    /// bar[, n]`. PTX ISA: ".sem defaults to .release and .scope to .cta"; `.shared::cluster`
    /// arrives on a peer CTA's barrier (a remote arrive).
    MbarrierArrive {
        /// The mbarrier: a location in shared memory holding its packed state.
        bar: LocId,
        /// `.release` (the default) or `.relaxed`.
        order: Order,
        /// `.cta` (the default) or `.cluster`.
        scope: Scope,
        /// Whether the barrier is named in the own CTA's window or the cluster's.
        window: SharedWindow,
        /// How many arrivals, and whether an expect-tx comes first.
        arrival: Arrival,
    },
    /// `mbarrier.expect_tx{.relaxed}{.cta|.cluster}{window} bar, bytes`: raises the current
    /// phase's tx-count.
    MbarrierExpectTx {
        /// The mbarrier: a location in shared memory holding its packed state.
        bar: LocId,
        /// `.cta` (the default) or `.cluster`.
        scope: Scope,
        /// Whether the barrier is named in the own CTA's window or the cluster's.
        window: SharedWindow,
        /// Bytes added to the current phase's tx-count.
        bytes: Operand,
    },
    /// `mbarrier.complete_tx{.relaxed}{.cta|.cluster}{window} bar, bytes`: lowers the current
    /// phase's tx-count, as a completed transfer of `bytes` does.
    MbarrierCompleteTx {
        /// The mbarrier: a location in shared memory holding its packed state.
        bar: LocId,
        /// `.cta` (the default) or `.cluster`.
        scope: Scope,
        /// Whether the barrier is named in the own CTA's window or the cluster's.
        window: SharedWindow,
        /// Bytes subtracted from the current phase's tx-count.
        bytes: Operand,
    },
    /// `mbarrier.try_wait.parity{.acquire|.relaxed}{.cta|.cluster} dst, bar, parity`: `dst` is 1
    /// when the phase of parity `parity` has completed, else 0 (PTX ISA: "waitComplete"; a
    /// failing try_wait may also just time out). `.acquire.cta` by default.
    MbarrierTryWait {
        /// The predicate register: 1 when the phase completed, else 0.
        dst: Reg,
        /// The mbarrier: a location in shared memory holding its packed state.
        bar: LocId,
        /// `.acquire` (the default) or `.relaxed`.
        order: Order,
        /// `.cta` (the default) or `.cluster`.
        scope: Scope,
        /// The parity (0 or 1) of the phase waited for.
        parity: Operand,
    },
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes dst, src, size, bar`
    /// (global → a cluster CTA's shared memory), `cp.async.bulk.shared::cluster.shared::cta
    /// .mbarrier::complete_tx::bytes` (own shared → a peer's) or
    /// `cp.async.bulk.global.shared::cta.bulk_group dst, src, size` (own shared → global).
    /// The spaces follow from the locations; `size` (bytes, a multiple of 16) is what the
    /// copy's complete-tx counts.
    BulkCopy {
        /// The destination location.
        dst: LocId,
        /// The source location.
        src: LocId,
        /// The copy's size in bytes.
        size: Value,
        /// How it reports completion: a complete-tx on an mbarrier, or a bulk async-group.
        completion: BulkCompletion,
    },
    /// `cp.async.bulk.commit_group`: closes the thread's current bulk async-group.
    BulkCommitGroup,
    /// `cp.async.bulk.wait_group{.read} n`: waits until at most `n` of the thread's committed
    /// bulk async-groups are pending (with `.read`: until their source reads are done).
    BulkWaitGroup {
        /// `n`: how many of the most recent committed groups may stay pending.
        pending: u32,
        /// `.read`: wait only until the groups' source reads are done.
        read: bool,
    },
    /// `fence.mbarrier_init.release.cluster`: releases the executing thread's earlier
    /// `mbarrier.init`s to the cluster (PTX ISA, *membar/fence*: "a light-weight fence ... that
    /// applies to prior mbarrier.init operations").
    FenceMbarrierInit,
    /// `barrier.cluster.arrive{.release|.relaxed}`: `.release` by default.
    ClusterArrive {
        /// `.release` (the default) or `.relaxed`.
        order: Order,
    },
    /// `barrier.cluster.wait{.acquire}`: waits for every thread of the cluster to arrive; always
    /// `.acquire` (PTX ISA: "barrier.cluster.wait has .acquire semantics by default").
    ClusterWait,
}

impl AsyncOp {
    /// The mbarrier an instruction operates on, if any.
    pub fn mbarrier(&self) -> Option<LocId> {
        match self {
            AsyncOp::MbarrierInit { bar, .. }
            | AsyncOp::MbarrierArrive { bar, .. }
            | AsyncOp::MbarrierExpectTx { bar, .. }
            | AsyncOp::MbarrierCompleteTx { bar, .. }
            | AsyncOp::MbarrierTryWait { bar, .. }
            | AsyncOp::BulkCopy {
                completion: BulkCompletion::Mbarrier(bar),
                ..
            } => Some(*bar),
            _ => None,
        }
    }

    /// Whether it is an mbarrier instruction (`mbarrier.*`; not a bulk copy's complete-tx).
    pub fn is_mbarrier_op(&self) -> bool {
        matches!(
            self,
            AsyncOp::MbarrierInit { .. }
                | AsyncOp::MbarrierArrive { .. }
                | AsyncOp::MbarrierExpectTx { .. }
                | AsyncOp::MbarrierCompleteTx { .. }
                | AsyncOp::MbarrierTryWait { .. }
        )
    }

    /// The register the instruction writes, if any.
    pub fn written_reg(&self) -> Option<&Reg> {
        match self {
            AsyncOp::MbarrierTryWait { dst, .. } => Some(dst),
            _ => None,
        }
    }

    /// The value operands the instruction reads.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            AsyncOp::MbarrierInit { count, .. } => vec![count],
            AsyncOp::MbarrierArrive {
                arrival: Arrival::Count(n) | Arrival::ExpectTx(n),
                ..
            } => vec![n],
            AsyncOp::MbarrierExpectTx { bytes, .. } | AsyncOp::MbarrierCompleteTx { bytes, .. } => {
                vec![bytes]
            }
            AsyncOp::MbarrierTryWait { parity, .. } => vec![parity],
            _ => vec![],
        }
    }
}
