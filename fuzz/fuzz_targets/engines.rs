//! A program → the axiomatic engine (ptx-v7.5) and the operational runtime (exhaustive, by state
//! caching): every final state the runtime reaches must be one the axioms allow. A disagreement
//! panics with both state sets and the program text.
//!
//! The input is a litmus file when it parses to a small program both engines model (so
//! `corpus/litmus/` seeds the campaign), and otherwise the bytes the program generator reads.
//!
//! Many mutated inputs decode to a program already checked (the generator reads only a prefix of
//! the bytes, and many byte values map to one choice). The check is deterministic, so such a
//! program is not checked again; every 2^14 inputs the target prints how many distinct programs
//! it has checked, so exec/s and programs/s can both be read off a run.

#![no_main]

use libfuzzer_sys::fuzz_target;
use scopecheck_model::differential::{check, decode_input, Options};
use scopecheck_model::litmus::print;
use std::collections::HashSet;
use std::sync::Mutex;

/// Programs checked in this process, by their text, and the inputs seen.
struct Checked {
    programs: HashSet<String>,
    distinct: u64,
    inputs: u64,
}

/// The most program texts remembered (about 20 MB); past it the memory starts over.
const REMEMBERED: usize = 1 << 16;

static CHECKED: Mutex<Option<Checked>> = Mutex::new(None);

/// Whether `text` is a program not checked before (and count the input).
fn first_time(text: &str) -> bool {
    let mut guard = CHECKED.lock().unwrap_or_else(|e| e.into_inner());
    let c = guard.get_or_insert_with(|| Checked {
        programs: HashSet::new(),
        distinct: 0,
        inputs: 0,
    });
    c.inputs += 1;
    if c.inputs % (1 << 14) == 0 {
        eprintln!(
            "engines: {} inputs, {} distinct programs checked",
            c.inputs, c.distinct
        );
    }
    if c.programs.contains(text) {
        return false;
    }
    if c.programs.len() >= REMEMBERED {
        c.programs.clear();
    }
    c.programs.insert(text.to_string());
    c.distinct += 1;
    true
}

fuzz_target!(|data: &[u8]| {
    let Some(program) = decode_input(data) else {
        return;
    };
    if !first_time(&print(&program)) {
        return;
    }
    if let Err(finding) = check(&program, &Options::default()) {
        panic!("engine differential: {finding}");
    }
});
