//! How reports word an execution's events: one line per operation, who, what, where.

use super::report::{scope_label, BarrierKey, Event, EventKind};
use super::setup::Setup;
use crate::scope::Order;

fn order_scope(order: Order, scope: Option<crate::scope::Scope>) -> String {
    match scope {
        Some(s) => format!("{}, {}", order.ptx_name(), scope_label(s)),
        None => "weak".to_string(),
    }
}

/// One line per operation: who, what, where.
pub fn describe_event(setup: &Setup, e: &Event) -> String {
    let who = &setup.threads[e.thread].name;
    let loc = |l: usize| &setup.locs[l];
    let what = match &e.what {
        EventKind::Load {
            loc: l,
            order,
            scope,
            value,
            store,
        } => {
            let op = if scope.is_some() {
                "atomic_load"
            } else {
                "load"
            };
            let from = if *store == 0 {
                " (initial value)".to_string()
            } else {
                String::new()
            };
            format!(
                "{op} {} -> {}{from} ({})",
                loc(*l).name,
                loc(*l).kind.format(*value),
                order_scope(*order, *scope)
            )
        }
        EventKind::Store {
            loc: l,
            order,
            scope,
            value,
        } => {
            let op = if scope.is_some() {
                "atomic_store"
            } else {
                "store"
            };
            format!(
                "{op} {} = {} ({})",
                loc(*l).name,
                loc(*l).kind.format(*value),
                order_scope(*order, *scope)
            )
        }
        EventKind::Rmw {
            loc: l,
            kind,
            order,
            scope,
            old,
            new,
        } => {
            let op = kind.name();
            let k = loc(*l).kind;
            let change = match new {
                Some(n) => format!("{} -> {}", k.format(*old), k.format(*n)),
                None => format!("{} (compare failed, no write)", k.format(*old)),
            };
            format!(
                "{op} {}: {change} ({})",
                loc(*l).name,
                order_scope(*order, Some(*scope))
            )
        }
        EventKind::Fence { order, scope } => {
            format!("fence({}, {})", order.ptx_name(), scope_label(*scope))
        }
        EventKind::Barrier {
            key: BarrierKey::Site(_),
            ..
        } => "syncthreads".to_string(),
        EventKind::Barrier {
            key: BarrierKey::Id(id),
            wait,
        } => {
            format!("bar.{} {id}", if *wait { "sync" } else { "arrive" })
        }
        EventKind::SpinWait => "spin_loop: waits for a newer store".to_string(),
        EventKind::Note(text) => text.clone(),
    };
    format!("{who}: {what} at {}", e.site)
}
