//! Hopper's asynchronous instructions in the litmus dialect: mbarrier objects, bulk copies
//! (`cp.async.bulk`, the TMA), thread-block clusters and distributed shared memory.
//!
//! Every instruction here is one [`AsyncOp`] (the IR's [`Instr::Async`]); the parser lives in
//! `parse/async_ops.rs`, the printer is [`AsyncOp::print`]. Shared memory belongs to one CTA
//! ([`Location::shared`]): its own threads reach it through `.shared::cta` (or the generic
//! window), the other CTAs of its cluster through `.shared::cluster` (PTX ISA, *State spaces*:
//! "the shared memory window of a CTA ... is also accessible to other CTAs in the cluster through
//! the `.shared::cluster` window").

use super::ir::*;
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

    /// The instruction in litmus syntax (every default spelled out).
    pub fn print(&self, p: &Program) -> String {
        let loc = |l: &LocId| p.locations[*l].name.as_str();
        match self {
            AsyncOp::MbarrierInit { bar, count } => format!("mbarrier.init {}, {count}", loc(bar)),
            AsyncOp::MbarrierArrive {
                bar,
                order,
                scope,
                window,
                arrival,
            } => {
                let (tx, n) = arrival.ptx_parts();
                let name = window.name();
                format!(
                    "mbarrier.arrive{tx}.{order}.{scope}.{name} {}, {n}",
                    loc(bar)
                )
            }
            AsyncOp::MbarrierExpectTx {
                bar,
                scope,
                window,
                bytes,
            } => format!(
                "mbarrier.expect_tx.relaxed.{scope}.{} {}, {bytes}",
                window.name(),
                loc(bar)
            ),
            AsyncOp::MbarrierCompleteTx {
                bar,
                scope,
                window,
                bytes,
            } => format!(
                "mbarrier.complete_tx.relaxed.{scope}.{} {}, {bytes}",
                window.name(),
                loc(bar)
            ),
            AsyncOp::MbarrierTryWait {
                dst,
                bar,
                order,
                scope,
                parity,
            } => format!(
                "mbarrier.try_wait.parity.{order}.{scope} {dst}, {}, {parity}",
                loc(bar)
            ),
            AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::Mbarrier(bar),
            } => {
                let from = match p.shared_of(*src) {
                    Some(_) => "shared::cta",
                    None => "global",
                };
                format!(
                    "cp.async.bulk.shared::cluster.{from}.mbarrier::complete_tx::bytes {}, {}, {size}, {}",
                    loc(dst),
                    loc(src),
                    loc(bar)
                )
            }
            AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::BulkGroup,
            } => format!(
                "cp.async.bulk.global.shared::cta.bulk_group {}, {}, {size}",
                loc(dst),
                loc(src)
            ),
            AsyncOp::BulkCommitGroup => "cp.async.bulk.commit_group".into(),
            AsyncOp::BulkWaitGroup { pending, read } => {
                let read = if *read { ".read" } else { "" };
                format!("cp.async.bulk.wait_group{read} {pending}")
            }
            AsyncOp::FenceMbarrierInit => "fence.mbarrier_init.release.cluster".into(),
            AsyncOp::ClusterArrive { order } => format!("barrier.cluster.arrive.{order}"),
            AsyncOp::ClusterWait => "barrier.cluster.wait.acquire".into(),
        }
    }
}

impl Program {
    /// The CTA whose shared memory holds a (possibly aliased) location; `None` for global
    /// memory.
    pub fn shared_of(&self, loc: LocId) -> Option<SharedOf> {
        self.locations[self.physical(loc)].shared
    }

    /// The placement of a CTA that runs threads of the program (`None` when no thread runs in
    /// it): what tells which cluster a shared location's CTA belongs to.
    pub fn cta_placement(&self, of: SharedOf) -> Option<Placement> {
        cta_placement(self.threads.iter().map(|t| &t.placement), of)
    }
}

/// The placement of the first of `placements` in CTA `of`.
pub(crate) fn cta_placement<'a>(
    mut placements: impl Iterator<Item = &'a Placement>,
    of: SharedOf,
) -> Option<Placement> {
    placements.find(|p| of.is_own(p)).copied()
}

/// Whether a thread at `by` may name shared memory of `of` through `window`, given where the
/// owning CTA runs (`owner`); the reason when it may not.
pub fn check_window(
    by: &Placement,
    of: SharedOf,
    owner: Option<&Placement>,
    window: SharedWindow,
) -> Result<(), String> {
    if of.is_own(by) {
        return Ok(());
    }
    let Some(owner) = owner else {
        return Err(format!(
            "it is shared memory of cta {},gpu {}, where no thread runs (so its cluster is unknown)",
            of.cta, of.gpu
        ));
    };
    if !Scope::Cluster.includes(by, owner) {
        return Err(format!(
            "it is shared memory of cta {},gpu {}, which is not in this thread's cluster",
            of.cta, of.gpu
        ));
    }
    match window {
        SharedWindow::Cluster => Ok(()),
        SharedWindow::Cta => Err(format!(
            "it is shared memory of peer cta {}: reach it through `.shared::cluster`",
            of.cta
        )),
    }
}

/// An mbarrier object's state, held as the one value of its location (PTX ISA, *mbarrier*: "the
/// current phase, the count of pending arrivals for the current phase, the count of expected
/// arrivals for the next phase, the count of pending asynchronous transactions (tx-count)").
///
/// Packed into a [`Value`] as four 16-bit fields, low to high: the phase number, the pending
/// arrival count (signed), the expected arrival count and the tx-count (signed: a complete-tx
/// may come before its expect-tx, "the tx-count ... can be in the range [-(2^20-1), 2^20-1]").
/// A location holding 0 is a barrier never initialised. Litmus counts stay far below 2^15.
///
/// ```
/// use scopecheck_model::litmus::async_ops::MbarrierState;
/// let b = MbarrierState::init(2);
/// let once = MbarrierState::update(b, 1, 16); // arrive.expect_tx 16: 1 pending, 16 bytes
/// assert!(!MbarrierState::completed(once, 0));
/// let twice = MbarrierState::update(once, 1, 0); // the last arrival, bytes still pending
/// assert!(!MbarrierState::completed(twice, 0));
/// let done = MbarrierState::update(twice, 0, -16); // complete_tx 16: phase 0 completes
/// assert!(MbarrierState::completed(done, 0) && !MbarrierState::completed(done, 1));
/// assert_eq!(MbarrierState::unpack(done).pending, 2); // reloaded for phase 1
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MbarrierState {
    /// Phases completed so far (modulo 2^16; its low bit is the current phase's parity).
    pub phase: u16,
    /// Arrivals the current phase still waits for.
    pub pending: i16,
    /// Arrivals each phase waits for (`mbarrier.init`'s count).
    pub expected: u16,
    /// Bytes of asynchronous transactions the current phase still waits for.
    pub tx: i16,
}

impl MbarrierState {
    /// The fields of a packed state.
    pub fn unpack(v: Value) -> MbarrierState {
        let v = v as u64;
        MbarrierState {
            phase: v as u16,
            pending: (v >> 16) as u16 as i16,
            expected: (v >> 32) as u16,
            tx: (v >> 48) as u16 as i16,
        }
    }

    /// The packed value.
    pub fn pack(self) -> Value {
        (u64::from(self.phase)
            | u64::from(self.pending as u16) << 16
            | u64::from(self.expected) << 32
            | u64::from(self.tx as u16) << 48) as Value
    }

    /// `mbarrier.init b, count`: "sets the current phase to 0, the expected and pending arrival
    /// counts to `count` and the tx-count to 0".
    pub fn init(count: Value) -> Value {
        MbarrierState {
            phase: 0,
            pending: count as i16,
            expected: count as u16,
            tx: 0,
        }
        .pack()
    }

    /// The state after raising the tx-count by `tx` (negative: a complete-tx) and then
    /// `arrivals` arrive-on operations. PTX ISA, *phase completion*: "the current phase is
    /// complete when the pending arrival count reaches zero and the tx-count reaches zero";
    /// the barrier then moves to the next phase with the expected count pending again.
    pub fn update(state: Value, arrivals: Value, tx: Value) -> Value {
        let mut s = MbarrierState::unpack(state);
        s.tx = s.tx.wrapping_add(tx as i16);
        s.pending = s.pending.wrapping_sub(arrivals as i16);
        if s.pending == 0 && s.tx == 0 && (arrivals != 0 || tx != 0) {
            s.phase = s.phase.wrapping_add(1);
            s.pending = s.expected as i16;
        }
        s.pack()
    }

    /// `mbarrier.try_wait.parity b, parity`: whether the phase of that parity has completed,
    /// that is, the current phase has the other parity (PTX ISA: "phaseParity ... the parity of
    /// the phase whose completion is waited for").
    pub fn completed(state: Value, parity: Value) -> bool {
        u64::from(MbarrierState::unpack(state).phase & 1) != (parity as u64 & 1)
    }
}
