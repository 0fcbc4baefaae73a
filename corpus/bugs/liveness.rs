//! Hangs a GPU's scheduling makes possible, each with its fixed version: an inter-block barrier
//! in a grid larger than the GPU keeps resident, a named barrier that an early-exit path leaves
//! one arrival short, and a flag spin whose setter sits in a block that only starts once the
//! spinner's block has finished. Each hang is proven (every live thread blocked for good) and
//! reported with its lasso; the semantics are in `model/src/runtime/{spin,machine}.rs`.
//!
//! Occupancy-bound execution (*CUDA Programming Guide*, Hardware Implementation: "the blocks of
//! a grid are distributed among the multiprocessors […] as thread blocks terminate, new blocks
//! are launched on the vacated multiprocessors"): a block that has not started starts only when
//! a resident one finishes, so a resident block that waits for it waits forever.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::kernel::*;

const OCCUPANCY: &str = "CUDA Programming Guide: Hardware Implementation (blocks launched as \
                         resident blocks terminate); Grid::resident_blocks";
const BAR: &str = "PTX ISA: bar, barrier (bar.sync/bar.arrive with a thread count)";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "liveness/grid-barrier-beyond-residency",
            source: OCCUPANCY,
            about: "A persistent kernel's software grid barrier (every block bumps a counter, \
                    then spins until all 8 have) launched with 8 blocks while the GPU keeps 4 \
                    resident: the 4 resident blocks spin forever, the other 4 never start.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Exhaustive,
            build: || grid_barrier(Grid::new(8, 1).resident_blocks(4)),
        },
        BugCase {
            name: "liveness/grid-barrier-all-resident",
            source: OCCUPANCY,
            about: "The same grid barrier in a grid the GPU keeps resident as a whole (as a \
                    cooperative launch guarantees), 3 blocks: every block arrives and every \
                    spinner sees the count reach 3. (Exhaustive search grows past a million \
                    executions from 4 blocks on; the 8-block case below is sampled.)",
            expect: Expect::Verdict(Verdict::Pass),
            // Loom is exhaustive here too but its coarser reduction runs 316,473 executions
            // (13 minutes on 2 loaded cores) where the DFS needs 279.
            explore: Explore::Dfs,
            build: || grid_barrier(Grid::new(3, 1).resident_blocks(3)),
        },
        BugCase {
            name: "liveness/grid-barrier-8-blocks-all-resident",
            source: OCCUPANCY,
            about: "The 8-block grid barrier with all 8 blocks resident: no block waits for one \
                    that has not started (a bounded result: PCT-scheduled executions).",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Sampled { iterations: 200 },
            build: || grid_barrier(Grid::new(8, 1).resident_blocks(8)),
        },
        BugCase {
            name: "liveness/named-barrier-early-exit-arrives",
            source: BAR,
            about: "Two warps meet at barrier 1 (bar.sync 1, 2) once per round, three rounds; the \
                    producer warp has one item, and its early-exit path arrives (bar.arrive 1, 2) \
                    for the two rounds left where the consumer syncs. Arrivals do not wait: both \
                    can complete one instance, and the consumer's last bar.sync then counts 1 of \
                    its 2 threads forever.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Exhaustive,
            build: || early_exit(EarlyExit::Arrive),
        },
        BugCase {
            name: "liveness/named-barrier-early-exit-syncs",
            source: BAR,
            about: "The early-exit path syncs (bar.sync 1, 2) for each round left: each of its \
                    arrivals waits for the consumer's, so every instance counts one thread of \
                    each warp.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || early_exit(EarlyExit::Sync),
        },
        BugCase {
            name: "liveness/flag-spin-setter-in-later-block",
            source: OCCUPANCY,
            about: "Block 0 spins on a flag that block 1 sets, with one block resident at a time: \
                    block 1 starts only once block 0 has finished, which it never does. (With \
                    every block resident it terminates: the hang is occupancy-bound.)",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Exhaustive,
            build: || flag_spin(Waiter::LowerBlock),
        },
        BugCase {
            name: "liveness/flag-spin-setter-in-earlier-block",
            source: OCCUPANCY,
            about: "The dependency the other way: block 1 spins on the flag block 0 sets. Block 0 \
                    needs no other block, finishes, and block 1 starts and sees the flag.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || flag_spin(Waiter::HigherBlock),
        },
    ]
}

/// Every block adds itself to `arrived`, then spins until every block has.
fn grid_barrier(grid: Grid) -> (Kernel, Body) {
    let blocks = grid.blocks as i32;
    let mut k = Kernel::new("grid_barrier", grid);
    let arrived = k.global::<i32>("arrived", 1);
    k.postcondition("every block arrived", move |m| m.get(&arrived, 0) == blocks);
    let body = threads(move |t| {
        t.atomic_add(&arrived, 0, 1, MemoryOrder::AcqRel, MemoryScope::Device);
        while t.atomic_load(&arrived, 0, MemoryOrder::Acquire, MemoryScope::Device) != blocks {
            t.spin_loop();
        }
    });
    (k, body)
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum EarlyExit {
    /// `bar.arrive` for each round left, then exit.
    Arrive,
    /// `bar.sync` for each round left, then exit.
    Sync,
}

/// Warp 0 consumes one slot per round, each round behind barrier 1; warp 1 fills only the first
/// slot, then leaves early.
fn early_exit(exit: EarlyExit) -> (Kernel, Body) {
    const ROUNDS: usize = 3;
    let mut k = Kernel::new("early_exit", Grid::new(1, 2).with_warp_size(1));
    let buf = k.shared::<i32>("buf", ROUNDS);
    let out = k.global::<i32>("out", 1);
    k.postcondition("out == 7", move |m| m.get(&out, 0) == 7);
    let body = threads(move |t| {
        if t.warp() == 1 {
            t.store(&buf, 0, 7);
            t.bar_sync(1, 2);
            // Nothing left to produce: leave, accounting for the rounds the consumer still has.
            for _ in 1..ROUNDS {
                match exit {
                    EarlyExit::Arrive => t.bar_arrive(1, 2),
                    EarlyExit::Sync => t.bar_sync(1, 2),
                }
            }
            return;
        }
        let mut sum = 0;
        for round in 0..ROUNDS {
            t.bar_sync(1, 2);
            sum += t.load(&buf, round);
        }
        t.store(&out, 0, sum);
    });
    (k, body)
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Waiter {
    /// Block 0 waits for block 1.
    LowerBlock,
    /// Block 1 waits for block 0.
    HigherBlock,
}

/// One block publishes `data` behind `flag`; the other spins on `flag`, then reads `data`. One
/// block resident at a time.
fn flag_spin(waiter: Waiter) -> (Kernel, Body) {
    let mut k = Kernel::new("flag_spin", Grid::new(2, 1).resident_blocks(1));
    let flag = k.global::<i32>("flag", 1);
    let data = k.global::<i32>("data", 1);
    let out = k.global::<i32>("out", 1);
    k.postcondition("out == 42", move |m| m.get(&out, 0) == 42);
    let spinner = match waiter {
        Waiter::LowerBlock => 0,
        Waiter::HigherBlock => 1,
    };
    let body = threads(move |t| {
        if t.bid() == spinner {
            while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 0 {
                t.spin_loop();
            }
            let v = t.load(&data, 0);
            t.store(&out, 0, v);
        } else {
            t.store(&data, 0, 42);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
        }
    });
    (k, body)
}
