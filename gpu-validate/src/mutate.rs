//! Mutants in the style of MC Mutants (Levine et al., ASPLOS 2023): each weakens exactly one
//! ordering or scope of a test whose weak outcome the model forbids. A mutant the model then
//! allows is *live*; the GPU *kills* it by showing the now-allowed weak outcome. The share of live
//! mutants killed within a fixed budget measures how well the harness provokes weak behaviour.

use scopecheck_model::litmus::{Access, AsyncOp, Fence, Instr, Operand, Program, ProxyFence, Stmt};
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
    /// An `mbarrier.try_wait.parity` waiting for the other parity: the pipeline phase bug of a
    /// reused stage (a wait that returns at once for a phase completed long ago).
    StaleParity,
    /// An asynchronous-completion wait that waits for less: `cp.async.bulk.wait_group n` or
    /// `cp.async.wait_group n` as `n + 1` (the `wait_group 1` for `0` of a double buffer), or a
    /// bulk wait that gains `.read` (it then waits only for the copies' source reads).
    LooserAsyncWait,
}

impl Operator {
    /// Every operator, in table order.
    pub const ALL: [Operator; 7] = [
        Operator::NarrowScope,
        Operator::DropFence,
        Operator::RelaxReleaseAcquire,
        Operator::ScToAcqRel,
        Operator::RelaxedToWeak,
        Operator::StaleParity,
        Operator::LooserAsyncWait,
    ];

    /// Short name for tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Operator::NarrowScope => "narrow-scope",
            Operator::DropFence => "drop-fence",
            Operator::RelaxReleaseAcquire => "relax-release-acquire",
            Operator::ScToAcqRel => "fence-sc-to-acq_rel",
            Operator::RelaxedToWeak => "relaxed-to-weak",
            Operator::StaleParity => "stale-parity",
            Operator::LooserAsyncWait => "looser-async-wait",
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
///
/// The asynchronous ones (issue 32: the async surface) weaken what the PTX ISA makes the
/// synchronisation of a Hopper pipeline: a dropped `fence.proxy.async*` ("Accessing the same
/// memory location across multiple proxies needs a cross-proxy fence") or
/// `fence.mbarrier_init`; an mbarrier arrive or wait, or a cluster arrive, that is `.relaxed`
/// instead of `.release`/`.acquire`, or `.cta` instead of `.cluster` (the CUTLASS bug of a
/// cross-CTA arrive/wait at CTA scope); a wait for the wrong parity; and a bulk or `cp.async`
/// wait that leaves one more group pending, or waits only for the reads.
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
        Instr::Fence(Fence::Proxy(kind)) if is_async_proxy(*kind) => {
            out.push((
                Operator::DropFence,
                format!("fence.proxy.{} removed", kind.name()),
                None,
            ));
        }
        Instr::Async(op) => async_weakenings(op, &mut out),
        Instr::CpAsyncWait { n, all } => out.push((
            Operator::LooserAsyncWait,
            format!(
                "{}->cp.async.wait_group {}",
                if *all {
                    "cp.async.wait_all".to_string()
                } else {
                    format!("cp.async.wait_group {n}")
                },
                n + 1
            ),
            Some(Instr::CpAsyncWait {
                n: n + 1,
                all: false,
            }),
        )),
        _ => {}
    }
    out
}

/// The proxy fences that order the generic proxy with the async proxy.
fn is_async_proxy(kind: ProxyFence) -> bool {
    matches!(
        kind,
        ProxyFence::Async
            | ProxyFence::AsyncGlobal
            | ProxyFence::AsyncSharedCta
            | ProxyFence::AsyncSharedCluster
    )
}

/// The one-step weakenings of an mbarrier, bulk-copy or cluster-barrier instruction.
fn async_weakenings(op: &AsyncOp, out: &mut Vec<(Operator, String, Option<Instr>)>) {
    let with = |op: AsyncOp| Some(Instr::Async(op));
    match op {
        AsyncOp::MbarrierArrive { order, scope, .. }
        | AsyncOp::MbarrierTryWait { order, scope, .. } => {
            // An arrive releases and a wait acquires by default (PTX ISA, mbarrier).
            let (name, strong) = match op {
                AsyncOp::MbarrierArrive { .. } => ("mbarrier.arrive", Order::Release),
                _ => ("mbarrier.try_wait", Order::Acquire),
            };
            if *order == strong {
                out.push((
                    Operator::RelaxReleaseAcquire,
                    format!("{name}.{strong}->relaxed"),
                    with(with_order_scope(op, Order::Relaxed, *scope)),
                ));
            }
            if *scope == Scope::Cluster {
                out.push((
                    Operator::NarrowScope,
                    format!("{name}.cluster->cta"),
                    with(with_order_scope(op, *order, Scope::Cta)),
                ));
            }
            if let AsyncOp::MbarrierTryWait {
                parity: Operand::Imm(p @ (0 | 1)),
                ..
            } = op
            {
                let mut m = op.clone();
                if let AsyncOp::MbarrierTryWait { parity, .. } = &mut m {
                    *parity = Operand::Imm(1 - *p);
                }
                out.push((
                    Operator::StaleParity,
                    format!("try_wait.parity {p}->{}", 1 - *p),
                    with(m),
                ));
            }
        }
        AsyncOp::BulkWaitGroup { pending, read } => {
            out.push((
                Operator::LooserAsyncWait,
                format!("bulk wait_group {pending}->{}", pending + 1),
                with(AsyncOp::BulkWaitGroup {
                    pending: pending + 1,
                    read: *read,
                }),
            ));
            if !*read {
                out.push((
                    Operator::LooserAsyncWait,
                    format!("bulk wait_group {pending}->wait_group.read {pending}"),
                    with(AsyncOp::BulkWaitGroup {
                        pending: *pending,
                        read: true,
                    }),
                ));
            }
        }
        AsyncOp::FenceMbarrierInit => out.push((
            Operator::DropFence,
            "fence.mbarrier_init removed".into(),
            None,
        )),
        AsyncOp::ClusterArrive {
            order: Order::Release,
        } => out.push((
            Operator::RelaxReleaseAcquire,
            "barrier.cluster.arrive.release->relaxed".into(),
            with(AsyncOp::ClusterArrive {
                order: Order::Relaxed,
            }),
        )),
        _ => {}
    }
}

/// An mbarrier arrive or wait with this order and scope (any other instruction unchanged).
fn with_order_scope(op: &AsyncOp, order: Order, scope: Scope) -> AsyncOp {
    let mut m = op.clone();
    if let AsyncOp::MbarrierArrive {
        order: o, scope: s, ..
    }
    | AsyncOp::MbarrierTryWait {
        order: o, scope: s, ..
    } = &mut m
    {
        (*o, *s) = (order, scope);
    }
    m
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
