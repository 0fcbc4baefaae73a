//! Variable and register declarations and initialisers.

use super::common::*;
use scopecheck_model::ptx::ast::*;

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
