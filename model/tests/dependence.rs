//! Every case of the dependence relation the DFS's partial-order reduction rests on
//! ([`dependent`]), one assertion per sentence of its argument, both ways round.

use scopecheck_model::engine::{dependent, Footprint, Point};

fn dep(a: Point, b: Point) -> bool {
    let (x, y) = (dependent(a, b), dependent(b, a));
    assert_eq!(x, y, "dependence is symmetric: {a:?} / {b:?}");
    x
}

fn step(f: Footprint) -> Point {
    Point::Async(f)
}

fn issue(agent: usize, issuer: usize, mbarrier: Option<usize>) -> Point {
    step(Footprint {
        queues: [Some(agent), Some(issuer)],
        mbarriers: [mbarrier, None, None, None],
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

fn named(block: usize, id: i64, counted: bool) -> Point {
    Point::NamedBarrier { block, id, counted }
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
        queues: [Some(10), None],
        mbarriers: [Some(0), None, None, None],
        ..Footprint::default()
    });
    assert!(
        dep(issue(10, 0, Some(0)), ending),
        "an issue meets the step that ends a copy"
    );
    assert!(
        !dep(issue(10, 0, None), element(5, 6)),
        "an element leaves the queue alone"
    );
    assert!(
        !dep(issue(11, 1, Some(1)), ending),
        "another CTA's agent and mbarrier"
    );
    let wait = step(Footprint {
        queues: [Some(0), None],
        ..Footprint::default()
    });
    let completes = step(Footprint {
        queues: [Some(10), Some(0)],
        ..Footprint::default()
    });
    assert!(
        dep(wait, completes),
        "a wait_group reads the groups a completion marks"
    );
    assert!(
        dep(wait, issue(10, 0, None)),
        "an issue adds to its issuer's groups"
    );
    assert!(!dep(wait, issue(11, 1, None)));
    assert!(dep(ending, Point::MBarrier(0)) && !dep(ending, Point::MBarrier(1)));
    let any = step(Footprint {
        queues: [Some(10), Some(0)],
        any_mbarrier: true,
        ..Footprint::default()
    });
    assert!(dep(any, Point::MBarrier(7)) && dep(any, ending));
    assert!(!dep(any, Point::Read(3)) && !dep(any, Point::Barrier(0)));
    assert!(!dep(issue(10, 0, Some(0)), Point::Local));
    assert!(dep(issue(10, 0, None), Point::Other));
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
}
