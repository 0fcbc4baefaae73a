//! Issue 29, "every verdict sound": what a litmus warp exchange orders, and the cluster of a CTA
//! placed in no cluster, under every PTX model and on both engines.
//!
//! PTX ISA, *bar.warp.sync*: "bar.warp.sync also guarantee memory ordering among threads
//! participating in barrier"; `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` and
//! `elect.sync` exchange register data and wait for the lanes of their member mask, with no
//! such sentence. PTX ISA, *Cluster of Cooperative Thread Arrays*: a launch without cluster
//! dimensions "will be treated as implicit cluster launch with default dimension 1x1x1".

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::differential::{check, runtime_unmodelled, Options as DiffOptions};
use scopecheck_model::litmus::{parse, Program};

/// Each exchange kind: its name, lane 0's and lane 1's instruction (member mask 0x3), and what
/// lane 1's `r0` holds once the exchange delivered lane 0's contribution (`None`: any value).
const EXCHANGES: &[(&str, &str, &str, Option<&str>)] = &[
    (
        "shfl.sync.up",
        "shfl.sync.up.b32 r0, 5, 1, 0, 0x3",
        "shfl.sync.up.b32 r0, 6, 1, 0, 0x3",
        Some("P1:r0 == 5"),
    ),
    (
        "shfl.sync.down",
        "shfl.sync.down.b32 r0, 5, 1, 0x1, 0x3",
        "shfl.sync.down.b32 r0, 6, 1, 0x1, 0x3",
        Some("P0:r0 == 6"),
    ),
    (
        "shfl.sync.bfly",
        "shfl.sync.bfly.b32 r0, 5, 1, 0x1f, 0x3",
        "shfl.sync.bfly.b32 r0, 6, 1, 0x1f, 0x3",
        Some("P1:r0 == 5"),
    ),
    (
        "shfl.sync.idx",
        "shfl.sync.idx.b32 r0, 5, 0, 0x1f, 0x3",
        "shfl.sync.idx.b32 r0, 6, 0, 0x1f, 0x3",
        Some("P1:r0 == 5"),
    ),
    (
        "vote.sync.all",
        "vote.sync.all.pred r0, 1, 0x3",
        "vote.sync.all.pred r0, 1, 0x3",
        Some("P1:r0 == 1"),
    ),
    (
        "vote.sync.any",
        "vote.sync.any.pred r0, 1, 0x3",
        "vote.sync.any.pred r0, 0, 0x3",
        Some("P1:r0 == 1"),
    ),
    (
        "vote.sync.uni",
        "vote.sync.uni.pred r0, 1, 0x3",
        "vote.sync.uni.pred r0, 0, 0x3",
        Some("P1:r0 == 0"),
    ),
    (
        "vote.sync.ballot",
        "vote.sync.ballot.b32 r0, 1, 0x3",
        "vote.sync.ballot.b32 r0, 1, 0x3",
        Some("P1:r0 == 3"),
    ),
    (
        "match.any.sync",
        "match.any.sync.b32 r0, 7, 0x3",
        "match.any.sync.b32 r0, 7, 0x3",
        Some("P1:r0 == 3"),
    ),
    (
        "match.all.sync",
        "match.all.sync.b32 r0, 7, 0x3",
        "match.all.sync.b32 r0, 7, 0x3",
        Some("P1:r0 == 3"),
    ),
    (
        "redux.sync.add",
        "redux.sync.add.u32 r0, 2, 0x3",
        "redux.sync.add.u32 r0, 3, 0x3",
        Some("P1:r0 == 5"),
    ),
    (
        "redux.sync.or",
        "redux.sync.or.b32 r0, 1, 0x3",
        "redux.sync.or.b32 r0, 2, 0x3",
        Some("P1:r0 == 3"),
    ),
    (
        "elect.sync",
        "elect.sync r0, 0x3",
        "elect.sync r0, 0x3",
        None,
    ),
];

/// Message passing between lanes 0 and 1 of CTA 0's warp around an exchange: lane 0 stores x
/// and exchanges; lane 1 exchanges and loads x; with `bar`, both then meet at `bar.warp.sync`.
/// The condition: lane 1 reads x stale after the exchange delivered.
fn message_passing(lane0: &str, lane1: &str, delivered: Option<&str>, bar: bool) -> Program {
    let (mut p0, mut p1) = (vec!["st.weak x, 1", lane0], vec![lane1]);
    if bar {
        p0.push("bar.warp.sync 0x3");
        p1.push("bar.warp.sync 0x3");
    }
    p1.push("ld.weak r1, x");
    let rows = p0.len().max(p1.len());
    let mut text = String::from("PTX MP-exchange\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n");
    for i in 0..rows {
        let cell = |v: &Vec<&str>| v.get(i).copied().unwrap_or("").to_string();
        text += &format!(" {} | {} ;\n", cell(&p0), cell(&p1));
    }
    let cond = match delivered {
        Some(d) => format!("P1:r1 == 0 /\\ {d}"),
        None => "P1:r1 == 0".to_string(),
    };
    text += &format!("exists ({cond})\n");
    parse(&text, "mp-exchange.litmus").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Every exchange kind, every PTX model: without `bar.warp.sync` lane 1 may read x stale, in a
/// data race; with it, never, and nothing races. The runtime agrees on states and races.
#[test]
fn an_exchange_orders_no_memory_and_bar_warp_sync_does() {
    let models = ["ptx-v6.0", "ptx-v7.5", "ptx-v8", "ptx-v8-lenient"];
    for &(kind, lane0, lane1, delivered) in EXCHANGES {
        for bar in [false, true] {
            let p = message_passing(lane0, lane1, delivered, bar);
            for name in models {
                let model = Model::from_name(name).expect("a built-in model");
                let a = analyze(&p, model, &Options::default())
                    .unwrap_or_else(|e| panic!("{kind} under {name}: {}", e.message));
                assert_eq!(
                    a.satisfiable(&p),
                    !bar,
                    "{kind} (bar.warp.sync: {bar}) under {name}: stale read allowed?"
                );
                assert_eq!(
                    a.racy_executions > 0,
                    !bar,
                    "{kind} (bar.warp.sync: {bar}) under {name}: racy?"
                );
            }
            let agreement = check(&p, &DiffOptions::default())
                .unwrap_or_else(|f| panic!("{kind} (bar.warp.sync: {bar}): {f}"));
            assert_eq!(agreement.races_compared, Some(!bar), "{kind} ({bar})");
            assert!(agreement.runtime_complete, "{kind} ({bar})");
        }
    }
}

/// The values an exchange delivers stay exact once its ordering is gone: with lane 1 reading
/// nothing else, the delivered value is the only one (the forbidden state of each kind is the
/// one where the exchange delivered something else).
#[test]
fn an_exchange_still_delivers_its_values() {
    for &(kind, lane0, lane1, delivered) in EXCHANGES {
        let Some(delivered) = delivered else { continue };
        let text = format!(
            "PTX exchange\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n {lane0} | {lane1} ;\n\
             exists (~({delivered}))\n"
        );
        let p = parse(&text, "exchange.litmus").unwrap_or_else(|e| panic!("{e}\n{text}"));
        let a = analyze(&p, Model::PtxV75, &Options::default()).unwrap();
        assert!(!a.satisfiable(&p), "{kind}: {delivered} may fail");
        assert_eq!(a.racy_executions, 0, "{kind}: the slots race");
        check(&p, &DiffOptions::default()).unwrap_or_else(|f| panic!("{kind}: {f}"));
    }
}

/// Fences around an exchange synchronize nothing through it: the exchange's RMWs (an election's
/// CAS, a vote's counters) end no release or acquire pattern.
#[test]
fn fences_around_an_exchange_synchronize_nothing() {
    for exchange in ["elect.sync r0, 0x3", "vote.sync.any.pred r0, 1, 0x3"] {
        let text = format!(
            "PTX fences\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
             st.weak x, 1 | {exchange} ;\n fence.acq_rel.cta | fence.acq_rel.cta ;\n \
             {exchange} | ld.weak r1, x ;\nexists (P1:r1 == 0)\n"
        );
        let p = parse(&text, "fences.litmus").unwrap_or_else(|e| panic!("{e}\n{text}"));
        for name in ["ptx-v6.0", "ptx-v7.5", "ptx-v8"] {
            let model = Model::from_name(name).unwrap();
            let a = analyze(&p, model, &Options::default()).unwrap();
            assert!(a.satisfiable(&p), "{exchange} under {name}");
        }
        check(&p, &DiffOptions::default()).unwrap_or_else(|f| panic!("{exchange}: {f}"));
    }
}

/// Cluster barriers in CTAs placed in no cluster: each CTA is a cluster of one. Two threads of
/// one such CTA synchronize through it; threads of two such CTAs do not, and neither hangs. The
/// runtime runs them (no carve-out) and agrees with every PTX model that has cluster barriers.
#[test]
fn a_cta_placed_in_no_cluster_is_a_cluster_of_one() {
    let program = |second_cta: u32| {
        let text = format!(
            "PTX cluster-of-one\n{{ d=0; }}\n P0@cta 0,gpu 0 | P1@cta {second_cta},gpu 0 ;\n \
             st.weak d, 1 | barrier.cluster.arrive.release ;\n \
             barrier.cluster.arrive.release | barrier.cluster.wait.acquire ;\n \
             barrier.cluster.wait.acquire | ld.weak r0, d ;\nexists (P1:r0 == 0)\n"
        );
        parse(&text, "cluster-of-one.litmus").unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    for (second_cta, apart) in [(0, false), (1, true)] {
        let p = program(second_cta);
        assert_eq!(runtime_unmodelled(&p), None);
        for name in ["ptx-v7.5", "ptx-v8"] {
            let model = Model::from_name(name).unwrap();
            let a = analyze(&p, model, &Options::default()).unwrap();
            assert_eq!(a.satisfiable(&p), apart, "CTA {second_cta} under {name}");
            assert_eq!(
                a.racy_executions > 0,
                apart,
                "CTA {second_cta} under {name}"
            );
            assert!(
                !a.states.is_empty(),
                "CTA {second_cta}: no execution completes"
            );
        }
        let agreement =
            check(&p, &DiffOptions::default()).unwrap_or_else(|f| panic!("CTA {second_cta}: {f}"));
        assert!(agreement.runtime_complete, "CTA {second_cta}");
        assert_eq!(agreement.races_compared, Some(apart), "CTA {second_cta}");
        assert_eq!(agreement.reached, a_states(&p), "CTA {second_cta}");
    }
}

/// How many final states ptx-v8 allows (the runtime reaches all of them on these programs).
fn a_states(p: &Program) -> usize {
    let model = Model::from_name("ptx-v8").unwrap();
    analyze(p, model, &Options::default()).unwrap().states.len()
}
