//! Warp-synchronous operations: `__syncwarp(mask)`, shuffles, votes and `__match_any_sync` as
//! one mechanism, a barrier among the lanes named in a mask that also exchanges one value per
//! lane.
//!
//! Lanes are threads of their own (independent thread scheduling, Volta and later): they
//! diverge whenever their code does and meet again only at a warp-synchronous operation. Rules,
//! each with the CUDA Programming Guide sentence it rests on:
//! - *Synchronization Functions*, `__syncwarp`: "Each calling thread must have its own bit set
//!   in the mask and all non-exited threads named in mask must execute a corresponding
//!   `__syncwarp()` with the same mask, or the result is undefined." A caller outside its mask,
//!   a mask naming an exited (or missing) lane, and lanes of overlapping masks that disagree on
//!   the mask or the operation are reported as warp misuse; a named lane that exits while
//!   others wait for it leaves them hanging (barrier divergence); one blocked forever elsewhere
//!   is a hang.
//! - "Executing `__syncwarp()` guarantees memory ordering among threads participating in the
//!   barrier": completing an instance joins the views of every arriving lane into each of them.
//! - *Warp Shuffle Functions*: "Threads may only read data from another thread which is
//!   actively participating in the `__shfl_sync()` command." Shuffles and votes (*Warp Vote
//!   Functions*, *Warp Match Functions*) take the same mask and wait for the same lanes, so
//!   their synchronization is that of `__syncwarp` over the mask; their values travel between
//!   registers, never through memory.

use super::ctx::Ctx;
use super::machine::{Halt, Machine, Status};
use super::report::{Decision, EventKind, FailureKind, Site};
use super::view::{View, ALL_LEVELS};
use crate::engine::Point;
use std::sync::Arc;

/// One lane's arrival at a warp-synchronous operation that has not completed yet.
#[derive(Clone, Debug)]
struct WarpArrival {
    thread: usize,
    lane: u32,
    mask: u64,
    op: &'static str,
    value: u64,
    view: Arc<View>,
    site: Site,
    /// The threads of the lanes named in `mask`.
    members: Arc<Vec<usize>>,
}

/// Every participating lane's value of one completed warp operation, by lane.
pub type LaneValues = Arc<Vec<(u32, u64)>>;

/// Pending warp operations (per warp, by a key the caller chooses) and each lane's last result.
#[derive(Clone, Debug, Default)]
pub struct Warps {
    pending: Vec<(usize, Vec<WarpArrival>)>,
    results: Vec<Option<LaneValues>>,
}

/// A warp as the kernel API sees it: which thread runs each lane (`None`: the block ends before
/// that lane).
#[derive(Clone, Debug)]
pub struct WarpLanes {
    /// Identifies the warp among all warps of the grid.
    pub key: usize,
    pub lanes: Vec<Option<usize>>,
}

impl Machine {
    /// Lane `lane` of `warp` arrives at `op` over `mask`, bringing `value`. Returns `true` when
    /// the thread must block; once the operation completes, [`Machine::warp_result`] holds every
    /// participating lane's value.
    #[allow(clippy::too_many_arguments)]
    pub fn warp_sync(
        &mut self,
        t: usize,
        warp: &WarpLanes,
        lane: u32,
        mask: u64,
        op: &'static str,
        value: u64,
        site: Site,
    ) -> Result<bool, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(
            t,
            site,
            EventKind::Note(format!("{op}(mask {mask:#x}) arrives as lane {lane}")),
        );
        let name = self.setup.threads[t].name.clone();
        let misuse = |m: &mut Machine, headline: String, details: Vec<String>| {
            m.fail(FailureKind::WarpMisuse, headline, details);
            Err(Halt)
        };
        if mask & (1 << lane) == 0 {
            let headline = format!(
                "{name} called {op} with mask {mask:#x} at {site}, which does not name its own \
                 lane {lane}"
            );
            return misuse(self, headline, vec![]);
        }
        let mut members = Vec::new();
        for j in (0..64).filter(|j| mask & (1u64 << j) != 0) {
            match warp.lanes.get(j as usize).copied().flatten() {
                None => {
                    let headline = format!(
                        "{name} called {op} with mask {mask:#x} at {site}, which names lane {j}: \
                         the warp has no such lane"
                    );
                    return misuse(self, headline, vec![]);
                }
                Some(u) if self.threads[u].status == Status::Done => {
                    let headline = format!(
                        "{name} called {op} with mask {mask:#x} at {site}, which names lane {j} \
                         ({}), already exited",
                        self.setup.threads[u].name
                    );
                    return misuse(self, headline, vec![]);
                }
                Some(u) => members.push(u),
            }
        }
        let slot = match self.warps.pending.iter().position(|(k, _)| *k == warp.key) {
            Some(i) => i,
            None => {
                self.warps.pending.push((warp.key, Vec::new()));
                self.warps.pending.len() - 1
            }
        };
        let clash = self.warps.pending[slot]
            .1
            .iter()
            .find(|a| a.mask & mask != 0 && (a.mask != mask || a.op != op));
        if let Some(a) = clash {
            let headline = format!(
                "lanes of one warp disagree: {name} called {op} with mask {mask:#x}, lane {} \
                 waits in {} with mask {:#x} (every lane named in a mask must call the same \
                 operation with the same mask)",
                a.lane, a.op, a.mask
            );
            let details = vec![
                format!("{name}: {op}({mask:#x}) at {site}"),
                format!(
                    "{}: {}({:#x}) at {}",
                    self.setup.threads[a.thread].name, a.op, a.mask, a.site
                ),
            ];
            return misuse(self, headline, details);
        }
        let view = Arc::new(self.threads[t].view.clone());
        self.warps.pending[slot].1.push(WarpArrival {
            thread: t,
            lane,
            mask,
            op,
            value,
            view,
            site,
            members: Arc::new(members),
        });
        let arrived = self.warps.pending[slot]
            .1
            .iter()
            .filter(|a| a.mask == mask)
            .fold(0u64, |acc, a| acc | 1 << a.lane);
        if arrived == mask {
            let (group, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.warps.pending[slot].1)
                .into_iter()
                .partition(|a| a.mask == mask);
            self.warps.pending[slot].1 = rest;
            self.complete_warp_op(group);
            return Ok(false);
        }
        Arc::make_mut(&mut self.threads[t]).status = Status::AtBarrier;
        self.check_hang()?;
        Ok(true)
    }

    /// Every lane of an instance arrived: each leaves knowing what all of them knew, with every
    /// lane's value.
    fn complete_warp_op(&mut self, group: Vec<WarpArrival>) {
        let mut joined = (*group[0].view).clone();
        for a in &group[1..] {
            joined.join(&a.view, ALL_LEVELS);
        }
        let mut values: Vec<(u32, u64)> = group.iter().map(|a| (a.lane, a.value)).collect();
        values.sort_unstable();
        let values = Arc::new(values);
        let n = self.setup.threads.len();
        if self.warps.results.len() < n {
            self.warps.results.resize(n, None);
        }
        for a in &group {
            let th = Arc::make_mut(&mut self.threads[a.thread]);
            th.view.join(&joined, ALL_LEVELS);
            if th.status == Status::AtBarrier {
                th.status = Status::Running;
                self.wake.push(a.thread);
            }
            self.warps.results[a.thread] = Some(Arc::clone(&values));
        }
    }

    /// The lanes and values of the last warp operation `t` completed, by lane.
    pub fn warp_result(&self, t: usize) -> LaneValues {
        self.warps
            .results
            .get(t)
            .cloned()
            .flatten()
            .expect("a completed warp operation left a result")
    }

    /// `t` exits: a pending warp operation whose mask names it can never complete.
    pub(super) fn warp_exit(&mut self, t: usize) -> Result<(), Halt> {
        let waiter = self
            .warps
            .pending
            .iter()
            .flat_map(|(_, arrivals)| arrivals)
            .find(|a| a.members.contains(&t))
            .cloned();
        let Some(a) = waiter else { return Ok(()) };
        let names = &self.setup.threads;
        let headline = format!(
            "{} exited without reaching the {}({:#x}) that {} waits at ({}): the waiting lanes \
             hang",
            names[t].name, a.op, a.mask, names[a.thread].name, a.site
        );
        self.fail(FailureKind::BarrierDivergence, headline, vec![]);
        Err(Halt)
    }

    /// If `u` waits at a warp operation, how to say so.
    pub(super) fn warp_wait_of(&self, u: usize) -> Option<String> {
        let a = self
            .warps
            .pending
            .iter()
            .flat_map(|(_, arrivals)| arrivals)
            .find(|a| a.thread == u)?;
        Some(format!(
            "waits at {}({:#x}) as lane {} at {}",
            a.op, a.mask, a.lane, a.site
        ))
    }

    /// `__activemask()`: the caller's bit and a choice of the other lanes that have not exited.
    /// Under independent thread scheduling which lanes execute together at a given moment is not
    /// specified (CUDA Programming Guide, *Warp Vote Functions*: "`__activemask()` returns a
    /// 32-bit mask of all currently active threads in the calling warp"), so the engine explores
    /// every subset when at most 8 other lanes are live, and otherwise all of them, none of them,
    /// or all but one.
    pub fn active_mask(
        &mut self,
        t: usize,
        warp: &WarpLanes,
        lane: u32,
        site: Site,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<u64, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let live: Vec<u32> = (0..warp.lanes.len() as u32)
            .filter(|&j| j != lane)
            .filter(|&j| {
                warp.lanes[j as usize].is_some_and(|u| self.threads[u].status != Status::Done)
            })
            .collect();
        let all = live.iter().fold(0u64, |m, &j| m | 1 << j);
        let options = if live.len() <= 8 {
            1usize << live.len()
        } else {
            live.len() + 2
        };
        let pick = if options >= 2 { choose(options) } else { 0 };
        if options >= 2 && self.trace {
            self.decisions.push(Decision::Pick(pick as u32));
        }
        let others = if live.len() <= 8 {
            live.iter()
                .enumerate()
                .filter(|(i, _)| pick & (1 << i) != 0)
                .fold(0u64, |m, (_, &j)| m | 1 << j)
        } else {
            match pick {
                0 => all,
                1 => 0,
                k => all & !(1 << live[k - 2]),
            }
        };
        let mask = others | 1 << lane;
        self.event(t, site, EventKind::Note(format!("activemask -> {mask:#x}")));
        Ok(mask)
    }
}

impl Ctx {
    /// A warp-synchronous operation: blocks until every lane of `mask` arrived, then returns
    /// every participating lane's value, by lane.
    pub fn warp_sync(
        &self,
        warp: &WarpLanes,
        lane: u32,
        mask: u64,
        op: &'static str,
        value: u64,
        site: Site,
    ) -> LaneValues {
        self.sched.point(self.thread, Point::Other);
        if self.step(|m| m.warp_sync(self.thread, warp, lane, mask, op, value, site)) {
            self.wait();
        }
        self.step(|m| Ok(m.warp_result(self.thread)))
    }

    /// `__activemask()` (see [`Machine::active_mask`]).
    pub fn active_mask(&self, warp: &WarpLanes, lane: u32, site: Site) -> u64 {
        self.sched.point(self.thread, Point::Other);
        let sched = &self.sched;
        self.step(|m| m.active_mask(self.thread, warp, lane, site, &|n| sched.choose(n)))
    }
}
