//! `st.async` and `red.async` in the kernel API (`ThreadCtx::st_async`, `st_async_vec`,
//! `red_async`): what each writes, the operations and types the PTX ISA allows, and the misuses
//! the runtime reports. The corpus's `st-async/*` cases (`corpus/bugs/st_async.rs`) hold the
//! ordering patterns, checked here under every engine.

use crate::corpus;

use scopecheck_model::check;
use scopecheck_model::kernel::*;
use scopecheck_model::runtime::async_copy::{RedAsync, RedAsyncType};

#[test]
fn st_async_cases_agree_under_every_engine() {
    let cases: Vec<_> = corpus::all()
        .into_iter()
        .filter(|c| c.name.starts_with("st-async/"))
        .collect();
    assert_eq!(cases.len(), 7);
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
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Block 1 runs `produce` on block 0's `dst` and barrier; block 0 arms its barrier for `bytes`,
/// waits at `.cluster` scope and hands `dst` to `consume`.
fn peer_kernel(
    bytes: u64,
    produce: impl Fn(&ThreadCtx, &PeerShared<u32>, &PeerMBarrier) + Send + Sync + 'static,
    consume: impl Fn(&ThreadCtx, &Shared<u32>) + Send + Sync + 'static,
    init: &[u32],
) -> Report {
    let mut k = Kernel::new("peer", Grid::new(2, 1).with_clusters(2));
    let dst = k.shared::<u32>("dst", 4);
    let full = k.mbarriers("full", 1);
    let init = init.to_vec();
    Checker::dfs().check(&k, move |t| {
        let bar = full.at(0);
        if t.cluster_ctarank() == 0 {
            for (i, &v) in init.iter().enumerate() {
                t.store(&dst, i, v);
            }
            bar.init(t, 1);
            bar.arrive_expect_tx(t, bytes);
        }
        t.cluster_sync();
        if t.cluster_ctarank() == 1 {
            produce(t, &dst.map_shared_rank(t, 0), &bar.map_shared_rank(t, 0));
        } else {
            bar.wait_parity_scoped(t, 0, MemoryOrder::Acquire, MemoryScope::Cluster);
            consume(t, &dst);
        }
        // Block 0's shared memory outlives block 1's accesses.
        t.cluster_sync();
    })
}

#[test]
fn st_async_vec_writes_every_element_and_completes_their_bytes() {
    for n in [2usize, 4] {
        let values: Vec<u32> = (1..=n as u32).collect();
        let expect = values.clone();
        let report = peer_kernel(
            4 * n as u64,
            move |t, dst, bar| t.st_async_vec(dst, 0, &values, bar),
            move |t, dst| {
                for (i, &v) in expect.iter().enumerate() {
                    check!(t.load(dst, i) == v);
                }
            },
            &[],
        );
        assert!(report.passed(), "v{n}: {report}");
    }
}

#[test]
fn each_red_async_op_reduces_as_the_isa_says() {
    // (op, operand, old, new) on a u32 destination.
    let table = [
        (RedAsyncOp::Add, 5, 7, 12),
        (RedAsyncOp::Min, 5, 7, 5),
        (RedAsyncOp::Max, 5, 7, 7),
        (RedAsyncOp::Inc, 7, 7, 0),
        (RedAsyncOp::Inc, 9, 7, 8),
        (RedAsyncOp::Dec, 9, 0, 9),
        (RedAsyncOp::Dec, 5, 7, 5),
        (RedAsyncOp::Dec, 9, 7, 6),
        (RedAsyncOp::And, 0b110, 0b011, 0b010),
        (RedAsyncOp::Or, 0b110, 0b011, 0b111),
        (RedAsyncOp::Xor, 0b110, 0b011, 0b101),
    ];
    for (op, operand, old, new) in table {
        let report = peer_kernel(
            4,
            move |t, dst, bar| t.red_async(dst, 0, op, operand, bar),
            move |t, dst| check!(t.load(dst, 0) == new),
            &[old],
        );
        assert!(
            report.passed(),
            "{} {operand} on {old}: {report}",
            op.name()
        );
    }
}

#[test]
fn red_async_min_max_compare_s32_as_signed_and_u32_as_unsigned() {
    let min = RedAsync::new(RedAsyncOp::Min, RedAsyncType::S32, (-3i32) as u32 as u64).unwrap();
    assert_eq!(min.apply(4), (-3i32) as u32 as u64);
    let min = RedAsync::new(RedAsyncOp::Min, RedAsyncType::U32, (-3i32) as u32 as u64).unwrap();
    assert_eq!(min.apply(4), 4);
    let max = RedAsync::new(RedAsyncOp::Max, RedAsyncType::S32, (-3i32) as u32 as u64).unwrap();
    assert_eq!(max.apply(4), 4);
    let add = RedAsync::new(RedAsyncOp::Add, RedAsyncType::U64, 1).unwrap();
    assert_eq!(add.apply(u32::MAX as u64), 1 << 32);
    let add = RedAsync::new(RedAsyncOp::Add, RedAsyncType::U32, 1).unwrap();
    assert_eq!(add.apply(u32::MAX as u64), 0);
}

#[test]
fn red_async_takes_only_the_isa_types_of_each_op() {
    use RedAsyncType::*;
    for op in RedAsyncOp::ALL {
        for ty in [U32, S32, U64, B32] {
            let allowed = match op {
                RedAsyncOp::Inc | RedAsyncOp::Dec => ty == U32,
                RedAsyncOp::Min | RedAsyncOp::Max => ty == U32 || ty == S32,
                RedAsyncOp::And | RedAsyncOp::Or | RedAsyncOp::Xor => ty == B32,
                RedAsyncOp::Add => ty == U32 || ty == S32 || ty == U64,
            };
            let got = RedAsync::new(op, ty, 1);
            assert_eq!(got.is_ok(), allowed, "{}.{}", op.name(), ty.name());
            if let Err(why) = got {
                assert!(why.starts_with("red.async."), "{why}");
            }
        }
        assert_eq!(RedAsyncOp::from_name(op.name()), Some(op));
    }
}

#[test]
fn red_async_inc_on_i32_fails_the_kernel_with_the_isa_forms() {
    let mut k = Kernel::new("inc.s32", Grid::new(2, 1).with_clusters(2));
    let dst = k.shared::<i32>("dst", 1);
    let full = k.mbarriers("full", 1);
    let report = Checker::dfs().check(&k, move |t| {
        if t.cluster_ctarank() == 1 {
            let bar = full.at(0).map_shared_rank(t, 0);
            t.red_async(&dst.map_shared_rank(t, 0), 0, RedAsyncOp::Inc, 1, &bar);
        }
    });
    let text = report.to_string();
    assert!(
        !report.passed() && text.contains(".inc takes .u32"),
        "{text}"
    );
}

#[test]
fn st_async_signalling_a_barrier_of_another_cta_is_a_misuse() {
    let mut k = Kernel::new("wrong barrier", Grid::new(2, 1).with_clusters(2));
    let dst = k.shared::<u32>("dst", 1);
    let full = k.mbarriers("full", 1);
    let report = Checker::dfs().check(&k, move |t| {
        let bar = full.at(0);
        bar.init(t, 1);
        t.cluster_sync();
        if t.cluster_ctarank() == 1 {
            // The destination is block 0's, the barrier block 1's own.
            t.st_async(&dst.map_shared_rank(t, 0), 0, 1, &bar.map_shared_rank(t, 1));
        }
        t.cluster_sync();
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::MBarrierMisuse),
        "{report}"
    );
    assert!(
        report
            .to_string()
            .contains("not in the shared memory of block 1"),
        "{report}"
    );
}

#[test]
fn st_async_before_the_peer_initialised_its_barrier_is_a_misuse() {
    let mut k = Kernel::new("uninitialised", Grid::new(2, 1).with_clusters(2));
    let dst = k.shared::<u32>("dst", 1);
    let full = k.mbarriers("full", 1);
    let report = Checker::dfs().check(&k, move |t| {
        let bar = full.at(0);
        if t.cluster_ctarank() == 0 {
            bar.init(t, 1);
        } else {
            t.st_async(&dst.map_shared_rank(t, 0), 0, 1, &bar.map_shared_rank(t, 0));
        }
        t.cluster_sync();
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::MBarrierMisuse),
        "{report}"
    );
}

#[test]
fn the_issuer_writing_the_destination_after_st_async_races_with_it() {
    let report = peer_kernel(
        4,
        |t, dst, bar| {
            t.st_async(dst, 0, 1, bar);
            t.store(dst, 0, 2);
        },
        |_, _| {},
        &[],
    );
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::DataRace),
        "{report}"
    );
}

#[test]
fn st_async_of_a_one_byte_type_fails_the_kernel() {
    let mut k = Kernel::new("bool", Grid::new(2, 1).with_clusters(2));
    let dst = k.shared::<bool>("dst", 1);
    let full = k.mbarriers("full", 1);
    let report = Checker::dfs().check(&k, move |t| {
        if t.cluster_ctarank() == 1 {
            let bar = full.at(0).map_shared_rank(t, 0);
            t.st_async(&dst.map_shared_rank(t, 0), 0, true, &bar);
        }
    });
    assert!(report.to_string().contains(".type is one of"), "{report}");
}
