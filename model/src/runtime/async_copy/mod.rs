//! Bulk copies (`cp.async.bulk`, TMA) as an asynchronous agent.
//!
//! Each block that may issue bulk copies has one more engine thread: its *copy agent* (the
//! block's TMA unit). Issuing a copy queues it; the agent performs the copies in issue order, one
//! element write per step, and the engine interleaves those steps with every other thread — so
//! the writes land at points the engine chooses. A global→shared copy ends with `complete_tx` on
//! its mbarrier; a shared→global copy ends by releasing to its issuer's `bulk_wait`.
//!
//! Ordering: every copy is ordered by its own clock, not its issuer's. Its race checks ask what
//! its issuer knew at the issue ([`Copy::view`]); the agent never joins that knowledge, so what a
//! copy's completion releases is the agent's own accesses, never what preceded the issue (PTX
//! ISA, *Asynchronous operations*: an async operation is "performed by an async proxy" after the
//! issuing instruction; `ptx-v8.cat`: complete-tx ordering does not carry what preceded the
//! copy's issue). A bulk copy works in the *async proxy*: a generic-proxy write of the same
//! location is ordered before the copy's access only through a `fence.proxy.async` of that
//! access's CTA (covering the location's state space) that follows the generic write in
//! causality order and precedes the issue (PTX proxy-preserved base causality: "in the same
//! CTA", the fence anywhere on the path; [`ProxyFence`]), and so is a generic *read* before the
//! copy's write ("Accessing the same memory location across multiple proxies needs a cross-proxy
//! fence": no read/write distinction, `ptx-v8.cat`'s strict reading); one async access before
//! another of the same location only within one CTA. A generic access is ordered after a bulk copy's only
//! through the copy's completion (an mbarrier wait that observes its complete-tx, or
//! `bulk_wait`: "completion of the asynchronous operation is followed by an implicit
//! generic-async proxy fence"). Everything else is a data race, found by the usual checks.
//!
//! A `cp.async` copy works in the generic proxy: PTX orders it after what its issuer knew at the
//! issue and before what follows the issuer's `wait_group` for its group, and leaves it
//! unordered with every other copy (of another thread, or of the same thread before a wait). Its
//! completion hands the issuer its element writes alone ([`Copy::written`]). Its element writes
//! are stored as weak writes of the issuer, which makes them morally strong with the issuer's
//! later reads (program order), as the axioms have them.
//!
//! An agent performs its copies one at a time, in issue order (real TMA units may overlap
//! them), but its race checks never rely on that order: a copy's access is ordered after an
//! earlier copy's only as PTX orders async copies, through a completion (an mbarrier wait
//! observing its complete-tx, a `wait_group`) that the issuer synchronized with before the
//! issue; so two in-flight copies of one element, or a copy still reading a stage and a later
//! copy writing it, race. Limitation: the executions the engine explores are those of that one
//! order (a kernel has one agent per block; a litmus program one per bulk-copy statement), so a
//! final state only an overlap would produce is not among the outcomes — the race is reported
//! instead. Each copy reads the newest store of every source element (any other store it could
//! read would race with it).

use super::ctx::Ctx;
use super::machine::{Halt, Machine, Status};
use super::memory::AccessRec;
use super::panics::HaltSignal;
use super::race::Race;
use super::report::{EventKind, FailureKind, Site};
use super::sched::MBarrierEffect;
use super::sync::Head;
use super::view::{Observed, View, ALL_LEVELS};
use crate::litmus::async_ops::MbarrierState;
use crate::scope::{Order, Scope};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

mod issue;
pub mod state;
mod store;

use self::state::same_cta;
pub use self::state::{
    AgentNext, AgentWork, AsyncStore, Completion, Copy, ProxyFence, RedAsync, RedAsyncOp,
    RedAsyncType,
};

impl Machine {
    /// Queue a bulk copy on the agent of the issuer's block.
    pub fn bulk_copy(
        &mut self,
        t: usize,
        src: Vec<usize>,
        dst: Vec<usize>,
        bytes: u64,
        completion: Completion,
        site: Site,
    ) -> Result<(), Halt> {
        let block = self.setup.threads[t].block as usize;
        let src = src.into_iter().map(Some).collect();
        self.bulk_copy_on(t, block, (src, dst, false), bytes, completion, site)
    }

    /// Queue a tensor-map copy (`cp.async.bulk.tensor`) on the agent of the issuer's block:
    /// `src[i]` is `None` for an element outside the tensor, which the copy writes as zero
    /// without reading anything ([`Copy::src`]).
    pub fn tensor_copy(
        &mut self,
        t: usize,
        src: Vec<Option<usize>>,
        dst: Vec<usize>,
        bytes: u64,
        completion: Completion,
        site: Site,
    ) -> Result<(), Halt> {
        let block = self.setup.threads[t].block as usize;
        self.bulk_copy_on(t, block, (src, dst, true), bytes, completion, site)
    }

    /// Queue a copy of `src` to `dst` on the agent `setup.agents[slot]`; `tensor`: a
    /// `cp.async.bulk.tensor` (as the trace names it).
    pub fn bulk_copy_on(
        &mut self,
        t: usize,
        slot: usize,
        (src, dst, tensor): (Vec<Option<usize>>, Vec<usize>, bool),
        bytes: u64,
        completion: Completion,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let name = |l: &[usize]| match (l.first(), l.last()) {
            (Some(&a), Some(&b)) if a != b => {
                format!("{}..{}", self.setup.locs[a].name, self.setup.locs[b].name)
            }
            (Some(&a), _) => self.setup.locs[a].name.clone(),
            _ => "(nothing)".to_string(),
        };
        let (what, then) = match completion {
            Completion::MBarrier(bar) if tensor => (
                "cp.async.bulk.tensor.shared.global",
                format!("complete_tx on {}", self.setup.mbarriers[bar].name),
            ),
            Completion::BulkGroup if tensor => (
                "cp.async.bulk.tensor.global.shared",
                "bulk group".to_string(),
            ),
            Completion::MBarrier(bar) => (
                "cp.async.bulk.shared.global",
                format!("complete_tx on {}", self.setup.mbarriers[bar].name),
            ),
            Completion::BulkGroup => ("cp.async.bulk.global.shared", "bulk group".to_string()),
            Completion::CpAsyncGroup(g) => ("cp.async.ca.shared.global", format!("group {g}")),
            Completion::MbarrierAt(bar) => (
                "cp.async.bulk.shared.global",
                format!("complete_tx on {}", self.setup.locs[bar].name),
            ),
            Completion::Release(bar) => (
                "st.async",
                format!("complete_tx on {}", self.setup.mbarriers[bar].name),
            ),
        };
        let read: Vec<usize> = src.iter().flatten().copied().collect();
        let zeros = src.len() - read.len();
        let fill = match zeros {
            0 => String::new(),
            n => format!(", {n} out-of-bounds elements zero-filled"),
        };
        let text = format!(
            "{what} {} <- {}, {bytes} bytes ({then}{fill})",
            name(&dst),
            name(&read)
        );
        let event = self.event(t, site, EventKind::Note(text));
        if self.setup.agents.get(slot).is_none() {
            let headline = "asynchronous copy in a kernel without a copy agent: declare an mbarrier (Kernel::mbarrier) or call Kernel::bulk_copies".to_string();
            self.fail(FailureKind::Assertion, headline, vec![]);
            return Err(Halt);
        }
        let mut group = 0;
        match completion {
            Completion::MBarrier(bar) | Completion::Release(bar) => {
                self.mbar_check_init(t, bar, event)?;
                self.mbars[bar].in_flight += 1;
                // A copy in flight changes neither the phase nor its counts.
                let phase = self.mbars[bar].phase;
                self.note_mbarrier_step(t, bar, phase, MBarrierEffect::InFlight);
            }
            Completion::BulkGroup => group = Arc::make_mut(&mut self.threads[t]).bulk.issue(true),
            Completion::CpAsyncGroup(g) => self.cp_async_issued(t, g),
            Completion::MbarrierAt(_) => {}
        }
        let copy = Copy {
            issuer: t,
            src,
            dst,
            bytes,
            completion,
            view: Arc::new(self.threads[t].view.clone()),
            site,
            group,
            read_values: Vec::new(),
            written: None,
            started: 0,
            store: None,
        };
        self.enqueue(slot, copy)
    }

    /// Put `copy` on the queue of agent `setup.agents[slot]`, waking it if idle.
    fn enqueue(&mut self, slot: usize, copy: Copy) -> Result<(), Halt> {
        let Some(&agent) = self.setup.agents.get(slot) else {
            let headline = "asynchronous operation in a kernel without a copy agent: declare an mbarrier (Kernel::mbarriers) or call Kernel::bulk_copies".to_string();
            self.fail(FailureKind::Assertion, headline, vec![]);
            return Err(Halt);
        };
        self.agent_work[slot].queue.push_back(copy);
        if self.threads[agent].status == Status::AgentIdle {
            Arc::make_mut(&mut self.threads[agent]).status = Status::Running;
            self.wake.push(agent);
        }
        Ok(())
    }

    /// `fence.proxy.async`: what the thread knows so far becomes visible to the async proxy of
    /// its CTA, for the copies issued after the fence in causality order ([`ProxyFence`]).
    pub fn fence_proxy_async(&mut self, t: usize, site: Site) -> Result<(), Halt> {
        self.fence_proxy_async_in(t, None, "fence.proxy.async", site)
    }

    /// A proxy fence restricted to the locations `covers` (its state space; `None`: all),
    /// named `name` in the trace.
    pub fn fence_proxy_async_in(
        &mut self,
        t: usize,
        covers: Option<Arc<[usize]>>,
        name: &str,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(t, site, EventKind::Note(name.to_string()));
        self.proxy_fences.push(ProxyFence {
            thread: t,
            epoch,
            placement: self.setup.threads[t].placement,
            covers,
            view: Arc::new(self.threads[t].view.clone()),
        });
        Ok(())
    }

    /// `cp.async.bulk.commit_group`: the thread's open bulk async-group (possibly empty) is
    /// committed; later copies go to a new one.
    pub fn bulk_commit(&mut self, t: usize, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let group = Arc::make_mut(&mut self.threads[t]).bulk.commit();
        let text = format!("cp.async.bulk.commit_group (bulk group {group})");
        self.event(t, site, EventKind::Note(text));
        Ok(())
    }

    /// `cp.async.bulk.wait_group{.read} n`: block until every committed bulk async-group but the
    /// `n` most recent is complete (with `read`: has finished reading its sources); then what
    /// their copies did happens before what follows, across the proxies ("completion of the
    /// asynchronous operation is followed by an implicit generic-async proxy fence"). Returns
    /// `true` to block.
    pub fn bulk_wait_group(
        &mut self,
        t: usize,
        n: usize,
        read: bool,
        site: Site,
    ) -> Result<bool, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let pending = self.threads[t].bulk.pending();
        let what = if read { ".read" } else { "" };
        let text =
            format!("cp.async.bulk.wait_group{what} {n} ({pending} committed bulk groups pending)");
        self.event(t, site, EventKind::Note(text));
        if self.bulk_ready(t, n, read) {
            return Ok(false);
        }
        Arc::make_mut(&mut self.threads[t]).status = Status::BulkWait { pending: n, read };
        self.check_hang()?;
        Ok(true)
    }

    /// The kernel API's `bulk_wait`: `cp.async.bulk.commit_group; cp.async.bulk.wait_group 0`.
    pub fn bulk_wait(&mut self, t: usize, site: Site) -> Result<bool, Halt> {
        self.bulk_commit(t, site)?;
        self.bulk_wait_group(t, 0, false, site)
    }

    /// Whether `t`'s committed bulk groups but the `n` most recent are done (reading, if
    /// `read`); if so, `t` joins what they released.
    fn bulk_ready(&mut self, t: usize, n: usize, read: bool) -> bool {
        let th = Arc::make_mut(&mut self.threads[t]);
        let Some(released) = th.bulk.ready(n, read) else {
            return false;
        };
        for v in &released {
            th.view.join(v, ALL_LEVELS);
        }
        true
    }

    /// A `.bulk_group` copy of agent `a` has read its sources: its issuer learns of the reads
    /// (what the agent knows now), and may stop waiting in a `wait_group.read`.
    fn bulk_read_complete(&mut self, a: usize, copy: &Copy) {
        let read = self.threads[a].view.clone();
        Arc::make_mut(&mut self.threads[copy.issuer])
            .bulk
            .read_complete(copy.group, &read);
        self.bulk_wake(copy.issuer);
    }

    /// A bulk copy of `t` completed or finished reading: `t` may stop waiting.
    fn bulk_wake(&mut self, t: usize) {
        if let Status::BulkWait { pending, read } = self.threads[t].status {
            if self.bulk_ready(t, pending, read) {
                Arc::make_mut(&mut self.threads[t]).status = Status::Running;
                self.wake.push(t);
            }
        }
    }

    /// The position of agent `a` in `setup.agents`, which indexes its work.
    pub(super) fn agent_slot(&self, a: usize) -> usize {
        self.setup
            .agents
            .iter()
            .position(|&u| u == a)
            .expect("a copy agent is in Setup::agents")
    }

    /// The agent's next action, without doing it. (The agent takes up a copy without joining
    /// its issuer's view: the copy is ordered by its own clock, see the module documentation.)
    pub fn agent_next(&mut self, a: usize) -> AgentNext {
        let block = self.setup.threads[a].block as usize;
        let slot = self.agent_slot(a);
        let work = &mut self.agent_work[slot];
        if work.current.is_none() {
            if let Some(copy) = work.queue.pop_front() {
                work.current = Some((copy, 0));
            }
        }
        match &self.agent_work[slot].current {
            Some((copy, i)) if copy.store.is_some() => AgentNext::Write(copy.dst[*i]),
            Some((copy, i)) if copy.reads_first() && *i < copy.dst.len() => {
                AgentNext::Read(copy.src[*i])
            }
            Some((copy, i)) if copy.reads_first() && *i < copy.steps() => {
                AgentNext::Write(copy.dst[*i - copy.dst.len()])
            }
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

    /// The last thread of a block exited: its agents (whose copies its threads issue), if
    /// idle, wake to exit.
    pub(super) fn wake_idle_agent(&mut self, block: usize) {
        if !self.block_done(block) {
            return;
        }
        for i in 0..self.setup.agents.len() {
            let agent = self.setup.agents[i];
            if self.setup.threads[agent].block as usize == block
                && self.threads[agent].status == Status::AgentIdle
            {
                Arc::make_mut(&mut self.threads[agent]).status = Status::Running;
                self.wake.push(agent);
            }
        }
    }

    /// Nothing to do: the agent sleeps until a copy is queued. Returns `true` to block.
    pub fn agent_idle(&mut self, a: usize) -> Result<bool, Halt> {
        let block = self.setup.threads[a].block as usize;
        if !self.agent_work[self.agent_slot(a)].queue.is_empty() || self.block_done(block) {
            return Ok(false);
        }
        Arc::make_mut(&mut self.threads[a]).status = Status::AgentIdle;
        self.check_hang()?;
        Ok(true)
    }

    /// One step of the agent's current copy: an element, or the completion.
    pub fn agent_step(&mut self, a: usize) -> Result<(), Halt> {
        let block = self.agent_slot(a);
        let (mut copy, i) = self.agent_work[block]
            .current
            .clone()
            .expect("agent_next found a copy in progress");
        if i == 0 {
            copy.started = self.threads[a].view.clock(0)[a] + 1;
        }
        if copy.store.is_some() {
            // An `st.async` / `red.async`: one step per element, the last completing it.
            let result = self.agent_store(a, &mut copy, i);
            self.agent_work[block].current = (i + 1 < copy.dst.len()).then_some((copy, i + 1));
            return result;
        }
        if copy.reads_first() && i < copy.steps() {
            let n = copy.dst.len();
            match i < n {
                true => self.agent_read(a, &mut copy, i)?,
                false => self.agent_write(a, &copy, i - n)?,
            }
            self.agent_work[block].current = Some((copy, i + 1));
            return Ok(());
        }
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
            Completion::MbarrierAt(bar) => self.complete_tx_at(a, bar, copy.bytes, copy.site),
            Completion::Release(_) => unreachable!("st.async completes with its last element"),
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
                th.bulk.complete(copy.group, Some(&view));
                self.bulk_wake(issuer);
                Ok(())
            }
        }
    }

    /// Read element `i` of a copy that reads all its elements first ([`Copy::reads_first`]).
    fn agent_read(&mut self, a: usize, copy: &mut Copy, i: usize) -> Result<(), Halt> {
        self.begin(a)?;
        let epoch = Arc::make_mut(&mut self.threads[a]).view.tick(a);
        let value = match copy.src[i] {
            Some(src) => {
                let value = self.locs[src].stores.last().expect("initial store").value;
                let s = &self.setup.locs[src];
                let text = format!(
                    "bulk copy reads {} = {} (async proxy)",
                    s.name,
                    s.kind.format(value)
                );
                let event = self.event(a, copy.site, EventKind::Note(text));
                self.async_race_check(a, src, false, epoch, event, copy)?;
                value
            }
            None => 0,
        };
        copy.read_values.push(value);
        if i + 1 == copy.dst.len() {
            self.bulk_read_complete(a, copy);
        }
        Ok(())
    }

    /// Write element `j` of a copy that read all its elements first, with the value it read.
    fn agent_write(&mut self, a: usize, copy: &Copy, j: usize) -> Result<(), Halt> {
        self.begin(a)?;
        let epoch = Arc::make_mut(&mut self.threads[a]).view.tick(a);
        let (dst, value) = (copy.dst[j], copy.read_values[j]);
        let d = &self.setup.locs[dst];
        let text = format!(
            "bulk copy writes {} = {} (async proxy, {})",
            d.name,
            d.kind.format(value),
            self.source_name(copy.src[j])
        );
        let event = self.event(a, copy.site, EventKind::Note(text));
        self.async_race_check(a, dst, true, epoch, event, copy)?;
        let actor = self.actor(a, None);
        self.append_store(a, dst, value, epoch, actor, Order::Weak, vec![], event);
        let latest = self.locs[dst].latest() as u32;
        Arc::make_mut(&mut self.locs[dst]).mirror.push(latest);
        Ok(())
    }

    /// Element `i` of `copy`: read the source, write the destination, in the async proxy.
    fn agent_element(&mut self, a: usize, copy: &mut Copy, i: usize) -> Result<(), Halt> {
        self.begin(a)?;
        let epoch = Arc::make_mut(&mut self.threads[a]).view.tick(a);
        let (src, dst) = (copy.src[i], copy.dst[i]);
        // An out-of-bounds element of a tensor-map load reads nothing and writes zero.
        let value = src.map_or(0, |s| {
            self.locs[s].stores.last().expect("initial store").value
        });
        let d = &self.setup.locs[dst];
        let (what, proxy) = match copy.completion {
            Completion::CpAsyncGroup(_) => ("cp.async", "generic proxy"),
            _ => ("bulk copy", "async proxy"),
        };
        let text = format!(
            "{what} writes {} = {} ({proxy}, {})",
            d.name,
            d.kind.format(value),
            self.source_name(src)
        );
        let event = self.event(a, copy.site, EventKind::Note(text));
        if let Some(src) = src {
            self.async_race_check(a, src, false, epoch, event, copy)?;
        }
        // A one-element `.bulk_group` copy's source read completes its reading (what
        // `cp.async.bulk.wait_group.read` waits for): its issuer may learn of the read alone,
        // so the write comes at the agent's next epoch.
        let epoch = match copy.completion {
            Completion::BulkGroup if i + 1 == copy.dst.len() => {
                self.bulk_read_complete(a, copy);
                Arc::make_mut(&mut self.threads[a]).view.tick(a)
            }
            _ => epoch,
        };
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

    /// How a trace names where an element's value comes from.
    fn source_name(&self, src: Option<usize>) -> String {
        match src {
            Some(s) => format!("from {}", self.setup.locs[s].name),
            None => "zero fill: outside the tensor".to_string(),
        }
    }

    /// Race check for an access of a copy (the agent's `a`): an earlier conflicting access
    /// races with it unless PTX orders it before the copy (see the module documentation).
    fn async_race_check(
        &mut self,
        a: usize,
        loc: usize,
        write: bool,
        epoch: u32,
        event: usize,
        copy: &Copy,
    ) -> Result<(), Halt> {
        let cp_async = matches!(copy.completion, Completion::CpAsyncGroup(_));
        // Where the access happens: a copy reads at its issuer and writes at the destination's
        // CTA when the destination is shared memory (`ptx-v8.cat`'s CHOICE: the write "happens
        // at the destination's CTA", whose shared memory it updates; so a multicast copy's
        // write is checked against the proxy fences of each destination CTA), else at its
        // agent's.
        let at = match (write, self.setup.locs[loc].shared) {
            (true, Some(addr)) => match self.setup.blocks.get(addr.block as usize) {
                Some(b) if !b.is_empty() => self.setup.threads[b[0]].placement,
                _ => self.setup.threads[a].placement,
            },
            (true, None) => self.setup.threads[a].placement,
            (false, _) => self.setup.threads[copy.issuer].placement,
        };
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
            // The agent's earlier copies are not the copy's own: PTX orders two async copies
            // only through their completion mechanisms (an mbarrier wait, a wait_group) that
            // the issuer synchronized with before issuing this one, whatever order one TMA unit
            // performs them in; so they are checked like any other access.
            if u == a && (own || !cp_async && p.epoch >= copy.started) {
                continue;
            }
            let ordered = if cp_async {
                // PTX ISA, *cp.async*: "There is no ordering guarantee between two cp.async
                // operations if they are not explicitly synchronized using cp.async.wait_all or
                // cp.async.wait_group or mbarrier instructions": a copy is ordered after what
                // its issuer knew at the issue, whoever performed it (the agent's earlier
                // copies included).
                copy.view.causes(0, u, p.epoch)
            } else if p.async_proxy {
                // Two async-proxy accesses: base causality, in one CTA (`ptx-v8.cat`:
                // `same-proxy & scta & vloc & base-causality`).
                same_cta(&p.actor.placement, &at) && copy.view.knows(0, u, p.epoch)
            } else {
                // A generic access, read or write, is ordered before the copy's access only
                // through a proxy fence of this access's CTA that covers the location, follows
                // the access in causality order (observation included) and precedes the issue
                // (PTX ISA, "Proxies": "Accessing the same memory location across multiple
                // proxies needs a cross-proxy fence"; `ptx-v8.cat`: proxy-preserved-strict,
                // no read/write distinction).
                self.proxy_fences.iter().any(|f| {
                    same_cta(&f.placement, &at)
                        && f.covers(loc)
                        && copy.view.knows(0, f.thread, f.epoch)
                        && f.view.causes(0, u, p.epoch)
                })
            };
            if !ordered {
                let needs_proxy_fence = !p.async_proxy && copy.view.causes(0, u, p.epoch);
                found = Some((p.clone(), needs_proxy_fence));
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
            let (kind, headline, mut details) =
                race.describe(&self.setup, &self.events, loc, event);
            details.pop();
            details.push(if needs_proxy_fence {
                "the generic-proxy access happens before the copy was issued, but no \
                 fence.proxy.async of the copy's CTA lies on the causality path from the access to \
                 the issue, so the async proxy need not see it: call fence_proxy_async() after the \
                 access, either in the accessing thread before the synchronization that orders it \
                 before the issue (e.g. before syncthreads) or in the issuing thread after that \
                 synchronization"
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
        let actor = super::sync::Actor {
            thread: a,
            placement: at,
            scope: None,
        };
        Arc::make_mut(&mut self.locs[loc]).accesses.push(AccessRec {
            actor,
            epoch,
            write,
            event,
            rmw: false,
            async_proxy: !cp_async,
        });
        Ok(())
    }

    /// A litmus program's bulk-copy completion ([`Completion::MbarrierAt`]): the complete-tx of
    /// `bytes`, a relaxed `.cluster` read-modify-write of the barrier's packed state by the
    /// agent. It releases the copy's own accesses, which the agent's clock holds (the agent
    /// never joined the issuer's view): `ptx-v8.cat`'s `tx-sync` makes the copy's accesses
    /// visible to an acquire pattern that observes the complete-tx, and nothing that preceded
    /// the issue. That is a release fence of the agent before a relaxed write, as far as what
    /// travels is concerned, and is carried as one (a head of the agent's view).
    pub(super) fn complete_tx_at(
        &mut self,
        a: usize,
        bar: usize,
        bytes: u64,
        site: Site,
    ) -> Result<(), Halt> {
        let actor = self.actor(a, Some(Scope::Cluster));
        let head = Head {
            releaser: actor,
            view: Arc::new(self.threads[a].view.clone()),
            levels: ALL_LEVELS,
        };
        Arc::make_mut(&mut self.threads[a]).fence_heads = vec![head];
        let tx = (bytes as i64).wrapping_neg();
        let apply = move |old: u64| Some(MbarrierState::update(old as i64, 0, tx) as u64);
        let kind = super::report::RmwKind::Mbarrier;
        let done = self.rmw(a, bar, kind, &apply, Order::Relaxed, Scope::Cluster, site);
        Arc::make_mut(&mut self.threads[a]).fence_heads.clear();
        done.map(|_| ())
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
                AgentNext::Element { .. }
                | AgentNext::Read(_)
                | AgentNext::Write(_)
                | AgentNext::Complete => {
                    let point = self.step(|m| Ok(m.agent_point(self.thread)));
                    self.sched.point(self.thread, point);
                    self.step(|m| m.agent_step(self.thread));
                }
            }
        }
    }
}
