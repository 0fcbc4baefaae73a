//! The bulk-copy machinery's own state: issued copies, each block's copy agent's queue, where
//! a copy completes, and the `fence.proxy.async`s so far. Plain data: the operations live in the
//! parent module.

use crate::runtime::report::Site;
use crate::runtime::view::View;
use crate::scope::Placement;
use std::collections::VecDeque;
use std::sync::Arc;

/// Where a bulk copy completes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Global→shared: `complete_tx(bytes)` on this mbarrier.
    MBarrier(usize),
    /// Shared→global: the issuer's bulk group (`bulk_wait`).
    BulkGroup,
    /// `cp.async` (global→shared, generic proxy): this group of the issuer (see
    /// the cp_async module).
    CpAsyncGroup(usize),
    /// A litmus program's global→shared copy: the complete-tx on the mbarrier at this location,
    /// whose value is the packed [`crate::litmus::async_ops::MbarrierState`] — a relaxed `.cluster`
    /// read-modify-write of the barrier's state, as the axioms have it (see
    /// `Machine::complete_tx_at`).
    MbarrierAt(usize),
}

/// One executed `fence.proxy.async` (PTX ISA, *membar/fence*: it "establishes ordering between
/// the generic proxy and the async proxy"). Proxy-preserved base causality orders a generic
/// access X before an async-proxy access Y of the same location when X precedes a proxy fence
/// in causality order, the fence precedes Y's issue, and the fence is in Y's CTA and covers Y's
/// state space.
#[derive(Clone, Debug)]
pub struct ProxyFence {
    /// The thread that executed the fence.
    pub thread: usize,
    /// That thread's clock counter at the fence: copies issued after it in causality order
    /// have a view that knows this epoch.
    pub epoch: u32,
    /// Where the fence ran (its CTA is what counts).
    pub placement: Placement,
    /// The locations of the state space it names (`fence.proxy.async.global`,
    /// `.shared::cta`, `.shared::cluster`); `None` for every location.
    pub covers: Option<Arc<[usize]>>,
    /// What the fencing thread knew at the fence.
    pub view: Arc<View>,
}

impl Copy {
    /// A `.bulk_group` copy of several elements reads them all, then writes them: its last
    /// read completes its reading, which `cp.async.bulk.wait_group.read` waits for, before any
    /// of its writes.
    pub fn reads_first(&self) -> bool {
        self.completion == Completion::BulkGroup && self.dst.len() > 1
    }

    /// The agent steps the copy's elements take.
    pub(super) fn steps(&self) -> usize {
        match self.reads_first() {
            true => 2 * self.dst.len(),
            false => self.dst.len(),
        }
    }
}

impl ProxyFence {
    pub(super) fn covers(&self, loc: usize) -> bool {
        self.covers.as_ref().is_none_or(|c| c.contains(&loc))
    }
}

/// Two placements in one CTA.
pub(crate) fn same_cta(a: &Placement, b: &Placement) -> bool {
    a.gpu == b.gpu && a.cta == b.cta
}

/// One issued bulk copy.
#[derive(Clone, Debug)]
pub struct Copy {
    /// The thread that issued the copy.
    pub issuer: usize,
    /// Source element locations, pairwise with `dst`; `None` for an element a tensor-map load
    /// fills with zero because its coordinates are outside the tensor (PTX ISA, *Tensor* /
    /// *Bounding Box*: in tile mode the out-of-bound elements of the box are zero-filled), which
    /// reads nothing.
    pub src: Vec<Option<usize>>,
    /// Destination element locations, `dst[i]` receiving `src[i]`.
    pub dst: Vec<usize>,
    /// The copy's size in bytes (what a `complete_tx` on its mbarrier counts).
    pub bytes: u64,
    /// Where it completes: an mbarrier, a bulk async-group or a `cp.async`-group.
    pub completion: Completion,
    /// What the issuer knew at the issue.
    pub view: Arc<View>,
    /// The issuing instruction.
    pub site: Site,
    /// `.bulk_group` copies: the issuer's bulk async-group the copy belongs to.
    pub group: usize,
    /// A `.bulk_group` copy of several elements reads them all before it writes any (so that
    /// `cp.async.bulk.wait_group.read` can learn of the reads alone): the values read so far.
    pub read_values: Vec<u64>,
    /// `cp.async` only: the element writes performed so far, each an event of its own
    /// (observed, not a clock component) with the coherence floor of its destination — what the
    /// completion releases to the issuer's `wait_group`.
    pub written: Option<View>,
    /// The agent's epoch at the copy's first step: the agent's accesses from this epoch on are
    /// the copy's own (the agent performs one copy at a time).
    pub started: u32,
}

/// A block's agent: the copy in progress (and its next element), then the queue.
#[derive(Clone, Debug, Default)]
pub struct AgentWork {
    pub(crate) current: Option<(Copy, usize)>,
    pub(crate) queue: VecDeque<Copy>,
}

/// What the agent does next.
#[derive(Copy, Clone, Debug)]
pub enum AgentNext {
    /// Copy the next element: read `src`, write `dst`.
    Element {
        /// The source element's location (`None`: zero-filled, see [`Copy::src`]).
        src: Option<usize>,
        /// The destination element's location.
        dst: usize,
    },
    /// Read the next element of a copy that reads all before writing ([`Copy::reads_first`]).
    Read(Option<usize>),
    /// Write the next element of such a copy.
    Write(usize),
    /// Complete the current copy (every element is done): its mbarrier's `complete_tx`, or
    /// marking its group.
    Complete,
    /// No copy queued: wait until one is issued.
    Idle,
    /// No copy queued and every thread of the block is done: the agent ends.
    Exit,
}
