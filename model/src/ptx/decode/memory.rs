//! Memory instructions: `ld`, `ldu`, `st`, `atom`, `red`, `cvta`, `isspacep`, and the cache
//! hints `prefetch`, `prefetchu`, `discard`, `createpolicy`.

use super::{ty_of, AtomOp, Names, Op, Sem, Space};
use crate::ptx::ast::Operand;
use crate::ptx::value::Ty;
use crate::scope::{Order, Scope};

/// Cache and eviction hints (`.ca`, `.L1::evict_last`, `.L2::128B`, `.L2::cache_hint`, …) do
/// not change what an access reads or writes.
fn is_hint(m: &str) -> bool {
    matches!(m, "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt")
        || m.starts_with("L1::")
        || m.starts_with("L2::")
        || m == "level::cache_hint"
}

fn scope_of(m: &str) -> Option<Scope> {
    Some(match m {
        "cta" => Scope::Cta,
        "cluster" => Scope::Cluster,
        "gpu" => Scope::Gpu,
        "sys" => Scope::Sys,
        _ => return None,
    })
}

/// Decode a memory instruction.
pub fn decode(opcode: &str, m: &[&str], ops: &[Operand], names: &mut Names) -> Result<Op, String> {
    match opcode {
        // `st.async` / `red.async`: the asynchronous store to a cluster CTA's shared memory.
        "st" | "red" if m.first() == Some(&"async") => {
            super::st_async::decode(opcode == "red", m, ops, names).map(Op::Async)
        }
        "ld" | "ldu" | "st" => access(opcode, m, ops, names),
        "atom" | "red" => atom(opcode == "red", m, ops, names),
        "cvta" => {
            let to = m.first() == Some(&"to");
            let rest = &m[to as usize..];
            let [space, size] = rest else {
                return Err("cvta: expected `cvta{.to}.space.size`".into());
            };
            let space = Space::parse(space).ok_or("cvta: unknown state space")?;
            if !matches!(*size, "u32" | "u64") {
                return Err("cvta: the size is .u32 or .u64".into());
            }
            let [d, a] = ops else {
                return Err("cvta takes 2 operands".into());
            };
            Ok(Op::Cvta {
                d: names.dst(d)?,
                a: names.src(a)?,
                space,
                to,
            })
        }
        "isspacep" => {
            let [space] = m else {
                return Err("isspacep: expected `isspacep.space`".into());
            };
            let [p, a] = ops else {
                return Err("isspacep takes 2 operands".into());
            };
            Ok(Op::Isspacep {
                p: names.dst(p)?,
                a: names.src(a)?,
                space: Space::parse(space).ok_or("isspacep: unknown state space")?,
            })
        }
        "prefetch" | "prefetchu" => Ok(Op::Nop),
        "discard" => {
            // "discard … the cache line … semantically behaves like a weak write of an unstable
            // indeterminate value": later reads are undefined, which the model cannot represent.
            Err("discard (later reads see an indeterminate value) is not supported".into())
        }
        "createpolicy" => {
            // The policy is an opaque 64-bit value only cache hints consume: any value will do.
            let Some(d) = ops.first() else {
                return Err("createpolicy needs a destination".into());
            };
            Ok(Op::Mov {
                d: vec![names.dst(d)?],
                a: vec![super::Src::Imm(0)],
                ty: Ty::B(64),
            })
        }
        _ => Err("unknown instruction".into()),
    }
}

/// `ld{.weak|.volatile|.relaxed.scope|.acquire.scope}{.space}{.cop}{.nc}{.vec}.type` and the
/// corresponding `st` (with `.release`).
fn access(opcode: &str, m: &[&str], ops: &[Operand], names: &mut Names) -> Result<Op, String> {
    let load = opcode != "st";
    let mut sem = Sem::Weak;
    let mut space = Space::Generic;
    let mut nc = false;
    let mut vec = 1usize;
    let mut order: Option<Order> = None;
    let mut scope: Option<Scope> = None;
    let ty = ty_of(m)?;
    for (i, x) in m.iter().enumerate() {
        match *x {
            "weak" => {}
            "volatile" => sem = Sem::Volatile,
            "relaxed" => order = Some(Order::Relaxed),
            "acquire" if load => order = Some(Order::Acquire),
            "release" if !load => order = Some(Order::Release),
            "nc" if load => nc = true,
            "v2" => vec = 2,
            "v4" => vec = 4,
            "v8" => vec = 8,
            x if scope_of(x).is_some() => scope = scope_of(x),
            x if Space::parse(x).is_some() => space = Space::parse(x).unwrap_or(space),
            x if is_hint(x) => {}
            _ if i == m.len() - 1 => {}
            "mmio" => return Err("`.mmio` accesses are not supported".into()),
            x => return Err(format!("modifier `.{x}` is not supported here")),
        }
    }
    if opcode == "ldu" {
        // "ldu: Load read-only data from an address that is common across threads in the warp":
        // a weak load whose location no thread writes during the kernel, as ld.global.nc.
        nc = true;
        if space == Space::Generic {
            space = Space::Global;
        }
    }
    match (order, scope) {
        (Some(o), Some(s)) => sem = Sem::Strong(o, s),
        (Some(_), None) => return Err("a strong access needs a scope".into()),
        (None, Some(_)) => return Err("a scope without .relaxed/.acquire/.release".into()),
        (None, None) => {}
    }
    if nc && (space != Space::Global || sem != Sem::Weak) {
        return Err(".nc loads are weak loads of .global memory".into());
    }
    if ty.bits() > 64 || ty == Ty::Pred {
        return Err(format!("{opcode} of this type is not supported"));
    }
    let [a, b] = ops else {
        return Err(format!("{opcode} takes 2 operands"));
    };
    let (addr, val) = if load { (b, a) } else { (a, b) };
    let vals: Vec<&Operand> = match val {
        Operand::Vector(xs) => xs.iter().collect(),
        x => vec![x],
    };
    if vals.len() != vec {
        return Err(format!(
            "{opcode}.v{vec} needs {vec} values, found {}",
            vals.len()
        ));
    }
    let addr = names.addr(addr)?;
    Ok(if load {
        Op::Ld {
            sem,
            space,
            nc,
            ty,
            d: vals
                .iter()
                .map(|x| names.dst(x))
                .collect::<Result<_, _>>()?,
            addr,
        }
    } else {
        Op::St {
            sem,
            space,
            ty,
            v: vals
                .iter()
                .map(|x| names.src(x))
                .collect::<Result<_, _>>()?,
            addr,
        }
    })
}

/// `atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, c}` / `red…` (PTX ISA,
/// *atom*): "If no scope is specified, the atomic operation is performed with .gpu scope"; "the
/// optional .sem qualifier … if not specified, defaults to .relaxed".
fn atom(red: bool, m: &[&str], ops: &[Operand], names: &mut Names) -> Result<Op, String> {
    let mut order = Order::Relaxed;
    let mut scope = Scope::Gpu;
    let mut space = Space::Generic;
    let mut op = None;
    let ty = ty_of(m)?;
    for (i, x) in m.iter().enumerate() {
        match *x {
            "relaxed" => order = Order::Relaxed,
            "acquire" => order = Order::Acquire,
            "release" => order = Order::Release,
            "acq_rel" => order = Order::AcqRel,
            "and" => op = Some(AtomOp::And),
            "or" => op = Some(AtomOp::Or),
            "xor" => op = Some(AtomOp::Xor),
            "cas" => op = Some(AtomOp::Cas),
            "exch" => op = Some(AtomOp::Exch),
            "add" => op = Some(AtomOp::Add),
            "inc" => op = Some(AtomOp::Inc),
            "dec" => op = Some(AtomOp::Dec),
            "min" => op = Some(AtomOp::Min),
            "max" => op = Some(AtomOp::Max),
            x if scope_of(x).is_some() => scope = scope_of(x).unwrap_or(scope),
            x if Space::parse(x).is_some() => space = Space::parse(x).unwrap_or(space),
            x if is_hint(x) => {}
            _ if i == m.len() - 1 => {}
            "noftz" => {}
            x => return Err(format!("modifier `.{x}` is not supported here")),
        }
    }
    let op = op.ok_or("missing the atomic operation")?;
    if red && matches!(op, AtomOp::Cas | AtomOp::Exch) {
        return Err("red has no .cas or .exch".into());
    }
    if ty.float() && !matches!(op, AtomOp::Add | AtomOp::Exch | AtomOp::Min | AtomOp::Max)
        || ty.bits() < 32
        || ty.bits() == 16
    {
        return Err(format!("atom.{op:?} of this type is not supported").to_lowercase());
    }
    let want = (!red) as usize + 2 + (op == AtomOp::Cas) as usize;
    if ops.len() != want {
        return Err(format!("expected {want} operands, found {}", ops.len()));
    }
    let (d, rest) = match red {
        true => (None, ops),
        false => (Some(names.dst(&ops[0])?), &ops[1..]),
    };
    Ok(Op::Atom {
        order,
        scope,
        space,
        op,
        ty,
        d,
        addr: names.addr(&rest[0])?,
        b: rest[1..]
            .iter()
            .map(|x| names.src(x))
            .collect::<Result<_, _>>()?,
    })
}
