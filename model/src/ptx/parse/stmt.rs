//! The statements of a function body. PTX ISA, "Statements": "A PTX statement is either a
//! directive or an instruction. Statements begin with an optional label and end with a
//! semicolon." A body may hold labels (`name:`), declarations, `.loc` and `.pragma` directives,
//! instructions and nested `{ }` blocks, which open a scope for the declarations inside.

use super::{PResult, Parser};
use crate::ptx::ast::{Loc, Pos, Statement};
use crate::ptx::lex::Tok;

impl<'a> Parser<'a> {
    /// The statements after a `{` at `open`, up to and including the matching `}`.
    pub(super) fn block_body(&mut self, open: Pos) -> PResult<Vec<Statement>> {
        self.enter(open, "`{ }` blocks")?;
        self.regs.push(Vec::new());
        let result = self.statements(open);
        self.regs.pop();
        self.leave();
        result
    }

    fn statements(&mut self, open: Pos) -> PResult<Vec<Statement>> {
        let mut out = Vec::new();
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Punct('}') => {
                    self.next();
                    return Ok(out);
                }
                Tok::Eof => {
                    return Err(self.error(open, "unterminated block: no `}` matches this `{`"));
                }
                Tok::Punct('{') => {
                    self.next();
                    let body = self.block_body(t.pos)?;
                    out.push(Statement::Block { pos: t.pos, body });
                }
                Tok::Dot("loc") => {
                    self.next();
                    out.push(Statement::Loc(self.loc(t.pos)?));
                }
                Tok::Dot("pragma") => {
                    self.next();
                    let text = self.pragma_text()?;
                    out.push(Statement::Pragma { pos: t.pos, text });
                }
                Tok::Dot(n) => {
                    let linkage = super::module::linkage(n);
                    let space_at = usize::from(linkage.is_some());
                    let space = match self.peek_nth(space_at).tok {
                        Tok::Dot(s) => super::decl::state_space(s),
                        _ => None,
                    };
                    if space.is_none() {
                        let at = self.peek_nth(space_at);
                        let what = match at.tok {
                            Tok::Dot(s) => format!("unknown directive `.{s}`"),
                            _ => format!("expected a state space, found {}", at.describe(self.src)),
                        };
                        return Err(self.error(at.pos, what));
                    }
                    if linkage.is_some() {
                        self.next();
                    }
                    for d in self.var_decls(t.pos, linkage)? {
                        out.push(Statement::Decl(d));
                    }
                }
                Tok::Ident(name) if self.peek_nth(1).tok == Tok::Punct(':') => {
                    self.next();
                    self.next();
                    out.push(Statement::Label {
                        pos: t.pos,
                        name: name.to_string(),
                    });
                }
                Tok::Ident(_) | Tok::Punct('@') => {
                    out.push(Statement::Instr(self.instruction()?));
                }
                _ => return self.expected("a statement"),
            }
        }
    }

    /// After `.loc`. PTX ISA, ".loc": "`.loc file_index line_number column_position`" and
    /// "`.loc file_index line_number column_position,function_name label {+ immediate },
    /// inlined_at file_index2 line_number2 column_position2`". It takes no `;` (one is allowed).
    fn loc(&mut self, pos: Pos) -> PResult<Loc> {
        let file = self.loc_number("the file index")?;
        let line = self.loc_number("the line number")?;
        let col = self.loc_number("the column")?;
        let mut loc = Loc {
            pos,
            file,
            line,
            col,
            function_name: None,
            inlined_at: None,
        };
        while self.peek().tok == Tok::Punct(',') {
            self.next();
            let t = self.peek();
            match t.tok {
                Tok::Ident("function_name") if loc.function_name.is_none() => {
                    self.next();
                    let (label, _) = self.ident_for_loc("a label after `function_name`")?;
                    let offset = if self.eat(Tok::Punct('+')) {
                        Some(self.uint("an offset after `+`")?)
                    } else {
                        None
                    };
                    loc.function_name = Some(match offset {
                        Some(n) => format!("{label}+{n}"),
                        None => label.to_string(),
                    });
                }
                Tok::Ident("inlined_at") if loc.inlined_at.is_none() => {
                    self.next();
                    let f = self.loc_number("the file index after `inlined_at`")?;
                    let l = self.loc_number("the line number after `inlined_at`")?;
                    let c = self.loc_number("the column after `inlined_at`")?;
                    loc.inlined_at = Some((f, l, c));
                }
                _ => {
                    return Err(self.error(
                        t.pos,
                        format!(
                            "malformed `.loc`: expected `function_name` or `inlined_at`, found {}",
                            t.describe(self.src)
                        ),
                    ))
                }
            }
        }
        self.eat(Tok::Punct(';'));
        Ok(loc)
    }

    fn loc_number(&mut self, what: &str) -> PResult<u32> {
        let t = self.peek();
        match t.tok {
            Tok::Int(v) => {
                self.next();
                u32::try_from(v).map_err(|_| {
                    self.error(t.pos, format!("malformed `.loc`: {what} {v} is too large"))
                })
            }
            _ => Err(self.error(
                t.pos,
                format!(
                    "malformed `.loc`: expected {what}, found {}",
                    t.describe(self.src)
                ),
            )),
        }
    }

    fn ident_for_loc(&mut self, what: &str) -> PResult<(&'a str, Pos)> {
        let t = self.peek();
        match t.tok {
            Tok::Ident(n) => {
                self.next();
                Ok((n, t.pos))
            }
            _ => Err(self.error(
                t.pos,
                format!(
                    "malformed `.loc`: expected {what}, found {}",
                    t.describe(self.src)
                ),
            )),
        }
    }
}
