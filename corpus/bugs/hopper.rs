//! Hopper's asynchronous pipeline: bug patterns of clusters, distributed shared memory, remote
//! mbarrier arrives, the async proxy and the cluster barrier, each next to its fix. Each `source`
//! names the public report the pattern comes from (where one was located) and the rule of the
//! PTX ISA or the CUDA Programming Guide that decides the verdict.
//!
//! Two patterns of issue 15's list live elsewhere in the corpus: the wrong wait parity in a pipelined
//! loop (`mbarrier/seed-stages-2-stale-parity` and its fixes) and `arrive` where `arrive_and_wait`
//! was needed on a named barrier (`named-barrier/count-mismatch`).

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::check;
use scopecheck_model::kernel::{FailureKind, Grid, Kernel, MemoryOrder, MemoryScope, Verdict};

const PTX_SCOPE: &str = "NVIDIA/cutlass issue #3324 (ClusterBarrier arrives at CTA scope where \
                         the peer needs release.cluster); PTX ISA 8.x, Memory Consistency Model, \
                         Scope and Morally strong operations; mbarrier.arrive .shared::cluster";
const PTX_POLL: &str = "deepseek-ai/DeepEP issue #621, fixed by PR #642 (a rank polls a flag \
                        through the generic proxy, then loads with TMA: stale data without \
                        fence.proxy.async); PTX ISA 8.x, Proxies, fence.proxy.async";
const PTX_STORE: &str = "MoonshotAI/FlashKDA issue #24, fixed by PR #25 (generic smem writes \
                         consumed by a TMA store after only __syncthreads); PTX ISA 8.x, Proxies, \
                         fence.proxy.async.shared::cta";
const CUDA_DSMEM: &str = "facebookexperimental/triton PR #1105 (cluster barrier before exit: \
                          DSMEM access to a departed peer CTA, CUDA_EXCEPTION_17); CUDA C++ \
                          Programming Guide, Distributed Shared Memory (\"ensure that all \
                          distributed shared memory operations are completed before a thread \
                          block exits\")";
const PTX_INIT: &str = "MoonshotAI/FlashKDA issue #24 item 2 and facebookexperimental/triton PR \
                        #1240 (mbarrier init fence before cross-CTA use); PTX ISA 8.x, \
                        membar/fence: fence.mbarrier_init.release.cluster";
const PTX_MULTICAST: &str = "no public report located for this pattern in this corpus; PTX ISA \
                             8.x, cp.async.bulk .multicast::cluster and mbarrier tx-count";
const PTX_LAP: &str = "no public report located for this pattern in this corpus; PTX ISA 8.x, \
                       mbarrier: phase completion and try_wait.parity";
const PTX_STORE_READ: &str = "no public report located for this pattern in this corpus; PTX ISA \
                              8.x, cp.async.bulk.wait_group: .read waits only until the copies \
                              'have completed reading from their source locations'";
const CUDA_2D: &str = "no public report located for this pattern in this corpus; CUDA C++ \
                       Programming Guide, Thread Block Clusters (__cluster_dims__, \
                       cluster.block_rank()); PTX ISA 8.x, Special Registers: \
                       %cluster_ctaid, %cluster_ctarank";
const PTX_TX: &str = "no public report located for this pattern in this corpus; PTX ISA 8.x, \
                      mbarrier: tx-count and phase completion";

/// Block 1 writes a tile into block 0's shared memory and arrives remotely on block 0's
/// mbarrier at `scope`; block 0 waits on the barrier (`.acquire` at `wait_scope`) and reads the
/// tile.
fn remote_arrive(scope: MemoryScope, wait_scope: MemoryScope) -> (Kernel, Body) {
    let mut k = Kernel::new("remote arrive", Grid::new(2, 1).with_clusters(2));
    let tile = k.shared::<i32>("tile", 1);
    let bars = k.mbarriers("full", 1);
    let body = threads(move |t| {
        let bar = bars.at(0);
        if t.cluster_ctarank() == 0 {
            bar.init(t, 1);
            t.fence_mbarrier_init();
        }
        t.cluster_sync();
        if t.cluster_ctarank() == 1 {
            t.store(&tile.map_shared_rank(t, 0), 0, 7);
            bar.map_shared_rank(t, 0).arrive(t, scope);
        } else {
            bar.wait_parity_scoped(t, 0, MemoryOrder::Acquire, wait_scope);
            check!(t.load(&tile, 0) == 7);
        }
    });
    (k, body)
}

/// Block 0 writes `data` and releases `flag`; block 1 polls the flag (generic proxy), then
/// loads `data` with a bulk copy (async proxy), with or without `fence.proxy.async` between.
fn flag_then_bulk_copy(proxy_fence: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("flag then bulk copy", Grid::new(2, 1));
    let data = k.global::<i32>("data", 4);
    let flag = k.global::<i32>("flag", 1);
    let tile = k.shared::<i32>("tile", 4);
    let bars = k.mbarriers("full", 1);
    let body = threads(move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 42);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
            return;
        }
        while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 0 {
            t.spin_loop();
        }
        if proxy_fence {
            t.fence_proxy_async();
        }
        let bar = bars.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 16);
        t.bulk_copy_global_to_shared(&tile, 0, &data, 0, 16, &bar);
        bar.wait_parity(t, 0);
        check!(t.load(&tile, 0) == 42);
    });
    (k, body)
}

/// Two threads fill a shared tile (generic proxy), meet at `syncthreads`, and thread 0 stores
/// the tile to global memory with a bulk copy (async proxy); with `proxy_fence` every writer
/// runs `fence.proxy.async.shared::cta` before the barrier (CUTLASS `fence_view_async_shared`).
fn bulk_store_after_syncthreads(proxy_fence: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("bulk store after syncthreads", Grid::new(1, 2));
    let tile = k.shared::<i32>("tile", 4);
    let out = k.global::<i32>("out", 4);
    k.bulk_copies();
    k.postcondition("out holds the tile", move |m| {
        m.get(&out, 0) == 1 && m.get(&out, 1) == 2
    });
    let body = threads(move |t| {
        t.store(&tile, t.tid() as usize, t.tid() as i32 + 1);
        if proxy_fence {
            t.fence_proxy_async();
        }
        t.syncthreads();
        if t.tid() == 0 {
            t.bulk_copy_shared_to_global(&out, 0, &tile, 0, 16);
            t.bulk_wait();
        }
    });
    (k, body)
}

/// Block 0 stages a result in shared memory, stores it to global memory with a TMA store
/// (fenced for the async proxy), commits the group and waits, with `.read` unless `full_wait`,
/// then publishes a flag; block 1 waits for the flag (acquire) and reads the result.
fn tma_store_then_publish(full_wait: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("tma store then publish", Grid::new(2, 1));
    let tile = k.shared::<i32>("tile", 4);
    let out = k.global::<i32>("out", 4);
    let flag = k.global::<i32>("flag", 1);
    k.bulk_copies();
    let body = threads(move |t| {
        if t.bid() == 0 {
            t.store(&tile, 0, 7);
            t.fence_proxy_async();
            t.bulk_copy_shared_to_global(&out, 0, &tile, 0, 16);
            t.bulk_commit_group();
            match full_wait {
                true => t.bulk_wait_group(0),
                false => t.bulk_wait_group_read(0),
            }
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
        } else {
            while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 0 {
                t.spin_loop();
            }
            let result = t.load(&out, 0);
            // The fix makes the result visible; the bug is the race on it.
            if full_wait {
                check!(result == 7);
            }
        }
    });
    (k, body)
}

/// Block 1 writes its result into block 0's shared memory after a cluster barrier; block 0
/// returns right after that barrier, unless `trailing_barrier` keeps it until block 1 is done.
fn dsmem_after_exit(trailing_barrier: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("dsmem after exit", Grid::new(2, 1).with_clusters(2));
    let partial = k.shared::<i32>("partial", 1);
    let body = threads(move |t| {
        t.store(&partial, 0, 0);
        t.cluster_sync();
        if t.cluster_ctarank() == 1 {
            t.store(&partial.map_shared_rank(t, 0), 0, 5);
        }
        if trailing_barrier {
            t.cluster_sync();
        }
    });
    (k, body)
}

/// Block 0 initialises its mbarrier, then the cluster meets at `barrier.cluster.arrive.relaxed`
/// and `wait` (CUTLASS's `cluster_sync`), with or without `fence.mbarrier_init` first; block 1
/// then arrives on block 0's barrier remotely, and block 0 waits for it.
fn fresh_barrier_for_peers(fence_init: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("fresh barrier for peers", Grid::new(2, 1).with_clusters(2));
    let bars = k.mbarriers("empty", 1);
    let body = threads(move |t| {
        let bar = bars.at(0);
        if t.cluster_ctarank() == 0 {
            bar.init(t, 1);
            if fence_init {
                t.fence_mbarrier_init();
            }
        }
        let arrival = t.barrier_cluster_arrive_relaxed();
        t.barrier_cluster_wait(arrival);
        if t.cluster_ctarank() == 1 {
            bar.map_shared_rank(t, 0).arrive(t, MemoryScope::Cluster);
        } else {
            bar.wait_parity(t, 0);
        }
    });
    (k, body)
}

/// `consumers` consumer threads wait on the `full` barrier for each of two fills of one stage
/// and free it through `empty`; the producer waits on `empty` before refilling. With
/// `leader_frees`, the leader frees the stage (`empty` counts 1) as soon as it passes `full`:
/// the producer laps the siblings, refilling the stage while they read it, and completing the
/// second phase before a slow sibling tests the first (whose parity then reads as pending again).
fn leader_arrives_early(leader_frees: bool) -> (Kernel, Body) {
    let consumers = 2u32;
    let mut k = Kernel::new("leader arrives early", Grid::new(1, consumers + 1));
    let stage = k.shared::<i32>("stage", 1);
    let bars = k.mbarriers("bar", 2);
    let body = threads(move |t| {
        let (full, empty) = (bars.at(0), bars.at(1));
        let producer = t.tid() == consumers;
        if producer {
            full.init(t, 1);
            empty.init(t, if leader_frees { 1 } else { consumers });
        }
        t.syncthreads();
        for round in 0..2u32 {
            if producer {
                if round > 0 {
                    empty.wait_parity(t, (round - 1) & 1);
                }
                t.store(&stage, 0, round as i32 + 1);
                full.arrive(t);
                continue;
            }
            full.wait_parity(t, round & 1);
            if leader_frees && t.tid() == 0 {
                empty.arrive(t);
            }
            let _ = t.load(&stage, 0);
            if !leader_frees {
                empty.arrive(t);
            }
        }
    });
    (k, body)
}

/// A 2x2 grid of 1x2 clusters (one per column: blocks 0 and 2, blocks 1 and 3): block 2, CTA
/// (0, 1) of its cluster, writes into the `cell` of its cluster's other CTA, block 0, before
/// the cluster barrier after which block 0 checks its cell; the second column's CTAs exit at
/// once. `by_rank`: the peer is `block_rank() ^ 1`; else the peer's rank is computed from the
/// linear block id as if clusters were consecutive ids, `(bid ^ 1) % cluster size`, which is
/// block 2's own rank.
fn column_cluster_peer(by_rank: bool) -> (Kernel, Body) {
    let grid = Grid::shaped((2, 2), 1).with_cluster_dims((1, 2));
    let mut k = Kernel::new("2-D cluster peer", grid);
    let cell = k.shared::<u32>("cell", 1);
    let body = threads(move |t| {
        if t.cluster_id() == 1 {
            return;
        }
        if t.bid() == 2 {
            let peer = match by_rank {
                true => t.cluster_ctarank() ^ 1,
                false => (t.bid() ^ 1) % t.cluster_nctarank(),
            };
            t.store(&cell.map_shared_rank(t, peer), 0, 7);
        }
        t.cluster_sync();
        if t.bid() == 0 {
            check!(t.load(&cell, 0) == 7);
        }
    });
    (k, body)
}

/// CTA 0 of a cluster of two expects `expect_ctas` slices of 16 bytes on its barrier and
/// receives one slice per CTA of the cluster (issued here by CTA 0 itself, standing for the
/// multicast copies of both CTAs).
fn expect_tx_cluster_size(expect_ctas: u64) -> (Kernel, Body) {
    let mut k = Kernel::new("expect_tx cluster size", Grid::new(2, 1).with_clusters(2));
    let src = k.global_from::<i64>("src", &[1, 2, 3, 4]);
    let tile = k.shared::<i64>("tile", 4);
    let bars = k.mbarriers("full", 1);
    let body = threads(move |t| {
        if t.cluster_ctarank() != 0 {
            return;
        }
        let bar = bars.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 16 * expect_ctas);
        for slice in 0..t.cluster_nctarank() as usize {
            t.bulk_copy_global_to_shared(&tile, 2 * slice, &src, 2 * slice, 16, &bar);
        }
        bar.wait_parity(t, 0);
        check!(t.load(&tile, 2) == 3);
    });
    (k, body)
}

/// CTA 0 of a cluster of two loads a shared operand and, when it decides to multicast (`agree`),
/// sends it to both CTAs; CTA 1 counts on the multicast: it issues no load of its own and
/// expects the operand's bytes on its barrier.
fn multicast_agreement(agree: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("multicast agreement", Grid::new(2, 1).with_clusters(2));
    let src = k.global_from::<i64>("src", &[1, 2]);
    let tile = k.shared::<i64>("tile", 2);
    let bars = k.mbarriers("full", 1);
    let body = threads(move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        // The peer's barrier must be initialised before a multicast completes on it.
        t.cluster_sync();
        bar.arrive_expect_tx(t, 16);
        if t.cluster_ctarank() == 0 {
            let mask = if agree { 0b11 } else { 0b01 };
            t.bulk_copy_global_to_shared_multicast(&tile, 0, &src, 0, 16, &bar, mask);
        }
        bar.wait_parity(t, 0);
        check!(t.load(&tile, 1) == 2);
    });
    (k, body)
}

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "hopper/remote-arrive-cta-scope",
            source: PTX_SCOPE,
            about: "A producer CTA writes a tile into its peer's shared memory and signals the \
                    peer's mbarrier with a remote arrive at .cta scope: .cta does not include \
                    the waiting CTA, so the arrive is not morally strong with the wait and \
                    orders nothing; the peer's read of the tile races with the write.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || remote_arrive(MemoryScope::Block, MemoryScope::Cluster),
        },
        BugCase {
            name: "hopper/remote-arrive-cluster-scope-cta-wait",
            source: PTX_SCOPE,
            about: "The remote arrive is .release.cluster, but the waiter uses the default \
                    try_wait scope, .cta (PTX ISA, mbarrier.try_wait: \"If the .scope qualifier \
                    is not specified then it defaults to .cta\"): the wait's scope leaves the \
                    producer CTA out, they are not morally strong, and the read races with the \
                    write (CUTLASS's cross-CTA arrive/wait at .cta scope).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || remote_arrive(MemoryScope::Cluster, MemoryScope::Block),
        },
        BugCase {
            name: "hopper/remote-arrive-cluster-scope",
            source: PTX_SCOPE,
            about: "The fix: mbarrier.arrive.release.cluster.shared::cluster and \
                    mbarrier.try_wait.parity.acquire.cluster (the PTX ISA's own cross-CTA \
                    example); the waiter's acquire then sees the tile.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || remote_arrive(MemoryScope::Cluster, MemoryScope::Cluster),
        },
        BugCase {
            name: "hopper/flag-then-bulk-copy-without-proxy-fence",
            source: PTX_POLL,
            about: "The consumer acquires a flag through the generic proxy and then loads the \
                    flagged data with cp.async.bulk: the copy reads through the async proxy, \
                    which the generic release/acquire does not order (a proxy race, reported \
                    as a data race that names the missing fence.proxy.async).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || flag_then_bulk_copy(false),
        },
        BugCase {
            name: "hopper/flag-then-bulk-copy-with-proxy-fence",
            source: PTX_POLL,
            about: "The fix: fence.proxy.async after acquiring the flag, before issuing the copy.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || flag_then_bulk_copy(true),
        },
        BugCase {
            name: "hopper/tma-store-published-after-read-wait",
            source: PTX_STORE_READ,
            about: "A TMA store's result is published after cp.async.bulk.wait_group.read, \
                    which only says the copy has read its shared source (the staging buffer may \
                    be reused): the copy's global write is not ordered before the flag, so the \
                    consumer that acquired the flag reads the result in a data race with the \
                    copy's write (and may see the old value).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || tma_store_then_publish(false),
        },
        BugCase {
            name: "hopper/tma-store-published-after-full-wait",
            source: PTX_STORE_READ,
            about: "The fix: cp.async.bulk.wait_group 0 (without .read) before the release of \
                    the flag; the completion's implicit proxy fence lets the consumer read the \
                    result through the generic proxy.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || tma_store_then_publish(true),
        },
        BugCase {
            name: "hopper/bulk-store-after-syncthreads-only",
            source: PTX_STORE,
            about: "Threads fill a shared tile and meet at __syncthreads, then one thread \
                    stores the tile with cp.async.bulk.global.shared::cta: the barrier orders \
                    the generic writes for the generic proxy only, so the bulk store's async \
                    read of the tile races with them.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || bulk_store_after_syncthreads(false),
        },
        BugCase {
            name: "hopper/bulk-store-after-proxy-fence-and-syncthreads",
            source: PTX_STORE,
            about: "The fix (CUTLASS fence_view_async_shared): every writer runs \
                    fence.proxy.async.shared::cta before the barrier.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || bulk_store_after_syncthreads(true),
        },
        BugCase {
            name: "hopper/dsmem-write-after-peer-exit",
            source: CUDA_DSMEM,
            about: "After a cluster barrier, CTA 1 writes its partial result into CTA 0's shared \
                    memory while CTA 0 returns: in the schedules where CTA 0 exits first, the \
                    write goes to shared memory that no longer exists (the missing trailing \
                    cluster barrier).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::UseAfterExit)),
            explore: Explore::Exhaustive,
            build: || dsmem_after_exit(false),
        },
        BugCase {
            name: "hopper/dsmem-write-before-trailing-cluster-barrier",
            source: CUDA_DSMEM,
            about: "The fix: a trailing cluster.sync() keeps every CTA of the cluster alive until \
                    its peers are done with its shared memory.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || dsmem_after_exit(true),
        },
        BugCase {
            name: "hopper/fresh-mbarrier-without-fence-mbarrier-init",
            source: PTX_INIT,
            about: "CTA 0 initialises an mbarrier and the cluster meets at a relaxed cluster \
                    barrier (CUTLASS cluster_sync): nothing releases the init to the peer, whose \
                    remote arrive may see an uninitialised barrier.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::MBarrierMisuse)),
            explore: Explore::Dfs,
            build: || fresh_barrier_for_peers(false),
        },
        BugCase {
            name: "hopper/fresh-mbarrier-with-fence-mbarrier-init",
            source: PTX_INIT,
            about: "The fix: fence.mbarrier_init.release.cluster after the init, before the \
                    relaxed cluster arrive.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || fresh_barrier_for_peers(true),
        },
        BugCase {
            name: "hopper/leader-arrives-before-siblings-read",
            source: PTX_LAP,
            about: "The leader of the consumer threads frees the stage on the empty barrier \
                    (count 1) as soon as it passes the full barrier: the producer laps its \
                    siblings, refilling the stage while they read it (a data race) or completing \
                    the next phase before a slow sibling tests this one, which then waits for a \
                    phase no one completes (a hang).",
            expect: Expect::FailsWith(&[FailureKind::DataRace, FailureKind::Hang]),
            explore: Explore::Dfs,
            build: || leader_arrives_early(true),
        },
        BugCase {
            name: "hopper/every-consumer-arrives-after-reading",
            source: PTX_LAP,
            about: "The fix: every consumer thread waits on full and arrives on empty (count = \
                    consumers) after its last read of the stage.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || leader_arrives_early(false),
        },
        BugCase {
            name: "hopper/multicast-disagreement",
            source: PTX_MULTICAST,
            about: "CTA 1 counts on CTA 0 multicasting the operand and expects its bytes, but CTA \
                    0 decides not to multicast and loads it for itself only: CTA 1's tx-count \
                    never reaches zero and its wait never returns.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Dfs,
            build: || multicast_agreement(false),
        },
        BugCase {
            name: "hopper/multicast-agreement",
            source: PTX_MULTICAST,
            about: "The fix: every CTA of the cluster takes the same multicast decision.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || multicast_agreement(true),
        },
        BugCase {
            name: "hopper/expect-tx-wrong-cluster-size",
            source: PTX_TX,
            about: "A CTA of a cluster of two expects the bytes of three CTAs' slices (the \
                    cluster size it was tuned for) but receives two: the tx-count never reaches \
                    zero and the wait never returns.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Dfs,
            build: || expect_tx_cluster_size(3),
        },
        BugCase {
            name: "hopper/expect-tx-actual-cluster-size",
            source: PTX_TX,
            about: "The fix: expect_tx of the bytes the cluster's CTAs actually send (two slices).",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || expect_tx_cluster_size(2),
        },
        BugCase {
            name: "hopper/2d-cluster-peer-by-linear-block-id",
            source: CUDA_2D,
            about: "With __cluster_dims__(1, 2) a cluster is a column of the grid, blocks 0 and \
                    2, not consecutive block ids: the peer's rank computed from the linear \
                    block id as (bid ^ 1) % cluster size names the writer's own rank, and block \
                    0 reads its cell unwritten.",
            expect: Expect::FailsWith(&[FailureKind::UninitializedRead, FailureKind::Assertion]),
            explore: Explore::Dfs,
            build: || column_cluster_peer(false),
        },
        BugCase {
            name: "hopper/2d-cluster-peer-by-rank",
            source: CUDA_2D,
            about: "The fix: the peer's rank from cluster.block_rank() (%cluster_ctarank).",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || column_cluster_peer(true),
        },
    ]
}
