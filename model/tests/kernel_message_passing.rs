//! Message passing, from the cuTile memory-model guide's producer/consumer example and its
//! "common mistakes" (relaxed flag, scope mismatch), plus fence-based variants with `fence.sc`
//! at device (gpu) and block (cta) scope. Every kernel runs under every engine that fits.

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

/// Block 0 produces `data` and raises `flag`; block 1 reads `data` if it sees the flag.
fn producer_consumer(
    flag_order: (MemoryOrder, MemoryOrder),
    scope: MemoryScope,
    blocks: u32,
) -> Vec<Report> {
    let grid = if blocks == 2 {
        Grid::new(2, 1)
    } else {
        Grid::new(1, 2)
    };
    let mut k = Kernel::new("producer_consumer", grid);
    let data = k.global::<f32>("data", 1);
    let flag = k.global::<i32>("ready_flag", 1);
    Checker::check_all(&k, move |t| {
        let producer = t.bid() + t.tid() == 0;
        if producer {
            t.store(&data, 0, 42.0);
            t.atomic_store(&flag, 0, 1, flag_order.0, scope);
        } else if t.atomic_load(&flag, 0, flag_order.1, scope) == 1 {
            check!(t.load(&data, 0) == 42.0);
        }
    })
}

#[test]
fn producer_consumer_at_device_scope_passes() {
    let v = verdict(producer_consumer(
        (MemoryOrder::Release, MemoryOrder::Acquire),
        MemoryScope::Device,
        2,
    ));
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn producer_consumer_at_block_scope_across_blocks_is_a_scoped_race_fixed_by_device() {
    let v = verdict(producer_consumer(
        (MemoryOrder::Release, MemoryOrder::Acquire),
        MemoryScope::Block,
        2,
    ));
    assert_eq!(
        v,
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
}

#[test]
fn producer_consumer_at_block_scope_within_one_block_passes() {
    let v = verdict(producer_consumer(
        (MemoryOrder::Release, MemoryOrder::Acquire),
        MemoryScope::Block,
        1,
    ));
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn relaxed_flag_is_a_data_race() {
    // Common mistake 1: a RELAXED flag orders nothing, so `data` is read unsynchronized.
    let v = verdict(producer_consumer(
        (MemoryOrder::Relaxed, MemoryOrder::Relaxed),
        MemoryScope::Device,
        2,
    ));
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
}

#[test]
fn scope_mismatch_device_store_block_load_is_a_scoped_race() {
    // Common mistake 2: the writer uses DEVICE, the reader in another block BLOCK. The load's
    // scope does not include the writer, so the pair is not morally strong.
    let mut k = Kernel::new("scope_mismatch", Grid::new(2, 1));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    let v = verdict(Checker::check_all(&k, move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 42);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
        } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Block) == 1 {
            check!(t.load(&data, 0) == 42);
        }
    }));
    assert_eq!(
        v,
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
}

/// Message passing with relaxed accesses ordered by fences: `fence` before the flag store and
/// after the flag load, or none.
fn mp_fenced(fence: Option<MemoryScope>, blocks: u32) -> Verdict {
    let grid = if blocks == 2 {
        Grid::new(2, 1)
    } else {
        Grid::new(1, 2)
    };
    let mut k = Kernel::new("mp+fences", grid);
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    verdict(Checker::check_all(&k, move |t| {
        let relaxed = (MemoryOrder::Relaxed, MemoryScope::System);
        if t.bid() + t.tid() == 0 {
            t.store(&data, 0, 1);
            if let Some(s) = fence {
                t.fence_sc(s);
            }
            t.atomic_store(&flag, 0, 1, relaxed.0, relaxed.1);
        } else {
            let f = t.atomic_load(&flag, 0, relaxed.0, relaxed.1);
            if let Some(s) = fence {
                t.fence_sc(s);
            }
            if f == 1 {
                check!(t.load(&data, 0) == 1);
            }
        }
    }))
}

#[test]
fn mp_with_fence_sc_gpu_passes() {
    assert_eq!(mp_fenced(Some(MemoryScope::Device), 2), Verdict::Pass);
}

#[test]
fn mp_with_fence_sc_cta_across_blocks_is_a_scoped_race() {
    assert_eq!(
        mp_fenced(Some(MemoryScope::Block), 2),
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
}

#[test]
fn mp_with_fence_sc_cta_within_a_block_passes() {
    assert_eq!(mp_fenced(Some(MemoryScope::Block), 1), Verdict::Pass);
}

#[test]
fn mp_without_fences_is_a_data_race() {
    assert_eq!(mp_fenced(None, 2), Verdict::Fail(FailureKind::DataRace));
}

/// Store buffering: each thread stores its flag, (fences,) then reads the other's. Both reading
/// 0 is forbidden only when morally strong fence.sc's order the two threads.
fn store_buffering(fence: Option<MemoryScope>) -> Verdict {
    verdict(store_buffering_report(fence))
}

fn store_buffering_report(fence: Option<MemoryScope>) -> Vec<Report> {
    let mut k = Kernel::new("sb", Grid::new(2, 1));
    let x = k.global::<i32>("x", 2);
    let seen = k.global::<i32>("seen", 2);
    k.postcondition("not both threads read 0", move |m| {
        m.get(&seen, 0) + m.get(&seen, 1) > 0
    });
    Checker::check_all(&k, move |t| {
        let me = t.bid() as usize;
        let other = 1 - me;
        t.atomic_store(&x, me, 1, MemoryOrder::Relaxed, MemoryScope::Device);
        if let Some(s) = fence {
            t.fence_sc(s);
        }
        let r = t.atomic_load(&x, other, MemoryOrder::Relaxed, MemoryScope::Device);
        t.store(&seen, me, r);
    })
}

#[test]
fn sb_with_fence_sc_gpu_forbids_both_zero() {
    assert_eq!(store_buffering(Some(MemoryScope::Device)), Verdict::Pass);
}

#[test]
fn sb_with_fence_sc_cta_across_blocks_allows_both_zero() {
    // cta-scoped fences of different blocks are not morally strong: no SC order between them.
    assert_eq!(
        store_buffering(Some(MemoryScope::Block)),
        Verdict::Fail(FailureKind::Assertion)
    );
}

#[test]
fn sb_with_fence_sc_cta_across_blocks_advises_fence_sc_gpu() {
    for report in store_buffering_report(Some(MemoryScope::Block)) {
        let text = report.to_string();
        let failure = report.failure.expect("both zero is reached");
        assert!(
            failure.details.iter().any(|d| d.contains("fence.sc.gpu")
                && d.contains("fence.sc.cta of block")
                && d.contains("not morally strong")),
            "{text}"
        );
        assert!(!text.contains("no scope would order them"), "{text}");
    }
    // No advice where the fences are already morally strong or absent.
    for fence in [None, Some(MemoryScope::System)] {
        for report in store_buffering_report(fence) {
            assert!(!report.to_string().contains("fix advice"), "{report}");
        }
    }
}

#[test]
fn sb_without_fences_allows_both_zero() {
    assert_eq!(store_buffering(None), Verdict::Fail(FailureKind::Assertion));
}

/// Producer/consumer between blocks 0 and 1 of a grid of clusters of two blocks.
fn clustered(scope: MemoryScope, consumer_block: u32) -> Verdict {
    let mut k = Kernel::new("clustered_mp", Grid::new(4, 1).with_clusters(2));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    verdict(Checker::check_all(&k, move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 7);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, scope);
        } else if t.bid() == consumer_block
            && t.atomic_load(&flag, 0, MemoryOrder::Acquire, scope) == 1
        {
            check!(t.load(&data, 0) == 7);
        }
    }))
}

#[test]
fn block_scope_within_a_cluster_is_fixed_by_cluster_scope() {
    assert_eq!(
        clustered(MemoryScope::Block, 1),
        Verdict::Fail(FailureKind::ScopedRace {
            fix: Scope::Cluster
        })
    );
    assert_eq!(clustered(MemoryScope::Cluster, 1), Verdict::Pass);
}

#[test]
fn cluster_scope_across_clusters_is_fixed_by_device_scope() {
    assert_eq!(
        clustered(MemoryScope::Cluster, 2),
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
    assert_eq!(clustered(MemoryScope::Device, 2), Verdict::Pass);
}
