//! CTA barriers: the barrier instances of `syncthreads` and PTX `bar` (arrivals, completion, the
//! views they join: [`Machine::barrier_op`]), named barriers with a thread count
//! (`bar.sync id, b` / `bar.arrive id, b`) checked against the PTX rules, and the voting
//! barriers `__syncthreads_count/and/or`.
//!
//! Rules, each with the PTX ISA sentence (*Parallel Synchronization and Communication
//! Instructions: bar, barrier*) it rests on:
//! - "Each CTA instance has sixteen barriers numbered 0..15": an id outside 0..15 is misuse.
//! - "Operand b specifies the number of threads participating in the barrier. […] When
//!   specifying a thread count, the value must be a multiple of the warp size": a count that is
//!   zero, not a multiple of the kernel's warp size, or larger than the block is misuse.
//! - One instance has one participant count: it completes when `b` threads have arrived, so two
//!   arrivals at one pending instance that expect different counts cannot both be right; the
//!   second one is reported as a count mismatch.
//! - A count that the block never reaches leaves the waiting threads blocked: a hang.
//!
//! `__syncthreads_count(p)` (CUDA Programming Guide, *Synchronization Functions*): "is
//! identical to `__syncthreads()` with the additional feature that it evaluates predicate for
//! all threads of the block and returns the number of threads for which predicate evaluates to
//! non-zero"; `_and` returns whether it is non-zero for all of them, `_or` for any of them.

use super::ctx::Ctx;
use super::machine::{BarrierKey, Halt, Machine, Status};
use super::report::{EventKind, FailureKind, Site};
use super::view::ALL_LEVELS;
use std::sync::Arc;

pub mod state;

use self::state::Arrival;
pub use self::state::Votes;

/// The number of named barriers of a CTA.
pub const NAMED_BARRIERS: u32 = 16;

impl Machine {
    /// `syncthreads`: returns `true` when `t` must block until the rest of its block arrives.
    pub fn barrier(&mut self, t: usize, site: Site) -> Result<bool, Halt> {
        self.barrier_op(t, site, BarrierKey::Site(site), None, true)
    }

    /// Before a `bar`: the barrier ids this thread may still reach after it (`None`: unknown).
    pub fn set_future_barriers(&mut self, t: usize, ids: Option<Vec<i64>>) {
        Arc::make_mut(&mut self.threads[t]).future_barriers = ids;
    }

    /// A CTA barrier: `syncthreads` (keyed by its call site; every thread of the block must
    /// reach the same one) or PTX `bar.sync`/`bar.arrive id[, quorum]` (keyed by id; `quorum`
    /// threads complete an instance, all of the block by default). Arriving releases the
    /// thread's view; `wait`ing threads leave with the join of every arrival's view. Returns
    /// `true` when `t` must block.
    pub fn barrier_op(
        &mut self,
        t: usize,
        site: Site,
        key: BarrierKey,
        quorum: Option<usize>,
        wait: bool,
    ) -> Result<bool, Halt> {
        self.barrier_arrive(t, site, key, quorum, wait, None)
    }

    /// [`Machine::barrier_op`], for a barrier that orders only `exchange`'s locations when it
    /// gives them (a litmus warp exchange's barrier: `runtime::exchange`).
    pub(crate) fn barrier_arrive(
        &mut self,
        t: usize,
        site: Site,
        key: BarrierKey,
        quorum: Option<usize>,
        wait: bool,
        exchange: Option<Arc<[usize]>>,
    ) -> Result<bool, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(t, site, EventKind::Barrier { key, wait });
        let block = self.setup.threads[t].block as usize;
        let members = self.setup.blocks[block].clone();
        let kernel_barrier = matches!(key, BarrierKey::Site(_));
        if kernel_barrier {
            if let Some(&gone) = members
                .iter()
                .find(|&&u| self.threads[u].status == Status::Done)
            {
                let names = &self.setup.threads;
                let headline = format!(
                    "{} reached syncthreads at {site}, but {} already exited without reaching it",
                    names[t].name, names[gone].name
                );
                self.fail(FailureKind::BarrierDivergence, headline, vec![]);
                return Err(Halt);
            }
        }
        let view = Arc::new(self.threads[t].view.clone());
        self.barrier_waiting[block].push(Arrival {
            thread: t,
            site,
            key,
            view,
            wait,
            quorum,
            exchange,
        });
        if wait {
            Arc::make_mut(&mut self.threads[t]).status = Status::AtBarrier;
        }
        if kernel_barrier {
            if self.barrier_waiting[block].len() == members.len() {
                let arrived = std::mem::take(&mut self.barrier_waiting[block]);
                if arrived.iter().any(|a| a.site != site) {
                    let details = arrived
                        .iter()
                        .map(|a| {
                            format!(
                                "{} reached syncthreads at {}",
                                self.setup.threads[a.thread].name, a.site
                            )
                        })
                        .collect();
                    let headline = format!(
                        "threads of block {block} reached different syncthreads calls (undefined behaviour: \
                         every thread of a block must reach the same barrier)"
                    );
                    self.fail(FailureKind::BarrierDivergence, headline, details);
                    return Err(Halt);
                }
                self.complete_barrier(arrived);
            }
        } else {
            self.settle_barriers(block);
        }
        if self.threads[t].status == Status::AtBarrier {
            self.check_hang()?;
        }
        Ok(self.threads[t].status == Status::AtBarrier)
    }

    /// Complete every `bar` instance of `block` that can complete: `quorum` arrivals when a
    /// quorum is given; without one, an instance holds every barrier of its id (as in the
    /// axiomatic model), so it completes once every other thread of the block has exited or
    /// waits at another barrier with this id nowhere ahead of it.
    pub(super) fn settle_barriers(&mut self, block: usize) {
        loop {
            let members = &self.setup.blocks[block];
            let arrivals = &self.barrier_waiting[block];
            let ready = arrivals
                .iter()
                .filter(|a| matches!(a.key, BarrierKey::Id(_)))
                .find_map(|first| {
                    // One instance has one thread count: arrivals expecting another count wait
                    // for an instance of their own (as the axiomatic matching groups barriers
                    // by id and quorum).
                    let group: Vec<usize> = (0..arrivals.len())
                        .filter(|&i| {
                            arrivals[i].key == first.key && arrivals[i].quorum == first.quorum
                        })
                        .collect();
                    let complete = match first.quorum {
                        Some(q) => group.len() >= q,
                        None => members.iter().all(|&u| {
                            let th = &self.threads[u];
                            let BarrierKey::Id(id) = first.key else {
                                unreachable!("only bar instances settle")
                            };
                            group.iter().any(|&i| arrivals[i].thread == u)
                                || th.status == Status::Done
                                || (th.status == Status::AtBarrier
                                    && th
                                        .future_barriers
                                        .as_ref()
                                        .is_some_and(|f| !f.contains(&id)))
                        }),
                    };
                    complete.then(|| {
                        group[..first.quorum.unwrap_or(group.len()).min(group.len())].to_vec()
                    })
                });
            let Some(indices) = ready else { return };
            let mut taken = Vec::new();
            for &i in indices.iter().rev() {
                taken.push(self.barrier_waiting[block].remove(i));
            }
            taken.reverse();
            self.complete_barrier(taken);
        }
    }

    /// One barrier instance completes: every arrival's knowledge becomes every waiter's.
    fn complete_barrier(&mut self, group: Vec<Arrival>) {
        if let Some(locations) = group[0].exchange.clone() {
            return self.complete_exchange(group, &locations);
        }
        self.tally_votes(&group);
        let mut joined = (*group[0].view).clone();
        for a in &group {
            joined.join(&a.view, ALL_LEVELS);
        }
        for a in group.iter().filter(|a| a.wait) {
            let own = a.thread;
            Arc::make_mut(&mut self.threads[own])
                .view
                .join(&joined, ALL_LEVELS);
            Arc::make_mut(&mut self.threads[own]).status = Status::Running;
            self.wake.push(own);
        }
    }

    /// `bar.sync id, count` (`wait`) or `bar.arrive id, count` from the kernel API, after the
    /// PTX checks on the id and the count. Returns `true` when `t` must block.
    pub fn named_barrier(
        &mut self,
        t: usize,
        site: Site,
        id: u32,
        count: u32,
        warp_size: u32,
        wait: bool,
    ) -> Result<bool, Halt> {
        let info = &self.setup.threads[t];
        let block = info.block as usize;
        let members = self.setup.blocks[block].len() as u32;
        let op = if wait { "bar_sync" } else { "bar_arrive" };
        let misuse = if id >= NAMED_BARRIERS {
            Some(format!(
                "{} called {op}({id}, {count}) at {site}: a CTA has {NAMED_BARRIERS} barriers, \
                 numbered 0..15",
                info.name
            ))
        } else if count == 0 || !count.is_multiple_of(warp_size) {
            Some(format!(
                "{} called {op}({id}, {count}) at {site}: the thread count must be a non-zero \
                 multiple of the warp size ({warp_size})",
                info.name
            ))
        } else if count > members {
            Some(format!(
                "{} called {op}({id}, {count}) at {site}: the block has only {members} threads",
                info.name
            ))
        } else {
            None
        };
        if let Some(headline) = misuse {
            self.fail(FailureKind::BarrierMisuse, headline, vec![]);
            return Err(Halt);
        }
        let key = BarrierKey::Id(id as i64);
        let other = self.barrier_waiting[block]
            .iter()
            .find(|a| a.key == key && a.quorum != Some(count as usize));
        if let Some(a) = other {
            let names = &self.setup.threads;
            let headline = format!(
                "barrier {id} of block {block}: {} arrives expecting {count} threads, but {} \
                 arrived at the same instance expecting {} (one instance has one thread count)",
                names[t].name,
                names[a.thread].name,
                a.quorum
                    .map_or("every thread of the block".into(), |q| q.to_string()),
            );
            let details = vec![
                format!("{} at {site}", names[t].name),
                format!("{} at {}", names[a.thread].name, a.site),
            ];
            self.fail(FailureKind::BarrierMisuse, headline, details);
            return Err(Halt);
        }
        self.barrier_op(t, site, key, Some(count as usize), wait)
    }

    /// A voting `syncthreads` (`__syncthreads_count/and/or`): `t` brings `predicate`. Returns
    /// `true` when `t` must block; [`Machine::vote_count`] then holds the result.
    pub fn barrier_vote(&mut self, t: usize, site: Site, predicate: bool) -> Result<bool, Halt> {
        let n = self.setup.threads.len();
        let votes = &mut self.votes;
        if votes.pending.len() < n {
            votes.pending.resize(n, None);
            votes.result.resize(n, 0);
        }
        votes.pending[t] = Some(predicate);
        self.barrier(t, site)
    }

    /// When a barrier instance completes: the number of true predicates among the arrivals
    /// that brought one becomes each arrival's result.
    pub(super) fn tally_votes(&mut self, group: &[Arrival]) {
        let votes = &mut self.votes;
        if votes.pending.is_empty() {
            return;
        }
        let mut count = 0;
        let mut voted = false;
        for a in group {
            if let Some(p) = votes.pending[a.thread].take() {
                voted = true;
                count += p as u32;
            }
        }
        if voted {
            for a in group {
                votes.result[a.thread] = count;
            }
        }
    }

    /// What the last voting barrier of `t` counted.
    pub fn vote_count(&self, t: usize) -> u32 {
        self.votes.result.get(t).copied().unwrap_or(0)
    }

    /// How a hang report describes a thread blocked at a barrier.
    pub(super) fn describe_barrier_wait(&self, u: usize) -> String {
        let name = &self.setup.threads[u].name;
        if let Some(w) = self.warp_wait_of(u) {
            return format!("{name} {w}");
        }
        let block = self.setup.threads[u].block as usize;
        let waiting = &self.barrier_waiting[block];
        match waiting.iter().find(|a| a.thread == u) {
            Some(a) => match (a.key, a.quorum) {
                (BarrierKey::Id(id), Some(q)) => {
                    let arrived = waiting.iter().filter(|b| b.key == a.key).count();
                    format!(
                        "{name} waits at bar_sync({id}, {q}) at {}: {arrived} of {q} threads \
                         arrived",
                        a.site
                    )
                }
                (BarrierKey::Id(id), None) => format!("{name} waits at bar.sync {id}"),
                (BarrierKey::Site(s), _) => format!("{name} waits at syncthreads at {s}"),
            },
            None => format!("{name} waits at a barrier"),
        }
    }
}

impl Ctx {
    /// `__syncthreads()` at `site`: blocks until every thread of the block has arrived at the
    /// same call site ([`Machine::barrier`]).
    pub fn barrier(&self, site: Site) {
        self.sched.point(self.thread, self.barrier_point());
        if self.step(|m| m.barrier(self.thread, site)) {
            self.wait();
        }
    }

    /// A PTX `bar.sync`/`bar.arrive` with barrier `id` and optional `quorum`; `future` lists
    /// the barrier ids the thread may still reach afterwards (`None`: unknown).
    pub fn bar(
        &self,
        id: i64,
        quorum: Option<usize>,
        wait: bool,
        future: Option<Vec<i64>>,
        site: Site,
    ) {
        // A count past `u32` is labelled as no count: dependent with every arrival of the block.
        let count = quorum.and_then(|q| u32::try_from(q).ok());
        self.sched
            .point(self.thread, self.named_barrier_point(id, count, wait));
        let blocked = self.step(|m| {
            m.set_future_barriers(self.thread, future);
            m.barrier_op(self.thread, site, BarrierKey::Id(id), quorum, wait)
        });
        if blocked {
            self.wait();
        }
    }

    /// `bar.sync`/`bar.arrive` with an id and a thread count, from the kernel API.
    pub fn named_barrier(&self, id: u32, count: u32, warp_size: u32, wait: bool, site: Site) {
        self.sched.point(
            self.thread,
            self.named_barrier_point(id as i64, Some(count), wait),
        );
        if self.step(|m| m.named_barrier(self.thread, site, id, count, warp_size, wait)) {
            self.wait();
        }
    }

    /// A voting `syncthreads`: the number of threads of the block that brought `true`.
    pub fn barrier_vote(&self, predicate: bool, site: Site) -> u32 {
        self.sched.point(self.thread, self.barrier_point());
        if self.step(|m| m.barrier_vote(self.thread, site, predicate)) {
            self.wait();
        }
        self.step(|m| Ok(m.vote_count(self.thread)))
    }
}
