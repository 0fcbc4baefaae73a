//! Hostile command-line options.

use super::harness::*;
use std::path::Path;

pub(super) fn option_cases(d: &Path, cases: &mut Vec<(String, Vec<String>, Expect)>) {
    let mp = write(d, "mp3.litmus", MP);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let e = |x: &str| Expect::Error(x.to_string());
    let invalid = || e("error: invalid value");
    cases.push((
        "fuzz --seconds u64::MAX".into(),
        s(&["fuzz", "--seconds", "18446744073709551615"]),
        invalid(),
    ));
    cases.push((
        "fuzz --seconds 0".into(),
        s(&["fuzz", "--seconds", "0"]),
        invalid(),
    ));
    cases.push((
        "fuzz --seconds -1".into(),
        s(&["fuzz", "--seconds", "-1"]),
        e("error:"),
    ));
    cases.push((
        "fuzz --jobs 65535".into(),
        s(&["fuzz", "--jobs", "65535"]),
        invalid(),
    ));
    cases.push((
        "fuzz --jobs 0".into(),
        s(&["fuzz", "--jobs", "0"]),
        invalid(),
    ));
    cases.push((
        "fuzz --max-events 1000".into(),
        s(&["fuzz", "--max-events", "1000"]),
        invalid(),
    ));
    cases.push((
        "fuzz --programs 0".into(),
        s(&["fuzz", "--programs", "0"]),
        invalid(),
    ));
    cases.push((
        "check --jobs 65535".into(),
        s(&["check", "--jobs", "65535"]),
        invalid(),
    ));
    cases.push((
        "litmus --timeout nan".into(),
        s(&["litmus", "--timeout", "nan", &mp]),
        invalid(),
    ));
    cases.push((
        "litmus --timeout -1".into(),
        s(&["litmus", "--timeout", "-1", &mp]),
        e("error:"),
    ));
    cases.push((
        "litmus --timeout 1e400".into(),
        s(&["litmus", "--timeout", "1e400", &mp]),
        invalid(),
    ));
    cases.push((
        "litmus --timeout huge".into(),
        s(&["litmus", "--timeout", "1e18", &mp]),
        Expect::Answer("Test MP"),
    ));
    cases.push((
        "litmus --max-memory huge".into(),
        s(&["litmus", "--max-memory", "18446744073709551615", &mp]),
        Expect::Answer("Test MP"),
    ));
    cases.push((
        "litmus --max-memory -5".into(),
        s(&["litmus", "--max-memory", "-5", &mp]),
        e("error:"),
    ));
    cases.push((
        "litmus --unroll u32::MAX".into(),
        s(&["litmus", "--unroll", "4294967295", &mp]),
        Expect::Answer("Test MP"),
    ));
    cases.push((
        "litmus --unroll too big".into(),
        s(&["litmus", "--unroll", "99999999999", &mp]),
        invalid(),
    ));
    cases.push((
        "litmus --max-executions 0".into(),
        s(&["litmus", "--max-executions", "0", &mp]),
        Expect::Answer("Test MP"),
    ));
    cases.push((
        "litmus --format bogus".into(),
        s(&["litmus", "--format", "bogus", &mp]),
        invalid(),
    ));
    cases.push((
        "litmus --model empty".into(),
        s(&["litmus", "--model", "", &mp]),
        invalid(),
    ));
    cases.push((
        "litmus --model unknown".into(),
        s(&["litmus", "--model", "ptx-v99", &mp]),
        e("unknown model"),
    ));
    cases.push((
        "litmus --dot into a file".into(),
        s(&["litmus", "--dot", &mp, &mp]),
        e("cannot create"),
    ));
    cases.push((
        "litmus --dot /dev/null/x".into(),
        s(&["litmus", "--dot", "/dev/null/x", &mp]),
        e("cannot create"),
    ));
    cases.push(("litmus no paths".into(), s(&["litmus"]), e("error:")));
    cases.push(("unknown subcommand".into(), s(&["frobnicate"]), e("error:")));
    cases.push((
        "litmus --progress without --liveness".into(),
        s(&["litmus", "--progress", "obe", &mp]),
        e("error:"),
    ));
    cases.push((
        "litmus --liveness bad progress".into(),
        s(&["litmus", "--liveness", "--progress", "nope", &mp]),
        invalid(),
    ));
    cases.push((
        "litmus non-UTF-8 argument".into(),
        s(&["litmus", "--format", "h\u{FFFD}rd", &mp]),
        invalid(),
    ));
}
