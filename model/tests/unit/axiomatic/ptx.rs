//! The PTX models' verdicts on hand-built programs: message passing, store buffering, RMW
//! atomicity, coherence, barriers, loops, witnesses, executions past 128 events.

use super::build::*;
use scopecheck_model::axiomatic::*;
use scopecheck_model::litmus::*;
use scopecheck_model::scope::{Order, Scope};

#[test]
fn message_passing_needs_release_and_acquire_in_scope() {
    let rel_gpu = acc(Order::Release, Some(Scope::Gpu));
    let acq_gpu = acc(Order::Acquire, Some(Scope::Gpu));
    let acq_cta = acc(Order::Acquire, Some(Scope::Cta));
    let rlx_gpu = acc(Order::Relaxed, Some(Scope::Gpu));
    for a in both_models(&mp(rel_gpu, acq_gpu, 1)) {
        assert!(
            !a.holds,
            "release/acquire at gpu scope forbids the stale read"
        );
        assert_eq!(a.states.len(), 3);
    }
    for a in both_models(&mp(rel_gpu, acq_cta, 1)) {
        assert!(
            a.holds,
            "a cta-scope acquire in another CTA does not synchronize"
        );
    }
    for a in both_models(&mp(rel_gpu, acq_cta, 0)) {
        assert!(!a.holds, "the same CTA is in scope");
    }
    for a in both_models(&mp(rlx_gpu, rlx_gpu, 1)) {
        assert!(a.holds, "relaxed accesses do not synchronize");
    }
}

#[test]
fn store_buffering_and_fence_sc() {
    let sb = |fence: Option<Fence>| {
        let body = |mine: LocId, other: LocId, r: &str| {
            let mut v = vec![st(weak(), mine, 1)];
            v.extend(fence.map(Instr::Fence));
            v.push(ld(weak(), r, other));
            v
        };
        program(
            &["x", "y"],
            vec![(0, body(0, 1, "r0")), (1, body(1, 0, "r1"))],
            Quantifier::Exists,
            and(eq_reg(0, "r0", 0), eq_reg(1, "r1", 0)),
        )
    };
    for a in both_models(&sb(None)) {
        assert!(a.holds);
        assert_eq!(a.states.len(), 4);
    }
    for a in both_models(&sb(Some(Fence::Sc(Scope::Gpu)))) {
        assert!(!a.holds, "fence.sc.gpu restores SC");
    }
    for a in both_models(&sb(Some(Fence::AcqRel(Scope::Gpu)))) {
        assert!(a.holds, "acq_rel fences do not forbid SB");
    }
    for a in both_models(&sb(Some(Fence::Sc(Scope::Cta)))) {
        assert!(
            a.holds,
            "cta-scope fences in different CTAs are not morally strong"
        );
    }
}

#[test]
fn rmw_is_atomic_and_final_memory_is_coherence_last() {
    let add = |dst: &str| Instr::Atom {
        access: acc(Order::Relaxed, Some(Scope::Gpu)),
        op: RmwOp::Add,
        dst: reg(dst),
        loc: 0,
        operand: Operand::Imm(1),
        new: None,
    };
    let p = program(
        &["x"],
        vec![(0, vec![add("r0")]), (1, vec![add("r0")])],
        Quantifier::Forall,
        Prop::Cmp(Cmp::Eq, Term::Loc(0), Term::Const(2)),
    );
    for a in both_models(&p) {
        assert!(a.holds, "no increment is lost");
        let outcomes: Vec<_> = a
            .states
            .iter()
            .map(|s| (s.state.regs["P0:r0"], s.state.regs["P1:r0"]))
            .collect();
        assert_eq!(outcomes, vec![(0, 1), (1, 0)]);
    }
}

#[test]
fn coherence_of_read_read() {
    // CoRR: two morally strong reads never see x's writes out of coherence order; weak reads
    // are not morally strong with the write and may.
    let corr = |read: Access| {
        program(
            &["x"],
            vec![
                (0, vec![st(acc(Order::Relaxed, Some(Scope::Gpu)), 0, 1)]),
                (1, vec![ld(read, "r0", 0), ld(read, "r1", 0)]),
            ],
            Quantifier::Exists,
            and(eq_reg(1, "r0", 1), eq_reg(1, "r1", 0)),
        )
    };
    for a in both_models(&corr(acc(Order::Relaxed, Some(Scope::Gpu)))) {
        assert!(!a.holds);
    }
    for a in both_models(&corr(weak())) {
        assert!(a.holds);
    }
}

#[test]
fn barrier_orders_a_cta_but_not_another() {
    let bar = || Instr::Barrier {
        op: BarrierOp::Sync,
        id: vec![Operand::Imm(1)],
        quorum: None,
    };
    let p = |cta| {
        program(
            &["x"],
            vec![
                (0, vec![st(weak(), 0, 1), bar()]),
                (cta, vec![bar(), ld(weak(), "r0", 0)]),
            ],
            Quantifier::Forall,
            eq_reg(1, "r0", 1),
        )
    };
    for a in both_models(&p(0)) {
        assert!(a.holds);
    }
    for a in both_models(&p(1)) {
        assert!(!a.holds);
    }
}

#[test]
fn spin_loop_is_bounded_and_a_hopeless_loop_reaches_no_final_state() {
    let spin = vec![
        Instr::Label("L".into()),
        ld(acc(Order::Acquire, Some(Scope::Gpu)), "r0", 0),
        Instr::Branch {
            cond: Some((Cmp::Eq, Operand::Reg(reg("r0")), Operand::Imm(0))),
            target: "L".into(),
        },
        ld(weak(), "r1", 1),
    ];
    let p = program(
        &["x", "y"],
        vec![
            (
                0,
                vec![
                    st(weak(), 1, 1),
                    st(acc(Order::Release, Some(Scope::Gpu)), 0, 1),
                ],
            ),
            (1, spin.clone()),
        ],
        Quantifier::Forall,
        eq_reg(1, "r1", 1),
    );
    let a = analyze(&p, Model::PtxV75, &Options::default()).unwrap();
    assert!(a.holds && a.bounded);
    assert!(a.states.iter().all(|s| s.state.regs["P1:r0"] == 1));

    // No run finishes within the bound: as herd7 ("unrolling limit exceeded ... legal
    // outcomes may be missing", verdict marked `Loop`), the condition is judged on no
    // execution: `exists` fails, `forall` holds, and the answer is bounded.
    let alone = program(
        &["x", "y"],
        vec![(0, spin.clone())],
        Quantifier::Exists,
        Prop::True,
    );
    let a = analyze(&alone, Model::PtxV75, &Options::default()).unwrap();
    assert!(a.states.is_empty() && a.bounded && !a.holds);
    let alone = program(&["x", "y"], vec![(0, spin)], Quantifier::Forall, Prop::True);
    let a = analyze(&alone, Model::PtxV75, &Options::default()).unwrap();
    assert!(a.states.is_empty() && a.bounded && a.holds);
}

#[test]
fn witnesses_render_as_dot() {
    let p = mp(
        acc(Order::Release, Some(Scope::Gpu)),
        acc(Order::Acquire, Some(Scope::Gpu)),
        1,
    );
    let a = analyze(
        &p,
        Model::PtxV75,
        &Options {
            witnesses: true,
            ..Options::default()
        },
    )
    .unwrap();
    for s in &a.states {
        let x = s.example.as_ref().expect("witness requested");
        let dot = dot::render(&p, x);
        assert!(dot.starts_with("digraph") && dot.contains("rf") && dot.contains("cluster_p1"));
    }
    let synced = a
        .states
        .iter()
        .find(|s| s.state.regs["P1:r0"] == 1)
        .unwrap();
    assert!(
        !synced.example.as_ref().unwrap().sync.is_empty(),
        "the release/acquire pair synchronizes"
    );
}

#[test]
fn models_by_name() {
    for m in Model::ALL {
        assert_eq!(Model::from_name(m.name()), Some(m));
    }
    assert_eq!(Model::default(), Model::PtxV75);
    assert_eq!(Model::from_name("tso"), None);
}

#[test]
fn barrier_quorum_lets_some_threads_meet_without_others() {
    // Three threads at barrier 1 (instance 0) with a quorum of `q`: with q = 2 the two readers
    // can complete an instance without the writer, who then blocks at its final barrier.
    let src = |q: u32| {
        format!(
            "PTX quorum
{{ y=0; }}
 P0@cta 0,gpu 0         | P1@cta 0,gpu 0         | P2@cta 0,gpu 0         ;
 st.weak y, 7           | bar.cta.sync 0, 1, {q} | bar.cta.sync 0, 1, {q} ;
 bar.cta.sync 0, 1, {q} | ld.weak r5, y          | ld.weak r6, y          ;
exists (P1:r5 == 0 /\\ P2:r6 == 0)
"
        )
    };
    let run = |q| {
        let p = scopecheck_model::litmus::parse(&src(q), "quorum.litmus").unwrap();
        analyze(&p, Model::PtxV75, &Options::default()).unwrap()
    };
    assert!(
        run(2).holds,
        "the readers meet each other and both miss the store"
    );
    let all = run(3);
    assert!(
        !all.holds,
        "with everyone in the instance both readers see the store"
    );
    assert!(all
        .states
        .iter()
        .all(|s| s.state.regs["P1:r5"] == 7 && s.state.regs["P2:r6"] == 7));
}

#[test]
fn many_fence_sc_enumerate_orders_by_the_cheaper_route() {
    // Seven morally strong fence.sc: 2^21 pair orientations but only 7! = 5040 total orders.
    let threads = (0..7)
        .map(|t| (t, vec![Instr::Fence(Fence::Sc(Scope::Gpu))]))
        .collect();
    let p = program(&["x"], threads, Quantifier::Forall, Prop::True);
    let a = analyze(&p, Model::PtxV75, &Options::default()).unwrap();
    assert!(a.holds);
    assert_eq!(a.states.len(), 1);
    assert_eq!(
        a.executions, 5040,
        "each total order of the fences is a distinct execution"
    );
}

/// `P0` writes `pad` `n` times (events past bits 64, 128 and 192 of a set), then message-passes
/// `d` through `f` with release/acquire at `scope`; `P1` runs in another CTA.
fn padded_message_passing(n: usize, scope: &str) -> Program {
    let mut p0: Vec<String> = (1..=n).map(|v| format!("st.weak pad, {v}")).collect();
    p0.push("st.weak d, 1".to_string());
    p0.push(format!("st.release.{scope} f, 1"));
    let p1 = [
        format!("ld.acquire.{scope} r0, f"),
        "ld.weak r1, d".to_string(),
    ];
    let mut text =
        "PTX padded-MP\n{ pad=0; d=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n".to_string();
    for (i, a) in p0.iter().enumerate() {
        let b = p1.get(i).map_or("", |s| s.as_str());
        text.push_str(&format!(" {a} | {b} ;\n"));
    }
    text.push_str("exists (P1:r0 == 1 /\\ P1:r1 == 0)\n");
    scopecheck_model::litmus::parse(&text, "padded-mp.litmus").unwrap_or_else(|e| panic!("{e}"))
}

/// Executions past 128 events: the sets and relations grow with the test (the spec's verdicts
/// do not depend on how many unrelated writes come first).
#[test]
fn executions_past_128_events_are_decided() {
    for model in [Model::PtxV75, Model::PtxV60] {
        let strong = padded_message_passing(240, "gpu");
        let a = analyze(&strong, model.clone(), &Options::default()).unwrap();
        assert!(
            !a.holds,
            "{model}: release/acquire at .gpu forbids the stale read"
        );
        assert_eq!(a.states.len(), 3, "{model}: {:?}", a.states);
        let narrow = padded_message_passing(240, "cta");
        let a = analyze(&narrow, model.clone(), &Options::default()).unwrap();
        assert!(
            a.holds,
            "{model}: .cta release/acquire across CTAs does not synchronize"
        );
    }
}
