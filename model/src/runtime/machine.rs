//! One execution's state and the semantics of every operation. The engine has already decided
//! that thread `t` runs now (and, under loom, which store a load reads); each method here performs
//! one operation atomically and says whether the thread must stop (`Halt`) or block.

use super::async_groups::AsyncGroups;
use super::memory::{AccessRec, Bits, LocInfo, LocState, StoreRec};
use super::race::find_race;
use super::report::{
    CycleStep, Decision, Event, EventKind, Failure, FailureKind, Lasso, RmwKind, Site,
};
use super::sync::{
    acquire, acquires, morally_strong, releases, Actor, Head, Heads, PendingAcquire, ScFence,
};
use super::view::{LevelMask, Observed, View, ALL_LEVELS};
use crate::scope::{Order, Placement, Scope};
use std::collections::HashMap;
use std::sync::Arc;

/// The calling thread must unwind: the execution failed, was found infeasible, or hit a bound.
#[derive(Debug)]
pub struct Halt;

/// Static facts about a kernel launch, shared by every execution.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The kernel's name, as reports print it (and the replay fingerprint hashes it).
    pub name: String,
    /// Every GPU thread (the async agents included), by grid-wide index.
    pub threads: Vec<ThreadInfo>,
    /// Every memory location, by index.
    pub locs: Vec<LocInfo>,
    /// The threads of each block, by global thread id.
    pub blocks: Vec<Vec<usize>>,
    /// Operations one thread may perform before the execution is cut off as a possible hang.
    pub max_steps: usize,
    /// Stop an execution at its first race (checking) or keep going (litmus outcomes).
    pub stop_on_race: bool,
    /// The mbarriers in shared memory (one per declared barrier per block).
    pub mbarriers: Vec<super::mbarrier::MBarInfo>,
    /// Per block, the thread id of its asynchronous copy agent (TMA unit), if the kernel has any.
    pub agents: Vec<usize>,
    /// How many blocks run at once (`None`: all): the others wait, in id order, for a resident
    /// block to finish ([`Status::NotResident`]).
    pub resident_blocks: Option<usize>,
    /// Symmetry (see `Grid::symmetric_blocks`): per block, the block that must have started
    /// before it may start ([`Status::NotStarted`]); empty when no block waits.
    pub starts_after: Vec<Option<usize>>,
    /// The slots of litmus warp exchanges (`litmus::warp`), which hold register data rather
    /// than the program's memory: their barriers order them alone
    /// ([`Machine::exchange_barrier`]) and their stores carry no release. Empty for kernels.
    pub exchange_slots: Arc<[usize]>,
}

/// Who a GPU thread is: where it runs and how reports name it.
#[derive(Clone, Debug)]
pub struct ThreadInfo {
    /// Its place in the hierarchy (thread, CTA, cluster, GPU) that scopes are decided on.
    pub placement: Placement,
    /// Its block (CTA), by grid-wide index (`blockIdx` flattened).
    pub block: u32,
    /// Its index within the block (`threadIdx` flattened).
    pub tid: u32,
    /// How reports name the thread (`block 1 thread 0`, `P1`).
    pub name: String,
    /// An asynchronous agent (the block's TMA unit), not a thread of the kernel body.
    pub agent: bool,
}

impl Setup {
    /// Identifies the kernel shape a replay token belongs to.
    pub fn fingerprint(&self) -> u32 {
        use super::report::{fnv1a, FNV_SEED};
        let mut h = fnv1a(self.name.as_bytes(), FNV_SEED);
        h = fnv1a(&(self.threads.len() as u64).to_le_bytes(), h);
        for loc in &self.locs {
            h = fnv1a(loc.name.as_bytes(), h);
        }
        h
    }
}

/// What a GPU thread is doing: running, or blocked (and on what), or done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Able to perform its next operation.
    Running,
    /// Blocked at a CTA barrier until its instance completes.
    AtBarrier,
    /// Blocked in a spin loop until some other thread stores to one of these locations a value
    /// other than the one the failed iteration read there (see [`super::spin`]).
    Spinning(Vec<(usize, Bits)>),
    /// Blocked until this mbarrier leaves the given phase.
    MBarWait {
        /// The mbarrier (index into `Setup::mbarriers`).
        bar: usize,
        /// The phase waited on: the thread runs again once the mbarrier's phase differs.
        phase: u32,
    },
    /// Blocked in `cp.async.bulk.wait_group{.read} pending` until at most `pending` committed
    /// bulk async-groups are pending (with `read`: have not finished reading).
    BulkWait {
        /// How many of the most recent committed groups may stay pending.
        pending: usize,
        /// Whether the wait is `.read`: only the copies' source reads are waited for.
        read: bool,
    },
    /// Blocked in `cp.async.wait_group n` until at most `n` committed groups are pending.
    CpAsyncWait(usize),
    /// An async agent with nothing to do.
    AgentIdle,
    /// A thread of a block the GPU has not made resident yet: it starts once a resident block
    /// has finished and every lower block has started.
    NotResident,
    /// A thread of a block declared symmetric to a lower one that has not started yet
    /// (`Setup::starts_after`): it starts once that block has.
    NotStarted,
    /// Finished: the kernel body returned (or the agent ended).
    Done,
}

#[derive(Clone, Debug)]
pub(super) struct ThreadState {
    pub(super) view: View,
    /// The latest release fence of each scope: heads for the strong stores that follow.
    pub(super) fence_heads: Vec<Head>,
    /// Strong reads an acquire fence may still turn into synchronization.
    pub(super) pending: Vec<PendingAcquire>,
    /// Per location, this thread's latest release store to it (release sequences).
    pub(super) rel_seq: Vec<(usize, Head)>,
    pub(super) status: Status,
    pub(super) steps: usize,
    /// What the current spin-loop iteration read so far: (location, value), in program order.
    pub(super) watch: Vec<(usize, Bits)>,
    /// The current spin-loop iteration stored something (a store, or an RMW that changed the
    /// value it read).
    pub(super) spin_wrote: bool,
    /// What the previous iteration read, if it stored nothing (without pruning).
    pub(super) last_spin: Option<Vec<(usize, Bits)>>,
    /// The event count when the current spin-loop iteration began (the end of the previous
    /// one, or the thread's start).
    pub(super) iteration_from: usize,
    /// While [`Status::Spinning`]: the trace positions (from 0) of the iteration that blocked,
    /// the one a hang's lasso repeats.
    pub(super) blocked_iteration: Vec<usize>,
    /// Dynamic occurrence count per shared-memory access site (bank conflicts).
    occurrences: HashMap<Site, u32>,
    /// Barrier ids the thread may still reach (`None`: unknown, maybe any).
    pub(super) future_barriers: Option<Vec<i64>>,
    /// Its `mbarrier.init` stores so far (location, index in modification order, epoch), which a
    /// `fence.mbarrier_init` releases ([`super::cluster`]).
    pub(super) mbar_inits: Vec<(usize, u32, u32)>,
    /// What its latest `fence.mbarrier_init` released: its inits before the fence alone.
    pub(super) init_release: Option<Arc<View>>,
    /// The bulk async-groups of its shared→global bulk copies (see [`super::async_copy`]).
    pub(super) bulk: AsyncGroups,
    /// Its `cp.async` groups (see [`super::cp_async`]).
    pub(super) cp: AsyncGroups,
    /// The Tile IR token-ordered operation in progress, if any.
    pub(super) token_op: Option<super::tokens::TokenOp>,
}

/// What makes threads meet at a barrier.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BarrierKey {
    /// `syncthreads` at this call site.
    Site(Site),
    /// PTX `bar` with this barrier id.
    Id(i64),
}

/// One thread's arrival at a barrier instance that has not completed yet.
#[derive(Clone, Debug)]
pub(super) struct Arrival {
    pub(super) thread: usize,
    pub(super) site: Site,
    pub(super) key: BarrierKey,
    pub(super) view: Arc<View>,
    pub(super) wait: bool,
    pub(super) quorum: Option<usize>,
    /// For the barrier of a litmus warp exchange, the only locations it orders (see
    /// [`Machine::exchange_barrier`]); `None` for a barrier that orders memory.
    pub(super) exchange: Option<Arc<[usize]>>,
}

/// Shared-memory word addresses one warp touched at one site, one dynamic occurrence.
pub type BankKey = (Site, u32, u32, u32);

/// Cloning a machine forks the execution (the state-caching search does, for litmus programs).
#[derive(Clone)]
pub struct Machine {
    /// The launch's static facts.
    pub setup: Arc<Setup>,
    /// Shared until written (`Arc::make_mut`): a forked machine copies only the threads that
    /// act after the fork.
    pub(super) threads: Vec<Arc<ThreadState>>,
    /// Shared until written, like `threads`.
    pub locs: Vec<Arc<LocState>>,
    pub(super) sc_fences: Vec<ScFence>,
    pub(super) barrier_waiting: Vec<Vec<Arrival>>,
    /// The trace: every visible operation so far, in execution order (event `n` at `n - 1`);
    /// recorded only while tracing.
    pub events: Vec<Event>,
    /// Events so far (recorded in `events` only while tracing).
    pub(super) event_count: usize,
    /// Every decision the engine took so far: the replay token's body.
    pub decisions: Vec<Decision>,
    /// Keep the trace, the decisions (for reports and replay tokens) and loom's mirrors. The
    /// state-caching search turns it off: it reports final states only, and forks machines at
    /// every step.
    pub(crate) trace: bool,
    /// Threads may end spin-loop iterations ([`Machine::spin_wait`]), so loads note what they
    /// watch. Litmus programs never do (their loops are unrolled).
    pub(crate) spin_loops: bool,
    /// Discard every failed spin-loop iteration that the same execution without it covers (see
    /// [`super::spin`]); set for engines that explore that execution ([`Engine::prunes_spins`]).
    pub(crate) prune_spins: bool,
    /// The failure that ended the execution, if one did.
    pub failure: Option<Failure>,
    /// Every thread unwinds at its next step.
    pub halted: bool,
    /// Discard this execution: loom chose a store our model forbids, or a failed spin-loop
    /// iteration was not needed or repeated the previous one (see [`super::spin`]).
    pub infeasible: bool,
    /// Races seen while not stopping on them (litmus mode).
    pub races: usize,
    /// Shared-memory bank accounting: per warp-wide access, the 4-byte word addresses its
    /// lanes touched (see `bank.rs`).
    pub bank: HashMap<BankKey, Vec<u64>>,
    /// Values threads chose to expose (litmus registers).
    pub observed: Vec<(String, i64)>,
    /// Threads to unpark once the machine lock is released.
    pub wake: Vec<usize>,
    /// Per block, whether one of its threads has performed an operation or exited (symmetry:
    /// `Setup::starts_after`).
    blocks_started: Vec<bool>,
    /// mbarrier states, indexed like `setup.mbarriers`.
    pub(super) mbars: Vec<super::mbarrier::MBarState>,
    /// Per block, the copies its async agent has yet to perform.
    pub(super) agent_work: Vec<super::async_copy::AgentWork>,
    /// Tile IR token-ordered operations, per thread (empty until the first one).
    pub(super) tokens: Vec<super::tokens::TokenLog>,
    /// Predicates of voting barriers (`syncthreads_count/and/or`).
    pub(super) votes: super::barriers::Votes,
    /// Pending warp-synchronous operations and their results.
    pub(super) warps: super::warp::Warps,
    /// `cp.async.mbarrier.arrive`s waiting for their thread's prior `cp.async` copies.
    pub(super) cp_arrives: Vec<super::cp_async::CpArrive>,
    /// `ld.global.nc` reads so far.
    pub(super) nc_reads: Vec<super::noncoherent::NcRead>,
    /// What `fence.mbarrier_init` published across clusters ([`super::cluster`]).
    pub(super) cluster: super::cluster::InitFences,
    /// Per thread, the cluster barrier phase of its latest arrive ([`super::cluster`]).
    pub(super) cluster_arrivals: super::cluster::ClusterArrivals,
    /// Every `fence.proxy.async` so far (see [`super::async_copy`]).
    pub(super) proxy_fences: Vec<super::async_copy::ProxyFence>,
    empty_heads: Heads,
}

impl Machine {
    /// The machine at the start of an execution: every location holding its initial value,
    /// every thread running (or not resident, or not started: see [`Setup::resident_blocks`],
    /// [`Setup::starts_after`]) with an empty view.
    pub fn new(setup: Arc<Setup>) -> Machine {
        let (n, l) = (setup.threads.len(), setup.locs.len());
        let empty_heads: Heads = Arc::new(Vec::new());
        let thread = ThreadState {
            view: View::new(n, l),
            fence_heads: Vec::new(),
            pending: Vec::new(),
            rel_seq: Vec::new(),
            status: Status::Running,
            steps: 0,
            watch: Vec::new(),
            spin_wrote: false,
            last_spin: None,
            iteration_from: 0,
            blocked_iteration: Vec::new(),
            occurrences: HashMap::new(),
            future_barriers: None,
            mbar_inits: Vec::new(),
            init_release: None,
            bulk: AsyncGroups::default(),
            cp: AsyncGroups::default(),
            token_op: None,
        };
        let thread = Arc::new(thread);
        // Occupancy: the kernel threads of blocks past the resident ones start later.
        let waiting = Arc::new(ThreadState {
            status: Status::NotResident,
            ..(*thread).clone()
        });
        let resident = |u: usize| {
            let info = &setup.threads[u];
            info.agent
                || setup
                    .resident_blocks
                    .is_none_or(|r| (info.block as usize) < r)
        };
        let not_started = Arc::new(ThreadState {
            status: Status::NotStarted,
            ..(*thread).clone()
        });
        let gated = |u: usize| {
            let info = &setup.threads[u];
            !info.agent
                && setup
                    .starts_after
                    .get(info.block as usize)
                    .is_some_and(Option::is_some)
        };
        Machine {
            // One shared initial state: each thread copies it on its first write.
            threads: (0..n)
                .map(|u| {
                    Arc::clone(if !resident(u) {
                        &waiting
                    } else if gated(u) {
                        &not_started
                    } else {
                        &thread
                    })
                })
                .collect(),
            blocks_started: vec![false; setup.blocks.len()],
            locs: setup
                .locs
                .iter()
                .map(|l| Arc::new(LocState::new(l.init, &empty_heads)))
                .collect(),
            sc_fences: Vec::new(),
            barrier_waiting: vec![Vec::new(); setup.blocks.len()],
            events: Vec::new(),
            event_count: 0,
            decisions: Vec::new(),
            trace: true,
            spin_loops: true,
            prune_spins: false,
            failure: None,
            halted: false,
            infeasible: false,
            races: 0,
            bank: HashMap::new(),
            observed: Vec::new(),
            wake: Vec::new(),
            mbars: setup
                .mbarriers
                .iter()
                .map(super::mbarrier::MBarState::at_launch)
                .collect(),
            agent_work: vec![super::async_copy::AgentWork::default(); setup.agents.len()],
            tokens: Vec::new(),
            votes: Default::default(),
            warps: Default::default(),
            cp_arrives: Vec::new(),
            nc_reads: Vec::new(),
            cluster: Default::default(),
            cluster_arrivals: Default::default(),
            proxy_fences: Vec::new(),
            empty_heads,
            setup,
        }
    }

    /// What thread `t` is doing now.
    pub fn status(&self, t: usize) -> &Status {
        &self.threads[t].status
    }

    /// The value a location ends with: the last store in modification order.
    pub fn final_value(&self, loc: usize) -> Bits {
        self.locs[loc]
            .stores
            .last()
            .expect("every location has its initial store")
            .value
    }

    pub(super) fn actor(&self, t: usize, scope: Option<Scope>) -> Actor {
        Actor {
            thread: t,
            placement: self.setup.threads[t].placement,
            scope,
        }
    }

    /// Start an operation of `t`: record the scheduling decision and enforce the step bound.
    pub(super) fn begin(&mut self, t: usize) -> Result<(), Halt> {
        if self.trace {
            self.decisions.push(Decision::Run(t as u32));
        }
        self.block_started(t);
        let th = Arc::make_mut(&mut self.threads[t]);
        th.steps += 1;
        if th.steps > self.setup.max_steps {
            let name = &self.setup.threads[t].name;
            let headline = format!(
                "{name} performed more than {} operations: possibly a hang (bounded result: the \
                 step bound cut this execution short)",
                self.setup.max_steps
            );
            self.fail(FailureKind::PossibleHang, headline, vec![]);
            return Err(Halt);
        }
        Ok(())
    }

    pub(super) fn event(&mut self, thread: usize, site: Site, what: EventKind) -> usize {
        self.event_count += 1;
        if self.trace {
            self.events.push(Event { thread, site, what });
        }
        self.event_count
    }

    /// Record the first failure and stop every thread.
    pub fn fail(&mut self, kind: FailureKind, headline: String, details: Vec<String>) {
        if self.failure.is_none() && !self.infeasible {
            self.failure = Some(Failure {
                kind,
                headline,
                details,
                lasso: None,
            });
        }
        self.halt();
    }

    /// Discard this execution (see [`Machine::infeasible`]) and halt every thread.
    pub fn mark_infeasible(&mut self) {
        self.infeasible = true;
        self.halt();
    }

    /// A failed spin-loop iteration that the same execution without it covers (see
    /// [`super::spin`]): discarded like an infeasible execution.
    pub(super) fn discard_covered_iteration(&mut self) {
        self.mark_infeasible();
    }

    fn halt(&mut self) {
        self.halted = true;
        for (t, th) in self.threads.iter().enumerate() {
            if matches!(
                th.status,
                Status::AtBarrier
                    | Status::Spinning(_)
                    | Status::MBarWait { .. }
                    | Status::BulkWait { .. }
                    | Status::CpAsyncWait(_)
                    | Status::AgentIdle
                    | Status::NotResident
                    | Status::NotStarted
            ) {
                self.wake.push(t);
            }
        }
    }

    /// Check a new access (`rmw`: a read-modify-write's) against every earlier conflicting
    /// one, then remember it.
    #[allow(clippy::too_many_arguments)]
    fn race_check(
        &mut self,
        t: usize,
        loc: usize,
        actor: Actor,
        write: bool,
        rmw: bool,
        epoch: u32,
        event: usize,
    ) -> Result<(), Halt> {
        self.token_check(t, loc, write, event)?;
        self.dsmem_check(t, loc, event)?;
        if write && !self.nc_reads.is_empty() {
            self.nc_check_write(t, loc)?;
        }
        let view = &self.threads[t].view;
        if let Some(race) = find_race(&self.locs[loc].accesses, view, &actor, write) {
            if self.setup.stop_on_race {
                let (kind, headline, details) = race.describe(self, loc, event);
                self.fail(kind, headline, details);
                return Err(Halt);
            }
            self.races += 1;
        }
        Arc::make_mut(&mut self.locs[loc]).accesses.push(AccessRec {
            actor,
            epoch,
            write,
            event,
            rmw,
            async_proxy: false,
        });
        Ok(())
    }

    fn note_shared(&mut self, t: usize, loc: usize, site: Site) {
        let Some(addr) = self.setup.locs[loc].shared else {
            return;
        };
        let info = &self.setup.threads[t];
        let occ = Arc::make_mut(&mut self.threads[t])
            .occurrences
            .entry(site)
            .or_insert(0);
        *occ += 1;
        let key = (site, addr.block, info.tid / 32, *occ);
        self.bank.entry(key).or_default().push(addr.byte / 4);
    }

    /// The release heads a strong store by `t` to `loc` carries.
    fn release_heads(&self, t: usize, loc: usize, order: Order, actor: &Actor) -> Vec<Head> {
        let th = &self.threads[t];
        let mut heads = Vec::new();
        // An exchange's slot is no memory of the program: its relaxed RMWs end no release
        // pattern (PTX grants memory ordering among a warp's lanes to `bar.warp.sync` alone;
        // the cat models' `pattern-w` leaves `WX` out).
        if !actor.strong() || self.setup.exchange_slots.contains(&loc) {
            return heads;
        }
        if releases(order) {
            heads.push(Head {
                releaser: *actor,
                view: Arc::new(th.view.clone()),
                levels: ALL_LEVELS,
            });
        }
        // A release fence followed by this strong write.
        heads.extend(th.fence_heads.iter().cloned());
        // An earlier release store of this thread to the same location (release sequence).
        if let Some((_, head)) = th.rel_seq.iter().find(|(l, _)| *l == loc) {
            heads.push(head.clone());
        }
        heads
    }

    /// Append a store and do what follows from it: floors, release sequence, waking spinners.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn append_store(
        &mut self,
        t: usize,
        loc: usize,
        value: Bits,
        epoch: u32,
        actor: Actor,
        order: Order,
        heads: Vec<Head>,
        event: usize,
    ) {
        let heads = if heads.is_empty() {
            Arc::clone(&self.empty_heads)
        } else {
            Arc::new(heads)
        };
        let own = heads
            .first()
            .filter(|h| h.releaser == actor && releases(order))
            .cloned();
        let state = Arc::make_mut(&mut self.locs[loc]);
        state.stores.push(StoreRec {
            value,
            writer: Some(t),
            epoch,
            actor: Some(actor),
            heads,
            event,
            chain: Vec::new(),
        });
        let index = state.latest() as u32;
        let th = Arc::make_mut(&mut self.threads[t]);
        th.view.floor_mut()[loc] = index;
        if let Some(head) = own {
            th.rel_seq.retain(|(l, _)| *l != loc);
            th.rel_seq.push((loc, head));
        }
        self.wake_spinners(t, loc);
    }

    /// Loom only: a new version of `loc`'s mirror stands for its newest store.
    fn push_mirror(&mut self, loc: usize) {
        if self.trace {
            let latest = self.locs[loc].latest() as u32;
            Arc::make_mut(&mut self.locs[loc]).mirror.push(latest);
        }
    }

    /// How many stores a load of `loc` by `t` may read now (the engine chooses among them).
    pub fn readable(&self, t: usize, loc: usize) -> usize {
        self.locs[loc].latest() - self.threads[t].view.floor()[loc] as usize + 1
    }

    /// Which store a load of `loc` by `t` reads: loom's pick (checked against our floor) or
    /// the engine's choice among the `n` readable stores, newest first.
    fn pick_store(
        &mut self,
        t: usize,
        loc: usize,
        mirror: Option<u32>,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<usize, Halt> {
        let floor = self.threads[t].view.floor()[loc] as usize;
        let latest = self.locs[loc].latest();
        let store = match mirror {
            Some(version) => {
                let store = self.locs[loc].mirror[version as usize] as usize;
                if store < floor {
                    self.mark_infeasible();
                    return Err(Halt);
                }
                store
            }
            None if latest == floor => latest,
            None => latest - choose(latest - floor + 1),
        };
        if latest > floor && self.trace {
            self.decisions.push(Decision::Pick((latest - store) as u32));
        }
        Ok(store)
    }

    /// Join (or, for a non-acquiring strong read, remember) what the read store releases, and
    /// return the writes the read observes ([`Machine::note_observed`] records them: a caller
    /// first checks the read for races, which observation does not order, see `load`).
    fn observe(
        &mut self,
        t: usize,
        loc: usize,
        store: usize,
        reader: &Actor,
        order: Order,
    ) -> Vec<Observed> {
        // An acquire pattern is also a strong read of `loc` followed in program order by an
        // acquire of `loc`: this acquire joins what the thread's earlier strong reads of `loc`
        // observed, not only what it reads itself.
        let earlier_reads = |th: &ThreadState| th.pending.iter().any(|p| p.loc == loc);
        if acquires(order) && reader.strong() && earlier_reads(&self.threads[t]) {
            let th = Arc::make_mut(&mut self.threads[t]);
            for p in th.pending.iter().filter(|p| p.loc == loc) {
                acquire(&mut th.view, reader, &p.heads, p.rf_levels);
            }
        }
        let s = &self.locs[loc].stores[store];
        let Some(writer) = s.actor else {
            return Vec::new();
        };
        // A read of its own thread's write observes it, weak or not (program order makes the
        // pair morally strong). Base causality orders that write before the read anyway; the
        // observation matters where only causality's observation clause reaches: a bulk copy
        // issued after the read (`async_copy`).
        if !reader.strong() {
            return match writer.thread == t {
                true => self.observed_through(loc, store, ALL_LEVELS),
                false => Vec::new(),
            };
        }
        let rf_levels = morally_strong(&writer, reader);
        if rf_levels == 0 {
            return Vec::new();
        }
        let observed = self.observed_through(loc, store, rf_levels);
        let s = &self.locs[loc].stores[store];
        if s.heads.is_empty() {
            return observed;
        }
        let heads = Arc::clone(&s.heads);
        let th = Arc::make_mut(&mut self.threads[t]);
        if acquires(order) {
            acquire(&mut th.view, reader, &heads, rf_levels);
        } else {
            th.pending.push(PendingAcquire {
                loc,
                heads,
                rf_levels,
            });
        }
        observed
    }

    /// Records writes a read observed (from [`Machine::observe`]).
    fn note_observed(&mut self, t: usize, observed: Vec<Observed>) {
        if observed.is_empty() {
            return;
        }
        let th = Arc::make_mut(&mut self.threads[t]);
        for o in observed {
            th.view.observe(o);
        }
    }

    /// PTX "Observation Order": a read observes the write it reads from (when the pair is morally
    /// strong, at `rf_levels`) and, through RMWs, every write that write's RMW observed.
    fn observed_through(&self, loc: usize, store: usize, rf_levels: LevelMask) -> Vec<Observed> {
        let s = &self.locs[loc].stores[store];
        let Some(writer) = s.writer else {
            return Vec::new();
        };
        let mut observed = vec![Observed {
            thread: writer as u32,
            epoch: s.epoch,
            levels: rf_levels,
        }];
        observed.extend(s.chain.iter().map(|o| Observed {
            levels: o.levels & rf_levels,
            ..*o
        }));
        observed.retain(|o| o.levels != 0);
        observed
    }

    /// A load by thread `t` of `loc`: picks the store it reads among those its view still
    /// allows (through `choose`, or loom's `mirror`), joins release heads when the load acquires,
    /// and checks it for races. Fails (halts) on a race when stopping on races, on a misuse or
    /// at the step bound.
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        &mut self,
        t: usize,
        loc: usize,
        order: Order,
        scope: Option<Scope>,
        site: Site,
        mirror: Option<u32>,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<Bits, Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let store = self.pick_store(t, loc, mirror, choose)?;
        let value = self.locs[loc].stores[store].value;
        let actor = self.actor(t, scope);
        let event = self.event(
            t,
            site,
            EventKind::Load {
                loc,
                order,
                scope,
                value,
                store,
            },
        );
        self.note_shared(t, loc, site);
        Arc::make_mut(&mut self.threads[t]).view.floor_mut()[loc] = store as u32;
        self.watch(t, loc, value, false);
        let observed = self.observe(t, loc, store, &actor, order);
        // After the read synchronizes: an acquire read is itself in causality order after what
        // precedes the release it reads (base causality is `po? ; (sync ; po?)+`, and `sync`
        // ends at the acquire pattern's read), so it races with none of that. Before what it
        // observes counts: causality is observation followed by base causality, which is not
        // reflexive, so a write the read observes only through other RMWs (not morally strong
        // with it) still races with it.
        self.race_check(t, loc, actor, false, false, epoch, event)?;
        self.note_observed(t, observed);
        Ok(value)
    }

    /// A store by thread `t` of `value` to `loc`: appended last in modification order, with the
    /// release heads it carries, and checked for races. Fails (halts) as [`Machine::load`].
    pub fn store(
        &mut self,
        t: usize,
        loc: usize,
        value: Bits,
        order: Order,
        scope: Option<Scope>,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let actor = self.actor(t, scope);
        let event = self.event(
            t,
            site,
            EventKind::Store {
                loc,
                order,
                scope,
                value,
            },
        );
        self.race_check(t, loc, actor, true, false, epoch, event)?;
        self.note_shared(t, loc, site);
        if self.spin_loops {
            Arc::make_mut(&mut self.threads[t]).spin_wrote = true;
        }
        let heads = self.release_heads(t, loc, order, &actor);
        self.append_store(t, loc, value, epoch, actor, order, heads, event);
        self.push_mirror(loc);
        Ok(())
    }

    /// An atomic read-modify-write: reads the newest store (atomicity) and, unless `apply`
    /// declines (a failed CAS), appends the new value right after it.
    #[allow(clippy::too_many_arguments)]
    pub fn rmw(
        &mut self,
        t: usize,
        loc: usize,
        kind: RmwKind,
        apply: &dyn Fn(Bits) -> Option<Bits>,
        order: Order,
        scope: Scope,
        site: Site,
    ) -> Result<Bits, Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let actor = self.actor(t, Some(scope));
        let read = self.locs[loc].latest();
        let old = self.locs[loc].stores[read].value;
        let new = apply(old);
        let event = self.event(
            t,
            site,
            EventKind::Rmw {
                loc,
                kind,
                order,
                scope,
                old,
                new,
            },
        );
        self.note_shared(t, loc, site);
        Arc::make_mut(&mut self.threads[t]).view.floor_mut()[loc] = read as u32;
        self.watch(t, loc, old, new.is_some_and(|n| n != old));
        let observed = self.observe(t, loc, read, &actor, order);
        self.note_observed(t, observed);
        // After the read synchronizes and observes (see `load`): the RMW is one operation, and
        // what its read acquires or observes precedes its write in causality order (observation
        // followed by program order), so the operation races with none of it.
        self.race_check(t, loc, actor, new.is_some(), true, epoch, event)?;
        if let Some(value) = new {
            let mut heads = self.release_heads(t, loc, order, &actor);
            // Observation chains through RMWs: what the read store released stays available,
            // at the levels where this RMW's read was morally strong.
            let s = &self.locs[loc].stores[read];
            if let Some(writer) = s.actor {
                let rf_levels = morally_strong(&writer, &actor);
                for h in s.heads.iter() {
                    if h.levels & rf_levels != 0 {
                        heads.push(Head {
                            levels: h.levels & rf_levels,
                            ..h.clone()
                        });
                    }
                }
            }
            // Also when this thread wrote the read store: program order makes the pair morally
            // strong, so writes that store observed are observed through this RMW too.
            let chain = match s.actor {
                Some(writer) => self.observed_through(loc, read, morally_strong(&writer, &actor)),
                None => Vec::new(),
            };
            self.append_store(t, loc, value, epoch, actor, order, heads, event);
            if !chain.is_empty() {
                let state = Arc::make_mut(&mut self.locs[loc]);
                state.stores.last_mut().expect("just appended").chain = chain;
            }
        }
        self.push_mirror(loc);
        Ok(old)
    }

    /// `fence.acq_rel`/`fence.acquire`/`fence.release` at `scope`, or `fence.sc` (`Order::Sc`).
    pub fn fence(&mut self, t: usize, order: Order, scope: Scope, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(t, site, EventKind::Fence { order, scope });
        let actor = self.actor(t, Some(scope));
        let th = Arc::make_mut(&mut self.threads[t]);
        if acquires(order) {
            for p in &th.pending {
                acquire(&mut th.view, &actor, &p.heads, p.rf_levels);
            }
        }
        if order == Order::Sc {
            for f in &self.sc_fences {
                let mask = morally_strong(&f.actor, &actor);
                if mask != 0 {
                    th.view.join(&f.view, mask);
                }
            }
        }
        if releases(order) {
            let head = Head {
                releaser: actor,
                view: Arc::new(th.view.clone()),
                levels: ALL_LEVELS,
            };
            th.fence_heads.retain(|h| h.releaser.scope != Some(scope));
            th.fence_heads.push(head);
        }
        if order == Order::Sc {
            let view = Arc::new(th.view.clone());
            self.sc_fences.push(ScFence { actor, view });
        }
        Ok(())
    }

    /// `syncthreads`: returns `true` when `t` must block until the rest of its block arrives.
    pub fn barrier(&mut self, t: usize, site: Site) -> Result<bool, Halt> {
        self.barrier_op(t, site, BarrierKey::Site(site), None, true)
    }

    /// Before a `bar`: the barrier ids this thread may still reach after it (`None`: unknown).
    pub fn set_future_barriers(&mut self, t: usize, ids: Option<Vec<i64>>) {
        Arc::make_mut(&mut self.threads[t]).future_barriers = ids;
    }

    /// A CTA barrier: `syncthreads` (keyed by its call site; every thread of the block must
    /// reach the same one) or PTX `bar.sync`/`bar.arrive id[, quorum]` (keyed by id; `quorum`
    /// threads complete an instance, all of the block by default). Arriving releases the
    /// thread's view; `wait`ing threads leave with the join of every arrival's view. Returns
    /// `true` when `t` must block.
    pub fn barrier_op(
        &mut self,
        t: usize,
        site: Site,
        key: BarrierKey,
        quorum: Option<usize>,
        wait: bool,
    ) -> Result<bool, Halt> {
        self.barrier_arrive(t, site, key, quorum, wait, None)
    }

    /// [`Machine::barrier_op`], for a barrier that orders only `exchange`'s locations when it
    /// gives them.
    pub(super) fn barrier_arrive(
        &mut self,
        t: usize,
        site: Site,
        key: BarrierKey,
        quorum: Option<usize>,
        wait: bool,
        exchange: Option<Arc<[usize]>>,
    ) -> Result<bool, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(t, site, EventKind::Barrier { key, wait });
        let block = self.setup.threads[t].block as usize;
        let members = self.setup.blocks[block].clone();
        let kernel_barrier = matches!(key, BarrierKey::Site(_));
        if kernel_barrier {
            if let Some(&gone) = members
                .iter()
                .find(|&&u| self.threads[u].status == Status::Done)
            {
                let names = &self.setup.threads;
                let headline = format!(
                    "{} reached syncthreads at {site}, but {} already exited without reaching it",
                    names[t].name, names[gone].name
                );
                self.fail(FailureKind::BarrierDivergence, headline, vec![]);
                return Err(Halt);
            }
        }
        let view = Arc::new(self.threads[t].view.clone());
        self.barrier_waiting[block].push(Arrival {
            thread: t,
            site,
            key,
            view,
            wait,
            quorum,
            exchange,
        });
        if wait {
            Arc::make_mut(&mut self.threads[t]).status = Status::AtBarrier;
        }
        if kernel_barrier {
            if self.barrier_waiting[block].len() == members.len() {
                let arrived = std::mem::take(&mut self.barrier_waiting[block]);
                if arrived.iter().any(|a| a.site != site) {
                    let details = arrived
                        .iter()
                        .map(|a| {
                            format!(
                                "{} reached syncthreads at {}",
                                self.setup.threads[a.thread].name, a.site
                            )
                        })
                        .collect();
                    let headline = format!(
                        "threads of block {block} reached different syncthreads calls (undefined behaviour: \
                         every thread of a block must reach the same barrier)"
                    );
                    self.fail(FailureKind::BarrierDivergence, headline, details);
                    return Err(Halt);
                }
                self.complete_barrier(arrived);
            }
        } else {
            self.settle_barriers(block);
        }
        if self.threads[t].status == Status::AtBarrier {
            self.check_hang()?;
        }
        Ok(self.threads[t].status == Status::AtBarrier)
    }

    /// Complete every `bar` instance of `block` that can complete: `quorum` arrivals when a
    /// quorum is given; without one, an instance holds every barrier of its id (as in the
    /// axiomatic model), so it completes once every other thread of the block has exited or
    /// waits at another barrier with this id nowhere ahead of it.
    fn settle_barriers(&mut self, block: usize) {
        loop {
            let members = &self.setup.blocks[block];
            let arrivals = &self.barrier_waiting[block];
            let ready = arrivals
                .iter()
                .filter(|a| matches!(a.key, BarrierKey::Id(_)))
                .find_map(|first| {
                    // One instance has one thread count: arrivals expecting another count wait
                    // for an instance of their own (as the axiomatic matching groups barriers
                    // by id and quorum).
                    let group: Vec<usize> = (0..arrivals.len())
                        .filter(|&i| {
                            arrivals[i].key == first.key && arrivals[i].quorum == first.quorum
                        })
                        .collect();
                    let complete = match first.quorum {
                        Some(q) => group.len() >= q,
                        None => members.iter().all(|&u| {
                            let th = &self.threads[u];
                            let BarrierKey::Id(id) = first.key else {
                                unreachable!("only bar instances settle")
                            };
                            group.iter().any(|&i| arrivals[i].thread == u)
                                || th.status == Status::Done
                                || (th.status == Status::AtBarrier
                                    && th
                                        .future_barriers
                                        .as_ref()
                                        .is_some_and(|f| !f.contains(&id)))
                        }),
                    };
                    complete.then(|| {
                        group[..first.quorum.unwrap_or(group.len()).min(group.len())].to_vec()
                    })
                });
            let Some(indices) = ready else { return };
            let mut taken = Vec::new();
            for &i in indices.iter().rev() {
                taken.push(self.barrier_waiting[block].remove(i));
            }
            taken.reverse();
            self.complete_barrier(taken);
        }
    }

    /// One barrier instance completes: every arrival's knowledge becomes every waiter's.
    fn complete_barrier(&mut self, group: Vec<Arrival>) {
        if let Some(locations) = group[0].exchange.clone() {
            return self.complete_exchange(group, &locations);
        }
        self.tally_votes(&group);
        let mut joined = (*group[0].view).clone();
        for a in &group {
            joined.join(&a.view, ALL_LEVELS);
        }
        for a in group.iter().filter(|a| a.wait) {
            let own = a.thread;
            Arc::make_mut(&mut self.threads[own])
                .view
                .join(&joined, ALL_LEVELS);
            Arc::make_mut(&mut self.threads[own]).status = Status::Running;
            self.wake.push(own);
        }
    }

    /// Every live thread of the kernel blocked, and no async agent at work: a proven hang. (An
    /// idle agent cannot unblock anyone: it only acts on copies threads issue.)
    ///
    /// Each blocked thread stays blocked, since only another thread's action releases it and
    /// none can act: a barrier completes only when its count arrives, an mbarrier phase only on
    /// arrivals or completed copies, a block becomes resident only when a resident one finishes,
    /// and a spinner ([`super::spin`]) was blocked because every store it may still read holds
    /// the value it read, so its next iteration reads the same values, writes nothing, and
    /// leaves the state as it was. The lasso is the trace so far, then one round of those
    /// iterations and waits.
    pub(super) fn check_hang(&mut self) -> Result<(), Halt> {
        if self.threads.iter().any(|th| th.status == Status::Running) {
            return Ok(());
        }
        let live: Vec<usize> = (0..self.threads.len())
            .filter(|&u| self.threads[u].status != Status::Done && !self.setup.threads[u].agent)
            .collect();
        if live.is_empty() {
            return Ok(());
        }
        let mut details = Vec::new();
        let mut cycle = Vec::new();
        for &u in &live {
            let name = &self.setup.threads[u].name;
            let (why, again) = match &self.threads[u].status {
                Status::AtBarrier => (
                    self.describe_barrier_wait(u),
                    format!("{name} waits at its barrier again"),
                ),
                Status::Spinning(watch) => {
                    let mut locs: Vec<&str> = watch
                        .iter()
                        .map(|&(l, _)| self.setup.locs[l].name.as_str())
                        .collect();
                    locs.dedup();
                    let locs = locs.join(", ");
                    cycle.extend(
                        self.threads[u]
                            .blocked_iteration
                            .iter()
                            .map(|&event| CycleStep::Again { event }),
                    );
                    (
                        format!(
                            "{name} spins forever: every store to {locs} it may still read holds \
                             the value it read"
                        ),
                        format!("{name}: spin_loop, the same iteration again"),
                    )
                }
                Status::MBarWait { bar, phase } => (
                    format!(
                        "{name} waits on {} until its phase {phase} completes",
                        self.mbar_describe(*bar)
                    ),
                    format!("{name} waits on the mbarrier's phase {phase} again"),
                ),
                Status::BulkWait { pending, read } => {
                    let what = if *read { ".read" } else { "" };
                    (
                        format!(
                            "{name} waits in cp.async.bulk.wait_group{what} {pending} for its bulk \
                             copies to complete"
                        ),
                        format!("{name} waits for its bulk copies again"),
                    )
                }
                Status::CpAsyncWait(n) => (
                    format!(
                        "{name} waits in cp.async.wait_group {n} for its cp.async groups to \
                         complete"
                    ),
                    format!("{name} waits in cp.async.wait_group {n} again"),
                ),
                Status::NotResident => (
                    format!(
                        "{name} has not started: its block waits for a resident block to finish"
                    ),
                    format!("{name} is still not resident"),
                ),
                Status::NotStarted => (
                    format!(
                        "{name} has not started: its block waits for a lower symmetric block to start"
                    ),
                    format!("{name} has still not started"),
                ),
                _ => unreachable!("only blocked threads remain"),
            };
            details.push(why);
            cycle.push(CycleStep::Waits(again));
        }
        self.fail(
            FailureKind::Hang,
            "no thread can ever proceed: every live thread is blocked for good".to_string(),
            details,
        );
        if let Some(failure) = &mut self.failure {
            if failure.kind == FailureKind::Hang && failure.lasso.is_none() {
                failure.lasso = Some(Lasso {
                    prefix: self.event_count,
                    cycle,
                });
            }
        }
        Err(Halt)
    }

    /// Occupancy: start the lowest blocks not yet resident while fewer than
    /// `Setup::resident_blocks` blocks have started and not finished.
    fn admit_blocks(&mut self) {
        let Some(slots) = self.setup.resident_blocks else {
            return;
        };
        let kernel = |u: &usize| !self.setup.threads[*u].agent;
        let running = |m: &Machine, b: &Vec<usize>| {
            b.iter()
                .filter(|u| kernel(u))
                .any(|&u| !matches!(m.threads[u].status, Status::Done | Status::NotResident))
        };
        let busy = self
            .setup
            .blocks
            .iter()
            .filter(|b| running(self, b))
            .count();
        let waiting = self.setup.blocks.iter().filter(|b| {
            b.iter()
                .any(|&u| self.threads[u].status == Status::NotResident)
        });
        let admitted: Vec<usize> = waiting
            .take(slots.saturating_sub(busy))
            .flatten()
            .copied()
            .filter(|&u| self.threads[u].status == Status::NotResident)
            .collect();
        for u in admitted {
            Arc::make_mut(&mut self.threads[u]).status = Status::Running;
            self.wake.push(u);
        }
    }

    /// Symmetry: thread `t`'s block has started (one of its threads performs an operation or
    /// exits), so the block waiting for it (`Setup::starts_after`) starts too.
    ///
    /// Why this is sound: blocks declared symmetric run the same code on the same data and sit
    /// alike in the grid (one cluster, or each its own), so renaming them is an automorphism of
    /// the kernel that keeps every verdict. Any execution, with its symmetric blocks renamed in
    /// the order they start (those that never start last, by id), is an execution in which they
    /// start in id order, which is all this lets happen; the wake-up orders the start after the
    /// lower block's first operation for the reduction, as a barrier's release does.
    fn block_started(&mut self, t: usize) {
        let info = &self.setup.threads[t];
        let b = info.block as usize;
        if info.agent || self.setup.starts_after.is_empty() || self.blocks_started[b] {
            return;
        }
        self.blocks_started[b] = true;
        let Some(next) = self.setup.starts_after.iter().position(|&a| a == Some(b)) else {
            return;
        };
        for &u in &self.setup.blocks[next] {
            if self.threads[u].status == Status::NotStarted {
                Arc::make_mut(&mut self.threads[u]).status = Status::Running;
                self.wake.push(u);
            }
        }
    }

    /// `t` returned from the kernel (or unwound).
    pub fn exit(&mut self, t: usize) {
        self.block_started(t);
        Arc::make_mut(&mut self.threads[t]).status = Status::Done;
        if self.halted {
            return;
        }
        if self.setup.threads[t].agent {
            let _ = self.check_hang();
            return;
        }
        self.wake_idle_agent(self.setup.threads[t].block as usize);
        if self.warp_exit(t).is_err() {
            return;
        }
        self.cluster_exit(t);
        let block = self.setup.threads[t].block as usize;
        self.admit_blocks();
        let kernel_waiter = self.barrier_waiting[block]
            .iter()
            .find(|a| matches!(a.key, BarrierKey::Site(_)));
        if let Some(&Arrival {
            thread: waiter,
            site,
            ..
        }) = kernel_waiter
        {
            let names = &self.setup.threads;
            let headline = format!(
                "{} exited without reaching the syncthreads at {site} that {} waits at",
                names[t].name, names[waiter].name
            );
            self.fail(FailureKind::BarrierDivergence, headline, vec![]);
            return;
        }
        self.settle_barriers(block);
        let _ = self.check_hang();
    }

    /// Forget what a thread observed (litmus registers, for final states).
    pub fn record(&mut self, key: String, value: i64) {
        self.observed.retain(|(k, _)| *k != key);
        self.observed.push((key, value));
    }
}
