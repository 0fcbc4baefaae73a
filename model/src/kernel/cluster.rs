//! Thread-block clusters in the kernel API: a block's rank in its cluster, a peer block's shared
//! memory (distributed shared memory), the cluster barrier and `fence.mbarrier_init`.
//!
//! ```
//! use scopecheck_model::kernel::*;
//! // Block 1 writes into block 0's shared memory; the cluster barrier orders the write before
//! // block 0's read, and a second one keeps block 0 alive until block 1 is done with it.
//! let mut k = Kernel::new("dsmem", Grid::new(2, 1).with_clusters(2));
//! let tile = k.shared::<i32>("tile", 1);
//! let report = Checker::dfs().check(&k, move |t| {
//!     if t.cluster_ctarank() == 1 {
//!         t.store(&tile.map_shared_rank(t, 0), 0, 7);
//!     }
//!     t.cluster_sync();
//!     if t.cluster_ctarank() == 0 {
//!         scopecheck_model::check!(t.load(&tile, 0) == 7);
//!     }
//! });
//! assert!(report.passed(), "{report}");
//! ```
//!
//! A block stores into a peer's shared memory asynchronously with [`ThreadCtx::st_async`] (or
//! reduces with [`ThreadCtx::red_async`]); the store signals the peer's mbarrier, and the peer
//! sees the data once its wait on that mbarrier, at `.cluster` scope, observes the phase:
//!
//! ```
//! use scopecheck_model::kernel::*;
//! let mut k = Kernel::new("st.async", Grid::new(2, 1).with_clusters(2));
//! let slot = k.shared::<u32>("slot", 1);
//! let full = k.mbarriers("full", 1);
//! let report = Checker::dfs().check(&k, move |t| {
//!     let bar = full.at(0);
//!     if t.cluster_ctarank() == 0 {
//!         bar.init(t, 1);
//!         bar.arrive_expect_tx(t, 4); // one arrival, and 4 bytes to come
//!     }
//!     t.cluster_sync(); // the peer's barrier is initialised before block 1 signals it
//!     if t.cluster_ctarank() == 1 {
//!         let peer_bar = bar.map_shared_rank(t, 0);
//!         t.st_async(&slot.map_shared_rank(t, 0), 0, 42, &peer_bar);
//!     } else {
//!         bar.wait_parity_scoped(t, 0, MemoryOrder::Acquire, MemoryScope::Cluster);
//!         scopecheck_model::check!(t.load(&slot, 0) == 42);
//!     }
//! });
//! assert!(report.passed(), "{report}");
//! ```
//!
//! Semantics live in [`crate::runtime::cluster`], [`crate::runtime::mbarrier`] and
//! [`crate::runtime::async_copy`] (`st.async` in its `store` module).

use super::buffer::{Buffer, Shared};
use super::elem::Elem;
use super::grid::Grid;
use super::mbarrier::PeerMBarrier;
use super::thread::ThreadCtx;
use crate::runtime::async_copy::{AsyncStore, RedAsync, RedAsyncOp, RedAsyncType};
use crate::runtime::cluster::ClusterArrival;
use crate::runtime::mbarrier::MBarInfo;
use crate::runtime::memory::ElemKind;
use std::marker::PhantomData;

type Loc = crate::runtime::report::Site;

/// A peer block's instance of a [`Shared`] buffer, reached through the `.shared::cluster` window
/// ([`Shared::map_shared_rank`]): loads, stores and atomics on it access the peer's shared
/// memory.
#[derive(Debug)]
pub struct PeerShared<T> {
    shared: Shared<T>,
    block: u32,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for PeerShared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for PeerShared<T> {}

impl<T: Elem> Buffer<T> for PeerShared<T> {
    fn len(&self) -> usize {
        self.shared.len()
    }
    fn location(&self, _block: u32, index: usize) -> usize {
        self.shared.location(self.block, index)
    }
}

impl<T: Elem> PeerShared<T> {
    /// The block whose shared memory this is.
    pub fn block(&self) -> u32 {
        self.block
    }
}

impl<T: Elem> Shared<T> {
    /// `mapa.shared::cluster` (CUDA `cluster.map_shared_rank(ptr, rank)`): this buffer in the
    /// shared memory of the block of rank `rank` in the calling block's cluster.
    #[track_caller]
    pub fn map_shared_rank(&self, t: &ThreadCtx, rank: u32) -> PeerShared<T> {
        PeerShared {
            shared: *self,
            block: t.peer_block(rank, Loc::caller()),
            _t: PhantomData,
        }
    }
}

/// The hardware cluster barriers of a launch (one per cluster, in its first block).
pub(crate) fn cluster_barriers(g: &Grid) -> Vec<MBarInfo> {
    let Some(size) = g.cluster_size else {
        return Vec::new();
    };
    let clusters = g.clusters();
    let mut bars =
        crate::runtime::cluster::cluster_barriers(clusters, size * g.threads_per_block, |c| {
            g.cluster_block(c, 0)
        });
    // The last cluster of `Grid::with_clusters` may be partial.
    for (c, bar) in bars.iter_mut().enumerate() {
        bar.launch_count = Some(g.cluster_blocks(c as u32) * g.threads_per_block);
    }
    bars
}

impl ThreadCtx<'_> {
    /// Blocks per cluster (`%cluster_nctarank`; 1 without clusters).
    pub fn cluster_nctarank(&self) -> u32 {
        self.grid.cluster_size.unwrap_or(1)
    }

    /// The calling block's rank in its cluster (`%cluster_ctarank`, CUDA
    /// `cluster.block_rank()`): the x-major index of [`ThreadCtx::cluster_ctaid`].
    pub fn cluster_ctarank(&self) -> u32 {
        self.grid.cluster_rank(self.bid())
    }

    /// The calling block's cluster (`%clusterid`, linear over the grid of clusters).
    pub fn cluster_id(&self) -> u32 {
        self.grid.cluster_of(self.bid())
    }

    /// The calling block's position in its cluster (`%cluster_ctaid.{x,y,z}`, CUDA
    /// `cluster.block_index()`).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// // A 4x2 grid of 2x2 clusters: each block records its rank and position.
    /// let mut k = Kernel::new("2-D clusters", Grid::shaped((4, 2), 1).with_cluster_dims((2, 2)));
    /// let out = k.global::<u32>("out", 8);
    /// k.postcondition("block (3, 1) is rank 3 at (1, 1)", move |f| f.get(&out, 7) == 311);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let id = t.cluster_ctaid();
    ///     t.store(&out, t.bid() as usize, t.cluster_ctarank() * 100 + id.x * 10 + id.y);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn cluster_ctaid(&self) -> super::dim3::Dim3 {
        self.grid.cluster_ctaid(self.bid())
    }

    /// The cluster's shape in blocks (`%cluster_nctaid.{x,y,z}`, CUDA `cluster.dim_blocks()`).
    pub fn cluster_nctaid(&self) -> super::dim3::Dim3 {
        self.grid.cluster_shape
    }

    /// The block of rank `rank` in the caller's cluster; a rank outside it fails the kernel.
    pub(crate) fn peer_block(&self, rank: u32, site: Loc) -> u32 {
        let size = self.cluster_nctarank();
        let cluster = self.cluster_id();
        let block = self.grid.cluster_block(cluster, rank);
        if rank >= size || block >= self.grid.blocks {
            self.rt.fail(format!(
                "{} maps rank {rank} of its cluster at {site}, but the cluster has ranks 0..{}",
                self.rt.info().name,
                self.grid.cluster_blocks(cluster)
            ));
        }
        block
    }

    /// `barrier.cluster.arrive` (`.release`: what this thread did before happens before what
    /// every thread of the cluster does after its matching wait). PTX ISA, *barrier.cluster*:
    /// "Each thread must arrive at the barrier only once before the barrier completes": a second
    /// arrive before the phase completes fails the kernel as an mbarrier misuse.
    #[track_caller]
    pub fn barrier_cluster_arrive(&self) -> ClusterArrival {
        self.rt.barrier_cluster_arrive(true, Loc::caller())
    }

    /// `barrier.cluster.arrive.relaxed`: counts, releases nothing (but the inits this thread
    /// published with [`ThreadCtx::fence_mbarrier_init`]).
    #[track_caller]
    pub fn barrier_cluster_arrive_relaxed(&self) -> ClusterArrival {
        self.rt.barrier_cluster_arrive(false, Loc::caller())
    }

    /// `barrier.cluster.wait` (acquire): blocks until every thread of the cluster that has not
    /// exited arrived on `arrival`'s phase (PTX ISA, *barrier.cluster*: it waits "for all
    /// non-exited threads of the cluster to perform barrier.cluster.arrive"). A block that
    /// returns without arriving lets the wait complete; one that neither arrives nor returns
    /// (it waits for something that happens only after the barrier) makes it a hang.
    #[track_caller]
    pub fn barrier_cluster_wait(&self, arrival: ClusterArrival) {
        self.rt.barrier_cluster_wait(arrival, Loc::caller())
    }

    /// `barrier.cluster.arrive` then `barrier.cluster.wait` (CUDA `cluster.sync()`).
    #[track_caller]
    pub fn cluster_sync(&self) {
        let arrival = self.rt.barrier_cluster_arrive(true, Loc::caller());
        self.rt.barrier_cluster_wait(arrival, Loc::caller())
    }

    /// `fence.mbarrier_init.release.cluster` (CUTLASS `fence_barrier_init()`): this thread's
    /// `mbarrier.init`s so far become visible to the cluster with its next arrivals, relaxed
    /// ones included.
    #[track_caller]
    pub fn fence_mbarrier_init(&self) {
        self.rt.fence_mbarrier_init(Loc::caller())
    }
}

impl ThreadCtx<'_> {
    /// `st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.type [a], b, [mbar]` (CUDA
    /// `cuda::ptx::st_async`): store `value` into `dst[index]`, a block of the cluster's shared
    /// memory, asynchronously; once done, the store performs `complete_tx` of its size on `bar`,
    /// an mbarrier of that same block, with `.release` semantics at `.cluster` scope. The store
    /// is weak: it races with every access of the element that is not ordered with it, and a
    /// reader is ordered after it by a wait on `bar` that observes the phase, at `.cluster`
    /// scope when the reader's block is not the issuer's
    /// ([`MBarrier::wait_parity_scoped`](super::mbarrier::MBarrier::wait_parity_scoped)).
    /// PTX ISA, *st.async*: `.type = { .b32, .b64, .u32, .u64, .s32, .s64, .f32, .f64 }`;
    /// other element types fail the kernel.
    #[track_caller]
    pub fn st_async<T: Elem>(
        &self,
        dst: &PeerShared<T>,
        index: usize,
        value: T,
        bar: &PeerMBarrier,
    ) {
        self.st_async_vec(dst, index, &[value], bar)
    }

    /// `st.async…{.v2|.v4}.type [a], {b0, b1, …}, [mbar]`: [`ThreadCtx::st_async`] of
    /// `values.len()` consecutive elements from `dst[index]` (1, 2 or 4 of them, at most 16
    /// bytes), one complete-tx of their total size.
    #[track_caller]
    pub fn st_async_vec<T: Elem>(
        &self,
        dst: &PeerShared<T>,
        index: usize,
        values: &[T],
        bar: &PeerMBarrier,
    ) {
        let site = Loc::caller();
        if T::BYTES != 4 && T::BYTES != 8 {
            self.rt.fail(format!(
                "st.async at {site} stores {}-byte elements: PTX ISA, st.async: .type is one of \
                 .b32, .b64, .u32, .u64, .s32, .s64, .f32, .f64",
                T::BYTES
            ));
        }
        let n = values.len();
        if !matches!(n, 1 | 2 | 4) || n as u64 * T::BYTES > 16 {
            self.rt.fail(format!(
                "st.async at {site} stores {n} elements of {} bytes: PTX ISA, st.async: one \
                 element, or a .v2 or .v4 vector of at most 16 bytes",
                T::BYTES
            ));
        }
        let locs = (index..index + n).map(|i| self.loc(dst, i)).collect();
        let bits = values.iter().map(|v| v.to_bits()).collect();
        let bytes = n as u64 * T::BYTES;
        (self.rt).async_store(
            locs,
            AsyncStore::Values(bits),
            bar.runtime_index(),
            bytes,
            site,
        )
    }

    /// `red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type [a], b,
    /// [mbar]` (CUDA `cuda::ptx::red_async`): reduce `dst[index]` with `value` asynchronously
    /// (a relaxed atomic at `.cluster` scope), then `complete_tx` of the element's size on
    /// `bar`, as [`ThreadCtx::st_async`]. PTX ISA, *red.async*: `.inc`/`.dec` take `u32`,
    /// `.min`/`.max` `u32` or `i32`, `.and`/`.or`/`.xor` 32-bit integers (`.b32`), `.add`
    /// `u32`, `i32` or `u64`; other pairs fail the kernel.
    #[track_caller]
    pub fn red_async<T: Elem>(
        &self,
        dst: &PeerShared<T>,
        index: usize,
        op: RedAsyncOp,
        value: T,
        bar: &PeerMBarrier,
    ) {
        let site = Loc::caller();
        let bitwise = matches!(op, RedAsyncOp::And | RedAsyncOp::Or | RedAsyncOp::Xor);
        let ty = match (T::KIND, bitwise) {
            (ElemKind::U32 | ElemKind::I32, true) => Some(RedAsyncType::B32),
            (ElemKind::U32, false) => Some(RedAsyncType::U32),
            (ElemKind::I32, false) => Some(RedAsyncType::S32),
            (ElemKind::U64, false) => Some(RedAsyncType::U64),
            _ => None,
        };
        let red = match ty.map(|ty| RedAsync::new(op, ty, value.to_bits())) {
            Some(Ok(red)) => red,
            Some(Err(why)) => self.rt.fail(format!("{why} (at {site})")),
            None => self.rt.fail(format!(
                "red.async.{} at {site} on {:?} elements: PTX ISA, red.async takes .u32, .s32, \
                 .u64 or .b32",
                op.name(),
                T::KIND
            )),
        };
        let loc = self.loc(dst, index);
        let bytes = red.ty.bytes();
        (self.rt).async_store(
            vec![loc],
            AsyncStore::Reduce(red),
            bar.runtime_index(),
            bytes,
            site,
        )
    }
}
