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
//! Semantics live in [`crate::runtime::cluster`] and [`crate::runtime::mbarrier`].

use super::buffer::{Buffer, Shared};
use super::elem::Elem;
use super::grid::Grid;
use super::thread::ThreadCtx;
use crate::runtime::cluster::ClusterArrival;
use crate::runtime::mbarrier::MBarInfo;
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
    let clusters = g.blocks.div_ceil(size);
    // The last cluster may be partial.
    let mut bars =
        crate::runtime::cluster::cluster_barriers(clusters, size * g.threads_per_block, |c| {
            c * size
        });
    if let Some(last) = bars.last_mut() {
        let blocks = g.blocks - (clusters - 1) * size;
        last.launch_count = Some(blocks * g.threads_per_block);
    }
    bars
}

impl ThreadCtx<'_> {
    /// Blocks per cluster (`%cluster_nctarank`; 1 without clusters).
    pub fn cluster_nctarank(&self) -> u32 {
        self.grid.cluster_size.unwrap_or(1)
    }

    /// The calling block's rank in its cluster (`%cluster_ctarank`, CUDA
    /// `cluster.block_rank()`).
    pub fn cluster_ctarank(&self) -> u32 {
        self.bid() % self.cluster_nctarank()
    }

    /// The calling block's cluster (`%clusterid`).
    pub fn cluster_id(&self) -> u32 {
        self.bid() / self.cluster_nctarank()
    }

    /// The block of rank `rank` in the caller's cluster; a rank outside it fails the kernel.
    pub(crate) fn peer_block(&self, rank: u32, site: Loc) -> u32 {
        let size = self.cluster_nctarank();
        let block = self.cluster_id() * size + rank;
        if rank >= size || block >= self.grid.blocks {
            self.rt.fail(format!(
                "{} maps rank {rank} of its cluster at {site}, but the cluster has ranks 0..{}",
                self.rt.info().name,
                size.min(self.grid.blocks - self.cluster_id() * size)
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
