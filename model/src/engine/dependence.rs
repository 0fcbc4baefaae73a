//! Which operations of different threads commute: the dependence relation the DFS's partial-order
//! reduction (and its sleep sets) rest on, with the argument for each kind of scheduling point.

use crate::runtime::sched::{MBarrierEffect, MBarrierStep, Point, ACTIVEMASK};

/// May swapping two adjacent operations of different threads change what happens?
///
/// Soundness: two operations are independent only when, from any state where both are
/// enabled, running them in either order reaches the same state (memory, views, barrier and
/// mbarrier state, asynchronous bookkeeping, which threads are blocked) and neither enables or
/// disables the other — a thread woken by the first is tracked as happening after it
/// (the DFS tree's wake-up edges), not through this relation. Case by case:
/// - locations: a load commutes with another load; a store or read-modify-write conflicts with
///   every access of its location (a load's choice of store depends only on the stores of its
///   location);
/// - asynchronous copies ([`Footprint`](crate::runtime::sched::Footprint)): besides their
///   locations, two issues on one agent conflict (their order is the order of the copies in its
///   queue). An issue commutes with the agent step that ends another copy: that step takes the
///   queue's first copy or, with the queue empty, lets the agent idle until the issue wakes it to
///   take the new copy — either way the agent then works on the same copy with the same queue
///   behind it, and nothing else of the state depends on the order. The issue and the agent's first
///   step of the copy it queued share the copy
///   ([`Footprint::copy`](crate::runtime::sched::Footprint::copy)): the take-up happens after the
///   issue (an enabling, which the reduction must see as an order). A thread's async-groups are
///   marked by the agent steps that complete one of its copies or their reading
///   ([`Footprint::group`](crate::runtime::sched::Footprint::group): a count and a join of views
///   per group, which commute with the issuer's issues and commits, which only add copies to its
///   open group) and read by its `wait_group`s, but only the groups a wait waits for: "until only N
///   or fewer of the most recent ... groups are pending and all the prior ... groups committed by
///   the executing thread are complete" (PTX ISA, *cp.async.wait_group*;
///   *cp.async.bulk.wait_group*): whether it blocks, and what it joins ([`crate::runtime`]'s async
///   groups, `ready`), depend on those groups alone, and a completion in a more recent group
///   neither wakes it nor changes what it joins. So a completion conflicts with a wait only when
///   the wait covers its group ([`GroupKey::covers`](crate::runtime::sched::GroupKey::covers)); a
///   `cp.async.mbarrier.arrive` counts every pending `cp.async` of its thread, so it covers them
///   all. A `complete_tx` conflicts with every operation on its mbarrier. Hence two CTAs that share
///   no location, agent, thread or mbarrier commute past their TMA copies, and two threads that
///   share an agent commute past each other's copies but for the order of their issues;
/// - `syncthreads` arrivals commute with each other (whichever arrives last completes the one
///   instance with the same views); named-barrier arrivals conflict with the block's
///   `syncthreads` arrivals (a `syncthreads` counts every pending arrival of the block). Two
///   arrivals at one id conflict here, where nothing says which instance each joins: see
///   [`dependent_in`], which lets those of one instance commute. At different ids, two counted
///   arrivals commute: each instance completes when its own count arrived, independently of the
///   other's arrivals. An arrival without a count completes once every other thread of the
///   block arrived, exited or waits at a barrier (warp-synchronous operations included)
///   without this id ahead: it conflicts with every named-barrier and warp arrival of its block;
/// - warp-synchronous arrivals: arrivals of one warp with the same mask and operation commute
///   like `syncthreads` arrivals (the one instance completes with the same lanes, values and
///   views whichever arrives last); with another mask or operation, the order decides whether
///   they meet one pending instance (misuse) or one completed instance first, so they
///   conflict. Different warps share nothing. A warp arrival blocks its lane as a barrier
///   does, which a named barrier without a count reads: they conflict within the block;
/// - `fence.sc`s meet in the fence-SC order; mbarrier operations meet on their mbarrier;
///   a wait on an mbarrier ([`Point::MBarrierWait`]: `test_wait`/`try_wait`, blocking or not)
///   only reads it: whether the awaited phase completed, and what that phase released, which the
///   waiter joins into its own view (PTX ISA, *mbarrier.test_wait/try_wait*: "test_wait and
///   try_wait test for the completion of the current or the immediately preceding phase"), so
///   two waits commute, and a wait meets every other operation on its mbarrier (an arrival, a
///   `complete_tx`, an init may complete or start the phase it tests); a wait that blocks stays
///   blocked until an operation that changes the mbarrier wakes it, which the wake-up orders
///   ([`dependent_known`] lets arrivals of one phase, and waits with the operations that
///   complete no phase, commute, by what each operation did there);
///   release/acquire fences ([`Point::Local`]) touch their own thread only; anything else
///   ([`Point::Other`]) conflicts with everything.
pub fn dependent(a: Point, b: Point) -> bool {
    mbarrier_conflict(a, None, b, None) || dependent_but_on_mbarriers(a, b)
}

/// The mbarriers an operation touches: `None` for any.
fn mbarriers(p: Point) -> Option<Vec<usize>> {
    match p {
        Point::MBarrier(m) | Point::MBarrierWait(m) => Some(vec![m]),
        Point::Async(f) if f.any_mbarrier => None,
        Point::Async(f) => Some(f.mbarriers().collect()),
        _ => Some(Vec::new()),
    }
}

/// Whether an operation touches an mbarrier at all.
pub fn on_mbarrier(p: Point) -> bool {
    match p {
        Point::MBarrier(_) | Point::MBarrierWait(_) => true,
        Point::Async(f) => f.any_mbarrier || f.mbarriers().next().is_some(),
        _ => false,
    }
}

/// Whether two operations conflict on an mbarrier they both touch, given what each did there
/// when known ([`MBarrierStep`], reported by the runtime once the operation ran; `None`: not
/// known, or a wait).
///
/// The state an operation other than a wait changes is the current phase of its mbarrier:
/// its pending arrival count, its tx-count and what the phase released so far; "the current
/// phase is completed when the pending arrival count reaches zero and the tx-count reaches
/// zero" (PTX ISA, *mbarrier*, *Phase Completion*), and only then does the phase number
/// change, the counts reset and the waiters wake. A wait reads the phase number (PTX ISA,
/// *mbarrier.test_wait/try_wait*: they "test for the completion of the current or the
/// immediately preceding phase") and, once the phase completed, what it released; it changes
/// nothing another thread reads. Hence, for two operations on one mbarrier:
/// - two waits commute;
/// - a wait and an operation that completed no phase commute: swapped, the wait sees the same
///   phase number, and the operation finds the same counts (a wait changes none). An operation
///   that completes a phase, or of which nothing is known, conflicts with every wait;
/// - two arrive-on operations of one phase that complete nothing commute: "the pending count
///   is decremented" by each (*mbarrier.arrive*), an addition, as is the tx-count an
///   `.expect_tx` adds ("increases the tx-count ... prior to the arrive-on operation"), and
///   the views they release are joined, so either order reaches the same counts and the same
///   release. Neither completes the phase in the swapped order either: the one moved first
///   leaves at least the other's arrivals pending (each counts at least one), and the second
///   reaches the counts it reached before. Each returns the phase number, the same in either
///   order (an arrival whose thread keeps the pending count as well is not an
///   [`MBarrierEffect::Arrival`]: that count depends on the order);
/// - the issue of a bulk copy that completes on the mbarrier ([`MBarrierEffect::InFlight`])
///   commutes with every operation whose effect is known: it only counts a copy in flight,
///   which nothing but an init reads (and a `complete_tx` decrements, an addition again: the
///   copy it completes was counted before);
/// - any other two operations conflict: the arrival that completes a phase (swapped with
///   another arrival of the phase, the other completes it), an operation of another phase, an
///   `expect_tx` or a `complete_tx` (the tx-count is signed, "complete-tx ... may occur before
///   the expect-tx" (*Tracking asynchronous operations by the mbarrier object*): an arrival that
///   left a negative tx-count behind one may complete the phase if the two are swapped), an
///   init or an inval.
///
/// The relation stays what it is under the swaps it allows: the only operations that trade
/// places are non-completing arrivals of one phase, which stay non-completing and in that phase.
pub fn mbarrier_conflict(
    a: Point,
    ka: Option<MBarrierStep>,
    b: Point,
    kb: Option<MBarrierStep>,
) -> bool {
    if !on_mbarrier(a) || !on_mbarrier(b) {
        return false;
    }
    if let (Some(x), Some(y)) = (mbarriers(a), mbarriers(b)) {
        if !x.iter().any(|m| y.contains(m)) {
            return false;
        }
    }
    // What an operation did, when it is known for the one mbarrier its point names.
    let step = |p: Point, k: Option<MBarrierStep>| {
        k.filter(|s| mbarriers(p).is_some_and(|m| m == [s.bar]))
    };
    let wait = |p: Point| matches!(p, Point::MBarrierWait(_));
    let completes_nothing = |s: Option<MBarrierStep>| s.is_some_and(|s| !s.completes);
    match (wait(a), wait(b)) {
        (true, true) => false,
        (true, false) => !completes_nothing(step(b, kb)),
        (false, true) => !completes_nothing(step(a, ka)),
        (false, false) => match (step(a, ka), step(b, kb)) {
            (Some(x), Some(y)) => {
                let quiet = |s: MBarrierStep| s.effect == MBarrierEffect::Arrival && !s.completes;
                let in_flight =
                    |s: MBarrierStep| s.effect == MBarrierEffect::InFlight && !s.completes;
                let arrivals = quiet(x) && quiet(y) && x.bar == y.bar && x.phase == y.phase;
                !(arrivals || in_flight(x) || in_flight(y))
            }
            _ => true,
        },
    }
}

/// [`dependent`] but for what the two operations touch on mbarriers ([`mbarrier_conflict`]).
fn dependent_but_on_mbarriers(a: Point, b: Point) -> bool {
    use Point::*;
    /// The location an operation reads and the one it writes, if any.
    fn access(p: Point) -> (Option<usize>, Option<usize>) {
        match p {
            Read(x) => (Some(x), None),
            Write(x) => (Some(x), Some(x)),
            Async(f) => (f.read, f.write),
            _ => (None, None),
        }
    }
    match (a, b) {
        (Local, _) | (_, Local) => return false,
        (Other, _) | (_, Other) => return true,
        _ => {}
    }
    let ((ra, wa), (rb, wb)) = (access(a), access(b));
    let hits =
        |w: Option<usize>, r: Option<usize>, w2: Option<usize>| w.is_some() && (w == r || w == w2);
    if hits(wa, rb, wb) || hits(wb, ra, wa) {
        return true;
    }
    match (a, b) {
        (Async(f), Async(g)) => {
            f.queues().any(|q| g.queues().any(|r| q == r))
                || (f.copy.is_some() && f.copy == g.copy)
                || f.groups_meet(&g)
        }
        (Barrier(_), Barrier(_)) => false,
        (Barrier(x), NamedBarrier { block: y, .. })
        | (NamedBarrier { block: y, .. }, Barrier(x)) => x == y,
        (
            NamedBarrier {
                block: x,
                id: i,
                count: c,
                ..
            },
            NamedBarrier {
                block: y,
                id: j,
                count: d,
                ..
            },
        ) => x == y && (i == j || c.is_none() || d.is_none()),
        (Warp { block: x, .. }, NamedBarrier { block: y, .. })
        | (NamedBarrier { block: y, .. }, Warp { block: x, .. }) => x == y,
        (
            Warp {
                warp: v,
                mask: m,
                op: o,
                ..
            },
            Warp {
                warp: w,
                mask: n,
                op: q,
                ..
            },
        ) => v == w && (m != n || o != q || o == ACTIVEMASK || q == ACTIVEMASK),
        (ScFence, ScFence) => true,
        _ => false,
    }
}

/// Where an executed arrival at a counted named barrier stands among the arrivals at its
/// barrier (its block, id and thread count) in one execution.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Joined {
    /// The instance it joined: the arrivals at one barrier and count fill its instances in
    /// arrival order, `count` at a time, so the `n`-th (from 0) joins instance `n / count`.
    pub instance: u32,
    /// It was the instance's last arrival, which completed it.
    pub completes: bool,
}

/// [`dependent`], for two operations of which the engine may know where each counted
/// named-barrier arrival stands ([`Joined`]: known for an operation of the executed trace, and
/// for the one about to run; `None` for an operation that waits at its scheduling point, whose
/// instance depends on what runs first).
///
/// PTX ISA, *bar, barrier*: "Operand b specifies the number of threads participating in the
/// barrier"; "When a barrier completes, the waiting threads are restarted without delay, and
/// the barrier is reinitialized so that it can be immediately reused"; "barrier{.cta}.arrive
/// does not cause executing thread to wait". So the arrivals at one barrier id with one thread
/// count are counted: the first `count` of them form an instance, which completes at its last
/// arrival, the next `count` the next instance, and so on (`Machine::settle_barriers`). What an
/// instance does on completion — join the views its arrivals released into every waiting
/// arrival's view, and wake those — depends only on which arrivals it holds, not on their order,
/// and nothing else reads an arrival's position (an arrival returns nothing). Hence:
/// - two arrivals of the executed trace that joined the same instance commute: swapped, each
///   still finds the same number of earlier arrivals but one (the earlier of them does not
///   complete the instance, or the later one would have joined the next), so both join the same
///   instance again, the instance completes with the same arrivals, and every later arrival
///   keeps its place; arrivals of different instances conflict (swapped, they trade
///   instances);
/// - an arrival waiting at its scheduling point and one that runs now: from the state before
///   the one that runs, running either first puts both in one instance unless the first
///   completes it, so they commute unless the one that runs completes its instance;
/// - with no place known for either, they conflict.
///
/// Arrivals with different counts at one id, and arrivals without a count, conflict as in
/// [`dependent`] (a count mismatch is misuse; an instance without a count reads the other
/// threads' states).
pub fn dependent_in(a: Point, ja: Option<Joined>, b: Point, jb: Option<Joined>) -> bool {
    let known = |joined| Known {
        joined,
        mbarrier: None,
    };
    dependent_known(a, known(ja), b, known(jb))
}

/// What the engine knows of an operation beyond its scheduling point: for an operation of the
/// executed trace (and, for a counted named-barrier arrival, for the one about to run), where
/// a counted named-barrier arrival stands and what an operation on an mbarrier did there.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// Where a counted named-barrier arrival stands ([`dependent_in`]).
    pub joined: Option<Joined>,
    /// What an operation that changed an mbarrier did there ([`mbarrier_conflict`]).
    pub mbarrier: Option<MBarrierStep>,
}

/// [`dependent`], refined by what is known of each operation: arrivals of one counted
/// named-barrier instance commute ([`dependent_in`]), and so do the arrivals of one mbarrier
/// phase that complete nothing, and a wait with the operations that complete no phase
/// ([`mbarrier_conflict`]).
pub fn dependent_known(a: Point, ka: Known, b: Point, kb: Known) -> bool {
    let (ja, jb) = (ka.joined, kb.joined);
    if on_mbarrier(a) && on_mbarrier(b) {
        return mbarrier_conflict(a, ka.mbarrier, b, kb.mbarrier)
            || dependent_but_on_mbarriers(a, b);
    }
    match (a, b) {
        (
            Point::NamedBarrier {
                block: x,
                id: i,
                count: Some(c),
                ..
            },
            Point::NamedBarrier {
                block: y,
                id: j,
                count: Some(d),
                ..
            },
        ) if x == y && i == j && c == d => match (ja, jb) {
            (Some(p), Some(q)) => p.instance != q.instance,
            (Some(p), None) | (None, Some(p)) => p.completes,
            (None, None) => true,
        },
        _ => dependent(a, b),
    }
}
