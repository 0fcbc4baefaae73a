//! mbarriers and bulk copies (TMA): PTX phase semantics, the pipeline bug of
//! `mbarrier-pipeline-phase-bug.zh.md` and its fixes, the classic hangs, misuse, proxies.

use crate::corpus;

use corpus::mbarrier::{cutlass_pipeline, seed_pipeline, Barriers, Parity};
use corpus::Body;
use scopecheck_model::check;
use scopecheck_model::kernel::*;

fn thread_body(body: Body) -> std::sync::Arc<dyn Fn(&ThreadCtx) + Send + Sync> {
    match body {
        Body::Threads(b) => b,
        Body::Tiles(_) => unreachable!("thread-level kernels only"),
    }
}

/// Run a thread-level kernel under one engine.
fn run(checker: &Checker, (kernel, body): (Kernel, Body)) -> Report {
    let body = thread_body(body);
    let report = checker.check(&kernel, move |t| body(t));
    println!("{report}");
    report
}

/// The engines a test runs: shuttle random and PCT, our DFS, and loom if `loom`.
fn engines(loom: bool) -> Vec<Checker> {
    let mut all = vec![
        Checker::random(300, 7),
        Checker::pct(300, 3, 7),
        Checker::dfs(),
    ];
    if loom {
        all.push(Checker::loom());
    }
    all
}

fn assert_pass(build: impl Fn() -> (Kernel, Body), loom: bool) {
    for checker in engines(loom) {
        let report = run(&checker, build());
        assert!(report.passed(), "{report}");
        assert!(report.executions > 0);
        if checker.engine().name() == "dfs" {
            assert!(report.complete, "DFS explored everything: {report}");
        }
    }
}

/// Fails under every engine with one of `kinds`; the report carries a trace and a replay token
/// that reproduces it.
fn assert_fails(build: impl Fn() -> (Kernel, Body), kinds: &[FailureKind], loom: bool) {
    for checker in engines(loom) {
        let report = run(&checker, build());
        let Verdict::Fail(kind) = report.verdict() else {
            panic!("expected a failure: {report}");
        };
        assert!(kinds.contains(&kind), "{report}");
        let failure = report.failure.as_ref().unwrap();
        assert!(!failure.trace.is_empty());
        let text = report.to_string();
        assert!(text.contains("replay token: sc1-"), "{text}");
        let (kernel, body) = build();
        let body = thread_body(body);
        let again = Checker::replay(&failure.token.to_string(), &kernel, move |t| body(t));
        assert_eq!(again.verdict(), report.verdict(), "replay: {again}");
    }
}

const RACE_OR_HANG: &[FailureKind] = &[FailureKind::DataRace, FailureKind::Hang];

#[test]
fn seed_pipeline_with_one_stage_passes() {
    assert_pass(
        || seed_pipeline(1, 3, Parity::OfPoint, Barriers::PerStage),
        true,
    );
}

#[test]
fn seed_pipeline_with_two_stages_and_point_parity_fails() {
    assert_fails(
        || seed_pipeline(2, 3, Parity::OfPoint, Barriers::PerStage),
        RACE_OR_HANG,
        true,
    );
}

#[test]
fn the_stale_parity_race_reads_a_stage_the_copy_has_not_filled() {
    let report = run(
        &Checker::dfs(),
        seed_pipeline(2, 3, Parity::OfPoint, Barriers::PerStage),
    );
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace));
    let text = report.to_string();
    assert!(
        text.contains("parity 1 -> true (the barrier is in its first phase"),
        "{text}"
    );
    assert!(text.contains("bulk copy writes tile[1]@block0"), "{text}");
}

#[test]
fn the_stale_parity_also_hangs_when_the_copy_lands_first() {
    // Loom's first execution runs the copy agent early: the wait then targets a phase that
    // nobody completes.
    let report = run(
        &Checker::loom(),
        seed_pipeline(2, 3, Parity::OfPoint, Barriers::PerStage),
    );
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::Hang));
    assert!(report.to_string().contains("waits on bar["), "{report}");
}

#[test]
fn a_barrier_per_point_waited_with_parity_0_passes() {
    assert_pass(
        || seed_pipeline(2, 3, Parity::FirstPhase, Barriers::PerPoint),
        true,
    );
}

#[test]
fn a_barrier_per_point_with_the_old_parity_still_fails() {
    assert_fails(
        || seed_pipeline(2, 3, Parity::OfPoint, Barriers::PerPoint),
        RACE_OR_HANG,
        false,
    );
}

#[test]
fn double_buffered_barriers_do_not_fix_it() {
    assert_fails(
        || seed_pipeline(2, 3, Parity::OfPoint, Barriers::DoubleBuffered),
        RACE_OR_HANG,
        false,
    );
}

#[test]
fn a_phase_bit_flipped_on_wrap_passes() {
    assert_pass(
        || seed_pipeline(2, 3, Parity::PhaseBit, Barriers::PerStage),
        true,
    );
}

#[test]
fn cutlass_full_empty_pipeline_passes() {
    // Exhaustive (DFS) with one stage reused three times; shuttle on two reused stages.
    let report = run(&Checker::dfs(), cutlass_pipeline(1, 3, 1, 0));
    assert!(report.passed() && report.complete, "{report}");
    for checker in [Checker::random(300, 3), Checker::pct(300, 3, 3)] {
        let report = run(&checker, cutlass_pipeline(2, 3, 1, 0));
        assert!(report.passed(), "{report}");
    }
}

#[test]
fn producer_starting_with_the_wrong_phase_hangs() {
    assert_fails(|| cutlass_pipeline(2, 3, 0, 0), &[FailureKind::Hang], true);
    let report = run(&Checker::dfs(), cutlass_pipeline(2, 3, 0, 0));
    let text = report.to_string();
    assert!(
        text.contains("block 0 thread 0 waits on empty[0]@block0"),
        "{text}"
    );
    assert!(
        text.contains("block 0 thread 1 waits on full[0]@block0"),
        "{text}"
    );
}

#[test]
fn expected_bytes_not_delivered_hang() {
    assert_fails(|| cutlass_pipeline(2, 3, 1, 4), &[FailureKind::Hang], true);
    let report = run(&Checker::dfs(), cutlass_pipeline(1, 1, 1, 4));
    let text = report.to_string();
    assert!(text.contains("tx 4)"), "{text}");
    // The lasso: the trace, then the consumer waiting on the full barrier's phase 0 again.
    assert!(text.contains("lasso: operations #1-#"), "{text}");
    assert!(
        text.contains("block 0 thread 1 waits on the mbarrier's phase 0 again"),
        "{text}"
    );
}

/// One thread, one barrier of count 1: the parity answers of PTX.
#[test]
fn parity_waits_answer_for_the_current_and_the_previous_phase() {
    let mut k = Kernel::new("parity", Grid::new(1, 1));
    let bars = k.mbarriers("bar", 1);
    let report = Checker::dfs().check(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        // Phase 0: parity 0 has not completed; parity 1 names the phase before the first.
        check!(!bar.try_wait_parity(t, 0));
        check!(bar.test_wait_parity(t, 1));
        let token = bar.arrive(t);
        // Phase 1 now: phase 0 (parity 0) completed, phase 1 has not.
        check!(bar.try_wait_parity(t, 0));
        check!(!bar.try_wait_parity(t, 1));
        check!(bar.try_wait(t, token));
        let second = bar.arrive(t);
        check!(bar.try_wait_parity(t, 1));
        check!(bar.try_wait(t, second));
    });
    assert!(report.passed(), "{report}");
}

#[test]
fn tx_count_is_signed_a_copy_may_complete_before_its_bytes_are_expected() {
    let mut k = Kernel::new("complete_before_expect", Grid::new(1, 1));
    let src = k.global_from::<i32>("src", &[5, 6]);
    let tile = k.shared::<i32>("tile", 2);
    let bars = k.mbarriers("bar", 1);
    let body = move |t: &ThreadCtx| {
        let bar = bars.at(0);
        bar.init(t, 1);
        t.bulk_copy_global_to_shared(&tile, 0, &src, 0, 8, &bar);
        let token = bar.arrive_expect_tx(t, 8);
        bar.wait(t, token);
        check!(t.load(&tile, 0) == 5 && t.load(&tile, 1) == 6);
    };
    for checker in engines(true) {
        let report = checker.check(&k, body);
        assert!(report.passed(), "{report}");
    }
}

#[test]
fn reading_the_destination_without_waiting_races_with_the_copy() {
    let mut k = Kernel::new("no_wait", Grid::new(1, 1));
    let src = k.global_from::<i32>("src", &[5]);
    let tile = k.shared::<i32>("tile", 1);
    let bars = k.mbarriers("bar", 1);
    let report = Checker::dfs().check(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 4);
        t.bulk_copy_global_to_shared(&tile, 0, &src, 0, 4, &bar);
        t.load(&tile, 0);
    });
    println!("{report}");
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace));
}

/// A relaxed arrive counts but releases nothing: the waiter is not ordered after the data.
#[test]
fn arrive_releases_and_arrive_relaxed_does_not() {
    let build = |relaxed: bool| {
        let mut k = Kernel::new("arrive_release", Grid::new(1, 2));
        let data = k.shared::<i32>("data", 1);
        let bars = k.mbarriers("bar", 1);
        let body = move |t: &ThreadCtx| {
            let bar = bars.at(0);
            if t.tid() == 0 {
                bar.init(t, 1);
            }
            t.syncthreads();
            if t.tid() == 0 {
                t.store(&data, 0, 9);
                if relaxed {
                    bar.arrive_relaxed(t);
                } else {
                    bar.arrive(t);
                }
            } else {
                bar.wait_parity(t, 0);
                check!(t.load(&data, 0) == 9);
            }
        };
        (k, body)
    };
    let (k, body) = build(false);
    let report = Checker::dfs().check(&k, body);
    assert!(report.passed() && report.complete, "{report}");
    let (k, body) = build(true);
    let report = Checker::dfs().check(&k, body);
    println!("{report}");
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace));
}

#[test]
fn using_a_barrier_whose_init_is_not_visible_is_misuse() {
    let mut k = Kernel::new("init_not_visible", Grid::new(1, 2));
    let bars = k.mbarriers("bar", 1);
    let report = Checker::dfs().check(&k, move |t| {
        let bar = bars.at(0);
        if t.tid() == 0 {
            bar.init(t, 2);
        }
        bar.arrive(t);
    });
    println!("{report}");
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::MBarrierMisuse));
}

#[test]
fn misuse_cases_of_the_corpus() {
    for case in corpus::all().into_iter().filter(|c| {
        ["arrive-past", "phase-behind", "phases-behind", "init-"]
            .iter()
            .any(|k| c.name.starts_with("mbarrier/") && c.name.contains(k))
    }) {
        for report in case.run_every_engine() {
            println!("{}: {}", case.name, case.got_words(&report));
            assert!(case.agrees(&report), "{}: {report}", case.name);
        }
    }
}

/// Shared→global: generic writes to shared memory reach the async proxy only through
/// `fence.proxy.async`; the global result is ordered after the copy only through `bulk_wait`.
#[test]
fn shared_to_global_copies_need_a_proxy_fence_and_a_wait() {
    let build = |fence: bool, wait: bool| {
        let mut k = Kernel::new("tma_store", Grid::new(1, 1));
        let out = k.global::<i32>("out", 2);
        let staging = k.shared::<i32>("staging", 2);
        k.bulk_copies();
        let body = move |t: &ThreadCtx| {
            t.store(&staging, 0, 1);
            t.store(&staging, 1, 2);
            if fence {
                t.fence_proxy_async();
            }
            t.bulk_copy_shared_to_global(&out, 0, &staging, 0, 8);
            if wait {
                t.bulk_wait();
                check!(t.load(&out, 1) == 2);
            } else {
                t.load(&out, 1);
            }
        };
        (k, body)
    };
    let (k, body) = build(true, true);
    for checker in engines(true) {
        let report = checker.check(&k, body);
        assert!(report.passed(), "{report}");
    }
    let (k, body) = build(false, true);
    let report = Checker::dfs().check(&k, body);
    println!("{report}");
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace));
    assert!(report.to_string().contains("fence_proxy_async"), "{report}");
    let (k, body) = build(true, false);
    let report = Checker::dfs().check(&k, body);
    println!("{report}");
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace));
}

/// One verdict under the DFS.
fn dfs_verdict(k: &Kernel, body: impl Fn(&ThreadCtx) + Send + Sync + 'static) -> Verdict {
    let report = Checker::dfs().check(k, body);
    println!("{report}");
    report.verdict()
}

#[test]
fn arrive_qualifiers_count_and_no_complete() {
    // PTX ISA, mbarrier.arrive: a count operand; `.noComplete` "must not cause the mbarrier to
    // complete its current phase, otherwise the behavior is undefined"; pending_count reads the
    // pending arrivals of the returned state.
    let mut k = Kernel::new("arrive forms", Grid::new(1, 1));
    let bars = k.mbarriers("bar", 1);
    let v = dfs_verdict(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 4);
        let two = MbarrierArrive {
            count: 2,
            no_complete: true,
            ..Default::default()
        };
        let state = bar.arrive_with(t, two);
        check!(state.pending_count() == 2);
        check!(!bar.test_wait(t, state.token));
        let cluster = MbarrierArrive {
            scope: MemoryScope::Cluster,
            sem: MemoryOrder::Relaxed,
            ..Default::default()
        };
        check!(bar.arrive_with(t, cluster).pending_count() == 1);
        bar.arrive_with(t, MbarrierArrive::default());
        check!(bar.try_wait_suspend(t, state.token, 1000));
        check!(bar.try_wait_parity_suspend(t, 0, 1000));
    });
    assert_eq!(v, Verdict::Pass);
    let v = dfs_verdict(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 2);
        let last = MbarrierArrive {
            count: 2,
            no_complete: true,
            ..Default::default()
        };
        bar.arrive_with(t, last);
    });
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
    // PTX allows .release/.relaxed on arrives and .cta/.cluster scopes only.
    let v = dfs_verdict(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        let acquire = MbarrierArrive {
            sem: MemoryOrder::Acquire,
            ..Default::default()
        };
        bar.arrive_with(t, acquire);
    });
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
    let v = dfs_verdict(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        bar.arrive(t);
        bar.wait_parity_scoped(t, 0, MemoryOrder::Acquire, MemoryScope::Device);
    });
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
}

#[test]
fn inval_then_use_is_misuse_and_init_again_is_not() {
    let mut k = Kernel::new("inval", Grid::new(1, 1));
    let bars = k.mbarriers("bar", 1);
    let v = dfs_verdict(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        bar.inval(t);
        bar.init(t, 1);
        bar.arrive(t);
        check!(bar.try_wait_parity(t, 0));
    });
    assert_eq!(v, Verdict::Pass);
    let v = dfs_verdict(&k, move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        bar.inval(t);
        let _ = bar.try_wait_parity(t, 0);
    });
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
}

#[test]
fn relaxed_waits_acquire_nothing() {
    let mut k = Kernel::new("relaxed wait", Grid::new(1, 2));
    let data = k.shared::<i32>("data", 1);
    let bars = k.mbarriers("bar", 1);
    let body = move |sem: MemoryOrder| {
        move |t: &ThreadCtx| {
            let bar = bars.at(0);
            if t.tid() == 0 {
                bar.init(t, 1);
            }
            t.syncthreads();
            if t.tid() == 0 {
                t.store(&data, 0, 5);
                bar.arrive(t);
            } else {
                bar.wait_parity_scoped(t, 0, sem, MemoryScope::Block);
                check!(t.load(&data, 0) == 5);
            }
        }
    };
    assert_eq!(dfs_verdict(&k, body(MemoryOrder::Acquire)), Verdict::Pass);
    assert_eq!(
        dfs_verdict(&k, body(MemoryOrder::Relaxed)),
        Verdict::Fail(FailureKind::DataRace)
    );
}

#[test]
fn cp_async_mbarrier_arrive_publishes_the_copies() {
    // PTX ISA, cp.async.mbarrier.arrive: the arrive-on operation is triggered "upon the
    // completion of all prior cp.async operations initiated by the executing thread"; without
    // .noinc the pending count is raised by one first (a zero net change).
    let mut k = Kernel::new("cp.async arrive", Grid::new(1, 2));
    let src = k.global_from::<i32>("src", &[7, 8]);
    let tile = k.shared::<i32>("tile", 2);
    let bars = k.mbarriers("full", 1);
    let body = move |noinc: bool, count: u32| {
        move |t: &ThreadCtx| {
            let bar = bars.at(0);
            if t.tid() == 0 {
                bar.init(t, count);
            }
            t.syncthreads();
            if t.tid() == 0 {
                t.cp_async(&tile, 0, &src, 0, 4);
                t.cp_async(&tile, 1, &src, 1, 4);
                if noinc {
                    t.cp_async_mbarrier_arrive_noinc(&bar);
                } else {
                    t.cp_async_mbarrier_arrive(&bar);
                    bar.arrive(t);
                }
            } else {
                bar.wait_parity(t, 0);
                check!(t.load(&tile, 0) == 7 && t.load(&tile, 1) == 8);
            }
        }
    };
    assert_eq!(dfs_verdict(&k, body(true, 1)), Verdict::Pass);
    assert_eq!(dfs_verdict(&k, body(false, 1)), Verdict::Pass);
    // With .noinc the arrival counts against init's count: a count of 2 never completes.
    assert_eq!(
        dfs_verdict(&k, body(true, 2)),
        Verdict::Fail(FailureKind::Hang)
    );
}
