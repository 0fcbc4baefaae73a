//! One execution's state — its threads, memory, views, trace and each feature's state — and the
//! core's part of every operation: starting it (the step bound, the decision the replay token
//! records), recording its event, failing or discarding the execution, and a thread's exit. The
//! engine has already decided that thread `t` runs now (and, under loom, which store a load
//! reads); each operation is performed atomically and says whether the thread must stop (`Halt`)
//! or block. Memory operations are in the access module, hang diagnosis in the hang module, and
//! each feature's operations in its own module (see the runtime's module documentation); the
//! machine holds the table of hooks by which the core notifies features ([`Hooks`], run by the
//! hooks module).

use super::async_groups::AsyncGroups;
use super::barriers::state::Arrival;
use super::describe::describe_event;
use super::memory::{Bits, LocState};
pub use super::report::BarrierKey;
use super::report::{Decision, Event, EventKind, Failure, FailureKind, Site};
use super::sched::MBarrierStep;
pub use super::setup::{Setup, ThreadInfo};
use super::sync::{Actor, Head, Heads, PendingAcquire, ScFence};
use super::view::View;
use crate::scope::Scope;
use std::collections::HashMap;
use std::sync::Arc;

/// The calling thread must unwind: the execution failed, was found infeasible, or hit a bound.
#[derive(Debug)]
pub struct Halt;

/// What a GPU thread is doing: running, or blocked (and on what), or done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Able to perform its next operation.
    Running,
    /// Blocked at a CTA barrier until its instance completes.
    AtBarrier,
    /// Blocked in a spin loop until some other thread stores to one of these locations a value
    /// other than the one the failed iteration read there (see the spin module).
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
    pub(super) occurrences: HashMap<Site, u32>,
    /// Barrier ids the thread may still reach (`None`: unknown, maybe any).
    pub(super) future_barriers: Option<Vec<i64>>,
    /// Its `mbarrier.init` stores so far (location, index in modification order, epoch), which a
    /// `fence.mbarrier_init` releases (the cluster module).
    pub(super) mbar_inits: Vec<(usize, u32, u32)>,
    /// What its latest `fence.mbarrier_init` released: its inits before the fence alone.
    pub(super) init_release: Option<Arc<View>>,
    /// The bulk async-groups of its shared→global bulk copies (see the async_copy module).
    pub(super) bulk: AsyncGroups,
    /// Its `cp.async` groups (see the cp_async module).
    pub(super) cp: AsyncGroups,
    /// The Tile IR token-ordered operation in progress, if any.
    pub(super) token_op: Option<super::tokens::state::TokenOp>,
}

/// A memory access the core is about to check for races and record (see the access module).
#[derive(Clone, Copy, Debug)]
pub struct Access {
    /// The accessing thread.
    pub thread: usize,
    /// The location.
    pub loc: usize,
    /// Whether the access writes (a store, or an RMW that stores).
    pub write: bool,
    /// The access's event number (from 1).
    pub event: usize,
}

/// Before an access is checked for races: may fail the access (and the execution).
pub type OnAccess = fn(&mut Machine, &Access) -> Result<(), Halt>;

/// A read of `loc` by `thread` returned `value`; `wrote`: the same operation stored a new value
/// (an RMW that changed it).
pub type OnRead = fn(&mut Machine, thread: usize, loc: usize, value: Bits, wrote: bool);

/// `writer` just appended a store to `loc` (its modification order grew).
pub type OnStore = fn(&mut Machine, writer: usize, loc: usize);

/// Kernel thread `thread` exited (it is `Done`): the feature stops expecting it. An error ends
/// the exit's handling (the execution failed).
pub type OnExit = fn(&mut Machine, thread: usize) -> Result<(), Halt>;

/// A thread of `block` exited and the block's residency was settled: barrier instances that
/// counted on it may now complete.
pub type OnBarrierSettle = fn(&mut Machine, block: usize);

/// How a hang report words why `thread`, blocked with this status, waits; `None` when the
/// status is not the feature's.
pub type DescribeWait = fn(&Machine, thread: usize, status: &Status) -> Option<String>;

/// Every feature's hooks, per notification point, in the order they run.
#[derive(Debug)]
pub struct Hooks {
    /// Per access, before its race check (the access module).
    pub on_access: &'static [OnAccess],
    /// Per read of a load or RMW, once the store it reads is chosen.
    pub on_read: &'static [OnRead],
    /// Per store appended (a store, or an RMW's write).
    pub on_store: &'static [OnStore],
    /// Per exit of a kernel thread, first thing after the halted check ([`Machine::exit`]).
    pub on_exit: &'static [OnExit],
    /// Per exit of a kernel thread, after block admission and the barrier-divergence check.
    pub on_barrier_settle: &'static [OnBarrierSettle],
    /// Per blocked thread of a hang report: the first answer is used.
    pub describe_wait: &'static [DescribeWait],
}

impl Hooks {
    /// No feature registered: the core alone (plain memory operations and exits).
    pub const NONE: Hooks = Hooks {
        on_access: &[],
        on_read: &[],
        on_store: &[],
        on_exit: &[],
        on_barrier_settle: &[],
        describe_wait: &[],
    };
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
    pub(super) barrier_waiting: Vec<Vec<super::barriers::state::Arrival>>,
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
    /// the spin module); set for engines that explore that execution ([`Engine::prunes_spins`]).
    pub(crate) prune_spins: bool,
    /// What the current step did to an mbarrier, if it changed one: the thread that ran it and
    /// the step, which `Ctx::step` reports to the engine after the step
    /// (`Sched::mbarrier_step`).
    pub(crate) mbarrier_step: Option<(usize, MBarrierStep)>,
    /// The failure that ended the execution, if one did.
    pub failure: Option<Failure>,
    /// Every thread unwinds at its next step.
    pub halted: bool,
    /// Discard this execution: loom chose a store our model forbids, or a failed spin-loop
    /// iteration was not needed or repeated the previous one (see the spin module).
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
    pub(super) mbars: Vec<super::mbarrier::state::MBarState>,
    /// Per block, the copies its async agent has yet to perform.
    pub(super) agent_work: Vec<super::async_copy::state::AgentWork>,
    /// Tile IR token-ordered operations, per thread (empty until the first one).
    pub(super) tokens: Vec<super::tokens::state::TokenLog>,
    /// Predicates of voting barriers (`syncthreads_count/and/or`).
    pub(super) votes: super::barriers::state::Votes,
    /// Pending warp-synchronous operations and their results.
    pub(super) warps: super::warp::state::Warps,
    /// `cp.async.mbarrier.arrive`s waiting for their thread's prior `cp.async` copies.
    pub(super) cp_arrives: Vec<super::cp_async::state::CpArrive>,
    /// `ld.global.nc` reads so far.
    pub(super) nc_reads: Vec<super::noncoherent::state::NcRead>,
    /// What `fence.mbarrier_init` published across clusters (the cluster module).
    pub(super) cluster: super::cluster::state::InitFences,
    /// Per thread, the cluster barrier phase of its latest arrive (the cluster module).
    pub(super) cluster_arrivals: super::cluster::state::ClusterArrivals,
    /// Every `fence.proxy.async` so far (see the async_copy module).
    pub(super) proxy_fences: Vec<super::async_copy::state::ProxyFence>,
    pub(super) empty_heads: Heads,
    /// What each feature registered to hear of ([`Hooks`]); the core names no feature.
    pub(super) hooks: &'static Hooks,
}

impl Machine {
    /// The machine at the start of an execution: every location holding its initial value,
    /// every thread running (or not resident, or not started: see [`Setup::resident_blocks`],
    /// [`Setup::starts_after`]) with an empty view. `hooks`: every feature's notifications (the
    /// running floor registers them; [`Hooks::NONE`] runs the core alone).
    pub fn new(setup: Arc<Setup>, hooks: &'static Hooks) -> Machine {
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
            mbarrier_step: None,
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
                .map(super::mbarrier::state::MBarState::at_launch)
                .collect(),
            agent_work: vec![super::async_copy::state::AgentWork::default(); setup.agents.len()],
            tokens: Vec::new(),
            votes: Default::default(),
            warps: Default::default(),
            cp_arrives: Vec::new(),
            nc_reads: Vec::new(),
            cluster: Default::default(),
            cluster_arrivals: Default::default(),
            proxy_fences: Vec::new(),
            empty_heads,
            hooks,
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

    /// How a report words event `event` (numbered from 1).
    pub(super) fn describe(&self, event: usize) -> String {
        describe_event(&self.setup, &self.events[event - 1])
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
    /// the spin module): discarded like an infeasible execution.
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
        if self.notify_exit(t).is_err() {
            return;
        }
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
        self.notify_barrier_settle(block);
        let _ = self.check_hang();
    }

    /// Forget what a thread observed (litmus registers, for final states).
    pub fn record(&mut self, key: String, value: i64) {
        self.observed.retain(|(k, _)| *k != key);
        self.observed.push((key, value));
    }
}
