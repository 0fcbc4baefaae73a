//! Synchronization instructions: fences, CTA and cluster barriers, warp-synchronous
//! operations (the asynchronous ones are in [`super::asynchronous`]).

use super::{only, ty_of, Names, Op, RedOp, ShflMode, VoteMode};
use crate::ptx::ast::Operand;
use crate::scope::{Order, Scope};

/// Decode a synchronization instruction.
pub fn decode(opcode: &str, m: &[&str], ops: &[Operand], names: &mut Names) -> Result<Op, String> {
    match opcode {
        "membar" => {
            // PTX ISA, *membar/fence*: "membar.{cta,gl,sys} … have the same semantics as
            // fence.sc.{cta,gpu,sys}".
            let scope = match m {
                ["cta"] => Scope::Cta,
                ["gl"] => Scope::Gpu,
                ["sys"] => Scope::Sys,
                // "membar.proxy" is the older spelling of "fence.proxy".
                ["proxy", ..] => return fence(m, ops),
                _ => return Err("membar: expected .cta, .gl or .sys".into()),
            };
            Ok(Op::Fence {
                order: Order::Sc,
                scope,
            })
        }
        "fence" => fence(m, ops),
        "bar" | "barrier" => bar(m, ops, names),
        "shfl" => {
            let mode = match m {
                ["sync", mode, "b32"] => match *mode {
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    "idx" => ShflMode::Idx,
                    _ => return Err("shfl.sync: unknown mode".into()),
                },
                _ => return Err("expected `shfl.sync.{up,down,bfly,idx}.b32`".into()),
            };
            let [d, a, b, c, mask] = ops else {
                return Err("shfl.sync takes 5 operands".into());
            };
            let (d, p) = pair(d, names)?;
            Ok(Op::Shfl {
                mode,
                d,
                p,
                a: [
                    names.src(a)?,
                    names.src(b)?,
                    names.src(c)?,
                    names.src(mask)?,
                ],
            })
        }
        "vote" => {
            let mode = match m {
                ["sync", "all", "pred"] => VoteMode::All,
                ["sync", "any", "pred"] => VoteMode::Any,
                ["sync", "uni", "pred"] => VoteMode::Uni,
                ["sync", "ballot", "b32"] => VoteMode::Ballot,
                _ => return Err("expected `vote.sync.{all,any,uni}.pred` or `.ballot.b32`".into()),
            };
            let [d, a, mask] = ops else {
                return Err("vote.sync takes 3 operands".into());
            };
            Ok(Op::Vote {
                mode,
                d: names.dst(d)?,
                a: [names.src(a)?, names.src(mask)?],
            })
        }
        "match" => {
            let all = match m {
                ["any", "sync", _] => false,
                ["all", "sync", _] => true,
                _ => return Err("expected `match.{any,all}.sync.type`".into()),
            };
            let ty = ty_of(m)?;
            let [d, a, mask] = ops else {
                return Err("match.sync takes 3 operands".into());
            };
            let (d, p) = pair(d, names)?;
            if p.is_some() && !all {
                return Err("match.any has no predicate destination".into());
            }
            Ok(Op::Match {
                all,
                ty,
                d,
                p,
                a: [names.src(a)?, names.src(mask)?],
            })
        }
        "activemask" => {
            only(m, &["b32"])?;
            let [d] = ops else {
                return Err("activemask takes 1 operand".into());
            };
            Ok(Op::Activemask { d: names.dst(d)? })
        }
        "redux" => {
            let op = match m.get(1).copied() {
                Some("add") => RedOp::Add,
                Some("min") => RedOp::Min,
                Some("max") => RedOp::Max,
                Some("and") => RedOp::And,
                Some("or") => RedOp::Or,
                Some("xor") => RedOp::Xor,
                _ => return Err("expected `redux.sync.op.type`".into()),
            };
            let ty = ty_of(m)?;
            if m.first() != Some(&"sync") || m.len() != 3 || ty.float() {
                return Err("expected `redux.sync.op.{b32,u32,s32}`".into());
            }
            let [d, a, mask] = ops else {
                return Err("redux.sync takes 3 operands".into());
            };
            Ok(Op::Redux {
                op,
                ty,
                d: names.dst(d)?,
                a: [names.src(a)?, names.src(mask)?],
            })
        }
        "elect" => {
            only(m, &["sync"])?;
            let [dp, mask] = ops else {
                return Err("elect.sync takes 2 operands".into());
            };
            let (d, p) = pair(dp, names)?;
            Ok(Op::Elect {
                d,
                p: p.ok_or("elect.sync needs `d|p`")?,
                mask: names.src(mask)?,
            })
        }
        // "nanosleep suspends the thread for a sleep duration approximately close to the delay
        // t": no effect on memory, and every schedule already lets the thread run later.
        "nanosleep" => Ok(Op::Nop),
        _ => Err("unknown instruction".into()),
    }
}

/// `d|p` or `d`.
fn pair(o: &Operand, names: &mut Names) -> Result<(super::Dst, Option<super::Dst>), String> {
    match o {
        Operand::Pair(d, p) => Ok((names.dst(d)?, Some(names.dst(p)?))),
        d => Ok((names.dst(d)?, None)),
    }
}

/// `fence{.sem}.scope` (`.sem` is `.sc` or `.acq_rel`, the default `.acq_rel`),
/// `fence.proxy.*`, `fence.mbarrier_init.release.cluster`. "fence.acq_rel is a light-weight
/// fence … fence.sc is a slower fence that can restore sequential consistency".
fn fence(m: &[&str], ops: &[Operand]) -> Result<Op, String> {
    if let Some(op) = super::asynchronous::fence(m) {
        return op.map(Op::Async);
    }
    match m {
        // The async proxy's fences are decoded above. No other operation of an interpreted
        // kernel is in another proxy than the generic one (texture, surface and constant-cache
        // aliasing are refused), so the other proxy fences order nothing the model tracks; the
        // tensor-map proxy fence: see `tensor::fence_tensormap`.
        ["proxy", "alias"] => Ok(Op::Nop),
        ["proxy", "tensormap::generic", rest @ ..] => {
            super::tensor::fence_tensormap(rest, ops).map(|()| Op::Nop)
        }
        ["proxy", ..] => Err(format!("unknown proxy fence `.{}`", m[1..].join("."))),
        [sem, scope]
        | [sem, scope, "sync_restrict::shared::cta" | "sync_restrict::shared::cluster"]
            if matches!(*sem, "sc" | "acq_rel") =>
        {
            Ok(Op::Fence {
                order: if *sem == "sc" {
                    Order::Sc
                } else {
                    Order::AcqRel
                },
                scope: scope_of(scope)?,
            })
        }
        [scope] => Ok(Op::Fence {
            order: Order::AcqRel,
            scope: scope_of(scope)?,
        }),
        _ => Err("expected `fence{.sc,.acq_rel}.{cta,cluster,gpu,sys}`".into()),
    }
}

fn scope_of(m: &str) -> Result<Scope, String> {
    Ok(match m {
        "cta" => Scope::Cta,
        "cluster" => Scope::Cluster,
        "gpu" => Scope::Gpu,
        "sys" => Scope::Sys,
        _ => return Err(format!("unknown scope `.{m}`")),
    })
}

/// `bar{.cta}.sync a{, b}`, `bar{.cta}.arrive a, b`, `barrier{.cta}.sync{.aligned} a{, b}`,
/// `barrier{.cta}.arrive{.aligned} a, b`, `bar{.cta}.red.op.pred p, a{, b}, {!}c`, and
/// `bar.warp.sync membermask`, `barrier.cluster.arrive{.release,.relaxed}{.aligned}`,
/// `barrier.cluster.wait{.acquire}{.aligned}`. "bar{.cta}.sync is equivalent to barrier{.cta}.sync.aligned";
/// the model treats aligned and non-aligned forms alike (every thread of the count must arrive
/// at the same barrier id; reaching a different instruction is reported as divergence for
/// `syncthreads`-shaped uses by the runtime).
fn bar(m: &[&str], ops: &[Operand], names: &mut Names) -> Result<Op, String> {
    let m: Vec<&str> = m
        .iter()
        .copied()
        .filter(|x| !matches!(*x, "cta" | "aligned"))
        .collect();
    match m.as_slice() {
        // PTX ISA, *barrier.cluster*: "The optional .relaxed qualifier on barrier.cluster.arrive
        // specifies that there are no memory ordering and visibility guarantees provided for the
        // memory accesses performed prior to barrier.cluster.arrive"; otherwise it has release
        // semantics, and barrier.cluster.wait acquire semantics by default.
        ["cluster", "arrive"] | ["cluster", "arrive", "release"] if ops.is_empty() => {
            Ok(Op::ClusterArrive { release: true })
        }
        ["cluster", "arrive", "relaxed"] if ops.is_empty() => {
            Ok(Op::ClusterArrive { release: false })
        }
        ["cluster", "wait"] | ["cluster", "wait", "acquire"] if ops.is_empty() => {
            Ok(Op::ClusterWait)
        }
        ["warp", "sync"] => {
            let [mask] = ops else {
                return Err("bar.warp.sync takes 1 operand".into());
            };
            Ok(Op::WarpSync {
                mask: names.src(mask)?,
            })
        }
        [kind @ ("sync" | "arrive")] => {
            let wait = *kind == "sync";
            let (id, count) = match ops {
                [a] if wait => (names.src(a)?, None),
                [a, b] => (names.src(a)?, Some(names.src(b)?)),
                _ => return Err(format!("bar.{kind}: expected `a{{, b}}`")),
            };
            Ok(Op::Bar {
                id,
                count,
                wait,
                red: None,
            })
        }
        ["red", op, "pred"] | ["red", op, "u32"] => {
            let red = match (*op, m[2]) {
                ("popc", "u32") => RedOp::Popc,
                ("and", "pred") => RedOp::And,
                ("or", "pred") => RedOp::Or,
                _ => return Err("expected bar.red.popc.u32 or bar.red.{and,or}.pred".into()),
            };
            let (d, id, count, c) = match ops {
                [d, a, c] => (d, a, None, c),
                [d, a, b, c] => (d, a, Some(b), c),
                _ => return Err("bar.red takes 3 or 4 operands".into()),
            };
            Ok(Op::Bar {
                id: names.src(id)?,
                count: count.map(|b| names.src(b)).transpose()?,
                wait: true,
                red: Some((red, names.dst(d)?, names.src(c)?)),
            })
        }
        _ => Err("unknown barrier form".into()),
    }
}
