//! One evaluation of a plan under the choices of one candidate execution.

use super::plan::{Memo, Prepared, Step, NONE};
use super::val::Val;
use crate::axiomatic::models::Dynamic;
use crate::axiomatic::rel::{Rel, Set};
use crate::cat::compile::{Choice, Op};

/// One evaluation under given choices, on a plan's memo.
pub struct Eval<'a> {
    pub(super) prep: &'a Prepared,
    pub(super) choices: &'a Dynamic<'a>,
    pub(super) memo: &'a mut Memo,
}

impl<'a> Eval<'a> {
    /// An evaluation under `choices`: the memo's values of entries that read none of the
    /// choices that changed since its last evaluation stay.
    pub fn new(prep: &'a Prepared, choices: &'a Dynamic<'a>, memo: &'a mut Memo) -> Eval<'a> {
        memo.begin(choices);
        Eval {
            prep,
            choices,
            memo,
        }
    }

    /// Gives node `i` its value under these choices, known otherwise.
    pub fn seed(&mut self, i: usize, r: &Rel) {
        let e = self.prep.at[i] as usize;
        if !self.valid(e) {
            self.memo.vals[e] = Val::Rel(r.clone());
            self.memo.stamp[e] = self.memo.epoch;
        }
    }

    /// The value of node `i`.
    pub fn get(&mut self, i: usize) -> &Val {
        let e = self.prep.at[i] as usize;
        self.ensure(e);
        &self.memo.vals[e]
    }

    /// Whether entry `e` holds its value under these choices: computed, and none of the
    /// choices it reads changed since.
    fn valid(&self, e: usize) -> bool {
        let s = self.memo.stamp[e];
        if s == 0 {
            return false;
        }
        let mut reads = self.prep.reads[e];
        while reads != 0 {
            if self.memo.changed[reads.trailing_zeros() as usize] > s {
                return false;
            }
            reads &= reads - 1;
        }
        true
    }

    pub(super) fn ensure(&mut self, e: usize) {
        if !self.valid(e) {
            let v = self.compute(e);
            self.memo.vals[e] = v;
            self.memo.stamp[e] = self.memo.epoch;
        }
    }

    fn val(&self, e: usize) -> &Val {
        &self.memo.vals[e]
    }

    fn rel(&mut self, e: usize) -> &Rel {
        self.ensure(e);
        self.memo.vals[e].rel()
    }

    fn set(&mut self, e: usize) -> Set {
        self.ensure(e);
        self.memo.vals[e].set()
    }

    fn compute(&mut self, e: usize) -> Val {
        let n = self.prep.n;
        let op = match self.prep.steps[e] {
            Step::Static => unreachable!("static values are fixed"),
            Step::Choice(c) => {
                return Val::Rel(
                    match c {
                        Choice::Rf => self.choices.rf,
                        Choice::Co => self.choices.co,
                        Choice::Fr => self.choices.fr,
                        Choice::SyncFence => self.choices.sync_fence,
                        Choice::SyncBarrier => self.choices.sync_barrier,
                    }
                    .clone(),
                )
            }
            Step::Union { from, to, base } => {
                let prep = self.prep;
                let leaves = &prep.leaves[from as usize..to as usize];
                for l in leaves {
                    self.ensure(l.entry as usize);
                }
                let mut out = match base {
                    NONE => Rel::empty(n),
                    b => self.val(b as usize).rel().clone(),
                };
                for l in leaves {
                    let r = self.val(l.entry as usize).rel();
                    match l.mask {
                        NONE => out.union_with(r),
                        m => out.union_with_masked(r, self.val(m as usize).rel()),
                    }
                }
                return Val::Rel(out);
            }
            Step::Op(op) => op,
        };
        let all = Set::below(n);
        let set_typed = |v: &Val| matches!(v, Val::Set(_));
        match op {
            Op::Base(_) | Op::Zero => unreachable!("bases are static"),
            Op::Choice(_) => unreachable!("a step of its own"),
            Op::Union(a, b) | Op::Inter(a, b) | Op::Diff(a, b) => {
                self.ensure(a);
                if set_typed(self.val(a)) {
                    let (x, y) = (self.set(a), self.set(b));
                    return Val::Set(match op {
                        Op::Union(..) => x | y,
                        Op::Inter(..) => x & y,
                        _ => x & !y,
                    });
                }
                // Empty when the left operand is (but a union).
                if !matches!(op, Op::Union(..)) && self.val(a).is_empty() {
                    return Val::Rel(Rel::empty(n));
                }
                self.ensure(b);
                let (x, y) = (self.val(a).rel(), self.val(b).rel());
                Val::Rel(match op {
                    Op::Union(..) => x | y,
                    Op::Inter(..) => x & y,
                    _ => x - y,
                })
            }
            Op::Seq(a, b) => {
                // Empty when either operand is, whatever the other one's value.
                if self.rel(a).is_empty() || self.rel(b).is_empty() {
                    return Val::Rel(Rel::empty(n));
                }
                Val::Rel(self.val(a).rel().seq(self.val(b).rel()))
            }
            Op::Cross(a, b) => {
                let (x, y) = (self.set(a), self.set(b));
                Val::Rel(Rel::cross(n, x, y))
            }
            Op::Complement(a) => {
                self.ensure(a);
                match self.val(a) {
                    Val::Set(s) => Val::Set(all & !*s),
                    Val::Rel(r) => Val::Rel(&Rel::cross(n, all, all) - r),
                }
            }
            Op::Inverse(a) => Val::Rel(self.rel(a).inv()),
            Op::Plus(a) => Val::Rel(self.rel(a).plus()),
            Op::Star(a) => Val::Rel(self.rel(a).star()),
            Op::Opt(a) => Val::Rel(self.rel(a).opt()),
            Op::Identity(a) => {
                let s = self.set(a);
                Val::Rel(Rel::id(n, s))
            }
            Op::Domain(a) => Val::Set(self.rel(a).domain()),
            Op::Range(a) => Val::Set(self.rel(a).range()),
            Op::RecVar(..) => unreachable!("set by the iteration of its group"),
            Op::Fix(g, k) => {
                self.fix(g);
                self.val(self.prep.groups[g].vars[k]).clone()
            }
        }
    }

    /// The least fixed point of a `let rec` group, left in its variables' entries: from empty
    /// relations, recompute every body until nothing changes (every operation is monotone in
    /// the variables it reads through unions, sequences and closures; the relations are
    /// finite, so this ends).
    fn fix(&mut self, g: usize) {
        let prep = self.prep;
        let group = &prep.groups[g];
        for &v in &group.vars {
            self.memo.vals[v] = Val::Rel(Rel::empty(prep.n));
            self.memo.stamp[v] = self.memo.epoch;
        }
        loop {
            for &e in &group.members {
                self.memo.stamp[e] = 0;
            }
            for &b in &group.bodies {
                self.ensure(b);
            }
            let same = group
                .bodies
                .iter()
                .zip(&group.vars)
                .all(|(&b, &v)| self.memo.vals[b] == self.memo.vals[v]);
            if same {
                return;
            }
            for (&b, &v) in group.bodies.iter().zip(&group.vars) {
                self.memo.vals[v] = self.memo.vals[b].clone();
            }
        }
    }
}
