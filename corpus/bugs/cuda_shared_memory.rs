//! The CUDA shared-memory chapter (`cuda-shared-memory-chapter.zh.txt`): a block reduction with
//! and without its `__syncthreads`, `__syncthreads` under divergent control flow, bank conflicts
//! and padding, and `__threadfence_block` versus `__threadfence` across blocks.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::kernel::*;
use scopecheck_model::scope::Scope;

const CHAPTER: &str = "cuda-shared-memory-chapter.zh.txt";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "cuda/reduction-with-syncthreads",
            source: CHAPTER,
            about: "A shared-memory tree reduction with a __syncthreads after every step: each \
                    step reads what the previous one wrote, in order.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || reduction(Barriers::EveryStep),
        },
        BugCase {
            name: "cuda/reduction-missing-syncthreads",
            source: CHAPTER,
            about: "The same reduction without the __syncthreads after the loads into shared \
                    memory: the first step reads a neighbour's slot that may not be written yet.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || reduction(Barriers::MissingFirst),
        },
        BugCase {
            name: "cuda/syncthreads-in-divergent-branch",
            source: CHAPTER,
            about: "The reduction with its __syncthreads moved inside `if (tid < s)`: only the \
                    active half of the block reaches it.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::BarrierDivergence)),
            explore: Explore::Exhaustive,
            build: || reduction(Barriers::InsideBranch),
        },
        BugCase {
            name: "cuda/syncthreads-in-both-branches",
            source: CHAPTER,
            about: "The chapter's `if (tid % 2 == 0) __syncthreads(); else __syncthreads();`: two \
                    different barriers, each reached by half of the block.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::BarrierDivergence)),
            explore: Explore::Exhaustive,
            build: both_branches,
        },
        BugCase {
            name: "cuda/bank-conflict-column-access",
            source: CHAPTER,
            about: "A warp reads a column of a 32 x 32 float tile in shared memory: every row \
                    starts in bank 0, a 32-way conflict.",
            expect: Expect::BankConflict(32),
            explore: Explore::Sampled { iterations: 5 },
            build: || column_access(32),
        },
        BugCase {
            name: "cuda/bank-conflict-column-access-padded",
            source: CHAPTER,
            about: "The same tile padded to 32 x 33: one word of padding per row spreads the \
                    column over all 32 banks.",
            expect: Expect::BankConflict(1),
            explore: Explore::Sampled { iterations: 5 },
            build: || column_access(33),
        },
        BugCase {
            name: "cuda/bank-conflict-figure-5-10",
            source: CHAPTER,
            about:
                "Figure 5-10: five threads read words 0, 1, 97, 129 and 34; words 1, 97 and 129 \
                    share bank 1, a 3-way conflict.",
            expect: Expect::BankConflict(3),
            explore: Explore::Exhaustive,
            build: figure_5_10,
        },
        BugCase {
            name: "cuda/threadfence-block-across-blocks",
            source: CHAPTER,
            about: "Message passing between blocks through a volatile (relaxed) flag with \
                    __threadfence_block on both sides: a block-scope fence orders nothing for \
                    another block; __threadfence (device scope) is needed.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })),
            explore: Explore::Exhaustive,
            build: || fenced_message_passing(MemoryScope::Block),
        },
        BugCase {
            name: "cuda/threadfence-across-blocks",
            source: CHAPTER,
            about: "The same with __threadfence on both sides: the fences synchronize through the \
                    flag and the data is read after it was written.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || fenced_message_passing(MemoryScope::Device),
        },
    ]
}

#[derive(Copy, Clone, PartialEq)]
enum Barriers {
    EveryStep,
    MissingFirst,
    InsideBranch,
}

/// Two threads sum four inputs: each adds two into `sdata[tid]`, then a tree reduction
/// halves the active threads each step.
fn reduction(barriers: Barriers) -> (Kernel, Body) {
    const THREADS: usize = 2;
    let mut k = Kernel::new("reduce", Grid::new(1, THREADS as u32));
    let values: Vec<i32> = (1..=2 * THREADS as i32).collect();
    let total: i32 = values.iter().sum();
    let input = k.global_from::<i32>("input", &values);
    let out = k.global::<i32>("out", 1);
    let sdata = k.shared::<i32>("sdata", THREADS);
    k.postcondition("out == sum(input)", move |m| m.get(&out, 0) == total);
    let body = threads(move |t| {
        let tid = t.tid() as usize;
        let v = t.load(&input, tid) + t.load(&input, tid + THREADS);
        t.store(&sdata, tid, v);
        if barriers != Barriers::MissingFirst {
            t.syncthreads();
        }
        let mut s = THREADS / 2;
        while s > 0 {
            if tid < s {
                let sum = t.load(&sdata, tid) + t.load(&sdata, tid + s);
                t.store(&sdata, tid, sum);
                if barriers == Barriers::InsideBranch {
                    t.syncthreads();
                }
            }
            if barriers != Barriers::InsideBranch {
                t.syncthreads();
            }
            s /= 2;
        }
        if tid == 0 {
            let sum = t.load(&sdata, 0);
            t.store(&out, 0, sum);
        }
    });
    (k, body)
}

fn both_branches() -> (Kernel, Body) {
    let k = Kernel::new("syncthreads_both_branches", Grid::new(1, 2));
    // The branches look alike but are two barrier sites: that is the bug.
    #[allow(clippy::if_same_then_else)]
    let body = threads(|t| {
        if t.tid() % 2 == 0 {
            t.syncthreads();
        } else {
            t.syncthreads();
        }
    });
    (k, body)
}

/// One warp; thread `i` writes and reads word 0 of row `i` of a `32 × pitch` float tile.
fn column_access(pitch: usize) -> (Kernel, Body) {
    let mut k = Kernel::new("column_access", Grid::new(1, 32));
    let tile = k.shared::<f32>("tile", 32 * pitch);
    let out = k.global::<f32>("out", 32);
    let body = threads(move |t| {
        let i = t.tid() as usize;
        t.store(&tile, i * pitch, i as f32);
        let v = t.load(&tile, i * pitch);
        t.store(&out, i, v);
    });
    (k, body)
}

fn figure_5_10() -> (Kernel, Body) {
    const WORDS: [usize; 5] = [0, 1, 97, 129, 34];
    let mut k = Kernel::new("figure_5_10", Grid::new(1, 5));
    let smem = k.shared::<i32>("smem", 256);
    let body = threads(move |t| {
        let _ = t.load(&smem, WORDS[t.tid() as usize]);
    });
    (k, body)
}

/// Block 0 writes data, fences, raises a relaxed flag; block 1 sees the flag, fences, reads.
fn fenced_message_passing(fence_scope: MemoryScope) -> (Kernel, Body) {
    let mut k = Kernel::new("threadfence_message_passing", Grid::new(2, 1));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    let body = threads(move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 42);
            t.fence_sc(fence_scope);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Relaxed, MemoryScope::System);
        } else if t.atomic_load(&flag, 0, MemoryOrder::Relaxed, MemoryScope::System) == 1 {
            t.fence_sc(fence_scope);
            scopecheck_model::check!(t.load(&data, 0) == 42);
        }
    });
    (k, body)
}
