//! The spin-loop await reduction against the unreduced search, on generated polling loops over
//! several locations (`runtime/spin.rs`): a consumer reads some locations in one `spin_loop()`
//! iteration, in a generated order and with generated orderings, and leaves when the last one
//! (the flag) is set, asserting that the earlier ones are; producers write the locations in a
//! generated order, the flag with a generated ordering. Whether a stale read is possible depends
//! on the orderings (PTX: a release write and an acquire read of it synchronize; relaxed ones
//! do not), so some kernels are bugs and some are not: the reduced DFS must give the verdict
//! of the unreduced one on every kernel, and a bug must also be reported by a default check of
//! the reduced DFS (a bounded possible hang does not hide it).

use crate::search_support::Gen;
use scopecheck_model::check;
use scopecheck_model::engine::Dfs;
use scopecheck_model::kernel::*;
use std::sync::Arc;

/// One generated polling kernel.
#[derive(Clone, Debug)]
struct Polling {
    /// Data locations the consumer reads before the flag, in its reading order.
    data: Vec<usize>,
    /// How many of them it reads before the flag, each iteration; the others after it, once
    /// it has seen the flag set (only those are ordered by an acquire flag read).
    before: usize,
    acquire: bool,
    release: bool,
    /// The producer's writing order of the data locations (the flag last).
    writes: Vec<usize>,
    /// The consumer announces its first failed iteration (a store) and the producer waits for
    /// it: the failed iteration writes.
    announce: bool,
    /// Data location `d` is written by producer `writer[d]` (block 1 or 2).
    writer: Vec<u32>,
}

fn generate(seed: u64) -> Polling {
    let mut g = Gen(seed);
    let n = 1 + g.below(2) as usize;
    let mut data: Vec<usize> = (0..n).collect();
    let mut writes = data.clone();
    for v in [&mut data, &mut writes] {
        for i in (1..v.len()).rev() {
            v.swap(i, g.below(i as u64 + 1) as usize);
        }
    }
    let two_producers = g.below(4) == 0;
    // One kernel in three is the correct pattern (every data read after an acquire read of a
    // flag written by a release after the data), so that passing kernels are compared too;
    // the others are free, and mostly bugs.
    let synchronized = g.below(3) == 0;
    Polling {
        before: if synchronized {
            0
        } else {
            g.below(n as u64 + 1) as usize
        },
        writer: (0..n)
            .map(|_| if two_producers && g.flip() { 2 } else { 1 })
            .collect(),
        data,
        acquire: synchronized || g.flip(),
        release: synchronized || g.flip(),
        writes,
        announce: g.below(3) == 0,
    }
}

/// A kernel body, shared by the checks of one kernel.
type Body = Arc<dyn Fn(&ThreadCtx) + Send + Sync>;

fn kernel(p: &Polling) -> (Kernel, Body) {
    let blocks = 1 + *p.writer.iter().max().unwrap();
    let mut k = Kernel::new("polling", Grid::new(blocks, 1)).max_steps(60);
    let data = k.global::<i32>("data", p.data.len());
    let flag = k.global::<i32>("flag", 1);
    let polled = k.global::<i32>("polled", 1);
    let ready = k.global::<i32>("ready", 1);
    let p = p.clone();
    const DEV: MemoryScope = MemoryScope::Device;
    let body = Arc::new(move |t: &ThreadCtx| {
        if t.bid() == 0 {
            let mut first = true;
            loop {
                let read = |d: &usize| t.atomic_load(&data, *d, MemoryOrder::Relaxed, DEV);
                let mut seen: Vec<i32> = p.data[..p.before].iter().map(read).collect();
                let order = if p.acquire {
                    MemoryOrder::Acquire
                } else {
                    MemoryOrder::Relaxed
                };
                if t.atomic_load(&flag, 0, order, DEV) == 1 {
                    seen.extend(p.data[p.before..].iter().map(read));
                    check!(
                        seen.iter().all(|&v| v == 1),
                        "flag set but stale data {seen:?}"
                    );
                    return;
                }
                if p.announce && first {
                    first = false;
                    t.atomic_store(&polled, 0, 1, MemoryOrder::Relaxed, DEV);
                }
                t.spin_loop();
            }
        } else {
            let me = t.bid();
            if me == 1 && p.announce {
                while t.atomic_load(&polled, 0, MemoryOrder::Relaxed, DEV) == 0 {
                    t.spin_loop();
                }
            }
            for &d in p.writes.iter().filter(|&&d| p.writer[d] == me) {
                t.atomic_store(&data, d, 1, MemoryOrder::Relaxed, DEV);
            }
            if me == 1 {
                // The flag after every data write of both producers: block 2's writes reach
                // block 1 only by a release/acquire chain when block 2 has writes.
                if p.writer.contains(&2) {
                    while t.atomic_load(&ready, 0, MemoryOrder::Acquire, DEV) != 1 {
                        t.spin_loop();
                    }
                }
                let order = if p.release {
                    MemoryOrder::Release
                } else {
                    MemoryOrder::Relaxed
                };
                t.atomic_store(&flag, 0, 1, order, DEV);
            } else {
                t.atomic_store(&ready, 0, 1, MemoryOrder::Release, DEV);
            }
        }
    });
    (k, body)
}

fn dfs(reduction: bool) -> Checker {
    Checker::new(Dfs {
        max_executions: 200_000,
        reduction,
    })
}

#[test]
fn the_await_reduction_keeps_every_verdict_of_generated_multi_location_polling() {
    let (mut compared, mut bugs, mut passes) = (0, 0, 0);
    for seed in 0..24u64 {
        let p = generate(seed);
        let (k, body) = kernel(&p);
        let run = |reduction: bool| {
            let b = Arc::clone(&body);
            dfs(reduction).all_failures().check(&k, move |t| b(t))
        };
        let (reduced, full) = (run(true), run(false));
        let definite = |r: &Report| r.failures.iter().any(|f| f.kind == FailureKind::Assertion);
        assert_eq!(
            definite(&reduced),
            definite(&full),
            "seed {seed} {p:?}:\nreduced {reduced}\nunreduced {full}"
        );
        // A default (first-failure) check reports the bug as its failure.
        let b = Arc::clone(&body);
        let default = Checker::new(Dfs::default()).check(&k, move |t| b(t));
        assert_eq!(
            default.verdict() == Verdict::Fail(FailureKind::Assertion),
            definite(&full),
            "seed {seed} {p:?}: {default}"
        );
        bugs += usize::from(definite(&full));
        // PTX memory model: the release flag write and the acquire read of it synchronize, so
        // a consumer that reads the data only after seeing the flag cannot read stale data.
        if p.before == 0 && p.acquire && p.release {
            assert!(
                !definite(&full),
                "seed {seed} {p:?}: synchronized, yet {full}"
            );
            passes += 1;
        }
        compared += 1;
    }
    println!("{compared} kernels compared, {bugs} bugs, {passes} synchronized");
    assert!(
        bugs > 0 && passes > 0,
        "{bugs} bugs, {passes} synchronized of {compared}"
    );
}
