//! Function headers: `.entry` / `.func`, parameters, returns, `.ptr`, performance directives.

use super::common::*;
use scopecheck_model::ptx::ast::*;

#[test]
fn entry_with_ptr_params_and_performance_directives() {
    let m = round_trip(
        ".visible .entry k(\n.param .u64 .ptr.global.align 4 p0,\n.param .u64 .ptr.align 8 p1,\n\
         .param .align 8 .b8 p2[16],\n.param .u32 p3\n)\n.maxntid 128, 1, 1\n.reqntid 64\n\
         .minnctapersm 2\n.maxnreg 32\n.reqnctapercluster 2, 1, 1\n.explicitcluster\n\
         .maxclusterrank 8\n.pragma \"nounroll\";\n{\nret;\n}\n",
        "t",
    );
    let Item::Func(f) = &m.items[0] else { panic!() };
    assert_eq!(f.kind, FuncKind::Entry);
    assert_eq!(f.name, "k");
    assert_eq!(
        f.params[0].ptr,
        Some(PtrAttr {
            space: Some(StateSpace::Global),
            align: 4
        })
    );
    assert_eq!(
        f.params[1].ptr,
        Some(PtrAttr {
            space: None,
            align: 8
        })
    );
    assert_eq!(
        (f.params[2].align, f.params[2].array.as_slice()),
        (Some(8), &[Some(16)][..])
    );
    let d: Vec<(&str, &[u64])> = f
        .directives
        .iter()
        .map(|(n, a)| (n.as_str(), a.as_slice()))
        .collect();
    assert_eq!(
        d,
        [
            ("maxntid", &[128, 1, 1][..]),
            ("reqntid", &[64][..]),
            ("minnctapersm", &[2][..]),
            ("maxnreg", &[32][..]),
            ("reqnctapercluster", &[2, 1, 1][..]),
            ("explicitcluster", &[][..]),
            ("maxclusterrank", &[8][..]),
        ]
    );
    assert_eq!(f.pragmas, ["nounroll"]);
}

#[test]
fn func_with_returns_reg_params_and_noreturn() {
    let m = round_trip(
        ".func (.reg .b32 r) f(.reg .b32 a, .param .b64 b)\n{\nadd.s32 r, a, 1;\nret;\n}\n\
         .func g() .noreturn\n{\ntrap;\n}\n.func h\n{\nret;\n}\n",
        "t",
    );
    let Item::Func(f) = &m.items[0] else { panic!() };
    assert_eq!(f.returns[0].space, StateSpace::Reg);
    assert_eq!(f.params[0].space, StateSpace::Reg);
    // `.reg` parameters are registers in the body, though they do not start with `%`.
    let Some(Statement::Instr(add)) = f.body.as_ref().map(|b| b[0].clone()) else {
        panic!()
    };
    assert_eq!(add.operands, [reg("r"), reg("a"), Operand::Int(1)]);
    let Item::Func(g) = &m.items[1] else { panic!() };
    assert_eq!(g.directives, [("noreturn".to_string(), vec![])]);
    let Item::Func(h) = &m.items[2] else { panic!() };
    assert!(h.params.is_empty() && h.body.is_some());
}
