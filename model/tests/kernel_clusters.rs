//! Clusters and the async proxy in the kernel API: the corpus's Hopper bug patterns
//! (`corpus/bugs/hopper.rs`) under every engine that fits them, with a readable report for each
//! failure, and the cluster API's own rules.

use crate::corpus;

use scopecheck_model::check;
use scopecheck_model::kernel::*;

fn hopper_cases() -> Vec<corpus::BugCase> {
    corpus::all()
        .into_iter()
        .filter(|c| c.name.starts_with("hopper/"))
        .collect()
}

#[test]
fn hopper_bug_patterns_fail_and_their_fixes_pass_under_every_engine() {
    let cases = hopper_cases();
    assert!(cases.len() >= 14, "{} cases", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        for report in case.run_every_engine() {
            println!(
                "{}: {} under {}",
                case.name,
                case.got_words(&report),
                report.engine
            );
            if !case.agrees(&report) {
                wrong.push(format!("{} under {}:\n{report}", case.name, report.engine));
            } else if !report.passed() {
                // A failure comes with a trace that names what went wrong.
                let text = report.to_string();
                assert!(text.contains("#1 "), "{}: no trace\n{text}", case.name);
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn a_failure_report_says_what_happened() {
    let find = |name: &str| {
        let case = hopper_cases().into_iter().find(|c| c.name == name).unwrap();
        case.run(&Checker::dfs()).to_string()
    };
    let exit = find("hopper/dsmem-write-after-peer-exit");
    assert!(
        exit.contains("use after exit") && exit.contains("which has exited"),
        "{exit}"
    );
    let init = find("hopper/fresh-mbarrier-without-fence-mbarrier-init");
    assert!(init.contains("before its init"), "{init}");
    let scope = find("hopper/remote-arrive-cta-scope");
    assert!(scope.contains("releases nothing to block 0"), "{scope}");
    let proxy = find("hopper/bulk-store-after-syncthreads-only");
    assert!(proxy.contains("fence.proxy.async"), "{proxy}");
}

#[test]
fn ranks_and_peer_blocks() {
    let k = Kernel::new("ranks", Grid::new(4, 1).with_clusters(2));
    let report = Checker::dfs().check(&k, |t| {
        check!(t.cluster_nctarank() == 2);
        check!(t.cluster_ctarank() == t.bid() % 2);
        check!(t.cluster_id() == t.bid() / 2);
    });
    assert!(report.passed(), "{report}");
}

#[test]
fn a_rank_outside_the_cluster_fails() {
    let mut k = Kernel::new("bad rank", Grid::new(2, 1).with_clusters(2));
    let tile = k.shared::<i32>("tile", 1);
    let report = Checker::dfs().check(&k, move |t| {
        let _ = tile.map_shared_rank(t, 2);
    });
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::Assertion));
    assert!(report.to_string().contains("ranks 0..2"), "{report}");
}

#[test]
fn the_cluster_barrier_needs_clusters() {
    let k = Kernel::new("no clusters", Grid::new(2, 1));
    let report = Checker::dfs().check(&k, |t| t.cluster_sync());
    assert_eq!(report.verdict(), Verdict::Fail(FailureKind::Assertion));
    assert!(report.to_string().contains("with_clusters"), "{report}");
}

#[test]
fn a_block_that_exits_without_arriving_lets_its_peers_wait_complete() {
    // PTX ISA, barrier.cluster: the wait waits "for all non-exited threads of the cluster to
    // perform barrier.cluster.arrive": block 1 exits, so block 0's wait completes.
    let k = Kernel::new("exit without arrive", Grid::new(2, 1).with_clusters(2));
    let report = Checker::dfs().check(&k, |t| {
        if t.cluster_ctarank() == 0 {
            t.cluster_sync();
        }
    });
    assert!(report.passed(), "{report}");
}

#[test]
fn a_block_that_never_arrives_nor_exits_hangs_its_peers() {
    // Block 1 waits for a flag block 0 sets only after the cluster barrier, which waits for
    // block 1 to arrive or exit: neither happens.
    let mut k = Kernel::new("missing arrive", Grid::new(2, 1).with_clusters(2));
    let flag = k.global::<i32>("flag", 1);
    let report = Checker::dfs().check(&k, move |t| {
        if t.cluster_ctarank() == 0 {
            t.cluster_sync();
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
        } else {
            while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) != 1 {
                t.spin_loop();
            }
        }
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::Hang),
        "{report}"
    );
    assert!(
        report.to_string().contains("barrier.cluster.wait"),
        "{report}"
    );
}

#[test]
fn arriving_twice_in_one_phase_is_a_misuse() {
    // PTX ISA, barrier.cluster: "Each thread must arrive at the barrier only once before the
    // barrier completes"; block 1 has not arrived yet, so block 0's second arrive is early.
    let k = Kernel::new("double arrive", Grid::new(2, 1).with_clusters(2));
    let report = Checker::dfs().check(&k, |t| {
        if t.cluster_ctarank() == 0 {
            let _ = t.barrier_cluster_arrive();
            let _ = t.barrier_cluster_arrive();
        } else {
            t.cluster_sync();
        }
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::MBarrierMisuse),
        "{report}"
    );
    assert!(report.to_string().contains("twice in phase 0"), "{report}");
}

#[test]
fn a_relaxed_cluster_arrive_orders_no_data() {
    let mut k = Kernel::new("relaxed cluster arrive", Grid::new(2, 1).with_clusters(2));
    let out = k.global::<i32>("out", 1);
    let report = Checker::dfs().check(&k, move |t| {
        if t.cluster_ctarank() == 1 {
            t.store(&out, 0, 1);
        }
        let arrival = t.barrier_cluster_arrive_relaxed();
        t.barrier_cluster_wait(arrival);
        if t.cluster_ctarank() == 0 {
            let _ = t.load(&out, 0);
        }
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::DataRace),
        "{report}"
    );
}

/// Every block of a grid cut into clusters of `dims` has one cluster and one rank, the ranks of
/// a cluster are 0..volume, and `cluster_block` inverts the pair (CUDA: the cluster of
/// `blockIdx` is `blockIdx / dims`; `%cluster_ctarank` is x-major over `%cluster_ctaid`).
#[test]
fn two_and_three_dimensional_clusters_number_their_blocks_x_major() {
    for (grid, dims) in [
        (Dim3::new(4, 2, 1), Dim3::new(2, 2, 1)),
        (Dim3::new(2, 4, 2), Dim3::new(1, 2, 2)),
        (Dim3::new(6, 2, 1), Dim3::new(3, 1, 1)),
        (Dim3::new(4, 4, 1), Dim3::new(2, 4, 1)),
    ] {
        let g = Grid::shaped(grid, 1).with_cluster_dims(dims);
        assert_eq!(g.cluster_shape_error(), None);
        assert_eq!(g.clusters() * dims.volume(), g.blocks);
        let mut seen = std::collections::HashSet::new();
        for b in 0..g.blocks {
            let (c, r) = (g.cluster_of(b), g.cluster_rank(b));
            let (at, id) = (grid.index_of(b), g.cluster_ctaid(b));
            assert_eq!(
                (id.x, id.y, id.z),
                (at.x % dims.x, at.y % dims.y, at.z % dims.z)
            );
            assert_eq!(r, id.x + id.y * dims.x + id.z * dims.x * dims.y);
            let cl = g.cluster_grid().index_of(c);
            assert_eq!(
                (cl.x, cl.y, cl.z),
                (at.x / dims.x, at.y / dims.y, at.z / dims.z)
            );
            assert_eq!(g.cluster_block(c, r), b, "{grid:?} / {dims:?}: block {b}");
            assert!(seen.insert((c, r)));
        }
    }
    let g = Grid::shaped((3, 2), 1).with_cluster_dims((2, 2));
    let why = g
        .cluster_shape_error()
        .expect("3x2 blocks do not divide into 2x2 clusters");
    assert!(why.contains("multiple of the cluster size"), "{why}");
}

/// Message passing at `.cluster` scope between block 0 and block `reader` of a 4x2 grid of 2x2
/// clusters: cluster 0 holds blocks 0, 1, 4 and 5 (linear ids), cluster 1 blocks 2, 3, 6, 7.
fn cluster_scope_mp(reader: u32) -> Report {
    let grid = Grid::shaped((4, 2), 1).with_cluster_dims((2, 2));
    let mut k = Kernel::new("2-D cluster scope", grid);
    let data = k.global::<u32>("data", 1);
    let flag = k.global::<u32>("flag", 1);
    Checker::dfs().check(&k, move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 1);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Cluster);
        } else if t.bid() == reader
            && t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Cluster) == 1
        {
            check!(t.load(&data, 0) == 1);
        }
    })
}

#[test]
fn cluster_scope_reaches_the_blocks_of_a_two_dimensional_cluster_only() {
    // Block 4 is (0, 1): the same 2x2 cluster as block 0.
    let same = cluster_scope_mp(4);
    assert!(same.passed(), "{same}");
    // Block 2 is (2, 0): the next cluster, outside .cluster scope.
    let other = cluster_scope_mp(2);
    assert!(
        matches!(
            other.verdict(),
            Verdict::Fail(FailureKind::ScopedRace { .. })
        ),
        "{other}"
    );
}

#[test]
fn a_multicast_mask_names_ranks_of_a_two_dimensional_cluster() {
    // Rank 0 multicasts one tile to the CTAs of its row, ranks 0 and 1 (mask 0b0011), which
    // initialise a barrier and wait; the other row's CTAs, ranks 2 and 3, exit at once (the
    // cluster barrier waits for non-exited threads only). A mask naming a CTA of the other row
    // would signal a barrier that CTA never initialised.
    let grid = Grid::shaped((2, 2), 1).with_cluster_dims((2, 2));
    let mut k = Kernel::new("2-D multicast", grid);
    let src = k.global_from::<u32>("src", &[9, 9, 9, 9]);
    let tile = k.shared::<u32>("tile", 4);
    let full = k.mbarriers("full", 1);
    // A mask naming a CTA of the other row misuses the barrier in every execution, so a sample
    // of schedules decides the test (the exhaustive DFS agrees, in 19 s instead of a fraction).
    let report = Checker::random(100, 1).check(&k, move |t| {
        if t.cluster_ctaid().y == 1 {
            return;
        }
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 16);
        t.cluster_sync();
        if t.cluster_ctarank() == 0 {
            t.bulk_copy_global_to_shared_multicast(&tile, 0, &src, 0, 16, &bar, 0b0011);
        }
        bar.wait_parity(t, 0);
        check!(t.load(&tile, 3) == 9);
    });
    assert!(report.passed(), "{report}");
}
