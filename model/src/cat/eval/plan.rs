//! A model's plan on one set of events ([`Prepared`]): one entry per needed node, each with the
//! choices it reads, and the values computed so far ([`Memo`]).

use super::val::Val;
use crate::axiomatic::models::Dynamic;
use crate::axiomatic::rel::Rel;
use crate::cat::compile::{Choice, Op};

/// An operand slot left empty.
pub(super) const NONE: u32 = u32::MAX;

/// The stamp of a value fixed once the events are known.
pub(super) const STATIC: u32 = u32::MAX;

/// How one entry of a program's plan is computed.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    /// Fixed once the events are known: it reads no choice.
    Static,
    /// One of the execution's choices.
    Choice(Choice),
    /// `base | (e1 & m1) | (e2 & m2) | …` over the leaves `from..to` (`base` a static entry or
    /// [`NONE`]). Unions, intersections with static relations, differences with them and
    /// restrictions to static sets (`[S] ; r ; [T]`) all come to this one step, whatever their
    /// nesting: `[W]; (vloc & r); [W] | [M]; (scta & r); [M]` is `r & m` for one static `m`.
    Union { from: u32, to: u32, base: u32 },
    /// Any other operation, its operands entries of the plan.
    Op(Op),
}

/// An operand of a [`Step::Union`]: an entry, intersected with a static entry (or [`NONE`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Leaf {
    pub(super) entry: u32,
    pub(super) mask: u32,
}

/// A `let rec` group's entries.
#[derive(Clone, Debug, Default)]
pub(super) struct GroupPlan {
    pub(super) vars: Vec<usize>,
    pub(super) bodies: Vec<usize>,
    /// The entries that read the group's approximations, recomputed at each iteration.
    pub(super) members: Vec<usize>,
}

/// A model's plan on one set of events: every needed node an entry, computed once if it reads
/// no choice, and simplified with the static values (operations on a statically empty
/// operand dropped, static intersections and restrictions folded into unions). Each entry
/// knows which choices it reads, so an evaluation recomputes only the entries whose choices
/// changed since the last one ([`Memo`]).
pub struct Prepared {
    /// How many events there are.
    pub n: usize,
    /// Per compiled node, its entry ([`NONE`] for nodes nothing asks for).
    pub(super) at: Vec<u32>,
    pub(super) steps: Vec<Step>,
    /// Per entry, the choices it reads ([`Choice`] bits).
    pub(super) reads: Vec<u8>,
    pub(super) leaves: Vec<Leaf>,
    pub(super) groups: Vec<GroupPlan>,
}

impl Prepared {
    /// A node's value when it reads no choice.
    pub fn get<'m>(&self, memo: &'m Memo, node: usize) -> Option<&'m Val> {
        let e = *self.at.get(node)?;
        (e != NONE && memo.stamp[e as usize] == STATIC).then(|| &memo.vals[e as usize])
    }
}
/// The values of a plan's entries and when each was computed: an evaluation under new
/// choices recomputes only the entries that read a choice that changed.
pub struct Memo {
    pub(super) vals: Vec<Val>,
    /// Per entry, the evaluation that computed it (0: none; [`STATIC`]: fixed).
    pub(super) stamp: Vec<u32>,
    /// The current evaluation.
    pub(super) epoch: u32,
    /// Per choice, the evaluation since which it has its value.
    pub(super) changed: [u32; 5],
    /// The choices of the last evaluation.
    pub(super) last: Option<[Rel; 5]>,
}

impl Memo {
    /// Starts an evaluation under `x`.
    pub(super) fn begin(&mut self, x: &Dynamic<'_>) {
        if self.epoch == STATIC - 1 {
            for s in &mut self.stamp {
                if *s != STATIC {
                    *s = 0;
                }
            }
            self.epoch = 1;
            self.last = None;
        }
        self.epoch += 1;
        let now = [x.rf, x.co, x.fr, x.sync_fence, x.sync_barrier];
        match &mut self.last {
            Some(last) => {
                for (k, (old, new)) in last.iter_mut().zip(now).enumerate() {
                    if old != new {
                        old.clone_from(new);
                        self.changed[k] = self.epoch;
                    }
                }
            }
            None => {
                self.last = Some(now.map(Rel::clone));
                self.changed = [self.epoch; 5];
            }
        }
    }
}
