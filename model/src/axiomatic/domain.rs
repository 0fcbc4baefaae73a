//! The value domain: which values a load may return, before reads-from is chosen.
//!
//! A store may write any value computed from values in the domain, so the domain is a
//! fixpoint (computed in `events.rs`). Fed back through RMWs (`atom.add` in a loop) it would grow
//! forever, so each value remembers how many writes to each location its derivation needed, and
//! values needing more writes to a location than any execution has are dropped. The bound is
//! sound: a derivation uses distinct write events, and for several operands at least as many as
//! the largest of them.

use crate::litmus::{Instr, Program, Value};

/// How many writes to each physical location (indexed by `LocId`) a value's derivation used.
pub type Usage = Vec<u32>;

/// The values each location may hold (indexed by `LocId`; aliases hold none of their own),
/// each with the minimal write usages that produce it.
pub type Domain = Vec<Vec<(Value, Usage)>>;

/// Only the initial values.
pub fn initial(p: &Program) -> Domain {
    let n = p.locations.len();
    (0..n)
        .map(|l| {
            if p.physical(l) == l {
                vec![(p.initial_value(l), vec![0; n])]
            } else {
                vec![]
            }
        })
        .collect()
}

/// The same values, each once, with no usage: what trace enumeration needs.
pub fn values_only(domain: &Domain) -> Domain {
    domain
        .iter()
        .map(|entries| {
            let mut values: Vec<Value> = entries.iter().map(|(v, _)| *v).collect();
            values.sort();
            values.dedup();
            values
                .into_iter()
                .map(|v| (v, vec![0; domain.len()]))
                .collect()
        })
        .collect()
}

/// Whether a usage stays within what one execution can write.
pub fn within(usage: &Usage, max: &[u32]) -> bool {
    usage.iter().zip(max).all(|(u, m)| u <= m)
}

/// Adds a value unless a usage no larger already produces it; drops usages it improves on.
pub fn insert_minimal(entries: &mut Vec<(Value, Usage)>, value: Value, usage: Usage) {
    let le = |a: &Usage, b: &Usage| a.iter().zip(b).all(|(x, y)| x <= y);
    if entries.iter().any(|(v, u)| *v == value && le(u, &usage)) {
        return;
    }
    entries.retain(|(v, u)| !(*v == value && le(&usage, u)));
    entries.push((value, usage));
    entries.sort();
}

/// An upper bound on the writes to each physical location in one execution: a store runs once,
/// or `unroll + 1` times for each loop (a backward branch and its target) around it.
pub fn max_writes(p: &Program, unroll: u32) -> Vec<u32> {
    let mut max = vec![0u32; p.locations.len()];
    for th in &p.threads {
        let target = |label: &str| {
            th.body
                .iter()
                .position(|s| matches!(&s.instr, Instr::Label(l) if l == label))
        };
        let loops: Vec<(usize, usize)> = th
            .body
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match &s.instr {
                Instr::Branch { target: t, .. } => target(t).filter(|&d| d <= i).map(|d| (d, i)),
                _ => None,
            })
            .collect();
        for (i, s) in th.body.iter().enumerate() {
            if let Some(l) = s.instr.location().filter(|_| writes(&s.instr)) {
                let times = loops
                    .iter()
                    .filter(|(d, b)| (*d..=*b).contains(&i))
                    .fold(1u32, |acc, _| acc.saturating_mul(unroll + 1));
                max[p.physical(l)] = max[p.physical(l)].saturating_add(times);
            }
        }
    }
    max
}

fn writes(i: &Instr) -> bool {
    matches!(
        i,
        Instr::Store { .. } | Instr::Atom { .. } | Instr::Red { .. }
    )
}
