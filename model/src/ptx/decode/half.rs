//! Half-precision arithmetic (PTX ISA, *Half Precision Floating-Point Instructions*):
//! "add{.rnd}{.ftz}{.sat}.f16 d, a, b; add{.rnd}{.ftz}{.sat}.f16x2 d, a, b; .rnd = { .rn }",
//! the same for `sub` and `mul`, "fma.rnd{.ftz}{.sat}.f16 d, a, b, c; … .f16x2", "neg{.ftz}.f16
//! d, a", "abs{.ftz}.f16 d, a", "min{.ftz}{.NaN}.f16 d, a, b", "max{.ftz}{.NaN}.f16 d, a, b"
//! (and their `.f16x2` forms). `.rn` is the only rounding and the default; `.ftz` (flush
//! subnormals to zero) and `.sat` (clamp to [0, 1]) change the result and are refused, as are
//! the `.bf16` forms: the model computes IEEE binary16 with subnormals ([`crate::ptx::half`]).

use super::operand::Names;
use super::Op;
use crate::ptx::alu::AluOp;
use crate::ptx::ast::Operand;
use crate::ptx::value::Ty;

/// Decode `opcode` when its type is `.f16` or `.f16x2`; `None` for other types.
pub fn decode(
    opcode: &str,
    m: &[&str],
    ops: &[Operand],
    names: &mut Names,
) -> Option<Result<Op, String>> {
    let x2 = match m.last() {
        Some(&"f16") => false,
        Some(&"f16x2") => true,
        _ => return None,
    };
    let (op, n) = match (opcode, m.contains(&"NaN")) {
        ("add", _) => (AluOp::Add { sat: false }, 3),
        ("sub", _) => (AluOp::Sub { sat: false }, 3),
        ("mul", _) => (AluOp::MulLo, 3),
        ("fma", _) => (AluOp::MadLo, 4),
        ("neg", _) => (AluOp::Neg, 2),
        ("abs", _) => (AluOp::Abs, 2),
        ("min", false) => (AluOp::Min, 3),
        ("max", false) => (AluOp::Max, 3),
        ("min", true) => (AluOp::MinNan, 3),
        ("max", true) => (AluOp::MaxNan, 3),
        _ => return None,
    };
    Some(build(opcode, m, ops, names, (op, n), x2))
}

fn build(
    opcode: &str,
    m: &[&str],
    ops: &[Operand],
    names: &mut Names,
    (op, n): (AluOp, usize),
    x2: bool,
) -> Result<Op, String> {
    for x in &m[..m.len() - 1] {
        match *x {
            "rn" if matches!(opcode, "add" | "sub" | "mul" | "fma") => {}
            "NaN" if matches!(opcode, "min" | "max") => {}
            "ftz" | "sat" => {
                return Err(format!(
                    "{opcode}.{x} on half precision is not modelled (it flushes or clamps the \
                     IEEE result)"
                ))
            }
            other => return Err(format!("modifier `.{other}` is not supported here")),
        }
    }
    if opcode == "fma" && !m.contains(&"rn") {
        return Err("fma on half precision needs its rounding, `.rn`".into());
    }
    if ops.len() != n {
        return Err(format!("{opcode} takes {n} operands, not {}", ops.len()));
    }
    let d = names.dst(&ops[0])?;
    let a = ops[1..]
        .iter()
        .map(|o| names.src(o))
        .collect::<Result<_, _>>()?;
    Ok(match x2 {
        false => Op::Alu {
            op,
            ty: Ty::F(16),
            d,
            a,
        },
        true => Op::AluX2 { op, d, a },
    })
}
