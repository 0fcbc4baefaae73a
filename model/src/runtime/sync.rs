//! Synchronization: who may synchronize with whom (moral strength), and what travels when they do
//! (release heads joined by acquire patterns, fence.sc order, barrier joins).

use super::view::{widened, LevelMask, View, LEVELS};
use crate::scope::{Order, Placement, Scope};
use std::sync::Arc;

/// The party to a memory operation or fence, as far as moral strength is concerned.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub thread: usize,
    pub placement: Placement,
    /// `None` for weak accesses, which are never strong.
    pub scope: Option<Scope>,
}

impl Actor {
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
    pub releaser: Actor,
    pub view: Arc<View>,
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
    pub heads: Heads,
    pub rf_levels: LevelMask,
}

/// One executed fence.sc. Execution order is the fence-SC order; a fence.sc synchronizes with
/// every earlier morally strong fence.sc.
#[derive(Clone, Debug)]
pub struct ScFence {
    pub actor: Actor,
    pub view: Arc<View>,
}

/// The semantic half of an order: does it release, does it acquire?
pub fn releases(order: Order) -> bool {
    order.is_release()
}

pub fn acquires(order: Order) -> bool {
    order.is_acquire()
}
