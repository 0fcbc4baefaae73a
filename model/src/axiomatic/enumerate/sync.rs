//! The synchronization choices of one set of events: fence.sc orders (every permutation of the
//! morally strong fence.sc pairs), CTA barrier matchings and cluster barrier/exit pairs.

use crate::axiomatic::events::{ClusterBarrier, Kind};
use crate::axiomatic::execution::Events;
use crate::axiomatic::rel::{bit, members, Rel, Set};
use crate::litmus::*;
use std::collections::{BTreeMap, HashSet};

/// Calls `f` with every ordering of `items`.
pub(super) fn for_each_permutation(items: &[usize], f: &mut dyn FnMut(&[usize])) {
    pub(super) fn go(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
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
pub(super) fn fence_orders(ev: &Events, ms: &Rel) -> Result<Vec<Rel>, String> {
    pub(super) const LIMIT: u64 = 1 << 22;
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
/// the `k`-th such barrier of each thread takes part in the `k`-th instance (PTX ISA, `bar`: a
/// barrier completes when its expected threads arrive, and is then reset for its next use).
/// With a quorum `q`, instances have exactly `q` barriers of different threads; a barrier left
/// out of every instance never completes, so its thread blocks there — allowed only if the
/// barrier is the thread's last event (otherwise the execution does not run to its end, and
/// final states only come from complete runs).
///
/// Within an instance every barrier synchronizes with every `bar.sync` of another thread (an
/// `arrive` publishes its thread's earlier operations but does not wait).
///
/// A matching whose instances cannot complete in any order is a deadlock, not an execution
/// (see [`completes`]); this depends on program order and the matching only, so it is the
/// same under every model.
pub(super) fn barrier_syncs(ev: &Events) -> Vec<Rel> {
    type Key<'e> = (&'e [u32], Vec<Value>, Option<Value>);
    let mut groups: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for b in members(ev.barriers) {
        let Kind::Barrier { id, quorum, .. } = &ev.info[b].kind else {
            continue;
        };
        groups
            .entry((ev.barrier_scope_key(b), id.clone(), *quorum))
            .or_default()
            .push(b);
    }
    let mut options = vec![(Rel::empty(ev.n), Vec::new())];
    for ((_, _, quorum), members) in groups {
        let instances: Vec<Vec<Vec<usize>>> = match quorum {
            None => {
                // The k-th barrier of each thread (members are in event order, so in program
                // order within a thread) joins the k-th instance.
                let mut by_use: Vec<Vec<usize>> = Vec::new();
                let mut uses: BTreeMap<Option<ThreadId>, usize> = BTreeMap::new();
                for &b in &members {
                    let k = uses.entry(ev.info[b].thread).or_insert(0);
                    if by_use.len() <= *k {
                        by_use.push(Vec::new());
                    }
                    by_use[*k].push(b);
                    *k += 1;
                }
                vec![by_use]
            }
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
            for (o, placed) in &options {
                let mut placed: Vec<Vec<usize>> = placed.clone();
                placed.extend(partition.iter().cloned());
                next.push((o | &rel, placed));
            }
        }
        options = next;
    }
    let cluster = cluster_barrier_syncs(ev);
    options
        .into_iter()
        .filter(|(_, instances)| completes(ev, instances))
        .map(|(rel, _)| &rel | &cluster)
        .collect()
}

/// The synchronization of cluster barriers: the arrive "has .release semantics by default", the
/// wait ".acquire semantics by default" (PTX ISA, *barrier.cluster*), so a `.release` arrive
/// synchronizes with the waits of the other threads of its instance ([`Events::cluster_barrier`])
/// and a `.relaxed` one orders nothing. The matching is fixed by program order, so it is one
/// relation shared by every barrier matching.
pub(super) fn cluster_barrier_syncs(ev: &Events) -> Rel {
    let release = members(ev.barriers).filter(|&a| {
        matches!(
            ev.info[a].kind,
            Kind::ClusterBarrier(ClusterBarrier::Arrive { release: true })
        )
    });
    let mut rel = Rel::empty(ev.n);
    for a in release {
        rel.set_row(a, ev.cluster_barrier.row(a));
    }
    rel
}

/// The reads-from pairs (write, read) a cluster barrier rules out, `None` without cluster
/// barriers. PTX ISA, *barrier.cluster*: `barrier.cluster.wait` "causes the executing thread to
/// wait for all non-exited threads of the cluster to perform barrier.cluster.arrive". A thread
/// of the cluster with no arrive in a wait's instance (fewer arrives than the wait's thread
/// before it) is waited for until it exits, and it exits once its reads have returned their
/// values; a write after the wait in program order is performed only once the wait completed,
/// so none of that thread's reads reads from it. (A thread that arrives gives no such order: a
/// `.relaxed` arrive leaves its earlier reads unperformed, and a `.release` one synchronizes
/// with the wait, which orders them already.) The memory model chapter does not speak of
/// exits; without this rule the axioms would let such a read see the write, a race the hardware
/// cannot run.
pub(super) fn cluster_exits(ev: &Events) -> Option<Rel> {
    let cluster_op = |e: usize| match ev.info[e].kind {
        Kind::ClusterBarrier(op) => Some(op),
        _ => None,
    };
    let waits: Vec<usize> = members(ev.barriers)
        .filter(|&b| cluster_op(b) == Some(ClusterBarrier::Wait))
        .collect();
    if waits.is_empty() {
        return None;
    }
    let arrive = |e: usize| matches!(cluster_op(e), Some(ClusterBarrier::Arrive { .. }));
    // A thread's cluster (as in `cluster_barrier_syncs`) and how many times it arrives.
    let key =
        |e: usize| ev.placement[e].map(|pl| (pl.gpu, pl.cluster, pl.cluster.map_or(pl.cta, |_| 0)));
    let thread = |e: usize| ev.info[e].thread;
    // A copy's accesses are the copy unit's, which a thread's exit does not stop (the
    // runtime's copy agents outlive their issuers likewise).
    let in_po = |e: usize| thread(e).is_some() && !ev.bulk.contains(e) && !ev.cp_async.contains(e);
    let mut rel = Rel::empty(ev.n);
    for w in waits {
        let before = members(ev.barriers)
            .filter(|&a| arrive(a) && ev.po.has(a, w))
            .count();
        // A wait before any arrive waits for nothing.
        let Some(k) = before.checked_sub(1) else {
            continue;
        };
        let later_writes: Vec<usize> = members(ev.w).filter(|&x| ev.po.has(w, x)).collect();
        let gone = |u: Option<ThreadId>| {
            let arrives = members(ev.barriers)
                .filter(|&a| arrive(a) && thread(a) == u)
                .count();
            u != thread(w) && arrives <= k
        };
        for r in members(ev.r).filter(|&r| in_po(r) && key(r) == key(w) && gone(thread(r))) {
            for &x in &later_writes {
                rel.add(x, r);
            }
        }
    }
    Some(rel)
}

/// Whether barrier instances can complete one after another: an instance completes once all
/// its barriers are reached, and a thread waiting at a `bar.sync` reaches nothing after it
/// until that barrier's instance completes. So an instance with a barrier that comes in
/// program order after a waiting barrier of another (or the same) instance must complete after
/// it; a cycle of such orders is a deadlock (threads crossing two named barriers, `bar.sync 0;
/// bar.sync 1` against `bar.sync 1; bar.sync 0`, wait for each other forever).
pub(super) fn completes(ev: &Events, instances: &[Vec<usize>]) -> bool {
    let n = instances.len();
    let mut after = vec![Vec::new(); n];
    for (i, a_instance) in instances.iter().enumerate() {
        for &a in a_instance {
            let waits = matches!(
                ev.info[a].kind,
                Kind::Barrier {
                    op: BarrierOp::Sync,
                    ..
                }
            );
            if !waits {
                continue;
            }
            for (j, b_instance) in instances.iter().enumerate() {
                if b_instance.iter().any(|&b| ev.po.has(a, b)) {
                    after[i].push(j);
                }
            }
        }
    }
    // Kahn's algorithm: every instance completes iff the order is acyclic.
    let mut waiting_on = vec![0usize; n];
    for js in &after {
        for &j in js {
            waiting_on[j] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&j| waiting_on[j] == 0).collect();
    let mut done = 0;
    while let Some(i) = ready.pop() {
        done += 1;
        for &j in &after[i] {
            waiting_on[j] -= 1;
            if waiting_on[j] == 0 {
                ready.push(j);
            }
        }
    }
    done == n
}

/// Splits `members` into instances of exactly `q` barriers of distinct threads, leaving out
/// only barriers that end their thread.
pub(super) fn partitions(
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
        let mut threads: Set = Set::EMPTY;
        let mut instance = vec![members[first]];
        instance.extend(picked.iter().map(|&i| members[i]));
        for &e in &instance {
            let t = ev.info[e].thread.unwrap_or(0);
            if threads & bit(t) != Set::EMPTY {
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

pub(super) fn choose(
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
