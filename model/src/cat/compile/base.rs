//! What a cat model may name without defining it: the types, the base sets and relations of the
//! events ([`BASE_NAMES`]) and the execution's choices ([`CHOICE_NAMES`]).

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
    /// A base set a front end's qualifiers name ([`crate::litmus::Qualifiers::tags`]): the
    /// events whose statement's qualifiers carry the name. Vulkan's `ATOM`, `NONPRIV`, `AV`,
    /// `VIS`, `SEMAV`, `SEMVIS`, `AVDEVICE`, `VISDEVICE`, `CBAR`, `SC0`..`SC3`,
    /// `SEMSC0`..`SEMSC3` and scopes `SG`, `WG`, `QF`, `DV`; OpenCL's `ATOM`, `GLOBAL`,
    /// `LOCAL`, `NAL` (accesses to a non-atomic object) and scopes `WI`, `WG`, `DV`, `ALL`.
    Tag(&'static str),
    /// Same device.
    Sdv,
    /// Pairs of events of threads of one instance of a level of the program's thread groups
    /// ([`crate::litmus::Groups`]), by the level's name: `ssg` (Vulkan's subgroups), `swg`
    /// (Vulkan's workgroups, OpenCL's work-groups), `sqf` (Vulkan's queue families).
    Group(&'static str),
    /// A relation between threads the program declares ([`crate::litmus::ThreadRelations`]),
    /// by name, lifted to events and closed transitively: `ssw` (Vulkan's
    /// system-synchronizes-with).
    ThreadRelation(&'static str),
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
    ("ATOM", Base::Tag("ATOM"), Ty::Set),
    ("NONPRIV", Base::Tag("NONPRIV"), Ty::Set),
    ("AV", Base::Tag("AV"), Ty::Set),
    ("VIS", Base::Tag("VIS"), Ty::Set),
    ("SEMAV", Base::Tag("SEMAV"), Ty::Set),
    ("SEMVIS", Base::Tag("SEMVIS"), Ty::Set),
    ("AVDEVICE", Base::Tag("AVDEVICE"), Ty::Set),
    ("VISDEVICE", Base::Tag("VISDEVICE"), Ty::Set),
    ("CBAR", Base::Tag("CBAR"), Ty::Set),
    ("SC0", Base::Tag("SC0"), Ty::Set),
    ("SC1", Base::Tag("SC1"), Ty::Set),
    ("SC2", Base::Tag("SC2"), Ty::Set),
    ("SC3", Base::Tag("SC3"), Ty::Set),
    ("SEMSC0", Base::Tag("SEMSC0"), Ty::Set),
    ("SEMSC1", Base::Tag("SEMSC1"), Ty::Set),
    ("SEMSC2", Base::Tag("SEMSC2"), Ty::Set),
    ("SEMSC3", Base::Tag("SEMSC3"), Ty::Set),
    ("SG", Base::Tag("SG"), Ty::Set),
    ("WG", Base::Tag("WG"), Ty::Set),
    ("QF", Base::Tag("QF"), Ty::Set),
    ("DV", Base::Tag("DV"), Ty::Set),
    ("WI", Base::Tag("WI"), Ty::Set),
    ("ALL", Base::Tag("ALL"), Ty::Set),
    ("GLOBAL", Base::Tag("GLOBAL"), Ty::Set),
    ("LOCAL", Base::Tag("LOCAL"), Ty::Set),
    ("NAL", Base::Tag("NAL"), Ty::Set),
    ("sdv", Base::Sdv, Ty::Rel),
    ("ssg", Base::Group("sg"), Ty::Rel),
    ("swg", Base::Group("wg"), Ty::Rel),
    ("sqf", Base::Group("qf"), Ty::Rel),
    ("ssw", Base::ThreadRelation("ssw"), Ty::Rel),
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
