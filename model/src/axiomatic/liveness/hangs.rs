//! The first consistent execution of one combination of runs that really hangs: the spinning
//! threads' iterations repeat and the blocked threads wait.

use super::barriers::{barriers_block, value_in, Arrival};
use super::repeated::Repeated;
use super::runs::Run;
use super::verdict::{Fate, Hang, Stuck};
use crate::axiomatic::enumerate::{Collector, Explorer};
use crate::axiomatic::events::{Path, Trace};
use crate::axiomatic::{AnalysisError, Model};
use crate::litmus::Program;
use std::collections::HashMap;
use std::ops::ControlFlow;

/// The first consistent execution of one combination of runs in which the spinning threads'
/// iterations really repeat and the blocked threads really wait; `None` when there is none.
pub(super) fn hangs(
    p: &Program,
    model: Model,
    combo: &[&Run],
    arrivals: &[Vec<Vec<Arrival>>],
) -> Result<Option<Hang>, AnalysisError> {
    let paths: Vec<&Path> = combo.iter().map(|r| &r.path).collect();
    let mut valuations = crate::axiomatic::values::Valuations::new(p, &paths);
    // A hang is an execution the model admits, so its valuations are those the safety
    // engine judges ([`crate::axiomatic::analyze`]): under a model without a No-Thin-Air axiom that
    // allows thin-air values (Vulkan, OpenCL; not Tile IR, `withoutthinair`) a read on a
    // data-flow cycle through reads-from may return any value its cycle confirms, and such an
    // execution is as consistent as any other. Leaving those values out would call
    // `terminates` a program that the model lets spin on a self-justified value (a loop
    // waiting for a flag that only a cycle of copies sets). Under the PTX models the grounded
    // valuations below are the only ones with consistent executions.
    if model.thin_air_values() {
        valuations.allow_thin_air(p);
    }
    // Event ids: initial writes (one per physical location) come first, then each thread's.
    let mut first = Vec::with_capacity(combo.len());
    let mut at = p
        .locations
        .iter()
        .enumerate()
        .filter(|&(l, _)| p.physical(l) == l)
        .count();
    for r in combo {
        first.push(at);
        at += r.path.events.len();
    }
    let repeated = Repeated::new(combo, &first, at);
    let mut out = Collector {
        witnesses: true,
        states: HashMap::default(),
        executions: 0,
        racy: 0,
        racy_states: HashMap::default(),
        states_only: false,
        accept: None,
        viable: None,
        co_floor: Some(repeated.co_floor()),
        // One execution is the witness; the search stops there.
        first_only: true,
        // Cycles through reads-from reject most branches of these searches: cut them early.
        prefix_global: true,
    };
    // Every location gets a coherence-last write (one every other write precedes), so that
    // "reads a coherence-last write" means what it did with a total coherence order.
    let observed = crate::axiomatic::observed_locations(p, crate::axiomatic::FinalMemory::All);
    let budget =
        crate::axiomatic::budget::Budget::new(&crate::axiomatic::budget::Limits::default(), None);
    let mut explorer = Explorer::new(
        p,
        model.clone(),
        |search, tally| search.pruned(tally),
        None,
        &observed,
        &budget,
    );
    let mut result = Ok(());
    let mut found: Option<Vec<Trace>> = None;
    let mut known = HashMap::new();
    let for_each = if model.forbids_thin_air() {
        crate::axiomatic::values::Valuations::for_each_grounded
    } else {
        crate::axiomatic::values::Valuations::for_each
    };
    for_each(&valuations, &mut |traces| {
        let repeats = combo.iter().zip(&traces).all(|(r, tr)| {
            r.spin.as_ref().is_none_or(|s| {
                s.live_in
                    .iter()
                    .all(|(a, b)| value_in(tr, a).is_some() && value_in(tr, a) == value_in(tr, b))
            })
        });
        if !repeats || !barriers_block(p, combo, &traces, arrivals) {
            return ControlFlow::Continue(());
        }
        let refs: Vec<&Trace> = traces.iter().collect();
        let same = match explorer.prepared(&refs) {
            Ok((ev, checker)) => {
                let same = repeated.same_valued(ev);
                if !repeated.sources_possible(ev, checker, &same, &mut known) {
                    return ControlFlow::Continue(());
                }
                same
            }
            Err(e) => {
                result = Err(e);
                return ControlFlow::Break(());
            }
        };
        let (accept, viable) = repeated.conditions(same);
        (out.accept, out.viable) = (Some(accept), Some(viable));
        result = explorer.explore(&refs, &mut out);
        if result.is_err() || out.executions > 0 {
            found = Some(traces);
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    result.map_err(|message| AnalysisError {
        span: p.condition.span,
        message,
    })?;
    let (Some(_), Some(execution)) = (
        found,
        out.states.into_values().find_map(|(_, example)| example),
    ) else {
        return Ok(None);
    };
    let fates = combo.iter().map(|r| r.fate).collect();
    let stuck = combo
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.fate, Fate::Spins | Fate::Blocked))
        .map(|(t, r)| {
            let ids = first[t]..first[t] + r.path.events.len();
            match (&r.spin, &r.barrier) {
                (Some(s), _) => Stuck {
                    thread: t,
                    fate: r.fate,
                    span: s.span,
                    iteration_stmts: s.stmts.clone(),
                    prefix: ids.clone().take(s.start).collect(),
                    iteration: ids.skip(s.start).collect(),
                },
                (None, w) => Stuck {
                    thread: t,
                    fate: r.fate,
                    span: w.as_ref().map_or(p.threads[t].span, |w| w.span),
                    iteration_stmts: Vec::new(),
                    prefix: ids.collect(),
                    iteration: Vec::new(),
                },
            }
        })
        .collect();
    Ok(Some(Hang {
        fates,
        stuck,
        execution,
    }))
}
