//! `st.async` and `red.async` (PTX ISA 8.1, sm_90): a thread's store or reduction to the shared
//! memory of a CTA of its cluster, performed asynchronously, whose completion signals
//! `complete_tx` on an mbarrier of the destination's CTA.
//!
//! The PTX ISA's sentences this module rests on (*st.async*, *red.async*):
//! - "st.async is a non-blocking instruction which writes a value … to the destination memory
//!   location" in `.shared::cluster`; "upon completion of the asynchronous store operation,
//!   complete-tx operation, with completeCount argument equal to the amount of data stored in
//!   bytes, will be performed on the mbarrier object specified by the operand mbar". `red.async`
//!   likewise "performs a reduction operation … and stores the result".
//! - "The st.async operation is treated as a weak memory operation"; "the red.async operation is
//!   treated as a relaxed memory operation" at `.cluster` scope; "the complete_tx operation on
//!   the mbarrier has .release semantics at .cluster scope".
//!
//! So the issuing thread queues the operation on its block's asynchronous agent (the copy
//! agent that performs bulk copies), which performs it at a point the engine chooses:
//! - the write is ordered after what the issuer knew at the issue (program order: the
//!   operation is the issuer's), and after nothing else: an access of the destination that the
//!   issuer did not know of races with it unless both are morally strong (a `red.async` is a
//!   relaxed `.cluster` atomic; an `st.async` is weak, so it is strong with nothing). Two
//!   asynchronous operations are ordered only through a completion the issuer synchronized
//!   with before the second issue, as for bulk copies;
//! - it works in the generic proxy (the ISA lists `cp.async.bulk` and its kin, not `st.async`
//!   or `red.async`, as performed in the async proxy), so no proxy fence is involved;
//! - its completion is a release at `.cluster` scope by the issuing thread: it releases what
//!   the issuer knew at the issue and the write itself, to the waits on the mbarrier that are
//!   morally strong with it. A wait at `.cta` scope is morally strong with it only when the
//!   issuer is in the barrier's CTA ("Morally strong": each operation's scope includes the
//!   other's thread); a consumer in another CTA than the producer waits with
//!   `.acquire.cluster`, as for a remote `mbarrier.arrive.release.cluster`. A consumer that
//!   reads the destination without that wait races with the write.
//!
//! The write and the complete-tx are one agent step per element, the complete-tx with the last
//! element: completing later only delays the waiters, which the engine may delay anyway.

use super::state::{same_cta, AsyncStore, Completion, Copy};
use crate::runtime::ctx::Ctx;

use crate::runtime::machine::{Access, Halt, Machine};
use crate::runtime::memory::AccessRec;
use crate::runtime::race::find_race;
use crate::runtime::report::{EventKind, FailureKind, Site};
use crate::runtime::sync::{morally_strong, Actor, Head};
use crate::runtime::view::{Observed, View, ALL_LEVELS};
use crate::scope::{Order, Scope};
use std::sync::Arc;

impl Machine {
    /// Issue `st.async` / `red.async` by `t`: `store` into the shared-memory elements `dst`
    /// (one for a reduction), completing `complete_tx(bytes)` on mbarrier `bar`, which must be
    /// in the destination's CTA.
    pub fn async_store(
        &mut self,
        t: usize,
        dst: Vec<usize>,
        store: AsyncStore,
        bar: usize,
        bytes: u64,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let names = dst
            .iter()
            .map(|&l| self.setup.locs[l].name.clone())
            .collect::<Vec<_>>()
            .join(", ");
        let bar_name = self.setup.mbarriers[bar].name.clone();
        let what = match &store {
            AsyncStore::Values(v) => {
                let values = (dst.iter().zip(v))
                    .map(|(&l, &x)| self.setup.locs[l].kind.format(x))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("st.async {names} = {values}")
            }
            AsyncStore::Reduce(r) => format!(
                "red.async.relaxed.cluster.{}.{} {names}, {}",
                r.op.name(),
                r.ty.name(),
                self.setup.locs[dst[0]].kind.format(r.operand)
            ),
        };
        let text = format!("{what} (complete_tx on {bar_name}, {bytes} bytes)");
        let event = self.event(t, site, EventKind::Note(text));
        let home = self.setup.mbarriers[bar].block;
        let outside = dst
            .iter()
            .find(|&&l| self.setup.locs[l].shared.is_none_or(|a| a.block != home));
        if let Some(&l) = outside {
            let headline = format!(
                "{what}: the destination {} is not in the shared memory of block {home}, whose \
                 mbarrier {bar_name} it signals",
                self.setup.locs[l].name
            );
            let detail = "PTX ISA, st.async/red.async: the destination is in .shared::cluster and \
                          the complete-tx is performed on the mbarrier that tracks it, in the \
                          destination's CTA"
                .to_string();
            self.fail(FailureKind::MBarrierMisuse, headline, vec![detail]);
            return Err(Halt);
        }
        self.mbar_check_init(t, bar, event)?;
        self.mbars[bar].in_flight += 1;
        let slot = self.setup.threads[t].block as usize;
        let copy = Copy {
            issuer: t,
            src: Vec::new(),
            dst,
            bytes,
            completion: Completion::Release(bar),
            view: Arc::new(self.threads[t].view.clone()),
            site,
            group: 0,
            read_values: Vec::new(),
            written: None,
            started: 0,
            store: Some(store),
        };
        self.enqueue(slot, copy)
    }

    /// Element `i` of an `st.async` / `red.async` in progress on agent `a`; the last one also
    /// completes it.
    pub(super) fn agent_store(&mut self, a: usize, copy: &mut Copy, i: usize) -> Result<(), Halt> {
        self.begin(a)?;
        let epoch = Arc::make_mut(&mut self.threads[a]).view.tick(a);
        let dst = copy.dst[i];
        let issuer = copy.issuer;
        let reduce = match &copy.store {
            Some(AsyncStore::Reduce(r)) => Some(*r),
            _ => None,
        };
        // The operation is the issuer's: its moral strength is the issuer's placement's, at
        // `.cluster` scope for a reduction, none for the weak store.
        let scope = reduce.map(|_| Scope::Cluster);
        let placement = self.setup.threads[issuer].placement;
        let actor = Actor {
            thread: a,
            placement,
            scope,
        };
        let read = self.locs[dst].latest();
        let old = self.locs[dst].stores[read].value;
        let (value, order) = match (&copy.store, reduce) {
            (Some(AsyncStore::Values(v)), _) => (v[i], Order::Weak),
            (_, Some(r)) => (r.apply(old), Order::Relaxed),
            (_, None) => unreachable!("agent_store runs st.async / red.async only"),
        };
        let what = match reduce {
            Some(r) => EventKind::Rmw {
                loc: dst,
                kind: r.op.kind(),
                order,
                scope: Scope::Cluster,
                old,
                new: Some(value),
            },
            None => EventKind::Store {
                loc: dst,
                order,
                scope: None,
                value,
            },
        };
        let event = self.event(a, copy.site, what);
        self.notify_access(&Access {
            thread: a,
            loc: dst,
            write: true,
            event,
        })?;
        if reduce.is_some() {
            self.notify_read(a, dst, old, value != old);
        }
        // Ordered after what the issuer knew at the issue, the issuer's own accesses included
        // (program order); `find_race` skips the accesses of the thread it checks for.
        let checked = Actor {
            thread: issuer,
            ..actor
        };
        if let Some(race) = find_race(&self.locs[dst].accesses, &copy.view, &checked, true) {
            if self.setup.stop_on_race {
                let (kind, headline, mut details) =
                    race.describe(&self.setup, &self.events, dst, event);
                details.push(
                    "st.async / red.async runs asynchronously: it is ordered after what its \
                     issuer knew when issuing it, and accesses are ordered after it only through \
                     a wait on its mbarrier that observes its complete_tx (at .cluster scope from \
                     another CTA)"
                        .to_string(),
                );
                self.fail(kind, headline, details);
                return Err(Halt);
            }
            self.races += 1;
        }
        Arc::make_mut(&mut self.locs[dst]).accesses.push(AccessRec {
            actor,
            epoch,
            write: true,
            event,
            rmw: reduce.is_some(),
            async_proxy: false,
        });
        // A reduction continues the release sequences of the store it read, at the levels the
        // pair is morally strong (as any read-modify-write).
        let mut heads = Vec::new();
        if reduce.is_some() {
            let s = &self.locs[dst].stores[read];
            if let Some(writer) = s.actor {
                let levels = morally_strong(&writer, &actor);
                for h in s.heads.iter().filter(|h| h.levels & levels != 0) {
                    heads.push(Head {
                        levels: h.levels & levels,
                        ..h.clone()
                    });
                }
            }
        }
        self.append_store(a, dst, value, epoch, actor, order, heads, event);
        let latest = self.locs[dst].latest() as u32;
        Arc::make_mut(&mut self.locs[dst]).mirror.push(latest);
        let (threads, locs) = (self.setup.threads.len(), self.setup.locs.len());
        let written = copy.written.get_or_insert_with(|| View::new(threads, locs));
        written.observe(Observed {
            thread: a as u32,
            epoch,
            levels: ALL_LEVELS,
        });
        let floor = &mut written.floor_mut()[dst];
        *floor = (*floor).max(latest);
        match (i + 1 == copy.dst.len(), copy.completion) {
            (true, Completion::Release(bar)) => self.async_store_complete(a, copy, bar),
            _ => Ok(()),
        }
    }

    /// The complete-tx of a finished `st.async` / `red.async`: `.release` at `.cluster` scope
    /// by the issuer (see the module documentation).
    fn async_store_complete(&mut self, a: usize, copy: &Copy, bar: usize) -> Result<(), Halt> {
        let name = self.setup.mbarriers[bar].name.clone();
        let phase = self.mbars[bar].phase;
        let text = format!(
            "complete_tx {name} -{} bytes (phase {phase}, .release.cluster)",
            copy.bytes
        );
        let event = self.event(a, copy.site, EventKind::Note(text));
        let mut released = View::clone(&copy.view);
        if let Some(w) = &copy.written {
            released.join(w, ALL_LEVELS);
        }
        let home = self.setup.mbarriers[bar].block as usize;
        let issuer = &self.setup.threads[copy.issuer].placement;
        let local = self.setup.blocks[home]
            .first()
            .is_none_or(|&w| same_cta(issuer, &self.setup.threads[w].placement));
        let b = &mut self.mbars[bar];
        b.tx -= copy.bytes as i64;
        b.in_flight = b.in_flight.saturating_sub(1);
        if local {
            self.mbar_release_view(bar, released);
        } else {
            match &mut b.releasing_remote {
                Some(v) => v.join(&released, ALL_LEVELS),
                None => b.releasing_remote = Some(released),
            }
        }
        self.mbar_settle(bar, Some(event));
        Ok(())
    }
}

impl Ctx {
    /// Issue an `st.async` / `red.async` ([`Machine::async_store`]): a scheduling point, then
    /// the operation joins its block's agent's queue.
    pub fn async_store(
        &self,
        dst: Vec<usize>,
        store: AsyncStore,
        bar: usize,
        bytes: u64,
        site: Site,
    ) {
        let point = self.step(|m| Ok(m.block_issue_point(self.thread, Completion::Release(bar))));
        self.sched.point(self.thread, point);
        self.step(|m| m.async_store(self.thread, dst, store, bar, bytes, site))
    }
}
