//! Tests of `litmus::opencl`.

use scopecheck_model::litmus::opencl::*;
use scopecheck_model::scope::Order;

fn op() -> OpenClOp {
    OpenClOp::new(Order::Weak)
}

#[test]
fn an_operation_is_in_the_base_sets_its_qualifiers_name() {
    let tags = |op: OpenClOp| -> Vec<String> { op.lower().tags.into_iter().collect() };
    assert!(tags(op()).is_empty());
    assert_eq!(
        tags(OpenClOp {
            global: true,
            ..op()
        }),
        ["GLOBAL"]
    );
    assert_eq!(
        tags(OpenClOp {
            local: true,
            ..op()
        }),
        ["LOCAL"]
    );
    assert_eq!(
        tags(OpenClOp {
            nonatomic_location: true,
            ..op()
        }),
        ["NAL"]
    );
    for (scope, tag) in OpenClScope::ALL.into_iter().zip(["WI", "WG", "DV", "ALL"]) {
        let atomic = OpenClOp {
            atomic: true,
            scope: Some(scope),
            ..op()
        };
        // Tags are a set, listed in name order.
        let mut want = vec!["ATOM", tag];
        want.sort();
        assert_eq!(tags(atomic), want);
    }
}

#[test]
fn a_compare_exchange_keeps_both_orders() {
    let cas = OpenClOp {
        atomic: true,
        order: Order::AcqRel,
        fail_order: Some(Order::Acquire),
        ..op()
    };
    let q = cas.lower();
    assert_eq!(
        (q.order, q.fail_order),
        (Order::AcqRel, Some(Order::Acquire))
    );
    assert_eq!(q.group, None);
}

#[test]
fn placements_become_groups_of_work_groups_within_devices() {
    let g = groups(&[(0, 0), (1, 0), (0, 1)]);
    assert_eq!(g.levels, LEVELS);
    assert_eq!(g.placement(1), "wg 1, dev 0");
    // Work-group 0 of device 1 is not work-group 0 of device 0.
    assert_ne!(g.instance(0, 0), g.instance(2, 0));
    assert_eq!(g.instance(0, 1), g.instance(1, 1));
}
