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
