//! The generator's small choices: a scope, an access, a value, a fresh register, and where in
//! a CTA's threads a statement goes.

use super::limits::Limits;
use crate::litmus::ir::*;
use crate::scope::{Order, Scope};
use arbitrary::{Result, Unstructured};

/// True once in `n` draws; false when the bytes have run out, so that exhausted input leans to
/// the plain case (unlike `Unstructured::ratio`, which then answers true).
pub(super) fn one_in(u: &mut Unstructured<'_>, n: u8) -> Result<bool> {
    Ok(u.int_in_range(1..=n)? == n)
}

pub(super) fn scope(u: &mut Unstructured<'_>) -> Result<Scope> {
    u.choose(&Scope::ALL).copied()
}

/// A strong order from `orders` with a scope, or a weak access (no scope) when `Weak` is drawn.
pub(super) fn access(u: &mut Unstructured<'_>, orders: &[Order]) -> Result<Access> {
    let order = *u.choose(orders)?;
    let scope = if order == Order::Weak {
        None
    } else {
        Some(scope(u)?)
    };
    Ok(Access {
        proxy: Proxy::Generic,
        order,
        scope,
    })
}

pub(super) fn fresh_reg(regs: &mut Vec<Reg>) -> Reg {
    let r = Reg(format!("r{}", regs.len()));
    regs.push(r.clone());
    r
}

/// A small constant, or now and then a register written earlier (a data dependency).
pub(super) fn value(
    u: &mut Unstructured<'_>,
    regs: &[Reg],
    lo: Value,
    hi: Value,
) -> Result<Operand> {
    if !regs.is_empty() && one_in(u, 4)? {
        return Ok(Operand::Reg(u.choose(regs)?.clone()));
    }
    Ok(Operand::Imm(u.int_in_range(lo..=hi)?))
}

/// A statement of the generated kind (no token, dialect annotation or warp).
pub(super) fn stmt(instr: Instr) -> Stmt {
    Stmt {
        instr,
        span: Span::default(),
        token: None,
        qualifiers: None,
        warp: None,
    }
}

/// The threads in the CTA of thread `t`, in program order (its warp's lanes).
pub(super) fn cta_of(threads: &[Thread], t: usize) -> Vec<usize> {
    let cta = threads[t].placement;
    (0..threads.len())
        .filter(|&i| {
            let p = threads[i].placement;
            p.gpu == cta.gpu && p.cta == cta.cta
        })
        .collect()
}

/// `instr` once in each of `members`, at random places, if every one has room for it.
pub(super) fn insert_in_each(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    members: &[usize],
    instr: Instr,
    limits: &Limits,
) -> Result<()> {
    let events: usize = threads.iter().map(|t| t.body.len()).sum();
    let room = members
        .iter()
        .all(|&i| threads[i].body.len() < limits.max_instrs);
    if !room || events + members.len() > limits.max_events {
        return Ok(());
    }
    for &i in members {
        let at = u.int_in_range(0..=threads[i].body.len())?;
        threads[i].body.insert(at, stmt(instr.clone()));
    }
    Ok(())
}
