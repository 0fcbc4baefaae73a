//! The cuTile guide's atomic examples: the RELAXED counter, the atomic counter "with sync"
//! (which is racy), the spinlock, and the RMW-with-ACQUIRE-only mistake.

use scopecheck_model::check;
use scopecheck_model::kernel::*;
use scopecheck_model::scope::Scope;

fn verdict(reports: Vec<Report>) -> Verdict {
    for r in &reports {
        println!("{r}");
        assert!(r.executions > 0, "{r}");
    }
    common_verdict(&reports).unwrap()
}

#[test]
fn relaxed_counter_counts_every_increment() {
    // RELAXED gives atomicity without ordering: enough for a counter.
    let mut k = Kernel::new("relaxed_counter", Grid::new(3, 1));
    let counter = k.global::<i32>("counter", 1);
    k.postcondition("counter == 3", move |m| m.get(&counter, 0) == 3);
    let v = verdict(Checker::check_all(&k, move |t| {
        t.atomic_add(&counter, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
    }));
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn block_scoped_counter_across_blocks_is_a_scoped_race() {
    // Atomicity too needs moral strength: block-scoped RMWs of different blocks race.
    let mut k = Kernel::new("block_counter", Grid::new(2, 1));
    let counter = k.global::<i32>("counter", 1);
    let v = verdict(Checker::check_all(&k, move |t| {
        t.atomic_add(&counter, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    }));
    assert_eq!(
        v,
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
}

#[test]
fn atomic_counter_with_sync_is_racy() {
    // Example 2 of the guide: each thread takes a slot with an ACQ_REL atomic_add, fills it,
    // publishes it with a RELEASE store, then reads the previous slot when `prev_ready >= 0`.
    // That test is always true (the flag starts at 0), so a thread reads the previous slot
    // whether or not its owner has published it: a data race.
    let mut k = Kernel::new("atomic_counter_with_sync", Grid::new(2, 1));
    let counter = k.global::<i32>("counter", 1);
    let data = k.global::<i32>("data_buffer", 2);
    let ready = k.global::<i32>("ready", 2);
    let v = verdict(Checker::check_all(&k, move |t| {
        let my = t.atomic_add(&counter, 0, 1, MemoryOrder::AcqRel, MemoryScope::Device) as usize;
        t.store(&data, my, my as i32 + 10);
        t.atomic_store(
            &ready,
            my,
            my as i32,
            MemoryOrder::Release,
            MemoryScope::Device,
        );
        if my > 0 {
            let prev_ready =
                t.atomic_load(&ready, my - 1, MemoryOrder::Acquire, MemoryScope::Device);
            if prev_ready >= 0 {
                let _prev = t.load(&data, my - 1);
            }
        }
    }));
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
}

/// The guide's spinlock: ACQ_REL exchange to take the lock, RELEASE store to drop it.
fn spinlock(
    grid: Grid,
    scope: MemoryScope,
    take: MemoryOrder,
    drop_with_exchange: Option<MemoryOrder>,
) -> Verdict {
    let mut k = Kernel::new("spinlock", grid);
    let lock = k.global::<i32>("lock", 1);
    let shared = k.global::<i32>("shared_data", 1);
    let n = grid.threads() as i32;
    k.postcondition("every thread incremented shared_data once", move |m| {
        m.get(&shared, 0) == n
    });
    verdict(Checker::check_all(&k, move |t| {
        while t.atomic_exchange(&lock, 0, 1, take, scope) != 0 {
            t.spin_loop();
        }
        let v = t.load(&shared, 0);
        t.store(&shared, 0, v + 1);
        match drop_with_exchange {
            None => t.atomic_store(&lock, 0, 0, MemoryOrder::Release, scope),
            Some(order) => {
                t.atomic_exchange(&lock, 0, 0, order, scope);
            }
        }
    }))
}

#[test]
fn spinlock_within_a_block_passes() {
    assert_eq!(
        spinlock(
            Grid::new(1, 2),
            MemoryScope::Block,
            MemoryOrder::AcqRel,
            None
        ),
        Verdict::Pass
    );
}

#[test]
fn spinlock_with_many_threads_passes_under_dfs_and_shuttle() {
    // Three threads exhaustively (DFS), 32 threads of one block by random and PCT testing.
    assert_eq!(
        spinlock_with(Checker::dfs(), Grid::new(1, 3)).verdict(),
        Verdict::Pass
    );
    for c in [Checker::random(50, 7), Checker::pct(50, 3, 7)] {
        let r = spinlock_with(c, Grid::new(1, 32));
        println!("{r}");
        assert_eq!(r.verdict(), Verdict::Pass);
        assert!(!r.complete);
    }
}

fn spinlock_with(checker: Checker, grid: Grid) -> Report {
    let mut k = Kernel::new("spinlock", grid);
    let lock = k.global::<i32>("lock", 1);
    let shared = k.global::<i32>("shared_data", 1);
    let n = grid.threads() as i32;
    k.postcondition("every thread incremented shared_data once", move |m| {
        m.get(&shared, 0) == n
    });
    checker.check(&k, move |t| {
        while t.atomic_exchange(&lock, 0, 1, MemoryOrder::AcqRel, MemoryScope::Block) != 0 {
            t.spin_loop();
        }
        let v = t.load(&shared, 0);
        t.store(&shared, 0, v + 1);
        t.atomic_store(&lock, 0, 0, MemoryOrder::Release, MemoryScope::Block);
    })
}

#[test]
fn spinlock_at_block_scope_across_blocks_is_a_scoped_race() {
    assert_eq!(
        spinlock(
            Grid::new(2, 1),
            MemoryScope::Block,
            MemoryOrder::AcqRel,
            None
        ),
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
}

#[test]
fn spinlock_released_by_an_acquire_only_rmw_races() {
    // Common mistake 3: an RMW with ACQUIRE only does not release, so the next owner is not
    // ordered after the critical section it inherits.
    assert_eq!(
        spinlock(
            Grid::new(1, 2),
            MemoryScope::Block,
            MemoryOrder::AcqRel,
            Some(MemoryOrder::Acquire)
        ),
        Verdict::Fail(FailureKind::DataRace)
    );
}

#[test]
fn spinlock_released_by_an_acq_rel_rmw_passes() {
    assert_eq!(
        spinlock(
            Grid::new(1, 2),
            MemoryScope::Block,
            MemoryOrder::AcqRel,
            Some(MemoryOrder::AcqRel)
        ),
        Verdict::Pass
    );
}

#[test]
fn waiting_for_a_flag_nobody_sets_is_a_hang() {
    let mut k = Kernel::new("lost_wakeup", Grid::new(2, 1));
    let flag = k.global::<i32>("flag", 1);
    let v = verdict(Checker::check_all(&k, move |t| {
        if t.bid() == 0 {
            t.atomic_store(&flag, 0, 2, MemoryOrder::Release, MemoryScope::Device);
        } else {
            while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) != 1 {
                t.spin_loop();
            }
        }
    }));
    assert_eq!(v, Verdict::Fail(FailureKind::Hang));
}

#[test]
fn a_spin_loop_without_spin_hint_hits_the_step_bound() {
    // Without `spin_loop()` the model may keep reading the old value: reported as a possible
    // hang, explicitly bounded. (Uniform random scheduling would need 50 consumer steps in a
    // row to see it, so only the systematic and priority-based engines are asked.)
    let mut k = Kernel::new("busy_wait", Grid::new(2, 1)).max_steps(50);
    let flag = k.global::<i32>("flag", 1);
    let reports = [Checker::loom(), Checker::pct(100, 3, 1), Checker::dfs()]
        .iter()
        .map(|c| {
            c.check(&k, move |t| {
                if t.bid() == 0 {
                    t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
                } else {
                    while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) != 1 {}
                }
            })
        })
        .collect();
    let v = verdict(reports);
    assert_eq!(v, Verdict::Fail(FailureKind::PossibleHang));
}

#[test]
fn assertion_failures_name_the_kernel_line() {
    let mut k = Kernel::new("assert", Grid::new(1, 1));
    let x = k.global::<i32>("x", 1);
    let r = Checker::dfs().check(&k, move |t| {
        let v = t.load(&x, 0);
        check!(v == 1, "x should be 1, is {v}");
    });
    println!("{r}");
    let f = r.failure.expect("fails");
    assert_eq!(f.kind, FailureKind::Assertion);
    assert!(f.headline.contains("x should be 1, is 0"), "{}", f.headline);
    assert!(f.headline.contains("kernel_atomics.rs"), "{}", f.headline);
}
