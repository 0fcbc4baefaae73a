//! Named barriers and voting barriers (semantics and the rules they check in
//! [`crate::runtime::barriers`]).

use super::thread::ThreadCtx;

type Loc = crate::runtime::report::Site;

impl ThreadCtx<'_> {
    /// `bar.sync id, count` (inline PTX in CUDA C++): wait
    /// until `count` threads of the block have arrived at barrier `id` (with `bar_sync` or
    /// [`ThreadCtx::bar_arrive`]); every arrival's writes happen before every waiter's next
    /// operation. `id` is 0..15, `count` a non-zero multiple of the warp size, at most the
    /// block; every thread of one instance must give the same count. A violation is reported as
    /// barrier misuse.
    ///
    /// A warp-specialized producer/consumer: warp 0 fills a buffer and arrives, warp 1 waits.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("producer/consumer", Grid::new(1, 2).with_warp_size(1));
    /// let buf = k.shared::<i32>("buf", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.warp() == 0 {
    ///         t.store(&buf, 0, 7);
    ///         t.bar_arrive(1, 2);
    ///     } else {
    ///         t.bar_sync(1, 2);
    ///         scopecheck_model::check!(t.load(&buf, 0) == 7);
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn bar_sync(&self, id: u32, count: u32) {
        self.rt
            .named_barrier(id, count, self.grid.warp_size, true, Loc::caller())
    }

    /// `bar.arrive id, count`: count this thread towards barrier `id`'s
    /// current instance without waiting (the producer side of [`ThreadCtx::bar_sync`]). Its
    /// writes so far happen before what the waiters do after the instance completes.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("arrive", Grid::new(1, 2).with_warp_size(1));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.tid() == 0 { t.bar_arrive(3, 2) } else { t.bar_sync(3, 2) }
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn bar_arrive(&self, id: u32, count: u32) {
        self.rt
            .named_barrier(id, count, self.grid.warp_size, false, Loc::caller())
    }

    /// `__syncthreads_count(predicate)`: a [`ThreadCtx::syncthreads`] that returns how many
    /// threads of the block brought a true predicate.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("count", Grid::new(1, 3));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let n = t.syncthreads_count(t.tid() != 1);
    ///     scopecheck_model::check!(n == 2);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn syncthreads_count(&self, predicate: bool) -> u32 {
        self.rt.barrier_vote(predicate, Loc::caller())
    }

    /// `__syncthreads_and(predicate)`: a [`ThreadCtx::syncthreads`] that returns whether every
    /// thread of the block brought a true predicate.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("and", Grid::new(1, 2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     scopecheck_model::check!(!t.syncthreads_and(t.tid() == 0));
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn syncthreads_and(&self, predicate: bool) -> bool {
        self.rt.barrier_vote(predicate, Loc::caller()) == self.grid.threads_per_block
    }

    /// `__syncthreads_or(predicate)`: a [`ThreadCtx::syncthreads`] that returns whether any
    /// thread of the block brought a true predicate.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("or", Grid::new(1, 2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     scopecheck_model::check!(t.syncthreads_or(t.tid() == 0));
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn syncthreads_or(&self, predicate: bool) -> bool {
        self.rt.barrier_vote(predicate, Loc::caller()) > 0
    }
}
