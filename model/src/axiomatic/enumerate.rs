//! Candidate executions: for every combination of thread traces, choose reads-from (only among
//! writes of the value the read returned), a coherence order per location, an order of the
//! morally strong fence.sc pairs, and a matching of barriers — then ask the model.
//!
//! Pruning: the per-location axioms (SC-per-Location, Atomicity) are checked as soon as one
//! location's reads-from and coherence are chosen, so inconsistent choices for early locations
//! never multiply with the choices for later ones.

use super::events::{Kind, Trace};
use super::execution::{immediate, EventInfo, Events, ExecEvent, Execution};
use super::models::{prepare, Checker, Dynamic};
use super::rel::{bit, members, Rel, Set};
use super::{FinalState, Model};
use crate::litmus::*;
use std::collections::{BTreeMap, HashSet};

/// What every consistent execution contributes to.
pub struct Collector {
    pub witnesses: bool,
    pub states: BTreeMap<FinalState, (u64, Option<Execution>)>,
    pub executions: u64,
    /// Consistent executions with a data race (models that define races only).
    pub racy: u64,
}

/// Explores every candidate execution of one combination of traces (one per thread).
pub fn explore(
    p: &Program,
    model: Model,
    combo: &[&Trace],
    out: &mut Collector,
) -> Result<(), String> {
    if !values_available(p, combo) {
        return Ok(());
    }
    let ev = Events::build(p, combo)?;
    // Reads-from candidates: same physical location, same value; never the read's own write.
    let mut candidates: Vec<(usize, Vec<usize>)> = Vec::new();
    for r in members(ev.r) {
        let ws: Vec<usize> = members(ev.w & ev.loc.row(r))
            .filter(|&w| ev.value(w) == ev.value(r) && !ev.rmw.has(r, w))
            .collect();
        if ws.is_empty() {
            return Ok(());
        }
        candidates.push((r, ws));
    }
    let barrier_options = barrier_syncs(&ev);
    if barrier_options.is_empty() {
        return Ok(());
    }
    let checker = prepare(model, &ev);
    let fence_orders = fence_orders(&ev, checker.morally_strong())?;
    let locations: Vec<LocId> = (0..p.locations.len())
        .filter(|&l| p.physical(l) == l)
        .collect();
    let search = Search {
        p,
        ev: &ev,
        checker: checker.as_ref(),
        combo,
        candidates,
        fence_orders,
        barrier_options,
    };
    let empty = Rel::empty(ev.n);
    search.location(&locations, &empty, &empty, out);
    Ok(())
}

/// Cheap test before building events: every value a read returns is written by some store of
/// this combination (or is the initial value).
fn values_available(p: &Program, combo: &[&Trace]) -> bool {
    // A handful of (location, value) pairs: a vector beats hashing here.
    let mut written: Vec<(LocId, Value)> = (0..p.locations.len())
        .filter(|&l| p.physical(l) == l)
        .map(|l| (l, p.initial_value(l)))
        .collect();
    for tr in combo {
        for e in &tr.events {
            if let Kind::Write { loc, value, .. } = e.kind {
                written.push((p.physical(loc), value));
            }
        }
    }
    combo.iter().all(|tr| {
        tr.events.iter().all(|e| match e.kind {
            Kind::Read { loc, value, .. } => written.contains(&(p.physical(loc), value)),
            _ => true,
        })
    })
}

struct Search<'a> {
    p: &'a Program,
    ev: &'a Events,
    checker: &'a dyn Checker,
    combo: &'a [&'a Trace],
    candidates: Vec<(usize, Vec<usize>)>,
    fence_orders: Vec<Rel>,
    barrier_options: Vec<Rel>,
}

impl Search<'_> {
    /// Chooses rf and co for `locs[0]`, prunes, and recurses on the rest.
    fn location(&self, locs: &[LocId], rf: &Rel, co: &Rel, out: &mut Collector) {
        let Some((&l, rest)) = locs.split_first() else {
            self.finish(rf, co, out);
            return;
        };
        let ev = self.ev;
        let here = |e: usize| ev.location(e).map(|x| self.p.physical(x)) == Some(l);
        let reads: Vec<&(usize, Vec<usize>)> =
            self.candidates.iter().filter(|(r, _)| here(*r)).collect();
        let writes: Vec<usize> = members(ev.w).filter(|&w| here(w)).collect();
        let (init, others): (Vec<usize>, Vec<usize>) =
            writes.iter().partition(|&&w| ev.init & bit(w) != 0);
        let mut choice = vec![0usize; reads.len()];
        loop {
            let mut rf_l = rf.clone();
            for (k, (r, ws)) in reads.iter().enumerate() {
                rf_l.add(ws[choice[k]], *r);
            }
            for_each_permutation(&others, &mut |order| {
                let mut co_l = co.clone();
                let chain: Vec<usize> = init.iter().chain(order.iter()).copied().collect();
                for (i, &a) in chain.iter().enumerate() {
                    for &b in &chain[i + 1..] {
                        co_l.add(a, b);
                    }
                }
                let fr = rf_l.inv().seq(&co_l);
                if self.checker.location_ok(ev, &rf_l, &co_l, &fr) {
                    self.location(rest, &rf_l, &co_l, out);
                }
            });
            // Next reads-from choice (odometer).
            let mut k = 0;
            loop {
                if k == reads.len() {
                    return;
                }
                choice[k] += 1;
                if choice[k] < reads[k].1.len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }

    /// Every fence.sc order and barrier matching, then the full model.
    fn finish(&self, rf: &Rel, co: &Rel, out: &mut Collector) {
        let fr = rf.inv().seq(co);
        for sync_fence in &self.fence_orders {
            for sync_barrier in &self.barrier_options {
                let x = Dynamic {
                    rf: rf.clone(),
                    co: co.clone(),
                    fr: fr.clone(),
                    sync_fence: sync_fence.clone(),
                    sync_barrier: sync_barrier.clone(),
                };
                if self.checker.consistent(self.ev, &x).is_ok() {
                    self.record(&x, out);
                }
            }
        }
    }

    fn record(&self, x: &Dynamic, out: &mut Collector) {
        let p = self.p;
        let mut state = FinalState::default();
        for (t, tr) in self.combo.iter().enumerate() {
            for (r, v) in &tr.regs {
                state.regs.insert(format!("P{t}:{r}"), *v);
            }
        }
        for w in members(self.ev.w) {
            if x.co.row(w) == 0 {
                let l = p.physical(self.ev.location(w).expect("writes have locations"));
                state.mem.insert(
                    p.locations[l].name.clone(),
                    self.ev.value(w).expect("writes have values"),
                );
            }
        }
        out.executions += 1;
        if !self.checker.races(self.ev, x).is_empty() {
            out.racy += 1;
        }
        let entry = out.states.entry(state).or_insert((0, None));
        entry.0 += 1;
        if out.witnesses && entry.1.is_none() {
            entry.1 = Some(self.witness(x));
        }
    }

    fn witness(&self, x: &Dynamic) -> Execution {
        let ev = self.ev;
        let events = (0..ev.n)
            .map(|e| {
                let EventInfo { thread, stmt, .. } = ev.info[e];
                let span = thread
                    .zip(stmt)
                    .map(|(t, s)| self.p.threads[t].body[s].span);
                ExecEvent {
                    id: e,
                    thread,
                    span,
                    label: ev.label(self.p, e),
                }
            })
            .collect();
        Execution {
            events,
            po: immediate(&ev.po),
            rmw: ev.rmw.pairs().collect(),
            rf: x.rf.pairs().collect(),
            co: immediate(&x.co),
            fr: x.fr.pairs().collect(),
            sync: self.checker.synchronizes(ev, x).pairs().collect(),
            sc: x.sync_fence.pairs().collect(),
            barrier: x.sync_barrier.pairs().collect(),
        }
    }
}

/// Calls `f` with every ordering of `items`.
fn for_each_permutation(items: &[usize], f: &mut dyn FnMut(&[usize])) {
    fn go(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
        if k == v.len() {
            f(v);
            return;
        }
        for i in k..v.len() {
            v.swap(k, i);
            go(v, k + 1, f);
            v.swap(k, i);
        }
    }
    go(&mut items.to_vec(), 0, f);
}

/// The distinct orders fence.sc pairs can take: all fence.sc operations form one total order,
/// of which synchronization only keeps the morally strong pairs. An acyclic orientation of the
/// morally strong pairs always extends to a total order, so orienting those pairs is enough.
///
/// Either orientations of the pairs or permutations of the fences are enumerated, whichever
/// are fewer.
fn fence_orders(ev: &Events, ms: &Rel) -> Result<Vec<Rel>, String> {
    const LIMIT: u64 = 1 << 22;
    let fences: Vec<usize> = members(ev.f_sc).collect();
    let mut pairs = Vec::new();
    for (i, &a) in fences.iter().enumerate() {
        for &b in &fences[i + 1..] {
            if ms.has(a, b) || ms.has(b, a) {
                pairs.push((a, b));
            }
        }
    }
    let orientations = 1u64
        .checked_shl(pairs.len() as u32)
        .filter(|_| pairs.len() < 64)
        .unwrap_or(u64::MAX);
    let permutations = (1..=fences.len() as u64)
        .try_fold(1u64, |a, b| a.checked_mul(b))
        .unwrap_or(u64::MAX);
    if orientations.min(permutations) > LIMIT {
        return Err(format!(
            "{} fence.sc operations have too many orders to enumerate",
            fences.len()
        ));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut keep = |order: &Rel| {
        let sync_fence = ms & order;
        if seen.insert(sync_fence.clone()) {
            out.push(sync_fence);
        }
    };
    if orientations <= permutations {
        for mask in 0..orientations {
            let mut order = Rel::empty(ev.n);
            for (k, &(a, b)) in pairs.iter().enumerate() {
                if mask & (1 << k) == 0 {
                    order.add(a, b);
                } else {
                    order.add(b, a);
                }
            }
            if order.acyclic() {
                keep(&order);
            }
        }
    } else {
        for_each_permutation(&fences, &mut |sequence| {
            let mut order = Rel::empty(ev.n);
            for (i, &a) in sequence.iter().enumerate() {
                for &b in &sequence[i + 1..] {
                    order.add(a, b);
                }
            }
            keep(&order);
        });
    }
    Ok(out)
}

/// The ways barriers can match, each as a barrier synchronization relation.
///
/// Barriers of one CTA meet when their ids (all id operands, by value) agree. Without a quorum
/// every such barrier takes part in one instance. With a quorum `q`, instances have exactly `q`
/// barriers of different threads; a barrier left out of every instance never completes, so its
/// thread blocks there — allowed only if the barrier is the thread's last event (otherwise the
/// execution does not run to its end, and final states only come from complete runs).
///
/// Within an instance every barrier synchronizes with every `bar.sync` of another thread (an
/// `arrive` publishes its thread's earlier operations but does not wait).
fn barrier_syncs(ev: &Events) -> Vec<Rel> {
    type Key = (u32, u32, Vec<Value>, Option<Value>);
    let mut groups: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for b in members(ev.barriers) {
        let Kind::Barrier { id, quorum, .. } = &ev.info[b].kind else {
            continue;
        };
        let pl = ev.placement[b].expect("barriers belong to threads");
        groups
            .entry((pl.gpu, pl.cta, id.clone(), *quorum))
            .or_default()
            .push(b);
    }
    let mut options = vec![Rel::empty(ev.n)];
    for ((_, _, _, quorum), members) in groups {
        let instances: Vec<Vec<Vec<usize>>> = match quorum {
            None => vec![vec![members]],
            Some(q) => {
                let mut out = Vec::new();
                partitions(
                    ev,
                    &members,
                    q.max(1) as usize,
                    &mut Vec::new(),
                    &mut vec![false; members.len()],
                    &mut out,
                );
                out
            }
        };
        let mut next = Vec::new();
        for partition in &instances {
            let mut rel = Rel::empty(ev.n);
            for instance in partition {
                for &a in instance {
                    for &b in instance {
                        let waits = matches!(
                            ev.info[b].kind,
                            Kind::Barrier {
                                op: BarrierOp::Sync,
                                ..
                            }
                        );
                        if ev.info[a].thread != ev.info[b].thread && waits {
                            rel.add(a, b);
                        }
                    }
                }
            }
            for o in &options {
                next.push(o | &rel);
            }
        }
        options = next;
    }
    options
}

/// Splits `members` into instances of exactly `q` barriers of distinct threads, leaving out
/// only barriers that end their thread.
fn partitions(
    ev: &Events,
    members: &[usize],
    q: usize,
    current: &mut Vec<Vec<usize>>,
    used: &mut Vec<bool>,
    out: &mut Vec<Vec<Vec<usize>>>,
) {
    let Some(first) = (0..members.len()).find(|&i| !used[i]) else {
        out.push(current.clone());
        return;
    };
    used[first] = true;
    // Left out: it blocks forever, which only a thread's last event may do.
    if ev.last_of_thread(members[first]) {
        partitions(ev, members, q, current, used, out);
    }
    // Or completes an instance with q-1 later barriers of other threads.
    let rest: Vec<usize> = (first + 1..members.len()).filter(|&i| !used[i]).collect();
    let mut pick = Vec::new();
    choose(&rest, q - 1, 0, &mut pick, &mut |picked| {
        let mut threads: Set = 0;
        let mut instance = vec![members[first]];
        instance.extend(picked.iter().map(|&i| members[i]));
        for &e in &instance {
            let t = ev.info[e].thread.unwrap_or(0);
            if threads & bit(t) != 0 {
                return;
            }
            threads |= bit(t);
        }
        for &i in picked {
            used[i] = true;
        }
        current.push(instance);
        partitions(ev, members, q, current, used, out);
        current.pop();
        for &i in picked {
            used[i] = false;
        }
    });
    used[first] = false;
}

fn choose(
    from: &[usize],
    k: usize,
    start: usize,
    pick: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize]),
) {
    if pick.len() == k {
        f(pick);
        return;
    }
    for i in start..from.len() {
        pick.push(from[i]);
        choose(from, k, i + 1, pick, f);
        pick.pop();
    }
}
