//! Hostile cat models.

use super::harness::*;
use std::path::Path;

/// A cat model whose body is `body` (a relation), checked acyclic.
fn cat(body: &str) -> String {
    format!("\"hostile\"\nlet a = {body}\nacyclic a\n")
}

pub(super) fn cat_cases(d: &Path, cases: &mut Vec<(String, Vec<String>, Expect)>) {
    let mp = write(d, "mp.litmus", MP);
    let mut model = |name: &str, text: String, at: &str| {
        let path = write(d, name, text);
        let expect = match at {
            ANSWER => Expect::Answer("Test"),
            _ => Expect::Error(format!("{path}{at}")),
        };
        cases.push((
            name.to_string(),
            vec!["litmus".into(), "--model".into(), path, mp.clone()],
            expect,
        ));
    };
    model(
        "deep-parens.cat",
        cat(&format!("{}po{}", "(".repeat(10_000), ")".repeat(10_000))),
        ":2:",
    );
    model(
        "deep-brackets.cat",
        cat(&format!("{}W{}", "[".repeat(5_000), "]".repeat(5_000))),
        ":2:",
    );
    model(
        "flat-union.cat",
        cat(&vec!["po"; 100_000].join(" | ")),
        ":2:",
    );
    model("flat-seq.cat", cat(&vec!["po"; 100_000].join(" ; ")), ":2:");
    model(
        "flat-inter.cat",
        cat(&vec!["po"; 100_000].join(" & ")),
        ":2:",
    );
    model(
        "flat-diff.cat",
        cat(&vec!["po"; 100_000].join(" \\ ")),
        ":2:",
    );
    model(
        "flat-cross.cat",
        format!(
            "\"h\"\nlet a = {}\nacyclic a\n",
            vec!["W"; 100_000].join(" * ")
        ),
        ":2:",
    );
    model(
        "tilde-chain.cat",
        cat(&format!("{}po", "~".repeat(100_000))),
        ":2:",
    );
    model(
        "postfix-chain.cat",
        cat(&format!("po{}", "^-1".repeat(100_000))),
        ":2:",
    );
    model(
        "plus-chain.cat",
        cat(&format!("po{}", "+".repeat(100_000))),
        ":2:",
    );
    model(
        "deep-call-args.cat",
        format!(
            "\"h\"\nlet f(x) = x\nlet a = {}po{}\nacyclic a\n",
            "f(".repeat(5_000),
            ")".repeat(5_000)
        ),
        ":3:",
    );
    model(
        "non-monotone-rec.cat",
        "\"h\"\nlet rec a = po \\ a\nacyclic a\n".into(),
        ":2:13: `let rec a` is not monotone",
    );
    model(
        "non-monotone-complement.cat",
        "\"h\"\nlet rec a = ~a & po\nacyclic a\n".into(),
        ":2:13: `let rec a` is not monotone",
    );
    model(
        "non-monotone-mutual.cat",
        "\"h\"\nlet rec a = po | b and b = po \\ a\nacyclic a\n".into(),
        ":2:28: `let rec b` is not monotone",
    );
    model(
        "rec-function.cat",
        "\"h\"\nlet rec f(x) = f(x)\nacyclic po\n".into(),
        ":2:9: recursive functions",
    );
    model(
        "exponential-inlining.cat",
        format!(
            "\"h\"\nlet f0(x) = x | x\n{}acyclic f59(po)\n",
            (1..60)
                .map(|i| format!("let f{i}(x) = f{}(x) | f{}(x)\n", i - 1, i - 1))
                .collect::<String>()
        ),
        ":",
    );
    model(
        "function-chain.cat",
        format!(
            "\"h\"\nlet f0(x) = x\n{}acyclic f4999(po)\n",
            (1..5000)
                .map(|i| format!("let f{i}(x) = f{}(x) | po\n", i - 1))
                .collect::<String>()
        ),
        ":",
    );
    model(
        "definition-chain.cat",
        format!(
            "\"h\"\nlet a0 = po\n{}acyclic a4999\n",
            (1..5000)
                .map(|i| format!("let a{i} = a{} | po\n", i - 1))
                .collect::<String>()
        ),
        ":",
    );
    model(
        "unterminated-comment.cat",
        "\"h\"\n(* open (* nested *)\nacyclic po\n".into(),
        ":2:1: unterminated comment",
    );
    model(
        "deep-comments.cat",
        format!("\"h\"\n{}\nacyclic po\n", "(*".repeat(100_000)),
        ":2:1: unterminated comment",
    );
    model(
        "unterminated-string.cat",
        "\"hostile\nacyclic po\n".into(),
        ":1:1: unterminated string",
    );
    model(
        "bad-character.cat",
        "\"h\"\nlet a = po $ rf\nacyclic a\n".into(),
        ":2:12: unexpected character",
    );
    model("unknown-name.cat", cat("nonsense"), ":2:9: unknown name");
    model(
        "wrong-arity.cat",
        "\"h\"\nlet f(x, y) = x | y\nacyclic f(po)\n".into(),
        ":3:9: `f` takes 2 argument(s)",
    );
    model(
        "set-as-relation.cat",
        "\"h\"\nacyclic W\n".into(),
        ":2:9: expected a relation",
    );
    model(
        "function-as-value.cat",
        "\"h\"\nlet f(x) = x\nacyclic f\n".into(),
        ":3:9: `f` is a function",
    );
    model(
        "include-self.cat",
        "\"h\"\ninclude \"include-self.cat\"\n".into(),
        ":2:1: `include-self.cat` includes itself",
    );
    model(
        "include-missing.cat",
        "\"h\"\ninclude \"no-such-model.cat\"\n".into(),
        ":2:1: cannot include",
    );
    model(
        "include-dev-zero.cat",
        "\"h\"\ninclude \"../../../../../../dev/zero\"\n".into(),
        ":2:1: cannot include",
    );
    model(
        "missing-expression.cat",
        "\"h\"\nlet a = po |\nacyclic a\n".into(),
        ":3:1: expected an expression",
    );
    model(
        "keyword-as-name.cat",
        "\"h\"\nlet acyclic = po\n".into(),
        ":2:5: expected a name to bind",
    );
    model(
        "invalid-utf8.cat",
        String::from_utf8_lossy(b"\"h\"\n").into_owned() + "\u{FFFD}",
        ":",
    );
    model(
        "long-identifier.cat",
        cat(&"p".repeat(1_000_000)),
        ":2:9: unknown name",
    );
    model(
        "many-lets.cat",
        format!(
            "\"h\"\n{}acyclic po\n",
            (0..100_000)
                .map(|i| format!("let a{i} = po\n"))
                .collect::<String>()
        ),
        ANSWER,
    );
    let bytes = write(d, "binary.cat", [0u8, 159, 146, 150, 255, 0, 1]);
    cases.push((
        "binary.cat".into(),
        vec!["litmus".into(), "--model".into(), bytes.clone(), mp.clone()],
        Expect::Error(format!("{bytes}:1:1")),
    ));
    let empty = write(d, "empty.cat", "");
    cases.push((
        "empty.cat (no checks: everything allowed)".into(),
        vec!["litmus".into(), "--model".into(), empty, mp.clone()],
        Expect::Answer("States"),
    ));
    let monotone = write(
        d,
        "monotone-rec.cat",
        "\"h\"\nlet rec a = po | (a ; a)\nacyclic a\n",
    );
    cases.push((
        "monotone-rec.cat".into(),
        vec!["litmus".into(), "--model".into(), monotone, mp.clone()],
        Expect::Answer("States"),
    ));
}
