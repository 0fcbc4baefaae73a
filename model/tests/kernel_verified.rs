//! Verdicts the PTX memory model decides, on three patterns engines got wrong: the counter reset
//! of the threadfence reduction (no race: observation then program order is causality), the
//! CUTLASS epilogue (no race: a proxy fence may sit anywhere on the causality path within the
//! block), and a polling loop over two locations (a bug, also when it calls `spin_loop()`).

use scopecheck_model::check;
use scopecheck_model::kernel::*;

/// Every engine that fits the kernel; each report printed.
fn reports(k: &Kernel, body: impl Fn(&ThreadCtx) + Send + Sync + 'static) -> Vec<Report> {
    let reports = Checker::check_all(k, body);
    for r in &reports {
        println!("{r}");
    }
    reports
}

/// The CUDA sample's threadfence reduction, one thread per block: write the block's partial sum,
/// `__threadfence()`, take a ticket with a relaxed `atomicAdd`; the last block (after an acquire
/// fence) sums the partials and resets the counter with a plain store for the next launch.
/// PTX "Causality Order": X precedes Y if X precedes Z in observation order and Z precedes Y in
/// base causality order. Every other block's `atomicAdd` is observed (through the chain of
/// RMWs) by the last block's `atomicAdd`, which precedes the reset in program order: no race.
fn threadfence_reduction(blocks: u32) -> (Kernel, Global<i32>, Global<u32>, Global<i32>) {
    let mut k = Kernel::new("threadfence_reduction", Grid::new(blocks, 1));
    let partial = k.global::<i32>("partial", blocks as usize);
    let count = k.global::<u32>("count", 1);
    let result = k.global::<i32>("result", 1);
    let n = blocks as i32;
    k.postcondition("result is the sum and the counter is reset", move |m| {
        m.get(&result, 0) == n * (n + 1) / 2 && m.get(&count, 0) == 0
    });
    (k, partial, count, result)
}

#[test]
fn threadfence_reduction_counter_reset_is_not_a_race() {
    for blocks in [2, 3] {
        let (k, partial, count, result) = threadfence_reduction(blocks);
        for r in reports(&k, move |t| {
            let b = t.bid() as usize;
            t.store(&partial, b, b as i32 + 1);
            t.fence(MemoryOrder::AcqRel, MemoryScope::Device);
            let ticket = t.atomic_add(&count, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
            if ticket == t.num_blocks() - 1 {
                t.fence(MemoryOrder::AcqRel, MemoryScope::Device);
                let sum = (0..t.num_blocks() as usize)
                    .map(|i| t.load(&partial, i))
                    .sum::<i32>();
                t.store(&result, 0, sum);
                t.store(&count, 0, 0);
            }
        }) {
            assert_eq!(r.verdict(), Verdict::Pass, "{r}");
        }
    }
}

#[test]
fn a_plain_store_after_a_weak_read_still_races() {
    // The converse: observation needs a morally strong read. A weak load of the counter observes
    // nothing, so the reset races with the other block's atomic_add.
    let mut k = Kernel::new("weak_observer", Grid::new(2, 1));
    let count = k.global::<u32>("count", 1);
    let v = common_verdict(&reports(&k, move |t| {
        if t.bid() == 0 {
            t.atomic_add(&count, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
        } else if t.load(&count, 0) == 1 {
            t.store(&count, 0, 0);
        }
    }))
    .unwrap();
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
}

/// The CUTLASS epilogue: every thread writes its element of the staging tile in shared memory
/// and executes `fence.proxy.async`, the block synchronizes, and thread 0 issues the
/// shared→global bulk copy and waits for it. PTX (proxy-preserved base causality): a generic
/// write reaches an async-proxy access through a proxy fence in the same CTA anywhere on the
/// causality path — here the writer's own fence, before the barrier.
fn epilogue(fence_in_writers: bool) -> Report {
    let mut k = Kernel::new("cutlass_epilogue", Grid::new(1, 2));
    let out = k.global::<i32>("out", 2);
    let staging = k.shared::<i32>("staging", 2);
    k.bulk_copies();
    let report = Checker::dfs().check(&k, move |t| {
        let i = t.tid() as usize;
        t.store(&staging, i, i as i32 + 7);
        if fence_in_writers {
            t.fence_proxy_async();
        }
        t.syncthreads();
        if i == 0 {
            t.bulk_copy_shared_to_global(&out, 0, &staging, 0, 8);
            t.bulk_wait();
            check!(t.load(&out, 1) == 8);
        }
    });
    println!("{report}");
    report
}

#[test]
fn cutlass_epilogue_with_fences_before_the_barrier_is_not_a_race() {
    let report = epilogue(true);
    assert!(report.passed(), "{report}");
    assert!(report.complete, "{report}");
}

#[test]
fn cutlass_epilogue_without_proxy_fences_races_and_says_where_the_fence_goes() {
    let report = epilogue(false);
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace));
    let text = report.to_string();
    assert!(text.contains("fence_proxy_async"), "{text}");
    // The advice must not contradict the trace: it names the path the fence may sit on.
    assert!(text.contains("before syncthreads"), "{text}");
}

/// A consumer polls `data` (relaxed) then `flag` (acquire) in one loop, announcing its first
/// failed poll; the producer waits for that announcement, then writes `data` and releases
/// `flag`. The next iteration may read the old `data` (coherence allows it: the consumer's
/// earlier read of `data` was of that same store) and then `flag == 1`: the check fails.
fn polling(spin: bool) -> Vec<Report> {
    let mut k = Kernel::new("polling", Grid::new(2, 1));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    let polled = k.global::<i32>("polled", 1);
    let relaxed = |t: &ThreadCtx, g: &Global<i32>| {
        t.atomic_load(g, 0, MemoryOrder::Relaxed, MemoryScope::Device)
    };
    reports(&k, move |t| {
        if t.bid() == 0 {
            while relaxed(t, &polled) == 0 {
                t.spin_loop();
            }
            t.atomic_store(&data, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
        } else {
            let mut first = true;
            for _ in 0..if spin { usize::MAX } else { 3 } {
                let d = relaxed(t, &data);
                let f = t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device);
                if f == 1 {
                    check!(d == 1, "read flag == 1 but stale data {d}");
                    return;
                }
                if first {
                    first = false;
                    t.atomic_store(&polled, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
                }
                if spin {
                    t.spin_loop();
                }
            }
        }
    })
}

#[test]
fn polling_two_locations_is_a_bug_with_plain_iterations() {
    for r in polling(false) {
        assert_eq!(r.verdict(), Verdict::Fail(FailureKind::Assertion), "{r}");
    }
}

#[test]
fn polling_two_locations_is_a_bug_with_spin_loop() {
    for r in polling(true) {
        assert_eq!(r.verdict(), Verdict::Fail(FailureKind::Assertion), "{r}");
    }
}
