//! Lowering each PTX instruction of the syntax tree into a typed operation the interpreter runs.
//!
//! The decoder knows the opcodes of the PTX ISA listed on [`Op`] with the modifiers the ISA's
//! syntax gives them; anything else — an opcode, a modifier or an operand form it does not
//! know — is an error naming the instruction (the caller adds its `line:col` and CUDA line).
//! Nothing is skipped silently.

mod asynchronous;
mod half;
mod memory;
mod operand;
mod space;
mod st_async;
mod sync;
mod tensor;

pub use self::operand::{Addr, AddrBase, Dst, LaneCmp, Names, Special, Src};
pub use self::space::Space;
pub use asynchronous::AsyncOp;

use super::alu::{AluOp, Rnd};
use super::ast::Instruction;
use super::value::{BoolOp, Cmp, Ty};
use crate::scope::{Order, Scope};

/// The memory semantics of `ld`/`st` (PTX ISA, *Memory Consistency Model*, "Operation types").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sem {
    /// No qualifier or `.weak`: a weak (non-atomic) access.
    Weak,
    /// `.volatile`: "may be used with .global and .shared spaces … treated as relaxed with
    /// .sys scope" by the memory model.
    Volatile,
    /// `.relaxed.scope`, `.acquire.scope`, `.release.scope`: a strong access.
    Strong(Order, Scope),
}

/// The operation of `atom`/`red` (PTX ISA, *atom*).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomOp {
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor`.
    Xor,
    /// `.cas`: `d = [a]; [a] = (d == b) ? c : d`.
    Cas,
    /// `.exch`.
    Exch,
    /// `.add`.
    Add,
    /// `.inc`: `(old >= b) ? 0 : old + 1`.
    Inc,
    /// `.dec`: `(old == 0 || old > b) ? b : old - 1`.
    Dec,
    /// `.min`.
    Min,
    /// `.max`.
    Max,
}

/// Shuffle modes of `shfl.sync` (PTX ISA, *shfl.sync*).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShflMode {
    /// `.up`: from `lane - b`.
    Up,
    /// `.down`: from `lane + b`.
    Down,
    /// `.bfly`: from `lane ^ b`.
    Bfly,
    /// `.idx`: from lane `b`.
    Idx,
}

/// Modes of `vote.sync`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VoteMode {
    /// `.all`.
    All,
    /// `.any`.
    Any,
    /// `.uni`.
    Uni,
    /// `.ballot.b32`.
    Ballot,
}

/// The reduction of `bar.red` and `redux.sync`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RedOp {
    /// `.popc`: how many threads brought a true predicate (`bar.red`).
    Popc,
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor` (`redux.sync`).
    Xor,
    /// `.add` (`redux.sync`).
    Add,
    /// `.min` (`redux.sync`).
    Min,
    /// `.max` (`redux.sync`).
    Max,
}

/// A callee of `call`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A `.func` of the module with a body (index into the program's functions).
    Func(usize),
    /// `__assertfail` (what CUDA's `assert` calls): the assertion failed.
    AssertFail,
    /// `vprintf` (what CUDA's `printf` calls): no effect on memory the kernel can observe;
    /// returns 0.
    Printf,
}

/// A decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Arithmetic, logic, bit operations (`add`, `mul.wide`, `bfe`, `prmt`, …).
    Alu {
        /// The operation.
        op: AluOp,
        /// The instruction type (the operands' for `.wide`).
        ty: Ty,
        /// The destination.
        d: Dst,
        /// The sources.
        a: Vec<Src>,
    },
    /// An `.f16x2` operation: `op` on the low halves and on the high halves, each an `.f16`
    /// operation ([`crate::ptx::alu::eval_x2`]).
    AluX2 {
        /// The operation.
        op: AluOp,
        /// The destination.
        d: Dst,
        /// The sources.
        a: Vec<Src>,
    },
    /// `setp.CmpOp{.BoolOp}.type p{|q}, a, b{, {!}c}`: `p = (a CmpOp b) BoolOp c`, `q` the
    /// complement's combination: `q = !(a CmpOp b) BoolOp c`.
    Setp {
        /// The comparison.
        cmp: Cmp,
        /// The operand type.
        ty: Ty,
        /// `p`.
        p: Dst,
        /// `q`.
        q: Option<Dst>,
        /// `a`, `b`.
        a: [Src; 2],
        /// `.BoolOp` and `c`.
        combine: Option<(BoolOp, Src)>,
    },
    /// `selp.type d, a, b, c`: `d = c ? a : b`.
    Selp {
        /// The type.
        ty: Ty,
        /// `d`.
        d: Dst,
        /// `a`, `b`, `c`.
        a: [Src; 3],
    },
    /// `slct.dtype.ctype d, a, b, c`: `d = (c >= 0) ? a : b`.
    Slct {
        /// `d`'s type.
        ty: Ty,
        /// `c`'s type (`.s32` or `.f32`).
        cty: Ty,
        /// `d`.
        d: Dst,
        /// `a`, `b`, `c`.
        a: [Src; 3],
    },
    /// `mov`: `d = a`, or a vector pack (`mov.b64 d, {lo, hi}`) or unpack (`mov.b64 {lo, hi},
    /// a`): element `i` is bits `[i*w, (i+1)*w)`.
    Mov {
        /// Destinations (one, or the elements of an unpack).
        d: Vec<Dst>,
        /// Sources (one, or the elements of a pack).
        a: Vec<Src>,
        /// The instruction type.
        ty: Ty,
    },
    /// `cvt{.rnd}{.sat}.dtype.atype d, a`.
    Cvt {
        /// `d`.
        d: Dst,
        /// `a`.
        a: Src,
        /// Destination type.
        dty: Ty,
        /// Source type.
        sty: Ty,
        /// Rounding.
        rnd: Rnd,
        /// `.sat`.
        sat: bool,
    },
    /// `cvta.space.size d, a` (to generic) / `cvta.to.space.size d, a` (from generic).
    Cvta {
        /// `d`.
        d: Dst,
        /// `a`.
        a: Src,
        /// The space.
        space: Space,
        /// `.to`.
        to: bool,
    },
    /// `isspacep.space p, a`: whether generic address `a` falls in the space's window.
    Isspacep {
        /// `p`.
        p: Dst,
        /// `a`.
        a: Src,
        /// The space.
        space: Space,
    },
    /// `ld{.sem}{.space}{.nc}{.vN}.type d, [a]`.
    Ld {
        /// Semantics.
        sem: Sem,
        /// State space.
        space: Space,
        /// `.nc`: through the non-coherent cache.
        nc: bool,
        /// Element type.
        ty: Ty,
        /// Destinations (one per vector element).
        d: Vec<Dst>,
        /// Address.
        addr: Addr,
    },
    /// `st{.sem}{.space}{.vN}.type [a], b`.
    St {
        /// Semantics.
        sem: Sem,
        /// State space.
        space: Space,
        /// Element type.
        ty: Ty,
        /// Values (one per vector element).
        v: Vec<Src>,
        /// Address.
        addr: Addr,
    },
    /// `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}` and `red` (no `d`).
    Atom {
        /// Order (`.relaxed` when none is written).
        order: Order,
        /// Scope (`.gpu` when none is written).
        scope: Scope,
        /// State space.
        space: Space,
        /// Operation.
        op: AtomOp,
        /// Type.
        ty: Ty,
        /// `d` (`None` for `red`).
        d: Option<Dst>,
        /// Address.
        addr: Addr,
        /// `b` (and `c` for `.cas`).
        b: Vec<Src>,
    },
    /// `bra{.uni} target`: the target's statement index.
    Bra(usize),
    /// `ret`.
    Ret,
    /// `exit`.
    Exit,
    /// `trap`: aborts the kernel; reported as an assertion failure.
    Trap,
    /// Instructions with no effect on what the model checks: `prefetch`, `prefetchu`,
    /// `nanosleep`, `brkpt` (a debugger breakpoint), `pmevent`, and
    /// the proxy fences of proxies the model has no operation in (`fence.proxy.alias`,
    /// `fence.proxy.tensormap::generic`).
    Nop,
    /// An asynchronous operation: mbarriers, `cp.async`, bulk copies, cluster addresses.
    Async(AsyncOp),
    /// `call{.uni} (rets), func, (args)`: arguments and returns are `.param` variables (or
    /// registers) of the caller.
    Call {
        /// The callee.
        callee: Callee,
        /// Return parameters of the caller, in order.
        rets: Vec<Src>,
        /// Arguments, in order.
        args: Vec<Src>,
    },
    /// `membar.level` / `fence.{sc,acq_rel}.scope`.
    Fence {
        /// `Order::Sc` or `Order::AcqRel`.
        order: Order,
        /// Scope.
        scope: Scope,
    },
    /// `bar{.cta}.sync`/`barrier{.cta}.sync{.aligned}` (`wait`) or `.arrive`, `a` the barrier
    /// id, `b` the thread count; `bar.red.op.pred p, a{, b}, {!}c`.
    Bar {
        /// `a`.
        id: Src,
        /// `b`.
        count: Option<Src>,
        /// `.sync` / `.red` wait; `.arrive` does not.
        wait: bool,
        /// `bar.red`: the reduction, its destination and predicate.
        red: Option<(RedOp, Dst, Src)>,
    },
    /// `barrier.cluster.arrive{.release|.relaxed}`: arrive on the cluster's barrier.
    ClusterArrive {
        /// `.release` (the default) rather than `.relaxed`.
        release: bool,
    },
    /// `barrier.cluster.wait{.acquire}`: wait for the phase of the thread's last arrive.
    ClusterWait,
    /// `bar.warp.sync membermask`.
    WarpSync {
        /// The mask.
        mask: Src,
    },
    /// `shfl.sync.mode.b32 d{|p}, a, b, c, membermask`.
    Shfl {
        /// Mode.
        mode: ShflMode,
        /// `d`.
        d: Dst,
        /// `p`: whether the source lane was in range.
        p: Option<Dst>,
        /// `a`, `b`, `c`, `membermask`.
        a: [Src; 4],
    },
    /// `vote.sync.mode.pred d, {!}a, membermask` / `vote.sync.ballot.b32`.
    Vote {
        /// Mode.
        mode: VoteMode,
        /// `d`.
        d: Dst,
        /// `a`, `membermask`.
        a: [Src; 2],
    },
    /// `match.{any,all}.sync.type d{|p}, a, membermask`.
    Match {
        /// `.all`.
        all: bool,
        /// Type.
        ty: Ty,
        /// `d`.
        d: Dst,
        /// `p` (`.all` only).
        p: Option<Dst>,
        /// `a`, `membermask`.
        a: [Src; 2],
    },
    /// `activemask.b32 d`.
    Activemask {
        /// `d`.
        d: Dst,
    },
    /// `redux.sync.op.type d, a, membermask`.
    Redux {
        /// Operation.
        op: RedOp,
        /// Type.
        ty: Ty,
        /// `d`.
        d: Dst,
        /// `a`, `membermask`.
        a: [Src; 2],
    },
    /// `elect.sync d|p, membermask`: the lowest active lane of the mask is elected.
    Elect {
        /// `d`: the elected lane.
        d: Dst,
        /// `p`: whether this lane is it.
        p: Dst,
        /// `membermask`.
        mask: Src,
    },
}

/// Decode one instruction; `names` resolves registers, variables and labels of its function.
pub fn decode(i: &Instruction, names: &mut Names) -> Result<Op, String> {
    let m: Vec<&str> = i.modifiers.iter().map(String::as_str).collect();
    let ops = &i.operands;
    match i.opcode.as_str() {
        "ld" | "ldu" | "st" | "atom" | "red" | "cvta" | "isspacep" | "prefetch" | "prefetchu"
        | "discard" | "createpolicy" => memory::decode(&i.opcode, &m, ops, names),
        "membar" | "fence" | "bar" | "barrier" | "shfl" | "vote" | "match" | "activemask"
        | "redux" | "elect" | "nanosleep" => sync::decode(&i.opcode, &m, ops, names),
        "mbarrier" => asynchronous::mbarrier(&m, ops, names).map(Op::Async),
        // The tensor-map forms (and the prefetches) have their own module.
        "cp" => match m.as_slice() {
            ["async", "bulk", "tensor", more @ ..] => tensor::bulk_tensor(more, ops, names),
            ["async", "bulk", "prefetch", more @ ..] => tensor::bulk_prefetch(more, ops, names),
            ["reduce", ..] => Err("cp.reduce.async.bulk is not supported (the model has no \
                                   reducing bulk copy)"
                .into()),
            _ => asynchronous::cp(&m, ops, names),
        }
        .map(Op::Async),
        "mapa" | "getctarank" => {
            asynchronous::cluster_address(&i.opcode, &m, ops, names).map(Op::Async)
        }
        "bra" => {
            only(&m, &["uni"])?;
            match ops.as_slice() {
                [op] => Ok(Op::Bra(names.label(op)?)),
                _ => Err("bra takes one label".into()),
            }
        }
        "ret" => only(&m, &["uni"]).map(|_| Op::Ret),
        "exit" => only(&m, &[]).map(|_| Op::Exit),
        "trap" => only(&m, &[]).map(|_| Op::Trap),
        "brkpt" | "pmevent" => Ok(Op::Nop),
        "call" => call(&m, ops, names),
        _ => arith(&i.opcode, &m, ops, names),
    }
}

/// Refuse modifiers outside `allowed`.
pub(crate) fn only(m: &[&str], allowed: &[&str]) -> Result<(), String> {
    match m.iter().find(|x| !allowed.contains(x)) {
        Some(x) => Err(format!("modifier `.{x}` is not supported here")),
        None => Ok(()),
    }
}

/// The single type among the modifiers (the last one that names a type).
pub(crate) fn ty_of(m: &[&str]) -> Result<Ty, String> {
    m.iter()
        .rev()
        .find_map(|x| Ty::parse(x))
        .ok_or_else(|| "missing the instruction type".to_string())
}

fn call(m: &[&str], ops: &[super::ast::Operand], names: &mut Names) -> Result<Op, String> {
    use super::ast::Operand as O;
    only(m, &["uni"])?;
    let list = |o: &O, names: &mut Names| -> Result<Vec<Src>, String> {
        match o {
            O::List(xs) => xs.iter().map(|x| names.src(x)).collect(),
            other => Ok(vec![names.src(other)?]),
        }
    };
    let (rets, func, args) = match ops {
        [O::List(r), f, a] => (list(&O::List(r.clone()), names)?, f, list(a, names)?),
        [f, a @ O::List(_)] => (vec![], f, list(a, names)?),
        [f] => (vec![], f, vec![]),
        [O::List(r), f] => (list(&O::List(r.clone()), names)?, f, vec![]),
        _ => return Err("call: expected `call (rets), func, (args)`".into()),
    };
    let O::Symbol { name, offset: 0 } = func else {
        return Err("call: indirect calls (through a register) are not supported".into());
    };
    let callee = match name.as_str() {
        "__assertfail" => Callee::AssertFail,
        "vprintf" => Callee::Printf,
        _ => Callee::Func(names.func(name)?),
    };
    Ok(Op::Call { callee, rets, args })
}

/// Arithmetic, comparison, selection, move and conversion instructions.
fn arith(
    opcode: &str,
    m: &[&str],
    ops: &[super::ast::Operand],
    names: &mut Names,
) -> Result<Op, String> {
    if let Some(op) = half::decode(opcode, m, ops, names) {
        return op;
    }
    if m.last() == Some(&"f16x2") {
        return Err(format!(
            "{opcode}.f16x2 is not supported (the .f16x2 arithmetic is add, sub, mul, fma, neg, \
             abs, min, max)"
        ));
    }
    let ty = ty_of(m);
    let srcs = |names: &mut Names, from: usize| -> Result<Vec<Src>, String> {
        ops[from.min(ops.len())..]
            .iter()
            .map(|o| names.src(o))
            .collect()
    };
    let arity = |n: usize| -> Result<(), String> {
        match ops.len() == n {
            true => Ok(()),
            false => Err(format!("{opcode} takes {n} operands, not {}", ops.len())),
        }
    };
    // Floating-point rounding and flush-to-zero modifiers do not change the operation; `.rn`
    // is the default, the others are refused for arithmetic (they would round differently).
    let float_mods = ["rn", "ftz", "approx", "full"];
    let alu = |op: AluOp, n: usize, allowed: &[&str], names: &mut Names| -> Result<Op, String> {
        arity(n)?;
        let ty = ty.clone()?;
        let mut allow: Vec<&str> = allowed.to_vec();
        allow.extend(&m[m.len() - 1..]);
        if ty.float() {
            allow.extend(float_mods);
        }
        only(m, &allow)?;
        if ty.float()
            && !matches!(
                op,
                AluOp::Add { .. }
                    | AluOp::Sub { .. }
                    | AluOp::MulLo
                    | AluOp::MadLo
                    | AluOp::Div
                    | AluOp::Neg
                    | AluOp::Abs
                    | AluOp::Min
                    | AluOp::Max
                    | AluOp::Sqrt
                    | AluOp::Rcp
            )
        {
            return Err(format!("{opcode} is not defined on .{}", m[m.len() - 1]));
        }
        if ty.float() && ty.bits() == 16 {
            // `half::decode` took every half-precision form PTX has.
            return Err(format!("{opcode} is not defined on .f16"));
        }
        Ok(Op::Alu {
            op,
            ty,
            d: names.dst(&ops[0])?,
            a: srcs(names, 1)?,
        })
    };
    match opcode {
        "add" => alu(
            AluOp::Add {
                sat: m.contains(&"sat"),
            },
            3,
            &["sat", "cc"],
            names,
        )
        .and_then(no_carry(m)),
        "sub" => alu(
            AluOp::Sub {
                sat: m.contains(&"sat"),
            },
            3,
            &["sat", "cc"],
            names,
        )
        .and_then(no_carry(m)),
        "mul" | "mad" | "fma" => {
            let three = opcode != "mul";
            let n = if three { 4 } else { 3 };
            let op = match (m.first().copied(), three) {
                (Some("hi"), false) => AluOp::MulHi,
                (Some("wide"), false) => AluOp::MulWide,
                (Some("hi"), true) => AluOp::MadHi,
                (Some("wide"), true) => AluOp::MadWide,
                (_, false) => AluOp::MulLo,
                (_, true) => AluOp::MadLo,
            };
            if !ty.clone()?.float() && !matches!(m.first(), Some(&("lo" | "hi" | "wide"))) {
                return Err(format!("{opcode} on integers needs .lo, .hi or .wide"));
            }
            alu(op, n, &["lo", "hi", "wide", "sat", "rz", "rm", "rp"], names).and_then(no_round(m))
        }
        "div" => alu(AluOp::Div, 3, &["rz", "rm", "rp"], names).and_then(no_round(m)),
        "rem" => alu(AluOp::Rem, 3, &[], names),
        "and" => alu(AluOp::And, 3, &[], names),
        "or" => alu(AluOp::Or, 3, &[], names),
        "xor" => alu(AluOp::Xor, 3, &[], names),
        "not" => alu(AluOp::Not, 2, &[], names),
        "cnot" => alu(AluOp::Cnot, 2, &[], names),
        "shl" => alu(AluOp::Shl, 3, &[], names),
        "shr" => alu(AluOp::Shr, 3, &[], names),
        "neg" => alu(AluOp::Neg, 2, &[], names),
        "abs" => alu(AluOp::Abs, 2, &[], names),
        "min" => alu(AluOp::Min, 3, &["NaN"], names),
        "max" => alu(AluOp::Max, 3, &["NaN"], names),
        "popc" => alu(AluOp::Popc, 2, &[], names),
        "clz" => alu(AluOp::Clz, 2, &[], names),
        "brev" => alu(AluOp::Brev, 2, &[], names),
        "bfe" => alu(AluOp::Bfe, 4, &[], names),
        "bfi" => alu(AluOp::Bfi, 5, &[], names),
        "sqrt" => alu(AluOp::Sqrt, 2, &[], names),
        "rcp" => alu(AluOp::Rcp, 2, &[], names),
        "prmt" => {
            if m.len() != 1 {
                return Err("prmt: only the default mode (`prmt.b32`) is supported".into());
            }
            alu(AluOp::Prmt, 4, &[], names)
        }
        "setp" => {
            let ty = ty?;
            let cmp = m
                .first()
                .and_then(|x| Cmp::parse(x))
                .ok_or("setp: missing the comparison")?;
            let bool_op = m.get(1).and_then(|x| BoolOp::parse(x));
            only(m, &[m[0], m[m.len() - 1], "and", "or", "xor", "ftz"])?;
            let (p, q) = match &ops.first() {
                Some(super::ast::Operand::Pair(p, q)) => (names.dst(p)?, Some(names.dst(q)?)),
                Some(p) => (names.dst(p)?, None),
                None => return Err("setp needs a destination".into()),
            };
            let combine = match (bool_op, ops.len()) {
                (Some(b), 4) => Some((b, names.src(&ops[3])?)),
                (None, 3) => None,
                _ => return Err("setp: `.and/.or/.xor` go with a fourth operand".into()),
            };
            Ok(Op::Setp {
                cmp,
                ty,
                p,
                q,
                a: [names.src(&ops[1])?, names.src(&ops[2])?],
                combine,
            })
        }
        "selp" => {
            arity(4)?;
            only(m, &[m[m.len() - 1]])?;
            Ok(Op::Selp {
                ty: ty?,
                d: names.dst(&ops[0])?,
                a: three(srcs(names, 1)?),
            })
        }
        "slct" => {
            arity(4)?;
            let cty = Ty::parse(m.last().copied().unwrap_or("")).ok_or("slct: missing types")?;
            let dty = m
                .iter()
                .rev()
                .skip(1)
                .find_map(|x| Ty::parse(x))
                .ok_or("slct: missing types")?;
            Ok(Op::Slct {
                ty: dty,
                cty,
                d: names.dst(&ops[0])?,
                a: three(srcs(names, 1)?),
            })
        }
        "mov" => mov(m, ops, names),
        "cvt" => cvt(m, ops, names),
        _ => Err("unknown instruction".into()),
    }
}

fn no_carry<'a>(m: &'a [&'a str]) -> impl Fn(Op) -> Result<Op, String> + 'a {
    move |op| match m.contains(&"cc") {
        true => Err("extended-precision arithmetic (`.cc`) is not supported".into()),
        false => Ok(op),
    }
}

fn no_round<'a>(m: &'a [&'a str]) -> impl Fn(Op) -> Result<Op, String> + 'a {
    move |op| match m.iter().find(|x| matches!(**x, "rz" | "rm" | "rp")) {
        Some(r) => Err(format!("rounding `.{r}` is not supported (only `.rn`)")),
        None => Ok(op),
    }
}

fn three(v: Vec<Src>) -> [Src; 3] {
    [v[0].clone(), v[1].clone(), v[2].clone()]
}

fn mov(m: &[&str], ops: &[super::ast::Operand], names: &mut Names) -> Result<Op, String> {
    use super::ast::Operand as O;
    let ty = ty_of(m)?;
    only(m, &[m[m.len() - 1]])?;
    let [d, a] = ops else {
        return Err("mov takes 2 operands".into());
    };
    let d = match d {
        O::Vector(xs) => xs.iter().map(|x| names.dst(x)).collect::<Result<_, _>>()?,
        x => vec![names.dst(x)?],
    };
    let a = match a {
        O::Vector(xs) => xs.iter().map(|x| names.src(x)).collect::<Result<_, _>>()?,
        x => vec![names.src(x)?],
    };
    if d.len() > 1 && a.len() > 1 {
        return Err("mov: a vector on both sides".into());
    }
    Ok(Op::Mov { d, a, ty })
}

fn cvt(m: &[&str], ops: &[super::ast::Operand], names: &mut Names) -> Result<Op, String> {
    let types: Vec<Ty> = m.iter().filter_map(|x| Ty::parse(x)).collect();
    let [dty, sty] = types[..] else {
        return Err("cvt needs a destination and a source type".into());
    };
    let rnd = m.iter().find_map(|x| Rnd::parse(x)).unwrap_or(Rnd::None);
    let sat = m.contains(&"sat");
    let allowed = [
        "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "sat", "ftz",
    ];
    if let Some(x) = m
        .iter()
        .find(|x| Ty::parse(x).is_none() && !allowed.contains(x))
    {
        return Err(format!("modifier `.{x}` is not supported here"));
    }
    // PTX ISA, *cvt*: "For float-to-float conversions with destination type smaller than source
    // type, the .rn, .rz, .rm, .rp rounding modifiers are" required; `.rn` (nearest even) is the
    // one modelled. Widening `.f16` is exact.
    if dty.float() && sty.float() && dty.bits() < sty.bits() && rnd != Rnd::Nearest {
        return Err(format!(
            "cvt.f{}.f{}: narrowing needs a rounding modifier, and only `.rn` is supported",
            dty.bits(),
            sty.bits()
        ));
    }
    if dty == Ty::F(16) && !sty.float() && !matches!(rnd, Rnd::Nearest) {
        return Err("cvt to .f16 from an integer: only `.rn` is supported".into());
    }
    if sty.float() && !dty.float() && rnd == Rnd::None {
        return Err("cvt from float to integer needs a rounding modifier (.rni/.rzi/…)".into());
    }
    let [d, a] = ops else {
        return Err("cvt takes 2 operands".into());
    };
    Ok(Op::Cvt {
        d: names.dst(d)?,
        a: names.src(a)?,
        dty,
        sty,
        rnd,
        sat,
    })
}
