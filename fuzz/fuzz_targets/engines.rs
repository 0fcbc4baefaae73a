//! A program → the axiomatic engine (ptx-v7.5) and the operational runtime (exhaustive, by state
//! caching): every final state the runtime reaches must be one the axioms allow. A disagreement
//! panics with both state sets and the program text.
//!
//! The input is a litmus file when it parses to a small program both engines model (so
//! `corpus/litmus/` seeds the campaign), and otherwise the bytes the program generator reads.

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use scopecheck_model::differential::{check, suitable, Options};
use scopecheck_model::litmus::arbitrary::{program, Limits};
use scopecheck_model::litmus::parse;

fuzz_target!(|data: &[u8]| {
    let seed = std::str::from_utf8(data)
        .ok()
        .and_then(|src| parse(src, "input.litmus").ok())
        .filter(suitable);
    let program = match seed {
        Some(p) => p,
        None => match program(&mut Unstructured::new(data), &Limits::differential()) {
            Ok(p) => p,
            Err(_) => return,
        },
    };
    if let Err(finding) = check(&program, &Options::default()) {
        panic!("engine differential: {finding}");
    }
});
