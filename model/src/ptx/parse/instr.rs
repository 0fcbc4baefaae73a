//! Instructions and their operands, in the PTX ISA's generic instruction syntax ("Instruction
//! Statements"): "Instructions are formed from an instruction opcode followed by a
//! comma-separated list of zero or more operands, and terminated with a semicolon. Operands may
//! be register variables, constant expressions, address expressions, or label names.
//! Instructions have an optional guard predicate which controls conditional execution. The
//! guard predicate follows the optional label and precedes the opcode, and is written as `@p`,
//! where `p` is a predicate register. The guard predicate may be optionally negated, written as
//! `@!p`." The opcode's dot-separated modifiers are kept as text; what they mean is the
//! decoder's business.

use super::{PResult, Parser};
use crate::ptx::ast::{AddrBase, Address, FloatLit, Guard, Instruction, Operand};
use crate::ptx::lex::Tok;

/// Vector register components: PTX ISA, "Vectors": "Vector elements are accessed as `.x`,
/// `.y`, `.z`, `.w` (or `.r`, `.g`, `.b`, `.a`)", as in the special registers `%tid.x`.
const COMPONENTS: &[&str] = &["x", "y", "z", "w", "r", "g", "b", "a"];

impl<'a> Parser<'a> {
    /// `{@{!}p} opcode{.modifier}* {operand {, operand}*} ;`.
    pub(super) fn instruction(&mut self) -> PResult<Instruction> {
        let pos = self.peek().pos;
        let guard = if self.eat(Tok::Punct('@')) {
            let negated = self.eat(Tok::Punct('!'));
            let (reg, _) = self.ident("a predicate register after `@`")?;
            Some(Guard {
                negated,
                reg: reg.to_string(),
            })
        } else {
            None
        };
        let t = self.peek();
        let opcode = match t.tok {
            Tok::Ident(op) if !op.starts_with('%') => op,
            _ => return self.expected("an instruction opcode"),
        };
        self.next();
        let mut modifiers = Vec::new();
        while let Tok::Dot(m) = self.peek().tok {
            self.next();
            modifiers.push(m.to_string());
        }
        let mut operands = Vec::new();
        // Operands follow unless the next token cannot start one (then the `;` is missing).
        let starts_operand = matches!(
            self.peek().tok,
            Tok::Ident(_)
                | Tok::Int(_)
                | Tok::F32(_)
                | Tok::F64(_)
                | Tok::Sink
                | Tok::Punct('!' | '[' | '{' | '(' | '-')
        );
        if starts_operand {
            loop {
                operands.push(self.operand()?);
                if !self.eat(Tok::Punct(',')) {
                    break;
                }
            }
        }
        self.expect_semi(&format!("the instruction `{opcode}`"))?;
        Ok(Instruction {
            pos,
            guard,
            opcode: opcode.to_string(),
            modifiers,
            operands,
        })
    }

    /// One operand, and `|second` after it for a pair of destinations (`setp`'s `p|q`).
    fn operand(&mut self) -> PResult<Operand> {
        let first = self.simple_operand()?;
        if self.eat(Tok::Punct('|')) {
            let second = self.simple_operand()?;
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    fn simple_operand(&mut self) -> PResult<Operand> {
        let t = self.peek();
        match t.tok {
            Tok::Punct('!') => {
                self.next();
                let (name, _) = self.ident("a predicate after `!`")?;
                Ok(Operand::Not(name.to_string()))
            }
            Tok::Punct('[') => {
                self.next();
                let a = self.address()?;
                // PTX ISA, *cp.async.bulk.tensor*: "[tensorMap, tensorCoords]", the coordinates
                // a vector operand `{c0, …}`.
                if self.eat(Tok::Punct(',')) {
                    let open = self.peek();
                    self.expect_punct('{', "opening the tensor coordinates `{c0, …}`")?;
                    self.enter(open.pos, "operand lists")?;
                    let coords = self.operand_list('}');
                    self.leave();
                    self.expect_punct(']', "closing the tensor address")?;
                    return Ok(Operand::TensorAddress {
                        tensor_map: a,
                        coords: coords?,
                    });
                }
                self.expect_punct(']', "closing the address")?;
                Ok(Operand::Address(a))
            }
            Tok::Punct('{') => {
                self.next();
                self.enter(t.pos, "operand lists")?;
                let items = self.operand_list('}');
                self.leave();
                Ok(Operand::Vector(items?))
            }
            Tok::Punct('(') => {
                self.next();
                self.enter(t.pos, "operand lists")?;
                let items = self.operand_list(')');
                self.leave();
                Ok(Operand::List(items?))
            }
            Tok::Sink => {
                self.next();
                Ok(Operand::Sink)
            }
            _ => self.constant_or_symbol(),
        }
    }

    /// `a, b, …` up to `close` (already past the opening bracket); empty lists are allowed
    /// (`call f, ();`).
    fn operand_list(&mut self, close: char) -> PResult<Vec<Operand>> {
        let mut items = Vec::new();
        if self.eat(Tok::Punct(close)) {
            return Ok(items);
        }
        loop {
            items.push(self.operand()?);
            if self.eat(Tok::Punct(close)) {
                return Ok(items);
            }
            self.expect_punct(',', &format!("or `{close}` in the operand list"))?;
        }
    }

    /// A constant (`-1`, `0x10`, `0f3F800000`, `1.5`), a register (`%r1`, `%tid.x`, a `.reg`
    /// name) or a symbol with an optional offset (`$L__BB0_2`, `smem+16`).
    pub(super) fn constant_or_symbol(&mut self) -> PResult<Operand> {
        let t = self.peek();
        match t.tok {
            Tok::Punct('-') => {
                self.next();
                match self.peek().tok {
                    Tok::Int(v) => {
                        self.next();
                        Ok(Operand::Int((v as i64).wrapping_neg()))
                    }
                    // A negated floating-point constant: its sign bit flipped.
                    Tok::F32(bits) => {
                        self.next();
                        Ok(Operand::Float(FloatLit::F32(bits ^ (1 << 31))))
                    }
                    Tok::F64(bits) => {
                        self.next();
                        Ok(Operand::Float(FloatLit::F64(bits ^ (1 << 63))))
                    }
                    _ => self.expected("a constant after `-`"),
                }
            }
            Tok::Int(v) => {
                self.next();
                Ok(Operand::Int(v as i64))
            }
            Tok::F32(bits) => {
                self.next();
                Ok(Operand::Float(FloatLit::F32(bits)))
            }
            Tok::F64(bits) => {
                self.next();
                Ok(Operand::Float(FloatLit::F64(bits)))
            }
            Tok::Ident(name) => {
                self.next();
                if self.is_reg(name) {
                    let c = self.peek();
                    if let Tok::Dot(comp) = c.tok {
                        if c.start == t.end && COMPONENTS.contains(&comp) {
                            self.next();
                            return Ok(Operand::Reg(format!("{name}.{comp}")));
                        }
                    }
                    return Ok(Operand::Reg(name.to_string()));
                }
                let offset = self.offset()?;
                Ok(Operand::Symbol {
                    name: name.to_string(),
                    offset,
                })
            }
            _ => self.expected("an operand"),
        }
    }

    /// Inside `[ ]`. PTX ISA, "Addresses as Operands": "`[var]`, `[reg]`, `[reg+imm]`,
    /// `[var+imm]`, `[imm]`" ("the address is an offset … a register plus a byte offset, or an
    /// absolute address"); `[reg+-4]` and `[reg-4]` are negative offsets.
    fn address(&mut self) -> PResult<Address> {
        let t = self.peek();
        match t.tok {
            Tok::Ident(name) => {
                self.next();
                let base = if self.is_reg(name) {
                    AddrBase::Reg(name.to_string())
                } else {
                    AddrBase::Symbol(name.to_string())
                };
                let offset = self.offset()?;
                Ok(Address { base, offset })
            }
            Tok::Int(_) | Tok::Punct('-') => Ok(Address {
                base: AddrBase::Absolute,
                offset: self.signed_int("an address")?,
            }),
            _ => self.expected("a register, a variable or an address inside `[ ]`"),
        }
    }
}
