//! Compiling expressions: names resolved, functions inlined, types checked.

use super::base::Ty;
use super::compiler::Compiler;
use super::graph::{Op, MAX_HEIGHT, MAX_INLINED};
use crate::cat::env::{Binding, Scope};
use crate::cat::syntax::{self, BinOp, ExprKind, Pos, UnOp};
use crate::cat::CatError;

impl Compiler<'_> {
    /// The node of an expression, with its functions' bodies inlined. Fails where the
    /// recursion through function bodies, the graph's height or the inlined size pass their
    /// bounds ([`MAX_HEIGHT`], [`MAX_INLINED`]).
    pub(super) fn expr(
        &mut self,
        file: &str,
        env: &Scope,
        e: &syntax::Expr,
    ) -> Result<usize, CatError> {
        self.visited += 1;
        if self.visited > MAX_INLINED {
            let what = match &e.kind {
                ExprKind::Call(name, _) => format!(" (inlining `{name}`)"),
                _ => String::new(),
            };
            return Err(CatError::at(
                file,
                e.pos,
                format!("the model grows past {MAX_INLINED} expression nodes as its functions are inlined{what}: functions applying functions blow up exponentially"),
            ));
        }
        if self.depth >= MAX_HEIGHT {
            return Err(CatError::at(
                file,
                e.pos,
                format!(
                    "expressions nest more than {MAX_HEIGHT} deep through function applications"
                ),
            ));
        }
        self.depth += 1;
        let node = self.expr_inlined(file, env, e);
        self.depth -= 1;
        let node = node?;
        if self.nodes[node].height > MAX_HEIGHT {
            return Err(CatError::at(
                file,
                e.pos,
                format!("the model's operations nest more than {MAX_HEIGHT} deep through its definitions"),
            ));
        }
        Ok(node)
    }

    pub(super) fn expr_inlined(
        &mut self,
        file: &str,
        env: &Scope,
        e: &syntax::Expr,
    ) -> Result<usize, CatError> {
        let err = |message: String| CatError::at(file, e.pos, message);
        match &e.kind {
            ExprKind::Zero => Ok(self.node(Op::Zero, Ty::Rel)),
            ExprKind::Name(name) => match env.get(name) {
                Some(Binding::Value(i)) => Ok(i),
                Some(Binding::Function(_)) => Err(err(format!(
                    "`{name}` is a function: apply it, `{name}(…)`"
                ))),
                None => Err(err(format!("unknown name `{name}`"))),
            },
            ExprKind::Call(name, args) => {
                let mut values = Vec::new();
                for a in args {
                    values.push(self.expr(file, env, a)?);
                }
                match (name.as_str(), env.get(name)) {
                    (_, Some(Binding::Function(f))) => {
                        if f.params.len() != values.len() {
                            return Err(err(format!(
                                "`{name}` takes {} argument(s), given {}",
                                f.params.len(),
                                values.len()
                            )));
                        }
                        let inner = Scope::of_function(env.names, &f, &values);
                        self.expr(&f.file, &inner, &f.body)
                    }
                    ("domain" | "range", _) => {
                        let [a] = values[..] else {
                            return Err(err(format!("`{name}` takes one relation")));
                        };
                        self.want(file, args[0].pos, a, Ty::Rel)?;
                        let op = if name == "domain" {
                            Op::Domain(a)
                        } else {
                            Op::Range(a)
                        };
                        Ok(self.node(op, Ty::Set))
                    }
                    (_, Some(Binding::Value(_))) => Err(err(format!("`{name}` is not a function"))),
                    (_, None) => Err(err(format!("unknown function `{name}`"))),
                }
            }
            ExprKind::Identity(a) => {
                let a_pos = a.pos;
                let a = self.expr(file, env, a)?;
                self.want(file, a_pos, a, Ty::Set)?;
                Ok(self.node(Op::Identity(a), Ty::Rel))
            }
            ExprKind::Unary(op, a) => {
                let a = self.expr(file, env, a)?;
                let ty = self.nodes[a].ty;
                if *op == UnOp::Complement {
                    return Ok(self.node(Op::Complement(a), ty));
                }
                self.want(file, e.pos, a, Ty::Rel)?;
                let op = match op {
                    UnOp::Inverse => Op::Inverse(a),
                    UnOp::Plus => Op::Plus(a),
                    UnOp::Star => Op::Star(a),
                    UnOp::Opt => Op::Opt(a),
                    UnOp::Complement => unreachable!("handled above"),
                };
                Ok(self.node(op, Ty::Rel))
            }
            ExprKind::Binary(op, a, b) => {
                let (a_pos, b_pos) = (a.pos, b.pos);
                let a = self.expr(file, env, a)?;
                let b = self.expr(file, env, b)?;
                match op {
                    BinOp::Seq => {
                        self.want(file, a_pos, a, Ty::Rel)?;
                        self.want(file, b_pos, b, Ty::Rel)?;
                        Ok(self.node(Op::Seq(a, b), Ty::Rel))
                    }
                    BinOp::Cross => {
                        self.want(file, a_pos, a, Ty::Set)?;
                        self.want(file, b_pos, b, Ty::Set)?;
                        Ok(self.node(Op::Cross(a, b), Ty::Rel))
                    }
                    _ => {
                        let ty = self.nodes[a].ty;
                        self.want(file, b_pos, b, ty)?;
                        let op = match op {
                            BinOp::Union => Op::Union(a, b),
                            BinOp::Inter => Op::Inter(a, b),
                            _ => Op::Diff(a, b),
                        };
                        Ok(self.node(op, ty))
                    }
                }
            }
        }
    }

    pub(super) fn want(&self, file: &str, pos: Pos, node: usize, ty: Ty) -> Result<(), CatError> {
        let got = self.nodes[node].ty;
        if got == ty {
            return Ok(());
        }
        let name = |t: Ty| match t {
            Ty::Set => "a set of events",
            Ty::Rel => "a relation",
        };
        Err(CatError::at(
            file,
            pos,
            format!("expected {}, found {}", name(ty), name(got)),
        ))
    }
}
