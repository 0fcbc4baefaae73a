//! Mutants in the style of MC Mutants (Levine et al., ASPLOS 2023): each weakens exactly one
//! ordering or scope of a test whose weak outcome the model forbids. A mutant the model then
//! allows is *live*; the GPU *kills* it by showing the now-allowed weak outcome. The share of live
//! mutants killed within a fixed budget measures how well the harness provokes weak behaviour.

use scopecheck_model::litmus::{Access, Fence, Instr, Program, Stmt};
use scopecheck_model::scope::{Order, Scope};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind of weakening, after the bug patterns it stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Operator {
    /// A scope one step narrower (`.sys`→`.gpu`, `.gpu`→`.cta`) on an access or a fence: the
    /// scoped-synchronisation bug of code that assumes its partner shares its CTA.
    NarrowScope,
    /// A fence removed (`fence.sc` or `fence.acq_rel`): the forgotten `__threadfence()`.
    DropFence,
    /// A release or acquire (or one side of an acq_rel RMW) relaxed: the missing
    /// `memory_order_release`/`acquire`.
    RelaxReleaseAcquire,
    /// `fence.sc` replaced by `fence.acq_rel`: a fence too weak for store buffering.
    ScToAcqRel,
    /// A relaxed (morally strong) access made weak: the plain access where an atomic was meant.
    RelaxedToWeak,
}

impl Operator {
    /// Every operator, in table order.
    pub const ALL: [Operator; 5] = [
        Operator::NarrowScope,
        Operator::DropFence,
        Operator::RelaxReleaseAcquire,
        Operator::ScToAcqRel,
        Operator::RelaxedToWeak,
    ];

    /// Short name for tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Operator::NarrowScope => "narrow-scope",
            Operator::DropFence => "drop-fence",
            Operator::RelaxReleaseAcquire => "relax-release-acquire",
            Operator::ScToAcqRel => "fence-sc-to-acq_rel",
            Operator::RelaxedToWeak => "relaxed-to-weak",
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which side of the communication the mutated instruction sits on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Side {
    /// A store or `red`, or a fence in a thread that only writes.
    Write,
    /// A load, or a fence in a thread that only reads.
    Read,
    /// An RMW with a result, or a fence in a thread that reads and writes.
    Both,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Write => "write",
            Side::Read => "read",
            Side::Both => "both",
        }
    }
}

/// A program with one ordering or scope weakened, and what was changed.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub what: String,
    pub operator: Operator,
    pub side: Side,
    pub program: Program,
}

fn side_of(thread_body: &[Stmt], i: &Instr) -> Side {
    match i {
        Instr::Store { .. } | Instr::Red { .. } => Side::Write,
        Instr::Load { .. } => Side::Read,
        Instr::Atom { .. } => Side::Both,
        _ => {
            let writes = thread_body.iter().any(|s| {
                matches!(
                    s.instr,
                    Instr::Store { .. } | Instr::Red { .. } | Instr::Atom { .. }
                )
            });
            let reads = thread_body
                .iter()
                .any(|s| matches!(s.instr, Instr::Load { .. } | Instr::Atom { .. }));
            match (writes, reads) {
                (true, false) => Side::Write,
                (false, true) => Side::Read,
                _ => Side::Both,
            }
        }
    }
}

/// Every single-step weakening of `p`.
pub fn mutants(p: &Program) -> Vec<Mutant> {
    let mut out = Vec::new();
    for (tid, t) in p.threads.iter().enumerate() {
        for (i, s) in t.body.iter().enumerate() {
            for (operator, what, instr) in weakenings(&s.instr) {
                let mut m = p.clone();
                let at = format!("P{tid}#{i}");
                match instr {
                    Some(instr) => m.threads[tid].body[i] = Stmt { instr, ..s.clone() },
                    None => {
                        m.threads[tid].body.remove(i);
                    }
                }
                m.name = format!("{}~{at}:{what}", p.name);
                out.push(Mutant {
                    what: format!("{at} {what}"),
                    operator,
                    side: side_of(&t.body, &s.instr),
                    program: m,
                });
            }
        }
    }
    out
}

/// One-step weakenings of an instruction; `None` deletes it (fences only).
fn weakenings(i: &Instr) -> Vec<(Operator, String, Option<Instr>)> {
    let mut out = Vec::new();
    let with_access = |a: Access| -> Instr {
        let mut j = i.clone();
        match &mut j {
            Instr::Load { access, .. }
            | Instr::Store { access, .. }
            | Instr::Atom { access, .. }
            | Instr::Red { access, .. } => *access = a,
            _ => unreachable!("only memory accesses carry an access"),
        }
        j
    };
    match i {
        Instr::Load { access, .. }
        | Instr::Store { access, .. }
        | Instr::Atom { access, .. }
        | Instr::Red { access, .. } => {
            let is_rmw = matches!(i, Instr::Atom { .. } | Instr::Red { .. });
            for order in weaker_orders(access.order, is_rmw) {
                let scope = if order == Order::Weak {
                    None
                } else {
                    access.scope
                };
                let op = if order == Order::Weak {
                    Operator::RelaxedToWeak
                } else {
                    Operator::RelaxReleaseAcquire
                };
                out.push((
                    op,
                    format!("{}->{}", access.order, order),
                    Some(with_access(Access {
                        order,
                        scope,
                        ..*access
                    })),
                ));
            }
            if let Some(scope) = access.scope {
                for narrower in narrower_scopes(scope) {
                    out.push((
                        Operator::NarrowScope,
                        format!("{scope}->{narrower}"),
                        Some(with_access(Access {
                            scope: Some(narrower),
                            ..*access
                        })),
                    ));
                }
            }
        }
        Instr::Fence(Fence::Sc(s)) => {
            out.push((
                Operator::ScToAcqRel,
                format!("fence.sc.{s}->fence.acq_rel.{s}"),
                Some(Instr::Fence(Fence::AcqRel(*s))),
            ));
            out.push((Operator::DropFence, format!("fence.sc.{s} removed"), None));
            for n in narrower_scopes(*s) {
                out.push((
                    Operator::NarrowScope,
                    format!("fence.sc.{s}->fence.sc.{n}"),
                    Some(Instr::Fence(Fence::Sc(n))),
                ));
            }
        }
        Instr::Fence(Fence::AcqRel(s)) => {
            out.push((
                Operator::DropFence,
                format!("fence.acq_rel.{s} removed"),
                None,
            ));
            for n in narrower_scopes(*s) {
                out.push((
                    Operator::NarrowScope,
                    format!("fence.acq_rel.{s}->fence.acq_rel.{n}"),
                    Some(Instr::Fence(Fence::AcqRel(n))),
                ));
            }
        }
        _ => {}
    }
    out
}

/// One step down the order lattice. RMWs have no weak form.
fn weaker_orders(o: Order, is_rmw: bool) -> Vec<Order> {
    match o {
        Order::AcqRel => vec![Order::Acquire, Order::Release],
        Order::Acquire | Order::Release => vec![Order::Relaxed],
        Order::Relaxed if !is_rmw => vec![Order::Weak],
        _ => vec![],
    }
}

/// The next narrower scope (clusters skipped: the harness launches none).
fn narrower_scopes(s: Scope) -> Vec<Scope> {
    match s {
        Scope::Sys => vec![Scope::Gpu],
        Scope::Gpu => vec![Scope::Cta],
        Scope::Cluster => vec![Scope::Cta],
        Scope::Cta => vec![],
    }
}
