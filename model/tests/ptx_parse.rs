//! The PTX parser and printer (`scopecheck_model::ptx`): one test per production of the PTX
//! ISA's grammar that the parser implements, the errors it reports (with their exact
//! `line:col`), and the round trip `parse(print(parse(x))) == parse(x)` over every `.ptx` file
//! under `model/tests/ptx/` and `corpus/cuda/`.

use scopecheck_model::ptx::ast::*;
use scopecheck_model::ptx::{parse, PtxError, MAX_DEPTH};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Helpers.

/// `tree` with every position set to the default, so that trees parsed from different texts
/// compare by their content.
fn clear_positions(mut m: Module) -> Module {
    fn decl(d: &mut VarDecl) {
        d.pos = Pos::default();
    }
    fn stmts(body: &mut [Statement]) {
        for s in body {
            match s {
                Statement::Label { pos, .. } | Statement::Pragma { pos, .. } => {
                    *pos = Pos::default()
                }
                Statement::Decl(d) => decl(d),
                Statement::Loc(l) => l.pos = Pos::default(),
                Statement::Instr(i) => i.pos = Pos::default(),
                Statement::Block { pos, body } => {
                    *pos = Pos::default();
                    stmts(body);
                }
            }
        }
    }
    for item in &mut m.items {
        match item {
            Item::Var(d) => decl(d),
            Item::Func(f) => {
                f.pos = Pos::default();
                f.returns.iter_mut().for_each(decl);
                f.params.iter_mut().for_each(decl);
                if let Some(body) = &mut f.body {
                    stmts(body);
                }
            }
            Item::Section(s) => s.pos = Pos::default(),
            Item::Pragma { pos, .. } => *pos = Pos::default(),
        }
    }
    m
}

fn ok(src: &str) -> Module {
    match parse(src, "test.ptx") {
        Ok(m) => m,
        Err(e) => panic!("{e}\n{src}"),
    }
}

fn err(src: &str) -> PtxError {
    match parse(src, "test.ptx") {
        Ok(m) => panic!("parsed, expected an error:\n{src}\n{m:?}"),
        Err(e) => e,
    }
}

/// Asserts `src` fails at `line:col` with a message containing `needle`, and that the error
/// prints as `test.ptx:line:col: …` on one line.
fn fails_at(src: &str, line: u32, col: u32, needle: &str) {
    let e = err(src);
    assert_eq!((e.pos.line, e.pos.col), (line, col), "{e}");
    assert!(e.message.contains(needle), "`{needle}` not in: {e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("test.ptx:{line}:{col}: ")),
        "{shown}"
    );
    assert!(!shown.contains('\n'), "{shown}");
}

/// The round trip: the printed tree parses back to the same tree.
fn round_trip(src: &str, path: &str) -> Module {
    let first = parse(src, path).unwrap_or_else(|e| panic!("{e}"));
    let printed = first.to_string();
    let second = parse(&printed, path)
        .unwrap_or_else(|e| panic!("printed text does not parse: {e}\n{printed}"));
    let first = clear_positions(first);
    assert_eq!(
        first,
        clear_positions(second),
        "{path}: the printed text parses to another tree:\n{printed}"
    );
    first
}

/// The body of the only function of `ok(src)`.
fn body(src: &str) -> Vec<Statement> {
    let m = ok(src);
    let f = m
        .items
        .iter()
        .find_map(|i| match i {
            Item::Func(f) => Some(f.clone()),
            _ => None,
        })
        .expect("a function");
    f.body.expect("a body")
}

/// The instructions of `{ … }` wrapped in an entry, after `.reg` declarations of `%r`, `%rd`,
/// `%p`, `%f`.
fn instrs(text: &str) -> Vec<Instruction> {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{{\n\
         .reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n.reg .pred %p<9>;\n.reg .f32 %f<9>;\n{text}\n}}\n"
    );
    body(&src)
        .into_iter()
        .filter_map(|s| match s {
            Statement::Instr(i) => Some(i),
            _ => None,
        })
        .collect()
}

/// The operands of the one instruction `text`.
fn operands(text: &str) -> Vec<Operand> {
    let mut is = instrs(text);
    assert_eq!(is.len(), 1, "{text}");
    is.remove(0).operands
}

fn reg(s: &str) -> Operand {
    Operand::Reg(s.to_string())
}

fn sym(s: &str, offset: i64) -> Operand {
    Operand::Symbol {
        name: s.to_string(),
        offset,
    }
}

fn addr(base: AddrBase, offset: i64) -> Operand {
    Operand::Address(Address { base, offset })
}

fn ptx_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("tests/ptx"), root.join("../corpus/cuda")] {
        if !dir.exists() {
            continue;
        }
        for e in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let e = e.expect("readable directory");
            if e.path().extension().is_some_and(|x| x == "ptx") {
                out.push(e.path().to_path_buf());
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Round trips over the fixtures.

#[test]
fn every_fixture_round_trips() {
    let files = ptx_files();
    assert!(files.len() >= 12, "fixtures missing: {files:?}");
    for path in &files {
        let src = std::fs::read_to_string(path).expect("readable fixture");
        let m = round_trip(&src, &path.display().to_string());
        assert!(!m.items.is_empty(), "{}: no items", path.display());
    }
}

// ---------------------------------------------------------------------------------------------
// Module directives.

#[test]
fn module_header_directives() {
    let m = ok(
        ".version 8.7\n.target sm_90a, texmode_independent, debug\n.address_size 32\n\
                .file 1 \"/tmp/a.cu\"\n.file 2 \"b.h\", 1700000000, 1234\n",
    );
    assert_eq!(m.version, Some((8, 7)));
    assert_eq!(m.target, ["sm_90a", "texmode_independent", "debug"]);
    assert_eq!(m.address_size, Some(32));
    assert_eq!(m.files[&1], "/tmp/a.cu");
    assert_eq!(m.files[&2], "b.h");
    assert!(m.items.is_empty());
    round_trip(".version 7.10\n.target sm_80\n.address_size 64\n", "t");
    assert_eq!(ok(".version 7.10").version, Some((7, 10)));
}

#[test]
fn address_size_is_32_or_64() {
    fails_at(".address_size 48", 1, 15, "32 or 64");
}

#[test]
fn section_text_is_kept_verbatim() {
    let src = ".version 8.0\n.section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0 // }\n\
               .b8 \"}\" /* { */ { .b8 1 }\n}\n.section .debug_abbrev { }\n";
    let m = round_trip(src, "t");
    let Item::Section(s) = &m.items[0] else {
        panic!("{m:?}")
    };
    assert_eq!(s.name, "debug_str");
    assert_eq!(
        s.text,
        "\n$L__info_string0:\n.b8 95,90,0 // }\n.b8 \"}\" /* { */ { .b8 1 }\n"
    );
    let Item::Section(s) = &m.items[1] else {
        panic!("{m:?}")
    };
    assert_eq!((s.name.as_str(), s.text.as_str()), ("debug_abbrev", " "));
    fails_at(
        ".section .debug_info\n{\n.b8 1\n",
        2,
        1,
        "unterminated block",
    );
}

#[test]
fn module_pragma() {
    let m = round_trip(".pragma \"nounroll\";\n", "t");
    assert!(matches!(&m.items[0], Item::Pragma { text, .. } if text == "nounroll"));
}

#[test]
fn linkages_on_variables_and_functions() {
    let m = round_trip(
        ".visible .global .u32 a;\n.extern .shared .align 16 .b8 dyn[];\n\
         .weak .const .f32 c = 0f3F800000;\n.common .global .u64 d;\n\
         .extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);\n\
         .weak .func w ()\n{\nret;\n}\n",
        "t",
    );
    let link: Vec<Option<Linkage>> = m
        .items
        .iter()
        .map(|i| match i {
            Item::Var(d) => d.linkage,
            Item::Func(f) => f.linkage,
            _ => None,
        })
        .collect();
    use Linkage::*;
    assert_eq!(
        link,
        [
            Some(Visible),
            Some(Extern),
            Some(Weak),
            Some(Common),
            Some(Extern),
            Some(Weak)
        ]
    );
    let Item::Func(f) = &m.items[4] else { panic!() };
    assert!(f.body.is_none());
    assert_eq!(f.returns.len(), 1);
    assert_eq!(f.params.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Function headers.

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

// ---------------------------------------------------------------------------------------------
// Declarations.

#[test]
fn register_declarations() {
    let b = body(
        ".entry k()\n{\n.reg .b32 %r<10>;\n.reg .pred %p, q;\n.reg .v4 .f32 %v;\n\
         .reg .b64 a, b, c;\n}\n",
    );
    let decls: Vec<VarDecl> = b
        .into_iter()
        .filter_map(|s| match s {
            Statement::Decl(d) => Some(d),
            _ => None,
        })
        .collect();
    let names: Vec<(&str, Option<u32>, &str)> = decls
        .iter()
        .map(|d| (d.name.as_str(), d.range, d.ty.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("%r", Some(10), "b32"),
            ("%p", None, "pred"),
            ("q", None, "pred"),
            ("%v", None, "f32"),
            ("a", None, "b64"),
            ("b", None, "b64"),
            ("c", None, "b64"),
        ]
    );
    assert_eq!(decls[3].vector, Some(4));
    assert!(decls.iter().all(|d| d.space == StateSpace::Reg));
}

#[test]
fn variable_declarations_in_every_space() {
    let m = round_trip(
        ".global .align 4 .b8 g[4];\n.const .v2 .f64 c2;\n.shared .align 16 .b8 s[2][3][4];\n\
         .shared::cta .u32 sc;\n.shared::cluster .u32 scl;\n.local .u8 l[];\n.tex .texref t;\n\
         .global .v4 .align 16 .u32 va;\n",
        "t",
    );
    let ds: Vec<&VarDecl> = m
        .items
        .iter()
        .map(|i| match i {
            Item::Var(d) => d,
            _ => panic!(),
        })
        .collect();
    use StateSpace::*;
    assert_eq!(
        ds.iter().map(|d| d.space).collect::<Vec<_>>(),
        [
            Global,
            Const,
            Shared,
            Shared,
            SharedCluster,
            Local,
            Tex,
            Global
        ]
    );
    assert_eq!(ds[2].array, [Some(2), Some(3), Some(4)]);
    assert_eq!(ds[5].array, [None]);
    assert_eq!((ds[7].vector, ds[7].align), (Some(4), Some(16)));
    fails_at(".global .align 3 .b8 x;", 1, 16, "power of two");
    fails_at(".global .q32 x;", 1, 9, "unknown type `.q32`");
}

#[test]
fn initialisers() {
    let m = round_trip(
        ".global .u32 a = 7;\n.global .s32 b[2] = {-1, 0x10};\n\
         .global .u32 m[2][2] = {{1, 2}, {3, 4}};\n.global .f32 f = 0f3F800000;\n\
         .global .f64 d = 1.5;\n.global .u64 p = a;\n.global .u64 q[2] = {generic(a), b+4};\n\
         .global .u64 r = generic(b)+8;\n.global .u8 e[1] = {};\n",
        "t",
    );
    let inits: Vec<Init> = m
        .items
        .iter()
        .map(|i| match i {
            Item::Var(d) => d.init.clone().expect("an initialiser"),
            _ => panic!(),
        })
        .collect();
    let int = |v| Init::Scalar(Operand::Int(v));
    assert_eq!(inits[0], int(7));
    assert_eq!(inits[1], Init::List(vec![int(-1), int(16)]));
    assert_eq!(
        inits[2],
        Init::List(vec![
            Init::List(vec![int(1), int(2)]),
            Init::List(vec![int(3), int(4)])
        ])
    );
    assert_eq!(
        inits[3],
        Init::Scalar(Operand::Float(FloatLit::F32(0x3F80_0000)))
    );
    assert_eq!(
        inits[4],
        Init::Scalar(Operand::Float(FloatLit::F64(1.5f64.to_bits())))
    );
    assert_eq!(inits[5], Init::Scalar(sym("a", 0)));
    assert_eq!(
        inits[6],
        Init::List(vec![
            Init::Generic {
                name: "a".into(),
                offset: 0
            },
            Init::Scalar(sym("b", 4))
        ])
    );
    assert_eq!(
        inits[7],
        Init::Generic {
            name: "b".into(),
            offset: 8
        }
    );
    assert_eq!(inits[8], Init::List(vec![]));
}

// ---------------------------------------------------------------------------------------------
// Statements.

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

// ---------------------------------------------------------------------------------------------
// Instructions and operands.

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

// ---------------------------------------------------------------------------------------------
// Errors: each with its exact position.

#[test]
fn error_unknown_directive() {
    fails_at(
        ".version 8.0\n.bogus 1\n",
        2,
        1,
        "unknown directive `.bogus`",
    );
    fails_at(
        ".entry k()\n{\n  .frobnicate;\n}\n",
        3,
        3,
        "unknown directive `.frobnicate`",
    );
    fails_at(
        ".entry k()\n.maxthreads 4\n{\n}\n",
        2,
        1,
        "unknown directive `.maxthreads`",
    );
}

#[test]
fn error_unterminated_block() {
    fails_at(".entry k()\n{\n  ret;\n", 2, 1, "unterminated block");
    fails_at(
        ".entry k()\n{\n ret;\n  {\n  ret;\n}\n",
        2,
        1,
        "unterminated block",
    );
    fails_at(
        ".entry k()\n{\n/* never closed\n}\n",
        3,
        1,
        "unterminated comment",
    );
}

#[test]
fn error_malformed_loc() {
    fails_at(".entry k()\n{\n.loc 1 x 3\n}\n", 3, 8, "malformed `.loc`");
    fails_at(
        ".entry k()\n{\n.loc 1 2\nret;\n}\n",
        4,
        1,
        "malformed `.loc`: expected the column",
    );
    fails_at(
        ".entry k()\n{\n.loc 1 2 3, inlined 1 2 3\n}\n",
        3,
        13,
        "expected `function_name` or `inlined_at`",
    );
    fails_at(
        ".entry k()\n{\n.loc 1 2 3, inlined_at 1 2\n}\n",
        4,
        1,
        "malformed `.loc`",
    );
}

#[test]
fn error_bad_number() {
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, 09;\n}\n",
        3,
        14,
        "bad number `09`",
    );
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, 0x;\n}\n",
        3,
        14,
        "bad number `0x`",
    );
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, 12ab;\n}\n",
        3,
        14,
        "bad number `12ab`",
    );
    fails_at(
        ".entry k()\n{\nmov.f32 %f1, 0f3F80;\n}\n",
        3,
        14,
        "bad number `0f3F80`",
    );
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, 0b102;\n}\n",
        3,
        14,
        "bad number `0b102`",
    );
    fails_at(
        ".entry k()\n{\nmov.u64 %rd1, 18446744073709551616;\n}\n",
        3,
        15,
        "does not fit in 64 bits",
    );
}

#[test]
fn error_missing_semicolon() {
    // The error is where the `;` belongs: just after the instruction's last token.
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, 1\nret;\n}\n",
        3,
        15,
        "missing `;`",
    );
    fails_at(
        ".entry k()\n{\n.reg .b32 %r<4>\nret;\n}\n",
        3,
        16,
        "missing `;`",
    );
    fails_at(".entry k()\n{\nret\n}\n", 3, 4, "missing `;`");
}

#[test]
fn error_over_deep_nesting() {
    let depth = MAX_DEPTH + 1;
    let src = format!(".entry k()\n{}{}", "{".repeat(depth), "}".repeat(depth));
    // The first brace is the body (level 1); the one past the limit is on column MAX_DEPTH + 1.
    fails_at(&src, 2, depth as u32, "nested deeper than");
    let src = format!(
        ".global .u32 a[1] = {}1{};",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    fails_at(&src, 1, 21 + MAX_DEPTH as u32, "nested deeper than");
    // Far deeper input is the same clean error, not a stack overflow.
    let src = format!(".entry k()\n{}", "{".repeat(1_000_000));
    assert!(err(&src).message.contains("nested deeper than"));
    let src = format!(".global .u32 a = {}", "{".repeat(1_000_000));
    assert!(err(&src).message.contains("nested deeper than"));
    // Exactly at the limit parses.
    let src = format!(
        ".entry k()\n{}{}",
        "{".repeat(MAX_DEPTH),
        "}".repeat(MAX_DEPTH)
    );
    ok(&src);
}

#[test]
fn error_other_malformed_input() {
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, ;\n}\n",
        3,
        14,
        "expected an operand",
    );
    fails_at(
        ".entry k()\n{\nld.u32 %r1, [%rd1;\n}\n",
        3,
        18,
        "expected `]`",
    );
    fails_at(".entry k()\n{\n@1 bra x;\n}\n", 3, 2, "predicate register");
    fails_at("ld.u32 %r1, [%rd1];", 1, 1, "expected a directive");
    fails_at(".file 1 \"a.cu\n", 1, 9, "unterminated string");
    fails_at(".version 8\n", 1, 10, "MAJOR.MINOR");
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, 1 # 2;\n}\n",
        3,
        16,
        "preprocessor",
    );
    fails_at(
        ".entry k()\n{\nmov.u32 %r1, é;\n}\n",
        3,
        14,
        "unexpected character",
    );
    fails_at(".entry k()\n{\n}\n}\n", 4, 1, "expected a directive");
    fails_at(
        ".entry k(.global .u32 x)\n{\n}\n",
        1,
        10,
        "`.param` or `.reg`",
    );
}

// ---------------------------------------------------------------------------------------------
// Guards: size, and no panic on any input.

#[test]
fn a_100000_line_file_parses() {
    let mut src = String::from(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry big(\n.param .u64 p\n)\n{\n\
         .reg .b32 %r<100>;\n.reg .b64 %rd<100>;\n.reg .pred %p<4>;\n",
    );
    let mut lines = 10;
    let mut i = 0;
    while lines < 100_000 {
        src.push_str(&format!(
            "$L__BB0_{i}:\n\t.loc 1 {i} 3\n\tld.global.u32 %r{}, [%rd{}+{}];\n\
             \tsetp.ne.s32 %p1, %r{}, 0x{i:x};\n\t@!%p1 bra $L__BB0_{i};\n",
            i % 100,
            i % 100,
            4 * (i % 1000),
            i % 100
        ));
        lines += 5;
        i += 1;
    }
    src.push_str("\tret;\n}\n");
    let start = std::time::Instant::now();
    let m = ok(&src);
    eprintln!(
        "{} lines, {} bytes parsed in {:?}",
        src.lines().count(),
        src.len(),
        start.elapsed()
    );
    let Item::Func(f) = &m.items[0] else { panic!() };
    assert_eq!(f.body.as_ref().map(Vec::len), Some(3 + 5 * i + 1));
}

/// A small deterministic generator (64-bit LCG), so the mutations are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn mutated_fixtures_never_panic() {
    // Bytes that matter to the grammar, swapped in at random places.
    const PIECES: &[&str] = &[
        "{", "}", "(", ")", "[", "]", ";", ",", ":", "@", "!", "|", "+", "-", "<", ">", "=", ".",
        "%", "$", "_", "\"", "/*", "//", "0x", "0f", "0d", "0b", "9", "U", "e", "\n", " ", "::",
        "é", "\0", ".loc", ".reg", ".section", "generic(",
    ];
    let mut rng = Lcg(0x5eed);
    let mut parsed = 0;
    let mut rejected = 0;
    for path in ptx_files() {
        let src = std::fs::read(&path).expect("readable fixture");
        for _ in 0..400 {
            let mut bytes = src.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len() + 1);
                match rng.below(4) {
                    0 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    1 => bytes.truncate(at),
                    _ => {
                        let piece = PIECES[rng.below(PIECES.len())];
                        bytes.splice(at..at, piece.bytes());
                    }
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            match parse(&text, "mutant.ptx") {
                Ok(m) => {
                    parsed += 1;
                    // What parses also round-trips.
                    let again =
                        parse(&m.to_string(), "printed.ptx").unwrap_or_else(|e| panic!("{e}\n{m}"));
                    assert_eq!(clear_positions(m), clear_positions(again));
                }
                Err(e) => {
                    rejected += 1;
                    assert!(e.pos.line >= 1 && e.pos.col >= 1, "{e}");
                    assert!(!e.to_string().contains('\n'), "{e}");
                }
            }
        }
    }
    eprintln!("mutants: {parsed} parsed, {rejected} rejected");
    assert!(rejected > 0);
}
