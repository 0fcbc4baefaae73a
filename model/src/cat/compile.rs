//! From syntax to a graph of operations over the engine's sets and relations: names resolved,
//! functions inlined, `include`s read, types checked (a set or a relation), and each node
//! classified for the enumeration:
//! - which of the execution's choices it reads (reads-from, coherence, from-reads, the fence.sc
//!   order, the barrier matching) — nodes that read none are computed once per set of events;
//! - whether it is monotone in those choices (built without `\` or `~` over them), so that a
//!   check on part of the choices may reject every completion;
//! - whether it relates only events of one location (or an event to itself), so that a check on
//!   it can be made location by location.

use super::env::{Binding, Function, Names, Scope};
pub use super::syntax::CheckKind;
use super::syntax::{self, BinOp, ExprKind, Pos, Stmt, UnOp};
use super::CatError;
use crate::litmus::vulkan::VulkanScope;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A value's type: a set of events or a relation over them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A set of events.
    Set,
    /// A relation between events.
    Rel,
}

/// The sets and relations of a candidate execution that do not depend on its choices (see
/// [`super`] for what each means).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// `_`: every event.
    All,
    /// `R`: reads.
    R,
    /// `W`: writes (the initial ones included).
    W,
    /// `M`: memory events (reads and writes).
    M,
    /// `F`: fences.
    F,
    /// `IW`: the initial writes.
    Iw,
    /// `RMW`: the events of read-modify-writes.
    RmwEvents,
    /// `BAR`: barrier events.
    Bar,
    /// `WEAK`: weak accesses and the initial writes.
    Weak,
    /// `RLX`: `.relaxed` events.
    Rlx,
    /// `ACQ`: `.acquire` events.
    Acq,
    /// `REL`: `.release` events.
    Rel,
    /// `ACQ_REL`: `.acq_rel` events.
    AcqRel,
    /// `SC`: `fence.sc`.
    Sc,
    /// `CTA`: events of scope `.cta`.
    Cta,
    /// `CLUSTER`: events of scope `.cluster`.
    Cluster,
    /// `GPU`: events of scope `.gpu`.
    Gpu,
    /// `SYS`: events of scope `.sys`.
    Sys,
    /// `GEN`: generic-proxy accesses and fences (with `fence.sc`, `fence.acq_rel`).
    Gen,
    /// `SUR`: surface-proxy accesses and fences.
    Sur,
    /// `TEX`: texture-proxy accesses and fences.
    Tex,
    /// `CON`: constant-proxy accesses and fences.
    Con,
    /// `ASYNC`: async-proxy accesses and fences.
    Async,
    /// `ALIAS`: `fence.proxy.alias`.
    Alias,
    /// `id`: each event with itself.
    Id,
    /// `po`: program order.
    Po,
    /// `int`: pairs of one thread.
    Int,
    /// `ext`: pairs of different threads.
    Ext,
    /// `loc`: pairs of one physical location.
    Loc,
    /// `vloc`: pairs of one virtual (generic) address.
    Vloc,
    /// `po-loc`: `po & loc`.
    PoLoc,
    /// `rmw`: from the read to the write of one read-modify-write.
    Rmw,
    /// `dep`: address, data and control dependencies.
    Dep,
    /// `sr`: same scope (each event's scope includes the other's thread).
    Sr,
    /// `scta`: pairs of one CTA.
    Scta,
    /// `token-order`: Tile IR token order (without tokens, `rmw`).
    TokenOrder,
    /// PTX: the events of bulk copies (`cp.async.bulk`).
    Bulk,
    /// PTX litmus: the events of warp exchanges (`WX`: the slot accesses and barriers a
    /// `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` or `elect.sync` lowers to).
    Exchange,
    /// PTX: from a thread's events before a bulk copy's issue to the copy's events.
    Issue,
    /// PTX: within one bulk copy, from each event to the later ones.
    Copy,
    /// PTX: from a proxy fence to the memory events of its state space.
    FenceSpace,
    /// PTX: from a `.bulk_group` bulk copy's events to its thread's events from the
    /// `cp.async.bulk.wait_group` that waited for it on.
    BulkWait,
    /// PTX: from a `barrier.cluster.arrive` to the waits of the other threads of its instance.
    ClusterBarrier,
    /// PTX: `mbarrier.init` writes.
    MbarInit,
    /// PTX: `fence.mbarrier_init.release.cluster` fences.
    MbarInitFence,
    /// Vulkan: atomic accesses (`.atom`).
    Atom,
    /// Vulkan: `.nonpriv` accesses.
    NonPriv,
    /// Vulkan: `.av` stores (per-instruction availability).
    Av,
    /// Vulkan: `.vis` loads (per-instruction visibility).
    Vis,
    /// Vulkan: MakeAvailable semantics (`.semav`).
    SemAv,
    /// Vulkan: MakeVisible semantics (`.semvis`).
    SemVis,
    /// Vulkan: `avdevice`.
    AvDevice,
    /// Vulkan: `visdevice`.
    VisDevice,
    /// Vulkan: control barriers (`cbar`).
    Cbar,
    /// Vulkan: accesses in storage class N (`.scN`).
    StorageClass(u8),
    /// Vulkan: operations with storage class N in their semantics (`.semscN`).
    Semantics(u8),
    /// Vulkan: operations of this memory scope.
    VulkanScope(VulkanScope),
    /// OpenCL: operations of scope `memory_scope_work_item` (work-group and device scopes
    /// are `WG` and `DV`, shared with Vulkan).
    WorkItem,
    /// OpenCL: operations of scope `memory_scope_all_svm_devices`.
    AllSvm,
    /// OpenCL: accesses to global memory and fences whose flags hold `CLK_GLOBAL_MEM_FENCE`.
    Global,
    /// OpenCL: accesses to local memory and fences with `CLK_LOCAL_MEM_FENCE`.
    Local,
    /// OpenCL: accesses to a non-atomic object (a location no declaration gives an atomic
    /// type; herd's and Dat3M's `NAL`).
    NonAtomicLoc,
    /// Same device.
    Sdv,
    /// Vulkan: same subgroup instance.
    Ssg,
    /// Same workgroup (Vulkan workgroup instance, OpenCL `wg`).
    Swg,
    /// Vulkan: same queue family instance.
    Sqf,
    /// Vulkan: system-synchronizes-with.
    Ssw,
}

/// The execution's choices, one bit each in [`Node::reads`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    /// `rf`: reads-from.
    Rf = 1,
    /// `co`: coherence order.
    Co = 2,
    /// `fr`: from-reads.
    Fr = 4,
    /// `sync_fence`: the fence.sc order between morally strong fences.
    SyncFence = 8,
    /// `sync_barrier`: barrier synchronization.
    SyncBarrier = 16,
}

/// The names every model starts with: (name, what, type).
pub const BASE_NAMES: &[(&str, Base, Ty)] = &[
    ("_", Base::All, Ty::Set),
    ("R", Base::R, Ty::Set),
    ("W", Base::W, Ty::Set),
    ("M", Base::M, Ty::Set),
    ("F", Base::F, Ty::Set),
    ("IW", Base::Iw, Ty::Set),
    ("RMW", Base::RmwEvents, Ty::Set),
    ("BAR", Base::Bar, Ty::Set),
    ("WEAK", Base::Weak, Ty::Set),
    ("RLX", Base::Rlx, Ty::Set),
    ("ACQ", Base::Acq, Ty::Set),
    ("REL", Base::Rel, Ty::Set),
    ("ACQ_REL", Base::AcqRel, Ty::Set),
    ("SC", Base::Sc, Ty::Set),
    ("CTA", Base::Cta, Ty::Set),
    ("CLUSTER", Base::Cluster, Ty::Set),
    ("GPU", Base::Gpu, Ty::Set),
    ("SYS", Base::Sys, Ty::Set),
    ("GEN", Base::Gen, Ty::Set),
    ("SUR", Base::Sur, Ty::Set),
    ("TEX", Base::Tex, Ty::Set),
    ("CON", Base::Con, Ty::Set),
    ("ASYNC", Base::Async, Ty::Set),
    ("ALIAS", Base::Alias, Ty::Set),
    ("id", Base::Id, Ty::Rel),
    ("po", Base::Po, Ty::Rel),
    ("int", Base::Int, Ty::Rel),
    ("ext", Base::Ext, Ty::Rel),
    ("loc", Base::Loc, Ty::Rel),
    ("vloc", Base::Vloc, Ty::Rel),
    ("po-loc", Base::PoLoc, Ty::Rel),
    ("rmw", Base::Rmw, Ty::Rel),
    ("dep", Base::Dep, Ty::Rel),
    ("sr", Base::Sr, Ty::Rel),
    ("scta", Base::Scta, Ty::Rel),
    ("token-order", Base::TokenOrder, Ty::Rel),
    ("BULK", Base::Bulk, Ty::Set),
    ("WX", Base::Exchange, Ty::Set),
    ("issue", Base::Issue, Ty::Rel),
    ("copy", Base::Copy, Ty::Rel),
    ("fence-space", Base::FenceSpace, Ty::Rel),
    ("bulk-wait", Base::BulkWait, Ty::Rel),
    ("cluster-barrier", Base::ClusterBarrier, Ty::Rel),
    ("MBINIT", Base::MbarInit, Ty::Set),
    ("FMBINIT", Base::MbarInitFence, Ty::Set),
    ("ATOM", Base::Atom, Ty::Set),
    ("NONPRIV", Base::NonPriv, Ty::Set),
    ("AV", Base::Av, Ty::Set),
    ("VIS", Base::Vis, Ty::Set),
    ("SEMAV", Base::SemAv, Ty::Set),
    ("SEMVIS", Base::SemVis, Ty::Set),
    ("AVDEVICE", Base::AvDevice, Ty::Set),
    ("VISDEVICE", Base::VisDevice, Ty::Set),
    ("CBAR", Base::Cbar, Ty::Set),
    ("SC0", Base::StorageClass(0), Ty::Set),
    ("SC1", Base::StorageClass(1), Ty::Set),
    ("SC2", Base::StorageClass(2), Ty::Set),
    ("SC3", Base::StorageClass(3), Ty::Set),
    ("SEMSC0", Base::Semantics(0), Ty::Set),
    ("SEMSC1", Base::Semantics(1), Ty::Set),
    ("SEMSC2", Base::Semantics(2), Ty::Set),
    ("SEMSC3", Base::Semantics(3), Ty::Set),
    ("SG", Base::VulkanScope(VulkanScope::Subgroup), Ty::Set),
    ("WG", Base::VulkanScope(VulkanScope::Workgroup), Ty::Set),
    ("QF", Base::VulkanScope(VulkanScope::QueueFamily), Ty::Set),
    ("DV", Base::VulkanScope(VulkanScope::Device), Ty::Set),
    ("WI", Base::WorkItem, Ty::Set),
    ("ALL", Base::AllSvm, Ty::Set),
    ("GLOBAL", Base::Global, Ty::Set),
    ("LOCAL", Base::Local, Ty::Set),
    ("NAL", Base::NonAtomicLoc, Ty::Set),
    ("sdv", Base::Sdv, Ty::Rel),
    ("ssg", Base::Ssg, Ty::Rel),
    ("swg", Base::Swg, Ty::Rel),
    ("sqf", Base::Sqf, Ty::Rel),
    ("ssw", Base::Ssw, Ty::Rel),
];

/// The choices by name.
pub const CHOICE_NAMES: &[(&str, Choice)] = &[
    ("rf", Choice::Rf),
    ("co", Choice::Co),
    ("fr", Choice::Fr),
    ("sync_fence", Choice::SyncFence),
    ("sync_barrier", Choice::SyncBarrier),
];

impl Base {
    /// Relations whose pairs are all of one location (or an event with itself).
    fn within_location(self) -> bool {
        matches!(self, Base::Id | Base::Loc | Base::PoLoc | Base::Rmw)
    }
}

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

/// Where `include` finds files: the built-in models first, then beside the including file.
pub trait Source {
    /// The text of `name` included from `from` (a path or a built-in name), and the name to
    /// report it under.
    fn include(&self, from: &str, name: &str) -> Option<(String, String)>;
}

/// Reads includes from the built-in models, then from the disk beside the including file.
pub struct Files;

impl Source for Files {
    fn include(&self, from: &str, name: &str) -> Option<(String, String)> {
        if let Some(text) = super::builtin_text(name) {
            return Some((text.to_string(), name.to_string()));
        }
        let dir = Path::new(from).parent().unwrap_or(Path::new("."));
        let path: PathBuf = dir.join(name);
        let text = crate::input::read_text(&path).ok()?;
        Some((text, path.display().to_string()))
    }
}

struct Compiler<'s> {
    source: &'s dyn Source,
    nodes: Vec<Node>,
    interned: HashMap<Op, usize>,
    groups: Vec<Group>,
    checks: Vec<Check>,
    /// Files being read (include cycles).
    reading: Vec<String>,
    /// The recursion depth of [`Compiler::expr`], through function bodies (at most
    /// [`MAX_HEIGHT`]).
    depth: usize,
    /// Expression nodes visited so far (at most [`MAX_INLINED`]).
    visited: usize,
}

/// Interns check names: the engine reports them as `&'static str`, and a model loaded twice
/// (or two models) reuse the same names.
fn intern(name: &str) -> &'static str {
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
    fn node(&mut self, op: Op, ty: Ty) -> usize {
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

    /// The node of an expression, with its functions' bodies inlined. Fails where the
    /// recursion through function bodies, the graph's height or the inlined size pass their
    /// bounds ([`MAX_HEIGHT`], [`MAX_INLINED`]).
    fn expr(&mut self, file: &str, env: &Scope, e: &syntax::Expr) -> Result<usize, CatError> {
        self.visited += 1;
        if self.visited > MAX_INLINED {
            let what = match &e.kind {
                ExprKind::Call(name, _) => format!(" (inlining `{name}`)"),
                _ => String::new(),
            };
            return Err(CatError::at(
                file,
                e.pos,
                format!("the model grows past {MAX_INLINED} expression nodes as its functions are inlined{what}: functions applying functions blow up exponentially"),
            ));
        }
        if self.depth >= MAX_HEIGHT {
            return Err(CatError::at(
                file,
                e.pos,
                format!(
                    "expressions nest more than {MAX_HEIGHT} deep through function applications"
                ),
            ));
        }
        self.depth += 1;
        let node = self.expr_inlined(file, env, e);
        self.depth -= 1;
        let node = node?;
        if self.nodes[node].height > MAX_HEIGHT {
            return Err(CatError::at(
                file,
                e.pos,
                format!("the model's operations nest more than {MAX_HEIGHT} deep through its definitions"),
            ));
        }
        Ok(node)
    }

    fn expr_inlined(
        &mut self,
        file: &str,
        env: &Scope,
        e: &syntax::Expr,
    ) -> Result<usize, CatError> {
        let err = |message: String| CatError::at(file, e.pos, message);
        match &e.kind {
            ExprKind::Zero => Ok(self.node(Op::Zero, Ty::Rel)),
            ExprKind::Name(name) => match env.get(name) {
                Some(Binding::Value(i)) => Ok(i),
                Some(Binding::Function(_)) => Err(err(format!(
                    "`{name}` is a function: apply it, `{name}(…)`"
                ))),
                None => Err(err(format!("unknown name `{name}`"))),
            },
            ExprKind::Call(name, args) => {
                let mut values = Vec::new();
                for a in args {
                    values.push(self.expr(file, env, a)?);
                }
                match (name.as_str(), env.get(name)) {
                    (_, Some(Binding::Function(f))) => {
                        if f.params.len() != values.len() {
                            return Err(err(format!(
                                "`{name}` takes {} argument(s), given {}",
                                f.params.len(),
                                values.len()
                            )));
                        }
                        let inner = Scope::of_function(env.names, &f, &values);
                        self.expr(&f.file, &inner, &f.body)
                    }
                    ("domain" | "range", _) => {
                        let [a] = values[..] else {
                            return Err(err(format!("`{name}` takes one relation")));
                        };
                        self.want(file, args[0].pos, a, Ty::Rel)?;
                        let op = if name == "domain" {
                            Op::Domain(a)
                        } else {
                            Op::Range(a)
                        };
                        Ok(self.node(op, Ty::Set))
                    }
                    (_, Some(Binding::Value(_))) => Err(err(format!("`{name}` is not a function"))),
                    (_, None) => Err(err(format!("unknown function `{name}`"))),
                }
            }
            ExprKind::Identity(a) => {
                let a_pos = a.pos;
                let a = self.expr(file, env, a)?;
                self.want(file, a_pos, a, Ty::Set)?;
                Ok(self.node(Op::Identity(a), Ty::Rel))
            }
            ExprKind::Unary(op, a) => {
                let a = self.expr(file, env, a)?;
                let ty = self.nodes[a].ty;
                if *op == UnOp::Complement {
                    return Ok(self.node(Op::Complement(a), ty));
                }
                self.want(file, e.pos, a, Ty::Rel)?;
                let op = match op {
                    UnOp::Inverse => Op::Inverse(a),
                    UnOp::Plus => Op::Plus(a),
                    UnOp::Star => Op::Star(a),
                    UnOp::Opt => Op::Opt(a),
                    UnOp::Complement => unreachable!("handled above"),
                };
                Ok(self.node(op, Ty::Rel))
            }
            ExprKind::Binary(op, a, b) => {
                let (a_pos, b_pos) = (a.pos, b.pos);
                let a = self.expr(file, env, a)?;
                let b = self.expr(file, env, b)?;
                match op {
                    BinOp::Seq => {
                        self.want(file, a_pos, a, Ty::Rel)?;
                        self.want(file, b_pos, b, Ty::Rel)?;
                        Ok(self.node(Op::Seq(a, b), Ty::Rel))
                    }
                    BinOp::Cross => {
                        self.want(file, a_pos, a, Ty::Set)?;
                        self.want(file, b_pos, b, Ty::Set)?;
                        Ok(self.node(Op::Cross(a, b), Ty::Rel))
                    }
                    _ => {
                        let ty = self.nodes[a].ty;
                        self.want(file, b_pos, b, ty)?;
                        let op = match op {
                            BinOp::Union => Op::Union(a, b),
                            BinOp::Inter => Op::Inter(a, b),
                            _ => Op::Diff(a, b),
                        };
                        Ok(self.node(op, ty))
                    }
                }
            }
        }
    }

    fn want(&self, file: &str, pos: Pos, node: usize, ty: Ty) -> Result<(), CatError> {
        let got = self.nodes[node].ty;
        if got == ty {
            return Ok(());
        }
        let name = |t: Ty| match t {
            Ty::Set => "a set of events",
            Ty::Rel => "a relation",
        };
        Err(CatError::at(
            file,
            pos,
            format!("expected {}, found {}", name(ty), name(got)),
        ))
    }

    /// Compiles one file's statements, binding its names in `env`; its title and options.
    fn file(
        &mut self,
        file: &str,
        text: &str,
        env: &mut Names,
    ) -> Result<(Option<String>, Vec<syntax::ModelOption>), CatError> {
        // Every error in this file gets its source line here (those of included files got
        // theirs from their own text).
        let with_line = |e: CatError| e.in_text(file, text);
        let parsed = syntax::parse(file, text).map_err(with_line)?;
        for stmt in &parsed.stmts {
            self.stmt(file, stmt, env).map_err(with_line)?;
        }
        Ok((parsed.title, parsed.options))
    }

    fn stmt(&mut self, file: &str, stmt: &Stmt, env: &mut Names) -> Result<(), CatError> {
        match stmt {
            Stmt::Include { pos, file: name } => {
                let Some((text, shown)) = self.source.include(file, name) else {
                    return Err(CatError::at(
                        file,
                        *pos,
                        format!("cannot include `{name}`: no such model or file"),
                    ));
                };
                if self.reading.contains(&shown) {
                    return Err(CatError::at(
                        file,
                        *pos,
                        format!("`{name}` includes itself"),
                    ));
                }
                self.reading.push(shown.clone());
                self.file(&shown, &text, env)?;
                self.reading.pop();
            }
            Stmt::Let {
                rec: false,
                bindings,
            } => {
                // Simultaneous: every body sees the names as they were before.
                let mut bound = Vec::new();
                for b in bindings {
                    let value = if b.function {
                        Binding::Function(Rc::new(Function {
                            params: b.params.clone(),
                            body: b.body.clone(),
                            defined: env.now(),
                            file: file.to_string(),
                        }))
                    } else {
                        Binding::Value(self.expr(file, &Scope::top(env), &b.body)?)
                    };
                    bound.push((&b.name, value));
                }
                for (name, value) in bound {
                    env.bind(name, value);
                }
            }
            Stmt::Let {
                rec: true,
                bindings,
            } => {
                if let Some(b) = bindings.iter().find(|b| b.function) {
                    return Err(CatError::at(
                        file,
                        b.pos,
                        "recursive functions are not supported; `let rec` binds relations"
                            .to_string(),
                    ));
                }
                let g = self.groups.len();
                self.groups.push(Group {
                    vars: Vec::new(),
                    bodies: Vec::new(),
                });
                for (k, b) in bindings.iter().enumerate() {
                    let v = self.node(Op::RecVar(g, k), Ty::Rel);
                    self.groups[g].vars.push(v);
                    env.bind(&b.name, Binding::Value(v));
                }
                for b in bindings {
                    let body = self.expr(file, &Scope::top(env), &b.body)?;
                    self.want(file, b.body.pos, body, Ty::Rel)?;
                    // The value of `let rec` is the least fixed point, reached by iterating the
                    // bodies from empty relations (herd7's semantics); that iteration ends, on
                    // finitely many pairs, when the bodies are monotone in the variables.
                    // `~` and the right of `\` are the only operations that are not.
                    if !self.nodes[body].rec_monotone {
                        return Err(CatError::at(
                            file,
                            b.body.pos,
                            format!(
                                "`let rec {}` is not monotone (a variable of its group under `~` or on the right of `\\`): its fixed-point iteration need not converge",
                                b.name
                            ),
                        ));
                    }
                    self.groups[g].bodies.push(body);
                }
                for (k, b) in bindings.iter().enumerate() {
                    let fix = self.node(Op::Fix(g, k), Ty::Rel);
                    env.bind(&b.name, Binding::Value(fix));
                }
            }
            Stmt::Check {
                pos,
                kind,
                negated,
                flag,
                expr,
                name,
            } => {
                let node = self.expr(file, &Scope::top(env), expr)?;
                if *kind != CheckKind::Empty {
                    self.want(file, expr.pos, node, Ty::Rel)?;
                }
                let name = match name {
                    Some(n) => intern(n),
                    None => intern(&format!(
                        "{}:{}:{}",
                        Path::new(file)
                            .file_name()
                            .map_or(file.into(), |f| f.to_string_lossy()),
                        pos.line,
                        pos.col
                    )),
                };
                self.checks.push(Check {
                    name,
                    kind: *kind,
                    negated: *negated,
                    flag: *flag,
                    node,
                    pos: *pos,
                });
            }
        }
        Ok(())
    }
}

/// Compiles the model `text` (reported as `file`), reading includes through `source`.
pub fn compile(file: &str, text: &str, source: &dyn Source) -> Result<Compiled, CatError> {
    let mut c = Compiler {
        source,
        nodes: Vec::new(),
        interned: HashMap::new(),
        groups: Vec::new(),
        checks: Vec::new(),
        reading: vec![file.to_string()],
        depth: 0,
        visited: 0,
    };
    let mut env = Names::default();
    for &(name, base, ty) in BASE_NAMES {
        let i = c.node(Op::Base(base), ty);
        env.bind(name, Binding::Value(i));
    }
    for &(name, choice) in CHOICE_NAMES {
        let i = c.node(Op::Choice(choice), Ty::Rel);
        env.bind(name, Binding::Value(i));
    }
    let (title, options) = c.file(file, text, &mut env)?;
    let bindings = env.values();
    Ok(Compiled {
        title,
        options,
        nodes: c.nodes,
        groups: c.groups,
        checks: c.checks,
        bindings,
    })
}
