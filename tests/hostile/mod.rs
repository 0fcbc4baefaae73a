//! Hostile input: every front end (cat models, the litmus dialects, manifests, command-line
//! options, special files, signals) given input meant to break it. Each case runs the built
//! binary under a 1 GiB address-space limit and a 10 s kill, and must end with exit status 2
//! and a one-line error (with `file:line:col` where the input has places), or with a clean,
//! possibly *bounded* answer; never a panic, a signal death, an out-of-memory or a hang.

mod cat;
mod harness;
mod litmus;
mod manifest;
mod options;
mod special;

use crate::runner;
use harness::{check, dir, run, write, Expect, MP};
use runner::slow_program;
use std::path::Path;
use std::time::Duration;

pub(super) fn all_cases(d: &Path) -> Vec<(String, Vec<String>, Expect)> {
    let mut cases = Vec::new();
    cat::cat_cases(d, &mut cases);
    litmus::litmus_cases(d, &mut cases);
    special::special_cases(d, &mut cases);
    manifest::manifest_cases(d, &mut cases);
    options::option_cases(d, &mut cases);
    cases
}

#[test]
fn hostile_inputs_end_cleanly() {
    let d = dir().join("main");
    std::fs::create_dir_all(&d).unwrap();
    let cases = all_cases(&d);
    let mut failures = Vec::new();
    for (name, args, expect) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Err(e) = check(name, &args, expect) {
            failures.push(e);
        }
    }
    let _ = std::fs::remove_dir_all(&d);
    eprintln!("{} hostile inputs, {} failed", cases.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(cases.len() >= 100, "only {} cases", cases.len());
}

#[test]
fn a_signal_prints_what_was_found_so_far() {
    let d = dir().join("signals");
    std::fs::create_dir_all(&d).unwrap();
    let slow = write(&d, "slow.litmus", slow_program());
    let after = Duration::from_millis(1500);
    for (signal, format, mark) in [
        (libc::SIGINT, "human", "(interrupted: bounded"),
        (libc::SIGINT, "json", "\"stopped\":\"interrupted\""),
        (libc::SIGINT, "herd", "Interrupted slow"),
        (libc::SIGTERM, "human", "(interrupted: bounded"),
    ] {
        let args = ["litmus", "--format", format, slow.as_str()];
        let o = run(&args, None, Some((signal, after))).unwrap();
        assert_eq!(o.code, Some(130), "{format}: {}", o.stderr);
        assert!(o.stdout.contains(mark), "{format}: {}", o.stdout);
        assert!(o.stdout.contains("slow"), "{format}: {}", o.stdout);
        assert!(
            o.stderr.contains("interrupted after 1 of 1"),
            "{}",
            o.stderr
        );
    }
    // The default budget ends a search that would run for minutes: with a short explicit
    // timeout the answer is marked bounded.
    let o = run(&["litmus", "--timeout", "1", slow.as_str()], None, None).unwrap();
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stdout
            .contains("bounded: the search stopped at its timeout"),
        "{}",
        o.stdout
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_unwritable_output_is_an_error_not_a_panic() {
    let d = dir().join("full");
    std::fs::create_dir_all(&d).unwrap();
    let mp = write(&d, "mp.litmus", MP);
    for args in [
        vec!["litmus", mp.as_str()],
        vec!["litmus", "--format", "herd", mp.as_str()],
        vec!["litmus", "--json", mp.as_str()],
    ] {
        let o = run(&args, Some("/dev/full"), None).unwrap();
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
        assert!(
            o.stderr.starts_with("scopecheck: cannot write the output") || o.stderr.is_empty(),
            "{args:?}: {}",
            o.stderr
        );
        assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
    }
    let _ = std::fs::remove_dir_all(&d);
}
