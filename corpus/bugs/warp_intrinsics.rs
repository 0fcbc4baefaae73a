//! Warp intrinsics of issue 34 item 2, each with a bug a user needs it to catch: CUB's logical
//! warps (`width` on shuffles), `elect.sync` (`cute::elect_one_sync`, whose leader the PTX ISA
//! does not fix), `__reduce_*_sync` (`redux.sync`, which orders no memory) and `__nanosleep`
//! back-off in a spin loop. The semantics and the sentences they rest on are in
//! `model/src/kernel/warp.rs` and `model/src/runtime/warp/`.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::kernel::*;

const WIDTH: &str = "CUDA Programming Guide: Warp Shuffle Functions (width: \"each subsection of \
                     the warp behaves as a separate entity with a starting logical lane ID of \
                     0\"); PTX ISA: shfl.sync (c packs the segment mask and the clamp)";
const ELECT: &str = "PTX ISA: elect.sync (\"elects one predicated active leader thread from \
                     among a set of threads specified by membermask\"; \"the same leader \
                     thread is elected for the same membermask every time\": which one is not \
                     said)";
const REDUX: &str = "PTX ISA: redux.sync (a reduction across the threads of membermask, which \
                     waits for them), bar.warp.sync (the only warp instruction that \
                     \"guarantee[s] memory ordering\")";
const NANOSLEEP: &str = "PTX ISA: nanosleep (\"suspends the thread for a sleep duration \
                         approximately close to the delay t\"), Memory Consistency Model \
                         (release and acquire patterns)";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "warp-intrinsics/logical-warp-broadcast-without-width",
            source: WIDTH,
            about: "Two logical warps of two lanes each (CUB's WarpReduce<T, 2>) broadcast their \
                    logical lane 0's sum with __shfl_sync(mask, v, 0): without `width` source \
                    lane 0 is the physical lane 0, so the second logical warp gets the first's \
                    sum.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Assertion)),
            explore: Explore::Exhaustive,
            build: || logical_warp_broadcast(false),
        },
        BugCase {
            name: "warp-intrinsics/logical-warp-broadcast-with-width",
            source: WIDTH,
            about: "The same with __shfl_sync(mask, v, 0, 2) and __shfl_xor_sync(mask, v, 1, 2): \
                    each segment of two lanes reads its own first lane.",
            expect: Expect::Verdict(Verdict::Pass),
            // Four lanes, two exchanges each: loom's coarser reduction did not finish in
            // 10 minutes under `check --every-engine`; the DFS needs one execution.
            explore: Explore::Dfs,
            build: || logical_warp_broadcast(true),
        },
        BugCase {
            name: "warp-intrinsics/elect-assumes-lane-zero",
            source: ELECT,
            about: "The lane elect_one_sync() elects writes a shared word (as a TMA-issuing lane \
                    arms a barrier); lane 0 then reads it as if it were the leader. The ISA \
                    elects some lane, deterministically but not necessarily lane 0: when lane 1 \
                    leads, lane 0 reads the word it did not write, racing with the leader.",
            expect: Expect::FailsWith(&[FailureKind::DataRace, FailureKind::Assertion]),
            explore: Explore::Dfs,
            build: || elect_leader(false),
        },
        BugCase {
            name: "warp-intrinsics/elect-keeps-the-predicate",
            source: ELECT,
            about: "The same kernel keeping elect_one_sync()'s predicate: the lane that wrote the \
                    word is the one that reads it back, whichever lane it is.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || elect_leader(true),
        },
        BugCase {
            name: "warp-intrinsics/reduce-add-as-barrier",
            source: REDUX,
            about: "Each lane writes its shared slot, __reduce_add_sync counts the lanes, then \
                    each reads its neighbour's slot. The reduction waits for the lanes but \
                    orders no memory: a data race.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || reduce_publish(false),
        },
        BugCase {
            name: "warp-intrinsics/reduce-add-then-syncwarp",
            source: REDUX,
            about: "The same with __syncwarp after the reduction: the barrier orders the writes \
                    before the reads, and the count is the warp's size.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || reduce_publish(true),
        },
        BugCase {
            name: "warp-intrinsics/nanosleep-backoff-relaxed-flag",
            source: NANOSLEEP,
            about: "Block 1 spins with __nanosleep back-off on a flag block 0 sets after writing \
                    data, both relaxed: the sleep orders nothing, so block 1 may read stale \
                    data (a data race).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || nanosleep_backoff(false),
        },
        BugCase {
            name: "warp-intrinsics/nanosleep-backoff-release-acquire",
            source: NANOSLEEP,
            about: "The same with a release store of the flag and an acquire load in the loop: \
                    the sleep neither helps nor hurts, the patterns synchronize.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || nanosleep_backoff(true),
        },
    ]
}

fn logical_warp_broadcast(width: bool) -> (Kernel, Body) {
    const LANES: u32 = 4;
    let k = Kernel::new(
        "logical_warp_broadcast",
        Grid::new(1, LANES).with_warp_size(LANES),
    );
    let body = threads(move |t| {
        let mask = t.warp_mask();
        let v = t.lane() + 1;
        let (sum, total) = if width {
            let sum = v + t.shfl_xor_sync_width(mask, v, 1, 2);
            (sum, t.shfl_sync_width(mask, sum, 0, 2))
        } else {
            let sum = v + t.shfl_xor_sync(mask, v, 1);
            (sum, t.shfl_sync(mask, sum, 0))
        };
        scopecheck_model::check!(total == sum, "logical lane {} got {total}", t.lane() % 2);
    });
    (k, body)
}

fn elect_leader(keep_predicate: bool) -> (Kernel, Body) {
    const LANES: u32 = 2;
    let mut k = Kernel::new("elect_leader", Grid::new(1, LANES).with_warp_size(LANES));
    let word = k.shared::<u32>("word", 1);
    let body = threads(move |t| {
        let leader = t.elect_one_sync();
        if leader {
            t.store(&word, 0, 7);
        }
        let reads = if keep_predicate {
            leader
        } else {
            t.lane() == 0
        };
        if reads {
            scopecheck_model::check!(t.load(&word, 0) == 7);
        }
    });
    (k, body)
}

fn reduce_publish(syncwarp: bool) -> (Kernel, Body) {
    const LANES: u32 = 2;
    let mut k = Kernel::new("reduce_publish", Grid::new(1, LANES).with_warp_size(LANES));
    let s = k.shared::<u32>("s", LANES as usize);
    let body = threads(move |t| {
        let lane = t.lane() as usize;
        t.store(&s, lane, lane as u32 + 1);
        let count = t.reduce_add_sync(t.warp_mask(), 1u32);
        if syncwarp {
            t.syncwarp(t.warp_mask());
        }
        scopecheck_model::check!(count == LANES);
        let _ = t.load(&s, 1 - lane);
    });
    (k, body)
}

fn nanosleep_backoff(release_acquire: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("nanosleep_backoff", Grid::new(2, 1));
    let data = k.global::<u32>("data", 1);
    let flag = k.global::<u32>("flag", 1);
    let (store_order, load_order) = if release_acquire {
        (MemoryOrder::Release, MemoryOrder::Acquire)
    } else {
        (MemoryOrder::Relaxed, MemoryOrder::Relaxed)
    };
    let body = threads(move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 42);
            t.atomic_store(&flag, 0, 1, store_order, MemoryScope::Device);
        } else {
            let mut ns = 32;
            while t.atomic_load(&flag, 0, load_order, MemoryScope::Device) == 0 {
                t.nanosleep(ns);
                ns = (ns * 2).min(1024);
            }
            scopecheck_model::check!(t.load(&data, 0) == 42);
        }
    });
    (k, body)
}
