//! Thread-block clusters: the cluster barrier, `fence.mbarrier_init`, and distributed shared
//! memory (DSMEM) accesses to a peer CTA that may have exited.
//!
//! - `barrier.cluster.arrive{.release|.relaxed}` / `barrier.cluster.wait` (PTX ISA,
//!   *barrier.cluster*): every thread of the cluster arrives, then waits until all have. Each
//!   cluster has one hardware barrier, modelled as an mbarrier in its first CTA that is
//!   initialised at launch with the cluster's thread count ([`cluster_barrier`]): an arrive is
//!   an mbarrier arrive (release, or relaxed), the wait a blocking wait on the arrive's phase,
//!   which acquires ("barrier.cluster.wait has .acquire semantics by default"). The wait waits
//!   "for all non-exited threads of the cluster to perform barrier.cluster.arrive", and "when
//!   all non-exited threads in the cluster have executed barrier.cluster.arrive, the barrier
//!   completes and is automatically reinitialized": a thread that exits stops counting
//!   (`Machine::cluster_exit`), so a CTA that exits without arriving lets its peers' waits
//!   complete; a thread that neither arrives nor exits (blocked, or spinning) leaves them
//!   waiting: a hang. "Each thread must arrive at the barrier only once before the barrier
//!   completes": a second arrive in one phase is reported as an mbarrier misuse. So a thread's
//!   k-th arrive is on phase k, as in the axiomatic engine's matching
//!   (`axiomatic::enumerate::cluster_barrier_syncs`: the k-th arrive of each thread joins
//!   instance k, a wait its thread's latest arrive's).
//! - `fence.mbarrier_init.release.cluster`: "a light-weight fence ... that applies to prior
//!   mbarrier.init operations". The thread's inits so far travel with its later arrivals at a
//!   cluster barrier (or any mbarrier), relaxed ones included, to the threads whose wait
//!   completes that phase: they may then use those barriers ([`InitFences`]). Nothing else is
//!   ordered by it.
//! - DSMEM: a CTA's shared memory lives as long as the CTA (CUDA Programming Guide, *Distributed
//!   Shared Memory*: "ensure that all distributed shared memory operations are completed before a
//!   thread block exits"). An access to a peer's shared memory once every thread of the peer has
//!   exited fails as [`FailureKind::UseAfterExit`]. The exit of a thread of a cluster kernel with
//!   shared memory is a scheduling point ([`Setup::exits_are_visible`]), so the engines try it
//!   before and after the peers' accesses.

use super::ctx::Ctx;
use super::machine::{Halt, Machine, Setup, Status};
use super::mbarrier::{Arrive, MBarInfo, WaitOn, WaitSem};
use super::memory::Bits;
use super::report::{EventKind, FailureKind, Site};
use super::sched::Point;
use super::sync::Head;
use super::view::{Observed, View, ALL_LEVELS};
use crate::scope::{Order, Scope};
use std::sync::Arc;

pub mod state;

pub use self::state::{ClusterArrivals, InitFences};

/// The hardware barriers of `clusters` clusters of `threads` threads each, whose first CTAs are
/// `first_block(c)`: one per cluster, after the kernel's own mbarriers.
pub fn cluster_barriers(
    clusters: u32,
    threads: u32,
    first_block: impl Fn(u32) -> u32,
) -> Vec<MBarInfo> {
    (0..clusters)
        .map(|c| MBarInfo {
            name: format!("cluster{c}"),
            block: first_block(c),
            launch_count: Some(threads),
        })
        .collect()
}

/// The index of the hardware barrier of the cluster thread `t` runs in, if its cluster has
/// one: the launch-initialised barrier whose CTA lies in `t`'s cluster of `t`'s GPU (cluster
/// ids are per GPU). A CTA placed in no cluster is a cluster of one (PTX ISA, *Cluster of
/// Cooperative Thread Arrays*: a launch without cluster dimensions "will be treated as implicit
/// cluster launch with default dimension 1x1x1"): its barrier is one in that CTA, where a
/// launch gives it one (the litmus runtime does, for every CTA whose threads use it).
pub fn cluster_barrier(setup: &Setup, t: usize) -> Option<usize> {
    let here = setup.threads[t].placement;
    setup.mbarriers.iter().position(|b| {
        b.launch_count.is_some()
            && setup.blocks[b.block as usize].first().is_some_and(|&u| {
                let home = setup.threads[u].placement;
                home.gpu == here.gpu
                    && home.cluster == here.cluster
                    && (here.cluster.is_some() || home.cta == here.cta)
            })
    })
}

impl Setup {
    /// Whether a thread's exit is a scheduling point: in a kernel with clusters and shared
    /// memory, where a peer's access after the exit is a use after exit.
    pub fn exits_are_visible(&self) -> bool {
        self.threads.iter().any(|t| t.placement.cluster.is_some())
            && self.locs.iter().any(|l| l.shared.is_some())
    }
}

impl Machine {
    /// `barrier.cluster.arrive` (`.release` when `release`, else `.relaxed`) by `t` on its
    /// cluster's barrier `bar`: returns the phase arrived on. PTX ISA, *barrier.cluster*: "Each
    /// thread must arrive at the barrier only once before the barrier completes": a second
    /// arrive on the current phase is a misuse.
    pub fn cluster_arrive(
        &mut self,
        t: usize,
        bar: usize,
        release: bool,
        site: Site,
    ) -> Result<u32, Halt> {
        let phase = self.mbars[bar].phase;
        if self.cluster_arrivals.last(t) == Some(phase) {
            self.begin(t)?;
            let name = self.setup.mbarriers[bar].name.clone();
            let event = self.event(
                t,
                site,
                EventKind::Note(format!("barrier.cluster.arrive on {name} (phase {phase})")),
            );
            let headline = format!(
                "{} arrives at cluster barrier {name} twice in phase {phase}",
                self.setup.threads[t].name
            );
            let details = vec![
                format!("#{event} {}", self.describe(event)),
                format!(
                    "{}: PTX ISA, barrier.cluster: each thread must arrive at the barrier only                      once before the barrier completes (barrier.cluster.wait between the arrives)",
                    self.mbar_describe(bar)
                ),
            ];
            self.fail(FailureKind::MBarrierMisuse, headline, details);
            return Err(Halt);
        }
        let arrive = Arrive {
            count: 1,
            expect_tx: 0,
            release,
            scope: Scope::Cluster,
            no_complete: false,
        };
        // Recorded first: the arrive may complete the phase.
        self.cluster_arrivals.set(t, phase);
        self.mbar_arrive(t, bar, arrive, site)
    }

    /// `t` exited: its cluster's barrier stops expecting it. PTX ISA, *barrier.cluster*: the
    /// wait waits "for all non-exited threads of the cluster to perform barrier.cluster.arrive".
    /// Later phases expect one arrival fewer; so does the current one unless `t` already arrived
    /// on it, and the exit may then complete it.
    pub(super) fn cluster_exit(&mut self, t: usize) {
        let Some(bar) = cluster_barrier(&self.setup, t) else {
            return;
        };
        let arrived = self.cluster_arrivals.last(t) == Some(self.mbars[bar].phase);
        let b = &mut self.mbars[bar];
        b.count = b.count.saturating_sub(1);
        if !arrived {
            b.pending = b.pending.saturating_sub(1);
            self.mbar_settle(bar, None);
        }
    }

    /// `fence.mbarrier_init.release.cluster` by `t`. A kernel's mbarriers are objects: their
    /// inits travel with the thread's later arrivals ([`InitFences`]). A litmus program's are
    /// locations, initialised by weak stores ([`Machine::mbarrier_init_store`]): the fence
    /// releases those alone, as a release fence whose view holds only the init stores (observed,
    /// with their coherence floors), carried by the thread's later strong writes (a release
    /// fence's pattern) and by its later `barrier.cluster.arrive`s, relaxed ones included
    /// (`ptx-v8.cat`, init-sync).
    pub fn fence_mbarrier_init(&mut self, t: usize, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(
            t,
            site,
            EventKind::Note("fence.mbarrier_init.release.cluster".to_string()),
        );
        let fenced = &mut self.cluster.fenced;
        if fenced.len() <= t {
            fenced.resize(t + 1, 0);
        }
        fenced[t] = epoch;
        if self.threads[t].mbar_inits.is_empty() {
            return Ok(());
        }
        let mut inits = View::new(self.setup.threads.len(), self.setup.locs.len());
        for &(loc, index, epoch) in &self.threads[t].mbar_inits {
            let floor = &mut inits.floor_mut()[loc];
            *floor = (*floor).max(index);
            inits.observe(Observed {
                thread: t as u32,
                epoch,
                levels: ALL_LEVELS,
            });
        }
        let inits = Arc::new(inits);
        let head = Head {
            releaser: self.actor(t, Some(Scope::Cluster)),
            view: Arc::clone(&inits),
            levels: ALL_LEVELS,
        };
        let th = Arc::make_mut(&mut self.threads[t]);
        th.fence_heads.push(head);
        th.init_release = Some(inits);
        Ok(())
    }

    /// A litmus program's `mbarrier.init`: a weak store of the barrier's initial state, which a
    /// later `fence.mbarrier_init` of the thread releases.
    pub fn mbarrier_init_store(
        &mut self,
        t: usize,
        loc: usize,
        value: Bits,
        site: Site,
    ) -> Result<(), Halt> {
        self.store(t, loc, value, Order::Weak, None, site)?;
        let index = self.locs[loc].latest() as u32;
        let th = Arc::make_mut(&mut self.threads[t]);
        let epoch = th.view.clock(0)[t];
        th.mbar_inits.push((loc, index, epoch));
        Ok(())
    }

    /// A DSMEM access of `t` to `loc`: the owning CTA must not have exited.
    pub(super) fn dsmem_check(&mut self, t: usize, loc: usize, event: usize) -> Result<(), Halt> {
        let Some(addr) = self.setup.locs[loc].shared else {
            return Ok(());
        };
        let owner = addr.block as usize;
        if owner == self.setup.threads[t].block as usize
            || !self.setup.blocks[owner]
                .iter()
                .all(|&u| self.threads[u].status == Status::Done)
        {
            return Ok(());
        }
        let headline = format!(
            "{} accesses {} in the shared memory of block {owner}, which has exited",
            self.setup.threads[t].name, self.setup.locs[loc].name
        );
        let details = vec![
            format!("#{event} {}", self.describe(event)),
            format!(
                "block {owner}'s shared memory ended with it: keep it alive until its cluster \
                 peers are done with it (barrier_cluster_arrive/wait before it exits)"
            ),
        ];
        self.fail(FailureKind::UseAfterExit, headline, details);
        Err(Halt)
    }

    /// A release arrive at `.cta` scope on a barrier of another CTA (`home`): say in the trace
    /// that it releases nothing there.
    pub(super) fn note_remote_cta_arrive(&mut self, event: usize, home: usize) {
        if let Some(EventKind::Note(text)) = self.events.get_mut(event - 1).map(|e| &mut e.what) {
            text.push_str(&format!(
                " [.cta scope from another CTA: releases nothing to block {home}]"
            ));
        }
    }
}

/// A thread's arrival at its cluster's barrier, for [`Ctx::barrier_cluster_wait`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClusterArrival(pub(crate) u32);

impl Ctx {
    fn cluster_barrier(&self) -> usize {
        let m = self.machine.lock().unwrap_or_else(|e| e.into_inner());
        match cluster_barrier(&m.setup, self.thread) {
            Some(b) => b,
            None => {
                drop(m);
                self.fail(format!(
                    "{} uses the cluster barrier in a launch without clusters (Grid::with_clusters)",
                    self.info.name
                ))
            }
        }
    }

    /// `barrier.cluster.arrive.release` (`release`) or `.relaxed`.
    pub fn barrier_cluster_arrive(&self, release: bool, site: Site) -> ClusterArrival {
        let bar = self.cluster_barrier();
        self.sched.point(self.thread, Point::MBarrier(bar));
        ClusterArrival(self.step(|m| m.cluster_arrive(self.thread, bar, release, site)))
    }

    /// `barrier.cluster.wait`: blocks until every non-exited thread of the cluster arrived on
    /// the arrival's phase.
    pub fn barrier_cluster_wait(&self, arrival: ClusterArrival, site: Site) {
        let bar = self.cluster_barrier();
        // PTX ISA, barrier.cluster: "barrier.cluster.wait has .acquire semantics" at cluster
        // scope.
        self.mbar_wait(
            bar,
            WaitOn::Token(arrival.0),
            WaitSem::ACQUIRE_CLUSTER,
            true,
            site,
        );
    }

    /// `fence.mbarrier_init.release.cluster`.
    pub fn fence_mbarrier_init(&self, site: Site) {
        self.sched.point(self.thread, Point::Local);
        self.step(|m| m.fence_mbarrier_init(self.thread, site))
    }
}
