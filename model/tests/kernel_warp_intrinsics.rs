//! Issue 34 item 2: `width` on shuffles, `__reduce_*_sync`, `__match_all_sync`, `__uni_sync`,
//! `elect.sync` and `__nanosleep` in the kernel API, each against the CUDA Programming Guide's or
//! the PTX ISA's own statement of its result.

use scopecheck_model::check;
use scopecheck_model::kernel::*;

/// The lane a shuffle reads by the CUDA Programming Guide's description of `width` (segments of
/// `width` lanes with logical lane ids from 0), written independently of the PTX `c` operand the
/// API computes from: `__shfl_sync` reads logical lane `src % width` of the caller's segment;
/// `__shfl_up_sync` lane `lane - delta` unless that leaves the segment; `__shfl_down_sync` lane
/// `lane + delta` unless that leaves the segment; `__shfl_xor_sync` lane `lane ^ m` unless it
/// lies in a later segment ("if they attempt to access elements from later groups of threads
/// their own value of var will be returned").
fn cuda_source(mode: usize, lane: u32, b: u32, width: u32) -> u32 {
    let start = lane / width * width;
    match mode {
        0 => start + b % width,
        1 if lane - start >= b => lane - b,
        2 if lane - start + b < width => lane + b,
        3 if (lane ^ b) < start + width => lane ^ b,
        _ => lane,
    }
}

#[test]
fn shuffles_with_width_read_the_lane_the_cuda_guide_names() {
    const LANES: u32 = 8;
    for width in [1, 2, 4, 8] {
        for mode in 0..4 {
            for b in [0, 1, 2, 3, 5] {
                let k = Kernel::new("width", Grid::new(1, LANES).with_warp_size(LANES));
                let report = Checker::dfs().check(&k, move |t| {
                    let (mask, lane) = (t.warp_mask(), t.lane());
                    let v = lane * 10 + 1;
                    let got = match mode {
                        0 => t.shfl_sync_width(mask, v, b, width),
                        1 => t.shfl_up_sync_width(mask, v, b, width),
                        2 => t.shfl_down_sync_width(mask, v, b, width),
                        _ => t.shfl_xor_sync_width(mask, v, b, width),
                    };
                    let want = cuda_source(mode, lane, b, width) * 10 + 1;
                    check!(
                        got == want,
                        "mode {mode} width {width} b {b} lane {lane}: {got}"
                    );
                });
                assert!(report.passed(), "mode {mode} width {width} b {b}: {report}");
            }
        }
    }
}

#[test]
fn a_width_that_is_no_power_of_two_or_wider_than_the_warp_is_misuse() {
    for width in [0, 3, 8] {
        let k = Kernel::new("bad width", Grid::new(1, 4).with_warp_size(4));
        let report = Checker::dfs().check(&k, move |t| {
            let _ = t.shfl_down_sync_width(t.warp_mask(), 1u32, 1, width);
        });
        assert_eq!(
            report.verdict(),
            Verdict::Fail(FailureKind::WarpMisuse),
            "width {width}: {report}"
        );
        assert!(report.to_string().contains("power of 2"), "{report}");
    }
}

#[test]
fn reductions_fold_every_lane_of_the_mask() {
    let k = Kernel::new("redux", Grid::new(1, 3).with_warp_size(3));
    let report = Checker::dfs().check(&k, move |t| {
        let (mask, lane) = (t.warp_mask(), t.lane());
        check!(t.reduce_add_sync(mask, u32::MAX - lane) == u32::MAX.wrapping_mul(3) - 3);
        check!(t.reduce_add_sync(mask, lane as i32 - 2) == -3);
        check!(t.reduce_min_sync(mask, 5 - lane as i32) == 3);
        check!(t.reduce_min_sync(mask, lane + 4) == 4);
        check!(t.reduce_max_sync(mask, lane as i32 - 5) == -3);
        check!(t.reduce_max_sync(mask, 7 * lane) == 14);
        check!(t.reduce_and_sync(mask, 0xf0 | 1 << lane) == 0xf0);
        check!(t.reduce_or_sync(mask, 1 << lane) == 0b111);
        check!(t.reduce_xor_sync(mask, 0b11 << lane) == 0b1001);
    });
    assert!(report.passed(), "{report}");
}

#[test]
fn a_reduction_orders_no_memory() {
    let mut k = Kernel::new("redux race", Grid::new(1, 2).with_warp_size(2));
    let s = k.shared::<u32>("s", 2);
    let report = Checker::dfs().check(&k, move |t| {
        let lane = t.lane() as usize;
        t.store(&s, lane, 1);
        let _ = t.reduce_or_sync(t.warp_mask(), 1);
        let _ = t.load(&s, 1 - lane);
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::DataRace),
        "{report}"
    );
}

#[test]
fn match_all_and_uni_give_the_ptx_results() {
    let k = Kernel::new("match all", Grid::new(1, 3).with_warp_size(3));
    let report = Checker::dfs().check(&k, move |t| {
        let lane = t.lane();
        check!(t.match_all_sync(0b111, 4u64) == (0b111, true));
        check!(t.match_all_sync(0b111, lane.min(1)) == (0, false));
        check!(t.uni_sync(0b111, lane < 5));
        check!(!t.uni_sync(0b111, lane == 2));
    });
    assert!(report.passed(), "{report}");
    // "all non-exited threads in membermask": lane 2 exits, the two others match.
    let k = Kernel::new("match all exited", Grid::new(1, 3).with_warp_size(3));
    let report = Checker::dfs().check(&k, move |t| {
        if t.lane() == 2 {
            return;
        }
        check!(t.match_all_sync(0b111, 9u32) == (0b011, true));
    });
    assert!(report.passed(), "{report}");
}

/// The ISA does not say which lane `elect.sync` elects: some execution elects each lane, and an
/// execution never elects two lanes or changes its leader for the same mask.
#[test]
fn elect_explores_every_leader_and_keeps_it_for_the_mask() {
    for lane in 0..3u32 {
        let k = Kernel::new("elect", Grid::new(1, 3).with_warp_size(3));
        let report = Checker::dfs().check(&k, move |t| {
            let me = t.elect_one_sync();
            check!(!(me && t.lane() == lane), "lane {lane} elected");
        });
        assert_eq!(
            report.verdict(),
            Verdict::Fail(FailureKind::Assertion),
            "lane {lane}: {report}"
        );
    }
    let k = Kernel::new("elect once", Grid::new(1, 3).with_warp_size(3));
    let report = Checker::dfs().check(&k, move |t| {
        let first = t.ballot_sync(0b111, t.elect_sync(0b111));
        check!(first.count_ones() == 1);
        check!(t.ballot_sync(0b111, t.elect_sync(0b111)) == first);
    });
    assert!(report.passed(), "{report}");
    assert!(report.executions >= 3, "{report}");
}

/// `__nanosleep` in a failed spin iteration is the iteration's end: a flag never set is a proven
/// hang (every store it may read holds what it read), not a possible hang at the step bound.
#[test]
fn nanosleep_ends_a_spin_iteration() {
    let mut k = Kernel::new("sleep forever", Grid::new(1, 1));
    let flag = k.global::<u32>("flag", 1);
    let report = Checker::dfs().check(&k, move |t| {
        while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 0 {
            t.nanosleep(100);
        }
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::Hang),
        "{report}"
    );
}

/// A leader that exited is not active: the next election over its mask elects a lane taking
/// part.
#[test]
fn elect_never_elects_an_exited_lane() {
    let k = Kernel::new("elect after exit", Grid::new(1, 3).with_warp_size(3));
    let report = Checker::dfs().check(&k, move |t| {
        let first = t.elect_sync(0b111);
        if first {
            return;
        }
        let again = t.ballot_sync(0b111, t.elect_sync(0b111));
        check!(again.count_ones() == 1);
    });
    assert!(report.passed(), "{report}");
}
