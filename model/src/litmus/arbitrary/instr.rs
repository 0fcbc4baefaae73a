//! One memory instruction (load, store, `atom`, `red`, fence) and the final condition over the
//! registers.

use super::choose::{access, fresh_reg, one_in, scope, value};
use super::limits::Limits;
use crate::litmus::ir::*;
use crate::scope::Order;
use arbitrary::{Result, Unstructured};

pub(super) fn instr(
    u: &mut Unstructured<'_>,
    n_locations: usize,
    regs: &mut Vec<Reg>,
    arith_left: &mut usize,
    limits: &Limits,
) -> Result<Instr> {
    use Order::*;
    let arith_regs: &[Reg] = if limits.arith_register_operands {
        regs
    } else {
        &[]
    };
    let loc = u.choose_index(n_locations)?;
    let kind = u.int_in_range(0..=9u8)?;
    // `add`/`sub` make new values out of old ones without bound; the other operations stay
    // within the values already there (`min`/`max`/`and`/`or`/`xor` of small values, `inc`/`dec`
    // between 0 and their bound), so only `add`/`sub` draw on the arithmetic budget.
    let unbounded = |op: &RmwOp| matches!(op, RmwOp::Add | RmwOp::Sub);
    let mut pick = |u: &mut Unstructured<'_>, red: bool| -> Result<RmwOp> {
        let ops: Vec<RmwOp> = RmwOp::ALL
            .into_iter()
            .filter(|op| (*arith_left > 0 || !unbounded(op)) && (!red || op.reduces()))
            .collect();
        let op = *u.choose(&ops)?;
        if unbounded(&op) {
            *arith_left -= 1;
        }
        Ok(op)
    };
    Ok(match kind {
        0..=2 if limits.noncoherent && one_in(u, 8)? => Instr::Load {
            // `ld.global.nc`: weak, through the texture path.
            access: Access {
                proxy: Proxy::Texture,
                order: Weak,
                scope: None,
            },
            dst: fresh_reg(regs),
            loc,
        },
        0..=2 => Instr::Load {
            access: access(u, &[Weak, Relaxed, Acquire])?,
            dst: fresh_reg(regs),
            loc,
        },
        3..=5 => Instr::Store {
            access: access(u, &[Weak, Relaxed, Release])?,
            loc,
            value: value(u, regs, 1, 3)?,
        },
        6 => {
            let access = access(u, &[Relaxed, Acquire, Release, AcqRel])?;
            let op = pick(u, false)?;
            let (operand, new) = match op {
                RmwOp::Cas => (value(u, regs, 0, 2)?, Some(value(u, regs, 1, 3)?)),
                RmwOp::Add | RmwOp::Sub => (value(u, arith_regs, 1, 3)?, None),
                RmwOp::Exch => (value(u, regs, 1, 3)?, None),
                // A constant operand keeps the values the others make few (an engine that
                // guesses every value a load returns pays for each one).
                _ => (value(u, &[], 1, 3)?, None),
            };
            Instr::Atom {
                access,
                op,
                dst: fresh_reg(regs),
                loc,
                operand,
                new,
            }
        }
        7 => {
            // PTX `red` is relaxed or release.
            let access = access(u, &[Relaxed, Release])?;
            let op = pick(u, true)?;
            let operand = if unbounded(&op) {
                value(u, arith_regs, 1, 3)?
            } else {
                value(u, &[], 1, 3)?
            };
            Instr::Red {
                access,
                op,
                loc,
                operand,
            }
        }
        _ if limits.cp_async && n_locations > 1 && one_in(u, 3)? => {
            let src = (loc + u.int_in_range(1..=n_locations - 1)?) % n_locations;
            Instr::CpAsync { dst: loc, src }
        }
        _ => {
            let s = scope(u)?;
            Instr::Fence(if one_in(u, 2)? {
                Fence::Sc(s)
            } else {
                Fence::AcqRel(s)
            })
        }
    })
}

/// A proposition over final registers (over a location when no thread writes a register).
pub(super) fn condition(
    u: &mut Unstructured<'_>,
    written: &[Vec<Reg>],
    n_locations: usize,
) -> Result<Condition> {
    let quantifier = *u.choose(&[
        Quantifier::Exists,
        Quantifier::Exists,
        Quantifier::NotExists,
        Quantifier::Forall,
    ])?;
    let n_atoms = u.int_in_range(1..=3)?;
    let mut prop = atom(u, written, n_locations)?;
    for _ in 1..n_atoms {
        let next = atom(u, written, n_locations)?;
        prop = match u.int_in_range(0..=5u8)? {
            0 => Prop::Or(Box::new(prop), Box::new(next)),
            1 => Prop::And(Box::new(prop), Box::new(Prop::Not(Box::new(next)))),
            _ => Prop::And(Box::new(prop), Box::new(next)),
        };
    }
    Ok(Condition {
        quantifier,
        prop,
        span: Span::default(),
    })
}

pub(super) fn atom(
    u: &mut Unstructured<'_>,
    written: &[Vec<Reg>],
    n_locations: usize,
) -> Result<Prop> {
    let regs: Vec<(ThreadId, &Reg)> = written
        .iter()
        .enumerate()
        .flat_map(|(t, rs)| rs.iter().map(move |r| (t, r)))
        .collect();
    let term = if regs.is_empty() {
        Term::Loc(u.choose_index(n_locations)?)
    } else {
        let (t, r) = *u.choose(&regs)?;
        Term::Reg(t, r.clone())
    };
    let cmp = if one_in(u, 6)? { Cmp::Ne } else { Cmp::Eq };
    Ok(Prop::Cmp(cmp, term, Term::Const(u.int_in_range(0..=3)?)))
}
