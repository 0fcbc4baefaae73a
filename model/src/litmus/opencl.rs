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
//! A test keeps its C text as a small syntax tree ([`ast`]), held as the source of its
//! [`DIALECT`] front end: the printer ([`print_kernels`]) prints it back, and the parser
//! (`parse`) reads it and lowers it (`lower`) to the IR every engine reads, each statement
//! qualified with what an [`OpenClOp`] is in OpenCL ([`OpenClOp::lower`]: its order and the
//! base sets `opencl.cat` names). The work-groups and devices of the placements are the IR's
//! groups ([`LEVELS`]).

pub mod ast;
mod lower;
pub(super) mod parse;
mod print;

pub use print::{print_init, print_kernels};

use super::ir::{Groups, Program, Qualifiers};
use crate::scope::{Order, Scope};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The header word of an OpenCL test (`OPENCL NAME`), which names its front end.
pub const DIALECT: &str = "OPENCL";

/// The base sets only OpenCL tests give events: a model that reads none of them is no OpenCL
/// model.
pub const OWN_NAMES: &[&str] = &["WI", "ALL", "GLOBAL", "LOCAL"];

/// The levels of a placement (`P0@wg 0, dev 0`) as the IR's [`Groups`] name them, narrowest
/// first: the cat relation `swg` relates the work-items of one work-group of one device.
pub const LEVELS: [&str; 2] = ["wg", "dev"];

/// The IR's groups of work-items placed at `(work-group, device)` (by thread id).
pub fn groups(placements: &[(u32, u32)]) -> Groups {
    Groups {
        levels: LEVELS.iter().map(ToString::to_string).collect(),
        ids: placements.iter().map(|&(wg, dev)| vec![wg, dev]).collect(),
    }
}

/// The kernels as written of an OpenCL test: the source its front end keeps; `None` for a
/// program of another dialect (or one read back from JSON, which does not keep it).
pub fn test_of(p: &Program) -> Option<&OpenClTest> {
    p.front
        .as_ref()
        .filter(|f| f.dialect == DIALECT)
        .and_then(|f| f.source.as_ref())
        .and_then(|s| s.get::<OpenClTest>())
}

/// OpenCL's memory scopes, narrowest first (`memory_scope_work_item` … `_all_svm_devices`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum OpenClScope {
    /// `memory_scope_work_item`: the executing work-item alone (fences only).
    WorkItem,
    /// `memory_scope_work_group`: the work-items of the executing work-group.
    WorkGroup,
    /// `memory_scope_device`: the work-items of the executing device.
    Device,
    /// `memory_scope_all_svm_devices`: every device sharing the SVM buffer, and the host.
    AllSvmDevices,
}

impl OpenClScope {
    /// Every scope, narrowest first.
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

    /// The scope whose C enumerator [`OpenClScope::name`] is `name`; `None` for any other word.
    pub fn from_name(name: &str) -> Option<OpenClScope> {
        OpenClScope::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The base set of `opencl.cat` holding the operations of this scope: `WI`, `WG`, `DV`,
    /// `ALL`.
    pub fn tag(self) -> &'static str {
        match self {
            OpenClScope::WorkItem => "WI",
            OpenClScope::WorkGroup => "WG",
            OpenClScope::Device => "DV",
            OpenClScope::AllSvmDevices => "ALL",
        }
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
    /// A fence (`atomic_work_item_fence`, or the fences of a `barrier`) rather than an access.
    pub fence: bool,
    /// A work-group barrier (`barrier(flags)`): an execution barrier whose instances order the
    /// memory of the regions its flags name (see `opencl.cat`).
    #[serde(default)]
    pub barrier: bool,
    /// An atomic access (through an `atomic_*` function on an atomic object).
    pub atomic: bool,
    /// The access is to a non-atomic object: a location no declaration gives an atomic type
    /// (C11 5.1.2.4: "The value of a non-atomic scalar object ... shall be the value stored
    /// by the visible side effect"; herd's and Dat3M's `NAL` tag).
    #[serde(default)]
    pub nonatomic_location: bool,
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
    /// Whether it concerns local memory (an access to it, or a fence with
    /// `CLK_LOCAL_MEM_FENCE`).
    pub local: bool,
}

/// The base sets of `opencl.cat` an operation's qualifiers name, beside its scope's
/// ([`OpenClScope::tag`]).
pub mod tag {
    /// Atomic accesses.
    pub const ATOM: &str = "ATOM";
    /// Accesses to a non-atomic object ([`super::OpenClOp::nonatomic_location`]).
    pub const NAL: &str = "NAL";
    /// Operations concerning global memory.
    pub const GLOBAL: &str = "GLOBAL";
    /// Operations concerning local memory.
    pub const LOCAL: &str = "LOCAL";
}

impl OpenClOp {
    /// An access of this order to neither region, with no scope: no flag set.
    pub fn new(order: Order) -> OpenClOp {
        OpenClOp {
            fence: false,
            barrier: false,
            atomic: false,
            nonatomic_location: false,
            order,
            fail_order: None,
            scope: None,
            global: false,
            local: false,
        }
    }

    /// The qualifiers of the IR statement: its order (and a compare-exchange's failure order)
    /// and the base sets of `opencl.cat` it is in: `ATOM` for an atomic access, `NAL` for an
    /// access to a non-atomic object, `GLOBAL` and `LOCAL` for the memory it concerns, and its
    /// scope's `WI`, `WG`, `DV` or `ALL`. A `barrier` meets the work-items of its work-group,
    /// the CTA of its placement.
    pub fn lower(&self) -> Qualifiers {
        let mut q = Qualifiers::new(self.order);
        q.fail_order = self.fail_order;
        let flags = [
            (self.atomic, tag::ATOM),
            (self.nonatomic_location, tag::NAL),
            (self.global, tag::GLOBAL),
            (self.local, tag::LOCAL),
        ];
        for (_, name) in flags.into_iter().filter(|(on, _)| *on) {
            q.tag(name);
        }
        if let Some(s) = self.scope {
            q.tag(s.tag());
        }
        q
    }
}

pub use ast::*;

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Region::Global => "global",
            Region::Local => "local",
        })
    }
}
