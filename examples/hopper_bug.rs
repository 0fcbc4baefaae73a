//! One Hopper bug pattern of the corpus (`corpus/bugs/hopper.rs`: clusters, distributed shared
//! memory, remote mbarrier arrives, the async proxy) or its fix, explored by our DFS; prints the
//! report and exits 1 when the kernel fails, 0 when it passes.
//!
//! ```text
//! cargo run --release --example hopper_bug -- hopper/dsmem-write-after-peer-exit   # exits 1
//! cargo run --release --example hopper_bug                                         # lists the cases
//! ```

#[path = "../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod corpus;

use scopecheck_model::kernel::Checker;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cases: Vec<corpus::BugCase> = corpus::all()
        .into_iter()
        .filter(|c| c.name.starts_with("hopper/"))
        .collect();
    let name = std::env::args().nth(1);
    let Some(case) = cases.iter().find(|c| Some(c.name) == name.as_deref()) else {
        if let Some(name) = name {
            eprintln!("hopper_bug: no case named `{name}`");
        }
        eprintln!("usage: hopper_bug CASE, one of:");
        for c in &cases {
            eprintln!("  {:55} expect {}", c.name, c.expected_words());
        }
        return ExitCode::from(2);
    };
    println!("{}: {}", case.name, case.about);
    let report = case.run(&Checker::dfs());
    println!("{report}");
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
