//! Time every bug model of `corpus/bugs/` under every engine that fits it, one line per
//! exploration as it finishes (`cargo run --release --example bug_timing [FILTER]`).
//!
//! Prints figures; asserts nothing.

#[path = "../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod corpus;

use std::io::Write;
use std::time::Instant;

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let all = Instant::now();
    for case in corpus::all() {
        if !case.name.contains(&filter) {
            continue;
        }
        for checker in case.every_engine() {
            let start = Instant::now();
            let report = case.run(&checker);
            println!(
                "{:>8.2}s  {:<48} {:<10} {:>9} executions  {}",
                start.elapsed().as_secs_f64(),
                case.name,
                report.engine,
                report.executions,
                if case.agrees(&report) {
                    "as expected"
                } else {
                    "MISMATCH"
                }
            );
            std::io::stdout().flush().ok();
        }
    }
    println!("total {:.1}s", all.elapsed().as_secs_f64());
}
