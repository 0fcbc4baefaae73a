//! The uniform random walk ([`Urw`]) samples interleavings uniformly where shuttle's random
//! walk does not: on a kernel where one thread performs one operation and another three, the
//! four interleavings come up about equally often under URW, while a random walk runs the lone
//! operation first in about half of the executions. Both are seeded, so the figures are
//! deterministic. URW also finds a message-passing race, and replays what it found.

use scopecheck_model::engine::{Random, Urw};
use scopecheck_model::kernel::*;
use std::sync::{Arc, Mutex};

const DEV: MemoryScope = MemoryScope::Device;
const RUNS: usize = 4000;

/// How often each final value of the counter came up: 100 + the increments after the exchange
/// (103: the exchange ran first).
fn histogram(checker: Checker) -> [usize; 4] {
    let seen = Arc::new(Mutex::new([0usize; 4]));
    let mut k = Kernel::new("one_against_three", Grid::new(2, 1));
    let c = k.global::<i32>("c", 1);
    let sink = Arc::clone(&seen);
    k.postcondition("records the counter", move |m| {
        let v = m.get(&c, 0);
        sink.lock().unwrap()[(v - 100) as usize] += 1;
        true
    });
    let report = checker.check(&k, move |t| {
        if t.bid() == 0 {
            t.atomic_exchange(&c, 0, 100, MemoryOrder::Relaxed, DEV);
        } else {
            for _ in 0..3 {
                t.atomic_add(&c, 0, 1, MemoryOrder::Relaxed, DEV);
            }
        }
    });
    assert!(report.passed(), "{report}");
    assert_eq!(report.executions, RUNS as u64, "{report}");
    let h = *seen.lock().unwrap();
    assert_eq!(h.iter().sum::<usize>(), RUNS);
    h
}

#[test]
fn urw_samples_interleavings_uniformly() {
    let urw = histogram(Checker::new(Urw {
        iterations: RUNS,
        seed: 7,
    }));
    let random = histogram(Checker::new(Random {
        iterations: RUNS,
        seed: 7,
    }));
    println!("final counter 100..=103, URW: {urw:?}, random walk: {random:?}");
    // URW: each interleaving with probability 1/4 (the first execution, the trial, is a plain
    // random walk).
    for (v, &n) in urw.iter().enumerate() {
        assert!(
            (RUNS / 4 - RUNS / 20..=RUNS / 4 + RUNS / 20).contains(&n),
            "URW: counter {} in {n} of {RUNS} executions: {urw:?}",
            100 + v
        );
    }
    // The random walk runs the exchange first with probability 1/2.
    assert!(
        random[3] > RUNS * 2 / 5,
        "random walk: exchange first in {} of {RUNS}: {random:?}",
        random[3]
    );
}

#[test]
fn urw_finds_a_message_passing_race_and_replays_it() {
    let mut k = Kernel::new("mp", Grid::new(2, 1));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    let body = move |t: &ThreadCtx| {
        if t.bid() == 0 {
            t.store(&data, 0, 1);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Relaxed, DEV);
        } else if t.atomic_load(&flag, 0, MemoryOrder::Relaxed, DEV) == 1 {
            let _ = t.load(&data, 0);
        }
    };
    let report = Checker::new(Urw {
        iterations: 500,
        seed: 1,
    })
    .check(&k, body);
    let failure = report.failure.as_ref().expect("URW finds the race");
    assert_eq!(failure.kind, FailureKind::DataRace, "{report}");
    let replayed = Checker::replay(&failure.token.to_string(), &k, body);
    assert_eq!(
        replayed.failure.map(|f| f.kind),
        Some(FailureKind::DataRace),
        "the token replays the race"
    );
}
