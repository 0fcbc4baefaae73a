//! Bulk copies (`cp.async.bulk`, TMA) as an asynchronous agent.
//!
//! Each block that may issue bulk copies has one more engine thread: its *copy agent* (the
//! block's TMA unit). Issuing a copy queues it; the agent performs the copies in issue order, one
//! element write per step, and the engine interleaves those steps with every other thread — so
//! the writes land at points the engine chooses. A global→shared copy ends with `complete_tx` on
//! its mbarrier; a shared→global copy ends by releasing to its issuer's `bulk_wait`.
//!
//! Ordering: a copy is ordered after what its issuer knew when it issued it — except that the
//! copy works in the *async proxy*, so generic-proxy *writes* are visible to it only through a
//! `fence.proxy.async` of the issuer's block on the causality path from the write to the issue:
//! the issuer's own fence before issuing, or any thread's fence that reaches the issuer through
//! a barrier of the block (PTX proxy-preserved base causality: the proxy fence may sit anywhere
//! on the path, in the same CTA). Fences that reach the issuer only through release/acquire are
//! not credited (a possible false race, never a missed one). A read
//! of a copy's destination is ordered after the copy only through the copy's completion (an
//! mbarrier wait, or `bulk_wait`). Everything else is a data race, found by the usual checks.
//!
//! A `cp.async` copy is ordered by its own clock, not the agent's: PTX orders it after what its
//! issuer knew at the issue and before what follows the issuer's `wait_group` for its group, and
//! leaves it unordered with every other copy (of another thread, or of the same thread before a
//! wait). So its race checks ask what the issuer knew at the issue ([`Copy::view`]), the agent's
//! earlier copies included, and its completion hands the issuer its element writes alone
//! ([`Copy::written`]), never the agent's clock, which orders the agent's copies one after the
//! other. Its element writes are stored as weak writes of the issuer, which makes them morally
//! strong with the issuer's later reads (program order), as the axioms have them.
//!
//! Limitation: one agent per block performs its copies in issue order, so two copies of one
//! block never overlap in time (real TMA units may); each copy reads the newest store of every
//! source element (any other store it could read would race with it). Bulk copies are ordered
//! by the agent's clock: a bulk copy's completion orders the agent's earlier copies too.

use super::ctx::Ctx;
use super::machine::{Halt, Machine, Status};
use super::memory::AccessRec;
use super::panics::HaltSignal;
use super::race::Race;
use super::report::{EventKind, FailureKind, Site};
use super::view::{Observed, View, ALL_LEVELS};
use crate::engine::Point;
use crate::scope::Order;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Where a bulk copy completes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Global→shared: `complete_tx(bytes)` on this mbarrier.
    MBarrier(usize),
    /// Shared→global: the issuer's bulk group (`bulk_wait`).
    BulkGroup,
    /// `cp.async` (global→shared, generic proxy): this group of the issuer (see
    /// [`super::cp_async`]).
    CpAsyncGroup(usize),
}

/// One issued bulk copy.
#[derive(Clone, Debug)]
pub struct Copy {
    pub issuer: usize,
    /// Element locations, pairwise.
    pub src: Vec<usize>,
    pub dst: Vec<usize>,
    pub bytes: u64,
    pub completion: Completion,
    /// What the issuer knew at the issue.
    pub view: Arc<View>,
    /// What the issuer knew at its last `fence.proxy.async` (what the async proxy may see of
    /// generic-proxy writes).
    pub proxy_view: Option<Arc<View>>,
    pub site: Site,
    /// `cp.async` only: the element writes performed so far, each an event of its own
    /// (observed, not a clock component) with the coherence floor of its destination — what the
    /// completion releases to the issuer's `wait_group`.
    pub written: Option<View>,
}

/// A block's agent: the copy in progress (and its next element), then the queue.
#[derive(Clone, Debug, Default)]
pub struct AgentWork {
    pub(super) current: Option<(Copy, usize)>,
    pub(super) queue: VecDeque<Copy>,
}

/// What the agent does next.
#[derive(Copy, Clone, Debug)]
pub enum AgentNext {
    /// Copy the next element: read `src`, write `dst`.
    Element {
        src: usize,
        dst: usize,
    },
    Complete,
    Idle,
    Exit,
}

impl Machine {
    /// Queue a bulk copy on the issuer's block agent.
    #[allow(clippy::too_many_arguments)]
    pub fn bulk_copy(
        &mut self,
        t: usize,
        src: Vec<usize>,
        dst: Vec<usize>,
        bytes: u64,
        completion: Completion,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let block = self.setup.threads[t].block as usize;
        let name = |l: &[usize]| match (l.first(), l.last()) {
            (Some(&a), Some(&b)) if a != b => {
                format!("{}..{}", self.setup.locs[a].name, self.setup.locs[b].name)
            }
            (Some(&a), _) => self.setup.locs[a].name.clone(),
            _ => "(nothing)".to_string(),
        };
        let (what, then) = match completion {
            Completion::MBarrier(bar) => (
                "cp.async.bulk.shared.global",
                format!("complete_tx on {}", self.setup.mbarriers[bar].name),
            ),
            Completion::BulkGroup => ("cp.async.bulk.global.shared", "bulk group".to_string()),
            Completion::CpAsyncGroup(g) => ("cp.async.ca.shared.global", format!("group {g}")),
        };
        let text = format!(
            "{what} {} <- {}, {bytes} bytes ({then})",
            name(&dst),
            name(&src)
        );
        let event = self.event(t, site, EventKind::Note(text));
        let Some(&agent) = self.setup.agents.get(block) else {
            let headline = "asynchronous copy in a kernel without a copy agent: declare an mbarrier (Kernel::mbarrier) or call Kernel::bulk_copies".to_string();
            self.fail(FailureKind::Assertion, headline, vec![]);
            return Err(Halt);
        };
        match completion {
            Completion::MBarrier(bar) => {
                self.mbar_check_init(t, bar, event)?;
                self.mbars[bar].in_flight += 1;
            }
            Completion::BulkGroup => Arc::make_mut(&mut self.threads[t]).bulk_outstanding += 1,
            Completion::CpAsyncGroup(g) => self.cp_async_issued(t, g),
        }
        let th = &self.threads[t];
        // `cp.async` works in the generic proxy: it sees every write its issuer knew of.
        let proxy_view = match completion {
            Completion::CpAsyncGroup(_) => Some(Arc::new(th.view.clone())),
            _ => th.async_view.clone(),
        };
        let copy = Copy {
            issuer: t,
            src,
            dst,
            bytes,
            completion,
            view: Arc::new(th.view.clone()),
            proxy_view,
            site,
            written: None,
        };
        self.agent_work[block].queue.push_back(copy);
        if self.threads[agent].status == Status::AgentIdle {
            Arc::make_mut(&mut self.threads[agent]).status = Status::Running;
            self.wake.push(agent);
        }
        Ok(())
    }

    /// `fence.proxy.async`: the thread's generic-proxy knowledge so far becomes visible to the
    /// async proxy of the copies it (or, after a barrier, its block) issues from now on.
    pub fn fence_proxy_async(&mut self, t: usize, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(t, site, EventKind::Note("fence.proxy.async".to_string()));
        Arc::make_mut(&mut self.threads[t]).async_view =
            Some(Arc::new(self.threads[t].view.clone()));
        Ok(())
    }

    /// `cp.async.bulk.wait_group 0`: block until every shared→global copy this thread issued
    /// completed; then their writes happen before what follows. Returns `true` to block.
    pub fn bulk_wait(&mut self, t: usize, site: Site) -> Result<bool, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let n = self.threads[t].bulk_outstanding;
        self.event(
            t,
            site,
            EventKind::Note(format!(
                "cp.async.bulk.wait_group 0 ({n} copies outstanding)"
            )),
        );
        if n > 0 {
            Arc::make_mut(&mut self.threads[t]).status = Status::BulkWait;
            self.check_hang()?;
            return Ok(true);
        }
        if let Some(done) = Arc::make_mut(&mut self.threads[t]).bulk_done.take() {
            Arc::make_mut(&mut self.threads[t])
                .view
                .join(&done, ALL_LEVELS);
        }
        Ok(false)
    }

    /// The agent's next action, without doing it.
    pub fn agent_next(&mut self, a: usize) -> AgentNext {
        let block = self.setup.threads[a].block as usize;
        let work = &mut self.agent_work[block];
        if work.current.is_none() {
            if let Some(copy) = work.queue.pop_front() {
                let view = Arc::clone(&copy.view);
                work.current = Some((copy, 0));
                Arc::make_mut(&mut self.threads[a])
                    .view
                    .join(&view, ALL_LEVELS);
            }
        }
        match &self.agent_work[block].current {
            Some((copy, i)) if *i < copy.dst.len() => AgentNext::Element {
                src: copy.src[*i],
                dst: copy.dst[*i],
            },
            Some(_) => AgentNext::Complete,
            None if self.block_done(block) => AgentNext::Exit,
            None => AgentNext::Idle,
        }
    }

    fn block_done(&self, block: usize) -> bool {
        self.setup.blocks[block]
            .iter()
            .all(|&u| self.threads[u].status == Status::Done)
    }

    /// The last thread of a block exited: its agent, if idle, wakes to exit.
    pub(super) fn wake_idle_agent(&mut self, block: usize) {
        if let Some(&agent) = self.setup.agents.get(block) {
            if self.threads[agent].status == Status::AgentIdle && self.block_done(block) {
                Arc::make_mut(&mut self.threads[agent]).status = Status::Running;
                self.wake.push(agent);
            }
        }
    }

    /// Nothing to do: the agent sleeps until a copy is queued. Returns `true` to block.
    pub fn agent_idle(&mut self, a: usize) -> Result<bool, Halt> {
        let block = self.setup.threads[a].block as usize;
        if !self.agent_work[block].queue.is_empty() || self.block_done(block) {
            return Ok(false);
        }
        Arc::make_mut(&mut self.threads[a]).status = Status::AgentIdle;
        self.check_hang()?;
        Ok(true)
    }

    /// One step of the agent's current copy: an element, or the completion.
    pub fn agent_step(&mut self, a: usize) -> Result<(), Halt> {
        let block = self.setup.threads[a].block as usize;
        let (mut copy, i) = self.agent_work[block]
            .current
            .clone()
            .expect("agent_next found a copy in progress");
        if i < copy.dst.len() {
            self.agent_element(a, &mut copy, i)?;
            if let (true, Completion::CpAsyncGroup(g)) = (i + 1 == copy.dst.len(), copy.completion)
            {
                // A `cp.async` completes with its last element: completing later only delays
                // its issuer's `wait_group`, which the engine may delay anyway, so a separate
                // step would add interleavings and no outcome.
                self.agent_work[block].current = None;
                return self.cp_async_complete(a, &copy, g);
            }
            self.agent_work[block].current = Some((copy, i + 1));
            return Ok(());
        }
        self.agent_work[block].current = None;
        match copy.completion {
            Completion::MBarrier(bar) => self.mbar_complete_tx(a, bar, copy.bytes, copy.site),
            Completion::CpAsyncGroup(g) => self.cp_async_complete(a, &copy, g),
            Completion::BulkGroup => {
                self.begin(a)?;
                Arc::make_mut(&mut self.threads[a]).view.tick(a);
                let issuer = copy.issuer;
                self.event(
                    a,
                    copy.site,
                    EventKind::Note(format!(
                        "bulk copy of {} complete",
                        self.setup.threads[issuer].name
                    )),
                );
                let view = self.threads[a].view.clone();
                let th = Arc::make_mut(&mut self.threads[issuer]);
                match &mut th.bulk_done {
                    Some(v) => v.join(&view, ALL_LEVELS),
                    None => th.bulk_done = Some(view),
                }
                th.bulk_outstanding -= 1;
                if th.bulk_outstanding == 0 && th.status == Status::BulkWait {
                    if let Some(done) = th.bulk_done.take() {
                        th.view.join(&done, ALL_LEVELS);
                    }
                    th.status = Status::Running;
                    self.wake.push(issuer);
                }
                Ok(())
            }
        }
    }

    /// Element `i` of `copy`: read the source, write the destination, in the async proxy.
    fn agent_element(&mut self, a: usize, copy: &mut Copy, i: usize) -> Result<(), Halt> {
        self.begin(a)?;
        let epoch = Arc::make_mut(&mut self.threads[a]).view.tick(a);
        let (src, dst) = (copy.src[i], copy.dst[i]);
        let value = self.locs[src].stores.last().expect("initial store").value;
        let (s, d) = (&self.setup.locs[src], &self.setup.locs[dst]);
        let (what, proxy) = match copy.completion {
            Completion::CpAsyncGroup(_) => ("cp.async", "generic proxy"),
            _ => ("bulk copy", "async proxy"),
        };
        let text = format!(
            "{what} writes {} = {} ({proxy}, from {})",
            d.name,
            d.kind.format(value),
            s.name
        );
        let event = self.event(a, copy.site, EventKind::Note(text));
        self.async_race_check(a, src, false, epoch, event, copy)?;
        self.async_race_check(a, dst, true, epoch, event, copy)?;
        // A `cp.async` copy's write is a weak write of its issuer (the axioms make the copy's
        // events the issuing thread's, ordered before what follows its `wait_group`): PTX ISA,
        // "Morally strong operations": two operations are morally strong when "the operations
        // are related in program order (i.e, they are both executed by the same thread)". So
        // an RMW of the issuer after the wait that reads the copy's write observes it, and
        // whoever observes that RMW observes the copy's write too ("Observation Order": "for
        // some atomic operation Z, W precedes Z and Z precedes R in observation order"), which
        // orders it before what follows ("Causality Order": observation, then base causality).
        // Its race checks keep the agent's actor: before the wait nothing orders it with its
        // issuer's accesses. Bulk copies are the async proxy's own and stay the agent's.
        let writer = match copy.completion {
            Completion::CpAsyncGroup(_) => copy.issuer,
            _ => a,
        };
        let actor = self.actor(writer, None);
        self.append_store(a, dst, value, epoch, actor, Order::Weak, vec![], event);
        let latest = self.locs[dst].latest() as u32;
        Arc::make_mut(&mut self.locs[dst]).mirror.push(latest);
        if let Completion::CpAsyncGroup(_) = copy.completion {
            let (threads, locs) = (self.setup.threads.len(), self.setup.locs.len());
            let written = copy.written.get_or_insert_with(|| View::new(threads, locs));
            written.observe(Observed {
                thread: a as u32,
                epoch,
                levels: ALL_LEVELS,
            });
            let floor = &mut written.floor_mut()[dst];
            *floor = (*floor).max(latest);
        }
        Ok(())
    }

    /// Race check for an async-proxy access: earlier generic-proxy writes count as ordered only
    /// if the issuer's last proxy fence knew them.
    fn async_race_check(
        &mut self,
        a: usize,
        loc: usize,
        write: bool,
        epoch: u32,
        event: usize,
        copy: &Copy,
    ) -> Result<(), Halt> {
        let view = &self.threads[a].view;
        let cp_async = matches!(copy.completion, Completion::CpAsyncGroup(_));
        let mut found = None;
        for p in &self.locs[loc].accesses {
            let u = p.actor.thread;
            if !(p.write || write) {
                continue;
            }
            // This copy's own accesses (its element's read, its earlier elements).
            let own = p.epoch == epoch
                || copy
                    .written
                    .as_ref()
                    .is_some_and(|w| w.causes(0, u, p.epoch));
            if u == a && (!cp_async || own) {
                continue;
            }
            let generic_write = p.write && !self.setup.threads[u].agent;
            let ordered = if cp_async {
                // PTX ISA, *cp.async*: "There is no ordering guarantee between two cp.async
                // operations if they are not explicitly synchronized using cp.async.wait_all or
                // cp.async.wait_group or mbarrier instructions": a copy is ordered after what
                // its issuer knew at the issue, whoever performed it (the agent's earlier
                // copies included).
                copy.view.causes(0, u, p.epoch)
            } else if generic_write {
                // Causality order, not only happens-before: a write the issuer observed through a
                // morally strong read precedes what follows that read, the copy included (PTX
                // ISA, "Causality Order": observation followed by base causality).
                copy.proxy_view
                    .as_ref()
                    .is_some_and(|v| v.causes(0, u, p.epoch))
            } else {
                view.causes(0, u, p.epoch)
            };
            if !ordered {
                found = Some((p.clone(), generic_write && view.causes(0, u, p.epoch)));
                break;
            }
        }
        if found.is_some() && !self.setup.stop_on_race {
            // Litmus runs record the race and go on (their final states still count).
            self.races += 1;
            found = None;
        }
        if let Some((prior, needs_proxy_fence)) = found {
            let race = Race { prior, fix: None };
            let (kind, headline, mut details) = race.describe(self, loc, event);
            details.pop();
            details.push(if needs_proxy_fence {
                "the generic-proxy write happens before the copy was issued, but no fence.proxy.async \
                 of this block lies on the causality path from the write to the issue, so the async \
                 proxy need not see it: call fence_proxy_async() after the write, either in the \
                 writing thread before the synchronization that orders it before the issue (e.g. \
                 before syncthreads) or in the issuing thread after that synchronization"
                    .to_string()
            } else if let Completion::CpAsyncGroup(g) = copy.completion {
                format!(
                    "the cp.async runs asynchronously: it is ordered after what its issuer knew \
                     when issuing it, and accesses are ordered after it only through a \
                     cp_async_wait_group of its issuer that waits for its group {g} (then a \
                     barrier or release/acquire for other threads)"
                )
            } else {
                "the bulk copy runs asynchronously: it is ordered after what its issuer knew when \
                 issuing it, and others are ordered after it only through its completion (an \
                 mbarrier wait that observes its complete_tx, or bulk_wait)"
                    .to_string()
            });
            self.fail(kind, headline, details);
            return Err(Halt);
        }
        let actor = self.actor(a, None);
        Arc::make_mut(&mut self.locs[loc]).accesses.push(AccessRec {
            actor,
            epoch,
            write,
            event,
        });
        Ok(())
    }
}

/// The agent's engine thread: perform queued copies until the block is done.
pub fn agent_main(ctx: Ctx) {
    let result = catch_unwind(AssertUnwindSafe(|| ctx.run_agent()));
    let wake = {
        let mut m = ctx.machine.lock().unwrap_or_else(|e| e.into_inner());
        let was_halted = m.halted;
        if let Err(payload) = result {
            if !payload.is::<HaltSignal>() {
                let message = super::panics::take_last(&*payload);
                m.fail(
                    FailureKind::Assertion,
                    format!("{} failed: {message}", ctx.info.name),
                    vec![],
                );
            }
        }
        m.exit(ctx.thread);
        if m.halted && !was_halted {
            ctx.sched.halted(ctx.thread);
        }
        std::mem::take(&mut m.wake)
    };
    for t in wake {
        ctx.sched.unpark(t);
    }
}

impl Ctx {
    fn run_agent(&self) {
        loop {
            match self.step(|m| Ok(m.agent_next(self.thread))) {
                AgentNext::Exit => return,
                AgentNext::Idle => {
                    if self.step(|m| m.agent_idle(self.thread)) {
                        self.wait();
                    }
                }
                AgentNext::Element { src, dst } => {
                    self.sched.point(self.thread, Point::Copy { src, dst });
                    self.step(|m| m.agent_step(self.thread));
                }
                AgentNext::Complete => {
                    self.sched.point(self.thread, Point::Other);
                    self.step(|m| m.agent_step(self.thread));
                }
            }
        }
    }
}

impl Ctx {
    pub fn bulk_copy(
        &self,
        src: Vec<usize>,
        dst: Vec<usize>,
        bytes: u64,
        completion: Completion,
        site: Site,
    ) {
        self.sched.point(self.thread, Point::Other);
        self.step(|m| m.bulk_copy(self.thread, src, dst, bytes, completion, site))
    }

    pub fn fence_proxy_async(&self, site: Site) {
        self.sched.point(self.thread, Point::Local);
        self.step(|m| m.fence_proxy_async(self.thread, site))
    }

    pub fn bulk_wait(&self, site: Site) {
        self.sched.point(self.thread, Point::Other);
        if self.step(|m| m.bulk_wait(self.thread, site)) {
            self.wait();
        }
    }
}
