//! The litmus program: the one data structure every part of scopecheck speaks.
//!
//! Parser and printer, axiomatic engine, operational runtime, GPU code generator and fuzzer all
//! read and write [`Program`]. Source positions ride along in [`Span`]s but never take part in
//! equality, so `parse(print(p)) == p` compares meaning, not layout.
//!
//! The IR imports only its leaves ([`span`], [`operand`], [`alu`], [`rmw`], the plain data of PTX's
//! asynchronous and warp instructions, [`async_op`] and [`warp_op`], and [`front`], what a front
//! end other than PTX's adds as plain data) and knows no dialect: the modules that parse, print
//! and lower a dialect (`async_ops`, `warp`, `parse`, `print`, and each other dialect's front
//! end beside them in `litmus`) import the IR, never the other way round.

pub mod alu;
pub mod async_op;
pub mod front;
pub mod operand;
pub mod rmw;
pub mod span;
pub mod warp_op;

pub use alu::{AluOp, Cmp};
pub use async_op::{AsyncOp, SharedOf};
pub use front::{Front, Groups, Qualifiers, Source, SourceData, ThreadRelations};
pub use operand::{LocId, Operand, Reg, ThreadId, Value};
pub use rmw::RmwOp;
pub use span::Span;
use warp_op::WarpPart;

use crate::scope::{Order, Placement, Scope};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The path through which an access reaches memory (PTX v7.5 proxies).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Proxy {
    /// `ld`/`st`/`atom`/`red`.
    Generic,
    /// `suld`/`sust`.
    Surface,
    /// `tld` (read only).
    Texture,
    /// `cold` (read only).
    Constant,
    /// Bulk copies (TMA) and other asynchronous agents.
    Async,
}

impl Proxy {
    /// The name used in alias declarations (`s @ surface aliases x`) and `fence.proxy.<name>`.
    pub fn name(self) -> &'static str {
        match self {
            Proxy::Generic => "generic",
            Proxy::Surface => "surface",
            Proxy::Texture => "texture",
            Proxy::Constant => "constant",
            Proxy::Async => "async",
        }
    }

    /// The proxy [`Proxy::name`] spells; `None` for any other word.
    pub fn from_name(name: &str) -> Option<Proxy> {
        Some(match name {
            "generic" => Proxy::Generic,
            "surface" => Proxy::Surface,
            "texture" => Proxy::Texture,
            "constant" => Proxy::Constant,
            "async" => Proxy::Async,
            _ => return None,
        })
    }
}

/// A named memory location. An alias (`s @ surface aliases x`) is a second virtual name for the
/// physical location of `of`, reached through `proxy`; it has no initial value of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The name the program uses.
    pub name: String,
    /// Plain (with its initial value) or an alias.
    pub kind: LocationKind,
    /// Where it is declared.
    pub span: Span,
    /// The CTA whose shared memory holds it (`x @ shared cta 1 = 0`); `None` for global memory
    /// (and for aliases, whose target decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared: Option<SharedOf>,
}

/// What a declared name stands for: a physical location or another name for one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LocationKind {
    /// A physical location with its initial value.
    Plain {
        /// The value the location holds before any thread runs (`x = 1` in the init block).
        init: Value,
    },
    /// Another virtual address of location `of`, reached through `proxy`. `of` is the location
    /// named in the declaration and may itself be an alias (`s2 @ surface aliases y` with
    /// `y @ generic aliases x`); [`Program::physical`] follows the chain to the plain location.
    Alias {
        /// The proxy accesses through this name use.
        proxy: Proxy,
        /// The location named in the declaration (itself possibly an alias).
        of: LocId,
    },
}

/// A fence instruction (PTX ISA, *membar/fence*): an ordering fence of a scope (`.sys` when the
/// instruction names none), or a proxy fence.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Fence {
    /// `fence.sc.<scope>`: acq_rel plus a place in the total order of SC fences.
    Sc(Scope),
    /// `fence.acq_rel.<scope>`.
    AcqRel(Scope),
    /// `fence.proxy.<kind>`: orders accesses of the generic proxy with those of `kind`.
    Proxy(ProxyFence),
}

/// The kind of a `fence.proxy.<kind>` (PTX ISA, *membar/fence*: "a bi-directional proxy
/// ordering between the generic proxy and the proxy specified by proxykind").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProxyFence {
    /// `fence.proxy.alias`: orders generic accesses through different virtual aliases.
    Alias,
    /// `fence.proxy.surface`: orders generic accesses with surface ones (`suld`/`sust`).
    Surface,
    /// `fence.proxy.texture`: orders generic accesses with texture reads (`tld`).
    Texture,
    /// `fence.proxy.constant`: orders generic accesses with constant reads (`cold`).
    Constant,
    /// `fence.proxy.async`: makes generic writes visible to the async proxy and back.
    Async,
    /// `fence.proxy.async.global`: `fence.proxy.async` for global memory only.
    AsyncGlobal,
    /// `fence.proxy.async.shared::cta`: for the executing CTA's shared memory only.
    AsyncSharedCta,
    /// `fence.proxy.async.shared::cluster`: for the shared memory of the executing cluster.
    AsyncSharedCluster,
}

impl ProxyFence {
    /// The kind as written after `fence.proxy.` (`alias`, `async.shared::cta`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ProxyFence::Alias => "alias",
            ProxyFence::Surface => "surface",
            ProxyFence::Texture => "texture",
            ProxyFence::Constant => "constant",
            ProxyFence::Async => "async",
            ProxyFence::AsyncGlobal => "async.global",
            ProxyFence::AsyncSharedCta => "async.shared::cta",
            ProxyFence::AsyncSharedCluster => "async.shared::cluster",
        }
    }

    /// Whether it orders the generic proxy with the async proxy (any `fence.proxy.async*`).
    pub fn is_async(self) -> bool {
        matches!(
            self,
            ProxyFence::Async
                | ProxyFence::AsyncGlobal
                | ProxyFence::AsyncSharedCta
                | ProxyFence::AsyncSharedCluster
        )
    }

    /// The kind [`ProxyFence::name`] spells; `None` for any other text.
    pub fn from_name(name: &str) -> Option<ProxyFence> {
        Some(match name {
            "alias" => ProxyFence::Alias,
            "surface" => ProxyFence::Surface,
            "texture" => ProxyFence::Texture,
            "constant" => ProxyFence::Constant,
            "async" => ProxyFence::Async,
            "async.global" => ProxyFence::AsyncGlobal,
            "async.shared::cta" => ProxyFence::AsyncSharedCta,
            "async.shared::cluster" => ProxyFence::AsyncSharedCluster,
            _ => return None,
        })
    }
}

/// What a CTA barrier instruction does at the barrier (PTX ISA, *bar/barrier*).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BarrierOp {
    /// `bar.cta.sync`: arrive and wait.
    Sync,
    /// `bar.cta.arrive`: arrive without waiting.
    Arrive,
}

/// One memory access's addressing: the location named and the proxy used to reach it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Access {
    /// The proxy the access goes through (generic, surface, texture, constant, async).
    pub proxy: Proxy,
    /// Its memory order: `weak`, `relaxed`, `acquire` (reads), `release` (writes), `acq_rel`
    /// (read-modify-writes).
    pub order: Order,
    /// `None` only for weak accesses, which carry no scope.
    pub scope: Option<Scope>,
}

/// One instruction of a litmus thread, as the PTX litmus dialect writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Instr {
    /// `ld`, `suld`, `tld`, `cold`: `dst := [loc]`.
    Load {
        /// Proxy, order and scope of the read.
        access: Access,
        /// The register that receives the value.
        dst: Reg,
        /// The location read.
        loc: LocId,
    },
    /// `st`, `sust`: `[loc] := value`.
    Store {
        /// Proxy, order and scope of the write.
        access: Access,
        /// The location written.
        loc: LocId,
        /// The value stored.
        value: Operand,
    },
    /// `atom.<order>.<scope>.<op> dst, loc, operand[, new]`: returns the old value.
    Atom {
        /// Proxy, order and scope of the read-modify-write.
        access: Access,
        /// The operation that computes the new value.
        op: RmwOp,
        /// The register that receives the old value.
        dst: Reg,
        /// The location.
        loc: LocId,
        /// The operand `b` (for a CAS: the expected value).
        operand: Operand,
        /// The value a CAS writes when it succeeds.
        new: Option<Operand>,
    },
    /// `red.<order>.<scope>.<op> loc, operand`: an RMW with no result.
    Red {
        /// Proxy, order and scope of the reduction.
        access: Access,
        /// The operation (never `exch` or `cas`: see [`RmwOp::reduces`]).
        op: RmwOp,
        /// The location.
        loc: LocId,
        /// The operand `b`.
        operand: Operand,
    },
    /// `fence.sc`, `fence.acq_rel`, `fence.proxy.<kind>`.
    Fence(Fence),
    /// `bar.cta.sync`/`bar.cta.arrive`. `id` names the barrier (threads meet only at equal ids);
    /// `quorum`, when given, is the number of threads that complete one barrier instance.
    Barrier {
        /// Arrive and wait (`sync`), or arrive only.
        op: BarrierOp,
        /// The barrier's name (one operand in PTX; more for the engines' internal barriers,
        /// see [`WARP_BARRIER`]).
        id: Vec<Operand>,
        /// The number of threads that complete one instance; `None`: every thread of the CTA.
        quorum: Option<Operand>,
    },
    /// `cp.async.ca.shared.global dst, src, 4` (Ampere): an asynchronous copy of `src` into
    /// `dst` by the executing thread, a weak generic read of `src` and a weak write of `dst`
    /// that joins the thread's open `cp.async` group. The copy is ordered after the thread's
    /// earlier operations and before those that follow a [`Instr::CpAsyncWait`] that waits for
    /// its group, and with nothing in between (PTX ISA, *cp.async*: "There is no ordering
    /// guarantee between two cp.async operations if they are not explicitly synchronized using
    /// cp.async.wait_all or cp.async.wait_group or mbarrier instructions").
    CpAsync {
        /// The shared-memory location written.
        dst: LocId,
        /// The global location read.
        src: LocId,
    },
    /// `cp.async.commit_group`: the copies issued since the last commit become one group.
    CpAsyncCommit,
    /// `cp.async.wait_group n`: every committed group but the `n` most recent is complete, and
    /// its copies are ordered before what follows; `all` is `cp.async.wait_all`, which PTX
    /// defines as `cp.async.commit_group; cp.async.wait_group 0` (`n` is then 0).
    CpAsyncWait {
        /// How many of the most recent committed groups may stay pending.
        n: u32,
        /// Written `cp.async.wait_all` (which also commits the open group).
        all: bool,
    },
    /// `bar.warp.sync membermask`: a barrier among the lanes of the executing thread's warp
    /// named by `mask` (bit `i`: lane `i`, see [`Program::lane`]), which also orders memory
    /// among them (PTX ISA, *bar.warp.sync*: it "also guarantee\[s\] memory ordering among threads
    /// participating in barrier. Thus, threads within warp that wish to communicate via memory
    /// can store to memory, execute bar.warp.sync, and then safely read values stored by other
    /// threads in warp"). The executing lane is in the mask, and every lane in it must arrive:
    /// one that never does leaves the others waiting.
    WarpSync {
        /// The `membermask` operand: bit `i` names lane `i`.
        mask: u32,
    },
    /// `ld r, imm` (Dartagnan's register move) or `mov r, src`.
    Mov {
        /// The register written.
        dst: Reg,
        /// The value it receives.
        src: Operand,
    },
    /// `add`, `sub`, `mul`, ... `dst, a, b`: `dst := a op b` ([`AluOp::apply`]).
    Alu {
        /// The operation.
        op: AluOp,
        /// The register written.
        dst: Reg,
        /// The left operand.
        a: Operand,
        /// The right operand.
        b: Operand,
    },
    /// `setp.<cmp> dst, a, b`: `dst := 1` when `a cmp b` holds, else `0` (a comparison as a
    /// value, as C's relational and equality operators yield an `int` 1 or 0).
    Setp {
        /// The comparison.
        cmp: Cmp,
        /// The register written.
        dst: Reg,
        /// The left operand.
        a: Operand,
        /// The right operand.
        b: Operand,
    },
    /// An mbarrier, bulk-copy or cluster instruction (Hopper; see [`AsyncOp`]).
    Async(AsyncOp),
    /// `L:`: a branch target; it does nothing when executed.
    Label(String),
    /// `beq a, b, L`, `bne`, `blt`, `ble`, `bgt`, `bge`, or `goto L` when `cond` is `None`.
    Branch {
        /// The comparison and its operands; the branch is taken when it holds.
        cond: Option<(Cmp, Operand, Operand)>,
        /// The label jumped to.
        target: String,
    },
}

/// The first barrier id of a `bar.warp.sync`: the engines meet a `bar.warp.sync mask` as the
/// CTA barrier with ids `[WARP_BARRIER, mask]` and a quorum of the mask's lanes, so it meets
/// exactly the lanes that name the same mask (and no `bar.cta.sync`, whose ids PTX keeps in
/// `0..16`).
pub const WARP_BARRIER: Value = -0x5741_5250;

impl Instr {
    /// The ids and quorum of the CTA barrier a `bar.warp.sync mask` meets as (see
    /// [`WARP_BARRIER`]).
    ///
    /// ```
    /// use scopecheck_model::litmus::{Instr, WARP_BARRIER};
    /// // Lanes 0, 1 and 3: three lanes complete each instance.
    /// assert_eq!(Instr::warp_barrier(0b1011), ([WARP_BARRIER, 0b1011], 3));
    /// ```
    pub fn warp_barrier(mask: u32) -> ([Value; 2], Value) {
        (
            [WARP_BARRIER, Value::from(mask)],
            Value::from(mask.count_ones()),
        )
    }

    /// The location an instruction accesses, if any (for `cp.async`, the one it writes).
    pub fn location(&self) -> Option<LocId> {
        match self {
            Instr::Load { loc, .. }
            | Instr::Store { loc, .. }
            | Instr::Atom { loc, .. }
            | Instr::Red { loc, .. }
            | Instr::CpAsync { dst: loc, .. } => Some(*loc),
            _ => None,
        }
    }

    /// The value operands an instruction reads (immediates and registers), in operand order.
    ///
    /// ```
    /// use scopecheck_model::litmus::{AluOp, Instr, Operand, Reg};
    /// let add = Instr::Alu {
    ///     op: AluOp::Add,
    ///     dst: Reg("r1".into()),
    ///     a: Operand::Reg(Reg("r0".into())),
    ///     b: Operand::Imm(1),
    /// };
    /// assert_eq!(add.operands(), [&Operand::Reg(Reg("r0".into())), &Operand::Imm(1)]);
    /// assert_eq!(add.read_regs(), [&Reg("r0".into())]);
    /// assert_eq!(add.written_reg(), Some(&Reg("r1".into())));
    /// assert_eq!(add.regs(), [&Reg("r1".into()), &Reg("r0".into())]);
    /// ```
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Instr::Store { value, .. } => vec![value],
            Instr::Atom { operand, new, .. } => {
                std::iter::once(operand).chain(new.as_ref()).collect()
            }
            Instr::Red { operand, .. } => vec![operand],
            Instr::Barrier { id, quorum, .. } => id.iter().chain(quorum.as_ref()).collect(),
            Instr::Mov { src, .. } => vec![src],
            Instr::Alu { a, b, .. } | Instr::Setp { a, b, .. } => vec![a, b],
            Instr::Async(op) => op.operands(),
            Instr::Branch {
                cond: Some((_, a, b)),
                ..
            } => vec![a, b],
            Instr::Load { .. }
            | Instr::Fence(_)
            | Instr::CpAsync { .. }
            | Instr::CpAsyncCommit
            | Instr::CpAsyncWait { .. }
            | Instr::WarpSync { .. }
            | Instr::Label(_)
            | Instr::Branch { cond: None, .. } => vec![],
        }
    }

    /// The registers an instruction reads: its register operands ([`Instr::operands`]).
    pub fn read_regs(&self) -> Vec<&Reg> {
        self.operands()
            .into_iter()
            .filter_map(|o| match o {
                Operand::Reg(r) => Some(r),
                Operand::Imm(_) => None,
            })
            .collect()
    }

    /// Every register an instruction names: the one it writes ([`Instr::written_reg`]), then
    /// those it reads ([`Instr::read_regs`]).
    pub fn regs(&self) -> Vec<&Reg> {
        let mut regs: Vec<&Reg> = self.written_reg().into_iter().collect();
        regs.extend(self.read_regs());
        regs
    }

    /// The register an instruction writes, if any.
    pub fn written_reg(&self) -> Option<&Reg> {
        match self {
            Instr::Load { dst, .. }
            | Instr::Atom { dst, .. }
            | Instr::Mov { dst, .. }
            | Instr::Alu { dst, .. }
            | Instr::Setp { dst, .. } => Some(dst),
            Instr::Async(op) => op.written_reg(),
            _ => None,
        }
    }
}

/// An instruction and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stmt {
    /// The instruction.
    pub instr: Instr,
    /// Where it was written.
    pub span: Span,
    /// Tile IR token order (`[t0, t1 -> t2]` after the instruction); `None` in PTX tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<TokenOrder>,
    /// What the instruction means in its front end beyond the IR's instruction (the order and
    /// base sets of another dialect's operation); `None` in PTX and Tile IR tests, and for the
    /// register moves and branches a front end's statement lowers to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualifiers: Option<Qualifiers>,
    /// The `shfl.sync`/`vote.sync` this statement is part of (the `warp` module lowers an
    /// exchange into statements); `None` for every other statement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp: Option<WarpPart>,
}

/// Tile IR token order of one statement: it waits for the operations that produced the tokens
/// in `after`, and produces the token `produces` for later statements to wait for. In Tile IR
/// only token order (not program order) orders the memory operations of one tile block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenOrder {
    /// The tokens waited for (`t0, t1` in `[t0, t1 -> t2]`).
    pub after: Vec<String>,
    /// The token produced (`t2`), if any.
    pub produces: Option<String>,
}

/// One litmus thread: where it runs and its instructions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    /// Its place in the hierarchy (`P0@cta 0,gpu 0`): which scopes include which threads.
    pub placement: Placement,
    /// Its statements, in program order.
    pub body: Vec<Stmt>,
    /// Where its column header (`P0@...`) was written.
    pub span: Span,
}

impl Thread {
    /// Each label of the body with the index of its statement (what a branch jumps to).
    pub fn labels(&self) -> std::collections::HashMap<&str, usize> {
        self.body
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match &s.instr {
                Instr::Label(l) => Some((l.as_str(), i)),
                _ => None,
            })
            .collect()
    }
}

/// The left- or right-hand side of a comparison in the final condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Term {
    /// `P1:r0`: a thread's final register value.
    Reg(ThreadId, Reg),
    /// `x`: a location's final value (in coherence order).
    Loc(LocId),
    /// An integer constant.
    Const(Value),
}

/// A proposition over a final state (herd's condition language).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Prop {
    /// `true`: holds in every state.
    True,
    /// `a == b`, `a != b`, `a < b`, ... (signed, [`Cmp::holds`]).
    Cmp(Cmp, Term, Term),
    /// `~p`.
    Not(Box<Prop>),
    /// `p /\ q`.
    And(Box<Prop>, Box<Prop>),
    /// `p \/ q`.
    Or(Box<Prop>, Box<Prop>),
}

/// How the final condition's proposition is judged over the allowed executions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Quantifier {
    /// Some allowed execution satisfies the proposition.
    Exists,
    /// No allowed execution satisfies it.
    NotExists,
    /// Every allowed execution satisfies it.
    Forall,
}

impl Quantifier {
    /// The keyword that writes it (`exists`, `~exists`, `forall`).
    pub fn keyword(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
    }
}

/// The final condition: `exists (P1:r0 == 1 /\ x == 2)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// `exists`, `~exists` or `forall`.
    pub quantifier: Quantifier,
    /// The proposition judged on each final state.
    pub prop: Prop,
    /// Where the condition was written.
    pub span: Span,
}

/// Register initialisation `P1:r0=5;` (registers not listed start at 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegInit {
    /// The thread whose register it is.
    pub thread: ThreadId,
    /// The register.
    pub reg: Reg,
    /// Its initial value.
    pub value: Value,
}

/// A whole litmus test: header, declared locations and register values, threads, and the final
/// condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// The test name from the `PTX NAME` header.
    pub name: String,
    /// Quoted comment lines after the header, without quotes.
    pub comments: Vec<String>,
    /// Every declared location (and alias), in declaration order: [`LocId`] indexes it.
    pub locations: Vec<Location>,
    /// The registers given initial values (the others start at 0).
    pub reg_init: Vec<RegInit>,
    /// The threads, `P0` first: [`ThreadId`] indexes it.
    pub threads: Vec<Thread>,
    /// herd's `locations [x; P1:r0;]`: locations and registers shown in every final state
    /// beside those the condition names (herd's log prints only those).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<Term>,
    /// herd's `filter PROP`: only executions whose final state satisfies it are considered,
    /// before the condition is checked; `None` keeps every execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Prop>,
    /// The final condition.
    pub condition: Condition,
    /// The front end the test was written in when not PTX's (named by the header's first
    /// word), with what it keeps of the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front: Option<Front>,
    /// The front end's hierarchy of thread groups (subgroups, workgroups, ...); `None` in PTX
    /// tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Groups>,
    /// The relations between threads the test declares (`ssw` pairs), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub relations: ThreadRelations,
}

impl Program {
    /// Every term the final condition and the filter compare, in no particular order.
    pub fn condition_terms(&self) -> Vec<&Term> {
        let mut terms = Vec::new();
        // An explicit stack: conditions may nest deeply.
        let mut stack = vec![&self.condition.prop];
        stack.extend(&self.filter);
        while let Some(prop) = stack.pop() {
            match prop {
                Prop::True => {}
                Prop::Cmp(_, a, b) => terms.extend([a, b]),
                Prop::Not(q) => stack.push(q),
                Prop::And(a, b) | Prop::Or(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
        terms
    }

    /// The name of the dialect the test was written in, as its header writes it (`PTX` for
    /// PTX and Tile IR tests).
    pub fn dialect(&self) -> &str {
        self.front.as_ref().map_or("PTX", |f| f.dialect.as_str())
    }

    /// Whether a thread uses `cp.async` (a copy or a group instruction).
    pub fn uses_cp_async(&self) -> bool {
        self.threads.iter().flat_map(|t| &t.body).any(|s| {
            matches!(
                s.instr,
                Instr::CpAsync { .. } | Instr::CpAsyncCommit | Instr::CpAsyncWait { .. }
            )
        })
    }

    /// The lane of thread `t` in its warp: litmus threads of one CTA are that CTA's threads
    /// `0, 1, ...` in the order the program lists them, so they form its first warp and thread
    /// `t` is lane `i` when `i` threads of its CTA come before it. (CUDA C++ Programming Guide,
    /// *SIMT Architecture*: "The way a block is partitioned into warps is always the same; each
    /// warp contains threads of consecutive, increasing thread IDs with the first warp
    /// containing thread 0.") A CTA has at most 32 litmus threads, one warp's worth, when a
    /// thread uses a warp-level instruction.
    ///
    /// ```
    /// let src = "PTX lanes\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 0,gpu 0 ;\n \
    ///            bar.warp.sync 0x3 | ld.weak r0, x | bar.warp.sync 0x3 ;\nexists (P1:r0 == 0)\n";
    /// let p = scopecheck_model::litmus::parse(src, "lanes.litmus").unwrap();
    /// // P0 and P2 are CTA 0's threads 0 and 1: lanes 0 and 1 of its warp.
    /// assert_eq!((p.lane(0), p.lane(1), p.lane(2)), (0, 0, 1));
    /// ```
    pub fn lane(&self, t: ThreadId) -> u32 {
        let at = |u: &Thread| (u.placement.gpu, u.placement.cta);
        let own = at(&self.threads[t]);
        self.threads[..t].iter().filter(|u| at(u) == own).count() as u32
    }

    /// Whether a thread uses a warp-level instruction (`bar.warp.sync`, `shfl.sync`,
    /// `vote.sync`).
    pub fn uses_warps(&self) -> bool {
        self.threads
            .iter()
            .flat_map(|t| &t.body)
            .any(|s| matches!(s.instr, Instr::WarpSync { .. }) || s.warp.is_some())
    }

    /// The location (or alias) declared as `name`; `None` when none is.
    pub fn location_named(&self, name: &str) -> Option<LocId> {
        self.locations.iter().position(|l| l.name == name)
    }

    /// The physical location behind a (possibly aliased) location.
    pub fn physical(&self, mut loc: LocId) -> LocId {
        // Bounded walk: a malformed chain cannot loop forever.
        for _ in 0..=self.locations.len() {
            match self.locations[loc].kind {
                LocationKind::Plain { .. } => return loc,
                LocationKind::Alias { of, .. } => loc = of,
            }
        }
        loc
    }

    /// The initial value of a location (an alias reads its target's).
    pub fn initial_value(&self, loc: LocId) -> Value {
        match self.locations[self.physical(loc)].kind {
            LocationKind::Plain { init } => init,
            LocationKind::Alias { .. } => unreachable!("aliases point at plain locations"),
        }
    }

    /// The initial value of a register of a thread.
    pub fn initial_reg(&self, thread: ThreadId, reg: &Reg) -> Value {
        self.reg_init
            .iter()
            .find(|i| i.thread == thread && &i.reg == reg)
            .map_or(0, |i| i.value)
    }
}
