//! mbarriers and bulk copies (TMA) in the kernel API.
//!
//! ```
//! use scopecheck_model::kernel::*;
//! let mut k = Kernel::new("tma load", Grid::new(1, 1));
//! let src = k.global_from::<i32>("src", &[7, 8]);
//! let tile = k.shared::<i32>("tile", 2);
//! let full = k.mbarriers("full", 1);
//! let report = Checker::dfs().check(&k, move |t| {
//!     let bar = full.at(0);
//!     bar.init(t, 1);
//!     bar.arrive_expect_tx(t, 8);
//!     t.bulk_copy_global_to_shared(&tile, 0, &src, 0, 8, &bar);
//!     bar.wait_parity(t, 0);
//!     scopecheck_model::check!(t.load(&tile, 1) == 8);
//! });
//! assert!(report.passed(), "{report}");
//! ```
//!
//! Semantics live in [`crate::runtime::mbarrier`] and [`crate::runtime::async_copy`].

use super::{Buffer, Elem, Global, Kernel, MemoryScope, Shared, ThreadCtx};
use crate::runtime::async_copy::Completion;
use crate::runtime::mbarrier::{Arrive, WaitOn};

type Loc = crate::runtime::report::Site;

/// `n` mbarriers in every block's shared memory, declared with [`Kernel::mbarriers`].
#[derive(Copy, Clone, Debug)]
pub struct MBarriers {
    first: usize,
    len: usize,
    blocks: u32,
}

/// One mbarrier (each block has its own instance).
///
/// ```
/// use scopecheck_model::kernel::*;
/// // Two threads of a block arrive; the phase completes when both have, and the waiter sees what
/// // the other thread wrote before arriving (arrive releases, the completed wait acquires).
/// let mut k = Kernel::new("mbarrier", Grid::new(1, 2));
/// let data = k.shared::<i32>("data", 1);
/// let bars = k.mbarriers("bar", 1);
/// let report = Checker::dfs().check(&k, move |t| {
///     let bar = bars.at(0);
///     if t.tid() == 0 {
///         bar.init(t, 2);
///     }
///     t.syncthreads();
///     if t.tid() == 1 {
///         t.store(&data, 0, 5);
///     }
///     let token = bar.arrive(t);
///     bar.wait(t, token); // `while (!try_wait(token));`
///     scopecheck_model::check!(t.tid() == 1 || t.load(&data, 0) == 5);
/// });
/// assert!(report.passed(), "{report}");
/// ```
#[derive(Copy, Clone, Debug)]
pub struct MBarrier {
    declared: usize,
    blocks: u32,
}

/// A peer block's instance of an [`MBarrier`] ([`MBarrier::map_shared_rank`]): a thread of
/// another block of the cluster arrives on it remotely (`mbarrier.arrive.shared::cluster`).
/// Only the owning block waits on it.
#[derive(Copy, Clone, Debug)]
pub struct PeerMBarrier {
    index: usize,
}

/// The phase an `arrive` arrived on, for [`MBarrier::try_wait`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PhaseToken(pub u32);

impl Kernel {
    /// `n` mbarriers per block (`name[0]` … `name[n-1]`), uninitialised. Declaring any gives
    /// every block a copy agent, so bulk copies may complete on them.
    pub fn mbarriers(&mut self, name: &str, n: usize) -> MBarriers {
        let first = self.mbarriers.len();
        for i in 0..n {
            self.mbarriers.push(format!("{name}[{i}]"));
        }
        self.bulk_copies = true;
        MBarriers {
            first,
            len: n,
            blocks: self.grid.blocks,
        }
    }

    /// Give every block a copy agent without declaring an mbarrier (shared→global copies only).
    pub fn bulk_copies(&mut self) {
        self.bulk_copies = true;
    }
}

impl MBarriers {
    /// Barriers per block.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether none was declared.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Barrier `i` (each block uses its own instance of it); panics past [`MBarriers::len`].
    pub fn at(&self, i: usize) -> MBarrier {
        assert!(
            i < self.len,
            "mbarrier index {i} out of bounds ({})",
            self.len
        );
        MBarrier {
            declared: self.first + i,
            blocks: self.blocks,
        }
    }
}

impl MBarrier {
    /// The runtime index of the calling block's instance.
    fn index(&self, t: &ThreadCtx) -> usize {
        self.declared * self.blocks as usize + t.bid() as usize
    }

    /// This barrier in the shared memory of the block of rank `rank` in the caller's cluster
    /// (CUDA `cluster.map_shared_rank(&bar, rank)`), for remote arrives.
    #[track_caller]
    pub fn map_shared_rank(&self, t: &ThreadCtx, rank: u32) -> PeerMBarrier {
        let block = t.peer_block(rank, Loc::caller());
        PeerMBarrier {
            index: self.declared * self.blocks as usize + block as usize,
        }
    }

    /// `mbarrier.init`: phase 0, expecting `count` arrivals per phase.
    #[track_caller]
    pub fn init(&self, t: &ThreadCtx, count: u32) {
        t.rt.mbar_init(self.index(t), count, Loc::caller())
    }

    fn do_arrive(&self, t: &ThreadCtx, arrive: Arrive, site: Loc) -> PhaseToken {
        PhaseToken(t.rt.mbar_arrive(self.index(t), arrive, site))
    }

    /// `mbarrier.arrive` (release, CTA scope): returns the token of the phase arrived on.
    #[track_caller]
    pub fn arrive(&self, t: &ThreadCtx) -> PhaseToken {
        let arrive = Arrive {
            count: 1,
            expect_tx: 0,
            release: true,
            scope: crate::scope::Scope::Cta,
        };
        self.do_arrive(t, arrive, Loc::caller())
    }

    /// `mbarrier.arrive.relaxed`: counts, releases nothing.
    #[track_caller]
    pub fn arrive_relaxed(&self, t: &ThreadCtx) -> PhaseToken {
        let arrive = Arrive {
            count: 1,
            expect_tx: 0,
            release: false,
            scope: crate::scope::Scope::Cta,
        };
        self.do_arrive(t, arrive, Loc::caller())
    }

    /// `mbarrier.arrive.expect_tx`: expect `bytes` more, then arrive (release).
    #[track_caller]
    pub fn arrive_expect_tx(&self, t: &ThreadCtx, bytes: u64) -> PhaseToken {
        let arrive = Arrive {
            count: 1,
            expect_tx: bytes,
            release: true,
            scope: crate::scope::Scope::Cta,
        };
        self.do_arrive(t, arrive, Loc::caller())
    }

    /// `mbarrier.expect_tx`: the current phase must also receive `bytes`.
    #[track_caller]
    pub fn expect_tx(&self, t: &ThreadCtx, bytes: u64) {
        t.rt.mbar_expect_tx(self.index(t), bytes, Loc::caller())
    }

    /// `mbarrier.try_wait` with a phase token: true iff that phase completed (acquire).
    #[track_caller]
    pub fn try_wait(&self, t: &ThreadCtx, token: PhaseToken) -> bool {
        t.rt.mbar_wait(self.index(t), WaitOn::Token(token.0), false, Loc::caller())
    }

    /// `mbarrier.try_wait.parity p`: true iff the phase with parity `p` completed, i.e. the
    /// current phase's parity is not `p` (acquire).
    #[track_caller]
    pub fn try_wait_parity(&self, t: &ThreadCtx, parity: u32) -> bool {
        t.rt.mbar_wait(self.index(t), WaitOn::Parity(parity), false, Loc::caller())
    }

    /// `mbarrier.test_wait.parity p`: the non-suspending test; same answer as `try_wait_parity`.
    #[track_caller]
    pub fn test_wait_parity(&self, t: &ThreadCtx, parity: u32) -> bool {
        self.try_wait_parity(t, parity)
    }

    /// `while (!try_wait(token));` — blocks until the phase completes.
    #[track_caller]
    pub fn wait(&self, t: &ThreadCtx, token: PhaseToken) {
        t.rt.mbar_wait(self.index(t), WaitOn::Token(token.0), true, Loc::caller());
    }

    /// `while (!try_wait.parity(p));` — blocks until the phase with parity `p` completed.
    #[track_caller]
    pub fn wait_parity(&self, t: &ThreadCtx, parity: u32) {
        t.rt.mbar_wait(self.index(t), WaitOn::Parity(parity), true, Loc::caller());
    }
}

impl PeerMBarrier {
    /// `mbarrier.arrive.release.{scope}.shared::cluster`: one arrival on the peer's barrier.
    /// Only `.cluster` scope (or wider) releases to the peer block's waiters; a `.cta` arrive
    /// from another block counts but does not synchronize with them.
    #[track_caller]
    pub fn arrive(&self, t: &ThreadCtx, scope: MemoryScope) {
        let arrive = Arrive {
            count: 1,
            expect_tx: 0,
            release: true,
            scope: scope.scope(),
        };
        t.rt.mbar_arrive(self.index, arrive, Loc::caller());
    }

    /// `mbarrier.arrive.expect_tx.release.{scope}.shared::cluster`: raise the peer's tx-count
    /// by `bytes`, then arrive.
    #[track_caller]
    pub fn arrive_expect_tx(&self, t: &ThreadCtx, bytes: u64, scope: MemoryScope) {
        let arrive = Arrive {
            count: 1,
            expect_tx: bytes,
            release: true,
            scope: scope.scope(),
        };
        t.rt.mbar_arrive(self.index, arrive, Loc::caller());
    }
}

impl ThreadCtx<'_> {
    #[track_caller]
    pub(super) fn range<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        start: usize,
        bytes: u64,
    ) -> Vec<usize> {
        let n = (bytes / T::BYTES) as usize;
        if !bytes.is_multiple_of(T::BYTES) || start + n > buf.len() {
            self.rt.fail(format!(
                "bulk copy of {bytes} bytes from element {start} does not fit a buffer of {} \
                 {}-byte elements at {}",
                buf.len(),
                T::BYTES,
                Loc::caller()
            ));
        }
        (start..start + n)
            .map(|i| buf.location(self.bid(), i))
            .collect()
    }

    /// `cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes`: copy `bytes` from
    /// `src[src_start..]` to this block's `dst[dst_start..]` asynchronously; when done, the copy
    /// performs `complete_tx(bytes)` on `bar`.
    #[track_caller]
    pub fn bulk_copy_global_to_shared<T: Elem>(
        &self,
        dst: &Shared<T>,
        dst_start: usize,
        src: &Global<T>,
        src_start: usize,
        bytes: u64,
        bar: &MBarrier,
    ) {
        let d = self.range(dst, dst_start, bytes);
        let s = self.range(src, src_start, bytes);
        let completion = Completion::MBarrier(bar.index(self));
        self.rt.bulk_copy(s, d, bytes, completion, Loc::caller())
    }

    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`:
    /// copy `bytes` from `src[src_start..]` into `dst[dst_start..]` of every block of the
    /// caller's cluster whose rank is set in `cta_mask`; each destination block's instance of
    /// `bar` receives `complete_tx(bytes)` when its copy lands (PTX ISA: "the mbarrier signal is
    /// also multicast to the same CTA-relative offset as dstMem"). Modelled as one copy per
    /// destination, issued by the caller's copy agent.
    #[track_caller]
    #[allow(clippy::too_many_arguments)]
    pub fn bulk_copy_global_to_shared_multicast<T: Elem>(
        &self,
        dst: &Shared<T>,
        dst_start: usize,
        src: &Global<T>,
        src_start: usize,
        bytes: u64,
        bar: &MBarrier,
        cta_mask: u16,
    ) {
        for rank in 0..self.cluster_nctarank().min(16) {
            if cta_mask & (1 << rank) == 0 {
                continue;
            }
            let peer = dst.map_shared_rank(self, rank);
            let d = self.range(&peer, dst_start, bytes);
            let s = self.range(src, src_start, bytes);
            let index = bar.declared * bar.blocks as usize + peer.block() as usize;
            self.rt
                .bulk_copy(s, d, bytes, Completion::MBarrier(index), Loc::caller())
        }
    }

    /// `cp.async.bulk.global.shared::cta.bulk_group`: copy this block's `src[src_start..]` to
    /// `dst[dst_start..]` asynchronously; [`ThreadCtx::bulk_wait`] waits for it. The copy reads
    /// shared memory in the async proxy: generic writes to `src` need [`ThreadCtx::fence_proxy_async`]
    /// before the copy is issued.
    #[track_caller]
    pub fn bulk_copy_shared_to_global<T: Elem>(
        &self,
        dst: &Global<T>,
        dst_start: usize,
        src: &Shared<T>,
        src_start: usize,
        bytes: u64,
    ) {
        let d = self.range(dst, dst_start, bytes);
        let s = self.range(src, src_start, bytes);
        self.rt
            .bulk_copy(s, d, bytes, Completion::BulkGroup, Loc::caller())
    }

    /// `cp.async.bulk.commit_group; cp.async.bulk.wait_group 0`: wait for every shared→global
    /// bulk copy this thread issued.
    #[track_caller]
    pub fn bulk_wait(&self) {
        self.rt.bulk_wait(Loc::caller())
    }

    /// `cp.async.bulk.commit_group`: this thread's shared→global bulk copies issued since its
    /// last commit form a new bulk async-group.
    #[track_caller]
    pub fn bulk_commit_group(&self) {
        self.rt.bulk_commit_group(Loc::caller())
    }

    /// `cp.async.bulk.wait_group n`: wait until at most the `n` most recent of this thread's
    /// committed bulk async-groups are pending; the copies of the others then happen before
    /// what follows (their writes included).
    #[track_caller]
    pub fn bulk_wait_group(&self, n: usize) {
        self.rt.bulk_wait_group(n, false, Loc::caller())
    }

    /// `cp.async.bulk.wait_group.read n`: like [`ThreadCtx::bulk_wait_group`], but only until
    /// those copies have read their sources: the shared staging buffer may be written again, and
    /// the copies' writes to global memory are not yet ordered before anything. (A copy of
    /// several elements reads them all before it writes any.)
    #[track_caller]
    pub fn bulk_wait_group_read(&self, n: usize) {
        self.rt.bulk_wait_group(n, true, Loc::caller())
    }

    /// `fence.proxy.async.shared::cta`: this thread's generic-proxy writes so far become visible
    /// to the async proxy (bulk copies it issues afterwards).
    #[track_caller]
    pub fn fence_proxy_async(&self) {
        self.rt.fence_proxy_async(Loc::caller())
    }
}
