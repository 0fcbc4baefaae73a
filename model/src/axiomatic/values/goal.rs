//! The valuations wanted: those that may still give the final condition the value asked for,
//! or the registers the wanted values, judged on partial valuations (three-valued logic).

use super::valuations::{Valuations, Values};
use crate::axiomatic::events::{Expr, Kind};
use crate::axiomatic::wanted::ForRegisters;
use crate::litmus::{Program, Prop, Term, Value};
use std::rc::Rc;

impl<'a> Valuations<'a> {
    /// Deciding the condition (`sat`: the proposition's value wanted): per reported location
    /// (`observed`, by physical location), the write that must end coherence where the
    /// condition and the filter allow one final value only among the values its writes
    /// store — as event ids (see [`Self::check_reads_from`]), with every other write to the
    /// location. `None` when no write's value allows it: these paths decide nothing.
    ///
    /// Only locations whose writes all store constants are looked at (others are left free).
    pub fn forced_last_writes(
        &self,
        p: &Program,
        sat: bool,
        observed: &[bool],
    ) -> Option<Vec<(usize, Vec<usize>)>> {
        let prop_depth = depth(&p.condition.prop).max(p.filter.as_ref().map_or(0, depth));
        if prop_depth > GOAL_DEPTH {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        for l in (0..p.locations.len()).filter(|&l| p.physical(l) == l && observed[l]) {
            // (event id, stored value) of every write to l.
            let mut writes = Vec::new();
            let mut constant = true;
            for (t, path) in self.paths.iter().enumerate() {
                for (j, e) in path.events.iter().enumerate() {
                    if let Kind::Write { loc, value, .. } = &e.kind {
                        if p.physical(*loc) == l {
                            match value {
                                Expr::Const(v) => {
                                    writes.push((self.inits + self.offset[t] + j, *v))
                                }
                                _ => constant = false,
                            }
                        }
                    }
                }
            }
            if !constant || writes.is_empty() {
                continue;
            }
            let open: Vec<usize> = writes
                .iter()
                .filter(|&&(_, v)| final_value_open(p, sat, l, v))
                .map(|&(w, _)| w)
                .collect();
            match open[..] {
                [] => return None,
                [last] => out.push((
                    last,
                    writes
                        .iter()
                        .map(|&(w, _)| w)
                        .filter(|&w| w != last)
                        .collect(),
                )),
                _ => {}
            }
        }
        Some(out)
    }

    /// Keeps only the valuations whose registers leave the final condition's proposition able
    /// to evaluate to `sat` and the filter able to pass (locations still unknown): a branch
    /// is dropped as soon as the
    /// registers it has computed decide the proposition the other way. Conditions nested
    /// deeper than [`GOAL_DEPTH`] are not looked at here.
    pub fn want_condition(&mut self, p: &'a Program, sat: bool) {
        let filter_depth = p.filter.as_ref().map_or(0, depth);
        if depth(&p.condition.prop).max(filter_depth) <= GOAL_DEPTH {
            self.goal = Some((p, sat));
        }
    }

    /// Whether the proposition may still take the goal's value.
    pub(super) fn goal_open(&self, values: &Values) -> bool {
        let Some((p, sat)) = self.goal else {
            return true;
        };
        let term = |t: &Term| -> Option<Value> {
            match t {
                Term::Const(v) => Some(*v),
                Term::Loc(_) => None,
                Term::Reg(th, r) => match self.paths.get(*th).and_then(|path| path.regs.get(r)) {
                    Some(e) => e.eval(&|i: usize| values[self.offset[*th] + i]),
                    None => Some(p.initial_reg(*th, r)),
                },
            }
        };
        three_valued(&p.condition.prop, &term) != Some(!sat)
            && p.filter
                .as_ref()
                .is_none_or(|f| three_valued(f, &term) != Some(false))
    }

    /// Makes [`Self::for_each_grounded`] keep only the valuations whose registers (every
    /// thread's, in the paths' order) take wanted values; it drops a branch as soon as a
    /// register it has computed has a value no wanted state gives it.
    pub fn want_registers(&mut self, wanted: Rc<ForRegisters>) {
        self.wanted = Some(wanted);
    }

    /// Every register known so far has a value some wanted state gives it, and once all are
    /// known, some wanted state gives them all theirs.
    pub(super) fn registers_wanted(&self, wanted: &ForRegisters, values: &Values) -> bool {
        let registers = self.paths.iter().enumerate().flat_map(|(t, path)| {
            let read = move |i: usize| values[self.offset[t] + i];
            path.regs.values().map(move |e| e.eval(&read))
        });
        let mut all = [0 as Value; 32];
        let mut complete = self.register_count <= all.len();
        for (i, (v, column)) in registers.zip(&wanted.columns).enumerate() {
            match v {
                Some(v) if !column.contains(&v) => return false,
                Some(v) if i < all.len() => all[i] = v,
                Some(_) => {}
                None => complete = false,
            }
        }
        !complete || wanted.registers.contains(&all[..self.register_count])
    }

    /// [`Self::possible`], knowing it held before read `k` got its value: only what mentions
    /// `k` can have changed. (Every register is checked again at the end: one that mentions no
    /// read is never checked here.)
    pub(super) fn still_possible(&self, values: &Values, k: usize) -> bool {
        let (assumptions, registers) = &self.mentioned_by[k];
        let read = |t: usize| move |i: usize| values[self.offset[t] + i];
        assumptions
            .iter()
            .all(|&(t, a)| self.paths[t].assumes[a].holds(&read(t)) != Some(false))
            && self.wanted.as_ref().is_none_or(|wanted| {
                registers.iter().all(|&(t, g, e)| {
                    e.eval(&read(t))
                        .is_none_or(|v| wanted.columns[g].contains(&v))
                })
            })
            && (registers.is_empty() || self.goal_open(values))
    }

    /// Every assumption holds (all values known).
    pub(super) fn satisfied(&self, values: &Values) -> bool {
        self.paths.iter().enumerate().all(|(t, path)| {
            let read = |i: usize| values[self.offset[t] + i];
            path.assumes.iter().all(|a| a.holds(&read) == Some(true))
        })
    }
}

/// Conditions nested deeper than this are not evaluated on partial valuations (the recursion
/// stays shallow; such conditions are only decided on final states).
pub const GOAL_DEPTH: usize = 64;

/// How deeply a proposition nests (an explicit stack: it may nest very deeply).
fn depth(prop: &Prop) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(prop, 1)];
    while let Some((q, d)) = stack.pop() {
        deepest = deepest.max(d);
        match q {
            Prop::True | Prop::Cmp(..) => {}
            Prop::Not(a) => stack.push((a, d + 1)),
            Prop::And(a, b) | Prop::Or(a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
        }
    }
    deepest
}

/// Whether the proposition may still evaluate to `sat`, and the filter pass, when physical
/// location `l` ends with `v` (registers and other locations unknown).
fn final_value_open(p: &Program, sat: bool, l: usize, v: Value) -> bool {
    let term = |t: &Term| match t {
        Term::Const(c) => Some(*c),
        Term::Loc(m) if p.physical(*m) == l => Some(v),
        _ => None,
    };
    three_valued(&p.condition.prop, &term) != Some(!sat)
        && p.filter
            .as_ref()
            .is_none_or(|f| three_valued(f, &term) != Some(false))
}

/// A proposition's value when some terms are unknown (`None`): `None` when they decide it.
fn three_valued(prop: &Prop, term: &dyn Fn(&Term) -> Option<Value>) -> Option<bool> {
    match prop {
        Prop::True => Some(true),
        Prop::Cmp(cmp, a, b) => {
            let (a, b) = (term(a)?, term(b)?);
            Some(cmp.holds(a, b))
        }
        Prop::Not(q) => three_valued(q, term).map(|v| !v),
        Prop::And(a, b) => match (three_valued(a, term), three_valued(b, term)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Prop::Or(a, b) => match (three_valued(a, term), three_valued(b, term)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
    }
}
