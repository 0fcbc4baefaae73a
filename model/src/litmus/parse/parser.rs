//! The parser's state and what every syntactic family shares: the bounds on a test, the text
//! cursor and its errors, pieces of text with their offsets, and one instruction's mnemonic and
//! arguments with the helpers that read them.

use crate::litmus::error::LitmusError;
use crate::litmus::ir::*;
use crate::litmus::lines::LineIndex;
use crate::litmus::warp::WarpOp;
use crate::scope::{Order, Scope};
use std::cell::RefCell;

/// The most declarations (locations and register initialisations) an initial state may have:
/// far more than any engine can explore, and few enough that checking each name against the
/// earlier ones stays fast.
pub const MAX_DECLARATIONS: usize = 4096;

/// The most threads a program may have (the engines take at most this many events).
pub const MAX_THREADS: usize = 256;

/// The deepest parenthesis nesting a condition may have.
pub const MAX_NESTING: usize = 100;

/// The most `/\`, `\/` and `~` operators a condition (or filter) may have: every recursive
/// walk of a [`Prop`] is at most this deep.
pub const MAX_OPERATORS: usize = 1000;

pub(super) struct Parser<'a> {
    /// The text parsed: the file with its comments blanked out.
    pub(super) src: &'a str,
    /// The file as written, for positions and quoted source lines.
    pub(super) original: &'a str,
    /// The lines of `original`.
    pub(super) lines: LineIndex<'a>,
    pub(super) file: &'a str,
    pub(super) pos: usize,
    /// A Vulkan test (`VULKAN NAME` header): Dat3M's Vulkan instructions and placements.
    pub(super) vulkan: bool,
    /// An OpenCL test (`OPENCL NAME` header): herd's OpenCL C kernels.
    pub(super) opencl: bool,
    /// Errors recovered from so far (parsing went on past them).
    pub(super) recovered: RefCell<Vec<LitmusError>>,
}

pub(super) type Result<T> = std::result::Result<T, LitmusError>;

/// A piece of text with the byte offset it starts at in the file.
#[derive(Clone, Copy)]
pub(super) struct Piece<'a> {
    pub(super) text: &'a str,
    pub(super) at: usize,
}

impl<'a> Piece<'a> {
    pub(super) fn trim(self) -> Piece<'a> {
        let lead = self.text.len() - self.text.trim_start().len();
        Piece {
            text: self.text.trim(),
            at: self.at + lead,
        }
    }

    pub(super) fn split(self, sep: char) -> Vec<Piece<'a>> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, c) in self.text.char_indices() {
            if c == sep {
                out.push(Piece {
                    text: &self.text[start..i],
                    at: self.at + start,
                });
                start = i + c.len_utf8();
            }
        }
        out.push(Piece {
            text: &self.text[start..],
            at: self.at + start,
        });
        out
    }
}

impl<'a> Parser<'a> {
    pub(super) fn span(&self, offset: usize) -> Span {
        self.lines.span(offset)
    }

    pub(super) fn err<T>(&self, offset: usize, message: impl Into<String>) -> Result<T> {
        Err(self.error_at(self.span(offset), message))
    }

    pub(super) fn error_at(&self, span: Span, message: impl Into<String>) -> LitmusError {
        LitmusError::on_line(self.file, self.lines.line(span.line), span, message)
    }

    pub(super) fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    pub(super) fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// Notes an error and goes on parsing.
    pub(super) fn recover(&self, e: LitmusError) {
        self.recovered.borrow_mut().push(e);
    }

    /// Stops at the first error recovered from, if any: what follows needs a sound table.
    pub(super) fn stop_if_recovered(&self) -> Result<()> {
        let mut recovered = self.recovered.borrow_mut();
        match recovered.is_empty() {
            true => Ok(()),
            false => Err(recovered.remove(0)),
        }
    }
}

pub(super) fn split_words(p: Piece<'_>) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in p
        .text
        .char_indices()
        .chain(std::iter::once((p.text.len(), ' ')))
    {
        match (start, c.is_whitespace()) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                out.push(Piece {
                    text: &p.text[s..i],
                    at: p.at + s,
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// One instruction's mnemonic and arguments, with the helpers to read them.
pub(super) struct Ins<'p, 'a> {
    pub(super) p: &'p Parser<'a>,
    pub(super) mnemonic: Piece<'a>,
    pub(super) args: &'p [Piece<'a>],
    pub(super) end: usize,
    pub(super) locations: &'p mut Vec<Location>,
}

impl<'a> Ins<'_, 'a> {
    pub(super) fn arity(&self, n: usize) -> Result<()> {
        if self.args.len() == n {
            return Ok(());
        }
        let at = if self.args.len() > n {
            self.args[n].at
        } else {
            self.end
        };
        self.p.err(
            at,
            format!(
                "`{}` takes {n} operand{}, found {}",
                self.mnemonic.text,
                if n == 1 { "" } else { "s" },
                self.args.len()
            ),
        )
    }

    pub(super) fn reg(&self, i: usize) -> Result<Reg> {
        Ok(Reg(self.p.identifier(self.args[i], "register")?))
    }

    /// A barrier's operands `id[, id2][, quorum]`: its ids and its quorum; `what` names it in
    /// the error.
    pub(super) fn barrier_operands(&self, what: &str) -> Result<(Vec<Operand>, Option<Operand>)> {
        if self.args.is_empty() || self.args.len() > 3 {
            return self.p.err(
                self.end,
                format!("{what} takes 1 to 3 operands: id[, id2][, quorum]"),
            );
        }
        let ops: Vec<Operand> = (0..self.args.len())
            .map(|i| self.operand(i))
            .collect::<Result<_>>()?;
        Ok(if ops.len() == 3 {
            (ops[..2].to_vec(), Some(ops[2].clone()))
        } else {
            (ops, None)
        })
    }

    pub(super) fn operand(&self, i: usize) -> Result<Operand> {
        let a = self.args[i];
        if a.text.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            Ok(Operand::Imm(self.p.integer(a)?))
        } else {
            let name = self.p.identifier(a, "register or integer")?;
            if self.locations.iter().any(|l| l.name == name) {
                return self.p.err(
                    a.at,
                    format!(
                        "`{name}` is a location; a value operand must be a register or an integer"
                    ),
                );
            }
            Ok(Operand::Reg(Reg(name)))
        }
    }

    /// A location operand. As in herd7 and Dartagnan, a location the initial state does not
    /// declare is a fresh location holding 0.
    pub(super) fn location(&mut self, i: usize) -> Result<LocId> {
        let a = self.args[i];
        let name = self.p.identifier(a, "location")?;
        if let Some(loc) = self.locations.iter().position(|l| l.name == name) {
            return Ok(loc);
        }
        self.locations.push(Location {
            name,
            kind: LocationKind::Plain { init: 0 },
            span: self.p.span(a.at),
            shared: None,
        });
        Ok(self.locations.len() - 1)
    }

    /// The dotted qualifiers after the opcode: `.order[.scope]`.
    pub(super) fn access(
        &self,
        proxy: Proxy,
        quals: &[&str],
        with_op: bool,
    ) -> Result<(Access, Option<&'a str>)> {
        let at = |k: usize| {
            self.mnemonic.at
                + quals[..k].iter().map(|q| q.len() + 1).sum::<usize>()
                + self.opcode_len()
        };
        let mut order = None;
        let mut scope = None;
        let mut op = None;
        for (k, q) in quals.iter().enumerate() {
            if let (None, Some(o)) = (order, Order::from_name(q)) {
                if o == Order::Sc {
                    return self.p.err(at(k), "`.sc` is only a fence order");
                }
                order = Some(o);
            } else if let (None, Some(s)) = (
                scope,
                // Tile IR's `tile_block` and `device` name the CTA and GPU scopes too.
                Scope::from_name(q).filter(|_| !matches!(*q, "block" | "system")),
            ) {
                scope = Some(s);
            } else if with_op && op.is_none() && RmwOp::from_name(q).is_some() {
                op = Some(
                    self.mnemonic
                        .text
                        .split('.')
                        .nth(k + 1)
                        .expect("qualifier exists"),
                );
            } else if *q == "nc" && proxy == Proxy::Texture && self.mnemonic.text.starts_with("ld.")
            {
                // `ld.global.nc`: the texture path, which `load` chose as the proxy.
            } else if matches!(
                *q,
                "global"
                    | "shared"
                    | "shared::cta"
                    | "shared::cluster"
                    | "u32"
                    | "s32"
                    | "b32"
                    | "u64"
                    | "s64"
                    | "b64"
            ) {
                // Types do not change the memory-model meaning; state spaces must agree with
                // the location's (`check_spaces`).
            } else {
                return self.p.err(
                    at(k),
                    format!("unknown qualifier `.{q}` on `{}`", self.mnemonic.text),
                );
            }
        }
        let (order, scope) = match (order, scope) {
            (None, None) if with_op => (Order::Relaxed, Some(Scope::Gpu)),
            (None, None) => (Order::Weak, None),
            (Some(Order::Weak), Some(_)) => {
                return self
                    .p
                    .err(self.mnemonic.at, "a `.weak` access takes no scope")
            }
            (Some(Order::Weak), None) if with_op => {
                return self
                    .p
                    .err(self.mnemonic.at, "atomic operations cannot be `.weak`")
            }
            (Some(Order::Weak), None) => (Order::Weak, None),
            (Some(o), None) => {
                return self.p.err(
                    self.end_of_mnemonic(),
                    format!(
                        "`.{}` needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)",
                        o.ptx_name()
                    ),
                )
            }
            (None, Some(s)) => (Order::Relaxed, Some(s)),
            (Some(o), Some(s)) => (o, Some(s)),
        };
        Ok((
            Access {
                proxy,
                order,
                scope,
            },
            op,
        ))
    }

    pub(super) fn opcode_len(&self) -> usize {
        self.mnemonic
            .text
            .find('.')
            .map_or(self.mnemonic.text.len(), |i| i + 1)
    }

    pub(super) fn end_of_mnemonic(&self) -> usize {
        self.mnemonic.at + self.mnemonic.text.len()
    }
}

/// One parsed statement: an instruction, or a warp exchange to lower once every thread is read.
pub(super) enum Parsed {
    Instr(Instr),
    Warp(WarpOp),
}
