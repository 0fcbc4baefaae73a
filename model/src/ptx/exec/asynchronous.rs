//! mbarriers, `cp.async`, bulk copies and the async proxy's fences on the runtime's objects
//! for them (`runtime::mbarrier`, `runtime::cp_async`, `runtime::async_copy`), the same the
//! Rust kernel API's [`crate::kernel::MBarrier`] and bulk copies use.
//!
//! An mbarrier is "an opaque object in shared memory … 8 bytes, aligned to 8 bytes" (PTX ISA,
//! *mbarrier*): the launch declares one runtime mbarrier per 8-byte word of every shared
//! region that can hold one ([`crate::ptx::layout::Layout::mbarrier_slots`]), and an
//! instruction's address picks the word's barrier in the CTA the address names. The barrier is
//! not the word's bytes: the word's memory locations are not touched by mbarrier operations.
//!
//! The `state` an arrive returns is `phase << 32 | pending` (the phase it arrived on and the
//! arrivals pending after it), which `test_wait`/`try_wait` and `pending_count` read back.

use super::memory::Target;
use super::Thread;
use crate::ptx::decode::{Addr, AsyncOp, Dst, Space};
use crate::ptx::layout::{from_generic, shared_cluster, shared_cta};
use crate::runtime::async_copy::{AsyncStore, Completion, RedAsync, RedAsyncType};
use crate::runtime::mbarrier::{Arrive, WaitOn, WaitSem};
use crate::runtime::report::{FailureKind, Site};

/// A failed `test_wait`/`try_wait` of the current loop iteration: the barrier and what it
/// waited for, so that a spin on it can block until the phase completes (see the parent
/// module's docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct FailedWait {
    pub(super) bar: usize,
    pub(super) on: WaitOn,
    pub(super) sem: WaitSem,
}

impl Thread<'_> {
    pub(super) fn misuse(&self, site: Site, what: String) -> ! {
        self.fail(FailureKind::MBarrierMisuse, site, what)
    }

    /// The runtime mbarrier at `addr` of `space`. `cta_only`: the instruction takes only the
    /// executing CTA's barriers (`init`, `inval`, the waits: "the .shared::cta address").
    pub(super) fn mbarrier(&self, space: Space, addr: u64, cta_only: bool, site: Site) -> usize {
        let (space, addr) = match space {
            Space::Generic => from_generic(addr),
            s => (s, addr),
        };
        if space != Space::Shared && space != Space::SharedCluster {
            self.misuse(
                site,
                format!("mbarrier operation on address {addr:#x} outside shared memory"),
            );
        }
        let (block, offset) = self.shared_block(addr, false, site);
        if cta_only && block != self.t.bid() {
            self.misuse(
                site,
                format!(
                    "this mbarrier operation takes a barrier of the executing CTA, and \
                     {addr:#x} is in the shared memory of block {block}"
                ),
            );
        }
        match self.layout.mbarrier_at(offset) {
            Ok(slot) => slot * self.t.grid.blocks as usize + block as usize,
            Err(why) => self.misuse(
                site,
                format!("no mbarrier at shared offset {offset:#x}: {why}"),
            ),
        }
    }

    fn mbarrier_of(&self, addr: &Addr, space: Space, cta_only: bool, site: Site) -> usize {
        let a = self.address(addr);
        self.mbarrier(space, a, cta_only, site)
    }

    /// The locations of `bytes` bytes at `addr` of `space`, for a copy.
    pub(super) fn copy_locations(
        &self,
        space: Space,
        addr: u64,
        bytes: u64,
        site: Site,
    ) -> Vec<usize> {
        match self.target(space, addr, bytes, site) {
            Target::Model(r, off, block) => {
                let region = &self.layout.regions[r];
                self.locations(region, (off, block), bytes, false, site)
            }
            _ => self.fail(
                FailureKind::OutOfBounds,
                site,
                format!("asynchronous copy of {bytes} bytes at {addr:#x}: not global or shared"),
            ),
        }
    }

    /// A copy's source and destination must be cut alike (the runtime copies element by
    /// element).
    fn same_elements(&self, src: &[usize], dst: &[usize], site: Site) {
        if src.len() != dst.len() {
            self.fail(
                FailureKind::Unsupported,
                site,
                format!(
                    "a copy between buffers of different element sizes ({} source elements, {} \
                     destination elements): the model copies whole elements",
                    src.len(),
                    dst.len()
                ),
            );
        }
    }

    /// Execute an asynchronous operation.
    pub(super) fn exec_async(&mut self, op: &AsyncOp, site: Site) {
        let rt = self.t.rt;
        if !matches!(
            op,
            AsyncOp::MbarWait { .. } | AsyncOp::MbarPendingCount { .. } | AsyncOp::BulkPrefetch
        ) {
            self.synced = true;
        }
        match op {
            AsyncOp::Mapa { .. } | AsyncOp::Getctarank { .. } => self.exec_cluster(op, site),
            // "mbarrier.init … initializes the mbarrier object … with the expected arrival
            // count `count`", phase 0.
            AsyncOp::MbarInit { addr, space, count } => {
                let bar = self.mbarrier_of(addr, *space, true, site);
                let count = self.src(count) as u32;
                rt.mbar_init(bar, count, site);
            }
            // "mbarrier.arrive performs an arrive-on operation … .expect_tx … performs an
            // expect-tx operation prior to the arrive-on operation"; "a remote arrive
            // (.shared::cluster) … on an mbarrier of a peer CTA".
            AsyncOp::MbarArrive {
                state,
                addr,
                space,
                release,
                scope,
                count,
                tx,
                no_complete,
            } => {
                let bar = self.mbarrier_of(addr, *space, false, site);
                let arrive = Arrive {
                    count: count.as_ref().map_or(1, |c| self.src(c) as u32),
                    expect_tx: tx.as_ref().map_or(0, |b| self.src(b)),
                    release: *release,
                    scope: *scope,
                    no_complete: *no_complete,
                };
                // `_` keeps nothing of the opaque state; a register keeps its pending count too
                // (`mbarrier.pending_count`), which depends on the order of the arrivals.
                if *state == Dst::Sink {
                    rt.mbar_arrive(bar, arrive, site);
                } else {
                    let (phase, pending) = rt.mbar_arrive_state(bar, arrive, site);
                    self.set(state, u64::from(phase) << 32 | u64::from(pending));
                }
            }
            // "mbarrier.expect_tx … increases the tx-count of the mbarrier object by txCount".
            AsyncOp::MbarExpectTx { addr, space, tx } => {
                let bar = self.mbarrier_of(addr, *space, false, site);
                let bytes = self.src(tx);
                rt.mbar_expect_tx(bar, bytes, site);
            }
            // "test_wait and try_wait test for the completion of the current or the
            // immediately preceding phase … waitComplete is True when the phase indicated by
            // the operand phaseParity / state has completed".
            AsyncOp::MbarWait {
                p,
                addr,
                space,
                parity,
                phase,
                acquire,
                scope,
            } => {
                let bar = self.mbarrier_of(addr, *space, true, site);
                let v = self.src(phase);
                let on = match parity {
                    true => WaitOn::Parity((v & 1) as u32),
                    false => WaitOn::Token((v >> 32) as u32),
                };
                let sem = WaitSem {
                    acquire: *acquire,
                    scope: *scope,
                };
                // A wait whose failure would only start the same round again is the loop's
                // one blocking wait (the awaits module).
                let at = self.frame().pc - 1;
                let done = match self.awaits(at, p) {
                    true => rt.mbar_await(bar, on, sem, site),
                    false => rt.mbar_wait(bar, on, sem, false, site),
                };
                if !done {
                    self.failed_wait = Some(FailedWait { bar, on, sem });
                }
                self.set(p, done as u64);
            }
            AsyncOp::MbarInval { addr, space } => {
                let bar = self.mbarrier_of(addr, *space, true, site);
                rt.mbar_inval(bar, site);
            }
            // "mbarrier.pending_count … queries the pending arrival count from the opaque
            // mbarrier state".
            AsyncOp::MbarPendingCount { d, state } => {
                let v = self.src(state) & 0xffff_ffff;
                self.set(d, v);
            }
            // "cp.async … initiates an asynchronous copy of cp-size bytes from the .global
            // source to the .shared destination"; it joins the thread's open cp.async-group.
            AsyncOp::CpAsync { dst, src, size } => {
                let (d, s) = (self.address(dst), self.address(src));
                let dst = self.copy_locations(Space::Shared, d, *size, site);
                let src = self.copy_locations(Space::Global, s, *size, site);
                self.same_elements(&src, &dst, site);
                rt.cp_async(src, dst, *size, site);
            }
            AsyncOp::CpAsyncCommit => rt.cp_async_commit(site),
            // "cp.async.wait_all is equivalent to cp.async.commit_group; cp.async.wait_group 0".
            AsyncOp::CpAsyncWait { n, all } => {
                if *all {
                    rt.cp_async_commit(site);
                }
                rt.cp_async_wait(*n, site);
            }
            // "cp.async.mbarrier.arrive … an arrive-on operation … triggered after the
            // completion of all prior cp.async operations initiated by the executing thread";
            // without .noinc "the pending count … is incremented by 1 prior to" it.
            AsyncOp::CpAsyncMbarArrive { addr, space, noinc } => {
                let bar = self.mbarrier_of(addr, *space, true, site);
                rt.cp_async_mbarrier_arrive(bar, *noinc, site);
            }
            AsyncOp::BulkToShared {
                dst,
                src,
                src_space,
                size,
                bar,
                multicast,
            } => {
                let (d, s, b) = (self.address(dst), self.address(src), self.address(bar));
                let bytes = self.src(size);
                self.bulk_to_shared((d, s, b), *src_space, bytes, multicast.is_some(), site);
                if let Some(mask) = multicast {
                    let mask = self.src(mask);
                    self.bulk_multicast((d, s, b), bytes, mask, site);
                }
            }
            // "cp.async.bulk.global.shared::cta.bulk_group": completion through the thread's
            // bulk async-groups.
            AsyncOp::BulkToGlobal { dst, src, size } => {
                let (d, s) = (self.address(dst), self.address(src));
                let bytes = self.bulk_size(self.src(size), site);
                let dst = self.copy_locations(Space::Global, d, bytes, site);
                let src = self.copy_locations(Space::Shared, s, bytes, site);
                self.same_elements(&src, &dst, site);
                rt.bulk_copy(src, dst, bytes, Completion::BulkGroup, site);
            }
            AsyncOp::TensorToShared { .. } | AsyncOp::TensorToGlobal { .. } => {
                self.exec_tensor(op, site)
            }
            AsyncOp::BulkCommit => rt.bulk_commit_group(site),
            AsyncOp::BulkWait { n, read } => rt.bulk_wait_group(*n, *read, site),
            AsyncOp::FenceProxyAsync(space) => self.fence_proxy_async(*space, site),
            // "fence.mbarrier_init … applies to prior mbarrier.init operations".
            AsyncOp::FenceMbarrierInit => rt.fence_mbarrier_init(site),
            AsyncOp::BulkPrefetch => {}
            AsyncOp::StAsync {
                addr,
                space,
                ty,
                v,
                bar,
            } => {
                let values: Vec<u64> = v.iter().map(|s| ty.trunc(self.src(s))).collect();
                let store = AsyncStore::Values(values);
                let bytes = ty.bytes() * v.len() as u64;
                self.async_store(("st.async", addr, *space, bar), store, bytes, v.len(), site);
            }
            AsyncOp::RedAsync {
                addr,
                space,
                op,
                ty,
                b,
                bar,
            } => {
                let operand = match ty {
                    RedAsyncType::U64 => self.src(b),
                    _ => self.src(b) & 0xffff_ffff,
                };
                let red = match RedAsync::new(*op, *ty, operand) {
                    Ok(red) => red,
                    Err(why) => self.fail(FailureKind::Unsupported, site, why),
                };
                let what = ("red.async", addr, *space, bar);
                self.async_store(what, AsyncStore::Reduce(red), ty.bytes(), 1, site);
            }
        }
    }

    /// `st.async` / `red.async` (PTX ISA 8.1): "the destination … in the .shared::cluster state
    /// space" (a generic address must name shared memory), `n` elements of `bytes` in all, and
    /// the mbarrier `mbar` that the runtime checks is in the destination's CTA.
    fn async_store(
        &self,
        (what, addr, space, bar): (&str, &Addr, Space, &Addr),
        store: AsyncStore,
        bytes: u64,
        n: usize,
        site: Site,
    ) {
        let a = self.address(addr);
        let resolved = match space {
            Space::Generic => from_generic(a).0,
            s => s,
        };
        if !matches!(resolved, Space::Shared | Space::SharedCluster) {
            self.fail(
                FailureKind::OutOfBounds,
                site,
                format!("{what} to {a:#x}: the destination must be .shared::cluster memory"),
            );
        }
        let dst = self.copy_locations(space, a, bytes, site);
        if dst.len() != n {
            self.fail(
                FailureKind::Unsupported,
                site,
                format!(
                    "{what} of {n} element(s), {bytes} bytes, onto {} buffer elements: the model \
                     stores whole elements of the destination buffer",
                    dst.len()
                ),
            );
        }
        let bar = self.mbarrier_of(bar, Space::SharedCluster, false, site);
        self.t.rt.async_store(dst, store, bar, bytes, site);
    }

    /// "size … specifies the amount of memory to be copied … a multiple of 16".
    fn bulk_size(&self, bytes: u64, site: Site) -> u64 {
        if bytes == 0 || !bytes.is_multiple_of(16) {
            self.fail(
                FailureKind::OutOfBounds,
                site,
                format!(
                    "cp.async.bulk of {bytes} bytes: the size must be a positive multiple of 16"
                ),
            );
        }
        bytes
    }

    /// `cp.async.bulk.shared::cluster.{global,shared::cta}.mbarrier::complete_tx::bytes`:
    /// "the mbarrier object mbar … in the same CTA as dstMem" receives complete-tx of the
    /// bytes when the copy lands. With `.multicast::cluster` the CTAs of `ctaMask` receive it
    /// instead ([`Thread::bulk_multicast`]), so nothing is copied here.
    fn bulk_to_shared(
        &self,
        (d, s, b): (u64, u64, u64),
        src_space: Space,
        bytes: u64,
        multicast: bool,
        site: Site,
    ) {
        let bytes = self.bulk_size(bytes, site);
        if multicast {
            return;
        }
        let dst = self.copy_locations(Space::SharedCluster, d, bytes, site);
        let src = self.copy_locations(src_space, s, bytes, site);
        self.same_elements(&src, &dst, site);
        let bar = self.mbarrier(Space::SharedCluster, b, false, site);
        let (bar_block, _) = self.shared_block(b, false, site);
        let (dst_block, _) = self.shared_block(d, false, site);
        if bar_block != dst_block {
            self.misuse(
                site,
                "the bulk copy's mbarrier is not in the CTA of its destination".into(),
            );
        }
        self.t
            .rt
            .bulk_copy(src, dst, bytes, Completion::MBarrier(bar), site);
    }

    /// `.multicast::cluster`: "copied to the same CTA-relative offset as dstMem in the shared
    /// memory of each destination CTA … ctaMask … each bit position corresponds to the
    /// %cluster_ctarank of the destination CTA. The mbarrier signal is also multicast to the
    /// same CTA-relative offset as dstMem" — one copy per destination CTA, each completing on
    /// its CTA's barrier.
    fn bulk_multicast(&self, (d, s, b): (u64, u64, u64), bytes: u64, mask: u64, site: Site) {
        let (_, d_off) = shared_cta(d);
        let (_, b_off) = shared_cta(b);
        for rank in 0..self.t.cluster_nctarank().min(16) {
            if mask & (1 << rank) == 0 {
                continue;
            }
            let dst = self.copy_locations(
                Space::SharedCluster,
                shared_cluster(rank, d_off),
                bytes,
                site,
            );
            let src = self.copy_locations(Space::Global, s, bytes, site);
            self.same_elements(&src, &dst, site);
            let bar = self.mbarrier(
                Space::SharedCluster,
                shared_cluster(rank, b_off),
                false,
                site,
            );
            self.t
                .rt
                .bulk_copy(src, dst, bytes, Completion::MBarrier(bar), site);
        }
    }

    /// `fence.proxy.async{.space}`: "a bi-directional proxy fence between the generic proxy and
    /// the async proxy … .global, .shared::{cta,cluster} restrict it to that state space".
    fn fence_proxy_async(&self, space: Option<Space>, site: Site) {
        let Some(space) = space else {
            self.t.rt.fence_proxy_async(site);
            return;
        };
        let blocks: Vec<u32> = match space {
            Space::SharedCluster => {
                let size = self.t.cluster_nctarank();
                let first = self.t.cluster_id() * size;
                (first..(first + size).min(self.t.grid.blocks)).collect()
            }
            _ => vec![self.t.bid()],
        };
        let mut covers = Vec::new();
        for r in &self.layout.regions {
            match (r.space, space) {
                (Space::Global, Space::Global) => {
                    covers.extend(r.first_loc..r.first_loc + r.elements());
                }
                (Space::Shared, Space::Shared | Space::SharedCluster) => {
                    for &b in &blocks {
                        let first = r.first_loc + b as usize * r.per_block;
                        covers.extend(first..first + r.elements());
                    }
                }
                _ => {}
            }
        }
        let name = match space {
            Space::Global => "fence.proxy.async.global",
            Space::Shared => "fence.proxy.async.shared::cta",
            _ => "fence.proxy.async.shared::cluster",
        };
        self.t
            .fence_proxy_async_locations(covers.into(), name, site);
    }
}
