//! The compiled model: a graph of operations over sets and relations ([`Op`], [`Node`]), its
//! `let rec` groups and its checks ([`Compiled`]).

use super::base::{Base, Choice, Ty};
use crate::cat::syntax::{self, CheckKind, Pos};
use std::collections::HashMap;

/// One operation; operands are node indices.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A relation or set the engine gives ([`Base`]).
    Base(Base),
    /// One of the execution's choices ([`Choice`]).
    Choice(Choice),
    /// `0`: the empty relation.
    Zero,
    /// `a | b`.
    Union(usize, usize),
    /// `a & b`.
    Inter(usize, usize),
    /// `a \ b`.
    Diff(usize, usize),
    /// `a ; b`.
    Seq(usize, usize),
    /// `a * b`: every pair of an event of set `a` and one of set `b`.
    Cross(usize, usize),
    /// `~a`.
    Complement(usize),
    /// `a^-1`.
    Inverse(usize),
    /// `a+`: transitive closure.
    Plus(usize),
    /// `a*`: reflexive-transitive closure.
    Star(usize),
    /// `a?`: `a` with the identity.
    Opt(usize),
    /// `[a]`: the identity on set `a`.
    Identity(usize),
    /// `domain(a)`: the events `a` relates to something.
    Domain(usize),
    /// `range(a)`: the events something relates to by `a`.
    Range(usize),
    /// Inside the bodies of a `let rec` group: the current approximation of its variable.
    RecVar(usize, usize),
    /// The least fixed point of a `let rec` group's variable.
    Fix(usize, usize),
}

impl Op {
    /// The nodes it reads directly (a `let rec` group's bodies and variables are not among
    /// a [`Op::Fix`]'s).
    pub fn operands(self) -> impl Iterator<Item = usize> {
        let (nodes, count) = match self {
            Op::Union(a, b)
            | Op::Inter(a, b)
            | Op::Diff(a, b)
            | Op::Seq(a, b)
            | Op::Cross(a, b) => ([a, b], 2),
            Op::Complement(a)
            | Op::Inverse(a)
            | Op::Plus(a)
            | Op::Star(a)
            | Op::Opt(a)
            | Op::Identity(a)
            | Op::Domain(a)
            | Op::Range(a) => ([a, 0], 1),
            Op::Base(_) | Op::Choice(_) | Op::Zero | Op::RecVar(..) | Op::Fix(..) => ([0, 0], 0),
        };
        nodes.into_iter().take(count)
    }
}

/// A node of the graph: its operation, type and classification.
#[derive(Clone, Debug)]
pub struct Node {
    /// The operation, over other nodes' indices.
    pub op: Op,
    /// Whether it is a set of events or a relation.
    pub ty: Ty,
    /// The choices it reads ([`Choice`] bits).
    pub reads: u8,
    /// Monotone in the choices it reads.
    pub monotone: bool,
    /// Every pair is of one location or an event with itself.
    pub local: bool,
    /// The `let rec` group whose approximations it reads (recomputed at each iteration).
    pub rec: Option<usize>,
    /// Whether it is monotone in the `let rec` variables it reads (`rec`): none of them under
    /// `~` or on the right of `\`.
    pub rec_monotone: bool,
    /// The longest chain of operations from it down to a base relation or a variable (the
    /// evaluator's recursion depth on it), at most [`MAX_HEIGHT`].
    pub height: usize,
}

/// How deep the graph of operations may be, through every definition (`let a1 = a0 | po`,
/// `let a2 = a1 | po`, … builds a chain as deep as the file is long): the evaluator walks it
/// recursively, and this bound keeps its stack bounded. The built-in models stay under 60.
pub const MAX_HEIGHT: usize = 1_000;

/// How many expression nodes compiling a model may visit, every function application inlining
/// its body anew: the bound on exponential inlining (`let f1(x) = f0(x) | f0(x)`, `let f2(x) =
/// f1(x) | f1(x)`, …). The built-in models visit under 20,000.
pub const MAX_INLINED: usize = 1_000_000;

/// A `let rec … and …` group: the variables' nodes and their bodies'.
#[derive(Clone, Debug)]
pub struct Group {
    /// The nodes of the group's variables, which stand for their current approximations.
    pub vars: Vec<usize>,
    /// The nodes of the variables' bodies, in the same order.
    pub bodies: Vec<usize>,
}

/// A check of the model.
#[derive(Clone, Debug)]
pub struct Check {
    /// The name after `as`, else the check's text as written.
    pub name: &'static str,
    /// Which of cat's three conditions it tests.
    pub kind: CheckKind,
    /// `~acyclic …`: the check passes when the condition fails.
    pub negated: bool,
    /// A `flag`: reported when raised, never a consistency failure.
    pub flag: bool,
    /// The node of the relation tested.
    pub node: usize,
    /// Where the check is written.
    pub pos: Pos,
}

/// A compiled model.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The quoted title the main file starts with, if any.
    pub title: Option<String>,
    /// The options after the main file's title.
    pub options: Vec<syntax::ModelOption>,
    /// Every node of the graph of operations, operands before the nodes that use them.
    pub nodes: Vec<Node>,
    /// The `let rec` groups, by the index [`Op::Fix`] and [`Op::RecVar`] name.
    pub groups: Vec<Group>,
    /// The checks and flags, in the order of the text.
    pub checks: Vec<Check>,
    /// The top-level bindings to values, by name, after the last statement.
    pub bindings: HashMap<String, usize>,
}
