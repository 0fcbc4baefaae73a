//! herd's OpenCL C litmus dialect: parsing, printing back, errors with their place, and
//! `opencl.cat`'s verdicts and data races on small tests written here.

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::cat::CatModel;
use scopecheck_model::litmus::{parse, print, Program};
use std::sync::Arc;

fn mp(store: &str, load: &str) -> String {
    format!(
        "OPENCL MP
(* message passing through y *)
{{ [x] = 0; [y] = 0; }}
P0@wg 0, dev 0 (global int* x, global atomic_int* y) {{
  *x = 1; // the data
  atomic_store_explicit(y, 1, {store}, memory_scope_device);
}}
P1@wg 1, dev 0 (global int* x, global atomic_int* y) {{
  int r0 = atomic_load_explicit(y, {load}, memory_scope_device);
  int r1 = -1;
  if (r0 == 1) {{ r1 = *x; }} else {{ r1 = r0 + 7; }}
}}
exists (1:r0=1 /\\ 1:r1=0)
"
    )
}

fn opencl() -> Model {
    Model::Cat(Arc::new(CatModel::builtin("opencl").expect("built in")))
}

fn decide(p: &Program) -> (bool, bool) {
    let a = analyze(p, opencl(), &Options::default()).expect("analyzes");
    (a.holds, a.racy_executions == 0)
}

#[test]
fn message_passing_synchronizes_only_with_release_and_acquire() {
    let ra = parse(&mp("memory_order_release", "memory_order_acquire"), "mp").unwrap();
    assert_eq!(
        decide(&ra),
        (false, true),
        "release/acquire: forbidden, race-free"
    );
    let rlx = parse(&mp("memory_order_relaxed", "memory_order_relaxed"), "mp").unwrap();
    assert_eq!(
        decide(&rlx),
        (true, false),
        "relaxed: allowed, and *x races"
    );
}

#[test]
fn printed_tests_parse_back_to_the_same_program() {
    let p = parse(&mp("memory_order_release", "memory_order_acquire"), "mp").unwrap();
    assert!(scopecheck_model::litmus::opencl::test_of(&p).is_some());
    let text = print(&p);
    assert!(text.starts_with("OPENCL MP"), "{text}");
    assert_eq!(parse(&text, "printed").unwrap(), p, "{text}");
}

#[test]
fn errors_name_their_line_and_column() {
    let cases = [
        (
            mp("memory_order_release", "memory_order_acquire")
                .replace("atomic_load_explicit", "atomic_lode_explicit"),
            "mp:9:12",
            "unknown atomic function",
        ),
        (
            mp("memory_order_release", "memory_order_release"),
            "mp:9:12",
            "shall not be memory_order_release",
        ),
        (
            mp("memory_order_release", "memory_order_acquire").replace("int r1 = -1;", ""),
            "mp:11:",
            "register `r1` is not declared",
        ),
        (
            mp("memory_order_bogus", "memory_order_acquire"),
            "mp:6:",
            "expected a `memory_order_...`",
        ),
        (
            mp("memory_order_release", "memory_order_acquire").replace("*x = 1;", "*z = 1;"),
            "mp:5:4",
            "`z` is not a parameter",
        ),
    ];
    for (src, place, message) in cases {
        let e = parse(&src, "mp").expect_err("bad input").to_string();
        assert!(e.starts_with(place), "{place}: {e}");
        assert!(e.contains(message), "{message}: {e}");
    }
}
