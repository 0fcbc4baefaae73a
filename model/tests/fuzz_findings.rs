//! Replays every fuzzer finding saved under `corpus/fuzz-findings/` with its expected verdict.
//!
//! Each finding is a `.litmus` file whose quoted comments say what the fuzzer found
//! (`"found: ..."`) and what must happen now (`"expect: ..."`):
//! - `expect: round-trip`: the file parses and `parse(print(p)) == p`;
//! - `expect: parse error at L:C`: the parser rejects the file with an error at line L, column C;
//! - `expect: engines agree`: both engines analyse the program, agree on data races, and every final state the runtime
//!   reaches is allowed by ptx-v7.5 (see `differential::check`).
//!
//! A finding that is a bug in another part of scopecheck, not yet fixed, says so in a
//! `"known: ..."` comment; `engine_findings_agree` skips it with a visible line, and
//! `known_engine_bugs_are_fixed` (run with `cargo test -- --ignored`) holds it to its verdict.
//!
//! The expectations are read from the raw text, so files the parser rejects carry them too.

use scopecheck_model::differential::{check, Options};
use scopecheck_model::litmus::{parse, print};
use std::path::PathBuf;

fn findings() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/fuzz-findings");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no findings in {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

/// The text after `"<key>: ` on a comment line, without the closing quote.
fn tag<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let prefix = format!("\"{key}: ");
    text.lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .map(|rest| rest.trim_end().trim_end_matches('"'))
}

#[test]
fn every_finding_says_what_it_found_and_what_to_expect() {
    for (path, text) in findings() {
        assert!(
            tag(&text, "found").is_some(),
            "{}: no \"found: ...\" comment",
            path.display()
        );
        assert!(
            tag(&text, "expect").is_some(),
            "{}: no \"expect: ...\" comment",
            path.display()
        );
    }
}

#[test]
fn parser_findings_keep_their_verdicts() {
    for (path, text) in findings() {
        let name = path.display().to_string();
        let expect = tag(&text, "expect").unwrap_or_default();
        if expect == "round-trip" {
            let p = parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
            let printed = print(&p);
            let back = parse(&printed, "printed").unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(back, p, "{name} does not round-trip:\n{printed}");
        } else if let Some(at) = expect.strip_prefix("parse error at ") {
            match parse(&text, &name) {
                Ok(_) => panic!("{name}: parsed, but an error at {at} was expected"),
                Err(e) => assert_eq!(e.span.to_string(), at, "{name}: wrong error place: {e}"),
            }
        }
    }
}

fn engine_findings(known: bool) -> Vec<(String, String)> {
    findings()
        .into_iter()
        .filter(|(_, text)| tag(text, "expect") == Some("engines agree"))
        .filter(|(_, text)| tag(text, "known").is_some() == known)
        .map(|(p, text)| (p.display().to_string(), text))
        .collect()
}

fn assert_engines_agree(name: &str, text: &str) {
    let p = parse(text, name).unwrap_or_else(|e| panic!("{e}"));
    if let Err(finding) = check(&p, &Options::default()) {
        panic!("{name}: {finding}");
    }
}

#[test]
fn engine_findings_agree() {
    for (name, text) in engine_findings(true) {
        println!(
            "SKIP (known, run with --ignored): {name}: {}",
            tag(&text, "known").unwrap()
        );
    }
    for (name, text) in engine_findings(false) {
        assert_engines_agree(&name, &text);
    }
}

#[test]
#[ignore = "findings of known bugs in other engines; see their \"known:\" comments"]
fn known_engine_bugs_are_fixed() {
    for (name, text) in engine_findings(true) {
        assert_engines_agree(&name, &text);
    }
}
