//! What the PTX interpreter's test files share: a module header, a check at a launch given as
//! `// scopecheck:` flags under the DFS, and the verdicts they assert.

use scopecheck_model::kernel::{Checker, FailureKind, Report, Verdict};
use scopecheck_model::ptx::launch::{check_ptx, Launch};
use std::time::Instant;

/// The module header every test body is checked under.
pub const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Check `body` (a module without its header) at the launch `flags`, under the DFS; prints the
/// execution count and time.
pub fn check(flags: &str, body: &str) -> Result<Report, String> {
    let src = format!("// scopecheck: {flags}\n{HEAD}{body}");
    let start = Instant::now();
    let r = check_ptx(&src, "test.ptx", &Launch::default(), &[], Checker::dfs());
    if let Ok(r) = &r {
        println!(
            "{}: {} executions in {:.3} s",
            r.kernel,
            r.executions,
            start.elapsed().as_secs_f64()
        );
    }
    r
}

/// The kernel passes, and the search covered every execution.
pub fn verified(flags: &str, body: &str) {
    let r = check(flags, body).unwrap_or_else(|e| panic!("unexpected error: {e}"));
    assert!(r.passed() && r.complete, "{r}");
}

/// The kernel's verdict (it must be accepted).
pub fn verdict(flags: &str, body: &str) -> Verdict {
    match check(flags, body) {
        Ok(r) => r.verdict(),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// The kernel fails with `kind`.
pub fn fails(flags: &str, body: &str, kind: FailureKind) {
    let r = check(flags, body).unwrap_or_else(|e| panic!("unexpected error: {e}"));
    assert_eq!(r.verdict(), Verdict::Fail(kind), "{r}");
}
