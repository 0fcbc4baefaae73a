//! Tests of `litmus::lines`.

use scopecheck_model::litmus::lines::*;

#[test]
fn lines_and_columns() {
    let ix = LineIndex::new("ab\nçd\r\n\nlast");
    let at = |o| {
        let s = ix.span(o);
        (s.line, s.col)
    };
    assert_eq!([at(0), at(1), at(2)], [(1, 1), (1, 2), (1, 3)]);
    assert_eq!(
        [at(3), at(5), at(8), at(9)],
        [(2, 1), (2, 2), (3, 1), (4, 1)]
    );
    // Inside a multi-byte character: its start.
    assert_eq!(at(4), (2, 1));
    assert_eq!(at(100), (4, 5));
    assert_eq!(
        [ix.line(1), ix.line(2), ix.line(3), ix.line(4), ix.line(5)],
        ["ab", "çd", "", "last", ""]
    );
    assert_eq!(LineIndex::new("").line(1), "");
}
