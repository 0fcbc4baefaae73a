//! Prints everything the axiomatic engine answers for generated programs, one line per program
//! and model (states with their execution counts, the verdict, counters, and optionally the
//! witness executions), so that two builds of the engine can be compared with `diff`.
//!
//! `cargo run --release -p scopecheck-model --example axiomatic_digest -- <from> <to> [max-events] [witnesses]`

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};

fn main() {
    let mut args = std::env::args().skip(1);
    let from: u64 = args.next().expect("from").parse().expect("from");
    let to: u64 = args.next().expect("to").parse().expect("to");
    let limits = Limits {
        max_events: args.next().map_or(Limits::differential().max_events, |a| {
            a.parse().expect("max events")
        }),
        ..Limits::differential()
    };
    let witnesses = args.next().is_some_and(|a| a == "witnesses");
    let opts = Options {
        witnesses,
        ..Options::default()
    };
    for seed in from..to {
        let p = from_seed_with(seed, &limits);
        for model in Model::ALL {
            match analyze(&p, model, &opts) {
                Ok(a) => {
                    let states: Vec<String> = a
                        .states
                        .iter()
                        .map(|s| {
                            let example = s
                                .example
                                .as_ref()
                                .map(|x| format!(" {x:?}"))
                                .unwrap_or_default();
                            format!("[{}]x{}{example}", s.state, s.witnesses)
                        })
                        .collect();
                    println!(
                        "{seed} {model}: holds {} bounded {} executions {} racy {} states {}",
                        a.holds,
                        a.bounded,
                        a.executions,
                        a.racy_executions,
                        states.join(" ")
                    );
                }
                Err(e) => println!("{seed} {model}: error {e}"),
            }
        }
    }
}
