//! Hopper's litmus forms (mbarriers, bulk copies, clusters, distributed shared memory): they
//! parse into the IR meant, print back to text that parses to the same program, and misuse of
//! state spaces or operands is a `file:line:col` error.

use scopecheck_model::litmus::async_ops::{Arrival, BulkCompletion, SharedWindow};
use scopecheck_model::litmus::{self, AsyncOp, Fence, Instr, Operand, ProxyFence, SharedOf};
use scopecheck_model::scope::{Order, Scope};

const ALL: &str = r#"PTX async-all
"every Hopper form of the dialect"
{
x = 0; g = 0;
bar @ shared cta 1 = 0;
d @ shared cta 1,gpu 0 = 0;
s0 @ shared cta 0 = 7; s1 @ shared cta 1 = 0;
}
 P0@cta 0,cluster 0,gpu 0                                          | P1@cta 1,cluster 0,gpu 0                ;
 st.shared::cluster d, 1                                           | mbarrier.init bar, 2                    ;
 ld.relaxed.cluster.shared::cluster r1, d                          | fence.mbarrier_init.release.cluster     ;
 mbarrier.arrive.release.cluster.shared::cluster bar               | barrier.cluster.arrive.release          ;
 mbarrier.arrive.expect_tx.release.cluster.shared::cluster bar, 16 | barrier.cluster.wait.acquire            ;
 mbarrier.complete_tx.relaxed.cluster.shared::cluster bar, 16      | L:                                      ;
 mbarrier.expect_tx.cluster.shared::cluster bar, 32                | mbarrier.try_wait.parity.acquire.cluster r0, bar, 0 ;
 fence.proxy.async.shared::cta                                     | beq r0, 0, L                            ;
 fence.proxy.async.global                                          | cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes d, x, 16, bar ;
 cp.async.bulk.global.shared::cta.bulk_group g, s0, 16             | mbarrier.arrive bar                     ;
 cp.async.bulk.commit_group                                        | mbarrier.try_wait.parity r2, bar, 1     ;
 cp.async.bulk.wait_group.read 0                                   | fence.proxy.async                       ;
 barrier.cluster.arrive                                            | barrier.cluster.arrive.relaxed          ;
 barrier.cluster.wait                                              | cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes d, s1, 16, bar ;
exists (P1:r0 == 1)
"#;

fn op(p: &litmus::Program, t: usize, i: usize) -> &AsyncOp {
    match &p.threads[t].body[i].instr {
        Instr::Async(op) => op,
        other => panic!("P{t}[{i}] is {other:?}"),
    }
}

#[test]
fn reads_every_hopper_form() {
    let p = litmus::parse(ALL, "all.litmus").unwrap_or_else(|e| panic!("{e}"));
    let (bar, d, x) = (
        p.location_named("bar").unwrap(),
        p.location_named("d").unwrap(),
        p.location_named("x").unwrap(),
    );
    assert_eq!(p.shared_of(bar), Some(SharedOf { cta: 1, gpu: 0 }));
    assert_eq!(p.shared_of(x), None);
    assert_eq!(p.threads[0].placement.cluster, Some(0));
    assert_eq!(
        op(&p, 0, 2),
        &AsyncOp::MbarrierArrive {
            bar,
            order: Order::Release,
            scope: Scope::Cluster,
            window: SharedWindow::Cluster,
            arrival: Arrival::Count(Operand::Imm(1)),
        }
    );
    assert!(matches!(
        op(&p, 0, 3),
        AsyncOp::MbarrierArrive {
            arrival: Arrival::ExpectTx(Operand::Imm(16)),
            ..
        }
    ));
    // PTX ISA: `.sem` defaults to `.release` (arrive) / `.acquire` (try_wait), `.scope` to `.cta`.
    assert_eq!(
        op(&p, 1, 8),
        &AsyncOp::MbarrierArrive {
            bar,
            order: Order::Release,
            scope: Scope::Cta,
            window: SharedWindow::Cta,
            arrival: Arrival::Count(Operand::Imm(1)),
        }
    );
    assert!(matches!(
        op(&p, 1, 9),
        AsyncOp::MbarrierTryWait {
            order: Order::Acquire,
            scope: Scope::Cta,
            parity: Operand::Imm(1),
            ..
        }
    ));
    assert_eq!(
        op(&p, 1, 7),
        &AsyncOp::BulkCopy {
            dst: d,
            src: x,
            size: 16,
            completion: BulkCompletion::Mbarrier(bar)
        }
    );
    assert_eq!(
        p.threads[0].body[6].instr,
        Instr::Fence(Fence::Proxy(ProxyFence::AsyncSharedCta))
    );
    assert_eq!(
        op(&p, 0, 10),
        &AsyncOp::BulkWaitGroup {
            pending: 0,
            read: true
        }
    );
    assert_eq!(op(&p, 0, 12), &AsyncOp::ClusterWait);
    assert_eq!(
        op(&p, 1, 11),
        &AsyncOp::ClusterArrive {
            order: Order::Relaxed
        }
    );
}

#[test]
fn hopper_forms_round_trip() {
    let p = litmus::parse(ALL, "all.litmus").unwrap();
    let printed = litmus::print(&p);
    let again = litmus::parse(&printed, "printed").unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(p, again, "{printed}");
    // Shared memory is declared with its CTA; a peer's is reached through `.shared::cluster`,
    // the thread's own through `.shared::cta`.
    assert!(
        printed.contains("bar @ shared cta 1,gpu 0 = 0;"),
        "{printed}"
    );
    assert!(
        printed.contains("st.weak.shared::cluster d, 1"),
        "{printed}"
    );
    assert!(printed.contains("mbarrier.init bar, 2"), "{printed}");
    assert_eq!(litmus::print(&again), printed);
}

/// The error of `body` (rows after the header of a two-CTA cluster test), as `line:col: message`.
fn error_in(decls: &str, rows: &str) -> String {
    let src = format!(
        "PTX bad\n{{\nx = 0;\n{decls}\n}}\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@cta 2,gpu 0 ;\n{rows}\nexists (x == 0)\n"
    );
    let e = litmus::parse(&src, "bad.litmus").expect_err("must be rejected");
    let text = e.to_string();
    assert!(text.starts_with("bad.litmus:"), "{text}");
    format!("{}:{}: {}", e.span.line, e.span.col, e.message)
}

#[test]
fn state_spaces_and_operands_are_checked() {
    let shared = "b @ shared cta 1 = 0; y @ shared cta 1 = 0;";
    let cases = [
        // A peer's shared memory needs the cluster window.
        (
            "ld.shared::cta r0, y | | ;",
            "7:1: `y`: it is shared memory of peer cta 1",
        ),
        (
            "ld r0, y | | ;",
            "7:1: `y`: it is shared memory of peer cta 1",
        ),
        // P2 is a cluster of its own.
        (
            " | | ld.shared::cluster r0, y ;",
            "not in this thread's cluster",
        ),
        ("ld.global r0, y | | ;", "`.global` names global memory"),
        ("mbarrier.init x, 1 | | ;", "`x` is in global memory"),
        (
            "mbarrier.init b, 1 | | ;",
            "peer cta 1: reach it through `.shared::cluster`",
        ),
        ("mbarrier.arrive.cluster b | | ;", "peer cta 1"),
        (
            "mbarrier.try_wait.parity.shared::cluster r0, b, 0 | | ;",
            "waits on the executing CTA's own barrier",
        ),
        (
            "mbarrier.arrive.acquire b | | ;",
            "7:17: unknown or repeated qualifier `.acquire`",
        ),
        (
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes y, x, 10, b | | ;",
            "multiple of 16 bytes, found 10",
        ),
        (
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes x, x, 16, b | | ;",
            "`x` is in global memory",
        ),
        (
            "cp.async.bulk.global.shared::cta.bulk_group x, y, 16 | | ;",
            "peer cta 1",
        ),
        (
            "cp.async.bulk.shared::cta.global x, x, 16 | | ;",
            "unknown bulk copy",
        ),
        (
            "cp.async.bulk.wait_group.write 0 | | ;",
            "takes only `.read`",
        ),
        (
            "fence.mbarrier_init.acquire.cluster | | ;",
            "fence.mbarrier_init.release.cluster",
        ),
        (
            "fence.proxy.async.shared::gpu | | ;",
            "unknown proxy fence `.proxy.async.shared::gpu`",
        ),
        ("mbarrier.arrive.expect_tx | | ;", "takes 2 operands"),
    ];
    for (rows, want) in cases {
        let got = error_in(shared, rows);
        assert!(got.contains(want), "{rows}\n  got: {got}\n want: {want}");
    }
    assert!(error_in("z @ shared = 0;", "st z, 1 | | ;").contains("names its CTA"));
    assert!(
        error_in("z @ shared cta 5 = 0;", "st.shared::cluster z, 1 | | ;")
            .contains("where no thread runs")
    );
}

#[test]
fn a_host_thread_runs_no_async_instruction() {
    let src = "PTX h\n{ b @ shared cta 0 = 0; }\n P0@cta 0,gpu 0 | P1@host ;\n | barrier.cluster.arrive ;\nexists (b == 0)\n";
    let e = litmus::parse(src, "h.litmus").unwrap_err();
    assert!(e.message.contains("GPU instructions"), "{e}");
}

#[test]
fn an_initialised_mbarrier_is_declared_and_printed_by_its_count() {
    let src = "PTX m\n{ bar @ shared cta 0 = mbarrier 2; }\n P0@cta 0,gpu 0 ;\n mbarrier.arrive bar ;\nexists (bar == 0)\n";
    let p = litmus::parse(src, "m.litmus").unwrap();
    let bar = p.location_named("bar").unwrap();
    use scopecheck_model::litmus::async_ops::MbarrierState;
    assert_eq!(p.initial_value(bar), MbarrierState::init(2));
    let printed = litmus::print(&p);
    assert!(
        printed.contains("bar @ shared cta 0,gpu 0 = mbarrier 2;"),
        "{printed}"
    );
    assert_eq!(litmus::parse(&printed, "again").unwrap(), p);
    let e = litmus::parse(&src.replace("mbarrier 2", "mbarrier 0"), "m.litmus").unwrap_err();
    assert!(e.message.contains("count is 1 to 32767"), "{e}");
}

/// The corpus of Hopper tests (`corpus/litmus/async/`): the litmus runtime runs every one of
/// them, the TMA tests' bulk copies and proxy fences and the cluster barriers included, and agrees with the reference
/// model (ptx-v8 for them: `differential::Reference::for_program`) — each final state it reaches
/// is allowed, and it finds a data race (in a run ending in a given state) exactly where the
/// axioms do (`differential::check`, races compared).
// The litmus runtime and the differential need the `shuttle` feature.
#[cfg(feature = "shuttle")]
#[test]
fn the_runtime_agrees_with_the_axioms_on_the_async_corpus() {
    use scopecheck_model::differential::{check, runtime_unmodelled, Options};
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/async");
    let files = litmus::collect_files(&[dir]).unwrap();
    let (mut checked, mut copies, mut racy, mut cluster) = (0, 0, 0, 0);
    let (mut groups, mut init_fences) = (0, 0);
    for f in &files {
        let p = litmus::parse_file(f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(runtime_unmodelled(&p), None, "{}", f.display());
        let agreement = check(&p, &Options::default()).unwrap_or_else(|finding| {
            panic!("{}: {finding}", f.display());
        });
        let races = agreement
            .races_compared
            .unwrap_or_else(|| panic!("{}: race verdicts not compared", f.display()));
        assert!(agreement.runtime_complete, "{}", f.display());
        checked += 1;
        racy += usize::from(races);
        let uses = |op: fn(&AsyncOp) -> bool| {
            let mut body = p.threads.iter().flat_map(|t| &t.body);
            usize::from(body.any(|s| matches!(&s.instr, Instr::Async(a) if op(a))))
        };
        copies += uses(|a| matches!(a, AsyncOp::BulkCopy { .. }));
        cluster += uses(|a| matches!(a, AsyncOp::ClusterArrive { .. }));
        groups += uses(|a| matches!(a, AsyncOp::BulkWaitGroup { .. }));
        init_fences += uses(|a| matches!(a, AsyncOp::FenceMbarrierInit));
    }
    println!(
        "{checked} checked ({copies} with bulk copies, {groups} waiting for bulk groups, \
         {cluster} with cluster barriers, {init_fences} with fence.mbarrier_init, {racy} racy)"
    );
    assert_eq!(checked, files.len());
    assert!(copies >= 9, "{copies} with bulk copies");
    assert!(cluster >= 6, "{cluster} with cluster barriers");
    assert!(groups >= 6, "{groups} waiting for bulk groups");
    assert!(init_fences >= 2, "{init_fences} with fence.mbarrier_init");
}
