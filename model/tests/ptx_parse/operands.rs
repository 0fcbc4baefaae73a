//! Instructions and every operand form.

use super::common::*;
use scopecheck_model::ptx::ast::*;

#[test]
fn opcode_and_modifiers_with_double_colons() {
    let is = instrs(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];\n\
         ld.acquire.gpu.global.u32 %r1, [%rd1];\nret;\nfence.proxy.async.shared::cta;\n\
         ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;\nexit;",
    );
    assert_eq!(is[0].opcode, "cp");
    assert_eq!(
        is[0].modifiers,
        [
            "async",
            "bulk",
            "shared::cluster",
            "global",
            "mbarrier::complete_tx::bytes"
        ]
    );
    assert_eq!(is[1].modifiers, ["acquire", "gpu", "global", "u32"]);
    assert!(is[2].modifiers.is_empty() && is[2].operands.is_empty());
    assert_eq!(is[3].modifiers, ["proxy", "async", "shared::cta"]);
    assert_eq!(is[4].modifiers, ["global", "L2::cache_hint", "b32"]);
    assert_eq!(is[5].opcode, "exit");
}

#[test]
fn register_operands() {
    assert_eq!(
        operands("mov.u32 %r1, %tid.x;"),
        [reg("%r1"), reg("%tid.x")]
    );
    assert_eq!(
        operands("add.u32 %r1, %ntid.y, %ctaid.z;"),
        [reg("%r1"), reg("%ntid.y"), reg("%ctaid.z")]
    );
    assert_eq!(
        operands("mov.u32 %r1, %lanemask_lt;"),
        [reg("%r1"), reg("%lanemask_lt")]
    );
    assert_eq!(
        operands("mov.u32 %r1, %cluster_ctarank;"),
        [reg("%r1"), reg("%cluster_ctarank")]
    );
}

#[test]
fn negated_predicate_operand() {
    assert_eq!(
        operands("selp.b32 %r1, 1, 0, !%p1;"),
        [
            reg("%r1"),
            Operand::Int(1),
            Operand::Int(0),
            Operand::Not("%p1".into())
        ]
    );
}

#[test]
fn every_integer_form_as_an_operand() {
    let forms = [
        ("42", 42),
        ("0x2A", 42),
        ("0X2a", 42),
        ("052", 42),
        ("0b101010", 42),
        ("0B1", 1),
        ("42U", 42),
        ("0x2AU", 42),
        ("052U", 42),
        ("0b11U", 3),
        ("0", 0),
        ("-1", -1),
        ("-0x10", -16),
        ("0xFFFFFFFFFFFFFFFF", -1),
        ("9223372036854775807", i64::MAX),
    ];
    for (text, v) in forms {
        assert_eq!(
            operands(&format!("mov.b64 %rd1, {text};")),
            [reg("%rd1"), Operand::Int(v)],
            "{text}"
        );
    }
}

#[test]
fn every_float_form_as_an_operand() {
    let f32s = [
        ("0f3F800000", 0x3F80_0000u32),
        ("0F3f800000", 0x3F80_0000),
        ("-0f3F800000", 0xBF80_0000),
    ];
    for (text, bits) in f32s {
        assert_eq!(
            operands(&format!("mov.f32 %f1, {text};")),
            [reg("%f1"), Operand::Float(FloatLit::F32(bits))],
            "{text}"
        );
    }
    let f64s = [
        ("0d3FF0000000000000", 1.0f64),
        ("0D3ff0000000000000", 1.0),
        ("1.0", 1.0),
        ("1.5e3", 1500.0),
        ("25E-1", 2.5),
        ("-2.5", -2.5),
        ("0.125", 0.125),
    ];
    for (text, v) in f64s {
        assert_eq!(
            operands(&format!("mov.f64 %rd1, {text};")),
            [reg("%rd1"), Operand::Float(FloatLit::F64(v.to_bits()))],
            "{text}"
        );
    }
}

#[test]
fn symbol_operands_with_offsets() {
    assert_eq!(
        operands("mov.u64 %rd1, smem+16;"),
        [reg("%rd1"), sym("smem", 16)]
    );
    assert_eq!(
        operands("mov.u64 %rd1, smem-8;"),
        [reg("%rd1"), sym("smem", -8)]
    );
    assert_eq!(
        operands("mov.u64 %rd1, __unnamed_1;"),
        [reg("%rd1"), sym("__unnamed_1", 0)]
    );
    assert_eq!(operands("bra $L__BB0_2;"), [sym("$L__BB0_2", 0)]);
}

#[test]
fn address_operands() {
    use AddrBase::*;
    let cases = [
        ("[%rd1]", addr(Reg("%rd1".into()), 0)),
        ("[%rd1+8]", addr(Reg("%rd1".into()), 8)),
        ("[%rd1+-4]", addr(Reg("%rd1".into()), -4)),
        ("[%rd1-4]", addr(Reg("%rd1".into()), -4)),
        ("[sym]", addr(Symbol("sym".into()), 0)),
        ("[sym+4]", addr(Symbol("sym".into()), 4)),
        ("[100]", addr(Absolute, 100)),
        ("[0x100]", addr(Absolute, 256)),
    ];
    for (text, want) in cases {
        assert_eq!(
            operands(&format!("ld.u32 %r1, {text};")),
            [reg("%r1"), want],
            "{text}"
        );
        round_trip(
            &format!(".entry k()\n{{\n.reg .b32 %r1;\n.reg .b64 %rd1;\nld.u32 %r1, {text};\n}}\n"),
            "t",
        );
    }
}

#[test]
fn vector_list_pair_and_sink_operands() {
    assert_eq!(
        operands("mov.b64 {%r1, %r2}, %rd1;"),
        [Operand::Vector(vec![reg("%r1"), reg("%r2")]), reg("%rd1")]
    );
    assert_eq!(
        operands("ld.v4.u32 {%r1, _, %r3, %r4}, [%rd1];")[0],
        Operand::Vector(vec![reg("%r1"), Operand::Sink, reg("%r3"), reg("%r4")])
    );
    assert_eq!(
        operands("call.uni (retval0), f, (param0, param1);"),
        [
            Operand::List(vec![sym("retval0", 0)]),
            sym("f", 0),
            Operand::List(vec![sym("param0", 0), sym("param1", 0)])
        ]
    );
    assert_eq!(
        operands("call.uni g, ();"),
        [sym("g", 0), Operand::List(vec![])]
    );
    assert_eq!(
        operands("setp.eq.s32 %p1|%p2, %r1, 0;")[0],
        Operand::Pair(Box::new(reg("%p1")), Box::new(reg("%p2")))
    );
    assert_eq!(
        operands("shfl.sync.bfly.b32 %r2|%p1, %r1, 16, 31, -1;")[0],
        Operand::Pair(Box::new(reg("%r2")), Box::new(reg("%p1")))
    );
    assert_eq!(
        operands("mbarrier.arrive.shared::cta.b64 _, [%r1];")[0],
        Operand::Sink
    );
}

/// PTX ISA, *cp.async.bulk.tensor*: "[tensorMap, tensorCoords]", the coordinates a vector
/// operand: the map's address (any address form) and the coordinate operands.
#[test]
fn tensor_address_operands() {
    let map = |base: AddrBase, offset: i64| Address { base, offset };
    assert_eq!(
        operands("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, -2}], [%r2];")
            [0],
        Operand::TensorAddress {
            tensor_map: map(AddrBase::Reg("%rd1".into()), 0),
            coords: vec![reg("%r1"), Operand::Int(-2)],
        }
    );
    assert_eq!(
        operands("cp.async.bulk.prefetch.tensor.1d.L2.global [tmap+8, {0}];")[0],
        Operand::TensorAddress {
            tensor_map: map(AddrBase::Symbol("tmap".into()), 8),
            coords: vec![Operand::Int(0)],
        }
    );
    for text in [
        "[%rd1, {%r1, %r2}]",
        "[tmap+8, {0}]",
        "[16, {%r1}]",
        "[%rd1-4, {}]",
    ] {
        round_trip(
            &format!(
                ".entry k()\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd1;\n\
                 cp.async.bulk.prefetch.tensor.2d.L2.global {text};\n}}\n"
            ),
            "t",
        );
    }
    let at = |ops: &str| {
        format!(
            ".entry k()\n{{\ncp.async.bulk.tensor.1d.global.shared::cta.bulk_group {ops};\n}}\n"
        )
    };
    // Line 3, the operand starting at column 55.
    fails_at(
        &at("[tmap, 0], [s]"),
        3,
        62,
        "`{` opening the tensor coordinates",
    );
    fails_at(&at("[tmap, {0], [s]"), 3, 64, "or `}`");
    fails_at(&at("[tmap, {0}, [s]"), 3, 65, "closing the tensor address");
}
