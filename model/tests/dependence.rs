//! Every case of the dependence relation the DFS's partial-order reduction rests on
//! ([`dependent`], and [`dependent_in`] for the arrivals of counted named-barrier instances),
//! one assertion per sentence of its argument, both ways round.

use scopecheck_model::engine::dependence::{dependent_in, Joined};
use scopecheck_model::engine::{dependent, Footprint, GroupKey, Point};

fn dep(a: Point, b: Point) -> bool {
    let (x, y) = (dependent(a, b), dependent(b, a));
    assert_eq!(x, y, "dependence is symmetric: {a:?} / {b:?}");
    x
}

fn step(f: Footprint) -> Point {
    Point::Async(f)
}

/// `issuer`'s issue at `epoch` on `agent`.
fn issue(agent: usize, issuer: usize, epoch: u32, mbarrier: Option<usize>) -> Point {
    step(Footprint {
        queues: [Some(agent), None],
        copy: Some((issuer, epoch)),
        mbarriers: [mbarrier, None, None, None],
        ..Footprint::default()
    })
}

fn group(thread: usize, bulk: bool, number: usize) -> GroupKey {
    GroupKey {
        thread,
        bulk,
        number,
    }
}

/// A step that marks `g` (a completion), optionally the copy's first step too.
fn completes(g: GroupKey, copy: Option<(usize, u32)>) -> Point {
    step(Footprint {
        group: Some(g),
        copy,
        ..Footprint::default()
    })
}

/// A wait for `thread`'s groups below `below`.
fn wait(thread: usize, bulk: bool, below: usize) -> Point {
    step(Footprint {
        waits: Some(group(thread, bulk, below)),
        ..Footprint::default()
    })
}

fn element(src: usize, dst: usize) -> Point {
    step(Footprint {
        read: Some(src),
        write: Some(dst),
        ..Footprint::default()
    })
}

/// An arrival (`bar.sync` when `wait`) at `block`'s barrier `id`, with a thread count of 2 when
/// `counted`.
fn named(block: usize, id: i64, counted: bool) -> Point {
    Point::NamedBarrier {
        block,
        id,
        count: counted.then_some(2),
        wait: false,
    }
}

/// [`dependent_in`], checked symmetric.
fn dep_in(a: Point, ja: Option<Joined>, b: Point, jb: Option<Joined>) -> bool {
    let (x, y) = (dependent_in(a, ja, b, jb), dependent_in(b, jb, a, ja));
    assert_eq!(x, y, "dependence is symmetric: {a:?} {ja:?} / {b:?} {jb:?}");
    x
}

fn joined(instance: u32, completes: bool) -> Option<Joined> {
    Some(Joined {
        instance,
        completes,
    })
}

fn warp(block: usize, warp: usize, mask: u64, op: &'static str) -> Point {
    Point::Warp {
        block,
        warp,
        mask,
        op,
    }
}

#[test]
fn locations() {
    use Point::*;
    assert!(!dep(Read(0), Read(0)), "loads commute");
    assert!(dep(Read(0), Write(0)) && dep(Write(0), Write(0)));
    assert!(!dep(Write(0), Write(1)) && !dep(Read(0), Write(1)));
    // A copy's element reads its source and writes its destination.
    assert!(dep(element(0, 1), Read(1)) && dep(element(0, 1), Write(0)));
    assert!(!dep(element(0, 1), Read(0)) && !dep(element(0, 1), Write(2)));
    assert!(dep(element(0, 1), element(2, 1)) && dep(element(0, 1), element(1, 2)));
    assert!(
        !dep(element(0, 1), element(0, 2)),
        "two copies reading one source"
    );
}

#[test]
fn asynchronous_copies() {
    // Agents 10 and 11, issuers 0 and 1, mbarriers 0 and 1.
    let ending = step(Footprint {
        mbarriers: [Some(0), None, None, None],
        ..Footprint::default()
    });
    assert!(
        dep(issue(10, 0, 1, None), issue(10, 1, 1, None)),
        "two issues on one agent: their order is the queue's"
    );
    assert!(
        !dep(issue(10, 0, 1, None), issue(11, 1, 1, None)),
        "issues on two agents"
    );
    assert!(
        !dep(issue(10, 1, 1, None), ending),
        "an issue commutes with the step that ends another copy"
    );
    assert!(
        dep(issue(10, 0, 1, Some(0)), ending),
        "but both count on one mbarrier"
    );
    assert!(
        !dep(issue(10, 0, 1, None), element(5, 6)),
        "an element leaves the queue alone"
    );
    assert!(
        dep(
            issue(10, 0, 3, None),
            completes(group(0, false, 0), Some((0, 3)))
        ),
        "a copy's first step takes up the copy its issue queued"
    );
    assert!(
        !dep(
            issue(10, 0, 4, None),
            completes(group(0, false, 0), Some((0, 3)))
        ),
        "another copy of the same issuer"
    );
    let g1 = completes(group(0, false, 1), None);
    assert!(
        dep(wait(0, false, 2), g1),
        "a wait_group reads the groups it waits for"
    );
    assert!(
        !dep(wait(0, false, 1), g1),
        "a completion in a group more recent than those waited for"
    );
    assert!(
        !dep(wait(0, true, 2), g1),
        "bulk groups and cp.async-groups are numbered apart"
    );
    assert!(!dep(wait(1, false, 2), g1), "another thread's groups");
    assert!(
        dep(wait(0, false, usize::MAX), g1),
        "a cp.async.mbarrier.arrive counts every pending copy"
    );
    assert!(!dep(wait(0, false, 2), wait(0, false, 2)), "two readers");
    assert!(dep(g1, g1), "two steps marking one group");
    assert!(!dep(g1, completes(group(0, false, 2), None)));
    assert!(
        !dep(wait(0, false, 2), issue(10, 0, 5, None)),
        "an issue adds to the open group, which no wait reads before its commit"
    );
    assert!(dep(ending, Point::MBarrier(0)) && !dep(ending, Point::MBarrier(1)));
    let any = step(Footprint {
        any_mbarrier: true,
        ..Footprint::default()
    });
    assert!(dep(any, Point::MBarrier(7)) && dep(any, ending));
    assert!(!dep(any, Point::Read(3)) && !dep(any, Point::Barrier(0)));
    assert!(!dep(issue(10, 0, 1, Some(0)), Point::Local));
    assert!(dep(issue(10, 0, 1, None), Point::Other));
}

#[test]
fn barriers() {
    use Point::*;
    assert!(!dep(Barrier(0), Barrier(0)), "syncthreads arrivals commute");
    assert!(dep(Barrier(0), named(0, 1, true)) && !dep(Barrier(1), named(0, 1, true)));
    assert!(
        dep(named(0, 1, true), named(0, 1, true)),
        "one id: the order forms instances"
    );
    assert!(
        !dep(named(0, 1, true), named(0, 2, true)),
        "counted, different ids"
    );
    assert!(
        dep(named(0, 1, false), named(0, 2, true)),
        "an arrival without a count"
    );
    assert!(
        !dep(named(0, 1, false), named(1, 1, false)),
        "another block"
    );
    assert!(!dep(Barrier(0), Read(0)) && !dep(named(0, 1, false), Write(0)));
}

#[test]
fn arrivals_of_one_named_barrier_instance() {
    let (a, sync) = (
        named(0, 1, true),
        Point::NamedBarrier {
            block: 0,
            id: 1,
            count: Some(2),
            wait: true,
        },
    );
    // Two arrivals of the executed trace: the same instance commutes, whichever completes it.
    assert!(
        !dep_in(a, joined(0, false), sync, joined(0, true)),
        "one instance"
    );
    assert!(
        !dep_in(a, joined(3, false), a, joined(3, false)),
        "one instance"
    );
    assert!(
        dep_in(a, joined(0, true), sync, joined(1, false)),
        "two instances"
    );
    assert!(
        dep_in(a, joined(0, false), a, joined(1, true)),
        "two instances"
    );
    // One waits at its point, one runs now: they commute unless the one that runs completes.
    assert!(
        !dep_in(sync, None, a, joined(4, false)),
        "the runner does not complete"
    );
    assert!(
        dep_in(sync, None, a, joined(4, true)),
        "the runner completes"
    );
    assert!(dep_in(a, None, a, None), "no place known");
    // What the places do not cover is [`dependent`]'s.
    let other_count = Point::NamedBarrier {
        block: 0,
        id: 1,
        count: Some(4),
        wait: true,
    };
    assert!(
        dep_in(a, joined(0, false), other_count, joined(0, false)),
        "another count"
    );
    assert!(
        !dep_in(a, joined(0, false), named(0, 2, true), joined(0, false)),
        "another id"
    );
    assert!(
        !dep_in(a, joined(0, false), named(1, 1, true), joined(0, false)),
        "another block"
    );
    assert!(
        dep_in(a, joined(0, false), named(0, 1, false), None),
        "no count"
    );
    assert!(
        dep_in(a, joined(0, false), Point::Barrier(0), None),
        "syncthreads"
    );
    assert!(!dep_in(a, joined(0, true), Point::Write(0), None), "memory");
}

#[test]
fn warps() {
    let all = warp(0, 0, 0b11, "syncwarp");
    assert!(
        !dep(all, all),
        "same warp, mask and operation: like syncthreads"
    );
    assert!(dep(all, warp(0, 0, 0b01, "syncwarp")), "another mask");
    assert!(dep(all, warp(0, 0, 0b11, "shfl")), "another operation");
    assert!(!dep(all, warp(0, 1, 0b01, "shfl")), "another warp");
    assert!(dep(all, named(0, 1, true)) && !dep(all, named(1, 1, false)));
    assert!(!dep(all, Point::Barrier(0)) && !dep(all, Point::Write(0)));
}

#[test]
fn fences_and_mbarriers() {
    use Point::*;
    assert!(dep(ScFence, ScFence) && !dep(ScFence, Write(0)));
    assert!(!dep(Local, Other) && dep(Other, Read(0)));
    assert!(dep(MBarrier(0), MBarrier(0)) && !dep(MBarrier(0), MBarrier(1)));
    assert!(
        !dep(MBarrierWait(0), MBarrierWait(0)),
        "two waits only read"
    );
    assert!(
        dep(MBarrierWait(0), MBarrier(0)),
        "an arrival may complete the phase a wait tests"
    );
    assert!(!dep(MBarrierWait(0), MBarrier(1)) && !dep(MBarrierWait(0), Write(0)));
    let complete_tx = Point::Async(Footprint {
        mbarriers: [Some(0), None, None, None],
        ..Footprint::default()
    });
    let any = Point::Async(Footprint {
        any_mbarrier: true,
        ..Footprint::default()
    });
    assert!(dep(MBarrierWait(0), complete_tx) && dep(MBarrierWait(3), any));
    assert!(!dep(MBarrierWait(1), complete_tx));
    assert!(!dep(MBarrierWait(0), Local) && dep(MBarrierWait(0), Other));
}
