//! Tests of `litmus::vulkan`.

use scopecheck_model::litmus::ir::Instr;
use scopecheck_model::litmus::ir::{Access, BarrierOp, Fence, Proxy, Reg};
use scopecheck_model::litmus::vulkan::*;
use scopecheck_model::scope::{Order, Scope};

/// The IR instruction an operation of `kind` is (what the parser makes of it).
fn instr(kind: VulkanKind) -> Instr {
    match kind {
        VulkanKind::Access => Instr::Load {
            access: Access {
                proxy: Proxy::Generic,
                order: Order::Weak,
                scope: None,
            },
            dst: Reg("r0".into()),
            loc: 0,
        },
        VulkanKind::ControlBarrier => Instr::Barrier {
            op: BarrierOp::Sync,
            id: Vec::new(),
            quorum: None,
        },
        _ => Instr::Fence(Fence::AcqRel(Scope::Gpu)),
    }
}

#[test]
fn every_operation_reads_back_from_its_qualifiers() {
    let kinds = [
        VulkanKind::Access,
        VulkanKind::MemoryBarrier,
        VulkanKind::ControlBarrier,
        VulkanKind::AvDevice,
        VulkanKind::VisDevice,
    ];
    let orders = [
        Order::Weak,
        Order::Relaxed,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
    ];
    let scopes: Vec<Option<VulkanScope>> = std::iter::once(None)
        .chain(VulkanScope::ALL.map(Some))
        .collect();
    let classes: Vec<Option<u8>> = std::iter::once(None)
        .chain((0..STORAGE_CLASSES).map(Some))
        .collect();
    let mut ops = Vec::new();
    for kind in kinds {
        for order in orders {
            for &scope in &scopes {
                for &storage_class in &classes {
                    // The low four bits are the semantics' storage classes, the others
                    // one flag each.
                    ops.extend((0..512u16).map(|bits| VulkanOp {
                        kind,
                        order,
                        scope,
                        storage_class,
                        semantics: (bits & 0xf) as u8,
                        sem_av: bits & 0x10 != 0,
                        sem_vis: bits & 0x20 != 0,
                        av: bits & 0x40 != 0,
                        vis: bits & 0x80 != 0,
                        nonpriv: bits & 0x100 != 0,
                    }));
                }
            }
        }
    }
    let mut checked = 0;
    for op in ops {
        let q = op.lower();
        assert_eq!(VulkanOp::of(&instr(op.kind), &q), op, "{q:?}");
        assert_eq!(q.order, op.order);
        assert_eq!(q.has("ATOM"), op.is_atomic());
        checked += 1;
    }
    assert_eq!(checked, 5 * 5 * 5 * 5 * 512);
}

#[test]
fn an_operation_is_in_the_base_sets_its_qualifiers_name() {
    let mut op = VulkanOp::new(VulkanKind::Access);
    op.order = Order::Release;
    op.scope = Some(VulkanScope::QueueFamily);
    op.storage_class = Some(1);
    op.semantics = 0b1010;
    op.sem_av = true;
    op.av = true;
    op.nonpriv = true;
    let tags: Vec<String> = op.lower().tags.into_iter().collect();
    assert_eq!(
        tags,
        ["ATOM", "AV", "NONPRIV", "QF", "SC1", "SEMAV", "SEMSC1", "SEMSC3"]
    );
    assert_eq!(op.lower().group, None);
}

#[test]
fn a_control_barrier_meets_its_execution_scope_at_most_the_workgroup() {
    let group = |scope| {
        let mut op = VulkanOp::new(VulkanKind::ControlBarrier);
        op.scope = scope;
        op.lower().group
    };
    let (sg, wg) = (Some(0), Some(1));
    assert_eq!(VulkanPlacement::LEVELS[0], "sg");
    assert_eq!(VulkanPlacement::LEVELS[1], "wg");
    assert_eq!(group(Some(VulkanScope::Subgroup)), sg);
    assert_eq!(group(Some(VulkanScope::Workgroup)), wg);
    assert_eq!(group(Some(VulkanScope::QueueFamily)), wg);
    assert_eq!(group(Some(VulkanScope::Device)), wg);
    assert_eq!(group(None), wg);
}

#[test]
fn placements_become_groups_narrowest_first() {
    let at = |subgroup, workgroup, queue_family| VulkanPlacement {
        subgroup,
        workgroup,
        queue_family,
    };
    let g = VulkanPlacement::groups(&[at(1, 2, 3), at(0, 0, 0)]);
    assert_eq!(g.levels, ["sg", "wg", "qf"]);
    assert_eq!(g.ids, [[1, 2, 3], [0, 0, 0]]);
    assert_eq!(g.placement(0), at(1, 2, 3).to_string());
    for s in VulkanScope::ALL {
        match s.level() {
            Some(l) => assert_eq!(VulkanPlacement::LEVELS[l], s.name()),
            None => assert_eq!(s, VulkanScope::Device),
        }
    }
}
