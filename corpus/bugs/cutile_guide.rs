//! The cuTile memory-model guide (`cutile-memory-model.zh.md`): its four examples and its three
//! "common mistakes", as tile kernels (cuTile has no thread ids: a block is one logical thread
//! whose tile loads and stores touch one element each).

use super::{tiles, Body, BugCase, Expect, Explore};
use scopecheck_model::check;
use scopecheck_model::kernel::*;
use scopecheck_model::scope::Scope;

const GUIDE: &str = "cutile-memory-model.zh.md";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "cutile/producer-consumer-device",
            source: GUIDE,
            about:
                "Example 1: block 0 stores a tile, then a RELEASE flag at DEVICE scope; block 1 \
                    ACQUIREs the flag and reads the tile. Synchronized.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || {
                producer_consumer(
                    MemoryOrder::Release,
                    MemoryScope::Device,
                    MemoryScope::Device,
                )
            },
        },
        BugCase {
            name: "cutile/producer-consumer-block-scope",
            source: GUIDE,
            about: "Example 1 with BLOCK scope across blocks: the flag accesses are not morally \
                    strong, so nothing synchronizes; DEVICE scope fixes it.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })),
            explore: Explore::Exhaustive,
            build: || {
                producer_consumer(MemoryOrder::Release, MemoryScope::Block, MemoryScope::Block)
            },
        },
        BugCase {
            name: "cutile/mistake-1-relaxed-flag",
            source: GUIDE,
            about: "Common mistake 1: the flag is stored RELAXED, which orders nothing, so the \
                    consumer's tile load races with the producer's tile store.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || {
                producer_consumer(
                    MemoryOrder::Relaxed,
                    MemoryScope::Device,
                    MemoryScope::Device,
                )
            },
        },
        BugCase {
            name: "cutile/mistake-2-scope-mismatch",
            source: GUIDE,
            about: "Common mistake 2: RELEASE at DEVICE scope, ACQUIRE at BLOCK scope in another \
                    block: the load's scope does not include the producer, so the pair is not \
                    morally strong; DEVICE on both sides fixes it.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })),
            explore: Explore::Exhaustive,
            build: || {
                producer_consumer(
                    MemoryOrder::Release,
                    MemoryScope::Device,
                    MemoryScope::Block,
                )
            },
        },
        BugCase {
            name: "cutile/mistake-3-rmw-acquire-only",
            source: GUIDE,
            about:
                "Common mistake 3: publishing with an atomic_add that only ACQUIREs; it releases \
                    nothing, so the consumer's read of the data races.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || rmw_publish(MemoryOrder::Acquire),
        },
        BugCase {
            name: "cutile/mistake-3-rmw-acq-rel-fixed",
            source: GUIDE,
            about: "Common mistake 3, fixed: the publishing atomic_add is ACQ_REL.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || rmw_publish(MemoryOrder::AcqRel),
        },
        BugCase {
            name: "cutile/relaxed-counter",
            source: GUIDE,
            about: "The RELAXED section's counter: RMWs are atomic at any order, so three blocks \
                    always count to three.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: relaxed_counter,
        },
        BugCase {
            name: "cutile/atomic-counter-with-sync",
            source: GUIDE,
            about:
                "Example 2: `prev_ready >= 0` is always true (the flags start at 0 and the first \
                    slot publishes 0), so a block reads the previous slot whether or not it was \
                    published: a data race.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || atomic_counter(false),
        },
        BugCase {
            name: "cutile/atomic-counter-with-sync-fixed",
            source: GUIDE,
            about:
                "Example 2, fixed: slot i publishes i + 1 and a block reads slot i - 1 only when \
                    it sees exactly i there.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || atomic_counter(true),
        },
        BugCase {
            name: "cutile/spinlock-block-scope",
            source: GUIDE,
            about:
                "Example 3's spinlock (ACQ_REL exchange, RELEASE store) at BLOCK scope, taken by \
                    two blocks: BLOCK scope cannot order different blocks' critical sections. \
                    (Launched as one block, as the guide does, nothing contends for the lock.)",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })),
            explore: Explore::Exhaustive,
            build: || spinlock(MemoryScope::Block),
        },
        BugCase {
            name: "cutile/spinlock-device-scope",
            source: GUIDE,
            about:
                "Example 3's spinlock at DEVICE scope: mutual exclusion across blocks, and every \
                    increment is kept.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || spinlock(MemoryScope::Device),
        },
        BugCase {
            name: "cutile/double-buffering",
            source: GUIDE,
            about:
                "Example 4: block 0 flips the DEVICE switch flag in the same launch in which the \
                    other blocks read it to pick their input buffer; a block that reads after the \
                    flip computes from the buffer that holds no input (a race on the flag's value, \
                    shown as a broken postcondition).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Assertion)),
            explore: Explore::Exhaustive,
            build: || double_buffering(true),
        },
        BugCase {
            name: "cutile/double-buffering-fixed",
            source: GUIDE,
            about: "Example 4, fixed: the flag is flipped by the host between launches, so every \
                    block of a launch reads the same value.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || double_buffering(false),
        },
    ]
}

/// Block 0 stores a data tile and raises the flag; block 1 reads the tile once it sees the flag.
fn producer_consumer(
    publish: MemoryOrder,
    store_scope: MemoryScope,
    load_scope: MemoryScope,
) -> (Kernel, Body) {
    let mut k = Kernel::new("producer_consumer", Grid::tiles(2));
    let data = k.global::<f32>("data", 2);
    let flag = k.global::<i32>("ready_flag", 1);
    let body = tiles(move |ct| {
        if ct.bid() == 0 {
            ct.store(&data, 0, &[1.0, 2.0]);
            ct.atomic_store(&flag, 0, 1, publish, store_scope);
        } else if ct.atomic_load(&flag, 0, MemoryOrder::Acquire, load_scope) == 1 {
            let tile = ct.load(&data, 0, 2);
            check!(tile == [1.0, 2.0]);
        }
    });
    (k, body)
}

/// Publishing data with an RMW of the given order instead of a release store.
fn rmw_publish(order: MemoryOrder) -> (Kernel, Body) {
    let mut k = Kernel::new("rmw_publish", Grid::tiles(2));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    let body = tiles(move |ct| {
        if ct.bid() == 0 {
            ct.store(&data, 0, &[42]);
            ct.atomic_add(&flag, 0, 1, order, MemoryScope::Device);
        } else if ct.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 1 {
            check!(ct.load(&data, 0, 1) == [42]);
        }
    });
    (k, body)
}

fn relaxed_counter() -> (Kernel, Body) {
    let mut k = Kernel::new("relaxed_counter", Grid::tiles(3));
    let counter = k.global::<i32>("counter", 1);
    k.postcondition("counter == 3", move |m| m.get(&counter, 0) == 3);
    let body = tiles(move |ct| {
        ct.atomic_add(&counter, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
    });
    (k, body)
}

/// Each block takes a slot with an ACQ_REL atomic_add, fills it, publishes it with a RELEASE
/// store, and reads the previous slot if the previous block published it.
fn atomic_counter(fixed: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("atomic_counter_with_sync", Grid::tiles(2));
    let counter = k.global::<i32>("counter", 1);
    let data = k.global::<i32>("data_buffer", 2);
    let ready = k.global::<i32>("ready", 2);
    let body = tiles(move |ct| {
        let my = ct.atomic_add(&counter, 0, 1, MemoryOrder::AcqRel, MemoryScope::Device);
        let slot = my as usize;
        ct.store(&data, slot, &[my + 10]);
        let published = if fixed { my + 1 } else { my };
        ct.atomic_store(
            &ready,
            slot,
            published,
            MemoryOrder::Release,
            MemoryScope::Device,
        );
        if my > 0 {
            let prev_ready =
                ct.atomic_load(&ready, slot - 1, MemoryOrder::Acquire, MemoryScope::Device);
            let prev_published = if fixed {
                prev_ready == my
            } else {
                prev_ready >= 0
            };
            if prev_published {
                check!(ct.load(&data, slot - 1, 1) == [my - 1 + 10]);
            }
        }
    });
    (k, body)
}

/// Two blocks increment a counter under the guide's spinlock.
fn spinlock(scope: MemoryScope) -> (Kernel, Body) {
    let mut k = Kernel::new("spinlock", Grid::tiles(2));
    let lock = k.global::<i32>("lock", 1);
    let shared = k.global::<i32>("shared_data", 1);
    k.postcondition("shared_data == 2", move |m| m.get(&shared, 0) == 2);
    let body = tiles(move |ct| {
        while ct.atomic_exchange(&lock, 0, 1, MemoryOrder::AcqRel, scope) != 0 {
            ct.spin_loop();
        }
        let v = ct.load(&shared, 0, 1)[0];
        ct.store(&shared, 0, &[v + 1]);
        ct.atomic_store(&lock, 0, 0, MemoryOrder::Release, scope);
    });
    (k, body)
}

/// One launch (iteration 0) of the guide's double-buffering kernel on two blocks.
fn double_buffering(flip_in_kernel: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("double_buffering", Grid::tiles(2));
    let a_init = [1.0f32, 2.0, 3.0, 4.0];
    let buffer_a = k.global_from::<f32>("buffer_a", &a_init);
    let buffer_b = k.global::<f32>("buffer_b", 4);
    let switch_flag = k.global::<i32>("switch_flag", 1);
    let output = k.global::<f32>("output", 4);
    k.postcondition("output == buffer_a * 2", move |m| {
        (0..4).all(|i| m.get(&output, i) == a_init[i] * 2.0)
    });
    let body = tiles(move |ct| {
        let bid = ct.bid() as usize;
        let current = ct.atomic_load(&switch_flag, 0, MemoryOrder::Acquire, MemoryScope::Device);
        let (from, to, next) = if current == 0 {
            (buffer_a, buffer_b, 1)
        } else {
            (buffer_b, buffer_a, 0)
        };
        let result: Vec<f32> = ct.load(&from, bid, 2).iter().map(|x| x * 2.0).collect();
        ct.store(&to, bid, &result);
        if flip_in_kernel && bid == 0 {
            ct.atomic_store(
                &switch_flag,
                0,
                next,
                MemoryOrder::Release,
                MemoryScope::Device,
            );
        }
        let out = ct.load(&to, bid, 2);
        ct.store(&output, bid, &out);
    });
    (k, body)
}
