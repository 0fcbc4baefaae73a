//! How a thread issues and waits for bulk copies: the engine-facing entry points (a scheduling
//! point, then the machine's operation of the parent module).

use super::Completion;
use crate::runtime::ctx::Ctx;
use crate::runtime::report::Site;
use crate::runtime::sched::Point;

impl Ctx {
    /// Issue a bulk copy of `src` into `dst` ([`Machine::bulk_copy`](crate::runtime::machine::Machine::bulk_copy)): a scheduling point, then
    /// the copy joins its block's agent's queue.
    pub fn bulk_copy(
        &self,
        src: Vec<usize>,
        dst: Vec<usize>,
        bytes: u64,
        completion: Completion,
        site: Site,
    ) {
        let point = self.step(|m| Ok(m.block_issue_point(self.thread, completion)));
        self.sched.point(self.thread, point);
        self.step(|m| m.bulk_copy(self.thread, src, dst, bytes, completion, site))
    }

    /// Issue a tensor-map copy ([`Machine::tensor_copy`](crate::runtime::machine::Machine::tensor_copy)): as [`Ctx::bulk_copy`], with the
    /// out-of-bounds elements of a load as `None` sources.
    pub fn tensor_copy(
        &self,
        src: Vec<Option<usize>>,
        dst: Vec<usize>,
        bytes: u64,
        completion: Completion,
        site: Site,
    ) {
        let point = self.step(|m| Ok(m.block_issue_point(self.thread, completion)));
        self.sched.point(self.thread, point);
        self.step(|m| m.tensor_copy(self.thread, src, dst, bytes, completion, site))
    }

    /// `fence.proxy.async` ([`Machine::fence_proxy_async`](crate::runtime::machine::Machine::fence_proxy_async)).
    pub fn fence_proxy_async(&self, site: Site) {
        self.sched.point(self.thread, Point::Local);
        self.step(|m| m.fence_proxy_async(self.thread, site))
    }

    /// `cp.async.bulk.commit_group; cp.async.bulk.wait_group 0` ([`Machine::bulk_wait`](crate::runtime::machine::Machine::bulk_wait)):
    /// blocks until every bulk copy the thread issued is complete.
    pub fn bulk_wait(&self, site: Site) {
        let point = self.step(|m| Ok(m.groups_point(self.thread, true, None)));
        self.sched.point(self.thread, point);
        if self.step(|m| m.bulk_wait(self.thread, site)) {
            self.wait();
        }
    }

    /// `cp.async.bulk.commit_group` ([`Machine::bulk_commit`](crate::runtime::machine::Machine::bulk_commit)).
    pub fn bulk_commit_group(&self, site: Site) {
        self.sched.point(self.thread, Point::Local);
        self.step(|m| m.bulk_commit(self.thread, site))
    }

    /// `cp.async.bulk.wait_group{.read} n` ([`Machine::bulk_wait_group`](crate::runtime::machine::Machine::bulk_wait_group)): blocks until every
    /// committed bulk async-group but the `n` most recent is complete (with `read`: has read
    /// its sources).
    pub fn bulk_wait_group(&self, n: usize, read: bool, site: Site) {
        let point = self.step(|m| Ok(m.groups_point(self.thread, true, Some(n))));
        self.sched.point(self.thread, point);
        if self.step(|m| m.bulk_wait_group(self.thread, n, read, site)) {
            self.wait();
        }
    }
}
