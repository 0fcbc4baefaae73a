//! The PTX parser: a recursive-descent parser over the [lexer](super::lex)'s tokens, split by
//! syntactic family as rustc's parser is: [`module`] (module directives and function headers),
//! [`decl`] (variable and register declarations), [`stmt`] (the statements of a body) and
//! [`instr`] (instructions and their operands). This file holds the entry point and the helpers
//! they share: the token window, the scopes of `.reg` names, and errors.
//!
//! Guards: one token of lookahead past a window of two, so parsing is linear in the input;
//! nested `{ }` blocks and initialiser lists deeper than [`MAX_DEPTH`] are an error, not a
//! stack overflow; no input makes the parser panic.

mod decl;
mod instr;
mod module;
mod stmt;

use super::ast::{Module, Pos};
use super::error::PtxError;
use super::lex::{Lexer, Tok, Token};
use std::collections::VecDeque;

/// How deep `{ }` blocks and `{ }` initialiser lists may nest.
pub const MAX_DEPTH: usize = 64;

/// Parses the PTX module `src`; `path` names it in errors (`path:line:col: message`).
pub fn parse(src: &str, path: &str) -> Result<Module, PtxError> {
    Parser::new(src, path).module()
}

type PResult<T> = Result<T, PtxError>;

/// The parser's state: the lexer, a window of lookahead tokens, and the `.reg` names declared in
/// each enclosing scope (a name is a register operand if it starts with `%` or is one of them).
pub(crate) struct Parser<'a> {
    src: &'a str,
    path: &'a str,
    lexer: Lexer<'a>,
    window: VecDeque<Token<'a>>,
    /// The first lexical error met, reported in place of any parse error that follows it.
    lex_error: Option<(Pos, String)>,
    /// Where the last consumed token ends (for "missing `;`" errors).
    last_end: Pos,
    /// `.reg` declarations in scope: name and `<N>` range.
    regs: Vec<Vec<(String, Option<u32>)>>,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, path: &'a str) -> Parser<'a> {
        Parser {
            src,
            path,
            lexer: Lexer::new(src),
            window: VecDeque::new(),
            lex_error: None,
            last_end: Pos { line: 1, col: 1 },
            regs: vec![Vec::new()],
            depth: 0,
        }
    }

    /// The token `n` places ahead (0: the next one). After a lexical error every token is `Eof`.
    fn peek_nth(&mut self, n: usize) -> Token<'a> {
        while self.window.len() <= n {
            let t = match self.lex_error {
                Some((pos, _)) => eof_at(pos),
                None => match self.lexer.next_token() {
                    Ok(t) => t,
                    Err((pos, msg)) => {
                        self.lex_error = Some((pos, msg));
                        eof_at(pos)
                    }
                },
            };
            self.window.push_back(t);
        }
        self.window[n]
    }

    fn peek(&mut self) -> Token<'a> {
        self.peek_nth(0)
    }

    fn next(&mut self) -> Token<'a> {
        let t = self.peek();
        self.window.pop_front();
        let width = self
            .src
            .get(t.start..t.end)
            .map_or(0, |s| s.chars().count());
        self.last_end = Pos {
            line: t.pos.line,
            col: t.pos.col.saturating_add(width as u32),
        };
        t
    }

    /// Consumes the next token if it is `tok`.
    fn eat(&mut self, tok: Tok<'_>) -> bool {
        if self.peek().tok == tok {
            self.next();
            true
        } else {
            false
        }
    }

    /// An error at `pos`; a lexical error met earlier is the real cause and is reported instead.
    fn error(&self, pos: Pos, message: impl Into<String>) -> PtxError {
        match &self.lex_error {
            Some((p, m)) => PtxError::new(self.path, *p, m.clone()),
            None => PtxError::new(self.path, pos, message),
        }
    }

    /// "expected WHAT, found TOKEN" at the next token.
    fn expected<T>(&mut self, what: &str) -> PResult<T> {
        let t = self.peek();
        let found = t.describe(self.src);
        Err(self.error(t.pos, format!("expected {what}, found {found}")))
    }

    /// Consumes punctuation `c` or fails with "expected `c` CONTEXT".
    fn expect_punct(&mut self, c: char, context: &str) -> PResult<Token<'a>> {
        if self.peek().tok == Tok::Punct(c) {
            Ok(self.next())
        } else {
            self.expected(&format!("`{c}` {context}"))
        }
    }

    /// The `;` ending a statement: when missing, the error is just after the statement's last
    /// token, where the `;` belongs.
    fn expect_semi(&mut self, what: &str) -> PResult<()> {
        if self.eat(Tok::Punct(';')) {
            return Ok(());
        }
        let t = self.peek();
        let found = t.describe(self.src);
        Err(self.error(
            self.last_end,
            format!("missing `;` after {what} (found {found})"),
        ))
    }

    fn ident(&mut self, what: &str) -> PResult<(&'a str, Pos)> {
        match self.peek().tok {
            Tok::Ident(name) => {
                let t = self.next();
                Ok((name, t.pos))
            }
            _ => self.expected(what),
        }
    }

    /// An unsigned integer constant.
    fn uint(&mut self, what: &str) -> PResult<u64> {
        match self.peek().tok {
            Tok::Int(v) => {
                self.next();
                Ok(v)
            }
            _ => self.expected(what),
        }
    }

    /// An integer constant that must fit in 32 bits.
    fn u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.peek();
        let v = self.uint(what)?;
        u32::try_from(v).map_err(|_| self.error(t.pos, format!("{what} {v} is too large")))
    }

    /// `[+|-] [-] INT` after a name or an address base (`sym+8`, `[%rd1+-4]`, `[%rd1-4]`); 0
    /// when there is none. PTX ISA, "Addresses as Operands": "`[reg+imm]`", "`[var+imm]`".
    fn offset(&mut self) -> PResult<i64> {
        let sign = match self.peek().tok {
            Tok::Punct('+') => 1,
            Tok::Punct('-') => -1,
            _ => return Ok(0),
        };
        self.next();
        let v = self.signed_int("an offset")?;
        Ok(v.wrapping_mul(sign))
    }

    /// `[-] INT`, as a two's-complement `i64`.
    fn signed_int(&mut self, what: &str) -> PResult<i64> {
        let negative = self.eat(Tok::Punct('-'));
        let v = self.uint(what)? as i64;
        Ok(if negative { v.wrapping_neg() } else { v })
    }

    /// Enters a nested `{ }` (block or initialiser list) opened at `pos`.
    fn enter(&mut self, pos: Pos, what: &str) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(pos, format!("{what} nested deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Whether `name` is a register: PTX ISA, "Identifiers": "`%` … is used to prefix
    /// system-defined … register names"; or declared by a `.reg` in an enclosing scope
    /// (inline assembly declares `.reg .pred p;`).
    fn is_reg(&self, name: &str) -> bool {
        name.starts_with('%')
            || self
                .regs
                .iter()
                .rev()
                .flatten()
                .any(|(n, range)| match range {
                    None => n == name,
                    Some(count) => name
                        .strip_prefix(n.as_str())
                        .and_then(|i| i.parse::<u32>().ok())
                        .is_some_and(|i| i < *count),
                })
    }
}

fn eof_at(pos: Pos) -> Token<'static> {
    Token {
        tok: Tok::Eof,
        pos,
        start: 0,
        end: 0,
    }
}
