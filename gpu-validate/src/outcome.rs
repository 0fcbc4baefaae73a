//! Final states as the device counts them: one 64-bit key per distinct state of the condition's
//! observables (one byte per value, a tag byte on top).

use crate::codegen::{value_bits, Observable, TAG_SPIN, TAG_STATE, TAG_TIMEOUT, TAG_WIDE};
use scopecheck_model::litmus::{Program, Prop, Term, Value};
use std::collections::BTreeMap;

/// What one device key stands for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Values of the observables, in [`crate::codegen::Harness::observables`] order.
    State(Vec<Value>),
    /// A litmus thread hit the step limit (a loop that did not end).
    Timeout,
    /// Some observable fell outside the range its bits can hold (see
    /// [`crate::codegen::value_bits`]) and could not be packed into the key.
    Wide,
    /// A spinning reader gave up before it saw the value it waits for.
    SpinMiss,
    /// A key this harness never writes: evidence of a classifier bug, reported, never dropped.
    Unknown(u64),
}

/// Unpack a device key.
pub fn decode(key: u64, observables: usize) -> Outcome {
    match key >> 56 {
        TAG_STATE => {
            let bits = value_bits(observables);
            let mask = (1u64 << bits) - 1;
            Outcome::State(
                (0..observables)
                    .map(|b| {
                        let raw = (key >> (bits as usize * b)) & mask;
                        // Sign-extend the `bits`-bit field.
                        ((raw << (64 - bits)) as i64) >> (64 - bits)
                    })
                    .collect(),
            )
        }
        TAG_TIMEOUT => Outcome::Timeout,
        TAG_WIDE => Outcome::Wide,
        TAG_SPIN => Outcome::SpinMiss,
        _ => Outcome::Unknown(key),
    }
}

/// The key the device computes for a state (the inverse of [`decode`], used by tests).
pub fn encode(values: &[Value]) -> u64 {
    let bits = value_bits(values.len());
    let mask = (1u64 << bits) - 1;
    values
        .iter()
        .enumerate()
        .fold(TAG_STATE << 56, |k, (b, v)| {
            k | (((*v as u64) & mask) << (bits as usize * b))
        })
}

/// Name → value, for printing and for JSON.
pub fn named(
    program: &Program,
    observables: &[Observable],
    values: &[Value],
) -> BTreeMap<String, Value> {
    observables
        .iter()
        .zip(values)
        .map(|(o, v)| (o.name(program), *v))
        .collect()
}

/// Does the condition's proposition hold in this projected state?
pub fn satisfies(
    program: &Program,
    observables: &[Observable],
    values: &[Value],
    prop: &Prop,
) -> bool {
    let term = |t: &Term| -> Value {
        match t {
            Term::Const(c) => *c,
            Term::Reg(th, r) => lookup(observables, values, &Observable::Reg(*th, r.clone())),
            Term::Loc(l) => lookup(observables, values, &Observable::Loc(program.physical(*l))),
        }
    };
    match prop {
        Prop::True => true,
        Prop::Cmp(cmp, a, b) => cmp.holds(term(a), term(b)),
        Prop::Not(a) => !satisfies(program, observables, values, a),
        Prop::And(a, b) => {
            satisfies(program, observables, values, a) && satisfies(program, observables, values, b)
        }
        Prop::Or(a, b) => {
            satisfies(program, observables, values, a) || satisfies(program, observables, values, b)
        }
    }
}

fn lookup(observables: &[Observable], values: &[Value], o: &Observable) -> Value {
    let i = observables
        .iter()
        .position(|x| x == o)
        .expect("every condition term is an observable");
    values[i]
}
