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
//! A test keeps its C text as a small syntax tree ([`ast`]): the printer ([`print_kernels`])
//! prints it back, and the parser (`parse`) reads it and lowers it (`lower`) to the IR
//! every engine reads, each statement annotated with an [`OpenClOp`] saying what it is in
//! OpenCL.

pub mod ast;
mod lower;
pub(super) mod parse;
mod print;

pub use print::{print_init, print_kernels};

use crate::scope::{Order, Scope};
use serde::{Deserialize, Serialize};
use std::fmt;

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

pub use ast::*;

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Region::Global => "global",
            Region::Local => "local",
        })
    }
}
