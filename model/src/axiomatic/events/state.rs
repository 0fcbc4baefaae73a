//! A thread's state while it is unrolled: the program counter, registers as expressions with
//! the reads they depend on ([`Tainted`]), the events and assumptions so far.

use super::event::{Kind, ThreadEvent};
use super::expr::Expr;
use super::path::{Assumption, Lasso, Path};
use crate::litmus::*;
use std::collections::{BTreeSet, HashMap};

/// A register's value and the reads it was computed from.
#[derive(Clone)]
pub(super) struct Tainted {
    pub(super) value: Expr,
    pub(super) deps: BTreeSet<usize>,
}

impl Tainted {
    pub(super) fn constant(value: Value) -> Tainted {
        Tainted {
            value: Expr::Const(value),
            deps: BTreeSet::new(),
        }
    }

    /// The value `read` returned.
    pub(super) fn read(read: usize) -> Tainted {
        Tainted {
            value: Expr::Read(read),
            deps: BTreeSet::from([read]),
        }
    }

    /// A value computed from two others: both sets of dependencies.
    pub(super) fn combine(&self, other: &Tainted, value: Expr) -> Tainted {
        Tainted {
            value,
            deps: self.deps.union(&other.deps).copied().collect(),
        }
    }
}

#[derive(Clone)]
pub(super) struct State {
    pub(super) pc: usize,
    pub(super) regs: HashMap<Reg, Tainted>,
    /// Reads every later event depends on through a branch.
    pub(super) ctrl: BTreeSet<usize>,
    pub(super) events: Vec<ThreadEvent<Expr>>,
    pub(super) assumes: Vec<Assumption>,
    /// Times each backward branch (by statement index) has been taken.
    pub(super) loops: HashMap<usize, u32>,
    /// The events of the `cp.async` copies issued since the last `cp.async.commit_group`.
    pub(super) cp_open: Vec<usize>,
    /// The events of each committed `cp.async` group no `cp.async.wait_group` has waited for
    /// yet, oldest first.
    pub(super) cp_groups: Vec<Vec<usize>>,
    /// The first events of the `.bulk_group` bulk copies issued since the last
    /// `cp.async.bulk.commit_group`.
    pub(super) bulk_open: Vec<usize>,
    /// The first events of the copies of each committed bulk async-group, oldest first, until a
    /// `cp.async.bulk.wait_group` (not `.read`) has waited for the group.
    pub(super) bulk_groups: Vec<Vec<usize>>,
    /// Recording lassos: every statement run so far, and for each backward branch taken, the
    /// events, the statements run and the registers at its last taking.
    pub(super) trail: Option<Trail>,
}

#[derive(Clone, Default)]
pub(super) struct Trail {
    pub(super) stmts: Vec<usize>,
    pub(super) taken: HashMap<usize, (usize, usize, HashMap<Reg, Tainted>)>,
    /// For each backward branch taken twice or more: the events and statements run at the
    /// taking before the last.
    pub(super) before_last: HashMap<usize, (usize, usize)>,
}

impl State {
    pub(super) fn operand(&self, o: &Operand) -> Tainted {
        match o {
            Operand::Imm(v) => Tainted::constant(*v),
            Operand::Reg(r) => self.regs[r].clone(),
        }
    }

    pub(super) fn push(&mut self, stmt: usize, kind: Kind<Expr>, data: &BTreeSet<usize>) -> usize {
        let deps = data.union(&self.ctrl).copied().collect::<Vec<_>>().into();
        self.events.push(ThreadEvent {
            stmt,
            kind,
            deps,
            copy_until: None,
            copy: None,
            completed_at: None,
        });
        self.events.len() - 1
    }

    /// `cp.async.commit_group`.
    pub(super) fn cp_commit(&mut self) {
        let group = std::mem::take(&mut self.cp_open);
        self.cp_groups.push(group);
    }

    /// `cp.async.wait_group n`: the copies of every committed group but the `n` most recent
    /// are ordered before the events from here on.
    pub(super) fn cp_wait(&mut self, n: usize) {
        let until = self.next_event();
        while self.cp_groups.len() > n {
            for e in self.cp_groups.remove(0) {
                self.events[e].copy_until = Some(until);
            }
        }
    }

    /// `cp.async.bulk.wait_group{.read} n`: PTX ISA, *cp.async.bulk.wait_group*: it "will cause
    /// the executing thread to wait until only N or fewer of the most recent bulk async-groups
    /// are pending and all the prior bulk async-groups committed by the executing threads are
    /// complete"; with `.read`, "the waiting has to be done until all the bulk async operations
    /// in the specified bulk async-group have completed reading from their source locations".
    /// The copies of every committed group but the `n` most recent complete (their source reads
    /// only, with `.read`) before the events from here on.
    pub(super) fn bulk_wait(&mut self, n: usize, read: bool) {
        let at = self.next_event();
        let waited = self.bulk_groups.len().saturating_sub(n);
        for group in &self.bulk_groups[..waited] {
            for &first in group {
                // A bulk_group copy's events: the source read, then the destination write.
                let events = if read {
                    first..first + 1
                } else {
                    first..first + 2
                };
                for e in events {
                    let done = &mut self.events[e].completed_at;
                    *done = Some(done.map_or(at, |d| d.min(at)));
                }
            }
        }
        if !read {
            self.bulk_groups.drain(..waited);
        }
    }

    /// The index the next event will have.
    pub(super) fn next_event(&self) -> usize {
        self.events.len()
    }

    pub(super) fn into_path(self, cut: Option<(usize, Span)>, bound: bool) -> Path {
        let lasso = cut
            .zip(self.trail.as_ref())
            .and_then(|((branch, _), trail)| {
                let (start, from, regs) = trail.taken.get(&branch)?;
                let stmts = &trail.stmts[*from..];
                // The iteration before: the one between the two takings before, or, when the
                // branch was taken only once before, the first iteration, from the loop's
                // entry (the statements just before the last taking, when they are the same
                // statements: each statement makes the same events, which `liveness.rs`
                // checks event for event).
                let len = self.events.len() - start;
                let first = (*from >= stmts.len()
                    && &trail.stmts[*from - stmts.len()..*from] == stmts
                    && *start >= len)
                    .then(|| start - len);
                let previous = match trail.before_last.get(&branch) {
                    Some(&(events, earlier)) => {
                        (&trail.stmts[earlier..*from] == stmts).then_some(events)
                    }
                    None => first,
                };
                Some(Lasso {
                    bound,
                    start: *start,
                    stmts: stmts.to_vec(),
                    previous,
                    regs_before: regs
                        .iter()
                        .map(|(r, v)| (r.clone(), v.value.clone()))
                        .collect(),
                })
            });
        Path {
            events: self.events,
            regs: self.regs.into_iter().map(|(r, v)| (r, v.value)).collect(),
            assumes: self.assumes,
            cut: cut.map(|(_, span)| span),
            lasso,
        }
    }
}

/// The two sides of a comparison: `(cmp holds?, state assuming it)` for each side that the
/// constants leave possible.
pub(super) fn sides(s: State, cmp: Cmp, a: &Tainted, b: &Tainted) -> Vec<(bool, State)> {
    if let (Expr::Const(x), Expr::Const(y)) = (&a.value, &b.value) {
        return vec![(cmp.holds(*x, *y), s)];
    }
    let negated = cmp.negate();
    let mut other = s.clone();
    let mut yes = s;
    for (state, cmp) in [(&mut yes, cmp), (&mut other, negated)] {
        let at = state.events.len();
        state.assumes.push(Assumption {
            cmp,
            a: a.value.clone(),
            b: b.value.clone(),
            at,
        });
    }
    vec![(true, yes), (false, other)]
}
