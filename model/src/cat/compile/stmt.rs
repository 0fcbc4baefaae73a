//! Compiling statements: `let`, `let rec`, checks and `include`s, one file at a time.

use super::base::Ty;
use super::compiler::{intern, Compiler};
use super::graph::{Check, Group, Op};
use crate::cat::env::{Binding, Function, Names, Scope};
use crate::cat::syntax::{self, CheckKind, Stmt};
use crate::cat::CatError;
use std::path::Path;
use std::rc::Rc;

impl Compiler<'_> {
    /// Compiles one file's statements, binding its names in `env`; its title and options.
    pub(super) fn file(
        &mut self,
        file: &str,
        text: &str,
        env: &mut Names,
    ) -> Result<(Option<String>, Vec<syntax::ModelOption>), CatError> {
        // Every error in this file gets its source line here (those of included files got
        // theirs from their own text).
        let with_line = |e: CatError| e.in_text(file, text);
        let parsed = syntax::parse(file, text).map_err(with_line)?;
        for stmt in &parsed.stmts {
            self.stmt(file, stmt, env).map_err(with_line)?;
        }
        Ok((parsed.title, parsed.options))
    }

    pub(super) fn stmt(
        &mut self,
        file: &str,
        stmt: &Stmt,
        env: &mut Names,
    ) -> Result<(), CatError> {
        match stmt {
            Stmt::Include { pos, file: name } => {
                let Some((text, shown)) = self.source.include(file, name) else {
                    return Err(CatError::at(
                        file,
                        *pos,
                        format!("cannot include `{name}`: no such model or file"),
                    ));
                };
                if self.reading.contains(&shown) {
                    return Err(CatError::at(
                        file,
                        *pos,
                        format!("`{name}` includes itself"),
                    ));
                }
                self.reading.push(shown.clone());
                self.file(&shown, &text, env)?;
                self.reading.pop();
            }
            Stmt::Let {
                rec: false,
                bindings,
            } => {
                // Simultaneous: every body sees the names as they were before.
                let mut bound = Vec::new();
                for b in bindings {
                    let value = if b.function {
                        Binding::Function(Rc::new(Function {
                            params: b.params.clone(),
                            body: b.body.clone(),
                            defined: env.now(),
                            file: file.to_string(),
                        }))
                    } else {
                        Binding::Value(self.expr(file, &Scope::top(env), &b.body)?)
                    };
                    bound.push((&b.name, value));
                }
                for (name, value) in bound {
                    env.bind(name, value);
                }
            }
            Stmt::Let {
                rec: true,
                bindings,
            } => {
                if let Some(b) = bindings.iter().find(|b| b.function) {
                    return Err(CatError::at(
                        file,
                        b.pos,
                        "recursive functions are not supported; `let rec` binds relations"
                            .to_string(),
                    ));
                }
                let g = self.groups.len();
                self.groups.push(Group {
                    vars: Vec::new(),
                    bodies: Vec::new(),
                });
                for (k, b) in bindings.iter().enumerate() {
                    let v = self.node(Op::RecVar(g, k), Ty::Rel);
                    self.groups[g].vars.push(v);
                    env.bind(&b.name, Binding::Value(v));
                }
                for b in bindings {
                    let body = self.expr(file, &Scope::top(env), &b.body)?;
                    self.want(file, b.body.pos, body, Ty::Rel)?;
                    // The value of `let rec` is the least fixed point, reached by iterating the
                    // bodies from empty relations (herd7's semantics); that iteration ends, on
                    // finitely many pairs, when the bodies are monotone in the variables.
                    // `~` and the right of `\` are the only operations that are not.
                    if !self.nodes[body].rec_monotone {
                        return Err(CatError::at(
                            file,
                            b.body.pos,
                            format!(
                                "`let rec {}` is not monotone (a variable of its group under `~` or on the right of `\\`): its fixed-point iteration need not converge",
                                b.name
                            ),
                        ));
                    }
                    self.groups[g].bodies.push(body);
                }
                for (k, b) in bindings.iter().enumerate() {
                    let fix = self.node(Op::Fix(g, k), Ty::Rel);
                    env.bind(&b.name, Binding::Value(fix));
                }
            }
            Stmt::Check {
                pos,
                kind,
                negated,
                flag,
                expr,
                name,
            } => {
                let node = self.expr(file, &Scope::top(env), expr)?;
                if *kind != CheckKind::Empty {
                    self.want(file, expr.pos, node, Ty::Rel)?;
                }
                let name = match name {
                    Some(n) => intern(n),
                    None => intern(&format!(
                        "{}:{}:{}",
                        Path::new(file)
                            .file_name()
                            .map_or(file.into(), |f| f.to_string_lossy()),
                        pos.line,
                        pos.col
                    )),
                };
                self.checks.push(Check {
                    name,
                    kind: *kind,
                    negated: *negated,
                    flag: *flag,
                    node,
                    pos: *pos,
                });
            }
        }
        Ok(())
    }
}
