//! Proven hangs in kernel models: when every live thread is blocked for good (a spinner no
//! remaining store can release, a barrier whose count is never reached, an mbarrier phase that
//! never completes, a block that never becomes resident) the report says `hang` and shows the
//! lasso: the trace so far, then the iteration that repeats. A loop that never calls
//! `spin_loop()` stays a bounded possible hang, and assertions and postconditions are reported as
//! before.

use scopecheck_model::check;
use scopecheck_model::kernel::*;

fn hang_text(reports: Vec<Report>) -> String {
    for r in &reports {
        println!("{r}");
    }
    assert_eq!(
        common_verdict(&reports).unwrap(),
        Verdict::Fail(FailureKind::Hang)
    );
    let text = reports[0].to_string();
    assert!(text.contains("FAILURE: hang"), "{text}");
    assert!(text.contains("lasso: operations #1-#"), "{text}");
    text
}

#[test]
fn a_spinner_nobody_releases_hangs_with_its_iteration_as_the_lasso() {
    let mut k = Kernel::new("lost_wakeup", Grid::new(2, 1));
    let flag = k.global::<i32>("flag", 1);
    let text = hang_text(Checker::check_all(&k, move |t| {
        if t.bid() == 0 {
            t.atomic_store(&flag, 0, 2, MemoryOrder::Release, MemoryScope::Device);
        } else {
            while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) != 1 {
                t.spin_loop();
            }
        }
    }));
    assert!(
        text.contains("block 1 thread 0 spins forever: every store to flag[0]"),
        "{text}"
    );
    // The repeating iteration: the spinner's read again, then its spin_loop.
    let lasso = text.split("lasso:").nth(1).unwrap();
    assert!(
        lasso.contains("block 1 thread 0: atomic_load flag[0] -> 2"),
        "{text}"
    );
    assert!(lasso.contains("block 1 thread 0: spin_loop, the same iteration again"));
}

#[test]
fn a_thread_at_syncthreads_and_one_spinning_for_it_hang() {
    // Thread 1 sets the flag only after a syncthreads that thread 0, spinning on the flag,
    // never reaches.
    let mut k = Kernel::new("flag_behind_barrier", Grid::new(1, 2));
    let flag = k.global::<i32>("flag", 1);
    let text = hang_text(Checker::check_all(&k, move |t| {
        if t.tid() == 0 {
            while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Block) == 0 {
                t.spin_loop();
            }
            t.syncthreads();
        } else {
            t.syncthreads();
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Block);
        }
    }));
    assert!(
        text.contains("block 0 thread 1 waits at syncthreads"),
        "{text}"
    );
    assert!(
        text.contains("block 0 thread 1 waits at its barrier again"),
        "{text}"
    );
    assert!(text.contains("block 0 thread 0 spins forever"), "{text}");
}

#[test]
fn arrivals_piling_into_one_named_barrier_instance_hang() {
    // The consumer syncs twice; the producer arrives twice without waiting and exits: both
    // arrivals may complete the first instance, leaving the second one at 1 of 2 threads.
    let k = Kernel::new("early_exit", Grid::new(1, 2).with_warp_size(1));
    let text = hang_text(Checker::check_all(&k, move |t| {
        if t.warp() == 1 {
            t.bar_arrive(1, 2);
            t.bar_arrive(1, 2);
            return;
        }
        t.bar_sync(1, 2);
        t.bar_sync(1, 2);
    }));
    assert!(
        text.contains("block 0 thread 0 waits at bar_sync(1, 2)") && text.contains("1 of 2"),
        "{text}"
    );
    // Syncing instead, each arrival waits for the consumer's: it terminates.
    let reports = Checker::check_all(&k, move |t| {
        t.bar_sync(1, 2);
        t.bar_sync(1, 2);
    });
    assert_eq!(common_verdict(&reports).unwrap(), Verdict::Pass);
}

#[test]
fn an_mbarrier_phase_that_never_completes_hangs() {
    // Initialised for two arrivals, only one ever comes.
    let mut k = Kernel::new("one_arrival_short", Grid::new(1, 1));
    let bars = k.mbarriers("bar", 1);
    let text = hang_text(Checker::check_all(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 2);
        let token = bar.arrive(t);
        bar.wait(t, token);
    }));
    assert!(
        text.contains("block 0 thread 0 waits on the mbarrier's phase 0 again"),
        "{text}"
    );
}

#[test]
fn assertions_and_postconditions_are_unaffected() {
    let mut k = Kernel::new("asserts", Grid::new(1, 2));
    let x = k.global::<i32>("x", 1);
    k.postcondition("x == 2", move |m| m.get(&x, 0) == 2);
    // A postcondition that fails is an assertion failure, not a hang.
    let reports = Checker::check_all(&k, move |t| {
        t.atomic_add(&x, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
        t.atomic_add(&x, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    });
    assert_eq!(
        common_verdict(&reports).unwrap(),
        Verdict::Fail(FailureKind::Assertion)
    );
    // A failing check! is an assertion failure.
    let reports = Checker::check_all(&k, move |t| {
        check!(t.tid() == 0, "only thread 0 may run");
        t.atomic_add(&x, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    });
    assert_eq!(
        common_verdict(&reports).unwrap(),
        Verdict::Fail(FailureKind::Assertion)
    );
}
