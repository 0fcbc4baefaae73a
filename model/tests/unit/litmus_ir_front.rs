//! Tests of `litmus::ir::front`.

use scopecheck_model::litmus::ir::front::*;
use scopecheck_model::scope::Order;

/// Three threads: 0 and 1 in subgroups 0 and 1 of workgroup 0, 2 in subgroup 0 of
/// workgroup 1, all in queue family 0.
fn groups() -> Groups {
    Groups {
        levels: vec!["sg".into(), "wg".into(), "qf".into()],
        ids: vec![vec![0, 0, 0], vec![1, 0, 0], vec![0, 1, 0]],
    }
}

#[test]
fn an_instance_is_named_by_the_ids_from_its_level_on() {
    let g = groups();
    assert_eq!(g.level("wg"), Some(1));
    assert_eq!(g.level("dev"), None);
    // Widest first, narrower levels left out as u32::MAX.
    assert_eq!(g.instance(1, 0), [0, 0, 1]);
    assert_eq!(g.instance(1, 1), [0, 0, u32::MAX]);
    assert_eq!(g.instance(1, 2), [0, u32::MAX, u32::MAX]);
    // Subgroup 0 of workgroup 1 is not subgroup 0 of workgroup 0.
    assert_ne!(g.instance(0, 0), g.instance(2, 0));
    assert_eq!(g.instance(0, 1), g.instance(1, 1));
    assert_ne!(g.instance(0, 1), g.instance(2, 1));
    assert_eq!(g.instance(0, 2), g.instance(2, 2));
    assert_eq!(g.placement(2), "sg 0, wg 1, qf 0");
}

#[test]
fn a_failed_compare_exchange_reads_with_its_failure_order() {
    let mut q = Qualifiers::new(Order::AcqRel);
    assert_eq!(q.event_order(true), Order::AcqRel);
    q.fail_order = Some(Order::Relaxed);
    assert_eq!(q.event_order(false), Order::AcqRel);
    assert_eq!(q.event_order(true), Order::Relaxed);
    q.tag("NAL");
    assert!(q.has("NAL") && !q.has("AV"));
}

#[test]
fn sources_compare_by_type_and_value() {
    let a = Source::new(vec![1u32, 2]);
    assert_eq!(a, Source::new(vec![1u32, 2]));
    assert_ne!(a, Source::new(vec![1u32, 3]));
    // Another type is another source, whatever its JSON.
    assert_ne!(a, Source::new(vec![1u64, 2]));
    assert_eq!(a.get::<Vec<u32>>(), Some(&vec![1, 2]));
    assert_eq!(a.get::<Vec<u64>>(), None);
    assert_eq!(serde_json::to_string(&a).unwrap(), "[1,2]");
}
