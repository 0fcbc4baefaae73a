//! Ampere's `cp.async` (the non-bulk form): asynchronous global→shared copies of 4, 8 or 16
//! bytes issued by one thread, gathered into groups by `cp.async.commit_group` and waited for by
//! `cp.async.wait_group N`.
//!
//! PTX ISA, *cp.async*: "cp.async is a non-blocking instruction which initiates an asynchronous
//! copy operation of data from the location specified by source address operand src to the
//! location specified by destination address operand dst"; *cp.async.commit_group*: it commits
//! "all prior initiated but uncommitted cp.async instructions into a cp.async-group";
//! *cp.async.wait_group*: it makes "the executing thread wait till only N or fewer of the most
//! recent cp.async-groups are pending and all the prior cp.async-groups committed by the
//! executing thread are complete". Without a wait, nothing orders the copy's writes before the
//! thread's (or anyone's) later accesses of the destination.
//!
//! The copies run on the block's copy agent (see [`super::async_copy`]), in the generic proxy
//! (unlike bulk copies no proxy fence is needed): a copy is ordered after everything its issuer
//! knew when it issued it, and its writes are ordered before the issuer's accesses that follow
//! the `wait_group` that waited for its group; other threads see them through the issuer's later
//! synchronization (a barrier, release/acquire). Uncommitted copies are never waited for.
//!
//! `cp.async.mbarrier.arrive{.noinc}` (PTX ISA: it "causes an arrive-on operation to be
//! triggered by the system on the mbarrier object upon the completion of all prior cp.async
//! operations initiated by the executing thread"; without `.noinc` "the pending count of the
//! mbarrier object is incremented by 1 prior to the asynchronous mbarrier.arrive operation",
//! a zero net change for the current phase) is a [`CpArrive`]: it counts the thread's copies not
//! yet complete and arrives, releasing their writes, when the last of them completes (the
//! block's agent completes a thread's copies in issue order, so those are the next ones to
//! complete). Its arrive releases the copies' writes alone, as their completion does (those
//! of prior copies a `wait_group` already took are the issuer's own knowledge, which the
//! arrive does not release).

use super::async_copy::{Completion, Copy};
use super::ctx::Ctx;
use super::machine::{Halt, Machine, Status};
use super::report::{EventKind, Site};
use super::sched::{Footprint, GroupKey, Point};
use super::view::{View, ALL_LEVELS};
use std::sync::Arc;

pub mod state;

pub use self::state::CpArrive;

impl Machine {
    /// `cp.async.mbarrier.arrive{.noinc}.shared.b64 [bar]`: an arrive-on operation on `bar`
    /// once every `cp.async` `t` issued so far has completed; without `noinc` the barrier's
    /// pending count is first raised by one.
    pub fn cp_async_mbarrier_arrive(
        &mut self,
        t: usize,
        bar: usize,
        noinc: bool,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let remaining: u32 = self.threads[t]
            .cp
            .groups
            .iter()
            .map(|g| g.outstanding)
            .sum();
        let name = self.setup.mbarriers[bar].name.clone();
        let inc = if noinc { ".noinc" } else { "" };
        let text = format!(
            "cp.async.mbarrier.arrive{inc} {name} (after {remaining} pending cp.async copies)"
        );
        let event = self.event(t, site, EventKind::Note(text));
        self.mbar_check_init(t, bar, event)?;
        if !noinc {
            self.mbars[bar].pending += 1;
        }
        // The prior copies that already completed release their writes too (those their group
        // holds until a `wait_group` takes them).
        let mut released: Option<View> = None;
        for g in &self.threads[t].cp.groups {
            if let Some(done) = &g.done {
                match &mut released {
                    Some(v) => v.join(done, ALL_LEVELS),
                    None => released = Some(done.clone()),
                }
            }
        }
        self.cp_arrives.push(CpArrive {
            thread: t,
            bar,
            remaining,
            released,
            site,
        });
        self.cp_arrive_due()
    }

    /// Perform the `cp.async.mbarrier.arrive`s whose copies have all completed: one arrival
    /// each, releasing the copies' writes.
    fn cp_arrive_due(&mut self) -> Result<(), Halt> {
        while let Some(i) = self.cp_arrives.iter().position(|c| c.remaining == 0) {
            let c = self.cp_arrives.remove(i);
            let name = self.setup.mbarriers[c.bar].name.clone();
            if self.mbars[c.bar].pending == 0 {
                let state = self.mbar_describe(c.bar);
                self.fail(
                    super::report::FailureKind::MBarrierMisuse,
                    format!("cp.async.mbarrier.arrive on mbarrier {name} past its expected count"),
                    vec![format!(
                        "{state}: the phase already has every arrival it was initialised for \
                         (.noinc arrivals must be counted in mbarrier.init's count)"
                    )],
                );
                return Err(Halt);
            }
            self.mbars[c.bar].pending -= 1;
            if let Some(v) = c.released {
                self.mbar_release_view(c.bar, v);
            }
            let text = format!("cp.async.mbarrier.arrive on {name} performed");
            let event = self.event(c.thread, c.site, EventKind::Note(text));
            self.mbar_settle(c.bar, Some(event));
        }
        Ok(())
    }

    /// `cp.async.ca.shared.global`: queue a copy of `src` to `dst` in the thread's open group.
    pub fn cp_async(
        &mut self,
        t: usize,
        src: Vec<usize>,
        dst: Vec<usize>,
        bytes: u64,
        site: Site,
    ) -> Result<(), Halt> {
        let group = self.threads[t].cp.open;
        self.bulk_copy(t, src, dst, bytes, Completion::CpAsyncGroup(group), site)
    }

    /// One more copy of `t` in `group` (at the issue).
    pub(super) fn cp_async_issued(&mut self, t: usize, group: usize) {
        let issued = Arc::make_mut(&mut self.threads[t]).cp.issue(false);
        debug_assert_eq!(issued, group);
    }

    /// `cp.async.commit_group`: the open group (possibly empty) is committed; later copies go
    /// to a new one.
    pub fn cp_async_commit(&mut self, t: usize, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let group = Arc::make_mut(&mut self.threads[t]).cp.commit();
        let text = format!("cp.async.commit_group (group {group})");
        self.event(t, site, EventKind::Note(text));
        Ok(())
    }

    /// `cp.async.wait_group n`: block until every committed group but the `n` most recent is
    /// complete; then their copies' writes happen before what follows. Returns `true` to block.
    pub fn cp_async_wait(&mut self, t: usize, n: usize, site: Site) -> Result<bool, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let pending = self.threads[t].cp.pending();
        let text = format!("cp.async.wait_group {n} ({pending} committed groups pending)");
        self.event(t, site, EventKind::Note(text));
        if self.cp_async_ready(t, n) {
            return Ok(false);
        }
        Arc::make_mut(&mut self.threads[t]).status = Status::CpAsyncWait(n);
        self.check_hang()?;
        Ok(true)
    }

    /// Whether `t`'s committed groups but the `n` most recent are complete; if so, `t` joins
    /// what they released.
    fn cp_async_ready(&mut self, t: usize, n: usize) -> bool {
        let th = Arc::make_mut(&mut self.threads[t]);
        let Some(released) = th.cp.ready(n, false) else {
            return false;
        };
        for v in &released {
            th.view.join(v, ALL_LEVELS);
        }
        true
    }

    /// The agent finished one copy of `group`: the issuer may stop waiting.
    pub(super) fn cp_async_complete(
        &mut self,
        a: usize,
        copy: &Copy,
        group: usize,
    ) -> Result<(), Halt> {
        self.begin(a)?;
        Arc::make_mut(&mut self.threads[a]).view.tick(a);
        let issuer = copy.issuer;
        let text = format!(
            "cp.async of {} complete (group {group})",
            self.setup.threads[issuer].name
        );
        self.event(a, copy.site, EventKind::Note(text));
        // The copy's writes alone: the agent's clock also covers its other copies, which PTX
        // leaves unordered with this one.
        for c in self.cp_arrives.iter_mut().filter(|c| c.thread == issuer) {
            if c.remaining > 0 {
                c.remaining -= 1;
                if let Some(w) = &copy.written {
                    match &mut c.released {
                        Some(v) => v.join(w, ALL_LEVELS),
                        None => c.released = Some(w.clone()),
                    }
                }
            }
        }
        self.cp_arrive_due()?;
        let th = Arc::make_mut(&mut self.threads[issuer]);
        th.cp.complete(group, copy.written.as_ref());
        if let Status::CpAsyncWait(n) = th.status {
            if self.cp_async_ready(issuer, n) {
                Arc::make_mut(&mut self.threads[issuer]).status = Status::Running;
                self.wake.push(issuer);
            }
        }
        Ok(())
    }
}

impl Ctx {
    /// `cp.async` (see [`Machine::cp_async`]).
    pub fn cp_async(&self, src: Vec<usize>, dst: Vec<usize>, bytes: u64, site: Site) {
        let point = self.step(|m| {
            let group = m.threads[self.thread].cp.open;
            Ok(m.block_issue_point(self.thread, Completion::CpAsyncGroup(group)))
        });
        self.sched.point(self.thread, point);
        self.step(|m| m.cp_async(self.thread, src, dst, bytes, site))
    }

    /// `cp.async.commit_group`: it touches only the thread's own groups (a copy completing in
    /// the open group commutes with it), so it is independent of every other thread.
    pub fn cp_async_commit(&self, site: Site) {
        self.sched.point(self.thread, Point::Local);
        self.step(|m| m.cp_async_commit(self.thread, site))
    }

    /// `cp.async.mbarrier.arrive{.noinc}` (see [`Machine::cp_async_mbarrier_arrive`]).
    /// It reads the thread's groups (the copies still pending), which the agent's completions
    /// mark, and operates on `bar`.
    pub fn cp_async_mbarrier_arrive(&self, bar: usize, noinc: bool, site: Site) {
        let point = Point::Async(Footprint {
            waits: Some(GroupKey {
                thread: self.thread,
                bulk: false,
                number: usize::MAX,
            }),
            mbarriers: [Some(bar), None, None, None],
            ..Footprint::default()
        });
        self.sched.point(self.thread, point);
        self.step(|m| m.cp_async_mbarrier_arrive(self.thread, bar, noinc, site))
    }

    /// `cp.async.wait_group n`.
    pub fn cp_async_wait(&self, n: usize, site: Site) {
        let point = self.step(|m| Ok(m.groups_point(self.thread, false, Some(n))));
        self.sched.point(self.thread, point);
        if self.step(|m| m.cp_async_wait(self.thread, n, site)) {
            self.wait();
        }
    }
}
