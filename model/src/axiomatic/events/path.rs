//! One way a thread can run, with its loaded values symbolic: the events, the assumptions a
//! branch or CAS side made ([`Assumption`]), and the loops a lasso repeats ([`Lasso`]).

use super::event::ThreadEvent;
use super::expr::Expr;
use crate::litmus::*;
use std::collections::BTreeMap;

/// A comparison a path assumed about its values (the side of a branch or a CAS it took).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Assumption {
    /// The comparison assumed to hold between `a` and `b`.
    pub cmp: Cmp,
    /// Its left operand.
    pub a: Expr,
    /// Its right operand.
    pub b: Expr,
    /// How many events the path had when it assumed this: the assumption decides which events
    /// follow, so a prefix of fewer events ([`Path::prefix`]) does not need it.
    pub at: usize,
}

impl Assumption {
    /// `Some(false)` once the values show the path impossible; `None` while undecided.
    pub fn holds(&self, read: &impl Fn(usize) -> Option<Value>) -> Option<bool> {
        let (a, b) = (self.a.eval(read)?, self.b.eval(read)?);
        Some(self.cmp.holds(a, b))
    }
}

/// One way a thread can run, its values symbolic.
#[derive(Clone, Debug)]
pub struct Path {
    /// The thread's events in program order, their values symbolic.
    pub events: Vec<ThreadEvent<Expr>>,
    /// Every register's value at the path's end (empty for a [`Path::prefix`]).
    pub regs: BTreeMap<Reg, Expr>,
    /// What the path assumed at branches and CAS operations that depend on loaded values.
    pub assumes: Vec<Assumption>,
    /// The backward branch whose bound cut this path short (or, recording lassos, at whose
    /// taking it is cut: see `paths_with_lassos`); `None` for a path that ends.
    pub cut: Option<Span>,
    /// For a cut path, when the cutting branch was taken before: the iteration between its
    /// last two takings (recorded only by `paths_with_lassos`).
    pub lasso: Option<Lasso>,
}

/// The last iteration of a cut path: what ran between the last two takings of the backward
/// branch that the bound cut (`liveness.rs` judges whether it can repeat forever).
#[derive(Clone, Debug)]
pub struct Lasso {
    /// Index of the iteration's first event in the path.
    pub start: usize,
    /// The statements the iteration ran, in order: from the branch's target to the branch.
    pub stmts: Vec<usize>,
    /// Every register's value when the iteration began.
    pub regs_before: BTreeMap<Reg, Expr>,
    /// Index of the first event of the iteration before it, when that one ran the same
    /// statements (the earlier of two equal iterations: what a repeated iteration that writes
    /// may read from, see `liveness.rs`).
    pub previous: Option<usize>,
    /// The unroll bound cut the path here (the branch would be taken once more than the bound
    /// allows), rather than the lasso recording a shorter prefix before a repeated iteration.
    pub bound: bool,
}

impl Path {
    /// The first `n` events of the path, with the assumptions that decided them: the run of a
    /// thread that stops (blocks, or is never scheduled again) after them. Its registers are
    /// left out (they may depend on reads it never made).
    pub fn prefix(&self, n: usize) -> Path {
        Path {
            events: self.events[..n].to_vec(),
            regs: BTreeMap::new(),
            assumes: self.assumes.iter().filter(|a| a.at < n).cloned().collect(),
            cut: None,
            lasso: None,
        }
    }
}

/// Every path of every thread (including those cut by the bound).
pub struct Paths {
    /// For each thread, by thread index, the paths it can take.
    pub per_thread: Vec<Vec<Path>>,
}

/// Why a program cannot be turned into paths.
pub struct TraceError {
    /// Where in the litmus source the statement that cannot be run is.
    pub span: Span,
    /// What is wrong, one line.
    pub message: String,
}
