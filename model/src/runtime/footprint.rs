//! What each step of the asynchronous-copy machinery touches besides its own thread's state:
//! the scheduling points ([`Point::Async`]) from which the DFS's partial-order reduction decides
//! which steps commute (the engine's `dependent` has the argument). Each footprint is fixed
//! when the thread reaches its point: it names the copy, its agent, its issuer, its group and
//! its completion, none of which another thread can change before the step runs (a thread's
//! epoch and its open group change only by its own steps).
//!
//! - An issue (`cp.async.bulk`, `cp.async`) appends to its agent's queue and may wake it, adds
//!   a copy to its issuer's open group, and, for a copy completing on an mbarrier, counts it in
//!   flight there ([`Machine::bulk_copy_on`]). It names the copy by its issuer's epoch, which
//!   the agent's first step of the copy names too.
//! - An agent step performs one element (reads its source, writes its destination), or one
//!   read or write of a copy that reads all its elements first, or the completion. The step that
//!   ends a copy (the completion, or a `cp.async`'s last element) then takes the next copy from
//!   the queue or lets the agent go idle, which commutes with any issue. A step that completes
//!   a copy or its reading (a `.bulk_group` copy's last read) marks its group and may wake its
//!   issuer; a `complete_tx` operates on its mbarrier; a `cp.async` completion also performs
//!   its issuer's `cp.async.mbarrier.arrive`s that waited for it, whichever mbarriers they name.
//! - An `st.async` / `red.async` issue is an issue like a copy's; each of its agent steps
//!   writes (and, for a reduction, reads) one destination element, and the last also operates
//!   on its mbarrier (its complete-tx).
//! - A `wait_group` (bulk or `cp.async`) reads the groups it waits for, which the agent's
//!   completing steps mark; a `cp.async.mbarrier.arrive` reads all its thread's `cp.async`
//!   groups and operates on its mbarrier.

use super::async_copy::{Completion, Copy};
use super::machine::Machine;
use super::sched::{Footprint, GroupKey, Point};

impl Machine {
    /// The point of `t` issuing a copy with `completion` on agent slot `slot` (no agent: a
    /// misuse that ends the execution, dependent with everything).
    pub fn issue_point(&self, t: usize, slot: usize, completion: Completion) -> Point {
        let Some(&agent) = self.setup.agents.get(slot) else {
            return Point::Other;
        };
        let mbarrier = match completion {
            Completion::MBarrier(bar) | Completion::Release(bar) => Some(bar),
            Completion::BulkGroup | Completion::CpAsyncGroup(_) => None,
            // A litmus program's copy touches its mbarrier's location only at completion.
            Completion::MbarrierAt(_) => None,
        };
        Point::Async(Footprint {
            queues: [Some(agent), None],
            copy: Some((t, self.issue_epoch(t))),
            mbarriers: [mbarrier, None, None, None],
            ..Footprint::default()
        })
    }

    /// The epoch `t`'s next issue takes ([`Machine::bulk_copy_on`] ticks its clock), which
    /// names the copy it queues: the copy's view holds it.
    fn issue_epoch(&self, t: usize) -> u32 {
        self.threads[t].view.clock(0)[t] + 1
    }

    /// The async-group of `copy`, if it completes in one.
    fn group_of(copy: &Copy) -> Option<GroupKey> {
        let (bulk, number) = match copy.completion {
            Completion::BulkGroup => (true, copy.group),
            Completion::CpAsyncGroup(g) => (false, g),
            Completion::MBarrier(_) | Completion::MbarrierAt(_) | Completion::Release(_) => {
                return None
            }
        };
        Some(GroupKey {
            thread: copy.issuer,
            bulk,
            number,
        })
    }

    /// The point of `t` issuing a copy on its own block's agent.
    pub fn block_issue_point(&self, t: usize, completion: Completion) -> Point {
        self.issue_point(t, self.setup.threads[t].block as usize, completion)
    }

    /// The point of `t` waiting for its committed groups (`bulk` ones or `cp.async`-groups)
    /// but the `pending` most recent (`None`: every group, the open one included, as the
    /// kernel API's `bulk_wait` commits it first).
    pub fn groups_point(&self, t: usize, bulk: bool, pending: Option<usize>) -> Point {
        let th = &self.threads[t];
        let open = if bulk { th.bulk.open } else { th.cp.open };
        let number = pending.map_or(usize::MAX, |n| open.saturating_sub(n));
        Point::Async(Footprint {
            waits: Some(GroupKey {
                thread: t,
                bulk,
                number,
            }),
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
        let group = Machine::group_of(copy);
        let mut f = Footprint::default();
        if i == 0 {
            // The first step takes the copy up: after its issue.
            f.copy = Some((copy.issuer, copy.view.clock(0)[copy.issuer]));
        }
        let cp_async = matches!(copy.completion, Completion::CpAsyncGroup(_));
        if copy.store.is_some() {
            // An `st.async` / `red.async` element: it writes (a reduction also reads) its
            // destination; the last one performs the complete-tx on the mbarrier.
            f.read = Some(copy.dst[i]);
            f.write = Some(copy.dst[i]);
            if let (true, Completion::Release(bar)) = (i + 1 == n, copy.completion) {
                f.mbarriers[0] = Some(bar);
            }
        } else if copy.reads_first() && i < n {
            f.read = copy.src[i];
            if i + 1 == n {
                // The last read completes the copy's reading.
                f.group = group;
            }
        } else if copy.reads_first() && i < 2 * n {
            f.write = Some(copy.dst[i - n]);
        } else if i < n {
            f.read = copy.src[i];
            f.write = Some(copy.dst[i]);
            if i + 1 == n && copy.completion == Completion::BulkGroup {
                // A one-element `.bulk_group` copy's read completes its reading.
                f.group = group;
            }
            if i + 1 == n && cp_async {
                // A `cp.async` completes with its last element.
                f.group = group;
                self.cp_arrive_mbarriers(copy.issuer, &mut f);
            }
        } else {
            match copy.completion {
                Completion::MBarrier(bar) | Completion::Release(bar) => f.mbarriers[0] = Some(bar),
                Completion::BulkGroup => f.group = group,
                Completion::CpAsyncGroup(_) => {
                    f.group = group;
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
