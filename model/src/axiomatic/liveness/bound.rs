//! When a liveness search at an unroll bound covers every run: the loops the bound cut.
//!
//! The search of `liveness::liveness` looks at runs that take each backward branch at most
//! `unroll` times. A run the bound cut (the branch would be taken once more) is not looked at,
//! and neither is anything that run could do later: another loop, a barrier, a hang after the
//! loop. `terminates` may only be said when those runs cannot matter.
//!
//! They cannot when the last iteration before the cut is *idle*: it makes no write, passes no
//! barrier and leaves every register live at the loop's head (read on some path from there
//! before it is written) as it found it. An
//! execution that runs such an iteration and goes on is matched by the execution without it:
//! the iteration's events are reads and fences only, and removing reads and fences from a
//! consistent execution leaves it consistent (every axiom of the models is an acyclicity,
//! irreflexivity or emptiness of relations built from the events, which only lose edges:
//! PTX ISA, *Memory Consistency Model*, "Axioms"; cat's `acyclic`/`irreflexive`/`empty`),
//! while the thread's state after it (registers, position) is the state before it, so the rest
//! of the run reads and writes the same. Dropping idle iterations one at a time, every run
//! either takes each branch at most `unroll` times (it was searched) or reaches the bound
//! through an iteration that is not idle: only such a cut leaves the verdict *bounded*.
//! Spinning runs are unaffected: the repeated iteration of a spin is judged with its own
//! prefix of at most `unroll - 1` iterations, and an idle prefix iteration is dropped alike.

use crate::axiomatic::events::{Kind, Path};
use crate::litmus::{Instr, Program, Reg, Span, ThreadId};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// A run the unroll bound cut after an iteration that changes the state: a verdict without a
/// hang is then bounded, not `terminates`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cut {
    /// The thread whose run was cut.
    pub thread: ThreadId,
    /// The backward branch the bound stopped.
    pub span: Span,
}

/// The first cut path of the threads whose last iteration is not idle (see the module doc).
pub fn first_cut(p: &Program, per_thread: &[Vec<Path>]) -> Option<Cut> {
    per_thread.iter().enumerate().find_map(|(t, paths)| {
        let instrs: Vec<&Instr> = p.threads[t].body.iter().map(|s| &s.instr).collect();
        let live = live_registers(&instrs);
        paths.iter().find_map(|path| {
            path.lasso.as_ref().filter(|l| l.bound)?;
            let span = path.cut?;
            (!idle(&live, path)).then_some(Cut { thread: t, span })
        })
    })
}

/// Whether the last iteration of a path the bound cut is idle: its events are reads and
/// fences, and every register live at the loop's head has the value it had when the iteration
/// began.
fn idle(live: &[BTreeSet<Reg>], path: &Path) -> bool {
    let Some(lasso) = &path.lasso else {
        return false;
    };
    let only_reads = path.events[lasso.start..]
        .iter()
        .all(|e| matches!(e.kind, Kind::Read { rmw: false, .. } | Kind::Fence(_)));
    if !only_reads {
        return false;
    }
    let Some(&header) = lasso.stmts.first() else {
        return false;
    };
    live[header]
        .iter()
        .all(|r| lasso.regs_before.get(r) == path.regs.get(r))
}

/// For each statement, the registers live before it: read on some path from it before being
/// written (the classic backward data-flow fixpoint over the thread's branches; a register
/// that is not live is overwritten before any read, so its value cannot change what the
/// thread does next). The final condition's registers are no reason to keep a run: liveness
/// asks whether the threads end, not with which values.
fn live_registers(instrs: &[&Instr]) -> Vec<BTreeSet<Reg>> {
    let labels: HashMap<&str, usize> = instrs
        .iter()
        .enumerate()
        .filter_map(|(i, instr)| match instr {
            Instr::Label(l) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    let successors = |i: usize| -> Vec<usize> {
        let next = (i + 1 < instrs.len()).then_some(i + 1);
        match instrs[i] {
            Instr::Branch { cond, target } => {
                let to = labels.get(target.as_str()).copied();
                match cond {
                    None => to.into_iter().collect(),
                    Some(_) => next.into_iter().chain(to).collect(),
                }
            }
            _ => next.into_iter().collect(),
        }
    };
    let mut live: Vec<BTreeSet<Reg>> = vec![BTreeSet::new(); instrs.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..instrs.len()).rev() {
            let mut now: BTreeSet<Reg> = successors(i)
                .into_iter()
                .flat_map(|j| live[j].iter().cloned())
                .collect();
            if let Some(w) = instrs[i].written_reg() {
                now.remove(w);
            }
            now.extend(instrs[i].read_regs().into_iter().cloned());
            if now != live[i] {
                live[i] = now;
                changed = true;
            }
        }
    }
    live
}
