//! The kernel API's CUDA operations beyond the seed documents, each with a buggy and a fixed
//! kernel: warp reductions (shared memory with and without `__syncwarp`, shuffles), a
//! warp-specialized producer/consumer on named barriers, an `atomicInc` ticket ring, an
//! `ld.global.nc` read of data the kernel writes, a `cp.async` double buffer with and without
//! `wait_group`, and 32-bit halves of a 64-bit word with and without a barrier (mixed sizes). The semantics (and the specification
//! sentences they rest on) are in `model/src/runtime/{warp,barriers,noncoherent,cp_async,mixed_size}.rs` and
//! `model/src/kernel/atomics.rs`.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::kernel::*;

const WARPS: &str =
    "CUDA Programming Guide: Synchronization Functions (__syncwarp), Warp Shuffle Functions";
const BAR: &str = "PTX ISA: bar, barrier";
const ATOM: &str = "PTX ISA: atom (inc)";
const NC: &str = "PTX ISA: ld.global.nc; CUDA Programming Guide: read-only data cache";
const CP_ASYNC: &str = "PTX ISA: cp.async, cp.async.commit_group, cp.async.wait_group";
const MIXED: &str = "PTX ISA: Memory Consistency Model (overlapping operations, data races)";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "warp/reduction-with-syncwarp",
            source: WARPS,
            about: "A warp sums four values through shared memory (two per lane), halving the \
                    active lanes each step with a __syncwarp after every step: each step reads \
                    what the previous one wrote.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || shared_warp_reduction(true),
        },
        BugCase {
            name: "warp/reduction-missing-syncwarp",
            source: WARPS,
            about: "The same reduction written for lock-step warps, without __syncwarp: under \
                    independent thread scheduling a lane reads its neighbour's slot before the \
                    neighbour wrote it.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || shared_warp_reduction(false),
        },
        BugCase {
            name: "warp/reduction-shfl-xor",
            source: WARPS,
            about: "The butterfly reduction with __shfl_xor_sync over the full mask: values move \
                    between registers, every lane ends with the sum.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: shuffle_reduction,
        },
        BugCase {
            name: "named-barrier/producer-consumer",
            source: BAR,
            about: "Warp-specialized: the producer warp fills a shared buffer and arrives at \
                    barrier 1 (bar.arrive 1, 64); the consumer warp waits there (bar.sync 1, \
                    64) and reads it (one lane per warp in the model, counts scaled alike).",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || producer_consumer(Handoff::ArriveAfterWrites),
        },
        BugCase {
            name: "named-barrier/arrive-before-writes",
            source: BAR,
            about: "The producer warp arrives before it writes the buffer: the consumers pass the \
                    barrier and read slots the producers are still writing.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || producer_consumer(Handoff::ArriveBeforeWrites),
        },
        BugCase {
            name: "named-barrier/count-mismatch",
            source: BAR,
            about: "The consumers wait with a thread count of one warp while the producers \
                    arrive with two: either an instance sees both counts (barrier misuse) or the consumers \
                    complete it alone and read unwritten slots (a race).",
            expect: Expect::FailsWith(&[FailureKind::BarrierMisuse, FailureKind::DataRace]),
            explore: Explore::Exhaustive,
            build: || producer_consumer(Handoff::CountMismatch),
        },
        BugCase {
            name: "atomics/atomic-inc-ticket-ring",
            source: ATOM,
            about: "Three threads take tickets on a ring of two slots with atomicInc(&next, 1): \
                    the ticket wraps 0, 1, 0 and every slot is counted.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || ticket_ring(1),
        },
        BugCase {
            name: "atomics/atomic-inc-ticket-wrap-off-by-one",
            source: ATOM,
            about: "The same ring with atomicInc(&next, 2): the bound is the largest ticket, not \
                    the ring size, so the third thread gets ticket 2, past the ring.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Assertion)),
            explore: Explore::Exhaustive,
            build: || ticket_ring(2),
        },
        BugCase {
            name: "ldg/nc-read-of-data-written-in-kernel",
            source: NC,
            about: "Block 1 waits for block 0's release flag and then reads block 0's data with \
                    ld.global.nc: the flag orders the accesses, but the non-coherent cache may \
                    still hold the old line.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::NonCoherentRead)),
            explore: Explore::Exhaustive,
            build: || nc_after_flag(true),
        },
        BugCase {
            name: "ldg/coherent-read-after-flag",
            source: NC,
            about: "The same hand-off read with a plain ld.global: the acquire of the flag makes \
                    block 0's write visible.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || nc_after_flag(false),
        },
        BugCase {
            name: "cp-async/double-buffer-with-wait-group",
            source: CP_ASYNC,
            about: "Thread 0 streams two stages into a double buffer in shared memory with \
                    cp.async, one commit group per stage, and thread 1 sums them: before each \
                    stage, thread 0 waits with wait_group(1) (stage 0 complete, stage 1 may still \
                    be in flight) or wait_group(0), then both sync the block.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || cp_async_double_buffer(true),
        },
        BugCase {
            name: "cp-async/double-buffer-missing-wait-group",
            source: CP_ASYNC,
            about: "The same double buffer without the wait_group calls: __syncthreads orders the \
                    threads but not the asynchronous copies, so thread 1's read of stage 0 races \
                    with the copy still writing it.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || cp_async_double_buffer(false),
        },
        BugCase {
            name: "mixed-size/halves-then-word-after-syncthreads",
            source: MIXED,
            about: "Two threads each write one 32-bit half of a 64-bit word; after \
                    __syncthreads, thread 0 reads the whole word and finds both halves.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || mixed_size(true),
        },
        BugCase {
            name: "mixed-size/half-store-races-word-load",
            source: MIXED,
            about: "The same halves without the barrier: thread 0's 64-bit load overlaps thread \
                    1's unordered 32-bit store of the high half, a data race between a narrow \
                    and a wide access.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || mixed_size(false),
        },
    ]
}

/// One warp of two lanes (a model of 32) reduces four values through shared memory: each lane
/// adds two, then the tree halves the active lanes.
fn shared_warp_reduction(syncwarp: bool) -> (Kernel, Body) {
    const LANES: usize = 2;
    let mut k = Kernel::new(
        "warp_reduce_smem",
        Grid::new(1, LANES as u32).with_warp_size(LANES as u32),
    );
    let input = k.global_from::<i32>("input", &[1, 2, 3, 4]);
    let s = k.shared::<i32>("s", LANES);
    let out = k.global::<i32>("out", 1);
    k.postcondition("out == 1 + 2 + 3 + 4", move |m| m.get(&out, 0) == 10);
    let body = threads(move |t| {
        let lane = t.lane() as usize;
        let v = t.load(&input, lane) + t.load(&input, lane + LANES);
        t.store(&s, lane, v);
        if syncwarp {
            t.syncwarp(t.warp_mask());
        }
        let mut offset = LANES / 2;
        while offset > 0 {
            if lane < offset {
                let sum = t.load(&s, lane) + t.load(&s, lane + offset);
                t.store(&s, lane, sum);
            }
            if syncwarp {
                t.syncwarp(t.warp_mask());
            }
            offset /= 2;
        }
        if lane == 0 {
            let total = t.load(&s, 0);
            t.store(&out, 0, total);
        }
    });
    (k, body)
}

fn shuffle_reduction() -> (Kernel, Body) {
    const LANES: u32 = 2;
    let mut k = Kernel::new(
        "warp_reduce_shfl",
        Grid::new(1, LANES).with_warp_size(LANES),
    );
    let out = k.global::<i32>("out", LANES as usize);
    k.postcondition("every lane has the sum", move |m| {
        (0..LANES as usize).all(|i| m.get(&out, i) == 3)
    });
    let body = threads(move |t| {
        let mut v = t.lane() as i32 + 1;
        let mut offset = LANES / 2;
        while offset > 0 {
            v += t.shfl_xor_sync(t.warp_mask(), v, offset);
            offset /= 2;
        }
        t.store(&out, t.lane() as usize, v);
    });
    (k, body)
}

#[derive(Copy, Clone, PartialEq)]
enum Handoff {
    ArriveAfterWrites,
    ArriveBeforeWrites,
    CountMismatch,
}

/// Two warps of one lane each (a model of two 32-lane warps, counts scaled alike): warp 0
/// produces two slots of `buf`, warp 1 consumes them through barrier 1.
fn producer_consumer(handoff: Handoff) -> (Kernel, Body) {
    let mut k = Kernel::new("warp_specialized", Grid::new(1, 2).with_warp_size(1));
    let buf = k.shared::<i32>("buf", 2);
    let out = k.global::<i32>("out", 1);
    k.postcondition("out == 10 + 11", move |m| m.get(&out, 0) == 21);
    let body = threads(move |t| {
        if t.warp() == 0 {
            if handoff == Handoff::ArriveBeforeWrites {
                t.bar_arrive(1, 2);
            }
            t.store(&buf, 0, 10);
            t.store(&buf, 1, 11);
            if handoff != Handoff::ArriveBeforeWrites {
                t.bar_arrive(1, 2);
            }
        } else {
            let count = if handoff == Handoff::CountMismatch {
                1
            } else {
                2
            };
            t.bar_sync(1, count);
            let v = t.load(&buf, 0) + t.load(&buf, 1);
            t.store(&out, 0, v);
        }
    });
    (k, body)
}

/// Three threads count themselves into a ring of two slots by `atomicInc(&next, bound)`.
fn ticket_ring(bound: u32) -> (Kernel, Body) {
    let mut k = Kernel::new("ticket_ring", Grid::new(1, 3));
    let next = k.global::<u32>("next", 1);
    let slots = k.global::<u32>("slots", 2);
    k.postcondition("slots == [2, 1]", move |m| {
        m.get(&slots, 0) == 2 && m.get(&slots, 1) == 1
    });
    let body = threads(move |t| {
        let ticket = t.atomic_inc(&next, 0, bound, MemoryOrder::Relaxed, MemoryScope::Device);
        t.atomic_add(
            &slots,
            ticket as usize,
            1,
            MemoryOrder::Relaxed,
            MemoryScope::Device,
        );
    });
    (k, body)
}

/// Block 0 writes `data` and releases `flag`; block 1 acquires it and reads `data`.
fn nc_after_flag(non_coherent: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("ldg_after_flag", Grid::new(2, 1));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    let body = threads(move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 42);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
        } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 1 {
            let v = if non_coherent {
                t.load_nc(&data, 0)
            } else {
                t.load(&data, 0)
            };
            scopecheck_model::check!(v == 42);
        }
    });
    (k, body)
}

/// Two threads, two stages of one element: thread 0 copies `src[s]` into `tile[s]` by cp.async,
/// one group per stage; thread 1 adds stage `s` into `sums[s]` once the block synced after
/// thread 0's wait for it. (PTX ISA, *cp.async.wait_group*: it waits "till only N or fewer of the
/// most recent cp.async-groups are pending and all the prior cp.async-groups committed by the
/// executing thread are complete".)
fn cp_async_double_buffer(wait: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("cp_async_double_buffer", Grid::new(1, 2));
    k.bulk_copies();
    let src = k.global_from::<i32>("src", &[3, 30]);
    let sums = k.global::<i32>("sums", 2);
    let tile = k.shared::<i32>("tile", 2);
    k.postcondition("sums == [3, 30]", move |m| {
        m.get(&sums, 0) == 3 && m.get(&sums, 1) == 30
    });
    let body = threads(move |t| {
        let producer = t.tid() == 0;
        if producer {
            for stage in 0..2 {
                t.cp_async(&tile, stage, &src, stage, 4);
                t.cp_async_commit_group();
            }
        }
        for stage in 0..2 {
            if producer && wait {
                // Stage 0: the newest group (stage 1) may still be pending.
                t.cp_async_wait_group(1 - stage);
            }
            t.syncthreads();
            if !producer {
                let v = t.load(&tile, stage);
                t.store(&sums, stage, v);
            }
        }
    });
    (k, body)
}

/// A 64-bit word as two 32-bit halves: thread `i` stores half `i`, thread 0 then loads the word.
fn mixed_size(sync: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("mixed_size", Grid::new(1, 2));
    let halves = k.global::<u32>("halves", 2);
    let word = k.global::<u64>("word", 1);
    k.postcondition("word == 2 << 32 | 1", move |m| {
        m.get(&word, 0) == 2 << 32 | 1
    });
    let body = threads(move |t| {
        t.store(&halves, t.tid() as usize, 1 + t.tid());
        if sync {
            t.syncthreads();
        }
        if t.tid() == 0 {
            let w = t.load_wide(&halves, 0);
            t.store(&word, 0, w);
        }
    });
    (k, body)
}
