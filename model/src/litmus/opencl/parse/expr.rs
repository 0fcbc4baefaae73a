//! Expressions (`re`), addresses and the calls of OpenCL C's atomic functions.
//!
//! `re` lists its binary forms (`reOpBool`, `reOpCompare`, `reOpArith`) without precedence;
//! they bind as in C (C11 6.5.5 to 6.5.14, [`BinOp::ALL`]): `*` `/` `%`, then `+` `-`, the
//! shifts `<<` `>>`, the relations, the equalities, `&`, `^`, `|`, `&&`, `||`, each left to
//! right.

use super::lex::Tok;
use super::{Result, MAX_OPERATORS, P};
use crate::litmus::ir::*;
use crate::litmus::opencl::ast::*;
use crate::litmus::opencl::{order_from_name, OpenClScope};
use crate::scope::Order;

/// The Linux-kernel primitives of herd's C syntax (`LinuxLexer.g4`): not OpenCL C.
const LINUX: [&str; 12] = [
    "READ_ONCE",
    "WRITE_ONCE",
    "smp_mb",
    "smp_rmb",
    "smp_wmb",
    "smp_load_acquire",
    "smp_store_release",
    "spin_lock",
    "spin_unlock",
    "rcu_read_lock",
    "rcu_read_unlock",
    "xchg",
];

impl P<'_, '_> {
    /// `re`, binary operators by precedence.
    pub(super) fn expr(&mut self, prog: &Program, params: &[Param]) -> Result<CExpr> {
        self.binary(prog, params, 1)
    }

    /// Operands joined by operators of precedence `min` or more, left to right.
    fn binary(&mut self, prog: &Program, params: &[Param], min: u8) -> Result<CExpr> {
        let mut left = self.unary(prog, params)?;
        let mut built = 0;
        let out = loop {
            let op = match self.peek() {
                Some(Tok::Punct(p)) => BinOp::ALL
                    .iter()
                    .find(|(_, s, prec)| s == p && *prec >= min)
                    .map(|(o, ..)| *o),
                _ => None,
            };
            let Some(op) = op else { break Ok(left) };
            // Each operator deepens the tree the later passes walk recursively: a chain of
            // 100,000 `+` overflowed the stack after parsing.
            if self.operators == MAX_OPERATORS {
                break self.fail(format!(
                    "expression too long: more than {MAX_OPERATORS} operators in one expression"
                ));
            }
            self.operators += 1;
            built += 1;
            self.i += 1;
            match self.binary(prog, params, op.precedence() + 1) {
                Ok(right) => left = CExpr::Binary(op, Box::new(left), Box::new(right)),
                Err(e) => break Err(e),
            }
        };
        self.operators -= built;
        out
    }

    /// `Excl re`, `cast re`, `reParenthesis`, and the primaries.
    fn unary(&mut self, prog: &Program, params: &[Param]) -> Result<CExpr> {
        if self.is("!") || self.is("(") {
            return self.nested(|p| p.prefixed(prog, params));
        }
        self.primary(prog, params)
    }

    /// `Excl re`, `cast re` and `reParenthesis`: the forms that nest.
    fn prefixed(&mut self, prog: &Program, params: &[Param]) -> Result<CExpr> {
        if self.eat("!") {
            return Ok(CExpr::Not(Box::new(self.unary(prog, params)?)));
        }
        if self.is("(") {
            // `cast : LPar typeSpecifier Ast* RPar`, else `reParenthesis`.
            let save = self.i;
            self.i += 1;
            if let Some(ty) = self.ctype()? {
                self.expect(")")?;
                return Ok(CExpr::Cast(ty, Box::new(self.unary(prog, params)?)));
            }
            self.i = save + 1;
            let inner = self.expr(prog, params)?;
            self.expect(")")?;
            return Ok(CExpr::Paren(Box::new(inner)));
        }
        self.primary(prog, params)
    }

    /// `Ast address` (`reReadNa`), constants, registers and calls.
    fn primary(&mut self, prog: &Program, params: &[Param]) -> Result<CExpr> {
        if self.eat("*") {
            return Ok(CExpr::Deref(self.address(prog, params)?));
        }
        let at = self.here();
        match self.peek() {
            Some(Tok::Int(_)) | Some(Tok::Punct("-")) => Ok(CExpr::Int(self.int()?)),
            Some(Tok::Ident(w)) if w == "true" || w == "false" => {
                self.i += 1;
                Ok(CExpr::Bool(w == "true"))
            }
            Some(Tok::Ident(w)) if w.starts_with("atomic_") => {
                Ok(CExpr::Call(Box::new(self.call(prog, params)?)))
            }
            Some(Tok::Ident(w)) if LINUX.contains(&w.as_str()) || w.starts_with("atomic64_") => {
                self.fail(format!("`{w}` is a Linux-kernel primitive, not OpenCL C"))
            }
            Some(Tok::Ident(w)) if matches!(self.peek_at(1), Some(Tok::Punct("("))) => {
                self.fail(format!("unknown function `{w}`"))
            }
            Some(Tok::Ident(w)) => {
                if self.names_location(prog, params, w) {
                    return self.fail_at(
                        at,
                        format!(
                            "`{w}` is a location: write `*{w}` or an atomic function to read it"
                        ),
                    );
                }
                self.i += 1;
                Ok(CExpr::Reg(Reg(w.clone())))
            }
            _ => {
                let found = self.describe();
                self.fail(format!("expected an expression, found {found}"))
            }
        }
    }

    /// Whether `name` is a location or array the kernel can name.
    pub(super) fn names_location(&self, prog: &Program, params: &[Param], name: &str) -> bool {
        let loc = prog
            .location_named(name)
            .or_else(|| self.arrays.get(name).map(|a| a.0));
        loc.is_some_and(|l| params.iter().any(|p| p.loc == l))
    }

    /// An address: a parameter, `offset` elements on: `x`, `y + 1`, either in parentheses.
    pub(super) fn address(&mut self, prog: &Program, params: &[Param]) -> Result<Address> {
        let parens = self.eat("(");
        let at = self.here();
        let name = self.ident("a location")?;
        let (base, len) = match (prog.location_named(&name), self.arrays.get(&name)) {
            (Some(l), _) => (l, 1),
            (None, Some(&(first, n))) => (first, n),
            (None, None) => {
                return self.fail_at(at, format!("`{name}` is not a parameter of this kernel"))
            }
        };
        if !params.iter().any(|p| p.loc == base) {
            return self.fail_at(at, format!("`{name}` is not a parameter of this kernel"));
        }
        let offset = match self.eat("+") {
            true => {
                let oat = self.here();
                let k = self.count("offset")?;
                if k >= len {
                    return self.fail_at(
                        oat,
                        format!("`{name} + {k}` is outside `{name}`, which has {len} element(s)"),
                    );
                }
                k
            }
            false => 0,
        };
        if parens {
            self.expect(")")?;
        }
        Ok(Address {
            base,
            offset,
            parens,
        })
    }

    /// `c11Mo`. `memory_order_consume` is C11's, not OpenCL C's (OpenCL C §6.13.11.4 lists
    /// relaxed, acquire, release, acq_rel and seq_cst).
    fn order(&mut self) -> Result<Order> {
        let at = self.here();
        let name = self.ident("a memory order")?;
        if name == "memory_order_consume" {
            return self.fail_at(
                at,
                "`memory_order_consume` is not an OpenCL C memory order (OpenCL C 6.13.11.4)",
            );
        }
        order_from_name(&name)
            .ok_or_else(|| (self.err)(at, format!("expected a `memory_order_...`, found `{name}`")))
    }

    /// `openCLScope`.
    pub(super) fn scope(&mut self) -> Result<OpenClScope> {
        let at = self.here();
        let name = self.ident("a memory scope")?;
        OpenClScope::from_name(&name)
            .ok_or_else(|| (self.err)(at, format!("expected a `memory_scope_...`, found `{name}`")))
    }

    /// `(Comma openCLScope)?`.
    fn scope_opt(&mut self) -> Result<Option<OpenClScope>> {
        match self.eat(",") {
            true => Ok(Some(self.scope()?)),
            false => Ok(None),
        }
    }

    /// `openCLFenceFlags : openCLFenceFlag Bar openCLFenceFlag | openCLFenceFlag`.
    pub(super) fn flags(&mut self) -> Result<Flags> {
        let mut flags = Flags {
            global: false,
            local: false,
            local_first: false,
        };
        for k in 0..2 {
            let at = self.here();
            match self.ident("a fence flag")?.as_str() {
                "CLK_GLOBAL_MEM_FENCE" if !flags.global => flags.global = true,
                "CLK_LOCAL_MEM_FENCE" if !flags.local => {
                    flags.local = true;
                    flags.local_first = k == 0;
                }
                other => {
                    return self.fail_at(
                        at,
                        format!(
                            "expected `CLK_GLOBAL_MEM_FENCE` or `CLK_LOCAL_MEM_FENCE` (once each), found `{other}`"
                        ),
                    )
                }
            }
            if !self.eat("|") {
                break;
            }
        }
        flags.local_first &= flags.global;
        Ok(flags)
    }

    /// A call of an atomic function (`C11AtomicOp`, `reC11AtomicXchg[Explicit]`,
    /// `reC11SCmpXchg[Explicit]`, `reC11Load[Explicit]`, `nreC11Store[Explicit]`,
    /// `nreOpenCLFence`).
    fn call(&mut self, prog: &Program, params: &[Param]) -> Result<Call> {
        let at = self.here();
        let name = self.ident("an atomic function")?;
        let (base, explicit) = match name.strip_suffix("_explicit") {
            Some(b) => (b.to_string(), true),
            None => (name.clone(), false),
        };
        self.expect("(")?;
        let mode = |p: &mut Self| -> Result<Mode> {
            if !explicit {
                return Ok(Mode::Plain);
            }
            p.expect(",")?;
            let o = p.order()?;
            Ok(Mode::Explicit(o, p.scope_opt()?))
        };
        let call = match base.as_str() {
            "atomic_load" => {
                let loc = self.address(prog, params)?;
                let mode = mode(self)?;
                // OpenCL C §6.13.11.7.2 (after C11 7.17.7.2): "The order argument shall not be
                // memory_order_release nor memory_order_acq_rel."
                if matches!(mode.order(), Order::Release | Order::AcqRel) {
                    return self.fail_at(at, "atomic_load: \"The order argument shall not be memory_order_release nor memory_order_acq_rel\"");
                }
                Call::Load { loc, mode }
            }
            "atomic_store" => {
                let loc = self.address(prog, params)?;
                self.expect(",")?;
                let value = self.expr(prog, params)?;
                let mode = mode(self)?;
                // §6.13.11.7.1: "The order argument shall not be memory_order_acquire, nor
                // memory_order_acq_rel."
                if matches!(mode.order(), Order::Acquire | Order::AcqRel) {
                    return self.fail_at(at, "atomic_store: \"The order argument shall not be memory_order_acquire, nor memory_order_acq_rel\"");
                }
                Call::Store { loc, value, mode }
            }
            "atomic_exchange" => {
                let loc = self.address(prog, params)?;
                self.expect(",")?;
                let value = self.expr(prog, params)?;
                Call::Fetch {
                    op: RmwOp::Exch,
                    loc,
                    value,
                    mode: mode(self)?,
                }
            }
            "atomic_compare_exchange_strong" => {
                let loc = self.address(prog, params)?;
                self.expect(",")?;
                let expected = self.address(prog, params)?;
                self.expect(",")?;
                let desired = self.expr(prog, params)?;
                let (mode, fail) = match explicit {
                    true => {
                        self.expect(",")?;
                        let o = self.order()?;
                        self.expect(",")?;
                        let f = self.order()?;
                        (Mode::Explicit(o, self.scope_opt()?), Some(f))
                    }
                    false => (Mode::Plain, None),
                };
                Call::CompareExchange {
                    loc,
                    expected,
                    desired,
                    mode,
                    fail,
                }
            }
            // C11 7.17.7.4: "A weak compare-and-exchange operation may fail spuriously": a
            // choice this IR cannot express, so it is refused rather than read as strong.
            "atomic_compare_exchange_weak" => {
                return self.fail_at(
                    at,
                    "atomic_compare_exchange_weak may fail spuriously, which is not modelled: use atomic_compare_exchange_strong",
                )
            }
            "atomic_work_item_fence" => {
                let flags = self.flags()?;
                self.expect(",")?;
                let order = self.order()?;
                self.expect(",")?;
                let scope = self.scope()?;
                Call::Fence {
                    flags,
                    order,
                    scope,
                }
            }
            "atomic_thread_fence" => {
                return self.fail_at(
                    at,
                    "atomic_thread_fence is C11's; OpenCL C fences are atomic_work_item_fence(flags, order, scope)",
                )
            }
            b => match b
                .strip_prefix("atomic_fetch_")
                .and_then(|op| FETCH_OPS.iter().find(|(n, _)| *n == op))
            {
                Some(&(_, op)) => {
                    let loc = self.address(prog, params)?;
                    self.expect(",")?;
                    let value = self.expr(prog, params)?;
                    Call::Fetch {
                        op,
                        loc,
                        value,
                        mode: mode(self)?,
                    }
                }
                None => return self.fail_at(at, format!("unknown atomic function `{name}`")),
            },
        };
        self.expect(")")?;
        Ok(call)
    }
}
