//! Whether a blocked thread's barrier never completes (PTX ISA, `bar.sync`: "the barrier is
//! complete when the expected number of threads arrive"), given the values of the runs.

use super::runs::Run;
use super::verdict::Fate;
use crate::axiomatic::events::{Expr, Kind, Trace};
use crate::axiomatic::execution::barrier_instance;
use crate::litmus::{BarrierOp, Program, ThreadId, Value};
use std::collections::HashMap;

/// The value of an expression over a trace's reads.
pub(super) fn value_in(trace: &Trace, e: &Expr) -> Option<Value> {
    e.eval(&|i| match trace.events.get(i)?.kind {
        Kind::Read { value, .. } => Some(value),
        _ => None,
    })
}

/// The barrier instance a barrier statement of thread `t` joins: its CTA in PTX, the instance
/// of the group its qualifiers name (a Vulkan control barrier's execution scope, at most the
/// workgroup) otherwise ([`barrier_instance`]).
pub(super) fn barrier_instance_of(p: &Program, t: ThreadId, stmt: usize) -> Instance {
    barrier_instance(p, t, stmt)
}

/// A barrier instance ([`barrier_instance`]).
pub(super) type Instance = Vec<u32>;

/// One arrival of a path at a barrier: the instance it joins and the id.
pub(super) type Arrival<'a> = (Instance, &'a [Expr]);

/// A barrier's identity: its instance and the id values.
pub(super) type BarrierKey = (Instance, Vec<Value>);

/// Whether every blocked thread's barrier really never completes, given the runs' values.
pub(super) fn barriers_block(
    p: &Program,
    combo: &[&Run],
    traces: &[Trace],
    arrivals_of: &[Vec<Vec<Arrival>>],
) -> bool {
    // Whether some run of thread `u` arrives at barrier `key` `nth` times (an id computed from
    // loaded values may be any).
    let may_arrive = |u: usize, (instance, id): &BarrierKey, nth: usize| {
        arrivals_of[u].iter().any(|path| {
            let times = path
                .iter()
                .filter(|(at, ids)| {
                    at == instance
                        && ids.len() == id.len()
                        && ids.iter().zip(id).all(|(e, v)| match e {
                            Expr::Const(c) => c == v,
                            _ => true,
                        })
                })
                .count();
            times >= nth
        })
    };
    let key = |t: ThreadId, stmt: usize, id: &[Value]| -> BarrierKey {
        (barrier_instance_of(p, t, stmt), id.to_vec())
    };
    // Per barrier: each thread's completed `bar.sync`s, and its arrivals (completed, `arrive`,
    // and the one it waits at).
    let mut passed: HashMap<BarrierKey, Vec<usize>> = HashMap::new();
    let mut arrived: HashMap<BarrierKey, Vec<usize>> = HashMap::new();
    let n = combo.len();
    let mut waiting = Vec::new();
    for (t, (run, trace)) in combo.iter().zip(traces).enumerate() {
        for e in &trace.events {
            if let Kind::Barrier { op, id, .. } = &e.kind {
                let k = key(t, e.stmt, id);
                arrived.entry(k.clone()).or_insert_with(|| vec![0; n])[t] += 1;
                if *op == BarrierOp::Sync {
                    passed.entry(k).or_insert_with(|| vec![0; n])[t] += 1;
                }
            }
        }
        if let Some(w) = &run.barrier {
            let Some(id) =
                w.id.iter()
                    .map(|e| value_in(trace, e))
                    .collect::<Option<Vec<Value>>>()
            else {
                return false;
            };
            let quorum = match &w.quorum {
                Some(q) => match value_in(trace, q) {
                    Some(q) => Some(q),
                    None => return false,
                },
                None => None,
            };
            let k = key(t, w.stmt, &id);
            arrived.entry(k.clone()).or_insert_with(|| vec![0; n])[t] += 1;
            waiting.push((t, k, quorum));
        }
    }
    let zeros = vec![0; n];
    waiting.iter().all(|(t, k, quorum)| {
        let arrivals = arrived.get(k).unwrap_or(&zeros);
        let passes = passed.get(k).unwrap_or(&zeros);
        // This is the thread's `nth` arrival at the barrier.
        let nth = arrivals[*t];
        match quorum {
            // Released once `q` threads arrived: blocked while fewer than `nth * q` ever do.
            Some(q) => (arrivals.iter().sum::<usize>() as i64) < (nth as i64).saturating_mul(*q),
            // Every thread of the instance that takes part (some run of it arrives there) and
            // has not finished must arrive an `nth` time; no thread got past its `nth` arrival
            // (that instance would have released this one too).
            None => {
                let missing = (0..n).any(|u| {
                    u != *t
                        && combo[u].fate != Fate::Done
                        && arrivals[u] < nth
                        && may_arrive(u, k, nth)
                });
                missing && passes.iter().all(|&c| c < nth)
            }
        }
    })
}
