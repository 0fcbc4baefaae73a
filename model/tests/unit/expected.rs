//! Tests of `expected`.

use scopecheck_model::expected::*;

#[test]
fn rows_columns_and_empty_verdicts() {
    let t = Expected::parse("e.csv", "test,a,b\nx.litmus,1,\n\n\"y,z.litmus\",0,1\n").unwrap();
    assert_eq!(t.columns, ["a", "b"]);
    assert_eq!(t.rows.len(), 2);
    assert_eq!(t.rows[0].verdicts, [Some(true), None]);
    assert_eq!(
        t.rows[1].test, "y,z.litmus",
        "quoted fields keep their commas"
    );
    assert_eq!(t.rows[1].line, 4);
    assert_eq!(t.column("b"), Some(1));
    assert_eq!(t.verdicts(1).collect::<Vec<_>>(), [("y,z.litmus", true)]);
    assert_eq!(t.column("c"), None);
}

#[test]
fn bad_tables_are_errors_with_their_line() {
    for (text, wanted) in [
        ("name,a\nx,1\n", "e.csv:1: the header starts with `test`"),
        (
            "test,a\nx,1,1\n",
            "e.csv:2: 3 fields where the header has 2",
        ),
        (
            "test,a\nx,1\ny,yes\n",
            "e.csv:3: a verdict is `1`, `0` or nothing, not `yes`",
        ),
    ] {
        let e = Expected::parse("e.csv", text).unwrap_err();
        assert!(e.starts_with(wanted), "{e}");
    }
}
