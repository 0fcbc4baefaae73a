//! Errors: each with its exact `line:col`.

use super::common::*;
use scopecheck_model::ptx::{parse_errors, MAX_DEPTH, MAX_ERRORS};

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
    // Operand lists nest no deeper either.
    for open in ["{", "("] {
        let src = format!(".entry k()\n{{\nmov.b32 {};\n}}\n", open.repeat(1_000_000));
        fails_at(&src, 3, 9 + MAX_DEPTH as u32 - 1, "nested deeper than");
    }
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

/// `(line, col)` of each error `parse_errors` reports for `src`.
fn error_positions(src: &str) -> Vec<(u32, u32)> {
    match parse_errors(src, "test.ptx") {
        Ok(_) => panic!("parsed:\n{src}"),
        Err(es) => es.iter().map(|e| (e.pos.line, e.pos.col)).collect(),
    }
}

#[test]
fn errors_are_recovered_from_statement_by_statement() {
    let src = ".version 8.0\n.bogus 1\n.entry k()\n{\n.reg .b32 %r<4>;\nmov.u32 %r1, ;\n\
               add.u32 %r1, %r1, 1;\n{\nld.u32 %r2, [%r1;\n}\nfoo bar baz;\n.frob;\nret;\n}\n\
               .entry j()\n{\n\tret\n}\n";
    assert_eq!(
        error_positions(src),
        [(2, 1), (6, 14), (9, 17), (11, 8), (12, 1), (17, 5)]
    );
    // `parse` reports the first of them.
    let e = err(src);
    assert_eq!((e.pos.line, e.pos.col), (2, 1));
    // A function header error resumes at the next module directive.
    let src = ".entry k(.param .q8 x)\n{\nret;\n}\n.global .u32 a;\n.entry j(\n{\n}\n";
    assert_eq!(error_positions(src), [(1, 17), (7, 1)]);
}

#[test]
fn errors_stop_at_the_cap_and_at_fatal_errors() {
    let mut src = String::from(".entry k()\n{\n");
    for _ in 0..100 {
        src.push_str("mov.u32 %r1, ;\n");
    }
    src.push_str("}\n");
    let errors = error_positions(&src);
    assert_eq!(errors.len(), MAX_ERRORS);
    assert_eq!(errors[MAX_ERRORS - 1], (2 + MAX_ERRORS as u32, 14));
    // A lexical error ends the parse: nothing after it is read.
    assert_eq!(
        error_positions(".entry k()\n{\nmov.u32 %r1, ;\nmov.u32 %r1, 08;\nmov.u32 %r1, ;\n}\n"),
        [(3, 14), (4, 14)]
    );
    // So does an unterminated block, reported once.
    assert_eq!(
        error_positions(".entry k()\n{\nmov.u32 %r1, ;\n{\nret;\n"),
        [(3, 14), (4, 1)]
    );
}
