//! A machine's state as a key: what decides how an execution can go on and how it can end, and
//! nothing about how it got there (trace, decisions, event numbers). Two machines with equal keys
//! (and equal thread states) have the same futures, so a state-caching search explores only one.
//!
//! The key is exact, not a hash: equal keys mean states with the same futures as far as final
//! states and races go (the widened views, which only name a race's fix, are left out). It
//! covers what litmus programs use, `cp.async` and bulk copies included (groups, the copy
//! agents' queues, proxy fences, the `fence.mbarrier_init` release) and the clusters' hardware
//! barriers (phase, pending arrivals, what the current and the latest completed phase released,
//! each thread's latest arrival); the kernel runtime's Tile IR tokens, which litmus setups never
//! have, are not part of it.

use super::async_copy::{AgentWork, AsyncStore, Completion, Copy};
use super::machine::{BarrierKey, Machine, Status};
use super::mbarrier::MBarState;
use super::sync::{Actor, Head};
use super::view::View;
use crate::scope::Scope;

fn scope_code(scope: Option<Scope>) -> u64 {
    scope.map_or(0, |s| 1 + s as u64)
}

fn actor(key: &mut Vec<u64>, a: &Actor) {
    // The placement is the thread's own, fixed by the setup.
    key.push(((a.thread as u64) << 8) | scope_code(a.scope));
}

/// Level 0 of a view: its clock and coherence floors. The widened levels are left out: they
/// never change what a load may read or whether an access races, only which scope a report
/// would name as the fix.
fn view(key: &mut Vec<u64>, v: &View) {
    key.extend(v.clock(0).iter().map(|&c| c as u64));
    key.extend(v.floor().iter().map(|&f| f as u64));
    let observed = v.observed().iter().filter(|o| o.levels & 1 != 0);
    key.push(observed.clone().count() as u64);
    key.extend(observed.map(|o| ((o.thread as u64) << 32) | o.epoch as u64));
}

fn heads<'a>(key: &mut Vec<u64>, hs: impl ExactSizeIterator<Item = &'a Head>) {
    key.push(hs.len() as u64);
    for h in hs {
        actor(key, &h.releaser);
        key.push(h.levels as u64);
        view(key, &h.view);
    }
}

fn status(key: &mut Vec<u64>, s: &Status) {
    match s {
        Status::Running => key.push(0),
        Status::AtBarrier => key.push(1),
        Status::Spinning(watch) => {
            key.push(2);
            key.push(watch.len() as u64);
            key.extend(watch.iter().flat_map(|&(l, v)| [l as u64, v]));
        }
        Status::MBarWait { bar, phase } => key.extend([3, *bar as u64, *phase as u64]),
        Status::BulkWait { pending, read } => key.extend([4, *pending as u64, *read as u64]),
        Status::CpAsyncWait(n) => key.extend([7, *n as u64]),
        Status::AgentIdle => key.push(5),
        Status::NotResident => key.push(6),
        Status::NotStarted => key.push(8),
        Status::Done => key.push(6),
    }
}

fn optional_view(key: &mut Vec<u64>, v: Option<&View>) {
    match v {
        None => key.push(u64::MAX),
        Some(v) => {
            key.push(0);
            view(key, v);
        }
    }
}

fn copy(key: &mut Vec<u64>, c: &Copy) {
    key.push(c.issuer as u64);
    key.push(c.src.len() as u64);
    // An out-of-bounds (zero-filled) source is `u64::MAX`, no location's index.
    key.extend(c.src.iter().map(|l| l.map_or(u64::MAX, |l| l as u64)));
    key.extend(c.dst.iter().map(|&l| l as u64));
    key.push(c.bytes);
    match c.completion {
        Completion::MBarrier(bar) => key.extend([0, bar as u64]),
        Completion::BulkGroup => key.extend([1, c.group as u64]),
        Completion::CpAsyncGroup(g) => key.extend([2, g as u64]),
        Completion::MbarrierAt(bar) => key.extend([3, bar as u64]),
        Completion::Release(bar) => key.extend([4, bar as u64]),
    }
    match &c.store {
        None => key.push(0),
        Some(AsyncStore::Values(v)) => {
            key.extend([1, v.len() as u64]);
            key.extend(v.iter().copied());
        }
        Some(AsyncStore::Reduce(r)) => {
            key.extend([2, r.op as u64, r.ty as u64, r.operand]);
        }
    }
    view(key, &c.view);
    key.push(c.read_values.len() as u64);
    key.extend(c.read_values.iter().copied());
    optional_view(key, c.written.as_ref());
}

/// A copy agent's copy in progress (and how far it got) and its queue.
fn agent_work(key: &mut Vec<u64>, work: &AgentWork) {
    match &work.current {
        None => key.push(u64::MAX),
        Some((c, i)) => {
            key.push(*i as u64);
            copy(key, c);
        }
    }
    key.push(work.queue.len() as u64);
    for c in &work.queue {
        copy(key, c);
    }
}

/// An mbarrier: what its next operations depend on. A wait reads the latest completed phase's
/// release at most (an older token is a misuse), so older phases are left out.
fn mbarrier(key: &mut Vec<u64>, b: &MBarState) {
    key.push(
        b.init
            .map_or(u64::MAX, |i| ((i.thread as u64) << 32) | i.epoch as u64),
    );
    key.extend([
        b.count as u64,
        b.pending as u64,
        b.tx as u64,
        b.phase as u64,
    ]);
    key.extend([b.in_flight as u64, b.inits as u64]);
    optional_view(key, b.releasing.as_ref());
    optional_view(key, b.completed.last().map(|v| &**v));
    optional_view(key, b.releasing_remote.as_ref());
    optional_view(key, b.completed_remote.last().and_then(|v| v.as_deref()));
    key.push(b.invalidated as u64);
    // The latest uses matter to a later `mbarrier.init` only, which a barrier initialised at
    // launch (a cluster's) never gets.
    if b.init.is_none_or(|i| i.thread != usize::MAX) {
        key.extend(b.uses.iter().map(|&e| e as u64));
    }
    key.push(b.releasing_inits.len() as u64);
    key.extend(
        b.releasing_inits
            .iter()
            .flat_map(|&(t, e)| [t as u64, e as u64]),
    );
    let inits = b.completed_inits.last().map_or(&[][..], |i| &i[..]);
    key.push(inits.len() as u64);
    key.extend(inits.iter().flat_map(|&(t, e)| [t as u64, e as u64]));
}

impl Machine {
    /// Append this machine's state key to `key`.
    pub(crate) fn state_key(&self, key: &mut Vec<u64>) {
        key.push(
            (self.halted as u64)
                | (self.infeasible as u64) << 1
                | (self.failure.is_some() as u64) << 2
                | ((self.races > 0) as u64) << 3,
        );
        for th in &self.threads {
            status(key, &th.status);
            key.push(th.steps as u64);
            view(key, &th.view);
            heads(key, th.fence_heads.iter());
            key.push(th.pending.len() as u64);
            for p in &th.pending {
                key.push(p.loc as u64);
                key.push(p.rf_levels as u64);
                heads(key, p.heads.iter());
            }
            key.push(th.rel_seq.len() as u64);
            for (loc, head) in &th.rel_seq {
                key.push(*loc as u64);
                heads(key, std::iter::once(head));
            }
            key.push(th.watch.len() as u64);
            key.extend(th.watch.iter().flat_map(|&(l, v)| [l as u64, v]));
            key.push(th.spin_wrote as u64);
            match &th.last_spin {
                None => key.push(u64::MAX),
                Some(log) => {
                    key.push(log.len() as u64);
                    key.extend(log.iter().flat_map(|&(l, v)| [l as u64, v]));
                }
            }
            key.push(th.mbar_inits.len() as u64);
            key.extend(
                th.mbar_inits
                    .iter()
                    .flat_map(|&(l, i, e)| [l as u64, i as u64, e as u64]),
            );
            optional_view(key, th.init_release.as_deref());
            for groups in [&th.cp, &th.bulk] {
                key.push(groups.open as u64);
                key.push(groups.groups.len() as u64);
                for g in &groups.groups {
                    key.extend([g.outstanding as u64, g.reading as u64]);
                    optional_view(key, g.done.as_ref());
                    optional_view(key, g.read_done.as_ref());
                }
            }
            match &th.future_barriers {
                None => key.push(u64::MAX),
                Some(ids) => {
                    key.push(ids.len() as u64);
                    key.extend(ids.iter().map(|&id| id as u64));
                }
            }
        }
        for loc in &self.locs {
            key.push(loc.stores.len() as u64);
            for s in &loc.stores {
                key.push(s.value);
                key.push(s.writer.map_or(0, |w| w as u64 + 1));
                key.push(s.epoch as u64);
                match &s.actor {
                    Some(a) => actor(key, a),
                    None => key.push(u64::MAX),
                }
                heads(key, s.heads.iter());
                key.push(s.chain.len() as u64);
                key.extend(s.chain.iter().map(|o| {
                    ((o.thread as u64) << 40) | ((o.epoch as u64) << 8) | o.levels as u64
                }));
            }
            // Race checks look at every earlier access, in no particular order.
            key.push(loc.accesses.len() as u64);
            let start = key.len();
            key.extend(loc.accesses.iter().map(|a| {
                ((a.actor.thread as u64) << 48)
                    | ((a.epoch as u64) << 16)
                    | ((a.write as u64) << 8)
                    | ((a.async_proxy as u64) << 9)
                    | ((a.rmw as u64) << 10)
                    | scope_code(a.actor.scope)
            }));
            key[start..].sort_unstable();
        }
        for work in &self.agent_work {
            agent_work(key, work);
        }
        // Proxy fences: which, where, and what they knew.
        key.push(self.proxy_fences.len() as u64);
        for f in &self.proxy_fences {
            key.extend([f.thread as u64, f.epoch as u64]);
            match &f.covers {
                None => key.push(u64::MAX),
                Some(c) => {
                    key.push(c.len() as u64);
                    key.extend(c.iter().map(|&l| l as u64));
                }
            }
            view(key, &f.view);
        }
        key.push(self.mbars.len() as u64);
        for b in &self.mbars {
            mbarrier(key, b);
        }
        key.extend(
            (0..self.threads.len())
                .map(|t| self.cluster_arrivals.last(t).map_or(u64::MAX, u64::from)),
        );
        // Fence-SC order is execution order: keep it.
        key.push(self.sc_fences.len() as u64);
        for f in &self.sc_fences {
            actor(key, &f.actor);
            view(key, &f.view);
        }
        for block in &self.barrier_waiting {
            key.push(block.len() as u64);
            for a in block {
                key.push(a.thread as u64);
                match a.key {
                    BarrierKey::Id(id) => key.extend([0, id as u64]),
                    BarrierKey::Site(site) => {
                        let file = site.file().as_ptr() as u64;
                        key.extend([1, file, site.line() as u64, site.column() as u64])
                    }
                }
                key.push((a.wait as u64) | (a.quorum.map_or(0, |q| q as u64 + 1) << 1));
                view(key, &a.view);
            }
        }
    }
}
