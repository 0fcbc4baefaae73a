//! What a cat model may name without defining it: the types, the base sets and relations of the
//! events ([`BASE_NAMES`]) and the execution's choices ([`CHOICE_NAMES`]).

use crate::litmus::vulkan::VulkanScope;

/// A value's type: a set of events or a relation over them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A set of events.
    Set,
    /// A relation between events.
    Rel,
}

/// The sets and relations of a candidate execution that do not depend on its choices (see
/// [`crate::cat`] for what each means).
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

/// The execution's choices, one bit each in `Node::reads`.
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
    pub(super) fn within_location(self) -> bool {
        matches!(self, Base::Id | Base::Loc | Base::PoLoc | Base::Rmw)
    }
}
