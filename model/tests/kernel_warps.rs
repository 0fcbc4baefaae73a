//! Warps, named barriers and voting barriers through the kernel API: the warp example of
//! `docs/kernel-api.md`, and each misuse the runtime reports.

use scopecheck_model::kernel::*;

#[test]
fn readme_warp_reduction_example() {
    let mut k = Kernel::new("warp reduce", Grid::new(1, 2).with_warp_size(2));
    let s = k.shared::<i32>("s", 2);
    let body = |sync: bool| {
        move |t: &ThreadCtx| {
            let lane = t.lane() as usize;
            t.store(&s, lane, lane as i32 + 1);
            if sync {
                t.syncwarp(t.warp_mask())
            }
            if lane == 0 {
                let _ = t.load(&s, 0) + t.load(&s, 1);
            }
        }
    };
    assert_eq!(
        Checker::dfs().check(&k, body(false)).verdict(),
        Verdict::Fail(FailureKind::DataRace)
    );
    assert!(Checker::dfs().check(&k, body(true)).passed());
    let report = Checker::dfs().check(&k, |t| {
        let v = t.lane() + 1;
        scopecheck_model::check!(v + t.shfl_xor_sync(t.warp_mask(), v, 1) == 3);
    });
    assert!(report.passed(), "{report}");
}

fn verdict(k: &Kernel, body: impl Fn(&ThreadCtx) + Send + Sync + 'static) -> Verdict {
    let report = Checker::dfs().check(k, body);
    println!("{report}");
    report.verdict()
}

#[test]
fn a_mask_without_the_caller_is_warp_misuse() {
    let k = Kernel::new("own bit", Grid::new(1, 2).with_warp_size(2));
    let v = verdict(&k, |t| t.syncwarp(0b10));
    assert_eq!(v, Verdict::Fail(FailureKind::WarpMisuse));
}

#[test]
fn lanes_disagreeing_on_the_mask_or_operation_is_warp_misuse() {
    let k = Kernel::new("mask mismatch", Grid::new(1, 2).with_warp_size(2));
    let v = verdict(&k, |t| {
        if t.lane() == 0 {
            t.syncwarp(0b11);
        } else {
            let _ = t.ballot_sync(0b11, true);
        }
    });
    assert_eq!(v, Verdict::Fail(FailureKind::WarpMisuse));
}

#[test]
fn a_shuffle_from_a_lane_outside_the_mask_is_warp_misuse() {
    let k = Kernel::new("shfl source", Grid::new(1, 2).with_warp_size(2));
    let v = verdict(&k, |t| {
        if t.lane() == 0 {
            let _ = t.shfl_sync(0b01, 5u32, 1);
        }
    });
    assert_eq!(v, Verdict::Fail(FailureKind::WarpMisuse));
}

#[test]
fn a_lane_that_exits_is_not_waited_for() {
    // CUDA, __syncwarp: "all non-exited threads named in mask must execute a corresponding
    // __syncwarp()"; PTX ISA, vote.sync/shfl.sync/match.sync: they wait "until all non-exited
    // threads corresponding to membermask have executed" them. Lane 1 exits before or while
    // lane 0 waits: either way lane 0 goes on.
    let k = Kernel::new("exit", Grid::new(1, 2).with_warp_size(2));
    assert_eq!(
        verdict(&k, |t| {
            if t.lane() == 0 {
                t.syncwarp(0b11);
            }
        }),
        Verdict::Pass
    );
    let v = verdict(&k, |t| {
        if t.lane() == 0 {
            scopecheck_model::check!(t.ballot_sync(0b11, true) == 0b01);
            scopecheck_model::check!(!t.all_sync(0b11, false));
            scopecheck_model::check!(t.match_any_sync(0b11, 7u32) == 0b01);
        }
    });
    assert_eq!(v, Verdict::Pass);
    // A shuffle that reads the exited lane reads a lane not taking part: misuse.
    let v = verdict(&k, |t| {
        if t.lane() == 0 {
            let _ = t.shfl_sync(0b11, 1u32, 1);
        }
    });
    assert_eq!(v, Verdict::Fail(FailureKind::WarpMisuse));
}

#[test]
fn only_syncwarp_orders_memory() {
    // PTX ISA, bar.warp.sync: "bar.warp.sync also guarantee memory ordering among threads
    // participating in barrier"; the exchanges move register values only.
    let mut k = Kernel::new("publish", Grid::new(1, 2).with_warp_size(2));
    let s = k.shared::<i32>("s", 2);
    let publish = |op: u8| {
        move |t: &ThreadCtx| {
            let lane = t.lane() as usize;
            t.store(&s, lane, 1);
            match op {
                0 => t.syncwarp(0b11),
                1 => {
                    let _ = t.ballot_sync(0b11, true);
                }
                2 => {
                    let _ = t.shfl_sync(0b11, 0u32, 0);
                }
                3 => {
                    let _ = t.any_sync(0b11, true);
                }
                _ => {
                    let _ = t.match_any_sync(0b11, 0u32);
                }
            }
            let _ = t.load(&s, 1 - lane);
        }
    };
    assert_eq!(verdict(&k, publish(0)), Verdict::Pass);
    for op in 1..5 {
        assert_eq!(
            verdict(&k, publish(op)),
            Verdict::Fail(FailureKind::DataRace),
            "exchange {op}"
        );
    }
}

#[test]
fn activemask_groups_the_lanes_executing_it_together() {
    // PTX ISA, activemask: the lanes executing it together get one set. Every lane of a group
    // gets the same mask, which names itself, so a shuffle over it always meets.
    let k = Kernel::new("activemask", Grid::new(1, 3).with_warp_size(3));
    let v = verdict(&k, |t| {
        let m = t.activemask();
        scopecheck_model::check!(m & (1 << t.lane()) != 0);
        let leader = m.trailing_zeros();
        let got = t.shfl_sync(m, m, leader);
        scopecheck_model::check!(got == m);
    });
    assert_eq!(v, Verdict::Pass);
    // Some execution runs a lane alone, and some runs all of them together.
    let alone = Checker::dfs().check(&k, |t| {
        scopecheck_model::check!(t.activemask().count_ones() > 1);
    });
    assert_eq!(alone.verdict(), Verdict::Fail(FailureKind::Assertion));
    let together = Checker::dfs().check(&k, |t| {
        scopecheck_model::check!(t.activemask().count_ones() < 3);
    });
    assert_eq!(together.verdict(), Verdict::Fail(FailureKind::Assertion));
    // A lane that exited or already left the activemask is never in a later group's mask.
    let v = verdict(&k, |t| {
        if t.lane() == 2 {
            return;
        }
        scopecheck_model::check!(t.activemask() & 0b100 == 0);
    });
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn votes_and_matches_count_the_right_lanes() {
    let k = Kernel::new("votes", Grid::new(1, 3).with_warp_size(4));
    let v = verdict(&k, |t| {
        let lane = t.lane();
        let mask = t.warp_mask() & 0b111;
        scopecheck_model::check!(t.ballot_sync(mask, lane >= 1) == 0b110);
        scopecheck_model::check!(t.any_sync(mask, lane == 2));
        scopecheck_model::check!(!t.all_sync(mask, lane == 2));
        let same = t.match_any_sync(mask, lane / 2);
        scopecheck_model::check!(same == if lane < 2 { 0b011 } else { 0b100 });
        // Lane 0 has no lane below it and keeps its own value.
        let up = t.shfl_up_sync(mask, lane * 10, 1);
        scopecheck_model::check!(up == lane.saturating_sub(1) * 10);
    });
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn a_shuffle_from_a_missing_lane_is_warp_misuse() {
    // Three threads in a 4-lane warp: lane 2's `shfl_down` source, lane 3, does not exist.
    let k = Kernel::new("partial warp", Grid::new(1, 3).with_warp_size(4));
    let v = verdict(&k, |t| {
        let _ = t.shfl_down_sync(0b111, t.lane(), 1);
    });
    assert_eq!(v, Verdict::Fail(FailureKind::WarpMisuse));
}

#[test]
fn named_barrier_rules() {
    let k = Kernel::new("bar", Grid::new(1, 4).with_warp_size(2));
    // Not a multiple of the warp size.
    let v = verdict(&k, |t| t.bar_sync(1, 3));
    assert_eq!(v, Verdict::Fail(FailureKind::BarrierMisuse));
    // No barrier 16.
    let v = verdict(&k, |t| t.bar_sync(16, 4));
    assert_eq!(v, Verdict::Fail(FailureKind::BarrierMisuse));
    // More threads than the block has.
    let v = verdict(&k, |t| t.bar_sync(0, 6));
    assert_eq!(v, Verdict::Fail(FailureKind::BarrierMisuse));
    // A count the block never reaches: the waiters hang.
    let v = verdict(&k, |t| {
        if t.warp() == 0 {
            t.bar_sync(2, 4)
        }
    });
    assert_eq!(v, Verdict::Fail(FailureKind::Hang));
    // Two warps, each its own barrier of 2: fine.
    let v = verdict(&k, |t| t.bar_sync(t.warp(), 2));
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn syncthreads_votes_and_divergence() {
    let k = Kernel::new("votes", Grid::new(1, 3));
    let v = verdict(&k, |t| {
        let n = t.syncthreads_count(t.tid() > 0);
        scopecheck_model::check!(n == 2);
        scopecheck_model::check!(t.syncthreads_or(t.tid() == 2));
        scopecheck_model::check!(!t.syncthreads_and(t.tid() == 2));
    });
    assert_eq!(v, Verdict::Pass);
    let v = verdict(&k, |t| {
        if t.tid() == 0 {
            t.syncthreads_count(true);
        }
    });
    assert_eq!(v, Verdict::Fail(FailureKind::BarrierDivergence));
}

#[test]
fn three_dimensional_ids_follow_the_programming_guide() {
    let mut k = Kernel::new("3-D", Grid::shaped((1, 2), (2, 1, 2)));
    let ids = k.global::<u32>("ids", 8);
    k.postcondition("ids[i] == i", move |m| {
        (0..8).all(|i| m.get(&ids, i) == i as u32)
    });
    let v = verdict(&k, move |t| {
        let (x, z) = (t.tid_x(), t.tid_z());
        scopecheck_model::check!(t.tid_y() == 0 && t.bid_x() == 0 && t.bid_z() == 0);
        let linear = t.bid_y() * 4 + x + z * 2;
        t.store(&ids, linear as usize, linear);
    });
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn a_write_after_an_nc_read_is_a_non_coherent_read() {
    let mut k = Kernel::new("nc then write", Grid::new(1, 1));
    let x = k.global::<u32>("x", 1);
    let v = verdict(&k, move |t| {
        let _ = t.load_nc(&x, 0);
        t.store(&x, 0, 1);
    });
    assert_eq!(v, Verdict::Fail(FailureKind::NonCoherentRead));
}
