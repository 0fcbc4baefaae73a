//! Statements: labels, guards, blocks and their scopes, `.loc`, `.pragma`, declarations in
//! bodies, `.callprototype`, `.branchtargets`, `.calltargets`.

use super::common::*;
use scopecheck_model::ptx::ast::*;

#[test]
fn labels_guards_blocks_and_scopes() {
    let b = body(
        ".entry k()\n{\n.reg .pred %p;\n$L__BB0_1:\n@%p bra $L__BB0_1;\n@!%p bra.uni done;\n\
         {\n.reg .pred P1;\nWAIT: @P1 bra WAIT;\n}\ndone:\nret;\n}\n",
    );
    assert!(matches!(&b[1], Statement::Label { name, .. } if name == "$L__BB0_1"));
    let Statement::Instr(i) = &b[2] else { panic!() };
    assert_eq!(
        i.guard,
        Some(Guard {
            negated: false,
            reg: "%p".into()
        })
    );
    assert_eq!(i.operands, [sym("$L__BB0_1", 0)]);
    let Statement::Instr(i) = &b[3] else { panic!() };
    assert!(i.guard.as_ref().is_some_and(|g| g.negated));
    assert_eq!(
        (i.opcode.as_str(), i.modifiers.as_slice()),
        ("bra", &["uni".to_string()][..])
    );
    let Statement::Block { body: inner, .. } = &b[4] else {
        panic!()
    };
    assert!(matches!(&inner[1], Statement::Label { name, .. } if name == "WAIT"));
    assert!(
        matches!(&inner[2], Statement::Instr(i) if i.guard.as_ref().is_some_and(|g| g.reg == "P1"))
    );
    assert!(matches!(&b[5], Statement::Label { name, .. } if name == "done"));
    // `P1` is a register only inside the block that declares it.
    let src =
        ".entry k()\n{\n.reg .b32 %r1;\n{\n.reg .b32 x;\nmov.b32 x, 1;\n}\nmov.b32 %r1, x;\n}\n";
    let b = body(src);
    let Statement::Block { body: inner, .. } = &b[1] else {
        panic!()
    };
    let Statement::Instr(i) = &inner[1] else {
        panic!()
    };
    assert_eq!(i.operands, [reg("x"), Operand::Int(1)]);
    let Statement::Instr(i) = &b[2] else { panic!() };
    assert_eq!(i.operands, [reg("%r1"), sym("x", 0)]);
}

#[test]
fn loc_directives() {
    let b = body(
        ".entry k()\n{\n.loc 1 15 3\n.loc 2 82 3, function_name $L__info_string0, inlined_at 1 9 9\n\
         .loc 1 4 32, function_name $L__info_string1+12, inlined_at 3 105 3\n\
         .loc 4 1 1, inlined_at 1 2 3;\nret;\n}\n",
    );
    let locs: Vec<Loc> = b
        .into_iter()
        .filter_map(|s| match s {
            Statement::Loc(l) => Some(l),
            _ => None,
        })
        .collect();
    assert_eq!((locs[0].file, locs[0].line, locs[0].col), (1, 15, 3));
    assert_eq!(
        (locs[0].function_name.as_deref(), locs[0].inlined_at),
        (None, None)
    );
    assert_eq!(locs[1].function_name.as_deref(), Some("$L__info_string0"));
    assert_eq!(locs[1].inlined_at, Some((1, 9, 9)));
    assert_eq!(
        locs[2].function_name.as_deref(),
        Some("$L__info_string1+12")
    );
    assert_eq!(locs[3].inlined_at, Some((1, 2, 3)));
    round_trip(
        ".entry k()\n{\n.loc 2 82 3, function_name $L__info_string0, inlined_at 1 9 9\nret;\n}\n",
        "t",
    );
}

#[test]
fn statement_pragma_and_declarations_in_bodies() {
    let b = body(
        ".entry k()\n{\n.pragma \"nounroll\";\n.local .align 8 .b8 depot[16];\n\
         .shared .u32 s;\n.param .b32 param0;\nret;\n}\n",
    );
    assert!(matches!(&b[0], Statement::Pragma { text, .. } if text == "nounroll"));
    assert!(
        matches!(&b[1], Statement::Decl(d) if d.space == StateSpace::Local && d.array == [Some(16)])
    );
    assert!(matches!(&b[2], Statement::Decl(d) if d.space == StateSpace::Shared));
    assert!(matches!(&b[3], Statement::Decl(d) if d.space == StateSpace::Param));
}

#[test]
fn call_prototypes_in_every_form() {
    let b = body(
        ".entry k()\n{\n.reg .b64 %rd1;\np0 : .callprototype _ .noreturn;\n\
         p1: .callprototype _ (.param .b32 _, .param .b64 _) .noreturn;\n\
         p2: .callprototype (.param .b32 _) _ ;\n\
         p3: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n\
         call (%r1), %rd1, (%r2, %r3), p3;\n}\n",
    );
    let protos: Vec<CallPrototype> = b
        .iter()
        .filter_map(|s| match s {
            Statement::CallPrototype(p) => Some(p.clone()),
            _ => None,
        })
        .collect();
    let shape: Vec<(usize, usize, bool)> = protos
        .iter()
        .map(|p| (p.returns.len(), p.params.len(), p.noreturn))
        .collect();
    assert_eq!(
        shape,
        [(0, 0, true), (0, 2, true), (1, 0, false), (1, 2, false)]
    );
    assert_eq!(protos[1].params[1].ty, "b64");
    assert_eq!(protos[3].returns[0].name, "_");
    assert!(matches!(&b[1], Statement::Label { name, .. } if name == "p0"));
    let Some(Statement::Instr(call)) = b.last() else {
        panic!()
    };
    assert_eq!(call.operands[3], sym("p3", 0));
    round_trip(
        ".entry k()\n{\np: .callprototype (.param .b32 _) _ (.param .b32 _) .noreturn;\n}\n",
        "t",
    );
    fails_at(
        ".entry k()\n{\nret;\n.callprototype _;\n}\n",
        4,
        1,
        "must follow a label",
    );
    fails_at(".entry k()\n{\np: .callprototype f;\n}\n", 3, 19, "`_`");
}

#[test]
fn branch_and_call_targets() {
    let b = body(
        ".entry k()\n{\n.reg .b32 %r1;\nts: .branchtargets L0, L1, L2;\nbrx.idx %r1, ts;\n\
         L0:\nL1:\nL2:\nret;\ncs: .calltargets f, g;\n}\n",
    );
    assert!(
        matches!(&b[2], Statement::BranchTargets { labels, .. } if labels == &["L0", "L1", "L2"])
    );
    assert!(matches!(&b[3], Statement::Instr(i) if i.opcode == "brx" && i.modifiers == ["idx"]));
    assert!(matches!(&b[9], Statement::CallTargets { functions, .. } if functions == &["f", "g"]));
    round_trip(
        ".entry k()\n{\nts: .branchtargets L0, L1;\nL0:\nL1:\ncs: .calltargets f;\nret;\n}\n",
        "t",
    );
}
