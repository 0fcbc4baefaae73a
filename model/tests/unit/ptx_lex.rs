//! Tests of `ptx::lex`.

use scopecheck_model::ptx::ast::Pos;
use scopecheck_model::ptx::lex::*;

fn toks(src: &str) -> Vec<Tok<'_>> {
    let mut lx = Lexer::new(src);
    let mut out = Vec::new();
    loop {
        let t = lx.next_token().unwrap();
        if t.tok == Tok::Eof {
            return out;
        }
        out.push(t.tok);
    }
}

#[test]
fn every_number_form() {
    assert_eq!(
        toks("42 0x2A 0X2aU 052 0b101010 0B1U 0 0U 7U"),
        [42, 42, 42, 42, 42, 1, 0, 0, 7].map(Tok::Int)
    );
    assert_eq!(toks("0f3F800000 0F3f800000"), [Tok::F32(0x3F80_0000); 2]);
    assert_eq!(
        toks("0d3FF0000000000000 1.0 1e0 0.1e1 10E-1"),
        [Tok::F64(1f64.to_bits()); 5]
    );
    assert_eq!(toks("18446744073709551615"), [Tok::Int(u64::MAX)]);
}

#[test]
fn names_and_modifiers() {
    assert_eq!(
        toks("cp.async.shared::cluster.mbarrier::complete_tx::bytes %tid.x $L_1 _ _a"),
        [
            Tok::Ident("cp"),
            Tok::Dot("async"),
            Tok::Dot("shared::cluster"),
            Tok::Dot("mbarrier::complete_tx::bytes"),
            Tok::Ident("%tid"),
            Tok::Dot("x"),
            Tok::Ident("$L_1"),
            Tok::Sink,
            Tok::Ident("_a"),
        ]
    );
}

#[test]
fn comments_and_positions() {
    let mut lx = Lexer::new("// c\n  /* a\n b */ x");
    let t = lx.next_token().unwrap();
    assert_eq!(t.tok, Tok::Ident("x"));
    assert_eq!(t.pos, Pos { line: 3, col: 7 });
}

#[test]
fn bad_numbers() {
    for (src, col) in [
        ("08", 1),
        ("0x", 1),
        ("0f3F80", 1),
        ("12ab", 1),
        (" 0b2", 2),
    ] {
        let err = Lexer::new(src).next_token().unwrap_err();
        assert_eq!(err.0, Pos { line: 1, col }, "{src}");
        assert!(err.1.starts_with("bad number"), "{src}: {}", err.1);
    }
    let err = Lexer::new("99999999999999999999").next_token().unwrap_err();
    assert!(err.1.contains("64 bits"));
}
