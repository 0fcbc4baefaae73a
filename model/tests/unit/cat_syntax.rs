//! Tests of `cat::syntax`.

use scopecheck_model::cat::syntax::*;

fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(s) => s.clone(),
        ExprKind::Zero => "0".into(),
        ExprKind::Call(f, a) => {
            format!("{f}({})", a.iter().map(show).collect::<Vec<_>>().join(","))
        }
        ExprKind::Binary(op, a, b) => format!("({} {op:?} {})", show(a), show(b)),
        ExprKind::Unary(op, a) => format!("{op:?}({})", show(a)),
        ExprKind::Identity(a) => format!("[{}]", show(a)),
    }
}

fn expr_of(src: &str) -> String {
    let f = parse("t.cat", &format!("let x = {src}")).unwrap();
    match &f.stmts[0] {
        Stmt::Let { bindings, .. } => show(&bindings[0].body),
        _ => unreachable!(),
    }
}

#[test]
fn precedence() {
    assert_eq!(expr_of("a | b ; c"), "(a Union (b Seq c))");
    assert_eq!(expr_of("a ; b & c"), "(a Seq (b Inter c))");
    assert_eq!(expr_of("a \\ b \\ c"), "((a Diff b) Diff c)");
    assert_eq!(expr_of("a & b \\ c"), "((a Inter b) Diff c)");
    assert_eq!(expr_of("W * R"), "(W Cross R)");
    assert_eq!(expr_of("po* ; rf^-1"), "(Star(po) Seq Inverse(rf))");
    assert_eq!(expr_of("~a^+ | [R]"), "(Complement(Plus(a)) Union [R])");
    assert_eq!(expr_of("domain(r)?"), "Opt(domain(r))");
    assert_eq!(expr_of("po-loc"), "po-loc");
}

#[test]
fn statements_and_comments() {
    let src = "\"T\" (* a (* nested *) comment *)\n// line\nlet rec a = b | a ; c and d = 0\n\
               flag ~empty x as race\nacyclic po | rf as hb\ninclude \"x.cat\"\nshow hb";
    let f = parse("t.cat", src).unwrap();
    assert_eq!(f.title.as_deref(), Some("T"));
    assert_eq!(f.stmts.len(), 4);
    assert!(matches!(&f.stmts[0], Stmt::Let { rec: true, bindings } if bindings.len() == 2));
    assert!(matches!(
        &f.stmts[1],
        Stmt::Check { flag: true, negated: true, kind: CheckKind::Empty, name: Some(n), .. } if n == "race"
    ));
}

#[test]
fn errors_have_places() {
    let e = parse("m.cat", "let x = a |\nacyclic x").unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.cat:2:1: expected an expression, found `acyclic`"
    );
    let e = parse("m.cat", "let x = (a").unwrap_err();
    assert!(e.to_string().starts_with("m.cat:1:11: expected `)`"), "{e}");
    let e = parse("m.cat", "(* open").unwrap_err();
    assert_eq!(e.to_string(), "m.cat:1:1: unterminated comment `(*`");
    let e = parse("m.cat", "let x = a $ b").unwrap_err();
    assert_eq!(e.to_string(), "m.cat:1:11: unexpected character `$`");
}
