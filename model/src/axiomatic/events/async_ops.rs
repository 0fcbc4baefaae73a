//! The events of asynchronous instructions: mbarrier operations, `cp.async` copies and
//! groups, bulk copies.

use super::event::{ClusterBarrier, Kind};
use super::expr::Expr;
use super::memory::split_rmw;
use super::state::{sides, State, Tainted};
use crate::litmus::async_ops::{Arrival, BulkCompletion};
use crate::litmus::*;
use crate::scope::{Order, Scope};
use std::collections::BTreeSet;

impl State {
    /// An asynchronous instruction's events. An mbarrier instruction is memory events on the
    /// barrier's location, whose value is the packed
    /// [`MbarrierState`](crate::litmus::async_ops::MbarrierState): `mbarrier.init` a weak write;
    /// arrive, expect-tx and complete-tx
    /// atomic read-modify-writes (PTX ISA, *mbarrier*: "operations on an mbarrier object are
    /// performed atomically"), an arrive with its `.release` on the write; `try_wait` a strong
    /// read. PTX ISA, *mbarrier.test_wait/try_wait*: the acquire pattern is that of a wait that
    /// returns True ("when the wait completes, it synchronizes with the release pattern"), so the
    /// path forks: on the side where the phase has completed the read acquires, on the other it
    /// is relaxed. The other asynchronous instructions: bulk copies ([`State::bulk_copy`],
    /// [`State::async_copy`]), their groups ([`State::bulk_wait`]), `fence.mbarrier_init`
    /// ([`Kind::MbarrierInitFence`]) and cluster barriers ([`Kind::ClusterBarrier`]).
    pub(super) fn async_op(mut self, stmt: usize, op: &AsyncOp) -> Vec<State> {
        let strong = |order: Order, scope: Scope| Access {
            proxy: Proxy::Generic,
            order,
            scope: Some(scope),
        };
        let zero = Tainted::constant(0);
        match op {
            AsyncOp::MbarrierInit { bar, count } => {
                let count = self.operand(count);
                let state = Tainted {
                    value: Expr::MbarInit(Box::new(count.value.clone())),
                    deps: count.deps,
                };
                let weak = Access {
                    proxy: Proxy::Generic,
                    order: Order::Weak,
                    scope: None,
                };
                self.write(stmt, weak, *bar, &state, false);
                vec![self]
            }
            AsyncOp::MbarrierArrive {
                bar,
                order,
                scope,
                arrival,
                ..
            } => {
                let (arrivals, tx) = match arrival {
                    Arrival::Count(n) => (self.operand(n), zero),
                    Arrival::ExpectTx(bytes) => (Tainted::constant(1), self.operand(bytes)),
                };
                self.mbar_rmw(stmt, strong(*order, *scope), *bar, &arrivals, &tx);
                vec![self]
            }
            AsyncOp::MbarrierExpectTx {
                bar, scope, bytes, ..
            } => {
                let tx = self.operand(bytes);
                self.mbar_rmw(stmt, strong(Order::Relaxed, *scope), *bar, &zero, &tx);
                vec![self]
            }
            AsyncOp::MbarrierCompleteTx {
                bar, scope, bytes, ..
            } => {
                let bytes = self.operand(bytes);
                let tx = Tainted {
                    value: Expr::sub(Expr::Const(0), bytes.value.clone()),
                    deps: bytes.deps,
                };
                self.mbar_rmw(stmt, strong(Order::Relaxed, *scope), *bar, &zero, &tx);
                vec![self]
            }
            AsyncOp::MbarrierTryWait {
                dst,
                bar,
                order,
                scope,
                parity,
            } => {
                let r = self.next_event();
                let parity = self.operand(parity);
                let done = Tainted::read(r).combine(
                    &parity,
                    Expr::MbarDone(Box::new(Expr::Read(r)), Box::new(parity.value.clone())),
                );
                let sides = match order.is_acquire() {
                    true => sides(self, Cmp::Eq, &done, &Tainted::constant(1)),
                    false => vec![(false, self)],
                };
                sides
                    .into_iter()
                    .map(|(completed, mut s)| {
                        let order = if completed { *order } else { Order::Relaxed };
                        let kind = Kind::Read {
                            loc: *bar,
                            access: strong(order, *scope),
                            value: Expr::Read(r),
                            rmw: false,
                        };
                        s.push(stmt, kind, &BTreeSet::new());
                        s.regs.insert(dst.clone(), done.clone());
                        s
                    })
                    .collect()
            }
            AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::Mbarrier(bar),
            } => {
                self.bulk_copy(stmt, *dst, *src, *size, *bar);
                vec![self]
            }
            AsyncOp::BulkCopy {
                dst,
                src,
                size: _,
                completion: BulkCompletion::BulkGroup,
            } => {
                let first = self.async_copy(stmt, *dst, *src);
                self.bulk_open.push(first);
                vec![self]
            }
            AsyncOp::BulkCommitGroup => {
                // PTX ISA, *cp.async.bulk.commit_group*: it "creates a new bulk async-group
                // per thread and batches all prior cp.async.bulk instructions ... into the new
                // bulk async-group"; with none, "an empty bulk async-group is created".
                let group = std::mem::take(&mut self.bulk_open);
                self.bulk_groups.push(group);
                vec![self]
            }
            AsyncOp::BulkWaitGroup { pending, read } => {
                self.bulk_wait(*pending as usize, *read);
                vec![self]
            }
            AsyncOp::FenceMbarrierInit => {
                self.push(stmt, Kind::MbarrierInitFence, &BTreeSet::new());
                vec![self]
            }
            AsyncOp::ClusterArrive { order } => {
                let release = order.is_release();
                let kind = Kind::ClusterBarrier(ClusterBarrier::Arrive { release });
                self.push(stmt, kind, &BTreeSet::new());
                vec![self]
            }
            AsyncOp::ClusterWait => {
                self.push(
                    stmt,
                    Kind::ClusterBarrier(ClusterBarrier::Wait),
                    &BTreeSet::new(),
                );
                vec![self]
            }
        }
    }

    /// A bulk copy completed through an mbarrier: the copy's accesses ([`State::async_copy`]),
    /// then the complete-tx of `size` bytes on `bar`, a relaxed `.cluster` read-modify-write of
    /// the barrier's state.
    pub(super) fn bulk_copy(
        &mut self,
        stmt: usize,
        dst: LocId,
        src: LocId,
        size: Value,
        bar: LocId,
    ) {
        let first = self.async_copy(stmt, dst, src);
        let complete = Access {
            proxy: Proxy::Generic,
            order: Order::Relaxed,
            scope: Some(Scope::Cluster),
        };
        let zero = Tainted::constant(0);
        self.mbar_rmw(stmt, complete, bar, &zero, &Tainted::constant(-size));
        for e in &mut self.events[first..] {
            e.copy = Some(first);
        }
    }

    /// A bulk copy's accesses: an async-proxy read of `src` and write of `dst` (weak: the copy
    /// promises no atomicity). The events belong to the copy, not to the thread's program order
    /// ([`ThreadEvent::copy`](super::event::ThreadEvent::copy)). Returns the copy's first event.
    pub(super) fn async_copy(&mut self, stmt: usize, dst: LocId, src: LocId) -> usize {
        let first = self.next_event();
        let weak = Access {
            proxy: Proxy::Async,
            order: Order::Weak,
            scope: None,
        };
        let read = Kind::Read {
            loc: src,
            access: weak,
            value: Expr::Read(first),
            rmw: false,
        };
        self.push(stmt, read, &BTreeSet::new());
        self.write(stmt, weak, dst, &Tainted::read(first), false);
        for e in &mut self.events[first..] {
            e.copy = Some(first);
        }
        first
    }

    /// An atomic update of an mbarrier's state: a read, then the write of
    /// [`MbarrierState::update`](crate::litmus::async_ops::MbarrierState::update) of what it read.
    pub(super) fn mbar_rmw(
        &mut self,
        stmt: usize,
        access: Access,
        bar: LocId,
        arrivals: &Tainted,
        tx: &Tainted,
    ) {
        let (ra, wa) = split_rmw(access);
        let r = self.next_event();
        let kind = Kind::Read {
            loc: bar,
            access: ra,
            value: Expr::Read(r),
            rmw: true,
        };
        self.push(stmt, kind, &BTreeSet::new());
        let old = Tainted::read(r);
        let value = Expr::MbarUpdate(Box::new([
            old.value.clone(),
            arrivals.value.clone(),
            tx.value.clone(),
        ]));
        let new = old.combine(arrivals, value.clone()).combine(tx, value);
        self.write(stmt, wa, bar, &new, true);
    }
}
