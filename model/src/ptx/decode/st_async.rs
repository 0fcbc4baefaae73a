//! `st.async` and `red.async` (PTX ISA 8.1, sm_90) as typed operations: a store or reduction to
//! a CTA's shared memory in the cluster that completes a transaction on that CTA's mbarrier.
//! The productions, as the PTX ISA gives them:
//!
//! ```text
//! st.async{.sem}{.scope}{.ss}{.completion_mechanism}{.vec}.type [a], b, [mbar];
//!   .sem = { .weak }  .scope = { .cluster }  .ss = { .shared::cluster }
//!   .completion_mechanism = { .mbarrier::complete_tx::bytes }  .vec = { .v2, .v4 }
//!   .type = { .b32, .b64, .u32, .u64, .s32, .s64, .f32, .f64 }
//! red.async.sem.scope{.ss}.completion_mechanism.op.type [a], b, [mbar];
//!   .sem = { .relaxed }  .scope = { .cluster }  .ss = { .shared::cluster }
//!   .op = { .inc, .dec } with .type = { .u32 };  .op = { .min, .max } with { .u32, .s32 };
//!   .op = { .and, .or, .xor } with { .b32 };  .op = .add with { .u32, .s32, .u64 }
//! ```
//!
//! The later forms without an mbarrier (`st.async.release.{gpu,sys}.global`, `red.async` to
//! `.global`, for sm_100's asynchronous global stores) have no completion this model knows of
//! and are refused with that reason.

use super::asynchronous::AsyncOp;
use super::operand::Names;
use super::space::Space;
use crate::ptx::ast::Operand;
use crate::ptx::value::Ty;
use crate::runtime::async_copy::{RedAsync, RedAsyncOp, RedAsyncType};

const COMPLETION: &str = "mbarrier::complete_tx::bytes";

/// Decode `st.async…` (`red` false) or `red.async…` (`red` true); `m` holds the modifiers
/// after the opcode, `async` first.
pub(super) fn decode(
    red: bool,
    m: &[&str],
    ops: &[Operand],
    names: &mut Names,
) -> Result<AsyncOp, String> {
    let opcode = if red { "red.async" } else { "st.async" };
    if !m.contains(&COMPLETION) {
        return Err(format!(
            "{opcode} without .{COMPLETION} (the sm_100 form to .global memory, completing \
             without an mbarrier) is not supported: only the .shared::cluster form that \
             completes on an mbarrier is"
        ));
    }
    let [a, b, mbar] = ops else {
        return Err(format!("{opcode} takes 3 operands: [a], b, [mbar]"));
    };
    let addr = names.addr(a)?;
    let bar = names.addr(mbar)?;
    let mut space = Space::Generic;
    let mut vec = 1usize;
    let (mut sem, mut scope) = (false, false);
    let mut op = None;
    let mut ty: Option<&str> = None;
    for x in &m[1..] {
        match *x {
            "weak" if !red => sem = true,
            "relaxed" if red => sem = true,
            "cluster" => scope = true,
            "shared::cluster" => space = Space::SharedCluster,
            COMPLETION => {}
            "v2" if !red => vec = 2,
            "v4" if !red => vec = 4,
            x if red && op.is_none() && RedAsyncOp::from_name(x).is_some() => {
                op = RedAsyncOp::from_name(x)
            }
            x if Ty::parse(x).is_some() && ty.is_none() => ty = Some(x),
            x => return Err(format!("modifier `.{x}` is not a qualifier of {opcode}")),
        }
    }
    if red && !(sem && scope) {
        // red.async.sem.scope: both are mandatory in the production.
        return Err("red.async needs .relaxed.cluster (its .sem and .scope are mandatory)".into());
    }
    let Some(ty) = ty else {
        return Err(format!("{opcode} needs a .type"));
    };
    if red {
        let Some(op) = op else {
            return Err(
                "red.async needs an operation (.add, .min, .max, .inc, .dec, .and, .or, \
                        .xor)"
                    .into(),
            );
        };
        let t = RedAsyncType::from_name(ty)
            .ok_or_else(|| format!("red.async.{} of type .{ty} is not a PTX form", op.name()))?;
        // Checks the pair against the ISA's table; the operand comes from a register at run time.
        RedAsync::new(op, t, 0)?;
        return Ok(AsyncOp::RedAsync {
            addr,
            space,
            op,
            ty: t,
            b: names.src(b)?,
            bar,
        });
    }
    let parsed = Ty::parse(ty).filter(|t| {
        matches!(
            t,
            Ty::B(32 | 64) | Ty::U(32 | 64) | Ty::S(32 | 64) | Ty::F(32 | 64)
        )
    });
    let Some(parsed) = parsed else {
        return Err(format!(
            "st.async of type .{ty} is not a PTX form: .type is one of .b32, .b64, .u32, .u64, \
             .s32, .s64, .f32, .f64"
        ));
    };
    let values: Vec<&Operand> = match b {
        Operand::Vector(xs) => xs.iter().collect(),
        x => vec![x],
    };
    if values.len() != vec {
        return Err(format!(
            "st.async with {} needs {vec} values, found {}",
            if vec == 1 {
                "no .vec".to_string()
            } else {
                format!(".v{vec}")
            },
            values.len()
        ));
    }
    Ok(AsyncOp::StAsync {
        addr,
        space,
        ty: parsed,
        v: values
            .iter()
            .map(|x| names.src(x))
            .collect::<Result<_, _>>()?,
        bar,
    })
}
