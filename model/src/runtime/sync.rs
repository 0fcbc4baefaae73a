//! Synchronization: who may synchronize with whom (moral strength), and what travels when they do
//! (release heads joined by acquire patterns, fence.sc order, barrier joins).

use super::view::{widened, LevelMask, View, LEVELS};
use crate::scope::{Order, Placement, Scope};
use std::sync::Arc;

/// The party to a memory operation or fence, as far as moral strength is concerned.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    /// The GPU thread performing it (grid-wide index).
    pub thread: usize,
    /// Where that thread runs (CTA, cluster, GPU): what a scope includes is decided on it.
    pub placement: Placement,
    /// `None` for weak accesses, which are never strong.
    pub scope: Option<Scope>,
}

impl Actor {
    /// Whether the operation is strong, i.e. has a scope (PTX ISA, *Memory Consistency Model*:
    /// operations with `.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.volatile`, and fences
    /// and atomic operations, are strong; plain `ld`/`st` are weak and carry no scope).
    pub fn strong(&self) -> bool {
        self.scope.is_some()
    }
}

/// The levels at which `a` and `b` are morally strong: program order (same thread) at every level,
/// otherwise both strong and each one's (widened) scope includes the other's thread.
pub fn morally_strong(a: &Actor, b: &Actor) -> LevelMask {
    if a.thread == b.thread {
        return super::view::ALL_LEVELS;
    }
    let (Some(sa), Some(sb)) = (a.scope, b.scope) else {
        return 0;
    };
    let mut mask = 0;
    for level in 0..LEVELS {
        let (wa, wb) = (widened(sa, level), widened(sb, level));
        if wa.includes(&a.placement, &b.placement) && wb.includes(&b.placement, &a.placement) {
            mask |= 1 << level;
        }
    }
    mask
}

/// The start of a release pattern: the releasing operation (a release store/RMW, or the release
/// fence before a strong store) and the releaser's view at that point. `levels` says at which
/// widening levels the observation chain from it is still intact.
#[derive(Clone, Debug)]
pub struct Head {
    /// Who released: an acquire joins the head only when morally strong with it.
    pub releaser: Actor,
    /// The releaser's view at the release: what an acquirer that joins the head learns.
    pub view: Arc<View>,
    /// The widening levels at which the chain from the release is still intact.
    pub levels: LevelMask,
}

/// The release heads a store carries. Usually empty or one.
pub type Heads = Arc<Vec<Head>>;

/// An acquirer (acquire load/RMW, or acquire fence) joins every head morally strong with it,
/// at the levels where the read that brought the head in was morally strong too.
pub fn acquire(view: &mut View, acquirer: &Actor, heads: &[Head], rf_levels: LevelMask) {
    for head in heads {
        let mask = head.levels & rf_levels & morally_strong(&head.releaser, acquirer);
        if mask != 0 {
            view.join(&head.view, mask);
        }
    }
}

/// A strong read that did not acquire: what a later acquire fence, or a later acquire of the
/// same location, would join (both complete an acquire pattern with it).
#[derive(Clone, Debug)]
pub struct PendingAcquire {
    /// The location the strong read read.
    pub loc: usize,
    /// The release heads the store it read carried.
    pub heads: Heads,
    /// The levels at which that read was morally strong with the store it read.
    pub rf_levels: LevelMask,
}

/// One executed fence.sc. Execution order is the fence-SC order; a fence.sc synchronizes with
/// every earlier morally strong fence.sc.
#[derive(Clone, Debug)]
pub struct ScFence {
    /// The thread that executed it, with its scope.
    pub actor: Actor,
    /// Its thread's view after the fence: what later morally strong `fence.sc`s join.
    pub view: Arc<View>,
}

/// The semantic half of an order: does it release, does it acquire?
pub fn releases(order: Order) -> bool {
    order.is_release()
}

/// Whether `order` has acquire semantics (`acquire`, `acq_rel`, `sc`).
pub fn acquires(order: Order) -> bool {
    order.is_acquire()
}
