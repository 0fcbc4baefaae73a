//! Warp-synchronous operations: `__syncwarp(mask)`, shuffles, votes and `__match_any_sync` as
//! one mechanism, a barrier among the lanes named in a mask that also exchanges one value per
//! lane.
//!
//! Lanes are threads of their own (independent thread scheduling, Volta and later): they
//! diverge whenever their code does and meet again only at a warp-synchronous operation. Rules,
//! each with the PTX ISA or CUDA Programming Guide sentence it rests on:
//! - Waiting: PTX ISA, *shfl.sync* / *vote.sync* / *match.sync*: the instruction causes the
//!   "executing thread to wait until all non-exited threads corresponding to membermask have
//!   executed" it "with the same qualifiers and same membermask value"; CUDA, `__syncwarp`:
//!   "all non-exited threads named in mask must execute a corresponding `__syncwarp()` with the
//!   same mask". A lane named in the mask that has exited (before the others arrive, or while
//!   they wait) is not waited for: the operation completes with the non-exited lanes. A caller
//!   outside its mask, a mask naming a lane the warp does not have, and lanes of overlapping
//!   masks that disagree on the mask or the operation are reported as warp misuse; a named lane
//!   blocked forever elsewhere is a hang.
//! - Memory ordering: PTX ISA, *bar.warp.sync*: "bar.warp.sync also guarantee memory ordering
//!   among threads participating in barrier" (CUDA: "Executing `__syncwarp()` guarantees memory
//!   ordering among threads participating in the barrier"): completing a `syncwarp` joins the
//!   views of every arriving lane into each of them. The PTX ISA grants no memory ordering to
//!   `shfl.sync`, `vote.sync` or `match.sync` (they "exchange register data"): their values
//!   travel between registers, and no lane's view changes, so shared-memory writes "published"
//!   by a `__ballot_sync` alone race with the reads that follow it.
//! - *Warp Shuffle Functions*: "Threads may only read data from another thread which is
//!   actively participating in the `__shfl_sync()` command": reading an exited lane is misuse.
//! - `elect.sync`: the leader is any participating lane the first time a mask elects, the same
//!   one afterwards (see [`Machine::elect`]).
//! - `activemask` (PTX ISA, *activemask*: it "queries predicated-on active threads from the
//!   executing warp"; the lanes executing one `activemask` together get one set): see
//!   [`Machine::active_mask_arrive`].

use super::ctx::Ctx;
use super::machine::{Halt, Machine, Status};
use super::report::{Decision, EventKind, FailureKind, Site};
use super::sched::{Point, ACTIVEMASK};
use super::view::ALL_LEVELS;
use std::sync::Arc;

pub mod state;

use self::state::{ActiveArrival, WarpArrival};
pub use self::state::{LaneValues, WarpLanes, Warps};

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
        let mut named = Vec::new();
        let mut exited = 0u64;
        for j in (0..64).filter(|j| mask & (1u64 << j) != 0) {
            match warp.lanes.get(j as usize).copied().flatten() {
                None => {
                    let headline = format!(
                        "{name} called {op} with mask {mask:#x} at {site}, which names lane {j}: \
                         the warp has no such lane"
                    );
                    return misuse(self, headline, vec![]);
                }
                // "all non-exited threads corresponding to membermask": an exited lane is
                // not waited for.
                Some(u) => {
                    if self.threads[u].status == Status::Done {
                        exited |= 1 << j;
                    }
                    named.push((j, u));
                }
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
            named: Arc::new(named),
        });
        if self.try_complete_warp_op(slot, mask, exited) {
            return Ok(false);
        }
        Arc::make_mut(&mut self.threads[t]).status = Status::AtBarrier;
        self.check_hang()?;
        Ok(true)
    }

    /// Complete the pending instance over `mask` in warp slot `slot` when every non-exited lane
    /// of the mask has arrived (`exited`: the mask's lanes known to have exited).
    fn try_complete_warp_op(&mut self, slot: usize, mask: u64, exited: u64) -> bool {
        let arrived = self.warps.pending[slot]
            .1
            .iter()
            .filter(|a| a.mask == mask)
            .fold(0u64, |acc, a| acc | 1 << a.lane);
        if arrived | exited != mask {
            return false;
        }
        let (group, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.warps.pending[slot].1)
            .into_iter()
            .partition(|a| a.mask == mask);
        self.warps.pending[slot].1 = rest;
        self.complete_warp_op(group);
        true
    }

    /// Every non-exited lane of an instance arrived: each leaves with every lane's value, and,
    /// for `syncwarp` alone (PTX ISA, *bar.warp.sync*: "bar.warp.sync also guarantee memory
    /// ordering among threads participating in barrier"), knowing what all of them knew. An
    /// exchange (`shfl`, vote, match) moves register values only: no view changes. The kernel
    /// API names the barrier `syncwarp`, the PTX interpreter by its instruction,
    /// `bar.warp.sync`: both are the one instruction that orders memory.
    fn complete_warp_op(&mut self, group: Vec<WarpArrival>) {
        let orders_memory = matches!(group[0].op, "syncwarp" | "bar.warp.sync");
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
            if orders_memory {
                th.view.join(&joined, ALL_LEVELS);
            }
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

    /// `t` exits: the pending warp operations whose masks name it no longer wait for it ("all
    /// non-exited threads corresponding to membermask"), and complete if every other lane of
    /// the mask has arrived. A pending `activemask` of `t` is dropped.
    pub(super) fn warp_exit(&mut self, t: usize) -> Result<(), Halt> {
        self.warps.active.retain(|a| a.thread != t);
        for slot in 0..self.warps.pending.len() {
            let mut masks: Vec<(u64, u64)> = Vec::new();
            for a in &self.warps.pending[slot].1 {
                if a.named.iter().any(|&(_, u)| u == t) && !masks.iter().any(|m| m.0 == a.mask) {
                    masks.push((a.mask, self.exited_lanes(a)));
                }
            }
            for (mask, exited) in masks {
                self.try_complete_warp_op(slot, mask, exited);
            }
        }
        Ok(())
    }

    /// The lanes of `a`'s mask whose threads have exited.
    fn exited_lanes(&self, a: &WarpArrival) -> u64 {
        a.named
            .iter()
            .filter(|&&(_, u)| self.threads[u].status == Status::Done)
            .fold(0u64, |m, &(j, _)| m | 1 << j)
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

    /// `activemask`, first half: lane `lane` of `warp` reaches the `activemask` at `site` and
    /// waits there to be grouped (it stays runnable: [`Machine::active_mask_take`] groups it).
    ///
    /// PTX ISA, *activemask*: it "queries predicated-on active threads from the executing warp",
    /// "an active thread will contribute 1 for its entry in the result and exited or inactive or
    /// predicated-off thread will contribute 0": the lanes that execute one `activemask`
    /// together are the active ones, and each of them gets that same set. Under independent
    /// thread scheduling which lanes execute it together is not specified, so the model lets
    /// the schedule decide: a group is formed of lanes that are at this very instruction (the
    /// same site) at the same moment, never of a lane that has exited or already gone past it.
    pub fn active_mask_arrive(
        &mut self,
        t: usize,
        warp: &WarpLanes,
        lane: u32,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(
            t,
            site,
            EventKind::Note(format!("activemask reached as lane {lane}")),
        );
        self.warps.active.push(ActiveArrival {
            thread: t,
            warp: warp.key,
            lane,
            site,
        });
        Ok(())
    }

    /// `activemask`, second half: the mask of `t`'s group. If another lane's
    /// [`Machine::active_mask_take`] already placed `t` in its group, that group's mask;
    /// otherwise `t` forms a group of itself and a choice of the lanes of its warp waiting at
    /// the same `activemask` (every subset when at most 8 wait, else all of them, none, or all
    /// but one), and each of them gets its mask.
    pub fn active_mask_take(
        &mut self,
        t: usize,
        site: Site,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<u64, Halt> {
        self.begin(t)?;
        let n = self.setup.threads.len();
        if self.warps.active_results.len() < n {
            self.warps.active_results.resize(n, None);
        }
        if let Some(mask) = self.warps.active_results[t].take() {
            self.event(t, site, EventKind::Note(format!("activemask -> {mask:#x}")));
            return Ok(mask);
        }
        let me = self
            .warps
            .active
            .iter()
            .position(|a| a.thread == t)
            .expect("a lane takes its activemask after reaching it");
        let me = self.warps.active.remove(me);
        let same = |a: &ActiveArrival| {
            a.warp == me.warp
                && a.site.file() == me.site.file()
                && a.site.line() == me.site.line()
                && a.site.column() == me.site.column()
        };
        let waiting: Vec<(u32, usize)> = self
            .warps
            .active
            .iter()
            .filter(|a| same(a))
            .map(|a| (a.lane, a.thread))
            .collect();
        let options = if waiting.len() <= 8 {
            1usize << waiting.len()
        } else {
            waiting.len() + 2
        };
        let pick = if options >= 2 { choose(options) } else { 0 };
        if options >= 2 && self.trace {
            self.decisions.push(Decision::Pick(pick as u32));
        }
        let chosen: Vec<(u32, usize)> = if waiting.len() <= 8 {
            (0..waiting.len())
                .filter(|i| pick & (1 << i) != 0)
                .map(|i| waiting[i])
                .collect()
        } else {
            match pick {
                0 => waiting.clone(),
                1 => vec![],
                k => waiting
                    .iter()
                    .copied()
                    .filter(|&w| w != waiting[k - 2])
                    .collect(),
            }
        };
        let mask = chosen.iter().fold(1u64 << me.lane, |m, &(j, _)| m | 1 << j);
        for &(_, u) in &chosen {
            self.warps.active.retain(|a| a.thread != u);
            self.warps.active_results[u] = Some(mask);
        }
        self.event(t, site, EventKind::Note(format!("activemask -> {mask:#x}")));
        Ok(mask)
    }

    /// `elect.sync` (PTX ISA: it "elects one predicated active leader thread from among a set
    /// of threads specified by membermask"; "Election of a leader thread happens
    /// deterministically, i.e. the same leader thread is elected for the same membermask every
    /// time"): the leader of the instance whose participating lanes are `lanes`. The ISA does not
    /// say which lane, so the first election over a mask in a warp lets the schedule choose any
    /// participating lane, and every later one over the same mask elects the same lane while it
    /// takes part (a leader that has exited is not active: another is chosen then).
    pub fn elect(
        &mut self,
        t: usize,
        warp: usize,
        mask: u64,
        lanes: &[u32],
        site: Site,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<u32, Halt> {
        self.begin(t)?;
        let known = self
            .warps
            .elected
            .iter()
            .position(|&(w, m, _)| w == warp && m == mask);
        if let Some(i) = known {
            let leader = self.warps.elected[i].2;
            if lanes.contains(&leader) {
                return Ok(leader);
            }
            self.warps.elected.remove(i);
        }
        let pick = if lanes.len() >= 2 {
            let pick = choose(lanes.len());
            if self.trace {
                self.decisions.push(Decision::Pick(pick as u32));
            }
            pick
        } else {
            0
        };
        let leader = lanes[pick];
        self.warps.elected.push((warp, mask, leader));
        self.event(
            t,
            site,
            EventKind::Note(format!("elect.sync({mask:#x}) elects lane {leader}")),
        );
        Ok(leader)
    }
}

impl Ctx {
    /// `elect.sync` over `mask`: meet the lanes as every warp-synchronous operation does, then
    /// the elected lane (see [`Machine::elect`]).
    pub fn elect(&self, warp: &WarpLanes, lane: u32, mask: u64, site: Site) -> u32 {
        let values = self.warp_sync(warp, lane, mask, "elect.sync", 0, site);
        let lanes: Vec<u32> = values.iter().map(|&(l, _)| l).collect();
        let point = Point::Warp {
            block: self.info.block as usize,
            warp: warp.key,
            mask,
            op: "elect.sync",
        };
        self.sched.point(self.thread, point);
        let sched = &self.sched;
        self.step(|m| {
            m.elect(self.thread, warp.key, mask, &lanes, site, &|n| {
                sched.choose(n)
            })
        })
    }

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
        let point = Point::Warp {
            block: self.info.block as usize,
            warp: warp.key,
            mask,
            op,
        };
        self.sched.point(self.thread, point);
        if self.step(|m| m.warp_sync(self.thread, warp, lane, mask, op, value, site)) {
            self.wait();
        }
        self.step(|m| Ok(m.warp_result(self.thread)))
    }

    /// `__activemask()` (see [`Machine::active_mask_arrive`] and [`Machine::active_mask_take`]):
    /// the lane reaches the instruction, the other threads may run (and reach it too), then its
    /// group forms.
    pub fn active_mask(&self, warp: &WarpLanes, lane: u32, site: Site) -> u64 {
        let point = Point::Warp {
            block: self.info.block as usize,
            warp: warp.key,
            mask: 0,
            op: ACTIVEMASK,
        };
        self.sched.point(self.thread, point);
        self.step(|m| m.active_mask_arrive(self.thread, warp, lane, site));
        self.sched.point(self.thread, point);
        let sched = &self.sched;
        self.step(|m| m.active_mask_take(self.thread, site, &|n| sched.choose(n)))
    }
}
