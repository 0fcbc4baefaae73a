//! CTA barriers' own state: the arrivals at barrier instances that have not completed, and the
//! predicates threads brought to voting barriers. Plain data: the operations live in the parent
//! module.

use crate::runtime::report::{BarrierKey, Site};
use crate::runtime::view::View;
use std::sync::Arc;

/// Per thread: the predicate it brought to a voting barrier, and what the last one returned.
#[derive(Clone, Debug, Default)]
pub struct Votes {
    pub(super) pending: Vec<Option<bool>>,
    pub(super) result: Vec<u32>,
}

/// One thread's arrival at a barrier instance that has not completed yet.
#[derive(Clone, Debug)]
pub(crate) struct Arrival {
    pub(crate) thread: usize,
    pub(crate) site: Site,
    pub(crate) key: BarrierKey,
    pub(crate) view: Arc<View>,
    pub(crate) wait: bool,
    pub(crate) quorum: Option<usize>,
    /// For the barrier of a litmus warp exchange, the only locations it orders (see
    /// `Machine::exchange_barrier`); `None` for a barrier that orders memory.
    pub(crate) exchange: Option<Arc<[usize]>>,
}
