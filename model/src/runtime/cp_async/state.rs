//! `cp.async`'s own state: the `cp.async.mbarrier.arrive`s waiting for their thread's copies.
//! Plain data: the operations live in the parent module.

use crate::runtime::report::Site;
use crate::runtime::view::View;

/// A `cp.async.mbarrier.arrive` waiting for its thread's prior copies.
#[derive(Clone, Debug)]
pub struct CpArrive {
    pub(crate) thread: usize,
    pub(crate) bar: usize,
    /// Prior copies of the thread not yet complete.
    pub(crate) remaining: u32,
    /// What the completed ones released (their writes).
    pub(crate) released: Option<View>,
    pub(crate) site: Site,
}
