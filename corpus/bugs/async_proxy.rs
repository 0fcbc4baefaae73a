//! The async proxy as PTX defines it (issue 29 item 4): the strict cross-proxy rule, reads
//! included (PTX ISA, "Proxies": "Accessing the same memory location across multiple proxies
//! needs a cross-proxy fence"), as DeepEP #642, nccl-extensions #8 and TransformerEngine #2695
//! fixed it; bulk copies of one copy agent ordered only through their completion mechanisms;
//! and a multicast copy's write checked against the proxy fences of its destination CTA. The
//! semantics are in `model/src/runtime/async_copy/` and `model/cat/ptx-v8.cat`.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::check;
use scopecheck_model::kernel::*;

const PROXIES: &str = "PTX ISA 8.x, Memory Consistency Model, Proxies: \"Accessing the same \
                       memory location across multiple proxies needs a cross-proxy fence\"; \
                       DeepEP #642, nccl-extensions #8, TransformerEngine #2695";
const COMPLETION: &str = "PTX ISA 8.x, cp.async.bulk, cp.async.bulk.wait_group{.read}: async \
                          copies are ordered only through their completion mechanisms";
const MULTICAST: &str = "PTX ISA 8.x, cp.async.bulk .multicast::cluster, fence.proxy.async: the \
                         copy writes each destination CTA's shared memory";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "async/tma-refill-after-generic-read-no-proxy-fence",
            source: PROXIES,
            about: "A consumer reads a pipeline stage through the generic proxy and frees it \
                    with an mbarrier arrive; the producer waits on that barrier and refills the \
                    stage with a TMA load. The mbarrier orders the read before the copy's issue, \
                    but not across proxies: without fence.proxy.async the async-proxy write may \
                    overtake the read (a data race).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || refill_after_read(false),
        },
        BugCase {
            name: "async/tma-refill-after-generic-read-proxy-fence",
            source: PROXIES,
            about: "The fix the three projects merged: the consumer runs fence.proxy.async \
                    after its reads of the stage and before its arrive on the empty barrier.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || refill_after_read(true),
        },
        BugCase {
            name: "async/two-tma-stores-one-element-in-flight",
            source: COMPLETION,
            about: "One thread issues two TMA stores of the same global element and waits for \
                    both only afterwards: nothing orders the second copy's write after the \
                    first's (one TMA unit need not perform them in issue order), a data race.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || two_stores(false),
        },
        BugCase {
            name: "async/two-tma-stores-one-element-waited",
            source: COMPLETION,
            about: "The same with commit_group and wait_group 0 between the two stores.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || two_stores(true),
        },
        BugCase {
            name: "async/tma-load-into-stage-still-read-by-store",
            source: COMPLETION,
            about: "A TMA store reads a shared stage (group 0); the thread waits with \
                    wait_group.read 1, which does not wait for group 0, then refills the stage \
                    with a TMA load: the load's write races with the store's read.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || store_then_load(1),
        },
        BugCase {
            name: "async/tma-load-into-stage-after-store-read",
            source: COMPLETION,
            about: "The same with wait_group.read 0: the store has read the stage before the \
                    load is issued.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || store_then_load(0),
        },
        BugCase {
            name: "async/multicast-destination-fences",
            source: MULTICAST,
            about: "Both CTAs of a cluster zero their tile through the generic proxy, run \
                    fence.proxy.async and meet at the cluster barrier; CTA 0 then multicasts a \
                    TMA load into both tiles. Each destination's own fence orders its zeroing \
                    before the copy's write there.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || multicast(true),
        },
        BugCase {
            name: "async/multicast-destination-without-fence",
            source: MULTICAST,
            about: "The same, but only the issuing CTA 0 runs fence.proxy.async: CTA 1's \
                    zeroing and the copy's async-proxy write of its tile race.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || multicast(false),
        },
    ]
}

/// Thread 0 produces two fills of one stage by TMA loads; thread 1 consumes them, freeing the
/// stage through `empty` after its read (with `fence.proxy.async` before the arrive when
/// `proxy_fence`).
fn refill_after_read(proxy_fence: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("tma refill", Grid::new(1, 2));
    let src = k.global_from::<i32>("src", &[7, 8]);
    let stage = k.shared::<i32>("stage", 1);
    let bars = k.mbarriers("bar", 2);
    let body = threads(move |t| {
        let (full, empty) = (bars.at(0), bars.at(1));
        if t.tid() == 0 {
            full.init(t, 1);
            empty.init(t, 1);
        }
        t.syncthreads();
        if t.tid() == 0 {
            for round in 0..2u32 {
                if round > 0 {
                    empty.wait_parity(t, 0);
                }
                full.arrive_expect_tx(t, 4);
                t.bulk_copy_global_to_shared(&stage, 0, &src, round as usize, 4, &full);
            }
        } else {
            full.wait_parity(t, 0);
            check!(t.load(&stage, 0) == 7);
            if proxy_fence {
                t.fence_proxy_async();
            }
            empty.arrive(t);
            full.wait_parity(t, 1);
            check!(t.load(&stage, 0) == 8);
        }
    });
    (k, body)
}

/// Two TMA stores of `out[0]` from two shared elements, waited for together or one by one.
fn two_stores(wait_between: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("two tma stores", Grid::new(1, 1));
    let s = k.shared::<i32>("s", 2);
    let out = k.global::<i32>("out", 1);
    k.bulk_copies();
    let body = threads(move |t| {
        t.store(&s, 0, 1);
        t.store(&s, 1, 2);
        t.fence_proxy_async();
        t.bulk_copy_shared_to_global(&out, 0, &s, 0, 4);
        if wait_between {
            t.bulk_commit_group();
            t.bulk_wait_group(0);
        }
        t.bulk_copy_shared_to_global(&out, 0, &s, 1, 4);
        t.bulk_wait();
    });
    (k, body)
}

/// A TMA store of the stage, `wait_group.read read_pending`, then a TMA load into the stage.
fn store_then_load(read_pending: usize) -> (Kernel, Body) {
    let mut k = Kernel::new("store then load", Grid::new(1, 1));
    let stage = k.shared::<i32>("stage", 1);
    let out = k.global::<i32>("out", 1);
    let src = k.global_from::<i32>("src", &[9]);
    let bars = k.mbarriers("full", 1);
    let body = threads(move |t| {
        let full = bars.at(0);
        full.init(t, 1);
        t.store(&stage, 0, 5);
        t.fence_proxy_async();
        t.bulk_copy_shared_to_global(&out, 0, &stage, 0, 4);
        t.bulk_commit_group();
        t.bulk_wait_group_read(read_pending);
        full.arrive_expect_tx(t, 4);
        t.bulk_copy_global_to_shared(&stage, 0, &src, 0, 4, &full);
        full.wait_parity(t, 0);
        check!(t.load(&stage, 0) == 9);
        t.bulk_wait();
    });
    (k, body)
}

/// Two CTAs of a cluster zero their tile (each with `fence.proxy.async` after, or only CTA 0),
/// meet at the cluster barrier, and CTA 0 multicasts `src` into both tiles.
fn multicast(every_destination_fences: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("multicast", Grid::new(2, 1).with_clusters(2));
    let src = k.global_from::<i32>("src", &[7]);
    let tile = k.shared::<i32>("tile", 1);
    let bars = k.mbarriers("full", 1);
    let body = threads(move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        t.fence_mbarrier_init();
        t.store(&tile, 0, 0);
        if every_destination_fences || t.cluster_ctarank() == 0 {
            t.fence_proxy_async();
        }
        t.cluster_sync();
        bar.arrive_expect_tx(t, 4);
        if t.cluster_ctarank() == 0 {
            t.bulk_copy_global_to_shared_multicast(&tile, 0, &src, 0, 4, &bar, 0b11);
        }
        bar.wait_parity(t, 0);
        check!(t.load(&tile, 0) == 7);
        t.cluster_sync();
    });
    (k, body)
}
