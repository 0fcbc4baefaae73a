//! Vulkan's vocabulary in Dat3M's Vulkan litmus dialect: thread placement by subgroup,
//! workgroup and queue family, the four memory scopes, storage classes, memory semantics and
//! availability/visibility operations (the Vulkan specification's "Memory Model" appendix).
//!
//! A Vulkan test is an IR `Program` whose `Program::vulkan` field holds the placements and the
//! system-synchronizes-with pairs, and whose statements carry a [`VulkanOp`] each. Loads, stores
//! and read-modify-writes are the IR's `ld`/`st`/`atom` (non-atomic accesses `.weak`, atomic ones
//! with their order), memory barriers (`membar`) and the device-domain operations (`avdevice`,
//! `visdevice`) are fences, control barriers (`cbar`) are barriers; the annotation says what
//! Vulkan means by each. Plain data: it imports only the IR's leaves, and the IR imports it.

use super::ir::operand::ThreadId;
use crate::scope::{Order, Scope};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Vulkan's memory and execution scopes, narrowest first (`sg`, `wg`, `qf`, `dv`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum VulkanScope {
    /// `sg`: the invocations of one subgroup.
    Subgroup,
    /// `wg`: the invocations of one workgroup.
    Workgroup,
    /// `qf`: the invocations of one queue family.
    QueueFamily,
    /// `dv`: every invocation on the device.
    Device,
}

impl VulkanScope {
    /// Every scope, narrowest first.
    pub const ALL: [VulkanScope; 4] = [
        VulkanScope::Subgroup,
        VulkanScope::Workgroup,
        VulkanScope::QueueFamily,
        VulkanScope::Device,
    ];

    /// The dialect's spelling: `sg`, `wg`, `qf`, `dv`.
    pub fn name(self) -> &'static str {
        match self {
            VulkanScope::Subgroup => "sg",
            VulkanScope::Workgroup => "wg",
            VulkanScope::QueueFamily => "qf",
            VulkanScope::Device => "dv",
        }
    }

    /// The scope [`VulkanScope::name`] spells; `None` for any other word.
    pub fn from_name(name: &str) -> Option<VulkanScope> {
        VulkanScope::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The narrowest PTX scope holding every thread of this scope's instance (a subgroup lies
    /// within a workgroup, which is a CTA; a queue family within the device, a GPU): what the
    /// IR's `Access::scope` records for consumers that know only PTX scopes.
    pub fn ptx_scope(self) -> Scope {
        match self {
            VulkanScope::Subgroup | VulkanScope::Workgroup => Scope::Cta,
            VulkanScope::QueueFamily | VulkanScope::Device => Scope::Gpu,
        }
    }

    /// Whether a thread placed at `other` is in the instance of this scope of a thread placed
    /// at `by` (ids are hierarchical: subgroup 0 of workgroup 1 is not subgroup 0 of workgroup 0).
    pub fn includes(self, by: &VulkanPlacement, other: &VulkanPlacement) -> bool {
        let qf = by.queue_family == other.queue_family;
        let wg = qf && by.workgroup == other.workgroup;
        match self {
            VulkanScope::Subgroup => wg && by.subgroup == other.subgroup,
            VulkanScope::Workgroup => wg,
            VulkanScope::QueueFamily => qf,
            VulkanScope::Device => true,
        }
    }
}

impl fmt::Display for VulkanScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a Vulkan invocation runs: `P0@sg 0, wg 0, qf 0`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct VulkanPlacement {
    /// The subgroup, numbered within its workgroup.
    pub subgroup: u32,
    /// The workgroup, numbered within its queue family.
    pub workgroup: u32,
    /// The queue family.
    pub queue_family: u32,
}

impl VulkanPlacement {
    /// A key naming this placement's instance of `scope`.
    pub fn instance(&self, scope: VulkanScope) -> (u32, u32, u32) {
        match scope {
            VulkanScope::Subgroup => (self.queue_family, self.workgroup, self.subgroup),
            VulkanScope::Workgroup => (self.queue_family, self.workgroup, u32::MAX),
            VulkanScope::QueueFamily => (self.queue_family, u32::MAX, u32::MAX),
            VulkanScope::Device => (u32::MAX, u32::MAX, u32::MAX),
        }
    }
}

impl fmt::Display for VulkanPlacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sg {}, wg {}, qf {}",
            self.subgroup, self.workgroup, self.queue_family
        )
    }
}

/// What makes a program a Vulkan test: its threads' placements (by thread id) and the
/// system-synchronizes-with pairs of its second block (`ssw 0 1;`: every operation of P0
/// system-synchronizes-with every operation of P1, as when P1 runs in a later dispatch that
/// an execution dependency orders after P0's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VulkanTest {
    /// Each thread's placement, by thread id.
    pub placements: Vec<VulkanPlacement>,
    /// The system-synchronizes-with pairs `(from, to)` as declared (`ssw 0 1;`).
    pub ssw: Vec<(ThreadId, ThreadId)>,
}

/// The largest storage class index (`sc0` … `sc3`, `semsc0` … `semsc3`).
pub const STORAGE_CLASSES: u8 = 4;

/// What one Vulkan instruction means, beyond the IR's access or fence.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct VulkanOp {
    /// The kind of operation: access, memory barrier, control barrier, device-domain operation.
    pub kind: VulkanKind,
    /// `.acq`, `.rel`, `.acq_rel` (memory semantics); `Relaxed` for none; `Weak` for a
    /// non-atomic access.
    pub order: Order,
    /// The memory scope (atomics, av/vis accesses, barriers).
    pub scope: Option<VulkanScope>,
    /// The storage class an access is in (`.sc0` … `.sc3`).
    pub storage_class: Option<u8>,
    /// Storage class semantics (`.semsc0` … `.semsc3`), one bit per class.
    pub semantics: u8,
    /// `.semav` (MakeAvailable) and `.semvis` (MakeVisible) in the semantics.
    pub sem_av: bool,
    /// `.semvis` (MakeVisible) in the semantics.
    pub sem_vis: bool,
    /// `.av` on a store (MakePointerAvailable) and `.vis` on a load (MakePointerVisible).
    pub av: bool,
    /// `.vis` on a load (MakePointerVisible).
    pub vis: bool,
    /// `.nonpriv` (NonPrivatePointer). Atomics and av/vis accesses are non-private anyway.
    pub nonpriv: bool,
}

/// The kinds of Vulkan operations.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VulkanKind {
    /// `ld`, `st`, `rmw`.
    #[default]
    Access,
    /// `membar` (OpMemoryBarrier).
    MemoryBarrier,
    /// `cbar` (OpControlBarrier), with memory semantics when `order` is not `Relaxed`.
    ControlBarrier,
    /// `avdevice`: an availability operation to the device domain (an API memory dependency).
    AvDevice,
    /// `visdevice`: a visibility operation from the device domain.
    VisDevice,
}

impl VulkanOp {
    /// An operation of this kind with relaxed semantics and no qualifiers.
    pub fn new(kind: VulkanKind) -> VulkanOp {
        VulkanOp {
            kind,
            order: Order::Relaxed,
            scope: None,
            storage_class: None,
            semantics: 0,
            sem_av: false,
            sem_vis: false,
            av: false,
            vis: false,
            nonpriv: false,
        }
    }

    /// Whether the access is atomic.
    pub fn is_atomic(&self) -> bool {
        self.kind == VulkanKind::Access && self.order != Order::Weak
    }

    /// The dotted qualifiers after the opcode, as the dialect writes them.
    pub fn qualifiers(&self) -> String {
        let mut q = String::new();
        if self.is_atomic() {
            q.push_str(".atom");
        }
        match self.order {
            Order::Acquire => q.push_str(".acq"),
            Order::Release => q.push_str(".rel"),
            Order::AcqRel => q.push_str(".acq_rel"),
            _ => {}
        }
        if self.av {
            q.push_str(".av");
        }
        if self.vis {
            q.push_str(".vis");
        }
        if self.nonpriv {
            q.push_str(".nonpriv");
        }
        if let Some(s) = self.scope {
            q.push('.');
            q.push_str(s.name());
        }
        if let Some(c) = self.storage_class {
            q.push_str(&format!(".sc{c}"));
        }
        for c in 0..STORAGE_CLASSES {
            if self.semantics & (1 << c) != 0 {
                q.push_str(&format!(".semsc{c}"));
            }
        }
        if self.sem_av {
            q.push_str(".semav");
        }
        if self.sem_vis {
            q.push_str(".semvis");
        }
        q
    }
}
