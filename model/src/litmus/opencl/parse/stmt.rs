//! Statements: `expression : nre Semi | ifExpression | whileExpression` and the `nre` forms
//! (declarations, assignments, stores, calls, fences and labelled barriers).

use super::lex::Tok;
use super::{Result, P};
use crate::litmus::ir::*;
use crate::litmus::opencl::ast::*;

impl P<'_, '_> {
    /// Statements up to the closing `}` (consumed).
    pub(super) fn block_body(&mut self, prog: &Program, params: &[Param]) -> Result<Vec<Located>> {
        let mut out = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return self.fail("missing `}` closing this block");
            }
            // An empty statement.
            if self.eat(";") {
                continue;
            }
            out.push(self.stmt(prog, params)?);
        }
        Ok(out)
    }

    /// `expression | LBrace expression* RBrace`: an arm of an `if`, `else` or `while`.
    fn arm(&mut self, prog: &Program, params: &[Param]) -> Result<Vec<Located>> {
        self.nested(|p| match p.eat("{") {
            true => p.block_body(prog, params),
            false => Ok(vec![p.stmt(prog, params)?]),
        })
    }

    /// `LPar re RPar`: the condition of an `if` or `while`.
    fn condition(&mut self, prog: &Program, params: &[Param]) -> Result<CExpr> {
        self.expect("(")?;
        let c = self.expr(prog, params)?;
        self.expect(")")?;
        Ok(c)
    }

    pub(super) fn stmt(&mut self, prog: &Program, params: &[Param]) -> Result<Located> {
        let at = self.here();
        let span = (self.pos)(at);
        let word = match self.peek() {
            Some(Tok::Ident(w)) => Some(w.as_str()),
            _ => None,
        };
        let stmt = match word {
            // `ifExpression : If LPar re RPar (expression | LBrace expression* RBrace)
            // elseExpression?`, `elseExpression : Else (expression | LBrace expression* RBrace)`.
            Some("if") => {
                self.i += 1;
                let c = self.condition(prog, params)?;
                let then = self.arm(prog, params)?;
                let other = match self.is_word("else") {
                    true => {
                        self.i += 1;
                        self.arm(prog, params)?
                    }
                    false => Vec::new(),
                };
                CStmt::If(c, then, other)
            }
            // `whileExpression : While LPar re RPar (expression | LBrace expression* RBrace)`.
            Some("while") => {
                self.i += 1;
                let c = self.condition(prog, params)?;
                CStmt::While(c, self.arm(prog, params)?)
            }
            // `nreOpenCLBarrier : barrierId Colon OpenCLBarrier LPar openCLFenceFlags (Comma
            // openCLScope)? RPar`, `BarrierIdentifier : 'B' DigitSequence`.
            Some(w) if matches!(self.peek_at(1), Some(Tok::Punct(":"))) => {
                let id = w
                    .strip_prefix('B')
                    .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
                    .and_then(|d| d.parse::<u32>().ok());
                let Some(id) = id else {
                    return self.fail(format!(
                        "`{w}:` is not a barrier label (`B` and a number, as in `B1: barrier(...)`)"
                    ));
                };
                self.i += 2;
                let bat = self.here();
                if self.ident("`barrier`")? != "barrier" {
                    return self.fail_at(bat, "a label `Bn:` names a `barrier(...)` call");
                }
                self.expect("(")?;
                let flags = self.flags()?;
                let scope = match self.eat(",") {
                    true => Some(self.scope()?),
                    false => None,
                };
                self.expect(")")?;
                self.expect(";")?;
                CStmt::Barrier { id, flags, scope }
            }
            Some("barrier") => {
                return self.fail("a barrier is labelled with its id: `B1: barrier(...)`")
            }
            _ => {
                let s = self.nre(prog, params)?;
                self.expect(";")?;
                s
            }
        };
        Ok(Located { stmt, span })
    }

    /// `nre` before its `;`: `nreRegDeclaration : typeSpecifier varName (Equals re)?`,
    /// `nreAssignment : Ast? varName Equals re`, or an expression (`reAsNre`, the calls).
    fn nre(&mut self, prog: &Program, params: &[Param]) -> Result<CStmt> {
        let at = self.here();
        if let Some(ty) = self.ctype()? {
            if ty.pointers > 0 {
                return self.fail_at(at, "registers hold integers: declare `int r`");
            }
            let r = self.register(prog, params)?;
            let init = match self.eat("=") {
                true => Some(self.expr(prog, params)?),
                false => None,
            };
            return Ok(CStmt::Decl(ty, r, init));
        }
        if self.is("*") && matches!(self.peek_at(1), Some(Tok::Ident(_)) | Some(Tok::Punct("("))) {
            // `*x = e` (a store), or a load `*x` in an expression statement.
            let save = self.i;
            self.i += 1;
            let addr = self.address(prog, params)?;
            if self.eat("=") {
                return Ok(CStmt::Store(addr, self.expr(prog, params)?));
            }
            self.i = save;
        }
        if let (Some(Tok::Ident(name)), Some(Tok::Punct("="))) = (self.peek(), self.peek_at(1)) {
            if !name.starts_with("atomic_") {
                let r = self.register(prog, params)?;
                self.i += 1;
                return Ok(CStmt::Assign(r, self.expr(prog, params)?));
            }
        }
        Ok(CStmt::Expr(self.expr(prog, params)?))
    }

    /// A register name: a `varName` that is no location of the kernel.
    fn register(&mut self, prog: &Program, params: &[Param]) -> Result<Reg> {
        let at = self.here();
        let name = self.ident("a register name")?;
        if self.names_location(prog, params, &name) {
            return self.fail_at(
                at,
                format!("`{name}` is a location: write `*{name}` to access it"),
            );
        }
        Ok(Reg(name))
    }
}
