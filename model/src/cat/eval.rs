//! Evaluation of a compiled model over one set of events: what reads none of the execution's
//! choices once ([`Prepared::new`]), the rest per candidate execution ([`Eval`]), skipping every
//! operation whose result is known empty from the static values (an intersection with the
//! empty set of proxy fences costs nothing).

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
    Set(Set),
    Rel(Rel),
}

impl Val {
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
            _ => false,
        }
    };
    let scope = |s: Scope| {
        move |k: &Kind| match k {
            Kind::Read { access, .. } | Kind::Write { access, .. } => access.scope == Some(s),
            Kind::Fence(Fence::Sc(f) | Fence::AcqRel(f)) => *f == s,
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
        Base::Issue => Val::Rel(ev.issue.clone()),
        Base::Copy => Val::Rel(ev.copy.clone()),
        Base::FenceSpace => Val::Rel(ev.fence_space.clone()),
        Base::WorkItem => Val::Set(cl(&|op| op.scope == Some(OpenClScope::WorkItem))),
        Base::AllSvm => Val::Set(cl(&|op| op.scope == Some(OpenClScope::AllSvmDevices))),
        Base::Global => Val::Set(cl(&|op| op.global)),
        Base::Local => Val::Set(cl(&|op| op.local)),
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

/// A model's static values on one set of events.
pub struct Prepared {
    pub n: usize,
    /// The value of every needed node that reads no choice.
    statics: Vec<Option<Val>>,
    /// Nodes whose value is empty whatever the choices.
    empty: Vec<bool>,
    /// The needed nodes that read choices, to forget between evaluations.
    dynamic: Vec<usize>,
    /// Per `let rec` group, the nodes recomputed at each iteration.
    rec_nodes: Vec<Vec<usize>>,
}

impl Prepared {
    /// `needed`: the nodes some check (or the engine) may ask for.
    pub fn new(m: &Compiled, needed: &[bool], ev: &Events) -> Prepared {
        let count = m.nodes.len();
        let mut rec_nodes = vec![Vec::new(); m.groups.len()];
        for (i, node) in m.nodes.iter().enumerate() {
            if let Some(g) = node.rec {
                rec_nodes[g].push(i);
            }
        }
        let mut prep = Prepared {
            n: ev.n,
            statics: vec![None; count],
            empty: vec![false; count],
            dynamic: Vec::new(),
            rec_nodes,
        };
        // Static nodes in order (operands come first), through the evaluator itself.
        let none = Rel::empty(ev.n);
        let choices = Dynamic {
            rf: &none,
            co: &none,
            fr: &none,
            sync_fence: &none,
            sync_barrier: &none,
        };
        let mut memo = vec![None; count];
        {
            let mut e = Eval {
                m,
                prep: &prep,
                choices: &choices,
                memo: &mut memo,
                rec: vec![None; m.groups.len()],
            };
            for (i, node) in m.nodes.iter().enumerate() {
                if needed[i] && node.reads == 0 && node.rec.is_none() {
                    if let Op::Base(b) = node.op {
                        e.memo[i] = Some(base(ev, b));
                    } else {
                        e.get(i);
                    }
                }
            }
        }
        for (i, node) in m.nodes.iter().enumerate() {
            if !needed[i] {
                continue;
            }
            if node.reads == 0 && node.rec.is_none() {
                let v = memo[i].take();
                prep.empty[i] = v.as_ref().is_some_and(Val::is_empty);
                prep.statics[i] = v;
                continue;
            }
            if node.rec.is_none() {
                prep.dynamic.push(i);
            }
            let e = |j: usize| prep.empty[j];
            prep.empty[i] = match node.op {
                Op::Seq(a, b) | Op::Inter(a, b) | Op::Cross(a, b) => e(a) || e(b),
                Op::Union(a, b) => e(a) && e(b),
                Op::Diff(a, _) => e(a),
                Op::Inverse(a) | Op::Plus(a) | Op::Identity(a) | Op::Domain(a) | Op::Range(a) => {
                    e(a)
                }
                _ => false,
            };
        }
        prep
    }

    /// A static node's value.
    pub fn get(&self, i: usize) -> Option<&Val> {
        self.statics[i].as_ref()
    }

    /// A fresh memo for [`Eval`].
    pub fn memo(&self) -> Vec<Option<Val>> {
        vec![None; self.statics.len()]
    }

    /// Forgets the values a previous evaluation left in `memo`.
    pub fn reset(&self, memo: &mut [Option<Val>]) {
        for &i in &self.dynamic {
            memo[i] = None;
        }
        for nodes in &self.rec_nodes {
            for &i in nodes {
                memo[i] = None;
            }
        }
    }
}

/// One evaluation under given choices; values are kept in `memo` (reset between evaluations).
pub struct Eval<'a> {
    pub m: &'a Compiled,
    pub prep: &'a Prepared,
    pub choices: &'a Dynamic<'a>,
    pub memo: &'a mut [Option<Val>],
    /// Per `let rec` group being iterated, the current approximations.
    rec: Vec<Option<Vec<Rel>>>,
}

impl<'a> Eval<'a> {
    pub fn new(
        m: &'a Compiled,
        prep: &'a Prepared,
        choices: &'a Dynamic<'a>,
        memo: &'a mut [Option<Val>],
    ) -> Eval<'a> {
        Eval {
            m,
            prep,
            choices,
            memo,
            rec: vec![None; m.groups.len()],
        }
    }

    /// The value of node `i` (computed once).
    pub fn get(&mut self, i: usize) -> &Val {
        if self.prep.statics[i].is_none() && self.memo[i].is_none() {
            let v = self.compute(i);
            self.memo[i] = Some(v);
        }
        self.val(i)
    }

    fn val(&self, i: usize) -> &Val {
        match &self.prep.statics[i] {
            Some(v) => v,
            None => self.memo[i].as_ref().expect("computed"),
        }
    }

    fn rel(&mut self, i: usize) -> &Rel {
        self.get(i).rel()
    }

    fn set(&mut self, i: usize) -> Set {
        self.get(i).set()
    }

    /// A static identity's set, for `[S] ; r` and `r ; [S]` as restrictions.
    fn static_identity(&self, i: usize) -> Option<Set> {
        match self.m.nodes[i].op {
            Op::Identity(s) => self.prep.statics[s].as_ref().map(Val::set),
            _ => None,
        }
    }

    fn compute(&mut self, i: usize) -> Val {
        let n = self.prep.n;
        let m = self.m;
        let node = &m.nodes[i];
        if self.prep.empty[i] {
            return match node.ty {
                Ty::Set => Val::Set(Set::EMPTY),
                Ty::Rel => Val::Rel(Rel::empty(n)),
            };
        }
        let all = Set::below(n);
        let ty = node.ty;
        match node.op {
            Op::Base(_) => unreachable!("bases are static"),
            Op::Choice(c) => Val::Rel(
                match c {
                    Choice::Rf => self.choices.rf,
                    Choice::Co => self.choices.co,
                    Choice::Fr => self.choices.fr,
                    Choice::SyncFence => self.choices.sync_fence,
                    Choice::SyncBarrier => self.choices.sync_barrier,
                }
                .clone(),
            ),
            Op::Zero => Val::Rel(Rel::empty(n)),
            Op::Union(a, b) | Op::Inter(a, b) | Op::Diff(a, b) if ty == Ty::Set => {
                let (x, y) = (self.set(a), self.set(b));
                Val::Set(match node.op {
                    Op::Union(..) => x | y,
                    Op::Inter(..) => x & y,
                    _ => x & !y,
                })
            }
            Op::Union(a, b) => {
                if self.prep.empty[a] {
                    return Val::Rel(self.rel(b).clone());
                }
                if self.prep.empty[b] {
                    return Val::Rel(self.rel(a).clone());
                }
                self.get(a);
                self.get(b);
                Val::Rel(self.val(a).rel() | self.val(b).rel())
            }
            Op::Inter(a, b) => {
                self.get(a);
                self.get(b);
                Val::Rel(self.val(a).rel() & self.val(b).rel())
            }
            Op::Diff(a, b) => {
                if self.prep.empty[b] {
                    return Val::Rel(self.rel(a).clone());
                }
                self.get(a);
                self.get(b);
                Val::Rel(self.val(a).rel() - self.val(b).rel())
            }
            Op::Seq(a, b) => {
                if let Some(s) = self.static_identity(b) {
                    return Val::Rel(self.rel(a).restrict(all, s));
                }
                if let Some(s) = self.static_identity(a) {
                    return Val::Rel(self.rel(b).restrict(s, all));
                }
                self.get(a);
                self.get(b);
                Val::Rel(self.val(a).rel().seq(self.val(b).rel()))
            }
            Op::Cross(a, b) => {
                let (x, y) = (self.set(a), self.set(b));
                Val::Rel(Rel::cross(n, x, y))
            }
            Op::Complement(a) => match self.get(a) {
                Val::Set(s) => Val::Set(all & !*s),
                Val::Rel(r) => Val::Rel(&Rel::cross(n, all, all) - r),
            },
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
            Op::RecVar(g, k) => Val::Rel(
                self.rec[g]
                    .as_ref()
                    .expect("recursive variables are read inside their group")[k]
                    .clone(),
            ),
            Op::Fix(g, k) => {
                let values = self.fix(g);
                Val::Rel(values[k].clone())
            }
        }
    }

    /// The least fixed point of a `let rec` group: from empty relations, recompute every body
    /// until nothing changes (every operation is monotone in the variables it reads through
    /// unions, sequences and closures; the relations are finite, so this ends).
    fn fix(&mut self, g: usize) -> Vec<Rel> {
        let m = self.m;
        let group = &m.groups[g];
        let mut cur = vec![Rel::empty(self.prep.n); group.vars.len()];
        loop {
            for &i in &self.prep.rec_nodes[g] {
                self.memo[i] = None;
            }
            self.rec[g] = Some(cur.clone());
            let next: Vec<Rel> = group.bodies.iter().map(|&b| self.rel(b).clone()).collect();
            if next == cur {
                self.rec[g] = None;
                return cur;
            }
            cur = next;
        }
    }
}
