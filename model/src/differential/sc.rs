//! Sequential consistency, as a reference at the strong end: one memory, threads interleaved one
//! whole instruction at a time. Every SC outcome is allowed by the PTX axioms (an interleaving
//! orders everything totally, so coherence, causality and atomicity hold) and reached by the
//! operational runtime (its loads may always read the newest store), so SC ⊆ runtime ⊆ axioms.

use crate::axiomatic::events::registers;
use crate::axiomatic::FinalState;
use crate::hash::Mix;
use crate::litmus::{Instr, LocationKind, Operand, Program, Reg, Value};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::hash::BuildHasherDefault;
use std::ops::Range;

/// One point of an interleaving, flat (it is copied and hashed at every step): each thread's next
/// statement, then every thread's registers (in the order of [`registers`]), then memory.
type State = Vec<Value>;

/// Where each part of a [`State`] lives.
struct Layout {
    /// Per thread, its register names and where its registers start.
    names: Vec<Vec<Reg>>,
    reg_base: Vec<usize>,
    mem_base: usize,
}

impl Layout {
    fn reg(&self, t: usize, r: &Reg) -> usize {
        let slot = self.names[t]
            .iter()
            .position(|n| n == r)
            .expect("every register a thread mentions has a slot");
        self.reg_base[t] + slot
    }

    fn regs(&self, t: usize) -> Range<usize> {
        self.reg_base[t]..self.reg_base[t] + self.names[t].len()
    }

    fn mem(&self, p: &Program, loc: usize) -> usize {
        self.mem_base + p.physical(loc)
    }
}

/// Every final state of every interleaving, or `None` for programs with branches or barriers
/// (`bar.warp.sync` included; this reference leaves them to the engines).
pub fn final_states(p: &Program) -> Option<BTreeSet<FinalState>> {
    let straight_line = p.threads.iter().flat_map(|t| &t.body).all(|s| {
        !matches!(
            s.instr,
            Instr::Branch { .. }
                | Instr::Barrier { .. }
                | Instr::WarpSync { .. }
                | Instr::Label(_)
                | Instr::Async(_)
        )
    });
    if !straight_line {
        return None;
    }
    let threads = p.threads.len();
    let initial: Vec<BTreeMap<Reg, Value>> = (0..threads).map(|t| registers(p, t)).collect();
    let mut reg_base = Vec::new();
    let mut start: State = vec![0; threads];
    for regs in &initial {
        reg_base.push(start.len());
        start.extend(regs.values().copied());
    }
    let layout = Layout {
        names: initial
            .iter()
            .map(|r| r.keys().cloned().collect())
            .collect(),
        reg_base,
        mem_base: start.len(),
    };
    start.extend(p.locations.iter().map(|l| match l.kind {
        LocationKind::Plain { init } => init,
        LocationKind::Alias { .. } => 0,
    }));
    for t in 0..threads {
        run_local(p, &layout, t, &mut start);
    }
    let mut finals = BTreeSet::new();
    let mut seen: HashSet<State, BuildHasherDefault<Mix>> = HashSet::default();
    seen.insert(start.clone());
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        let mut done = true;
        for t in 0..threads {
            if let Some(stmt) = p.threads[t].body.get(s[t] as usize) {
                done = false;
                let mut next = s.clone();
                step(p, &layout, t, &stmt.instr, &mut next);
                next[t] += 1;
                run_local(p, &layout, t, &mut next);
                if !seen.contains(&next) {
                    seen.insert(next.clone());
                    stack.push(next);
                }
            }
        }
        if done {
            finals.insert(final_state(p, &layout, &s));
        }
    }
    Some(finals)
}

/// Run thread `t`'s statements that touch no memory (fences, which order nothing under SC, and
/// register moves) up to its next access: interleaving them could not change any outcome.
fn run_local(p: &Program, layout: &Layout, t: usize, s: &mut State) {
    while let Some(stmt) = p.threads[t].body.get(s[t] as usize) {
        if stmt.instr.location().is_some() {
            return;
        }
        step(p, layout, t, &stmt.instr, s);
        s[t] += 1;
    }
}

fn step(p: &Program, layout: &Layout, t: usize, instr: &Instr, s: &mut State) {
    let val = |s: &State, o: &Operand| match o {
        Operand::Reg(r) => s[layout.reg(t, r)],
        Operand::Imm(v) => *v,
    };
    match instr {
        Instr::Load { dst, loc, .. } => s[layout.reg(t, dst)] = s[layout.mem(p, *loc)],
        Instr::Store { loc, value, .. } => s[layout.mem(p, *loc)] = val(s, value),
        Instr::Atom {
            op,
            dst,
            loc,
            operand,
            new,
            ..
        } => {
            let l = layout.mem(p, *loc);
            let old = s[l];
            let new = new.as_ref().map_or(0, |n| val(s, n));
            if let Some(v) = op.apply(old, val(s, operand), new) {
                s[l] = v;
            }
            s[layout.reg(t, dst)] = old;
        }
        Instr::Red {
            op, loc, operand, ..
        } => {
            let l = layout.mem(p, *loc);
            if let Some(v) = op.apply(s[l], val(s, operand), 0) {
                s[l] = v;
            }
        }
        // Under SC the copy happens at its issue (one of the orders the axioms allow it).
        Instr::CpAsync { dst, src } => s[layout.mem(p, *dst)] = s[layout.mem(p, *src)],
        Instr::Mov { dst, src } => s[layout.reg(t, dst)] = val(s, src),
        Instr::Alu { op, dst, a, b } => s[layout.reg(t, dst)] = op.apply(val(s, a), val(s, b)),
        Instr::Setp { cmp, dst, a, b } => {
            s[layout.reg(t, dst)] = Value::from(cmp.holds(val(s, a), val(s, b)));
        }
        Instr::Fence(_)
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::Barrier { .. }
        | Instr::WarpSync { .. }
        | Instr::Async(_)
        | Instr::Label(_)
        | Instr::Branch { .. } => {}
    }
}

fn final_state(p: &Program, layout: &Layout, s: &State) -> FinalState {
    let mut state = FinalState::default();
    for t in 0..p.threads.len() {
        for (r, v) in layout.names[t].iter().zip(&s[layout.regs(t)]) {
            state.regs.insert(format!("P{t}:{r}"), *v);
        }
    }
    for (l, loc) in p.locations.iter().enumerate() {
        if matches!(loc.kind, LocationKind::Plain { .. }) {
            state.mem.insert(loc.name.clone(), s[layout.mem_base + l]);
        }
    }
    state
}
