//! Building the plan: what reads no choice is computed once, operations a statically empty
//! operand decides are dropped, unions, static intersections and restrictions fold into one
//! masked union per node.

use super::base::base;
use super::evaluate::Eval;
use super::plan::{GroupPlan, Leaf, Memo, Prepared, Step, NONE, STATIC};
use super::val::Val;
use crate::axiomatic::execution::Events;
use crate::axiomatic::models::Dynamic;
use crate::axiomatic::rel::{Rel, Set};
use crate::cat::compile::{Compiled, Op, Ty};

/// A union's operands while the plan is built: (entry, static mask) pairs and a static part.
#[derive(Default)]
struct View {
    leaves: Vec<(u32, Option<Rel>)>,
    base: Option<Rel>,
}

impl View {
    /// The same intersected with the static relation `s`.
    fn mask(self, s: &Rel) -> View {
        View {
            leaves: self
                .leaves
                .into_iter()
                .map(|(e, m)| (e, Some(m.map_or_else(|| s.clone(), |m| &m & s))))
                .collect(),
            base: self.base.map(|b| &b & s),
        }
    }

    fn union(mut self, other: View) -> View {
        self.leaves.extend(other.leaves);
        self.base = match (self.base, other.base) {
            (Some(a), Some(b)) => Some(&a | &b),
            (a, b) => a.or(b),
        };
        self
    }
}

/// Builds a [`Prepared`] and its [`Memo`] (the static values).
struct Builder<'a> {
    m: &'a Compiled,
    ev: &'a Events,
    prep: Prepared,
    memo: Memo,
    empty_rel: u32,
    empty_set: u32,
    /// The empty relation, as the choices of the static evaluations.
    none: Rel,
}

impl Builder<'_> {
    fn push(&mut self, step: Step, reads: u8, val: Val, stamp: u32) -> u32 {
        self.prep.steps.push(step);
        self.prep.reads.push(reads);
        self.memo.vals.push(val);
        self.memo.stamp.push(stamp);
        (self.prep.steps.len() - 1) as u32
    }

    fn push_static(&mut self, val: Val) -> u32 {
        self.push(Step::Static, 0, val, STATIC)
    }

    fn is_static(&self, e: u32) -> bool {
        self.memo.stamp[e as usize] == STATIC
    }

    fn static_empty(&self, e: u32) -> bool {
        self.is_static(e) && self.memo.vals[e as usize].is_empty()
    }

    /// The operation with its operands' entries.
    fn remap(&self, op: Op) -> Op {
        let at = |i: usize| self.prep.at[i] as usize;
        match op {
            Op::Union(a, b) => Op::Union(at(a), at(b)),
            Op::Inter(a, b) => Op::Inter(at(a), at(b)),
            Op::Diff(a, b) => Op::Diff(at(a), at(b)),
            Op::Seq(a, b) => Op::Seq(at(a), at(b)),
            Op::Cross(a, b) => Op::Cross(at(a), at(b)),
            Op::Complement(a) => Op::Complement(at(a)),
            Op::Inverse(a) => Op::Inverse(at(a)),
            Op::Plus(a) => Op::Plus(at(a)),
            Op::Star(a) => Op::Star(at(a)),
            Op::Opt(a) => Op::Opt(at(a)),
            Op::Identity(a) => Op::Identity(at(a)),
            Op::Domain(a) => Op::Domain(at(a)),
            Op::Range(a) => Op::Range(at(a)),
            Op::Base(_) | Op::Choice(_) | Op::Zero | Op::RecVar(..) | Op::Fix(..) => op,
        }
    }

    /// A plain operation's entry; computed now when every operand is static.
    fn plain(&mut self, op: Op) -> u32 {
        let (folds, reads) = match op {
            Op::Fix(g, _) => {
                let bodies = &self.prep.groups[g].bodies;
                let reads = bodies.iter().fold(0, |r, &b| r | self.prep.reads[b]);
                (false, reads)
            }
            _ => (
                op.operands().next().is_some() && op.operands().all(|o| self.is_static(o as u32)),
                op.operands().fold(0, |r, o| r | self.prep.reads[o]),
            ),
        };
        let e = self.push(Step::Op(op), reads, Val::Set(Set::EMPTY), 0);
        if folds {
            let choices = Dynamic {
                rf: &self.none,
                co: &self.none,
                fr: &self.none,
                sync_fence: &self.none,
                sync_barrier: &self.none,
            };
            let mut eval = Eval {
                prep: &self.prep,
                choices: &choices,
                memo: &mut self.memo,
            };
            eval.ensure(e as usize);
            self.memo.stamp[e as usize] = STATIC;
            self.prep.steps[e as usize] = Step::Static;
            self.prep.reads[e as usize] = 0;
        }
        e
    }

    /// An entry's value as the operand of a union.
    fn view(&self, e: u32) -> View {
        if self.is_static(e) {
            return View {
                leaves: Vec::new(),
                base: Some(self.memo.vals[e as usize].rel().clone()),
            };
        }
        match self.prep.steps[e as usize] {
            Step::Union { from, to, base } => View {
                leaves: self.prep.leaves[from as usize..to as usize]
                    .iter()
                    .map(|l| {
                        let mask =
                            (l.mask != NONE).then(|| self.memo.vals[l.mask as usize].rel().clone());
                        (l.entry, mask)
                    })
                    .collect(),
                base: (base != NONE).then(|| self.memo.vals[base as usize].rel().clone()),
            },
            _ => View {
                leaves: vec![(e, None)],
                base: None,
            },
        }
    }

    /// The entry of a union: operands merged by entry, empty ones dropped; one unmasked
    /// operand is that operand's entry.
    fn finish(&mut self, view: View) -> u32 {
        let mut leaves: Vec<(u32, Option<Rel>)> = Vec::new();
        for (e, mask) in view.leaves {
            if mask.as_ref().is_some_and(Rel::is_empty) || self.static_empty(e) {
                continue;
            }
            match leaves.iter_mut().find(|(f, _)| *f == e) {
                Some((_, m)) => {
                    *m = match (m.take(), mask) {
                        (Some(a), Some(b)) => Some(&a | &b),
                        _ => None,
                    }
                }
                None => leaves.push((e, mask)),
            }
        }
        let base = view.base.filter(|b| !b.is_empty());
        match (&leaves[..], &base) {
            ([], None) => return self.empty_rel,
            ([], Some(_)) => return self.push_static(Val::Rel(base.expect("a base"))),
            ([(e, None)], None) => return *e,
            _ => {}
        }
        let base = base.map_or(NONE, |b| self.push_static(Val::Rel(b)));
        let mut reads = 0;
        let mut plan = Vec::new();
        for (e, mask) in leaves {
            reads |= self.prep.reads[e as usize];
            let mask = mask.map_or(NONE, |m| self.push_static(Val::Rel(m)));
            plan.push(Leaf { entry: e, mask });
        }
        let from = self.prep.leaves.len() as u32;
        self.prep.leaves.extend(plan);
        let to = self.prep.leaves.len() as u32;
        self.push(
            Step::Union { from, to, base },
            reads,
            Val::Set(Set::EMPTY),
            0,
        )
    }

    /// Notes the entries of a `let rec` group's bodies (once they all have one).
    fn group_bodies(&mut self, g: usize) {
        if self.prep.groups[g].bodies.is_empty() {
            let bodies = self.m.groups[g]
                .bodies
                .iter()
                .map(|&b| self.prep.at[b] as usize)
                .collect();
            self.prep.groups[g].bodies = bodies;
        }
    }

    /// A static identity's set (`[S]` with `S` static).
    fn static_identity(&self, node: usize) -> Option<Set> {
        match self.m.nodes[node].op {
            Op::Identity(s) if self.is_static(self.prep.at[s]) => {
                Some(self.memo.vals[self.prep.at[s] as usize].set())
            }
            _ => None,
        }
    }

    /// The entry of a node that reads some choice (or a `let rec` group's approximations).
    fn dynamic(&mut self, i: usize) -> u32 {
        let m = self.m;
        let node = &m.nodes[i];
        let n = self.prep.n;
        let all = Set::below(n);
        let empty = match node.ty {
            Ty::Rel => self.empty_rel,
            Ty::Set => self.empty_set,
        };
        match node.op {
            Op::Choice(c) => return self.push(Step::Choice(c), c as u8, Val::Set(Set::EMPTY), 0),
            Op::RecVar(g, _) => {
                let e = self.push(Step::Op(node.op), 0, Val::Set(Set::EMPTY), 0);
                self.prep.groups[g].vars.push(e as usize);
                return e;
            }
            Op::Fix(g, _) => self.group_bodies(g),
            _ => {}
        }
        let at = |j: usize| self.prep.at[j];
        if node.ty == Ty::Rel {
            match node.op {
                Op::Union(a, b) => {
                    let view = self.view(at(a)).union(self.view(at(b)));
                    return self.finish(view);
                }
                Op::Inter(a, b) if self.is_static(at(a)) || self.is_static(at(b)) => {
                    let (s, d) = match self.is_static(at(a)) {
                        true => (at(a), at(b)),
                        false => (at(b), at(a)),
                    };
                    let s = self.memo.vals[s as usize].rel().clone();
                    let view = self.view(d).mask(&s);
                    return self.finish(view);
                }
                Op::Diff(a, b) if self.is_static(at(b)) => {
                    let s = &Rel::cross(n, all, all) - self.memo.vals[at(b) as usize].rel();
                    let view = self.view(at(a)).mask(&s);
                    return self.finish(view);
                }
                Op::Seq(a, b) => {
                    if self.static_empty(at(a)) || self.static_empty(at(b)) {
                        return empty;
                    }
                    if let Some(s) = self.static_identity(a) {
                        let view = self.view(at(b)).mask(&Rel::cross(n, s, all));
                        return self.finish(view);
                    }
                    if let Some(s) = self.static_identity(b) {
                        let view = self.view(at(a)).mask(&Rel::cross(n, all, s));
                        return self.finish(view);
                    }
                }
                _ => {}
            }
        }
        // Operations a statically empty operand decides.
        match node.op {
            Op::Inter(a, b) | Op::Seq(a, b) | Op::Cross(a, b)
                if self.static_empty(at(a)) || self.static_empty(at(b)) =>
            {
                return empty
            }
            Op::Union(a, b) if self.static_empty(at(a)) => return at(b),
            Op::Union(a, b) | Op::Diff(a, b) if self.static_empty(at(b)) => return at(a),
            Op::Diff(a, _)
            | Op::Inverse(a)
            | Op::Plus(a)
            | Op::Identity(a)
            | Op::Domain(a)
            | Op::Range(a)
                if self.static_empty(at(a)) =>
            {
                return empty
            }
            _ => {}
        }
        let op = self.remap(node.op);
        self.plain(op)
    }
}

impl Prepared {
    /// The plan of the nodes in `needed` (those some check or the engine may ask for) on
    /// these events, with a memo holding the static values.
    pub fn new(m: &Compiled, needed: &[bool], ev: &Events) -> (Prepared, Memo) {
        let mut b = Builder {
            m,
            ev,
            prep: Prepared {
                n: ev.n,
                at: vec![NONE; m.nodes.len()],
                steps: Vec::new(),
                reads: Vec::new(),
                leaves: Vec::new(),
                groups: vec![GroupPlan::default(); m.groups.len()],
            },
            memo: Memo {
                vals: Vec::new(),
                stamp: Vec::new(),
                epoch: 1,
                changed: [0; 5],
                last: None,
            },
            empty_rel: 0,
            empty_set: 0,
            none: Rel::empty(ev.n),
        };
        let capacity = 2 * m.nodes.len();
        b.prep.steps.reserve(capacity);
        b.prep.reads.reserve(capacity);
        b.memo.vals.reserve(capacity);
        b.memo.stamp.reserve(capacity);
        b.empty_rel = b.push_static(Val::Rel(Rel::empty(ev.n)));
        b.empty_set = b.push_static(Val::Set(Set::EMPTY));
        for (i, node) in m.nodes.iter().enumerate() {
            if !needed[i] {
                continue;
            }
            let before = b.prep.steps.len();
            let e = if node.reads == 0 && node.rec.is_none() {
                match node.op {
                    Op::Base(base_op) => b.push_static(base(b.ev, base_op)),
                    Op::Zero => b.empty_rel,
                    Op::Fix(g, _) => {
                        b.group_bodies(g);
                        b.plain(node.op)
                    }
                    op => {
                        let op = b.remap(op);
                        b.plain(op)
                    }
                }
            } else {
                b.dynamic(i)
            };
            b.prep.at[i] = e;
            if let (Some(g), false) = (node.rec, matches!(node.op, Op::RecVar(..))) {
                if e as usize >= before && !b.is_static(e) {
                    b.prep.groups[g].members.push(e as usize);
                }
            }
        }
        // What the static groups' iterations computed is forgotten.
        for s in &mut b.memo.stamp {
            if *s != STATIC {
                *s = 0;
            }
        }
        (b.prep, b.memo)
    }
}
