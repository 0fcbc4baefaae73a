//! A program → the axiomatic engine (ptx-v7.5; ptx-v8 for programs with Hopper's asynchronous
//! instructions or shared memory) and the operational runtime (exhaustive, by state
//! caching): every final state the runtime reaches must be one the axioms allow, and both must
//! agree on whether some execution has a data race. A disagreement panics with what each engine
//! found and the program text.
//!
//! The input is a litmus file when it parses to a small program both engines model (so
//! `corpus/litmus/` seeds the campaign), and otherwise the bytes the program generator reads.
//!
//! Many mutated inputs decode to a program already checked (the generator reads only a prefix of
//! the bytes, and many byte values map to one choice), or to one that differs only in its final
//! condition, which plays no part in the check. The check is deterministic, so such a program is
//! not checked again: the target remembers a 128-bit hash of each program's check key. Every
//! 2^14 inputs it prints how many distinct programs it has checked, and how many of those use
//! Hopper's features (an asynchronous instruction, a proxy fence or shared memory) and bulk
//! copies, so exec/s, programs/s and the share of Hopper programs can be read off a run.

#![no_main]

use libfuzzer_sys::fuzz_target;
use scopecheck_model::differential::{
    check, check_key, decode_input, uses_bulk_copies, uses_cluster_barriers, uses_hopper, Options,
};
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

/// Programs checked in this process, by the hash of their check key, and the inputs seen.
struct Checked {
    programs: HashSet<u128>,
    distinct: u64,
    inputs: u64,
    /// Distinct programs with Hopper features, with bulk copies, and with cluster barriers.
    hopper: u64,
    bulk_copies: u64,
    cluster_barriers: u64,
}

/// The most programs remembered (about 32 MB); past it the memory starts over.
const REMEMBERED: usize = 1 << 20;

/// Two independent 64-bit hashes of `key`: a collision, which would skip a program unchecked,
/// is about as likely as 2^-128 per pair.
fn fingerprint(key: &str) -> u128 {
    let hash = |salt: u64| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        key.hash(&mut h);
        h.finish() as u128
    };
    (hash(0) << 64) | hash(0x9e37_79b9_7f4a_7c15)
}

static CHECKED: Mutex<Option<Checked>> = Mutex::new(None);

/// Whether `program` (whose check key is `key`) was not checked before (and count the input).
fn first_time(key: &str, program: &scopecheck_model::litmus::Program) -> bool {
    let mut guard = CHECKED.lock().unwrap_or_else(|e| e.into_inner());
    let c = guard.get_or_insert_with(|| Checked {
        programs: HashSet::new(),
        distinct: 0,
        inputs: 0,
        hopper: 0,
        bulk_copies: 0,
        cluster_barriers: 0,
    });
    c.inputs += 1;
    if c.inputs % (1 << 14) == 0 {
        eprintln!(
            "engines: {} inputs, {} distinct programs checked ({} with Hopper features, {} with bulk copies, {} with cluster barriers)",
            c.inputs, c.distinct, c.hopper, c.bulk_copies, c.cluster_barriers
        );
    }
    let fingerprint = fingerprint(key);
    if c.programs.contains(&fingerprint) {
        return false;
    }
    if c.programs.len() >= REMEMBERED {
        c.programs.clear();
    }
    c.programs.insert(fingerprint);
    c.distinct += 1;
    c.hopper += u64::from(uses_hopper(program));
    c.bulk_copies += u64::from(uses_bulk_copies(program));
    c.cluster_barriers += u64::from(uses_cluster_barriers(program));
    true
}

fuzz_target!(|data: &[u8]| {
    let Some(program) = decode_input(data) else {
        return;
    };
    if !first_time(&check_key(&program), &program) {
        return;
    }
    if let Err(finding) = check(&program, &Options::default()) {
        panic!("engine differential: {finding}");
    }
});
