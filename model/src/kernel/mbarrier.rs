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

use super::buffer::{Buffer, Global, Shared};
use super::elem::Elem;
use super::model::Kernel;
use super::order::MemoryOrder;
use super::order::MemoryScope;
use super::thread::ThreadCtx;
use crate::runtime::async_copy::Completion;
use crate::runtime::mbarrier::{Arrive, WaitOn, WaitSem};
use crate::runtime::report::FailureKind;

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

/// The qualifiers of one `mbarrier.arrive{.sem}{.scope}{.noComplete}{.expect_tx}` for
/// [`MBarrier::arrive_with`] (PTX ISA, *mbarrier.arrive*: ".sem defaults to .release and .scope
/// to .cta"; `.sem` is `.release` or `.relaxed`, `.scope` `.cta` or `.cluster`).
///
/// ```
/// use scopecheck_model::kernel::*;
/// let a = MbarrierArrive { sem: MemoryOrder::Relaxed, ..MbarrierArrive::default() };
/// assert_eq!((a.scope, a.count, a.expect_tx, a.no_complete), (MemoryScope::Block, 1, 0, false));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MbarrierArrive {
    /// `.release` ([`MemoryOrder::Release`]) or `.relaxed` ([`MemoryOrder::Relaxed`]).
    pub sem: MemoryOrder,
    /// `.cta` ([`MemoryScope::Block`]) or `.cluster` ([`MemoryScope::Cluster`]).
    pub scope: MemoryScope,
    /// The arrival count (PTX's optional `count` operand; 1 by default).
    pub count: u32,
    /// `.expect_tx`: bytes the current phase must also receive, added before the arrival.
    pub expect_tx: u64,
    /// `.noComplete`: the arrival must not complete the phase (PTX ISA: "otherwise the
    /// behavior is undefined"; reported as mbarrier misuse).
    pub no_complete: bool,
}

impl Default for MbarrierArrive {
    fn default() -> Self {
        MbarrierArrive {
            sem: MemoryOrder::Release,
            scope: MemoryScope::Block,
            count: 1,
            expect_tx: 0,
            no_complete: false,
        }
    }
}

/// The opaque `state` an `mbarrier.arrive` returns: its phase and the arrivals still pending in
/// that phase right after it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MbarrierState {
    /// The phase arrived on, for the waits.
    pub token: PhaseToken,
    pending: u32,
}

impl MbarrierState {
    /// `mbarrier.pending_count.b64 count, state`: the pending arrival count the state records
    /// (PTX ISA, *mbarrier.pending_count*: it "queries the pending arrival count from the opaque
    /// mbarrier state").
    pub fn pending_count(&self) -> u32 {
        self.pending
    }
}

/// The ordering of a wait's `.sem` and `.scope`: `.acquire` ([`MemoryOrder::Acquire`]) or
/// `.relaxed`, at `.cta` ([`MemoryScope::Block`]) or `.cluster`. PTX ISA, *mbarrier.test_wait /
/// try_wait*: "If the .scope qualifier is not specified then it defaults to .cta"; a `.cta`
/// wait does not synchronize with a peer CTA's `.release.cluster` arrive (the ISA's own
/// cross-CTA example waits with `.acquire.cluster`).
#[track_caller]
fn wait_sem(t: &ThreadCtx, sem: MemoryOrder, scope: MemoryScope) -> WaitSem {
    let acquire = match sem {
        MemoryOrder::Acquire => true,
        MemoryOrder::Relaxed => false,
        other => t.rt.fail_kind(
            FailureKind::MBarrierMisuse,
            format!(
                "mbarrier wait at {} with {other:?}: PTX's test_wait/try_wait take .acquire or \
                 .relaxed",
                Loc::caller()
            ),
        ),
    };
    WaitSem {
        acquire,
        scope: arrive_wait_scope(t, scope, "test_wait/try_wait"),
    }
}

/// `.cta` or `.cluster`, the scopes mbarrier operations take.
#[track_caller]
fn arrive_wait_scope(t: &ThreadCtx, scope: MemoryScope, op: &str) -> crate::scope::Scope {
    match scope {
        MemoryScope::Block | MemoryScope::Cluster => scope.scope(),
        other => t.rt.fail_kind(
            FailureKind::MBarrierMisuse,
            format!(
                "mbarrier.{op} at {} with scope {other:?}: PTX allows .cta or .cluster",
                Loc::caller()
            ),
        ),
    }
}

/// The runtime's arrive for these qualifiers.
#[track_caller]
fn runtime_arrive(t: &ThreadCtx, a: MbarrierArrive) -> Arrive {
    let release = match a.sem {
        MemoryOrder::Release => true,
        MemoryOrder::Relaxed => false,
        other => t.rt.fail_kind(
            FailureKind::MBarrierMisuse,
            format!(
                "mbarrier.arrive at {} with {other:?}: PTX's mbarrier.arrive takes .release or \
                 .relaxed",
                Loc::caller()
            ),
        ),
    };
    Arrive {
        count: a.count,
        expect_tx: a.expect_tx,
        release,
        scope: arrive_wait_scope(t, a.scope, "arrive"),
        no_complete: a.no_complete,
    }
}

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

    /// The same, for the kernel API's other modules.
    pub(super) fn index_of(&self, t: &ThreadCtx) -> usize {
        self.index(t)
    }

    /// The runtime index of block `block`'s instance (a multicast copy's destinations).
    pub(super) fn peer_index(&self, block: u32) -> usize {
        self.declared * self.blocks as usize + block as usize
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
            no_complete: false,
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
            no_complete: false,
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
            no_complete: false,
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
        self.try_wait_scoped(t, token, MemoryOrder::Acquire, MemoryScope::Block)
    }

    /// `mbarrier.try_wait.parity p`: true iff the phase with parity `p` completed, i.e. the
    /// current phase's parity is not `p` (acquire).
    #[track_caller]
    pub fn try_wait_parity(&self, t: &ThreadCtx, parity: u32) -> bool {
        self.try_wait_parity_scoped(t, parity, MemoryOrder::Acquire, MemoryScope::Block)
    }

    /// `mbarrier.test_wait.parity p`: the non-suspending test; same answer as `try_wait_parity`.
    #[track_caller]
    pub fn test_wait_parity(&self, t: &ThreadCtx, parity: u32) -> bool {
        self.try_wait_parity(t, parity)
    }

    /// `while (!try_wait(token));` — blocks until the phase completes.
    #[track_caller]
    pub fn wait(&self, t: &ThreadCtx, token: PhaseToken) {
        self.wait_scoped(t, token, MemoryOrder::Acquire, MemoryScope::Block);
    }

    /// `while (!try_wait.parity(p));` — blocks until the phase with parity `p` completed.
    #[track_caller]
    pub fn wait_parity(&self, t: &ThreadCtx, parity: u32) {
        self.wait_parity_scoped(t, parity, MemoryOrder::Acquire, MemoryScope::Block);
    }
}

impl MBarrier {
    /// `mbarrier.arrive{.sem}{.scope}{.noComplete}{.expect_tx}.shared::cta.b64 state, [bar]{,
    /// count}` with every qualifier spelled out ([`MbarrierArrive`]); returns the `state`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("noComplete", Grid::new(1, 1));
    /// let bars = k.mbarriers("bar", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let bar = bars.at(0);
    ///     bar.init(t, 3);
    ///     let first = MbarrierArrive { count: 2, no_complete: true, ..Default::default() };
    ///     let state = bar.arrive_with(t, first);
    ///     scopecheck_model::check!(state.pending_count() == 1);
    ///     let last = MbarrierArrive { sem: MemoryOrder::Relaxed, ..Default::default() };
    ///     bar.arrive_with(t, last);
    ///     scopecheck_model::check!(bar.test_wait(t, state.token));
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn arrive_with(&self, t: &ThreadCtx, arrive: MbarrierArrive) -> MbarrierState {
        let site = Loc::caller();
        let a = runtime_arrive(t, arrive);
        let (phase, pending) = t.rt.mbar_arrive_state(self.index(t), a, site);
        MbarrierState {
            token: PhaseToken(phase),
            pending,
        }
    }

    /// `mbarrier.try_wait{.sem}{.scope}` with a phase token: true iff that phase completed;
    /// `.acquire` acquires what the phase released to a wait of this scope (a peer CTA's remote
    /// `.release.cluster` arrive only at `.cluster`), `.relaxed` nothing.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("relaxed wait", Grid::new(1, 2));
    /// let data = k.shared::<i32>("data", 1);
    /// let bars = k.mbarriers("bar", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let bar = bars.at(0);
    ///     if t.tid() == 0 {
    ///         bar.init(t, 1);
    ///     }
    ///     t.syncthreads();
    ///     if t.tid() == 0 {
    ///         t.store(&data, 0, 5);
    ///         bar.arrive(t);
    ///     } else {
    ///         bar.wait_parity_scoped(t, 0, MemoryOrder::Relaxed, MemoryScope::Block);
    ///         let _ = t.load(&data, 0); // a relaxed wait orders nothing: a data race
    ///     }
    /// });
    /// assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace));
    /// ```
    #[track_caller]
    pub fn try_wait_scoped(
        &self,
        t: &ThreadCtx,
        token: PhaseToken,
        sem: MemoryOrder,
        scope: MemoryScope,
    ) -> bool {
        let sem = wait_sem(t, sem, scope);
        let on = WaitOn::Token(token.0);
        t.rt.mbar_wait(self.index(t), on, sem, false, Loc::caller())
    }

    /// `mbarrier.try_wait.parity{.sem}{.scope}`: as [`MBarrier::try_wait_scoped`], for the
    /// phase of parity `parity`.
    #[track_caller]
    pub fn try_wait_parity_scoped(
        &self,
        t: &ThreadCtx,
        parity: u32,
        sem: MemoryOrder,
        scope: MemoryScope,
    ) -> bool {
        let sem = wait_sem(t, sem, scope);
        let on = WaitOn::Parity(parity);
        t.rt.mbar_wait(self.index(t), on, sem, false, Loc::caller())
    }

    /// `mbarrier.test_wait` with a phase token: the non-blocking test; same answer and ordering
    /// as [`MBarrier::try_wait`] (which may also suspend the thread for a while).
    #[track_caller]
    pub fn test_wait(&self, t: &ThreadCtx, token: PhaseToken) -> bool {
        self.try_wait(t, token)
    }

    /// `mbarrier.try_wait ... , suspendTimeHint`: a time limit in nanoseconds for the
    /// suspension, a hint only (PTX ISA: the thread may resume before the phase completes),
    /// so the answer is that of [`MBarrier::try_wait`].
    #[track_caller]
    pub fn try_wait_suspend(
        &self,
        t: &ThreadCtx,
        token: PhaseToken,
        suspend_time_hint: u32,
    ) -> bool {
        let _ = suspend_time_hint;
        self.try_wait(t, token)
    }

    /// `mbarrier.try_wait.parity ... , suspendTimeHint` (see [`MBarrier::try_wait_suspend`]).
    #[track_caller]
    pub fn try_wait_parity_suspend(
        &self,
        t: &ThreadCtx,
        parity: u32,
        suspend_time_hint: u32,
    ) -> bool {
        let _ = suspend_time_hint;
        self.try_wait_parity(t, parity)
    }

    /// `while (!try_wait{.sem}{.scope}(token));` — blocks until the phase completes.
    #[track_caller]
    pub fn wait_scoped(
        &self,
        t: &ThreadCtx,
        token: PhaseToken,
        sem: MemoryOrder,
        scope: MemoryScope,
    ) {
        let sem = wait_sem(t, sem, scope);
        let on = WaitOn::Token(token.0);
        t.rt.mbar_wait(self.index(t), on, sem, true, Loc::caller());
    }

    /// `while (!try_wait.parity{.sem}{.scope}(p));` — blocks until the phase with parity `p`
    /// completed. CUTLASS's cluster pipelines wait with `.acquire.cluster` for the remote
    /// arrives of their peer CTAs.
    #[track_caller]
    pub fn wait_parity_scoped(
        &self,
        t: &ThreadCtx,
        parity: u32,
        sem: MemoryOrder,
        scope: MemoryScope,
    ) {
        let sem = wait_sem(t, sem, scope);
        let on = WaitOn::Parity(parity);
        t.rt.mbar_wait(self.index(t), on, sem, true, Loc::caller());
    }

    /// `mbarrier.inval`: the barrier is invalid until the next [`MBarrier::init`]; any other
    /// operation on it before that is mbarrier misuse (PTX ISA: undefined behaviour).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("inval", Grid::new(1, 1));
    /// let bars = k.mbarriers("bar", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let bar = bars.at(0);
    ///     bar.init(t, 1);
    ///     bar.inval(t);
    ///     bar.arrive(t);
    /// });
    /// assert_eq!(report.verdict(), Verdict::Fail(FailureKind::MBarrierMisuse));
    /// ```
    #[track_caller]
    pub fn inval(&self, t: &ThreadCtx) {
        t.rt.mbar_inval(self.index(t), Loc::caller())
    }
}

impl PeerMBarrier {
    /// The runtime index of the peer's instance.
    pub(super) fn runtime_index(&self) -> usize {
        self.index
    }

    /// `mbarrier.arrive{.sem}{.scope}{.expect_tx}.shared::cluster [bar]{, count}` on the peer's
    /// barrier with every qualifier spelled out ([`MbarrierArrive`]; a remote arrive returns no
    /// state). Only a `.release.cluster` arrive synchronizes with the peer's waits, and only
    /// with those at `.cluster` scope.
    #[track_caller]
    pub fn arrive_with(&self, t: &ThreadCtx, arrive: MbarrierArrive) {
        let a = runtime_arrive(t, arrive);
        t.rt.mbar_arrive(self.index, a, Loc::caller());
    }

    /// `mbarrier.arrive.release.{scope}.shared::cluster`: one arrival on the peer's barrier.
    /// Only `.cluster` scope (or wider) releases to the peer block's waiters, and only to
    /// their `.acquire.cluster` waits ([`MBarrier::wait_parity_scoped`]); a `.cta` arrive from
    /// another block counts but does not synchronize with them.
    #[track_caller]
    pub fn arrive(&self, t: &ThreadCtx, scope: MemoryScope) {
        let arrive = Arrive {
            count: 1,
            expect_tx: 0,
            release: true,
            scope: scope.scope(),
            no_complete: false,
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
            no_complete: false,
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

    /// `fence.proxy.async.{global,shared::cta,shared::cluster}`: [`ThreadCtx::fence_proxy_async`]
    /// restricted to the runtime locations `locations` of the state space the fence names
    /// (PTX ISA, *membar/fence*: the state space qualifier restricts the fence to it), shown as
    /// `name` in traces. For front ends that know which locations a state space holds (the PTX
    /// interpreter).
    pub(crate) fn fence_proxy_async_locations(
        &self,
        locations: std::sync::Arc<[usize]>,
        name: &str,
        site: Loc,
    ) {
        let t = self.rt.thread();
        self.rt.sched.point(t, crate::engine::Point::Local);
        self.rt
            .step(|m| m.fence_proxy_async_in(t, Some(locations), name, site))
    }
}
