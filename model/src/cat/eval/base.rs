//! The base sets and relations of the events: what the cat models name without defining (`R`,
//! `W`, `F`, `po`, `loc`, the scope and proxy relations, and the sets and relations a front
//! end's qualifiers, groups and thread relations name).

use super::val::Val;
use crate::axiomatic::events::Kind;
use crate::axiomatic::execution::Events;
use crate::axiomatic::rel::{bit, Rel, Set};
use crate::cat::compile::Base;
use crate::litmus::{Fence, Proxy};
use crate::scope::{Order, Scope};

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
    // The order of a qualified event is its qualifiers' (a Vulkan barrier's semantics, an
    // OpenCL compare-exchange's failure order): the events of that order, and every qualified
    // event.
    let qualified_order = |o: Order| {
        let with = |f: &dyn Fn(Order) -> bool| {
            (0..n)
                .filter(|&i| ev.qualified_order[i].is_some_and(f))
                .fold(Set::EMPTY, |s, i| s | bit(i))
        };
        (with(&|q| q == o), with(&|_| true))
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
            let (qualified, any) = qualified_order(o);
            match tagged(&order(o)) {
                Val::Set(s) => Val::Set((s & !any) | qualified),
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
        // A name no event's qualifiers carry, no level of the groups and no declared
        // relation holds nothing.
        Base::Tag(name) => Val::Set(ev.tagged.get(name).copied().unwrap_or(Set::EMPTY)),
        Base::Sdv => Val::Rel(ev.sdv.clone()),
        Base::Group(level) => Val::Rel(
            ev.same_group
                .get(level)
                .cloned()
                .unwrap_or_else(|| Rel::empty(n)),
        ),
        Base::ThreadRelation(name) => Val::Rel(
            ev.thread_relations
                .get(name)
                .cloned()
                .unwrap_or_else(|| Rel::empty(n)),
        ),
    }
}
