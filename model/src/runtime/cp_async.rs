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

use super::async_copy::{Completion, Copy};
use super::ctx::Ctx;
use super::machine::{Halt, Machine, Status};
use super::report::{EventKind, Site};
use super::view::ALL_LEVELS;
use crate::engine::Point;
use std::sync::Arc;

impl Machine {
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
        self.sched.point(self.thread, Point::Other);
        self.step(|m| m.cp_async(self.thread, src, dst, bytes, site))
    }

    /// `cp.async.commit_group`: it touches only the thread's own groups (a copy completing in
    /// the open group commutes with it), so it is independent of every other thread.
    pub fn cp_async_commit(&self, site: Site) {
        self.sched.point(self.thread, Point::Local);
        self.step(|m| m.cp_async_commit(self.thread, site))
    }

    /// `cp.async.wait_group n`.
    pub fn cp_async_wait(&self, n: usize, site: Site) {
        self.sched.point(self.thread, Point::Other);
        if self.step(|m| m.cp_async_wait(self.thread, n, site)) {
            self.wait();
        }
    }
}
