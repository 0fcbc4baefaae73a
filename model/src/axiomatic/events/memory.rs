//! A thread's memory events: stores, and read-modify-writes split into a read and a write.

use super::event::Kind;
use super::expr::Expr;
use super::state::{sides, State, Tainted};
use crate::litmus::*;
use crate::scope::Order;
use std::collections::BTreeSet;

/// One outcome of an RMW: the state after it and the index of its read.
pub(super) struct RmwOutcome {
    pub(super) state: State,
    pub(super) read: usize,
}

impl State {
    /// A store of `v` to `loc`, depending on the reads `v` was computed from.
    pub(super) fn write(
        &mut self,
        stmt: usize,
        access: Access,
        loc: LocId,
        v: &Tainted,
        rmw: bool,
    ) {
        let kind = Kind::Write {
            loc,
            access,
            value: v.value.clone(),
            rmw,
        };
        self.push(stmt, kind, &v.deps);
    }

    /// An RMW: a read, then (unless a CAS fails) a write of the new value. A CAS forks into
    /// success and failure, each assuming how the value read compares with the expected one.
    pub(super) fn rmw(
        self,
        stmt: usize,
        access: Access,
        op: RmwOp,
        loc: LocId,
        arg: &Tainted,
        cas_new: Option<&Tainted>,
    ) -> Vec<RmwOutcome> {
        let (ra, wa) = split_rmw(access);
        let r = self.next_event();
        let old = Tainted::read(r);
        // PTX ISA, *atom*: "atomically loads the original value at location a into destination
        // register d, performs a reduction operation with operand b and the value in location
        // a, and stores the result of the specified operation at location a"; `red` is the same
        // without `d`. Every operation but a CAS writes; a CAS writes only when it compares equal.
        let new_value = match op {
            RmwOp::Cas => None,
            op => Some(Expr::rmw(op, old.value.clone(), arg.value.clone())),
        };
        let outcomes: Vec<(Option<Expr>, State)> = match new_value {
            Some(v) => vec![(Some(v), self)],
            None => sides(self, Cmp::Eq, &old, arg)
                .into_iter()
                .map(|(swapped, s)| {
                    let written = cas_new.map_or(Expr::Const(0), |n| n.value.clone());
                    (swapped.then_some(written), s)
                })
                .collect(),
        };
        outcomes
            .into_iter()
            .map(|(written, mut s)| {
                let kind = Kind::Read {
                    loc,
                    access: ra,
                    value: Expr::Read(r),
                    rmw: written.is_some(),
                };
                s.push(stmt, kind, &BTreeSet::new());
                if let Some(v) = written {
                    let mut from = old.combine(arg, v.clone());
                    if let Some(n) = cas_new {
                        from = from.combine(n, v);
                    }
                    s.write(stmt, wa, loc, &from, true);
                }
                RmwOutcome { state: s, read: r }
            })
            .collect()
    }
}

/// The order of the read and the write halves of an RMW: acquire stays with the read, release
/// with the write; each half is at least relaxed.
pub fn split_rmw(access: Access) -> (Access, Access) {
    let read = if access.order.is_acquire() {
        Order::Acquire
    } else {
        Order::Relaxed
    };
    let write = if access.order.is_release() {
        Order::Release
    } else {
        Order::Relaxed
    };
    (
        Access {
            order: read,
            ..access
        },
        Access {
            order: write,
            ..access
        },
    )
}
