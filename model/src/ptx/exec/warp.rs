//! CTA barriers and warp-synchronous instructions on the runtime (`runtime::barriers`,
//! `runtime::warp`), each with the instruction's site.

use super::Thread;
use crate::ptx::decode::{Op, RedOp, ShflMode, VoteMode};
use crate::ptx::value::Ty;
use crate::runtime::report::{FailureKind, Site};

impl Thread<'_> {
    /// Barriers and warp operations.
    pub(super) fn exec_sync(&mut self, op: &Op, site: Site) {
        self.synced = true;
        match op {
            Op::Bar {
                id,
                count,
                wait,
                red,
            } => {
                let id = self.src(id) as u32;
                let block = self.t.grid.threads_per_block;
                let count = count.as_ref().map(|c| self.src(c) as u32);
                let whole = count.is_none_or(|c| c == block);
                match red {
                    Some((op, d, pred)) => {
                        if id != 0 || !whole {
                            self.fail(
                                FailureKind::Unsupported,
                                site,
                                "bar.red on a barrier other than 0 or a part of the CTA".into(),
                            );
                        }
                        let p = self.src(pred) & 1 == 1;
                        let n = self.t.rt.barrier_vote(p, site);
                        let v = match op {
                            RedOp::Popc => n as u64,
                            RedOp::And => (n == block) as u64,
                            _ => (n > 0) as u64,
                        };
                        self.set(d, v);
                    }
                    // `bar.sync 0` of the whole CTA: `__syncthreads()`, whose divergence the
                    // runtime reports (threads at different instructions, or some exited).
                    None if id == 0 && count.is_none() && *wait => self.t.rt.barrier(site),
                    None => {
                        let count = count.unwrap_or(block);
                        let warp = self.t.grid.warp_size;
                        self.t.rt.named_barrier(id, count, warp, *wait, site)
                    }
                }
            }
            Op::WarpSync { mask } => {
                let mask = self.src(mask);
                self.warp(mask, "bar.warp.sync", 0, site);
            }
            Op::Shfl { mode, d, p, a } => {
                let [a, b, c, mask] = a;
                let (value, b, c, mask) = (self.src(a), self.src(b), self.src(c), self.src(mask));
                let values = self.warp(mask, "shfl.sync", value & 0xffff_ffff, site);
                // PTX ISA, *shfl.sync*: "cval = c[4:0]; segmask = c[12:8]; maxLane = (lane &
                // segmask) | (cval & ~segmask); minLane = lane & segmask"; `.up`: j = lane -
                // b, valid when j >= maxLane; `.down`: j = lane + b; `.bfly`: j = lane ^ b;
                // `.idx`: j = minLane | (b & ~segmask); valid when j <= maxLane. An invalid j
                // copies the thread's own value.
                let lane = self.t.lane() as i64;
                let (bval, cval, seg) = ((b & 31) as i64, (c & 31) as i64, ((c >> 8) & 31) as i64);
                let max_lane = (lane & seg) | (cval & !seg);
                let min_lane = lane & seg;
                let (j, valid) = match mode {
                    ShflMode::Up => (lane - bval, lane - bval >= max_lane),
                    ShflMode::Down => (lane + bval, lane + bval <= max_lane),
                    ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
                    ShflMode::Idx => {
                        let j = min_lane | (bval & !seg);
                        (j, j <= max_lane)
                    }
                };
                let j = if valid { j } else { lane };
                let v = match values.iter().find(|(l, _)| *l as i64 == j) {
                    Some(&(_, v)) => v,
                    None => self.fail(
                        FailureKind::WarpMisuse,
                        site,
                        format!(
                            "shfl.sync: lane {lane} reads lane {j}, which is not in the mask \
                             {mask:#x} (the value is undefined)"
                        ),
                    ),
                };
                self.set(d, v);
                if let Some(p) = p {
                    self.set(p, valid as u64);
                }
            }
            Op::Vote { mode, d, a } => {
                let (pred, mask) = (self.src(&a[0]) & 1, self.src(&a[1]));
                let values = self.warp(mask, "vote.sync", pred, site);
                let trues = values.iter().filter(|(_, v)| *v == 1).count();
                let v = match mode {
                    VoteMode::All => (trues == values.len()) as u64,
                    VoteMode::Any => (trues > 0) as u64,
                    VoteMode::Uni => (trues == 0 || trues == values.len()) as u64,
                    VoteMode::Ballot => values
                        .iter()
                        .filter(|(_, v)| *v == 1)
                        .fold(0, |acc, (l, _)| acc | 1 << l),
                };
                self.set(d, v);
            }
            Op::Match { all, ty, d, p, a } => {
                let (value, mask) = (ty.trunc(self.src(&a[0])), self.src(&a[1]));
                let values = self.warp(mask, "match.sync", value, site);
                let same: u64 = values
                    .iter()
                    .filter(|(_, v)| *v == value)
                    .fold(0, |acc, (l, _)| acc | 1 << l);
                let everyone = values.iter().all(|(_, v)| *v == value);
                if *all {
                    self.set(d, if everyone { same } else { 0 });
                    if let Some(p) = p {
                        self.set(p, everyone as u64);
                    }
                } else {
                    self.set(d, same);
                }
            }
            Op::Activemask { d } => {
                let lanes = self.t.warp_lanes();
                let m = self.t.rt.active_mask(&lanes, self.t.lane(), site);
                self.set(d, m);
            }
            Op::Redux { op, ty, d, a } => {
                let (value, mask) = (ty.trunc(self.src(&a[0])), self.src(&a[1]));
                let values = self.warp(mask, "redux.sync", value, site);
                let it = values.iter().map(|(_, v)| *v);
                let signed = |v: u64| Ty::S(32).as_i64(v);
                let r = match op {
                    RedOp::Add => it.fold(0u64, |x, v| x.wrapping_add(v)),
                    RedOp::And => it.fold(u64::MAX, |x, v| x & v),
                    RedOp::Or => it.fold(0, |x, v| x | v),
                    RedOp::Xor => it.fold(0, |x, v| x ^ v),
                    RedOp::Min if ty.signed() => it.map(signed).min().unwrap_or(0) as u64,
                    RedOp::Max if ty.signed() => it.map(signed).max().unwrap_or(0) as u64,
                    RedOp::Min => it.min().unwrap_or(0),
                    RedOp::Max => it.max().unwrap_or(0),
                    RedOp::Popc => 0,
                };
                self.set(d, ty.norm(r));
            }
            Op::Elect { d, p, mask } => {
                let mask = self.src(mask) & 0xffff_ffff;
                // "elect.sync elects one predicated active leader thread from among a set of
                // threads specified by membermask. laneid of the elected thread is returned":
                // which lane the ISA leaves open ("the same leader thread is elected for the
                // same membermask every time"): the runtime explores each (`Machine::elect`).
                let lanes = self.t.warp_lanes();
                let leader = self.t.rt.elect(&lanes, self.t.lane(), mask, site);
                self.set(d, leader as u64);
                self.set(p, (leader == self.t.lane()) as u64);
            }
            Op::ClusterArrive { release } => {
                let arrival = self.t.rt.barrier_cluster_arrive(*release, site);
                self.cluster_arrival = Some(arrival);
            }
            Op::ClusterWait => match self.cluster_arrival.take() {
                Some(arrival) => self.t.rt.barrier_cluster_wait(arrival, site),
                // "barrier.cluster.wait … causes the executing thread to wait for all
                // non-exited threads of the cluster to perform barrier.cluster.arrive": a wait
                // with no arrive of its own before it is undefined.
                None => self.fail(
                    FailureKind::BarrierMisuse,
                    site,
                    "barrier.cluster.wait without a barrier.cluster.arrive before it".into(),
                ),
            },
            _ => unreachable!("every instruction kind is executed somewhere: {op:?}"),
        }
    }

    /// Meet the lanes of `mask` (the runtime checks the mask names this lane and that every
    /// lane of it runs the same operation); the value each brought.
    fn warp(&self, mask: u64, op: &'static str, value: u64, site: Site) -> Vec<(u32, u64)> {
        let lanes = self.t.warp_lanes();
        let mask = mask & 0xffff_ffff;
        (*self
            .t
            .rt
            .warp_sync(&lanes, self.t.lane(), mask, op, value, site))
        .clone()
    }
}
