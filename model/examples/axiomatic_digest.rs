//! Prints everything the axiomatic engine answers for generated programs, one line per program
//! and model (states with their execution counts, the verdict, counters, and optionally the
//! witness executions), so that two builds of the engine can be compared with `diff`.
//!
//! `cargo run --release -p scopecheck-model --example axiomatic_digest -- <from> <to> [max-events] [witnesses]`
//! or, for the inputs of a cargo-fuzz `engines` corpus, `... -- --corpus DIR [witnesses]`.

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::differential::decode_input;
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::litmus::Program;

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "--corpus") {
        let dir = args.nth(1).expect("a corpus directory");
        let witnesses = args.next().is_some_and(|a| a == "witnesses");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("a readable directory")
            .map(|e| e.expect("an entry").path())
            .collect();
        files.sort();
        for path in files {
            let data = std::fs::read(&path).expect("a readable file");
            if let Some(p) = decode_input(&data) {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                digest(&name, &p, witnesses);
            }
        }
        return;
    }
    let from: u64 = args.next().expect("from").parse().expect("from");
    let to: u64 = args.next().expect("to").parse().expect("to");
    let limits = Limits {
        max_events: args.next().map_or(Limits::differential().max_events, |a| {
            a.parse().expect("max events")
        }),
        ..Limits::differential()
    };
    let witnesses = args.next().is_some_and(|a| a == "witnesses");
    for seed in from..to {
        digest(&seed.to_string(), &from_seed_with(seed, &limits), witnesses);
    }
}

fn digest(name: &str, p: &Program, witnesses: bool) {
    let opts = Options {
        witnesses,
        ..Options::default()
    };
    {
        for model in Model::ALL {
            match analyze(p, model.clone(), &opts) {
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
                        "{name} {model}: holds {} bounded {} executions {} racy {} states {}",
                        a.holds,
                        a.bounded,
                        a.executions,
                        a.racy_executions,
                        states.join(" ")
                    );
                }
                Err(e) => println!("{name} {model}: error {e}"),
            }
        }
    }
}
