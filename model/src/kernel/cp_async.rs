//! Ampere's `cp.async` in the kernel API: per-thread asynchronous global→shared copies,
//! committed into groups and waited for by group (`__pipeline_memcpy_async`,
//! `__pipeline_commit`, `__pipeline_wait_prior(n)` in CUDA C++).
//!
//! ```
//! use scopecheck_model::kernel::*;
//! let mut k = Kernel::new("cp.async", Grid::new(1, 1));
//! k.bulk_copies(); // every block gets the copy agent that performs asynchronous copies
//! let src = k.global_from::<i32>("src", &[7]);
//! let tile = k.shared::<i32>("tile", 1);
//! let report = Checker::dfs().check(&k, move |t| {
//!     t.cp_async(&tile, 0, &src, 0, 4);
//!     t.cp_async_commit_group();
//!     t.cp_async_wait_group(0);
//!     scopecheck_model::check!(t.load(&tile, 0) == 7);
//! });
//! assert!(report.passed(), "{report}");
//! ```
//!
//! Semantics live in [`crate::runtime::cp_async`].

use super::buffer::{Global, Shared};
use super::elem::Elem;
use super::mbarrier::MBarrier;
use super::thread::ThreadCtx;

type Loc = crate::runtime::report::Site;

impl ThreadCtx<'_> {
    /// `cp.async.ca.shared.global [dst], [src], bytes`: start copying `bytes` (4, 8 or 16, PTX's
    /// `cp-size`) from `src[src_start..]` to this block's `dst[dst_start..]`. The copy joins the
    /// thread's open group; nothing orders its writes before later accesses of `dst` until
    /// [`ThreadCtx::cp_async_wait_group`] waits for that group (after
    /// [`ThreadCtx::cp_async_commit_group`]). The kernel needs [`Kernel::bulk_copies`](super::model::Kernel::bulk_copies).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("no wait", Grid::new(1, 1));
    /// k.bulk_copies();
    /// let src = k.global_from::<i32>("src", &[7]);
    /// let tile = k.shared::<i32>("tile", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.cp_async(&tile, 0, &src, 0, 4);
    ///     let _ = t.load(&tile, 0); // races with the copy: no wait_group
    /// });
    /// assert_eq!(report.failure.unwrap().kind, FailureKind::DataRace);
    /// ```
    #[track_caller]
    pub fn cp_async<T: Elem>(
        &self,
        dst: &Shared<T>,
        dst_start: usize,
        src: &Global<T>,
        src_start: usize,
        bytes: u64,
    ) {
        if !matches!(bytes, 4 | 8 | 16) {
            self.rt.fail(format!(
                "cp.async copies 4, 8 or 16 bytes, not {bytes}, at {}",
                Loc::caller()
            ));
        }
        let d = self.range(dst, dst_start, bytes);
        let s = self.range(src, src_start, bytes);
        self.rt.cp_async(s, d, bytes, Loc::caller())
    }

    /// `cp.async.commit_group`: the copies issued since the last commit become one group.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("empty group", Grid::new(1, 1));
    /// k.bulk_copies();
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.cp_async_commit_group(); // an empty group completes at once
    ///     t.cp_async_wait_group(0);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn cp_async_commit_group(&self) {
        self.rt.cp_async_commit(Loc::caller())
    }

    /// `cp.async.wait_group n`: wait until at most the `n` most recently committed groups are
    /// pending; the copies of every older group are then complete and ordered before what the
    /// thread does next (a double buffer waits with `n = 1` for the stage it is about to use
    /// while the next stage's copy stays in flight).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("two stages", Grid::new(1, 1));
    /// k.bulk_copies();
    /// let src = k.global_from::<i32>("src", &[1, 2]);
    /// let tile = k.shared::<i32>("tile", 2);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.cp_async(&tile, 0, &src, 0, 4);
    ///     t.cp_async_commit_group();
    ///     t.cp_async(&tile, 1, &src, 1, 4);
    ///     t.cp_async_commit_group();
    ///     t.cp_async_wait_group(1); // stage 0 is complete, stage 1 may still be in flight
    ///     scopecheck_model::check!(t.load(&tile, 0) == 1);
    ///     t.cp_async_wait_group(0);
    ///     scopecheck_model::check!(t.load(&tile, 1) == 2);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn cp_async_wait_group(&self, n: usize) {
        self.rt.cp_async_wait(n, Loc::caller())
    }

    /// `cp.async.mbarrier.arrive.shared.b64 [bar]` (CUTLASS's Ampere pipelines): once every
    /// `cp.async` this thread issued so far has completed, an arrive-on operation on `bar`
    /// that releases their writes; the barrier's pending count is raised by one first, so
    /// the arrival does not count against `init`'s count (PTX ISA: "a zero-net change for the
    /// pending count").
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("cp.async + mbarrier", Grid::new(1, 2));
    /// let src = k.global_from::<i32>("src", &[7]);
    /// let tile = k.shared::<i32>("tile", 1);
    /// let bars = k.mbarriers("full", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let bar = bars.at(0);
    ///     if t.tid() == 0 {
    ///         bar.init(t, 1);
    ///     }
    ///     t.syncthreads();
    ///     if t.tid() == 0 {
    ///         t.cp_async(&tile, 0, &src, 0, 4);
    ///         t.cp_async_mbarrier_arrive_noinc(&bar); // the barrier's one expected arrival
    ///     } else {
    ///         bar.wait_parity(t, 0);
    ///         scopecheck_model::check!(t.load(&tile, 0) == 7);
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn cp_async_mbarrier_arrive(&self, bar: &MBarrier) {
        self.rt
            .cp_async_mbarrier_arrive(bar.index_of(self), false, Loc::caller())
    }

    /// `cp.async.mbarrier.arrive.noinc.shared.b64 [bar]`: as
    /// [`ThreadCtx::cp_async_mbarrier_arrive`], without raising the pending count first, so the
    /// arrival is one of those `init`'s count expects.
    #[track_caller]
    pub fn cp_async_mbarrier_arrive_noinc(&self, bar: &MBarrier) {
        self.rt
            .cp_async_mbarrier_arrive(bar.index_of(self), true, Loc::caller())
    }

    /// `cp.async.wait_all`: commit the open group and wait for every group
    /// (`commit_group; wait_group 0`).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("wait all", Grid::new(1, 1));
    /// k.bulk_copies();
    /// let src = k.global_from::<i32>("src", &[5]);
    /// let tile = k.shared::<i32>("tile", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.cp_async(&tile, 0, &src, 0, 4);
    ///     t.cp_async_wait_all();
    ///     scopecheck_model::check!(t.load(&tile, 0) == 5);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn cp_async_wait_all(&self) {
        self.cp_async_commit_group();
        self.cp_async_wait_group(0);
    }
}
