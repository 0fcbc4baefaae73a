//! Warp-synchronous operations' own state: pending arrivals per warp, each lane's last result,
//! `activemask` groups and `elect.sync` leaders. Plain data: the operations live in the parent
//! module.

use crate::runtime::report::Site;
use crate::runtime::view::View;
use std::sync::Arc;

/// One lane's arrival at a warp-synchronous operation that has not completed yet.
#[derive(Clone, Debug)]
pub(super) struct WarpArrival {
    pub(super) thread: usize,
    pub(super) lane: u32,
    pub(super) mask: u64,
    pub(super) op: &'static str,
    pub(super) value: u64,
    pub(super) view: Arc<View>,
    pub(super) site: Site,
    /// The lanes named in `mask` and their threads.
    pub(super) named: Arc<Vec<(u32, usize)>>,
}

/// Every participating lane's value of one completed warp operation, by lane.
pub type LaneValues = Arc<Vec<(u32, u64)>>;

/// One lane at an `activemask` whose group has not formed yet.
#[derive(Clone, Debug)]
pub(super) struct ActiveArrival {
    pub(super) thread: usize,
    /// The warp's key ([`WarpLanes::key`]).
    pub(super) warp: usize,
    pub(super) lane: u32,
    pub(super) site: Site,
}

/// Pending warp operations (per warp, by a key the caller chooses) and each lane's last result.
#[derive(Clone, Debug, Default)]
pub struct Warps {
    pub(super) pending: Vec<(usize, Vec<WarpArrival>)>,
    pub(super) results: Vec<Option<LaneValues>>,
    /// Lanes at an `activemask` not yet grouped.
    pub(super) active: Vec<ActiveArrival>,
    /// Per thread, the mask of the `activemask` group it was placed in and has not read yet.
    pub(super) active_results: Vec<Option<u64>>,
    /// The leader each `elect.sync` member mask elected: (warp key, mask, lane).
    pub(super) elected: Vec<(usize, u64, u32)>,
}

/// A warp as the kernel API sees it: which thread runs each lane (`None`: the block ends before
/// that lane).
#[derive(Clone, Debug)]
pub struct WarpLanes {
    /// Identifies the warp among all warps of the grid.
    pub key: usize,
    /// Lane `i`'s GPU thread (grid-wide index), by lane; `None` past the block's last thread.
    pub lanes: Vec<Option<usize>>,
}
