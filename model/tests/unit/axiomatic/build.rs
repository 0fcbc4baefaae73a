//! Programs built by hand for the engine's tests: accesses, instructions, conditions, and a
//! program of threads in given CTAs.

use scopecheck_model::axiomatic::*;
use scopecheck_model::litmus::*;
use scopecheck_model::scope::{Order, Placement, Scope};

pub(super) fn at(line: u32) -> Span {
    Span { line, col: 1 }
}

pub(super) fn reg(r: &str) -> Reg {
    Reg(r.to_string())
}

pub(super) fn acc(order: Order, scope: Option<Scope>) -> Access {
    Access {
        proxy: Proxy::Generic,
        order,
        scope,
    }
}

pub(super) fn weak() -> Access {
    acc(Order::Weak, None)
}

pub(super) fn ld(a: Access, dst: &str, loc: LocId) -> Instr {
    Instr::Load {
        access: a,
        dst: reg(dst),
        loc,
    }
}

pub(super) fn st(a: Access, loc: LocId, v: Value) -> Instr {
    Instr::Store {
        access: a,
        loc,
        value: Operand::Imm(v),
    }
}

pub(super) fn eq_reg(t: ThreadId, r: &str, v: Value) -> Prop {
    Prop::Cmp(Cmp::Eq, Term::Reg(t, reg(r)), Term::Const(v))
}

pub(super) fn and(a: Prop, b: Prop) -> Prop {
    Prop::And(Box::new(a), Box::new(b))
}

/// Locations `x`, `y`, ... all initially 0; thread `i` runs in CTA `ctas[i]` of GPU 0.
pub(super) fn program(
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
                shared: None,
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
                            token: None,
                            qualifiers: None,
                            warp: None,
                        }
                    })
                    .collect(),
                span: at(1),
            })
            .collect(),
        observed: vec![],
        filter: None,
        front: None,
        groups: None,
        relations: Default::default(),
        condition: Condition {
            quantifier,
            prop,
            span: at(99),
        },
    }
}

pub(super) fn mp(write: Access, read: Access, reader_cta: u32) -> Program {
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

pub(super) fn both_models(p: &Program) -> Vec<Analysis> {
    [Model::PtxV75, Model::PtxV60]
        .iter()
        .map(|m| analyze(p, m.clone(), &Options::default()).unwrap())
        .collect()
}

pub(super) fn parsed(src: &str) -> Program {
    scopecheck_model::litmus::parse(src, "values.litmus").unwrap_or_else(|e| panic!("{e}"))
}
