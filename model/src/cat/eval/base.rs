//! The base sets and relations of the events: what the cat models name without defining (`R`,
//! `W`, `F`, `po`, `loc`, the scope and proxy relations, the Vulkan and OpenCL tags).

use super::val::Val;
use crate::axiomatic::events::Kind;
use crate::axiomatic::execution::Events;
use crate::axiomatic::rel::{bit, Rel, Set};
use crate::cat::compile::Base;
use crate::litmus::opencl::{OpenClOp, OpenClScope};
use crate::litmus::vulkan::{VulkanKind, VulkanOp, VulkanScope};
use crate::litmus::{Fence, Proxy};
use crate::scope::{Order, Scope};

/// The test a Vulkan tag puts to an event's annotation (`None`: not a Vulkan tag).
fn vulkan_base(b: Base) -> Option<impl Fn(&VulkanOp) -> bool> {
    let test: fn(&VulkanOp, u8, Option<VulkanScope>) -> bool = match b {
        Base::Atom => |op, _, _| op.is_atomic(),
        Base::NonPriv => |op, _, _| op.nonpriv,
        Base::Av => |op, _, _| op.av,
        Base::Vis => |op, _, _| op.vis,
        Base::SemAv => |op, _, _| op.sem_av,
        Base::SemVis => |op, _, _| op.sem_vis,
        Base::AvDevice => |op, _, _| op.kind == VulkanKind::AvDevice,
        Base::VisDevice => |op, _, _| op.kind == VulkanKind::VisDevice,
        Base::Cbar => |op, _, _| op.kind == VulkanKind::ControlBarrier,
        Base::StorageClass(_) => |op, c, _| op.storage_class == Some(c),
        Base::Semantics(_) => |op, c, _| op.semantics & (1 << c) != 0,
        Base::VulkanScope(_) => |op, _, s| op.scope == s,
        _ => return None,
    };
    let (class, scope) = match b {
        Base::StorageClass(c) | Base::Semantics(c) => (c, None),
        Base::VulkanScope(s) => (0, Some(s)),
        _ => (0, None),
    };
    Some(move |op: &VulkanOp| test(op, class, scope))
}

/// The value of a base set or relation on these events.
pub(super) fn base(ev: &Events, b: Base) -> Val {
    let n = ev.n;
    let all = Set::below(n);
    let tagged = |f: &dyn Fn(&Kind) -> bool| -> Val {
        Val::Set(
            (0..n)
                .filter(|&i| f(&ev.info[i].kind))
                .fold(Set::EMPTY, |s, i| s | bit(i)),
        )
    };
    // A Vulkan event's annotation says what it is; `vk(f)` tags the events it holds for.
    let vk = |f: &dyn Fn(&VulkanOp) -> bool| -> Val {
        Val::Set(
            (0..n)
                .filter(|&i| ev.vulkan[i].as_ref().is_some_and(f))
                .fold(Set::EMPTY, |s, i| s | bit(i)),
        )
    };
    // An OpenCL event's annotation likewise.
    let cl = |f: &dyn Fn(&OpenClOp) -> bool| -> Set {
        (0..n)
            .filter(|&i| ev.opencl[i].as_ref().is_some_and(f))
            .fold(Set::EMPTY, |s, i| s | bit(i))
    };
    if let Some(tag) = vulkan_base(b) {
        let opencl = match b {
            Base::Atom => cl(&|op| op.atomic),
            Base::VulkanScope(VulkanScope::Workgroup) => {
                cl(&|op| op.scope == Some(OpenClScope::WorkGroup))
            }
            Base::VulkanScope(VulkanScope::Device) => {
                cl(&|op| op.scope == Some(OpenClScope::Device))
            }
            _ => Set::EMPTY,
        };
        return match vk(&tag) {
            Val::Set(s) => Val::Set(s | opencl),
            Val::Rel(_) => unreachable!("tags are sets"),
        };
    }
    // The order of an annotated (Vulkan or OpenCL) event is its annotation's.
    let vulkan_order = |o: Order| {
        let vk = (0..n)
            .filter(|&i| ev.vulkan[i].is_some_and(|op| op.order == o))
            .fold(Set::EMPTY, |s, i| s | bit(i))
            | cl(&|op| op.order == o);
        let any = (0..n)
            .filter(|&i| ev.vulkan[i].is_some())
            .fold(Set::EMPTY, |s, i| s | bit(i))
            | cl(&|_| true);
        (vk, any)
    };
    let order = |o: Order| {
        move |k: &Kind| match k {
            Kind::Read { access, .. } | Kind::Write { access, .. } => access.order == o,
            Kind::Fence(Fence::Sc(_)) => o == Order::Sc,
            Kind::Fence(Fence::AcqRel(_)) => o == Order::AcqRel,
            Kind::MbarrierInitFence => o == Order::Release,
            _ => false,
        }
    };
    let scope = |s: Scope| {
        move |k: &Kind| match k {
            Kind::Read { access, .. } | Kind::Write { access, .. } => access.scope == Some(s),
            Kind::Fence(Fence::Sc(f) | Fence::AcqRel(f)) => *f == s,
            Kind::MbarrierInitFence => s == Scope::Cluster,
            _ => false,
        }
    };
    match b {
        Base::All => Val::Set(all),
        Base::R => Val::Set(ev.r),
        Base::W => Val::Set(ev.w),
        Base::M => Val::Set(ev.m),
        Base::F => Val::Set(ev.f),
        Base::Iw => Val::Set(ev.init),
        Base::RmwEvents => Val::Set(ev.rmw.domain() | ev.rmw.range()),
        Base::Bar => Val::Set(ev.barriers),
        Base::Weak | Base::Rlx | Base::Acq | Base::Rel | Base::AcqRel | Base::Sc => {
            let o = match b {
                Base::Weak => Order::Weak,
                Base::Rlx => Order::Relaxed,
                Base::Acq => Order::Acquire,
                Base::Rel => Order::Release,
                Base::AcqRel => Order::AcqRel,
                _ => Order::Sc,
            };
            // A Vulkan barrier's order is that of its semantics.
            let (vulkan, annotated) = vulkan_order(o);
            match tagged(&order(o)) {
                Val::Set(s) => Val::Set((s & !annotated) | vulkan),
                Val::Rel(_) => unreachable!("tags are sets"),
            }
        }
        Base::Cta => tagged(&scope(Scope::Cta)),
        Base::Cluster => tagged(&scope(Scope::Cluster)),
        Base::Gpu => tagged(&scope(Scope::Gpu)),
        Base::Sys => tagged(&scope(Scope::Sys)),
        Base::Gen => Val::Set(ev.gen),
        Base::Sur => Val::Set(ev.sur),
        Base::Tex => Val::Set(ev.tex),
        Base::Con => Val::Set(ev.con),
        Base::Async => tagged(&|k| match k {
            Kind::Read { access, .. } | Kind::Write { access, .. } => access.proxy == Proxy::Async,
            Kind::Fence(Fence::Proxy(k)) => k.is_async(),
            _ => false,
        }),
        Base::Alias => Val::Set(ev.f_alias),
        Base::Id => Val::Rel(Rel::id(n, all)),
        Base::Po => Val::Rel(ev.po.clone()),
        Base::Int => Val::Rel(ev.int.clone()),
        Base::Ext => Val::Rel(&Rel::cross(n, all, all) - &ev.int),
        Base::Loc => Val::Rel(ev.loc.clone()),
        Base::Vloc => Val::Rel(ev.vloc.clone()),
        Base::PoLoc => Val::Rel(ev.po_loc.clone()),
        Base::Rmw => Val::Rel(ev.rmw.clone()),
        Base::Dep => Val::Rel(ev.dep.clone()),
        Base::Sr => Val::Rel(ev.sr.clone()),
        Base::Scta => Val::Rel(ev.scta.clone()),
        Base::TokenOrder => Val::Rel(ev.token_order.clone()),
        Base::Bulk => Val::Set(ev.bulk),
        Base::Exchange => Val::Set(ev.exchange),
        Base::Issue => Val::Rel(ev.issue.clone()),
        Base::Copy => Val::Rel(ev.copy.clone()),
        Base::FenceSpace => Val::Rel(ev.fence_space.clone()),
        Base::BulkWait => Val::Rel(ev.bulk_wait.clone()),
        Base::ClusterBarrier => Val::Rel(ev.cluster_barrier.clone()),
        Base::MbarInit => Val::Set(ev.mbar_init),
        Base::MbarInitFence => Val::Set(ev.mbar_init_fence),
        Base::WorkItem => Val::Set(cl(&|op| op.scope == Some(OpenClScope::WorkItem))),
        Base::AllSvm => Val::Set(cl(&|op| op.scope == Some(OpenClScope::AllSvmDevices))),
        Base::Global => Val::Set(cl(&|op| op.global)),
        Base::Local => Val::Set(cl(&|op| op.local)),
        Base::NonAtomicLoc => Val::Set(cl(&|op| op.nonatomic_location)),
        Base::Sdv => Val::Rel(ev.sdv.clone()),
        Base::Ssg => Val::Rel(ev.ssg.clone()),
        Base::Swg => Val::Rel(ev.swg.clone()),
        Base::Sqf => Val::Rel(ev.sqf.clone()),
        Base::Ssw => Val::Rel(ev.ssw.clone()),
        Base::Atom
        | Base::NonPriv
        | Base::Av
        | Base::Vis
        | Base::SemAv
        | Base::SemVis
        | Base::AvDevice
        | Base::VisDevice
        | Base::Cbar
        | Base::StorageClass(_)
        | Base::Semantics(_)
        | Base::VulkanScope(_) => unreachable!("tagged from the Vulkan annotation above"),
    }
}
