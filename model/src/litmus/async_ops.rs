//! Hopper's asynchronous instructions in the litmus dialect: mbarrier objects, bulk copies
//! (`cp.async.bulk`, the TMA), thread-block clusters and distributed shared memory.
//!
//! Every instruction here is one [`AsyncOp`] (the IR's [`Instr::Async`]), plain data of the IR
//! (`ir/async_op.rs`, re-exported here); the parser lives in `parse/async_ops.rs`, the printer
//! is [`AsyncOp::print`]. Shared memory belongs to one CTA ([`Location::shared`]): its own
//! threads reach it through `.shared::cta` (or the generic window), the other CTAs of its
//! cluster through `.shared::cluster` (PTX ISA, *State spaces*: "the shared memory window of a
//! CTA ... is also accessible to other CTAs in the cluster through the `.shared::cluster`
//! window").

pub use super::ir::async_op::{Arrival, AsyncOp, BulkCompletion, SharedOf, SharedWindow};
use super::ir::*;
use crate::scope::{Placement, Scope};

impl AsyncOp {
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
