//! Engine tests on programs built by hand (the parser has its own tests).

use super::*;
use crate::litmus::*;
use crate::scope::{Order, Placement, Scope};

fn at(line: u32) -> Span {
    Span { line, col: 1 }
}

fn reg(r: &str) -> Reg {
    Reg(r.to_string())
}

fn acc(order: Order, scope: Option<Scope>) -> Access {
    Access {
        proxy: Proxy::Generic,
        order,
        scope,
    }
}

fn weak() -> Access {
    acc(Order::Weak, None)
}

fn ld(a: Access, dst: &str, loc: LocId) -> Instr {
    Instr::Load {
        access: a,
        dst: reg(dst),
        loc,
    }
}

fn st(a: Access, loc: LocId, v: Value) -> Instr {
    Instr::Store {
        access: a,
        loc,
        value: Operand::Imm(v),
    }
}

fn eq_reg(t: ThreadId, r: &str, v: Value) -> Prop {
    Prop::Cmp(Cmp::Eq, Term::Reg(t, reg(r)), Term::Const(v))
}

fn and(a: Prop, b: Prop) -> Prop {
    Prop::And(Box::new(a), Box::new(b))
}

/// Locations `x`, `y`, ... all initially 0; thread `i` runs in CTA `ctas[i]` of GPU 0.
fn program(
    locs: &[&str],
    threads: Vec<(u32, Vec<Instr>)>,
    quantifier: Quantifier,
    prop: Prop,
) -> Program {
    let mut line = 1;
    Program {
        name: "hand-built".into(),
        comments: vec![],
        locations: locs
            .iter()
            .map(|n| Location {
                name: n.to_string(),
                kind: LocationKind::Plain { init: 0 },
                span: at(1),
            })
            .collect(),
        reg_init: vec![],
        threads: threads
            .into_iter()
            .map(|(cta, body)| Thread {
                placement: Placement::new(cta, 0),
                body: body
                    .into_iter()
                    .map(|instr| {
                        line += 1;
                        Stmt {
                            instr,
                            span: at(line),
                        }
                    })
                    .collect(),
                span: at(1),
            })
            .collect(),
        condition: Condition {
            quantifier,
            prop,
            span: at(99),
        },
    }
}

fn mp(write: Access, read: Access, reader_cta: u32) -> Program {
    program(
        &["x", "y"],
        vec![
            (0, vec![st(weak(), 0, 1), st(write, 1, 1)]),
            (reader_cta, vec![ld(read, "r0", 1), ld(weak(), "r1", 0)]),
        ],
        Quantifier::Exists,
        and(eq_reg(1, "r0", 1), eq_reg(1, "r1", 0)),
    )
}

fn both_models(p: &Program) -> Vec<Analysis> {
    Model::ALL
        .iter()
        .map(|m| analyze(p, *m, &Options::default()).unwrap())
        .collect()
}

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
fn spin_loop_is_bounded_and_a_hopeless_loop_is_an_error() {
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

    let alone = program(&["x", "y"], vec![(0, spin)], Quantifier::Exists, Prop::True);
    let err = analyze(&alone, Model::PtxV75, &Options::default()).unwrap_err();
    assert_eq!(err.span.line, 4, "points at the backward branch");
    assert!(err.message.contains("unroll"));
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
