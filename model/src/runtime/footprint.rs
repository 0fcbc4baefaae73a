//! What each step of the asynchronous-copy machinery touches besides its own thread's state:
//! the scheduling points ([`Point::Async`]) from which the DFS's partial-order reduction decides
//! which steps commute ([`crate::engine::dependent`] has the argument). Each footprint is fixed
//! when the thread reaches its point: it names the copy, its agent, its issuer and its
//! completion, none of which another thread can change before the step runs.
//!
//! - An issue (`cp.async.bulk`, `cp.async`) appends to its agent's queue and may wake it, adds
//!   a copy to its issuer's groups, and, for a copy completing on an mbarrier, counts it in
//!   flight there ([`Machine::bulk_copy_on`]).
//! - An agent step performs one element (reads its source, writes its destination), or one
//!   read or write of a copy that reads all its elements first, or the completion. The step that
//!   ends a copy (the completion, or a `cp.async`'s last element) then takes the next copy from
//!   the queue or lets the agent go idle: it touches the agent's queue; the other steps do not.
//!   A step that completes a copy or its reading (a `.bulk_group` copy's last read) marks its
//!   issuer's groups and may wake it; a `complete_tx` operates on its mbarrier; a `cp.async`
//!   completion also performs its issuer's `cp.async.mbarrier.arrive`s that waited for it,
//!   whichever mbarriers they name.
//! - A `wait_group` (bulk or `cp.async`) reads its own thread's groups, which the agent's
//!   completing steps write; a `cp.async.mbarrier.arrive` reads them too and operates on its
//!   mbarrier.

use super::async_copy::Completion;
use super::machine::Machine;
use crate::engine::{Footprint, Point};

impl Machine {
    /// The point of `t` issuing a copy with `completion` on agent slot `slot` (no agent: a
    /// misuse that ends the execution, dependent with everything).
    pub fn issue_point(&self, t: usize, slot: usize, completion: Completion) -> Point {
        let Some(&agent) = self.setup.agents.get(slot) else {
            return Point::Other;
        };
        let mbarrier = match completion {
            Completion::MBarrier(bar) => Some(bar),
            Completion::BulkGroup | Completion::CpAsyncGroup(_) => None,
            // A litmus program's copy touches its mbarrier's location only at completion.
            Completion::MbarrierAt(_) => None,
        };
        Point::Async(Footprint {
            queues: [Some(agent), Some(t)],
            mbarriers: [mbarrier, None, None, None],
            ..Footprint::default()
        })
    }

    /// The point of `t` issuing a copy on its own block's agent.
    pub fn block_issue_point(&self, t: usize, completion: Completion) -> Point {
        self.issue_point(t, self.setup.threads[t].block as usize, completion)
    }

    /// The point of a step that reads or waits for `t`'s own groups (a `wait_group`).
    pub fn groups_point(t: usize) -> Point {
        Point::Async(Footprint {
            queues: [Some(t), None],
            ..Footprint::default()
        })
    }

    /// The point of agent `a`'s next step of its current copy (see the module documentation).
    pub fn agent_point(&self, a: usize) -> Point {
        let slot = self.agent_slot(a);
        let Some((copy, i)) = &self.agent_work[slot].current else {
            return Point::Other;
        };
        let (i, n) = (*i, copy.dst.len());
        let issuer = Some(copy.issuer);
        let mut f = Footprint::default();
        let cp_async = matches!(copy.completion, Completion::CpAsyncGroup(_));
        if copy.reads_first() && i < n {
            f.read = Some(copy.src[i]);
            if i + 1 == n {
                // The last read completes the copy's reading.
                f.queues[1] = issuer;
            }
        } else if copy.reads_first() && i < 2 * n {
            f.write = Some(copy.dst[i - n]);
        } else if i < n {
            f.read = Some(copy.src[i]);
            f.write = Some(copy.dst[i]);
            if i + 1 == n && copy.completion == Completion::BulkGroup {
                // A one-element `.bulk_group` copy's read completes its reading.
                f.queues[1] = issuer;
            }
            if i + 1 == n && cp_async {
                // A `cp.async` completes with its last element.
                f.queues = [Some(a), issuer];
                self.cp_arrive_mbarriers(copy.issuer, &mut f);
            }
        } else {
            f.queues[0] = Some(a);
            match copy.completion {
                Completion::MBarrier(bar) => f.mbarriers[0] = Some(bar),
                Completion::BulkGroup => f.queues[1] = issuer,
                Completion::CpAsyncGroup(_) => {
                    f.queues[1] = issuer;
                    self.cp_arrive_mbarriers(copy.issuer, &mut f);
                }
                // A litmus complete-tx is a read-modify-write of the mbarrier's location.
                Completion::MbarrierAt(bar) => {
                    f.read = Some(bar);
                    f.write = Some(bar);
                }
            }
        }
        Point::Async(f)
    }

    /// The mbarriers a completion of `issuer`'s `cp.async` may arrive on: those of its CTA
    /// (PTX ISA, *cp.async.mbarrier.arrive*: `cp.async.mbarrier.arrive{.noinc}{.state}.b64
    /// [addr]` with `.state = { .shared, .shared::cta }`, an mbarrier in the executing
    /// thread's CTA's shared memory), or any when there are more than a footprint holds.
    fn cp_arrive_mbarriers(&self, issuer: usize, f: &mut Footprint) {
        let block = self.setup.threads[issuer].block;
        let own: Vec<usize> = (self.setup.mbarriers.iter().enumerate())
            .filter(|(_, m)| m.block == block)
            .map(|(i, _)| i)
            .collect();
        if own.len() > f.mbarriers.len() {
            f.any_mbarrier = true;
        } else {
            for (slot, m) in f.mbarriers.iter_mut().zip(own) {
                *slot = Some(m);
            }
        }
    }
}
