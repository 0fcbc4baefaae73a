//! One GPU thread's view of the kernel: its ids, weak and atomic accesses, fences, barriers.

use super::buffer::Buffer;
use super::elem::Elem;
use super::grid::Grid;
use super::order::{MemoryOrder, MemoryScope};
use crate::runtime::memory::Bits;
use crate::runtime::report::RmwKind;
use crate::runtime::Ctx;
use crate::scope::Order;

/// One GPU thread's view of the kernel: its ids and every memory operation.
pub struct ThreadCtx<'a> {
    pub(crate) rt: &'a Ctx,
    pub(crate) grid: Grid,
}

type Loc = crate::runtime::report::Site;

impl ThreadCtx<'_> {
    /// Block index (`blockIdx.x`, cuTile `ct.bid(0)`).
    pub fn bid(&self) -> u32 {
        self.rt.info().block
    }

    /// Thread index within the block (`threadIdx.x`).
    pub fn tid(&self) -> u32 {
        self.rt.info().tid
    }

    /// Blocks in the grid (`gridDim.x`).
    pub fn num_blocks(&self) -> u32 {
        self.grid.blocks
    }

    /// Threads per block (`blockDim.x`).
    pub fn block_dim(&self) -> u32 {
        self.grid.threads_per_block
    }

    /// Warp index within the block (`Grid::warp_size` threads a warp, 32 unless set).
    pub fn warp(&self) -> u32 {
        self.tid() / self.grid.warp_size
    }

    /// Lane index within the warp.
    pub fn lane(&self) -> u32 {
        self.tid() % self.grid.warp_size
    }

    #[track_caller]
    pub(super) fn loc<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize) -> usize {
        if index >= buf.len() {
            self.rt.fail(format!(
                "index {index} out of bounds (length {}) at {}",
                buf.len(),
                Loc::caller()
            ));
        }
        buf.location(self.bid(), index)
    }

    /// A weak (non-atomic) load: `x = buf[i]`.
    #[track_caller]
    pub fn load<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize) -> T {
        let loc = self.loc(buf, index);
        T::from_bits(self.rt.load(loc, Order::Weak, None, Loc::caller()))
    }

    /// A weak (non-atomic) store: `buf[i] = v`.
    #[track_caller]
    pub fn store<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize, value: T) {
        let loc = self.loc(buf, index);
        self.rt
            .store(loc, value.to_bits(), Order::Weak, None, Loc::caller())
    }

    /// An atomic load `ld.<order>.<scope>`: `Release` reads as relaxed, `AcqRel` as acquire.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// // Message passing between blocks: a device-scope release store of the flag, an acquire
    /// // load of it, and the data written before the store is seen after the load.
    /// let mut k = Kernel::new("mp", Grid::new(2, 1));
    /// let (data, flag) = (k.global::<i32>("data", 1), k.global::<i32>("flag", 1));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.bid() == 0 {
    ///         t.store(&data, 0, 42);
    ///         t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
    ///     } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 1 {
    ///         scopecheck_model::check!(t.load(&data, 0) == 42);
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// // With block scope the two blocks' operations are not morally strong: a scoped race.
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.bid() == 0 {
    ///         t.store(&data, 0, 42);
    ///         t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Block);
    ///     } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Block) == 1 {
    ///         scopecheck_model::check!(t.load(&data, 0) == 42);
    ///     }
    /// });
    /// assert!(!report.passed());
    /// ```
    #[track_caller]
    pub fn atomic_load<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let loc = self.loc(buf, index);
        T::from_bits(
            self.rt
                .load(loc, order.for_load(), Some(scope.scope()), Loc::caller()),
        )
    }

    /// An atomic store `st.<order>.<scope>`: `Acquire` writes as relaxed, `AcqRel` as release.
    /// See [`ThreadCtx::atomic_load`] for an example.
    #[track_caller]
    pub fn atomic_store<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        let loc = self.loc(buf, index);
        self.rt.store(
            loc,
            value.to_bits(),
            order.for_store(),
            Some(scope.scope()),
            Loc::caller(),
        )
    }

    #[track_caller]
    pub(super) fn rmw<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        kind: RmwKind,
        apply: impl Fn(T) -> Option<T>,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let loc = self.loc(buf, index);
        let apply = |bits: Bits| apply(T::from_bits(bits)).map(Elem::to_bits);
        T::from_bits(self.rt.rmw(
            loc,
            kind,
            &apply,
            order.order(),
            scope.scope(),
            Loc::caller(),
        ))
    }

    /// Atomically add `value`; returns the old value.
    #[track_caller]
    pub fn atomic_add<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.rmw(
            buf,
            index,
            RmwKind::Add,
            |old: T| Some(old.add(value)),
            order,
            scope,
        )
    }

    /// Atomically replace with `value`; returns the old value.
    #[track_caller]
    pub fn atomic_exchange<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.rmw(buf, index, RmwKind::Exchange, |_| Some(value), order, scope)
    }

    /// Compare-and-swap: writes `desired` if the value is `expected`; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// // A one-shot lock: exactly one of three blocks wins the compare-and-swap.
    /// let mut k = Kernel::new("cas", Grid::new(3, 1));
    /// let (lock, winners) = (k.global::<u32>("lock", 1), k.global::<u32>("winners", 1));
    /// k.postcondition("one winner", move |m| m.get(&winners, 0) == 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let (acq_rel, gpu) = (MemoryOrder::AcqRel, MemoryScope::Device);
    ///     if t.atomic_cas(&lock, 0, 0, t.bid() + 1, acq_rel, gpu) == 0 {
    ///         t.atomic_exchange(&winners, 0, 1, MemoryOrder::Relaxed, gpu);
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    #[allow(clippy::too_many_arguments)]
    pub fn atomic_cas<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        expected: T,
        desired: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.rmw(
            buf,
            index,
            RmwKind::Cas,
            |old: T| (old == expected).then_some(desired),
            order,
            scope,
        )
    }

    /// `fence.<order>.<scope>` (a relaxed fence does nothing).
    #[track_caller]
    pub fn fence(&self, order: MemoryOrder, scope: MemoryScope) {
        if order != MemoryOrder::Relaxed {
            self.rt.fence(order.order(), scope.scope(), Loc::caller())
        }
    }

    /// `fence.sc.<scope>`: an acq_rel fence that also takes part in the total order of SC fences.
    #[track_caller]
    pub fn fence_sc(&self, scope: MemoryScope) {
        self.rt.fence(Order::Sc, scope.scope(), Loc::caller())
    }

    /// `__syncthreads()`: every thread of the block must reach this same call.
    #[track_caller]
    pub fn syncthreads(&self) {
        self.rt.barrier(Loc::caller())
    }

    /// Call once per failed iteration of a spin loop (like `core::hint::spin_loop`): an
    /// iteration that stores nothing and reads what the previous one read is not explored again,
    /// and the thread sleeps until a store could change what it reads (see
    /// [`crate::runtime::spin`]). A failed iteration that stores nothing must leave the thread's
    /// own state unchanged. Without it a spin loop may spin until the step bound and be reported
    /// as a possible hang.
    #[track_caller]
    pub fn spin_loop(&self) {
        self.rt.spin_wait(Loc::caller())
    }
}

/// `check!(cond)` / `check!(cond, "fmt", args…)`: an assertion inside a kernel. A failure is
/// reported as an assertion failure with the kernel's source location.
#[macro_export]
macro_rules! check {
    ($cond:expr $(,)?) => {
        if !$cond {
            panic!("check failed: {}", stringify!($cond));
        }
    };
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            panic!($($arg)+);
        }
    };
}
