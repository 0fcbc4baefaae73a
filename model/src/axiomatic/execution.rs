//! The events of one combination of thread traces, the base relations every model reads (`po`,
//! `loc`, `vloc`, `sr`, `rmw`, dependencies, ...), and the witness form of an execution.

use super::events::{ClusterBarrier, Kind, Trace};
use super::rel::{bit, members, Rel, Set, MAX_EVENTS};
use crate::litmus::*;
use crate::scope::{Order, Placement, Scope};
use serde::Serialize;
use std::collections::BTreeMap;

/// One event of a candidate execution. Initial writes have no thread.
#[derive(Clone, Debug)]
pub struct EventInfo {
    /// The thread that performs it; `None` for an initial write.
    pub thread: Option<ThreadId>,
    /// The statement it comes from (index into the thread's body).
    pub stmt: Option<usize>,
    /// What the event does, with its concrete values.
    pub kind: Kind,
}

/// Events and the static (execution-independent) sets and relations over them.
pub struct Events {
    /// The number of events (initial writes first); at most [`MAX_EVENTS`].
    pub n: usize,
    /// Each event, by index.
    pub info: Vec<EventInfo>,
    /// Where each event happens (thread, CTA, cluster, GPU); `None` for initial writes.
    pub placement: Vec<Option<Placement>>,
    // Sets of events (cat's tags).
    /// `R`: reads (the read of an RMW included).
    pub r: Set,
    /// `W`: writes (initial writes and the write of an RMW included).
    pub w: Set,
    /// `F`: fences (`fence.sc`, `fence.acq_rel`, `fence.proxy.*`, `fence.mbarrier_init`).
    pub f: Set,
    /// `M`: memory events, `R | W`.
    pub m: Set,
    /// `IW`: the initial writes, one per location.
    pub init: Set,
    /// `F & SC`.
    pub f_sc: Set,
    /// Proxy tags: generic (`ld`/`st`/`atom` and the `fence.sc`/`fence.acq_rel` fences), surface,
    /// texture, constant (accesses and the matching `fence.proxy.*`).
    pub gen: Set,
    /// `SUR`: surface accesses (`suld`, `sust`) and `fence.proxy.surface`.
    pub sur: Set,
    /// `TEX`: texture accesses (`tld`) and `fence.proxy.texture`.
    pub tex: Set,
    /// `CON`: constant accesses and `fence.proxy.constant`.
    pub con: Set,
    /// `F & ALIAS`: `fence.proxy.alias`.
    pub f_alias: Set,
    /// CTA barrier arrivals (`bar.cta.*`) and cluster barrier arrives and waits.
    pub barriers: Set,
    /// The events of bulk copies (`cp.async.bulk`): performed by the async proxy, in no
    /// program order.
    pub bulk: Set,
    /// `mbarrier.init` writes.
    pub mbar_init: Set,
    /// `WX`: the events of warp exchanges (`shfl.sync`, `vote.sync`, `match.sync`,
    /// `redux.sync`, `elect.sync`), as the parser lowers them (`litmus::warp`): their accesses
    /// to slots no program names and their barriers. The models order them among themselves
    /// only: PTX grants memory ordering among the lanes to `bar.warp.sync` alone.
    pub exchange: Set,
    /// The reads and writes of `cp.async` copies (performed by the CTA's copy unit, in program
    /// order only up to the copy's own write and from the `wait_group` that waits for it on).
    pub cp_async: Set,
    /// `fence.mbarrier_init.release.cluster` fences.
    pub mbar_init_fence: Set,
    // Relations.
    /// Program order (transitive) among a thread's own events: a bulk copy's events are in
    /// none (see `issue` and `copy`).
    pub po: Rel,
    /// From each event of a thread before a bulk copy's issue to each event of that copy.
    pub issue: Rel,
    /// Within one bulk copy, from each event to the later ones (read, write, complete-tx).
    pub copy: Rel,
    /// From each event of a `.bulk_group` bulk copy to the events of its thread from the
    /// `cp.async.bulk.wait_group` that waited for it on (the copies issued later included):
    /// see [`super::events::ThreadEvent::completed_at`].
    pub bulk_wait: Rel,
    /// From each `barrier.cluster.arrive` to the `barrier.cluster.wait`s of the other threads
    /// of its instance: the k-th arrive of each thread of a cluster joins the cluster's k-th
    /// instance, a wait the instance of its thread's latest arrive (see
    /// [`super::events::ClusterBarrier`]).
    pub cluster_barrier: Rel,
    /// From a proxy fence to the memory events in its state space: every one for
    /// `fence.proxy.<kind>`, those of global memory for `fence.proxy.async.global`, of its CTA's
    /// (cluster's) shared memory for `.async.shared::cta` (`::cluster`).
    pub fence_space: Rel,
    /// Same thread (reflexive).
    pub int: Rel,
    /// Same physical location (memory events only).
    pub loc: Rel,
    /// Same virtual generic address (memory events only).
    pub vloc: Rel,
    /// Same scope: both scoped, and each one's scope includes the other's thread.
    pub sr: Rel,
    /// Same CTA.
    pub scta: Rel,
    /// From the read of an atomic instruction to its write (the event just after it).
    pub rmw: Rel,
    /// `addr | data | ctrl`.
    pub dep: Rel,
    /// `po & loc`: program order between events of the same physical location.
    pub po_loc: Rel,
    /// Tile IR token order (transitive): from the operations of a statement that produced a
    /// token to those of every later statement waiting for it; the read of an RMW precedes its
    /// write.
    pub token_order: Rel,
    /// The order each event of a qualified statement has for the model ([`Qualifiers`]: its
    /// front end's semantics; a failed compare-exchange's read has its failure order); `None`
    /// for initial writes and the events of unqualified statements.
    pub qualified_order: Vec<Option<Order>>,
    /// By base set name, the events whose statement's qualifiers name it (`AV`, `WG`, `NAL`…).
    pub tagged: BTreeMap<String, Set>,
    /// Same device (`Placement::gpu`: an OpenCL `dev`, a PTX `gpu`).
    pub sdv: Rel,
    /// By level name of the program's [`Groups`] (`sg`, `wg`, `qf`), pairs of events of threads
    /// of one instance of the level (the cat relations `ssg`, `swg`, `sqf`).
    pub same_group: BTreeMap<String, Rel>,
    /// By name, the relations between threads the program declares ([`ThreadRelations`],
    /// Vulkan's `ssw`), lifted to events and closed transitively: from every event of the first
    /// thread of a pair to every event of the second.
    pub thread_relations: BTreeMap<String, Rel>,
    /// The barrier instance each barrier event joins ([`barrier_instance`]); `None` for other
    /// events.
    pub barrier_instance: Vec<Option<Vec<u32>>>,
}

/// Where an event happens: its thread's placement, but for the write and the complete-tx of a
/// bulk copy, which the async proxy performs at the destination's CTA (the one whose shared
/// memory and mbarrier they update).
fn event_placement(
    p: &Program,
    t: ThreadId,
    e: &super::events::ThreadEvent,
    i: usize,
) -> Placement {
    let own = p.threads[t].placement;
    let at_destination = e.copy.is_some_and(|first| i != first);
    let dst = match &e.kind {
        Kind::Read { loc, .. } | Kind::Write { loc, .. } if at_destination => p.shared_of(*loc),
        _ => None,
    };
    dst.and_then(|of| p.cta_placement(of)).unwrap_or(own)
}

/// Whether a proxy fence of `kind` issued at `at` orders accesses to location `l`: PTX ISA,
/// *membar/fence*: "fence.proxy.async... .global / .shared::{cta, cluster}: the state space
/// the ordering is restricted to"; the other proxy fences cover every location.
pub(crate) fn in_fence_space(p: &Program, kind: ProxyFence, at: &Placement, l: LocId) -> bool {
    let shared = p.shared_of(l);
    match kind {
        ProxyFence::AsyncGlobal => shared.is_none(),
        ProxyFence::AsyncSharedCta => shared.is_some_and(|of| of.is_own(at)),
        ProxyFence::AsyncSharedCluster => shared.is_some_and(|of| {
            p.cta_placement(of)
                .is_some_and(|owner| Scope::Cluster.includes(at, &owner))
        }),
        _ => true,
    }
}

/// The generic (virtual) address behind a location: a generic alias is a new generic address,
/// a surface/texture/constant alias is another path to the generic address it aliases.
pub fn generic_address(p: &Program, mut l: LocId) -> LocId {
    loop {
        match p.locations[l].kind {
            LocationKind::Alias { proxy, of } if proxy != Proxy::Generic && of != l => l = of,
            _ => return l,
        }
    }
}

impl Events {
    /// Lays out initial writes (one per physical location) followed by each thread's trace.
    pub fn build(p: &Program, combo: &[&Trace]) -> Result<Events, String> {
        let mut info = Vec::new();
        let mut placement = Vec::new();
        let mut qualifiers: Vec<Option<&Qualifiers>> = Vec::new();
        let mut instance = Vec::new();
        let mut local_index = Vec::new(); // (thread, index within trace) for dependencies
        let mut copy_of = Vec::new(); // a bulk copy's event: the copy's first event, by thread
        let mut completed_at = Vec::new(); // a bulk_group copy's event: where its wait is
        let mut is_init = Vec::new(); // an mbarrier.init write
        for (l, loc) in p.locations.iter().enumerate() {
            if let LocationKind::Plain { init } = loc.kind {
                let access = Access {
                    proxy: Proxy::Generic,
                    order: Order::Weak,
                    scope: None,
                };
                info.push(EventInfo {
                    thread: None,
                    stmt: None,
                    kind: Kind::Write {
                        loc: l,
                        access,
                        value: init,
                        rmw: false,
                    },
                });
                placement.push(None);
                qualifiers.push(None);
                instance.push(None);
                local_index.push(None);
                copy_of.push(None);
                completed_at.push(None);
                is_init.push(false);
            }
        }
        let first_of_thread: Vec<usize> = {
            let mut v = Vec::new();
            let mut at = info.len();
            for tr in combo {
                v.push(at);
                at += tr.events.len();
            }
            v
        };
        for (t, tr) in combo.iter().enumerate() {
            for (i, e) in tr.events.iter().enumerate() {
                info.push(EventInfo {
                    thread: Some(t),
                    stmt: Some(e.stmt),
                    kind: e.kind.clone(),
                });
                placement.push(Some(event_placement(p, t, e, i)));
                copy_of.push(e.copy.map(|f| first_of_thread[t] + f));
                completed_at.push(e.completed_at.map(|k| first_of_thread[t] + k));
                is_init.push(
                    matches!(e.kind, Kind::Write { .. })
                        && matches!(
                            p.threads[t].body[e.stmt].instr,
                            Instr::Async(AsyncOp::MbarrierInit { .. })
                        ),
                );
                qualifiers.push(p.threads[t].body[e.stmt].qualifiers.as_ref());
                instance.push(
                    matches!(e.kind, Kind::Barrier { .. }).then(|| barrier_instance(p, t, e.stmt)),
                );
                local_index.push(Some((t, i)));
            }
        }
        let n = info.len();
        if n > MAX_EVENTS {
            return Err(format!(
                "an execution of this program has {n} events; at most {MAX_EVENTS} are supported"
            ));
        }
        let mut ev = Events {
            n,
            info,
            placement,
            r: Set::EMPTY,
            w: Set::EMPTY,
            f: Set::EMPTY,
            m: Set::EMPTY,
            init: Set::EMPTY,
            f_sc: Set::EMPTY,
            gen: Set::EMPTY,
            sur: Set::EMPTY,
            tex: Set::EMPTY,
            con: Set::EMPTY,
            f_alias: Set::EMPTY,
            barriers: Set::EMPTY,
            bulk: Set::EMPTY,
            exchange: Set::EMPTY,
            po: Rel::empty(n),
            issue: Rel::empty(n),
            copy: Rel::empty(n),
            bulk_wait: Rel::empty(n),
            cluster_barrier: Rel::empty(n),
            mbar_init: Set::EMPTY,
            cp_async: Set::EMPTY,
            mbar_init_fence: Set::EMPTY,
            fence_space: Rel::empty(n),
            int: Rel::empty(n),
            loc: Rel::empty(n),
            vloc: Rel::empty(n),
            sr: Rel::empty(n),
            scta: Rel::empty(n),
            rmw: Rel::empty(n),
            dep: Rel::empty(n),
            po_loc: Rel::empty(n),
            token_order: Rel::empty(n),
            qualified_order: qualifiers.iter().map(|q| q.map(|q| q.order)).collect(),
            tagged: BTreeMap::new(),
            sdv: Rel::empty(n),
            same_group: BTreeMap::new(),
            thread_relations: BTreeMap::new(),
            barrier_instance: instance,
        };
        for (i, q) in qualifiers.iter().enumerate() {
            for tag in q.iter().flat_map(|q| &q.tags) {
                *ev.tagged.entry(tag.clone()).or_insert(Set::EMPTY) |= bit(i);
            }
        }
        let mut scope = vec![None; n];
        let mut phys = vec![None; n];
        let mut vaddr = vec![None; n];
        for i in 0..n {
            let b = bit(i);
            let proxy_tag = |ev: &mut Events, proxy: Proxy| match proxy {
                Proxy::Generic => ev.gen |= b,
                Proxy::Surface => ev.sur |= b,
                Proxy::Texture => ev.tex |= b,
                Proxy::Constant => ev.con |= b,
                Proxy::Async => {}
            };
            match ev.info[i].kind.clone() {
                Kind::Read {
                    loc, access, rmw, ..
                }
                | Kind::Write {
                    loc, access, rmw, ..
                } => {
                    let is_read = matches!(ev.info[i].kind, Kind::Read { .. });
                    ev.m |= b;
                    if is_read {
                        ev.r |= b;
                        if rmw {
                            ev.rmw.add(i, i + 1);
                        }
                    } else {
                        ev.w |= b;
                    }
                    if ev.info[i].thread.is_none() {
                        ev.init |= b;
                    } else {
                        proxy_tag(&mut ev, access.proxy);
                    }
                    scope[i] = access.scope;
                    phys[i] = Some(p.physical(loc));
                    vaddr[i] = Some(generic_address(p, loc));
                }
                Kind::Fence(fence) => {
                    ev.f |= b;
                    match fence {
                        Fence::Sc(s) => {
                            ev.f_sc |= b;
                            ev.gen |= b;
                            scope[i] = Some(s);
                        }
                        Fence::AcqRel(s) => {
                            ev.gen |= b;
                            scope[i] = Some(s);
                        }
                        Fence::Proxy(ProxyFence::Alias) => ev.f_alias |= b,
                        Fence::Proxy(ProxyFence::Surface) => ev.sur |= b,
                        Fence::Proxy(ProxyFence::Texture) => ev.tex |= b,
                        Fence::Proxy(ProxyFence::Constant) => ev.con |= b,
                        Fence::Proxy(
                            ProxyFence::Async
                            | ProxyFence::AsyncGlobal
                            | ProxyFence::AsyncSharedCta
                            | ProxyFence::AsyncSharedCluster,
                        ) => {}
                    }
                }
                Kind::MbarrierInitFence => {
                    ev.f |= b;
                    ev.gen |= b;
                    ev.mbar_init_fence |= b;
                    scope[i] = Some(Scope::Cluster);
                }
                Kind::Barrier { .. } | Kind::ClusterBarrier(_) => ev.barriers |= b,
            }
            if is_init[i] {
                ev.mbar_init |= b;
            }
        }
        // Rows are unions of precomputed classes: events of one thread, one physical location,
        // one virtual address, one proxy, one CTA. Only scope inclusion is checked pairwise.
        let class = |key: &dyn Fn(usize) -> Option<u64>| -> Vec<Set> {
            let keys: Vec<Option<u64>> = (0..n).map(key).collect();
            (0..n)
                .map(|i| match keys[i] {
                    None => Set::EMPTY,
                    Some(k) => (0..n)
                        .filter(|&j| keys[j] == Some(k))
                        .fold(Set::EMPTY, |s, j| s | bit(j)),
                })
                .collect()
        };
        let thread_of = class(&|i| ev.info[i].thread.map(|t| t as u64));
        let loc_of = class(&|i| phys[i].map(|l| l as u64));
        let vaddr_of = class(&|i| vaddr[i].map(|l| l as u64));
        let cta_of =
            class(&|i| ev.placement[i].map(|pl| (u64::from(pl.gpu) << 32) | u64::from(pl.cta)));
        let gpu_of = class(&|i| ev.placement[i].map(|pl| u64::from(pl.gpu)));
        // Each level's instances: the threads whose ids agree from that level on, each named
        // by its first thread.
        for (level, name) in p.groups.iter().flat_map(|g| g.levels.iter().enumerate()) {
            let groups = p.groups.as_ref().expect("levels come from the groups");
            let first: Vec<u64> = (0..combo.len())
                .map(|t| {
                    let mine = groups.instance(t, level);
                    (0..t)
                        .find(|&u| groups.instance(u, level) == mine)
                        .unwrap_or(t) as u64
                })
                .collect();
            let same = class(&|i| ev.info[i].thread.map(|t| first[t]));
            let mut rel = Rel::empty(n);
            for (i, row) in same.into_iter().enumerate() {
                rel.set_row(i, row);
            }
            ev.same_group.insert(name.clone(), rel);
        }
        for (i, c) in copy_of.iter().enumerate() {
            if c.is_some() {
                ev.bulk |= bit(i);
            }
        }
        for i in 0..n {
            if let (Some(t), Some(stmt)) = (ev.info[i].thread, ev.info[i].stmt) {
                if p.threads[t].body[stmt].warp.is_some() {
                    ev.exchange |= bit(i);
                }
            }
        }
        let scoped: Vec<usize> = (0..n).filter(|&i| scope[i].is_some()).collect();
        for i in 0..n {
            let own = bit(i);
            ev.int.set_row(i, thread_of[i] | own);
            // Later events of the same thread (events are laid out in trace order); a bulk
            // copy's events are ordered only among themselves and after the copy's issue.
            let later = thread_of[i] & !Set::below(i + 1);
            match copy_of[i] {
                None => {
                    ev.po.set_row(i, later & !ev.bulk);
                    for j in members(later & ev.bulk) {
                        ev.issue.add(i, j);
                    }
                }
                Some(c) => {
                    let same = members(later).filter(|&j| copy_of[j] == Some(c));
                    same.for_each(|j| ev.copy.add(i, j));
                    if let Some(at) = completed_at[i] {
                        ev.bulk_wait.set_row(i, thread_of[i] & !Set::below(at));
                    }
                }
            }
            ev.loc.set_row(i, loc_of[i]);
            ev.vloc.set_row(i, vaddr_of[i]);
            ev.scta.set_row(i, cta_of[i]);
            ev.sdv.set_row(i, gpu_of[i]);
            if let (Some(si), Some(pi)) = (scope[i], ev.placement[i]) {
                for &j in &scoped {
                    let (Some(sj), Some(pj)) = (scope[j], ev.placement[j]) else {
                        continue;
                    };
                    if si.includes(&pi, &pj) && sj.includes(&pj, &pi) {
                        ev.sr.add(i, j);
                    }
                }
            }
        }
        for (i, li) in local_index.iter().enumerate() {
            if let Some((t, k)) = li {
                for &d in combo[*t].events[*k].deps.iter() {
                    ev.dep.add(first_of_thread[*t] + d, i);
                }
            }
        }
        // `cp.async`: program order runs from a copy's read and write only to the copy's write
        // and to the events from its `copy_until` on (see [`ThreadEvent::copy_until`]), and so
        // does `issue` to the bulk copies the thread issues.
        for (i, li) in local_index.iter().enumerate() {
            let Some((t, k)) = *li else { continue };
            let Some(until) = combo[t].events[k].copy_until else {
                continue;
            };
            ev.cp_async |= bit(i);
            let copy_write = if matches!(ev.info[i].kind, Kind::Read { .. }) {
                k + 1
            } else {
                k
            };
            let first = first_of_thread[t];
            let end = until.min(combo[t].events.len());
            let between = (copy_write + 1..end).fold(Set::EMPTY, |s, j| s | bit(first + j));
            ev.po.set_row(i, ev.po.row(i) & !between);
            // Nor does it precede the issue of a bulk copy in between.
            ev.issue.set_row(i, ev.issue.row(i) & !between);
        }
        ev.po_loc = &ev.po & &ev.loc;
        ev.cluster_barrier = cluster_barrier_instances(&ev);
        for f in 0..n {
            if let Kind::Fence(Fence::Proxy(kind)) = ev.info[f].kind {
                let at = ev.placement[f].expect("fences belong to threads");
                for m in members(ev.m & !ev.init) {
                    if phys[m].is_some_and(|l| in_fence_space(p, kind, &at, l)) {
                        ev.fence_space.add(f, m);
                    }
                }
            }
        }
        for (name, pairs) in &p.relations {
            let mut rel = Rel::empty(n);
            for &(a, b) in pairs {
                let of = |t: usize| thread_of[first_of_thread[t]];
                if a < combo.len() && b < combo.len() && !combo[a].events.is_empty() {
                    for i in members(of(a)) {
                        rel.set_row(i, rel.row(i) | of(b));
                    }
                }
            }
            ev.thread_relations.insert(name.clone(), rel.plus());
        }
        if p.threads
            .iter()
            .any(|t| t.body.iter().any(|s| s.token.is_some()))
        {
            ev.token_order = token_order(p, combo, &first_of_thread, n);
        } else {
            // No tokens: only the read and write of each RMW are ordered.
            ev.token_order = ev.rmw.clone();
        }
        // A compare-exchange that fails only reads, with its failure order (C11 7.17.7.4:
        // "if false, ... memory is affected according to the value of failure").
        for (i, q) in qualifiers.iter().enumerate() {
            if let Some(q) = q {
                let read = matches!(ev.info[i].kind, Kind::Read { .. });
                ev.qualified_order[i] = Some(q.event_order(read && ev.rmw.row(i).is_empty()));
            }
        }
        Ok(ev)
    }

    /// The barrier instances a barrier event may join are those of its key
    /// ([`barrier_instance`]).
    pub fn barrier_scope_key(&self, b: usize) -> &[u32] {
        self.barrier_instance[b]
            .as_deref()
            .expect("barrier events have an instance")
    }

    /// Takes the values of another valuation of the same paths: `combo` has the same events
    /// as the traces these events were built from, with other values. Values (of reads,
    /// writes and barrier ids) appear in no static relation, so only the events change.
    pub fn set_values(&mut self, combo: &[&Trace]) {
        let mut i = self.init.count_ones() as usize;
        for tr in combo {
            for e in &tr.events {
                debug_assert_eq!(self.info[i].stmt, Some(e.stmt), "same paths");
                self.info[i].kind.clone_from(&e.kind);
                i += 1;
            }
        }
        debug_assert_eq!(i, self.n, "same paths");
    }

    /// The location event `e` reads or writes; `None` for a fence or a barrier.
    pub fn location(&self, e: usize) -> Option<LocId> {
        match self.info[e].kind {
            Kind::Read { loc, .. } | Kind::Write { loc, .. } => Some(loc),
            _ => None,
        }
    }

    /// The value event `e` reads or writes; `None` for a fence or a barrier.
    pub fn value(&self, e: usize) -> Option<Value> {
        match self.info[e].kind {
            Kind::Read { value, .. } | Kind::Write { value, .. } => Some(value),
            _ => None,
        }
    }

    /// `[s]` over these events.
    pub fn id(&self, s: Set) -> Rel {
        Rel::id(self.n, s)
    }

    /// Events with no program-order successor, nor a bulk copy issued after them.
    pub fn last_of_thread(&self, e: usize) -> bool {
        // A bulk copy issued after `e` follows it too, though not in program order.
        self.po.row(e) == Set::EMPTY && self.issue.row(e) == Set::EMPTY
    }

    /// A short human label: `W.rlx.gpu x=1`, `R.acq.cta y=0`, `F.sc.gpu`, `bar.sync 1`.
    pub fn label(&self, p: &Program, e: usize) -> String {
        fn access_label(a: &Access) -> String {
            let mut s = match a.order {
                Order::Weak => "weak".to_string(),
                Order::Relaxed => "rlx".to_string(),
                Order::Acquire => "acq".to_string(),
                Order::Release => "rel".to_string(),
                o => o.ptx_name().to_string(),
            };
            if let Some(sc) = a.scope {
                s.push('.');
                s.push_str(sc.ptx_name());
            }
            if a.proxy != Proxy::Generic {
                s.push('.');
                s.push_str(a.proxy.name());
            }
            s
        }
        let name = |l: LocId| p.locations[l].name.clone();
        match &self.info[e].kind {
            Kind::Write { loc, value, .. } if self.info[e].thread.is_none() => {
                format!("init {}={value}", name(*loc))
            }
            Kind::Read {
                loc, access, value, ..
            } => format!("R.{} {}={value}", access_label(access), name(*loc)),
            Kind::Write {
                loc, access, value, ..
            } => format!("W.{} {}={value}", access_label(access), name(*loc)),
            Kind::Fence(Fence::Sc(s)) => format!("F.sc.{s}"),
            Kind::Fence(Fence::AcqRel(s)) => format!("F.acq_rel.{s}"),
            Kind::Fence(Fence::Proxy(k)) => format!("F.proxy.{}", k.name()),
            Kind::MbarrierInitFence => "F.mbarrier_init.release.cluster".into(),
            Kind::ClusterBarrier(ClusterBarrier::Arrive { release: true }) => {
                "barrier.cluster.arrive.release".into()
            }
            Kind::ClusterBarrier(ClusterBarrier::Arrive { release: false }) => {
                "barrier.cluster.arrive.relaxed".into()
            }
            Kind::ClusterBarrier(ClusterBarrier::Wait) => "barrier.cluster.wait.acquire".into(),
            Kind::Barrier { op, id, quorum } => {
                let op = match op {
                    BarrierOp::Sync => "sync",
                    BarrierOp::Arrive => "arrive",
                };
                let mut ops: Vec<String> = id.iter().map(|v| v.to_string()).collect();
                ops.extend(quorum.iter().map(|q| q.to_string()));
                format!("bar.{op} {}", ops.join(","))
            }
        }
    }
}

/// Token order over the events of a combination of traces (see [`Events::token_order`]).
fn token_order(p: &Program, combo: &[&Trace], first_of_thread: &[usize], n: usize) -> Rel {
    let mut order = Rel::empty(n);
    for (t, tr) in combo.iter().enumerate() {
        let body = &p.threads[t].body;
        // The events of the latest run of the statement that produced each token.
        let mut producers: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        let mut i = 0;
        while i < tr.events.len() {
            let stmt = tr.events[i].stmt;
            let mut instance = vec![first_of_thread[t] + i];
            while i + instance.len() < tr.events.len() && tr.events[i + instance.len()].stmt == stmt
            {
                instance.push(first_of_thread[t] + i + instance.len());
            }
            for pair in instance.windows(2) {
                order.add(pair[0], pair[1]);
            }
            if let Some(tok) = &body[stmt].token {
                for waited in &tok.after {
                    for &a in producers.get(waited.as_str()).into_iter().flatten() {
                        for &b in &instance {
                            order.add(a, b);
                        }
                    }
                }
                if let Some(out) = &tok.produces {
                    producers.insert(out.as_str(), instance.clone());
                }
            }
            i += instance.len();
        }
    }
    order.plus()
}

/// One event of a witness execution.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ExecEvent {
    /// The event's index, which the edge lists of [`Execution`] name.
    pub id: usize,
    /// `None` for initial writes.
    pub thread: Option<ThreadId>,
    /// Where the instruction was written.
    pub span: Option<Span>,
    /// A short human label: `W.rlx.gpu x=1`, `R.acq.cta y=0`, `F.sc.gpu`, `bar.sync 1`.
    pub label: String,
}

/// A consistent execution, kept as a witness of the final state it reaches. Edge lists name
/// event ids; `po` and `co` list immediate successors only.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Execution {
    /// Every event, initial writes included.
    pub events: Vec<ExecEvent>,
    /// Program order, immediate successors only.
    pub po: Vec<(usize, usize)>,
    /// The read and the write of one atomic instruction.
    pub rmw: Vec<(usize, usize)>,
    /// Reads-from: from each write to the reads that return its value.
    pub rf: Vec<(usize, usize)>,
    /// Coherence order per location, immediate successors only.
    pub co: Vec<(usize, usize)>,
    /// From-reads (`rf⁻¹; co`): from each read to the writes coherence-after the one it read.
    pub fr: Vec<(usize, usize)>,
    /// Release/acquire synchronization (morally strong release pattern → acquire pattern).
    pub sync: Vec<(usize, usize)>,
    /// The order of morally strong `fence.sc` pairs.
    pub sc: Vec<(usize, usize)>,
    /// Barrier synchronization between threads of one CTA.
    pub barrier: Vec<(usize, usize)>,
}

/// The barrier instance statement `stmt` of thread `t`, a barrier, joins: the instance of the
/// level of the program's [`Groups`] its qualifiers name ([`Qualifiers::group`]: a Vulkan
/// control barrier's execution scope), else its CTA (and GPU), as in PTX (*bar*: "barriers are
/// executed on a per-CTA basis"). Keys of one program have one length.
pub fn barrier_instance(p: &Program, t: ThreadId, stmt: usize) -> Vec<u32> {
    let level = p.threads[t].body[stmt]
        .qualifiers
        .as_ref()
        .and_then(|q| q.group);
    match (&p.groups, level) {
        (Some(groups), Some(level)) => groups.instance(t, level),
        _ => {
            let pl = p.threads[t].placement;
            vec![pl.gpu, pl.cta, u32::MAX]
        }
    }
}

/// Immediate edges of a transitive relation: drop pairs implied by two others.
pub fn immediate(r: &Rel) -> Vec<(usize, usize)> {
    let two_steps = r.seq(r);
    (r - &two_steps).pairs().collect()
}

/// [`Events::cluster_barrier`]. PTX ISA, *barrier.cluster*: "each thread in the cluster arrives
/// at the barrier", and `barrier.cluster.wait` waits "for all non-exited threads of the cluster to
/// perform barrier.cluster.arrive". The k-th arrive of each thread of a cluster joins the
/// cluster's k-th instance, a wait the instance of its thread's latest arrive (a wait before any
/// arrive waits for nothing this thread arrived at).
fn cluster_barrier_instances(ev: &Events) -> Rel {
    // A cluster: its GPU, its id, and the CTA when there is none (then the CTA is its own
    // cluster).
    type Cluster = (u32, Option<u32>, u32);
    // By cluster, each arrive (event, instance) and each wait (event, instance).
    let mut arrives: BTreeMap<Cluster, Vec<(usize, usize)>> = BTreeMap::new();
    let mut waits: BTreeMap<Cluster, Vec<(usize, usize)>> = BTreeMap::new();
    let mut uses: BTreeMap<Option<ThreadId>, usize> = BTreeMap::new();
    for b in members(ev.barriers) {
        let Kind::ClusterBarrier(op) = ev.info[b].kind else {
            continue;
        };
        let pl = ev.placement[b].expect("barriers belong to threads");
        let key = (pl.gpu, pl.cluster, pl.cluster.map_or(pl.cta, |_| 0));
        let k = uses.entry(ev.info[b].thread).or_insert(0);
        match op {
            ClusterBarrier::Arrive { .. } => {
                arrives.entry(key).or_default().push((b, *k));
                *k += 1;
            }
            ClusterBarrier::Wait if *k > 0 => waits.entry(key).or_default().push((b, *k - 1)),
            // A wait before any arrive waits on nothing this thread arrived at.
            ClusterBarrier::Wait => {}
        }
    }
    let mut rel = Rel::empty(ev.n);
    for (key, arrives) in &arrives {
        for &(w, k) in waits.get(key).into_iter().flatten() {
            for &(a, ka) in arrives {
                if ka == k && ev.info[a].thread != ev.info[w].thread {
                    rel.add(a, w);
                }
            }
        }
    }
    rel
}
