//! Sequential consistency, as a reference at the strong end: one memory, threads interleaved one
//! whole instruction at a time. Every SC outcome is allowed by the PTX axioms (an interleaving
//! orders everything totally, so coherence, causality and atomicity hold) and reached by the
//! operational runtime (its loads may always read the newest store), so SC ⊆ runtime ⊆ axioms.

use crate::axiomatic::events::registers;
use crate::axiomatic::FinalState;
use crate::litmus::{Instr, LocationKind, Operand, Program, Reg, Value};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// One point of an interleaving: where each thread is, its registers (in the order of
/// [`registers`]), and memory.
#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    pc: Vec<usize>,
    regs: Vec<Vec<Value>>,
    mem: Vec<Value>,
}

/// Each thread's register names: the slots of [`State::regs`].
struct Slots(Vec<Vec<Reg>>);

impl Slots {
    fn of(&self, t: usize, r: &Reg) -> usize {
        self.0[t]
            .iter()
            .position(|n| n == r)
            .expect("every register a thread mentions has a slot")
    }
}

/// Every final state of every interleaving, or `None` for programs with branches or barriers
/// (which this reference leaves to the engines).
pub fn final_states(p: &Program) -> Option<BTreeSet<FinalState>> {
    let straight_line = p.threads.iter().flat_map(|t| &t.body).all(|s| {
        !matches!(
            s.instr,
            Instr::Branch { .. } | Instr::Barrier { .. } | Instr::Label(_)
        )
    });
    if !straight_line {
        return None;
    }
    let initial: Vec<BTreeMap<Reg, Value>> =
        (0..p.threads.len()).map(|t| registers(p, t)).collect();
    let slots = Slots(
        initial
            .iter()
            .map(|r| r.keys().cloned().collect())
            .collect(),
    );
    let mut start = State {
        pc: vec![0; p.threads.len()],
        regs: initial
            .iter()
            .map(|r| r.values().copied().collect())
            .collect(),
        mem: (0..p.locations.len())
            .map(|l| match p.locations[l].kind {
                LocationKind::Plain { init } => init,
                LocationKind::Alias { .. } => 0,
            })
            .collect(),
    };
    for t in 0..p.threads.len() {
        run_local(p, &slots, t, &mut start);
    }
    let mut finals = BTreeSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let mut done = true;
        for t in 0..p.threads.len() {
            if let Some(stmt) = p.threads[t].body.get(s.pc[t]) {
                done = false;
                let mut next = s.clone();
                step(p, &slots, t, &stmt.instr, &mut next);
                next.pc[t] += 1;
                run_local(p, &slots, t, &mut next);
                stack.push(next);
            }
        }
        if done {
            finals.insert(final_state(p, &slots, &s));
        }
    }
    Some(finals)
}

/// Run thread `t`'s statements that touch no memory (fences, which order nothing under SC, and
/// register moves) up to its next access: interleaving them could not change any outcome.
fn run_local(p: &Program, slots: &Slots, t: usize, s: &mut State) {
    while let Some(stmt) = p.threads[t].body.get(s.pc[t]) {
        if stmt.instr.location().is_some() {
            return;
        }
        step(p, slots, t, &stmt.instr, s);
        s.pc[t] += 1;
    }
}

fn step(p: &Program, slots: &Slots, t: usize, instr: &Instr, s: &mut State) {
    let val = |regs: &Vec<Value>, o: &Operand| match o {
        Operand::Reg(r) => regs[slots.of(t, r)],
        Operand::Imm(v) => *v,
    };
    let regs = &mut s.regs[t];
    match instr {
        Instr::Load { dst, loc, .. } => {
            regs[slots.of(t, dst)] = s.mem[p.physical(*loc)];
        }
        Instr::Store { loc, value, .. } => s.mem[p.physical(*loc)] = val(regs, value),
        Instr::Atom {
            op,
            dst,
            loc,
            operand,
            new,
            ..
        } => {
            let l = p.physical(*loc);
            let old = s.mem[l];
            let new = new.as_ref().map_or(0, |n| val(regs, n));
            if let Some(v) = op.apply(old, val(regs, operand), new) {
                s.mem[l] = v;
            }
            regs[slots.of(t, dst)] = old;
        }
        Instr::Red {
            op, loc, operand, ..
        } => {
            let l = p.physical(*loc);
            if let Some(v) = op.apply(s.mem[l], val(regs, operand), 0) {
                s.mem[l] = v;
            }
        }
        Instr::Mov { dst, src } => {
            regs[slots.of(t, dst)] = val(regs, src);
        }
        Instr::Add { dst, a, b } => {
            regs[slots.of(t, dst)] = val(regs, a).wrapping_add(val(regs, b));
        }
        Instr::Fence(_) | Instr::Barrier { .. } | Instr::Label(_) | Instr::Branch { .. } => {}
    }
}

fn final_state(p: &Program, slots: &Slots, s: &State) -> FinalState {
    let mut state = FinalState::default();
    for (t, regs) in s.regs.iter().enumerate() {
        for (r, v) in slots.0[t].iter().zip(regs) {
            state.regs.insert(format!("P{t}:{r}"), *v);
        }
    }
    for (l, loc) in p.locations.iter().enumerate() {
        if matches!(loc.kind, LocationKind::Plain { .. }) {
            state.mem.insert(loc.name.clone(), s.mem[l]);
        }
    }
    state
}
