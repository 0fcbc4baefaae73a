//! OpenCL's vocabulary in herd's OpenCL C litmus dialect (as Dat3M reads it): kernels placed by
//! work-group and device, memory orders and memory scopes of the OpenCL C atomics, global and
//! local memory, and `atomic_work_item_fence` with its flags (OpenCL 2.0, §3.3 "Memory Model"
//! of the API specification and §6.13.11 "Atomic Functions" of the C specification).
//!
//! ```text
//! OPENCL MP
//! { [x] = 0; [y] = 0; }
//! P0@wg 0, dev 0 (global int* x, global atomic_int* y) {
//!   *x = 1;
//!   atomic_store_explicit(y, 1, memory_order_release, memory_scope_device);
//! }
//! P1@wg 1, dev 0 (global int* x, global atomic_int* y) {
//!   int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_device);
//!   int r1 = -1;
//!   if (r0 == 1) { r1 = *x; }
//! }
//! exists (1:r0=1 /\ 1:r1=0)
//! ```
//!
//! A test keeps its C text as a small syntax tree ([`OpenClTest`]): the printer prints it back,
//! and the parser lowers it to the IR every engine reads (`parse.rs`'s `opencl` module), each
//! statement annotated with an [`OpenClOp`] saying what it is in OpenCL.

use super::ir::{LocId, Reg, RmwOp, Span, Value};
use crate::scope::{Order, Scope};
use serde::{Deserialize, Serialize};
use std::fmt::{self, Write};

/// OpenCL's memory scopes, narrowest first (`memory_scope_work_item` … `_all_svm_devices`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum OpenClScope {
    WorkItem,
    WorkGroup,
    Device,
    AllSvmDevices,
}

impl OpenClScope {
    pub const ALL: [OpenClScope; 4] = [
        OpenClScope::WorkItem,
        OpenClScope::WorkGroup,
        OpenClScope::Device,
        OpenClScope::AllSvmDevices,
    ];

    /// The C enumerator (`memory_scope_work_group`, ...).
    pub fn name(self) -> &'static str {
        match self {
            OpenClScope::WorkItem => "memory_scope_work_item",
            OpenClScope::WorkGroup => "memory_scope_work_group",
            OpenClScope::Device => "memory_scope_device",
            OpenClScope::AllSvmDevices => "memory_scope_all_svm_devices",
        }
    }

    pub fn from_name(name: &str) -> Option<OpenClScope> {
        OpenClScope::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The PTX scope recorded in the IR's access for consumers that know only PTX scopes: a
    /// work-group is a CTA, a device a GPU, all SVM devices the system (a work-item scope,
    /// which only fences have, is recorded as the CTA holding the work-item).
    pub fn ptx_scope(self) -> Scope {
        match self {
            OpenClScope::WorkItem | OpenClScope::WorkGroup => Scope::Cta,
            OpenClScope::Device => Scope::Gpu,
            OpenClScope::AllSvmDevices => Scope::Sys,
        }
    }
}

/// The C enumerator of a memory order (`memory_order_relaxed`, ...); `None` for `Weak`.
pub fn order_name(o: Order) -> Option<&'static str> {
    Some(match o {
        Order::Weak => return None,
        Order::Relaxed => "memory_order_relaxed",
        Order::Acquire => "memory_order_acquire",
        Order::Release => "memory_order_release",
        Order::AcqRel => "memory_order_acq_rel",
        Order::Sc => "memory_order_seq_cst",
    })
}

/// The memory order a C enumerator names.
pub fn order_from_name(name: &str) -> Option<Order> {
    [
        Order::Relaxed,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
        Order::Sc,
    ]
    .into_iter()
    .find(|o| order_name(*o) == Some(name))
}

/// OpenCL's named address spaces a kernel argument points into.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Region {
    /// `global`: visible to every work-item of every device.
    Global,
    /// `local`: shared by the work-items of one work-group.
    Local,
}

/// What one lowered statement means in OpenCL.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OpenClOp {
    /// A fence (`atomic_work_item_fence`) rather than an access.
    pub fence: bool,
    /// An atomic access (through an `atomic_*` function on an atomic object).
    pub atomic: bool,
    /// The memory order; `Weak` for a non-atomic access. For a compare-exchange, the order on
    /// success.
    pub order: Order,
    /// A compare-exchange's order on failure (its read alone happens then).
    pub fail_order: Option<Order>,
    /// The memory scope of an atomic access or fence.
    pub scope: Option<OpenClScope>,
    /// Whether the operation concerns global memory (an access to it, or a fence whose flags
    /// hold `CLK_GLOBAL_MEM_FENCE`), and local memory (`CLK_LOCAL_MEM_FENCE`).
    pub global: bool,
    pub local: bool,
}

impl OpenClOp {
    /// The order an event of this operation has: a compare-exchange that failed read with its
    /// failure order.
    pub fn event_order(&self, failed_cas: bool) -> Order {
        match (failed_cas, self.fail_order) {
            (true, Some(o)) => o,
            _ => self.order,
        }
    }
}

/// What makes a program an OpenCL test: each kernel's parameters and C body, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenClTest {
    pub threads: Vec<Kernel>,
}

/// One work-item's kernel: its parameters and statements.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    pub params: Vec<Param>,
    pub body: Vec<Located>,
}

/// A statement and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    pub stmt: CStmt,
    pub span: Span,
}

/// A kernel parameter: `volatile global atomic_int* x`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    pub loc: LocId,
    /// `None`: no address space named (the generic one; the test's locations are global).
    pub region: Option<Region>,
    pub atomic: bool,
    pub volatile: bool,
}

impl Param {
    /// The memory region the parameter's accesses touch.
    pub fn memory(&self) -> Region {
        self.region.unwrap_or(Region::Global)
    }
}

/// A statement of a kernel body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CStmt {
    /// `int r;` or `int r = e;`.
    Decl(Reg, Option<CExpr>),
    /// `r = e;`.
    Assign(Reg, CExpr),
    /// `*x = e;` (a non-atomic store).
    Store(LocId, CExpr),
    /// A call whose result is dropped (`atomic_store_explicit(...);`, a fence, ...).
    Call(Call),
    /// `if (cond) { ... } else { ... }`.
    If(Cond, Vec<Located>, Vec<Located>),
}

/// `a`, `a == b` or `a != b`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cond {
    pub left: CExpr,
    pub cmp: Option<(super::ir::Cmp, CExpr)>,
}

/// An expression: a constant, a register, a non-atomic load `*x`, a call, or a sum of those.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CExpr {
    Int(Value),
    Reg(Reg),
    Deref(LocId),
    Call(Box<Call>),
    /// `a + b`.
    Add(Box<CExpr>, Box<CExpr>),
    /// `a - k` for a constant `k`.
    Sub(Box<CExpr>, Value),
}

/// A call of an OpenCL C atomic function. `explicit` is the `_explicit` form (orders and
/// scope given; the scope may be left out); the plain form is `memory_order_seq_cst` and
/// `memory_scope_device` (OpenCL C, §6.13.11.1: "The non-explicit versions ... use
/// memory_order_seq_cst ... memory_scope_device").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Call {
    Load {
        loc: LocId,
        mode: Mode,
    },
    Store {
        loc: LocId,
        value: CExpr,
        mode: Mode,
    },
    /// `atomic_fetch_<op>[_explicit]` and `atomic_exchange[_explicit]`.
    Fetch {
        op: RmwOp,
        loc: LocId,
        value: CExpr,
        mode: Mode,
    },
    /// `atomic_compare_exchange_strong[_explicit](obj, expected, desired, ...)`: `expected`
    /// is a location (a pointer argument) that receives the value read on failure.
    CompareExchange {
        loc: LocId,
        expected: LocId,
        desired: CExpr,
        mode: Mode,
        fail: Option<Order>,
    },
    /// `atomic_work_item_fence(flags, order, scope)`.
    Fence {
        global: bool,
        local: bool,
        order: Order,
        scope: OpenClScope,
    },
}

/// How an atomic function was called: plain, or explicit with its order and optional scope.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    Plain,
    Explicit(Order, Option<OpenClScope>),
}

impl Mode {
    pub fn order(self) -> Order {
        match self {
            Mode::Plain => Order::Sc,
            Mode::Explicit(o, _) => o,
        }
    }

    pub fn scope(self) -> OpenClScope {
        match self {
            Mode::Explicit(_, Some(s)) => s,
            _ => OpenClScope::Device,
        }
    }
}

/// The names of the `atomic_fetch_<op>` functions' operations.
pub const FETCH_OPS: [(&str, RmwOp); 6] = [
    ("add", RmwOp::Add),
    ("sub", RmwOp::Sub),
    ("or", RmwOp::Or),
    ("xor", RmwOp::Xor),
    ("and", RmwOp::And),
    ("min", RmwOp::Min),
];

/// Prints an OpenCL test's kernels (`P0@wg 0, dev 0 (params) { body }`), naming locations
/// with `name`.
pub fn print_kernels(
    out: &mut String,
    test: &OpenClTest,
    placements: &[(u32, u32)],
    name: &dyn Fn(LocId) -> String,
) {
    for (t, k) in test.threads.iter().enumerate() {
        let params: Vec<String> = k.params.iter().map(|p| param(p, name)).collect();
        let (wg, dev) = placements[t];
        writeln!(out, "P{t}@wg {wg}, dev {dev} ({}) {{", params.join(", ")).unwrap();
        block(out, &k.body, 1, name);
        out.push_str("}\n\n");
    }
}

fn param(p: &Param, name: &dyn Fn(LocId) -> String) -> String {
    let mut s = String::new();
    if p.volatile {
        s.push_str("volatile ");
    }
    match p.region {
        Some(Region::Global) => s.push_str("global "),
        Some(Region::Local) => s.push_str("local "),
        None => {}
    }
    s.push_str(if p.atomic { "atomic_int* " } else { "int* " });
    s.push_str(&name(p.loc));
    s
}

fn block(out: &mut String, body: &[Located], depth: usize, name: &dyn Fn(LocId) -> String) {
    let pad = "  ".repeat(depth);
    for s in body {
        match &s.stmt {
            CStmt::Decl(r, None) => writeln!(out, "{pad}int {r};").unwrap(),
            CStmt::Decl(r, Some(e)) => writeln!(out, "{pad}int {r} = {};", expr(e, name)).unwrap(),
            CStmt::Assign(r, e) => writeln!(out, "{pad}{r} = {};", expr(e, name)).unwrap(),
            CStmt::Store(l, e) => writeln!(out, "{pad}*{} = {};", name(*l), expr(e, name)).unwrap(),
            CStmt::Call(c) => writeln!(out, "{pad}{};", call(c, name)).unwrap(),
            CStmt::If(c, then, other) => {
                let left = expr(&c.left, name);
                let cond = match &c.cmp {
                    None => left,
                    Some((super::ir::Cmp::Eq, r)) => format!("{left} == {}", expr(r, name)),
                    Some((super::ir::Cmp::Ne, r)) => format!("{left} != {}", expr(r, name)),
                };
                writeln!(out, "{pad}if ({cond}) {{").unwrap();
                block(out, then, depth + 1, name);
                if other.is_empty() {
                    writeln!(out, "{pad}}}").unwrap();
                } else {
                    writeln!(out, "{pad}}} else {{").unwrap();
                    block(out, other, depth + 1, name);
                    writeln!(out, "{pad}}}").unwrap();
                }
            }
        }
    }
}

fn expr(e: &CExpr, name: &dyn Fn(LocId) -> String) -> String {
    match e {
        CExpr::Int(v) => v.to_string(),
        CExpr::Reg(r) => r.to_string(),
        CExpr::Deref(l) => format!("*{}", name(*l)),
        CExpr::Call(c) => call(c, name),
        CExpr::Add(a, b) => format!("{} + {}", expr(a, name), expr(b, name)),
        CExpr::Sub(a, k) => format!("{} - {k}", expr(a, name)),
    }
}

fn call(c: &Call, name: &dyn Fn(LocId) -> String) -> String {
    // `_explicit` calls end with their orders and scope.
    let tail = |mode: Mode, fail: Option<Order>| match mode {
        Mode::Plain => String::new(),
        Mode::Explicit(o, s) => {
            let mut t = format!(", {}", order_name(o).expect("atomic order"));
            if let Some(f) = fail {
                write!(t, ", {}", order_name(f).expect("atomic order")).unwrap();
            }
            if let Some(s) = s {
                write!(t, ", {}", s.name()).unwrap();
            }
            t
        }
    };
    let explicit = |mode: Mode| match mode {
        Mode::Plain => "",
        Mode::Explicit(..) => "_explicit",
    };
    match c {
        Call::Load { loc, mode } => {
            format!(
                "atomic_load{}({}{})",
                explicit(*mode),
                name(*loc),
                tail(*mode, None)
            )
        }
        Call::Store { loc, value, mode } => format!(
            "atomic_store{}({}, {}{})",
            explicit(*mode),
            name(*loc),
            expr(value, name),
            tail(*mode, None)
        ),
        Call::Fetch {
            op,
            loc,
            value,
            mode,
        } => {
            let f = match op {
                RmwOp::Exch => "atomic_exchange".to_string(),
                op => {
                    let n = FETCH_OPS
                        .iter()
                        .find(|(_, o)| o == op)
                        .map_or("add", |(n, _)| n);
                    format!("atomic_fetch_{n}")
                }
            };
            format!(
                "{f}{}({}, {}{})",
                explicit(*mode),
                name(*loc),
                expr(value, name),
                tail(*mode, None)
            )
        }
        Call::CompareExchange {
            loc,
            expected,
            desired,
            mode,
            fail,
        } => format!(
            "atomic_compare_exchange_strong{}({}, {}, {}{})",
            explicit(*mode),
            name(*loc),
            name(*expected),
            expr(desired, name),
            tail(*mode, *fail)
        ),
        Call::Fence {
            global,
            local,
            order,
            scope,
        } => {
            let flags = match (global, local) {
                (true, true) => "CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE",
                (false, true) => "CLK_LOCAL_MEM_FENCE",
                _ => "CLK_GLOBAL_MEM_FENCE",
            };
            format!(
                "atomic_work_item_fence({flags}, {}, {})",
                order_name(*order).expect("fence order"),
                scope.name()
            )
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Region::Global => "global",
            Region::Local => "local",
        })
    }
}
