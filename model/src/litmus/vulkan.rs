//! Vulkan's vocabulary in Dat3M's Vulkan litmus dialect: thread placement by subgroup,
//! workgroup and queue family, the four memory scopes, storage classes, memory semantics and
//! availability/visibility operations (the Vulkan specification's "Memory Model" appendix).
//!
//! A Vulkan test is an IR `Program` marked with the [`DIALECT`] front end, whose groups are the
//! placements' subgroups, workgroups and queue families ([`VulkanPlacement::LEVELS`]), whose
//! `ssw` relation holds the system-synchronizes-with pairs, and whose statements carry the
//! qualifiers a [`VulkanOp`] lowers to ([`VulkanOp::lower`], read back by [`VulkanOp::of`]).
//! Loads, stores and read-modify-writes are the IR's `ld`/`st`/`atom` (non-atomic accesses
//! `.weak`, atomic ones with their order), memory barriers (`membar`) and the device-domain
//! operations (`avdevice`, `visdevice`) are fences, control barriers (`cbar`) are barriers; the
//! qualifiers say what Vulkan means by each, as the base sets `vulkan.cat` names.

use super::ir::{Groups, Instr, Qualifiers};
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

    /// The base set of `vulkan.cat` holding the operations of this scope: `SG`, `WG`, `QF`,
    /// `DV`.
    pub fn tag(self) -> &'static str {
        match self {
            VulkanScope::Subgroup => "SG",
            VulkanScope::Workgroup => "WG",
            VulkanScope::QueueFamily => "QF",
            VulkanScope::Device => "DV",
        }
    }

    /// The level of [`VulkanPlacement::LEVELS`] whose instances are this scope's; `None` for
    /// the device, which holds every invocation.
    pub fn level(self) -> Option<usize> {
        match self {
            VulkanScope::Subgroup => Some(0),
            VulkanScope::Workgroup => Some(1),
            VulkanScope::QueueFamily => Some(2),
            VulkanScope::Device => None,
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
    /// The placement's levels as the IR's [`Groups`] name them, narrowest first (a subgroup is
    /// numbered within its workgroup, a workgroup within its queue family).
    pub const LEVELS: [&'static str; 3] = ["sg", "wg", "qf"];

    /// The ids at each of [`VulkanPlacement::LEVELS`].
    pub fn ids(&self) -> Vec<u32> {
        vec![self.subgroup, self.workgroup, self.queue_family]
    }

    /// The IR's groups of threads placed at `placements` (by thread id).
    pub fn groups(placements: &[VulkanPlacement]) -> Groups {
        Groups {
            levels: Self::LEVELS.iter().map(ToString::to_string).collect(),
            ids: placements.iter().map(VulkanPlacement::ids).collect(),
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

/// The header word of a Vulkan test (`VULKAN NAME`), which names its front end.
pub const DIALECT: &str = "VULKAN";

/// The relation of the IR's [`crate::litmus::ThreadRelations`] that holds the
/// system-synchronizes-with pairs of a test's second block (`ssw 0 1;`: every operation of P0
/// system-synchronizes-with every operation of P1, as when P1 runs in a later dispatch that an
/// execution dependency orders after P0's).
pub const SSW: &str = "ssw";

/// The base sets and relations only Vulkan tests give events: a model that reads none of them
/// cannot tell a Vulkan test's availability, visibility and storage classes apart, so it is no
/// Vulkan model.
pub const OWN_NAMES: &[&str] = &[
    "NONPRIV",
    "AV",
    "VIS",
    "SEMAV",
    "SEMVIS",
    "AVDEVICE",
    "VISDEVICE",
    "CBAR",
    "SC0",
    "SC1",
    "SC2",
    "SC3",
    "SEMSC0",
    "SEMSC1",
    "SEMSC2",
    "SEMSC3",
    "SG",
    "QF",
    "ssg",
    "sqf",
    "ssw",
];

/// The base sets of `vulkan.cat` a Vulkan operation's qualifiers name, beside its scope's
/// ([`VulkanScope::tag`]) and its storage classes' (`SC0`… , `SEMSC0`…).
mod tag {
    /// Atomic accesses (`.atom`).
    pub const ATOM: &str = "ATOM";
    /// `.nonpriv` accesses (NonPrivatePointer).
    pub const NONPRIV: &str = "NONPRIV";
    /// `.av` stores (MakePointerAvailable).
    pub const AV: &str = "AV";
    /// `.vis` loads (MakePointerVisible).
    pub const VIS: &str = "VIS";
    /// `.semav` (MakeAvailable semantics).
    pub const SEMAV: &str = "SEMAV";
    /// `.semvis` (MakeVisible semantics).
    pub const SEMVIS: &str = "SEMVIS";
    /// `avdevice`.
    pub const AVDEVICE: &str = "AVDEVICE";
    /// `visdevice`.
    pub const VISDEVICE: &str = "VISDEVICE";
    /// Control barriers (`cbar`).
    pub const CBAR: &str = "CBAR";
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

    /// The qualifiers of the IR statement: the order of its semantics and the base sets of
    /// `vulkan.cat` it is in (`ATOM` for an atomic access, `NONPRIV`, `AV`, `VIS`, `SEMAV`,
    /// `SEMVIS`, `AVDEVICE`, `VISDEVICE`, `CBAR`, `SC<n>` for its storage class, `SEMSC<n>` for
    /// each class of its semantics, and its scope's `SG`, `WG`, `QF` or `DV`). A control
    /// barrier meets the invocations of its execution scope's instance, at most the workgroup:
    /// "Scope for execution must be limited to Workgroup or Subgroup" (Vulkan's SPIR-V
    /// environment), so a `cbar.dv` waits for its workgroup and synchronizes memory at device
    /// scope.
    pub fn lower(&self) -> Qualifiers {
        let mut q = Qualifiers::new(self.order);
        let flags = [
            (self.is_atomic(), tag::ATOM),
            (self.nonpriv, tag::NONPRIV),
            (self.av, tag::AV),
            (self.vis, tag::VIS),
            (self.sem_av, tag::SEMAV),
            (self.sem_vis, tag::SEMVIS),
            (self.kind == VulkanKind::AvDevice, tag::AVDEVICE),
            (self.kind == VulkanKind::VisDevice, tag::VISDEVICE),
            (self.kind == VulkanKind::ControlBarrier, tag::CBAR),
        ];
        for (_, name) in flags.into_iter().filter(|(on, _)| *on) {
            q.tag(name);
        }
        if let Some(c) = self.storage_class {
            q.tag(format!("SC{c}"));
        }
        for c in (0..STORAGE_CLASSES).filter(|c| self.semantics & (1 << c) != 0) {
            q.tag(format!("SEMSC{c}"));
        }
        if let Some(s) = self.scope {
            q.tag(s.tag());
        }
        if self.kind == VulkanKind::ControlBarrier {
            let execution = self.scope.unwrap_or(VulkanScope::Workgroup);
            q.group = execution.min(VulkanScope::Workgroup).level();
        }
        q
    }

    /// The operation an IR statement's instruction and qualifiers ([`VulkanOp::lower`]) stand
    /// for: `membar`, `avdevice` and `visdevice` are fences, told apart by their base sets.
    pub fn of(instr: &Instr, q: &Qualifiers) -> VulkanOp {
        let kind = if q.has(tag::CBAR) {
            VulkanKind::ControlBarrier
        } else if q.has(tag::AVDEVICE) {
            VulkanKind::AvDevice
        } else if q.has(tag::VISDEVICE) {
            VulkanKind::VisDevice
        } else if matches!(instr, Instr::Fence(_)) {
            VulkanKind::MemoryBarrier
        } else {
            VulkanKind::Access
        };
        let classes = |prefix: &'static str| {
            (0..STORAGE_CLASSES).filter(move |c| q.has(&format!("{prefix}{c}")))
        };
        VulkanOp {
            kind,
            order: q.order,
            scope: VulkanScope::ALL.into_iter().find(|s| q.has(s.tag())),
            storage_class: classes("SC").next(),
            semantics: classes("SEMSC").fold(0, |m, c| m | (1 << c)),
            sem_av: q.has(tag::SEMAV),
            sem_vis: q.has(tag::SEMVIS),
            av: q.has(tag::AV),
            vis: q.has(tag::VIS),
            nonpriv: q.has(tag::NONPRIV),
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
