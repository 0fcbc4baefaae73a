//! The compiler's state: the graph built so far, with each node made once.

use super::base::{Choice, Ty};
use super::graph::{Check, Group, Node, Op};
use super::source::Source;
use std::collections::HashMap;

pub(super) struct Compiler<'s> {
    pub(super) source: &'s dyn Source,
    pub(super) nodes: Vec<Node>,
    pub(super) interned: HashMap<Op, usize>,
    pub(super) groups: Vec<Group>,
    pub(super) checks: Vec<Check>,
    /// Files being read (include cycles).
    pub(super) reading: Vec<String>,
    /// The recursion depth of [`Compiler::expr`], through function bodies (at most
    /// [`MAX_HEIGHT`](super::graph::MAX_HEIGHT)).
    pub(super) depth: usize,
    /// Expression nodes visited so far (at most [`MAX_INLINED`](super::graph::MAX_INLINED)).
    pub(super) visited: usize,
}

/// Interns check names: the engine reports them as `&'static str`, and a model loaded twice
/// (or two models) reuse the same names.
pub(super) fn intern(name: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = names.get_or_insert_with(HashSet::new);
    if let Some(&s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(s);
    s
}

impl Compiler<'_> {
    pub(super) fn node(&mut self, op: Op, ty: Ty) -> usize {
        if let Some(&i) = self.interned.get(&op) {
            return i;
        }
        let height = match op {
            Op::Fix(g, _) => self.groups[g]
                .bodies
                .iter()
                .map(|&b| self.nodes[b].height)
                .max(),
            _ => op.operands().map(|a| self.nodes[a].height).max(),
        }
        .map_or(0, |h| h + 1);
        // A `let rec` variable read under `~` or on the right of `\` breaks monotonicity.
        let rec_monotone = match op {
            Op::Complement(a) => self.nodes[a].rec.is_none(),
            Op::Diff(a, b) => self.nodes[a].rec_monotone && self.nodes[b].rec.is_none(),
            _ => op.operands().all(|a| self.nodes[a].rec_monotone),
        };
        let n = |i: usize| &self.nodes[i];
        let (reads, monotone, local, rec) = match op {
            Op::Base(b) => (0, true, b.within_location(), None),
            Op::Choice(c) => (
                c as u8,
                true,
                matches!(c, Choice::Rf | Choice::Co | Choice::Fr),
                None,
            ),
            Op::Zero => (0, true, true, None),
            Op::Union(a, b) | Op::Seq(a, b) => (
                n(a).reads | n(b).reads,
                n(a).monotone && n(b).monotone,
                n(a).local && n(b).local,
                n(a).rec.or(n(b).rec),
            ),
            Op::Inter(a, b) => (
                n(a).reads | n(b).reads,
                n(a).monotone && n(b).monotone,
                n(a).local || n(b).local,
                n(a).rec.or(n(b).rec),
            ),
            Op::Diff(a, b) => (
                n(a).reads | n(b).reads,
                n(a).monotone && n(b).reads == 0 && n(b).rec.is_none(),
                n(a).local,
                n(a).rec.or(n(b).rec),
            ),
            Op::Cross(a, b) => (
                n(a).reads | n(b).reads,
                n(a).monotone && n(b).monotone,
                false,
                n(a).rec.or(n(b).rec),
            ),
            Op::Complement(a) => (
                n(a).reads,
                n(a).reads == 0 && n(a).rec.is_none(),
                false,
                n(a).rec,
            ),
            Op::Inverse(a) | Op::Plus(a) | Op::Star(a) | Op::Opt(a) => {
                (n(a).reads, n(a).monotone, n(a).local, n(a).rec)
            }
            Op::Identity(a) => (n(a).reads, n(a).monotone, true, n(a).rec),
            Op::Domain(a) | Op::Range(a) => (n(a).reads, n(a).monotone, false, n(a).rec),
            Op::RecVar(g, _) => (0, true, true, Some(g)),
            Op::Fix(g, _) => {
                let bodies = &self.groups[g].bodies;
                (
                    bodies.iter().fold(0, |r, &b| r | self.nodes[b].reads),
                    bodies.iter().all(|&b| self.nodes[b].monotone),
                    bodies.iter().all(|&b| self.nodes[b].local),
                    None,
                )
            }
        };
        self.nodes.push(Node {
            op,
            ty,
            reads,
            monotone,
            local,
            rec,
            rec_monotone,
            height,
        });
        let i = self.nodes.len() - 1;
        // Variables of one group are distinct even when nothing tells them apart yet.
        if !matches!(op, Op::RecVar(..)) {
            self.interned.insert(op, i);
        }
        i
    }
}
