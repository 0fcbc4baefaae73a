//! The bulk-copy machinery's own state: issued copies, each block's copy agent's queue, where
//! a copy completes, and the `fence.proxy.async`s so far. Plain data: the operations live in the
//! parent module.

use crate::runtime::memory::Bits;
use crate::runtime::report::{RmwKind, Site};
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
    /// `st.async` / `red.async`: `complete_tx(bytes)` on this mbarrier of the destination's CTA,
    /// with `.release` semantics at `.cluster` scope (see the `store` module), carrying what
    /// the issuer knew at the issue and the store itself.
    Release(usize),
}

/// What an `st.async` or a `red.async` writes to its destination elements (PTX ISA 8.1,
/// *Data Movement and Conversion Instructions: st.async*, *Parallel Synchronization and
/// Communication Instructions: red.async*).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsyncStore {
    /// `st.async{.vec}.type [a], b, [mbar]`: the value of each destination element, in order
    /// (`b` or `{b0, b1, ...}`).
    Values(Vec<Bits>),
    /// `red.async.op.type [a], b, [mbar]`: one reduction of the single destination element.
    Reduce(RedAsync),
}

/// The operation of a `red.async` (PTX ISA, *red.async*: `.op = { .inc, .dec }` with `.u32`;
/// `{ .min, .max }` with `.u32, .s32`; `{ .and, .or, .xor }` with `.b32`; `.add` with `.u32,
/// .s32, .u64`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RedAsyncOp {
    /// `.add`: `old + b`, wrapping.
    Add,
    /// `.min`: the smaller of `old` and `b`, signed for `.s32`.
    Min,
    /// `.max`: the larger of `old` and `b`, signed for `.s32`.
    Max,
    /// `.inc`: `(old >= b) ? 0 : old + 1` (as `atom.inc`).
    Inc,
    /// `.dec`: `((old == 0) || (old > b)) ? b : old - 1` (as `atom.dec`).
    Dec,
    /// `.and`: bitwise and.
    And,
    /// `.or`: bitwise or.
    Or,
    /// `.xor`: bitwise exclusive or.
    Xor,
}

/// The type of a `red.async`: `.u32`, `.s32`, `.u64` or `.b32`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RedAsyncType {
    /// `.u32`.
    U32,
    /// `.s32`.
    S32,
    /// `.u64` (`.add` only).
    U64,
    /// `.b32` (the bitwise operations).
    B32,
}

/// One `red.async.op.type`, with its operand `b`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RedAsync {
    /// The operation.
    pub op: RedAsyncOp,
    /// The type.
    pub ty: RedAsyncType,
    /// The operand `b`, as the destination's bits.
    pub operand: Bits,
}

impl RedAsyncOp {
    /// Every operation, in the order the PTX ISA lists them.
    pub const ALL: [RedAsyncOp; 8] = [
        RedAsyncOp::Inc,
        RedAsyncOp::Dec,
        RedAsyncOp::Min,
        RedAsyncOp::Max,
        RedAsyncOp::And,
        RedAsyncOp::Or,
        RedAsyncOp::Xor,
        RedAsyncOp::Add,
    ];

    /// The PTX qualifier (`add`, `inc`, ...).
    pub fn name(self) -> &'static str {
        match self {
            RedAsyncOp::Add => "add",
            RedAsyncOp::Min => "min",
            RedAsyncOp::Max => "max",
            RedAsyncOp::Inc => "inc",
            RedAsyncOp::Dec => "dec",
            RedAsyncOp::And => "and",
            RedAsyncOp::Or => "or",
            RedAsyncOp::Xor => "xor",
        }
    }

    /// The operation a PTX qualifier names.
    pub fn from_name(name: &str) -> Option<RedAsyncOp> {
        RedAsyncOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The types the PTX ISA's syntax of `red.async` allows with this operation.
    pub fn types(self) -> &'static [RedAsyncType] {
        use RedAsyncType::*;
        match self {
            RedAsyncOp::Inc | RedAsyncOp::Dec => &[U32],
            RedAsyncOp::Min | RedAsyncOp::Max => &[U32, S32],
            RedAsyncOp::And | RedAsyncOp::Or | RedAsyncOp::Xor => &[B32],
            RedAsyncOp::Add => &[U32, S32, U64],
        }
    }

    /// The operation's kind in reports.
    pub fn kind(self) -> RmwKind {
        match self {
            RedAsyncOp::Add => RmwKind::Add,
            RedAsyncOp::Min => RmwKind::Min,
            RedAsyncOp::Max => RmwKind::Max,
            RedAsyncOp::Inc => RmwKind::Inc,
            RedAsyncOp::Dec => RmwKind::Dec,
            RedAsyncOp::And => RmwKind::And,
            RedAsyncOp::Or => RmwKind::Or,
            RedAsyncOp::Xor => RmwKind::Xor,
        }
    }
}

impl RedAsyncType {
    /// The PTX type suffix (`u32`, ...).
    pub fn name(self) -> &'static str {
        match self {
            RedAsyncType::U32 => "u32",
            RedAsyncType::S32 => "s32",
            RedAsyncType::U64 => "u64",
            RedAsyncType::B32 => "b32",
        }
    }

    /// The type a PTX suffix names.
    pub fn from_name(name: &str) -> Option<RedAsyncType> {
        [
            RedAsyncType::U32,
            RedAsyncType::S32,
            RedAsyncType::U64,
            RedAsyncType::B32,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }

    /// Its size in bytes (what the complete-tx counts).
    pub fn bytes(self) -> u64 {
        match self {
            RedAsyncType::U64 => 8,
            _ => 4,
        }
    }
}

impl RedAsync {
    /// A `red.async`, if the PTX ISA allows `op` with `ty`; else the one-line reason.
    pub fn new(op: RedAsyncOp, ty: RedAsyncType, operand: Bits) -> Result<RedAsync, String> {
        match op.types().contains(&ty) {
            true => Ok(RedAsync { op, ty, operand }),
            false => Err(format!(
                "red.async.{}.{} is not a PTX form: .{} takes {}",
                op.name(),
                ty.name(),
                op.name(),
                (op.types().iter())
                    .map(|t| format!(".{}", t.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The new value of a destination holding `old` (PTX ISA, *red.async*: "performs a
    /// reduction operation with operand b and the value in location a, and stores the result of
    /// the specified operation at location a"; `.inc`/`.dec` as `atom`'s).
    pub fn apply(&self, old: Bits) -> Bits {
        if self.ty == RedAsyncType::U64 {
            return old.wrapping_add(self.operand);
        }
        let (a, b) = (old as u32, self.operand as u32);
        let new = match self.op {
            RedAsyncOp::Add => a.wrapping_add(b),
            RedAsyncOp::Min if self.ty == RedAsyncType::S32 => (a as i32).min(b as i32) as u32,
            RedAsyncOp::Max if self.ty == RedAsyncType::S32 => (a as i32).max(b as i32) as u32,
            RedAsyncOp::Min => a.min(b),
            RedAsyncOp::Max => a.max(b),
            RedAsyncOp::Inc if a >= b => 0,
            RedAsyncOp::Inc => a + 1,
            RedAsyncOp::Dec if a == 0 || a > b => b,
            RedAsyncOp::Dec => a - 1,
            RedAsyncOp::And => a & b,
            RedAsyncOp::Or => a | b,
            RedAsyncOp::Xor => a ^ b,
        };
        new as Bits
    }
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
    /// An `st.async` / `red.async` (no source: `src` is empty): what it writes.
    pub store: Option<AsyncStore>,
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
