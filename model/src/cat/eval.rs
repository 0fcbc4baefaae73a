//! Evaluation of a compiled model over one set of events. [`Prepared::new`] turns the model's
//! graph into a plan for these events: what reads none of the execution's choices is computed
//! once; operations a statically empty operand decides are dropped; unions, intersections
//! with static relations and restrictions to static sets fold into one masked union per
//! node (`[W]; (vloc & r); [W] | [M]; (scta & r); [M]` is `r & m`, one pass). [`Eval`] then
//! computes what a check asks for under the choices of one candidate execution, and its
//! [`Memo`] keeps, from one evaluation to the next, every value that reads none of the
//! choices that changed (reads-from changes at every prefix the enumeration checks, coherence
//! and the synchronization far less often).

use super::compile::{Base, Choice, Compiled, Op, Ty};
use crate::axiomatic::events::Kind;
use crate::axiomatic::execution::Events;
use crate::axiomatic::models::Dynamic;
use crate::axiomatic::rel::{bit, Rel, Set};
use crate::litmus::opencl::{OpenClOp, OpenClScope};
use crate::litmus::vulkan::{VulkanKind, VulkanOp, VulkanScope};
use crate::litmus::{Fence, Proxy};
use crate::scope::{Order, Scope};

/// A value: a set of events or a relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    /// A set of events.
    Set(Set),
    /// A relation between events.
    Rel(Rel),
}

impl Val {
    /// The relation this value is (the type checker makes sure it is one).
    pub fn rel(&self) -> &Rel {
        match self {
            Val::Rel(r) => r,
            Val::Set(_) => unreachable!("type-checked: a relation"),
        }
    }

    fn set(&self) -> Set {
        match self {
            Val::Set(s) => *s,
            Val::Rel(_) => unreachable!("type-checked: a set"),
        }
    }

    /// Whether the set or relation has no member.
    pub fn is_empty(&self) -> bool {
        match self {
            Val::Set(s) => *s == Set::EMPTY,
            Val::Rel(r) => r.is_empty(),
        }
    }

    /// A relation as is; a set as the identity on it.
    pub fn to_rel(&self, n: usize) -> Rel {
        match self {
            Val::Set(s) => Rel::id(n, *s),
            Val::Rel(r) => r.clone(),
        }
    }
}

/// The test a Vulkan tag puts to an event's annotation (`None`: not a Vulkan tag).
fn vulkan_base(b: Base) -> Option<impl Fn(&VulkanOp) -> bool> {
    let test: fn(&VulkanOp, u8, Option<VulkanScope>) -> bool = match b {
        Base::Atom => |op, _, _| op.is_atomic(),
        Base::NonPriv => |op, _, _| op.nonpriv,
        Base::Av => |op, _, _| op.av,
        Base::Vis => |op, _, _| op.vis,
        Base::SemAv => |op, _, _| op.sem_av,
        Base::SemVis => |op, _, _| op.sem_vis,
        Base::AvDevice => |op, _, _| op.kind == VulkanKind::AvDevice,
        Base::VisDevice => |op, _, _| op.kind == VulkanKind::VisDevice,
        Base::Cbar => |op, _, _| op.kind == VulkanKind::ControlBarrier,
        Base::StorageClass(_) => |op, c, _| op.storage_class == Some(c),
        Base::Semantics(_) => |op, c, _| op.semantics & (1 << c) != 0,
        Base::VulkanScope(_) => |op, _, s| op.scope == s,
        _ => return None,
    };
    let (class, scope) = match b {
        Base::StorageClass(c) | Base::Semantics(c) => (c, None),
        Base::VulkanScope(s) => (0, Some(s)),
        _ => (0, None),
    };
    Some(move |op: &VulkanOp| test(op, class, scope))
}

/// The value of a base set or relation on these events.
fn base(ev: &Events, b: Base) -> Val {
    let n = ev.n;
    let all = Set::below(n);
    let tagged = |f: &dyn Fn(&Kind) -> bool| -> Val {
        Val::Set(
            (0..n)
                .filter(|&i| f(&ev.info[i].kind))
                .fold(Set::EMPTY, |s, i| s | bit(i)),
        )
    };
    // A Vulkan event's annotation says what it is; `vk(f)` tags the events it holds for.
    let vk = |f: &dyn Fn(&VulkanOp) -> bool| -> Val {
        Val::Set(
            (0..n)
                .filter(|&i| ev.vulkan[i].as_ref().is_some_and(f))
                .fold(Set::EMPTY, |s, i| s | bit(i)),
        )
    };
    // An OpenCL event's annotation likewise.
    let cl = |f: &dyn Fn(&OpenClOp) -> bool| -> Set {
        (0..n)
            .filter(|&i| ev.opencl[i].as_ref().is_some_and(f))
            .fold(Set::EMPTY, |s, i| s | bit(i))
    };
    if let Some(tag) = vulkan_base(b) {
        let opencl = match b {
            Base::Atom => cl(&|op| op.atomic),
            Base::VulkanScope(VulkanScope::Workgroup) => {
                cl(&|op| op.scope == Some(OpenClScope::WorkGroup))
            }
            Base::VulkanScope(VulkanScope::Device) => {
                cl(&|op| op.scope == Some(OpenClScope::Device))
            }
            _ => Set::EMPTY,
        };
        return match vk(&tag) {
            Val::Set(s) => Val::Set(s | opencl),
            Val::Rel(_) => unreachable!("tags are sets"),
        };
    }
    // The order of an annotated (Vulkan or OpenCL) event is its annotation's.
    let vulkan_order = |o: Order| {
        let vk = (0..n)
            .filter(|&i| ev.vulkan[i].is_some_and(|op| op.order == o))
            .fold(Set::EMPTY, |s, i| s | bit(i))
            | cl(&|op| op.order == o);
        let any = (0..n)
            .filter(|&i| ev.vulkan[i].is_some())
            .fold(Set::EMPTY, |s, i| s | bit(i))
            | cl(&|_| true);
        (vk, any)
    };
    let order = |o: Order| {
        move |k: &Kind| match k {
            Kind::Read { access, .. } | Kind::Write { access, .. } => access.order == o,
            Kind::Fence(Fence::Sc(_)) => o == Order::Sc,
            Kind::Fence(Fence::AcqRel(_)) => o == Order::AcqRel,
            Kind::MbarrierInitFence => o == Order::Release,
            _ => false,
        }
    };
    let scope = |s: Scope| {
        move |k: &Kind| match k {
            Kind::Read { access, .. } | Kind::Write { access, .. } => access.scope == Some(s),
            Kind::Fence(Fence::Sc(f) | Fence::AcqRel(f)) => *f == s,
            Kind::MbarrierInitFence => s == Scope::Cluster,
            _ => false,
        }
    };
    match b {
        Base::All => Val::Set(all),
        Base::R => Val::Set(ev.r),
        Base::W => Val::Set(ev.w),
        Base::M => Val::Set(ev.m),
        Base::F => Val::Set(ev.f),
        Base::Iw => Val::Set(ev.init),
        Base::RmwEvents => Val::Set(ev.rmw.domain() | ev.rmw.range()),
        Base::Bar => Val::Set(ev.barriers),
        Base::Weak | Base::Rlx | Base::Acq | Base::Rel | Base::AcqRel | Base::Sc => {
            let o = match b {
                Base::Weak => Order::Weak,
                Base::Rlx => Order::Relaxed,
                Base::Acq => Order::Acquire,
                Base::Rel => Order::Release,
                Base::AcqRel => Order::AcqRel,
                _ => Order::Sc,
            };
            // A Vulkan barrier's order is that of its semantics.
            let (vulkan, annotated) = vulkan_order(o);
            match tagged(&order(o)) {
                Val::Set(s) => Val::Set((s & !annotated) | vulkan),
                Val::Rel(_) => unreachable!("tags are sets"),
            }
        }
        Base::Cta => tagged(&scope(Scope::Cta)),
        Base::Cluster => tagged(&scope(Scope::Cluster)),
        Base::Gpu => tagged(&scope(Scope::Gpu)),
        Base::Sys => tagged(&scope(Scope::Sys)),
        Base::Gen => Val::Set(ev.gen),
        Base::Sur => Val::Set(ev.sur),
        Base::Tex => Val::Set(ev.tex),
        Base::Con => Val::Set(ev.con),
        Base::Async => tagged(&|k| match k {
            Kind::Read { access, .. } | Kind::Write { access, .. } => access.proxy == Proxy::Async,
            Kind::Fence(Fence::Proxy(k)) => k.is_async(),
            _ => false,
        }),
        Base::Alias => Val::Set(ev.f_alias),
        Base::Id => Val::Rel(Rel::id(n, all)),
        Base::Po => Val::Rel(ev.po.clone()),
        Base::Int => Val::Rel(ev.int.clone()),
        Base::Ext => Val::Rel(&Rel::cross(n, all, all) - &ev.int),
        Base::Loc => Val::Rel(ev.loc.clone()),
        Base::Vloc => Val::Rel(ev.vloc.clone()),
        Base::PoLoc => Val::Rel(ev.po_loc.clone()),
        Base::Rmw => Val::Rel(ev.rmw.clone()),
        Base::Dep => Val::Rel(ev.dep.clone()),
        Base::Sr => Val::Rel(ev.sr.clone()),
        Base::Scta => Val::Rel(ev.scta.clone()),
        Base::TokenOrder => Val::Rel(ev.token_order.clone()),
        Base::Bulk => Val::Set(ev.bulk),
        Base::Exchange => Val::Set(ev.exchange),
        Base::Issue => Val::Rel(ev.issue.clone()),
        Base::Copy => Val::Rel(ev.copy.clone()),
        Base::FenceSpace => Val::Rel(ev.fence_space.clone()),
        Base::BulkWait => Val::Rel(ev.bulk_wait.clone()),
        Base::ClusterBarrier => Val::Rel(ev.cluster_barrier.clone()),
        Base::MbarInit => Val::Set(ev.mbar_init),
        Base::MbarInitFence => Val::Set(ev.mbar_init_fence),
        Base::WorkItem => Val::Set(cl(&|op| op.scope == Some(OpenClScope::WorkItem))),
        Base::AllSvm => Val::Set(cl(&|op| op.scope == Some(OpenClScope::AllSvmDevices))),
        Base::Global => Val::Set(cl(&|op| op.global)),
        Base::Local => Val::Set(cl(&|op| op.local)),
        Base::NonAtomicLoc => Val::Set(cl(&|op| op.nonatomic_location)),
        Base::Sdv => Val::Rel(ev.sdv.clone()),
        Base::Ssg => Val::Rel(ev.ssg.clone()),
        Base::Swg => Val::Rel(ev.swg.clone()),
        Base::Sqf => Val::Rel(ev.sqf.clone()),
        Base::Ssw => Val::Rel(ev.ssw.clone()),
        Base::Atom
        | Base::NonPriv
        | Base::Av
        | Base::Vis
        | Base::SemAv
        | Base::SemVis
        | Base::AvDevice
        | Base::VisDevice
        | Base::Cbar
        | Base::StorageClass(_)
        | Base::Semantics(_)
        | Base::VulkanScope(_) => unreachable!("tagged from the Vulkan annotation above"),
    }
}

/// An operand slot left empty.
const NONE: u32 = u32::MAX;

/// The stamp of a value fixed once the events are known.
const STATIC: u32 = u32::MAX;

/// How one entry of a program's plan is computed.
#[derive(Clone, Copy, Debug)]
enum Step {
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
struct Leaf {
    entry: u32,
    mask: u32,
}

/// A `let rec` group's entries.
#[derive(Clone, Debug, Default)]
struct GroupPlan {
    vars: Vec<usize>,
    bodies: Vec<usize>,
    /// The entries that read the group's approximations, recomputed at each iteration.
    members: Vec<usize>,
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
    at: Vec<u32>,
    steps: Vec<Step>,
    /// Per entry, the choices it reads ([`Choice`] bits).
    reads: Vec<u8>,
    leaves: Vec<Leaf>,
    groups: Vec<GroupPlan>,
}

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

    /// A node's value when it reads no choice.
    pub fn get<'m>(&self, memo: &'m Memo, node: usize) -> Option<&'m Val> {
        let e = *self.at.get(node)?;
        (e != NONE && memo.stamp[e as usize] == STATIC).then(|| &memo.vals[e as usize])
    }
}

/// The values of a plan's entries and when each was computed: an evaluation under new
/// choices recomputes only the entries that read a choice that changed.
pub struct Memo {
    vals: Vec<Val>,
    /// Per entry, the evaluation that computed it (0: none; [`STATIC`]: fixed).
    stamp: Vec<u32>,
    /// The current evaluation.
    epoch: u32,
    /// Per choice, the evaluation since which it has its value.
    changed: [u32; 5],
    /// The choices of the last evaluation.
    last: Option<[Rel; 5]>,
}

impl Memo {
    /// Starts an evaluation under `x`.
    fn begin(&mut self, x: &Dynamic<'_>) {
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

/// One evaluation under given choices, on a plan's memo.
pub struct Eval<'a> {
    prep: &'a Prepared,
    choices: &'a Dynamic<'a>,
    memo: &'a mut Memo,
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

    fn ensure(&mut self, e: usize) {
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
