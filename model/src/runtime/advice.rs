//! Fix advice for failures no race explains: an assertion or postcondition that fails because
//! `fence.sc` operations of different threads were not in one SC order.
//!
//! PTX ISA, *Memory Consistency Model, Fence-SC order*: "Fence-SC order is an acyclic partial
//! order, determined at runtime, that relates every pair of morally strong fence.sc operations."
//! Two `fence.sc` of threads whose scopes do not include each other's thread (say
//! `fence.sc.cta` in two blocks) are not morally strong, so nothing orders them and store
//! buffering across them may read both initial values. Widening both to the narrowest scope
//! that includes both threads (`fence.sc.gpu` for blocks of one GPU) makes them morally strong.

use super::machine::Machine;
use super::report::{scope_label, EventKind};
use crate::scope::{Order, Scope};

/// One line per pair of `fence.sc` of the execution, by different threads, that are not morally
/// strong: where they are and the scope that would order them.
pub fn fence_sc_advice(m: &Machine) -> Vec<String> {
    let fences: Vec<(usize, Scope, usize)> = m
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e.what {
            EventKind::Fence {
                order: Order::Sc,
                scope,
            } => Some((e.thread, scope, i)),
            _ => None,
        })
        .collect();
    let mut lines = Vec::new();
    let mut advised = Vec::new();
    for (k, &(a, sa, ea)) in fences.iter().enumerate() {
        for &(b, sb, eb) in &fences[k + 1..] {
            let (pa, pb) = (&m.setup.threads[a].placement, &m.setup.threads[b].placement);
            if a == b || (sa.includes(pa, pb) && sb.includes(pb, pa)) {
                continue;
            }
            let wide = Scope::narrowest_common(pa, pb);
            let key = (sa, sb, wide);
            if advised.contains(&key) {
                continue;
            }
            advised.push(key);
            let (ta, tb) = (&m.setup.threads[a], &m.setup.threads[b]);
            lines.push(format!(
                "fix advice: the fence.sc.{sa} of {} (#{}) and the fence.sc.{sb} of {} (#{}) are \
                 not morally strong (their scopes do not include each other's thread), so no \
                 SC order relates them; fence.sc.{} (scope {}) on both would",
                ta.name,
                ea + 1,
                tb.name,
                eb + 1,
                wide.ptx_name(),
                scope_label(wide)
            ));
        }
    }
    lines
}
