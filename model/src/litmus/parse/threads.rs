//! The thread table: its `P0@cta 0,gpu 0 | ...` header of placements, and its rows of
//! instructions, one column per thread.

use super::parser::{split_words, Ins, Parsed, Parser, Piece, Result, MAX_THREADS};
use crate::litmus::ir::*;
use crate::litmus::vulkan::{VulkanOp, VulkanPlacement};
use crate::litmus::warp;
use crate::scope::{Placement, Scope};
use std::collections::HashMap;

impl<'a> Parser<'a> {
    /// Rows of `|`-separated cells ending in `;`; the first row places the threads.
    pub(super) fn threads(
        &self,
        table: Piece<'a>,
        locations: &mut Vec<Location>,
    ) -> Result<(Vec<Thread>, Vec<VulkanPlacement>)> {
        let mut rows: Vec<Piece> = table.split(';');
        let tail = rows.pop().expect("split yields at least one piece").trim();
        if !tail.text.is_empty() {
            return self.err(
                tail.at + tail.text.len(),
                "expected `;` at the end of the row",
            );
        }
        let rows: Vec<Piece> = rows
            .into_iter()
            .filter(|r| !r.text.trim().is_empty())
            .collect();
        let Some(header) = rows.first() else {
            return self.err(
                table.at,
                "missing thread header such as `P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;`",
            );
        };
        let mut threads: Vec<Thread> = Vec::new();
        let mut placements = Vec::new();
        let mut seen: HashMap<ThreadId, usize> = HashMap::new();
        let cells = header.split('|');
        if let Some(cell) = cells.get(MAX_THREADS) {
            return self.err(
                cell.trim().at,
                format!("more than {MAX_THREADS} threads (the engines explore at most {MAX_THREADS} events)"),
            );
        }
        for (column, cell) in cells.into_iter().enumerate() {
            let cell = cell.trim();
            let (id, placement) = match self.vulkan {
                true => {
                    let (id, vk) = self.vulkan_placement(cell)?;
                    placements.push(vk);
                    // The workgroup is the CTA, the queue family the GPU.
                    (id, Placement::new(vk.workgroup, vk.queue_family))
                }
                false => self.placement(cell)?,
            };
            if let Some(prev) = seen.insert(id, column) {
                return self.err(
                    cell.at,
                    format!(
                        "thread P{id} is placed twice (columns {} and {})",
                        prev + 1,
                        column + 1
                    ),
                );
            }
            if id != column {
                return self.err(
                    cell.at,
                    format!(
                        "thread in column {} must be P{column}, found P{id}",
                        column + 1
                    ),
                );
            }
            threads.push(Thread {
                placement,
                body: Vec::new(),
                span: self.span(cell.at),
            });
        }
        for row in &rows[1..] {
            let cells = row.split('|');
            if cells.len() > threads.len() {
                let extra = cells[threads.len()];
                return self.err(
                    extra.at,
                    format!(
                        "row has {} columns but there are {} threads",
                        cells.len(),
                        threads.len()
                    ),
                );
            }
            for (t, cell) in cells.into_iter().enumerate() {
                let cell = cell.trim();
                if cell.text.is_empty() {
                    continue;
                }
                let parsed = self.token_order(cell).and_then(|(cell, token)| {
                    Ok((cell, token, self.instruction(cell, locations)?))
                });
                let parsed = parsed.and_then(|(cell, token, (instr, vulkan))| {
                    match &instr {
                        Parsed::Instr(instr) => {
                            if threads[t].placement.is_host() {
                                self.host_instruction(cell, instr)?;
                            }
                            let placements: Vec<Placement> =
                                threads.iter().map(|t| t.placement).collect();
                            self.check_spaces(
                                cell,
                                instr,
                                &threads[t].placement,
                                &placements,
                                locations,
                            )?;
                        }
                        Parsed::Warp(_) if threads[t].placement.is_host() => {
                            return self.err(
                                cell.at,
                                "a host thread has no warp: shfl.sync, vote.sync, match.sync, redux.sync and elect.sync are GPU instructions",
                            );
                        }
                        Parsed::Warp(_) => {}
                    }
                    Ok((cell, token, (instr, vulkan)))
                });
                let (cell, token, (instr, vulkan)) = match parsed {
                    Ok(parsed) => parsed,
                    Err(e) => {
                        self.recover(e);
                        continue;
                    }
                };
                let stmt = match instr {
                    Parsed::Instr(instr) => Stmt {
                        instr,
                        span: self.span(cell.at),
                        token,
                        qualifiers: vulkan.map(|op| op.lower()),
                        warp: None,
                    },
                    Parsed::Warp(op) => warp::placeholder(op, self.span(cell.at)),
                };
                threads[t].body.push(stmt);
            }
        }
        for thread in &threads {
            self.check_labels(thread)?;
            self.check_tokens(thread)?;
        }
        self.check_warps(&threads)?;
        warp::lower(&mut threads, locations);
        Ok((threads, placements))
    }

    /// What a host thread (`P1@host`) may run: generic-proxy loads, stores, RMWs and fences, each
    /// strong one at `.sys` (the PTX ISA: a host thread belongs to the system scope only, so a
    /// narrower scope would name a set of threads the CPU is not part of), plus register moves,
    /// additions and branches. CTA barriers, proxy fences and `cp.async` are GPU instructions.
    pub(super) fn host_instruction(&self, cell: Piece<'a>, instr: &Instr) -> Result<()> {
        let access = match instr {
            Instr::Load { access, .. }
            | Instr::Store { access, .. }
            | Instr::Atom { access, .. }
            | Instr::Red { access, .. } => Some(access),
            Instr::Fence(Fence::Sc(scope) | Fence::AcqRel(scope)) => {
                if *scope != Scope::Sys {
                    return self.err(
                        cell.at,
                        format!("a host thread's fences are `.sys` (found `.{scope}`): the CPU is in no CTA, cluster or GPU"),
                    );
                }
                None
            }
            Instr::Fence(Fence::Proxy(_))
            | Instr::Barrier { .. }
            | Instr::WarpSync { .. }
            | Instr::CpAsync { .. }
            | Instr::CpAsyncCommit
            | Instr::CpAsyncWait { .. }
            | Instr::Async(_) => {
                return self.err(
                    cell.at,
                    "a host thread runs loads, stores, RMWs and `.sys` fences; proxy fences, barriers, cp.async, mbarriers and bulk copies are GPU instructions",
                );
            }
            _ => None,
        };
        if let Some(a) = access {
            if a.proxy != Proxy::Generic {
                return self.err(
                    cell.at,
                    "a host thread accesses memory through the generic proxy only",
                );
            }
            if let Some(scope) = a.scope.filter(|s| *s != Scope::Sys) {
                return self.err(
                    cell.at,
                    format!("a host thread's strong accesses are `.sys` (found `.{scope}`): the CPU is in no CTA, cluster or GPU"),
                );
            }
        }
        Ok(())
    }

    /// Splits a Tile IR token annotation `[t0, t1 -> t2]` off the end of an instruction cell.
    pub(super) fn token_order(&self, cell: Piece<'a>) -> Result<(Piece<'a>, Option<TokenOrder>)> {
        let Some(open) = cell.text.find('[') else {
            return Ok((cell, None));
        };
        let instr = Piece {
            text: &cell.text[..open],
            at: cell.at,
        }
        .trim();
        let inner_at = cell.at + open + 1;
        let Some(inner) = cell.text[open + 1..].strip_suffix(']') else {
            return self.err(
                cell.at + open,
                "a token annotation ends the instruction: `[t0, t1 -> t2]`",
            );
        };
        let Some(arrow) = inner.find("->") else {
            return self.err(
                inner_at,
                "expected `->` in the token annotation `[waits-for -> produces]`",
            );
        };
        let name = |text: &'a str, at: usize| -> Result<String> {
            let piece = Piece { text, at }.trim();
            self.identifier(piece, "token")
        };
        let mut after = Vec::new();
        let waits = &inner[..arrow];
        if !waits.trim().is_empty() {
            let mut at = inner_at;
            for part in waits.split(',') {
                after.push(name(part, at)?);
                at += part.len() + 1;
            }
        }
        let out = &inner[arrow + 2..];
        let produces = if out.trim().is_empty() {
            None
        } else {
            Some(name(out, inner_at + arrow + 2)?)
        };
        Ok((instr, Some(TokenOrder { after, produces })))
    }

    /// The thread of a placement cell `P0@...`, and the fields after the `@`.
    pub(super) fn thread_at(
        &self,
        cell: Piece<'a>,
        example: &str,
    ) -> Result<(ThreadId, Piece<'a>)> {
        let Some(at_sign) = cell.text.find('@') else {
            return self.err(
                cell.at,
                format!(
                    "expected a thread placement like `{example}`, found `{}`",
                    cell.text
                ),
            );
        };
        let id = self.thread_id(
            Piece {
                text: &cell.text[..at_sign],
                at: cell.at,
            }
            .trim(),
        )?;
        let fields = Piece {
            text: &cell.text[at_sign + 1..],
            at: cell.at + at_sign + 1,
        };
        Ok((id, fields))
    }

    /// `P0@cta 0,gpu 0` (optionally with `cluster N`).
    pub(super) fn placement(&self, cell: Piece<'a>) -> Result<(ThreadId, Placement)> {
        let (id, fields) = self.thread_at(cell, "P0@cta 0,gpu 0")?;
        let mut placement = Placement::default();
        let mut cta = None;
        if fields.trim().text == "host" {
            return Ok((id, Placement::host(id as u32)));
        }
        for field in fields.split(',') {
            let field = field.trim();
            let words = split_words(field);
            if words.len() != 2 {
                return self.err(
                    field.at,
                    format!(
                        "expected `cta N`, `cluster N` or `gpu N`, found `{}`",
                        field.text
                    ),
                );
            }
            let n = self.integer(words[1])?;
            let Ok(n) = u32::try_from(n) else {
                return self.err(words[1].at, "placement ids must be non-negative");
            };
            match words[0].text {
                "cta" => cta = Some(n),
                "gpu" if n == Placement::HOST_GPU => {
                    return self.err(words[1].at, "GPU ids must be below 4294967295");
                }
                "gpu" => placement.gpu = n,
                "cluster" => placement.cluster = Some(n),
                other => {
                    return self.err(
                        words[0].at,
                        format!("unknown placement level `{other}` (cta, cluster, gpu)"),
                    )
                }
            }
        }
        match cta {
            Some(c) => placement.cta = c,
            None => return self.err(fields.at, "placement must name a cta"),
        }
        Ok((id, placement))
    }

    /// One instruction; in a Vulkan test, with what it means in Vulkan.
    pub(super) fn instruction(
        &self,
        cell: Piece<'a>,
        locations: &mut Vec<Location>,
    ) -> Result<(Parsed, Option<VulkanOp>)> {
        if let Some(label) = cell.text.strip_suffix(':') {
            let label = Piece {
                text: label,
                at: cell.at,
            }
            .trim();
            let label = Instr::Label(self.identifier(label, "label")?);
            return Ok((Parsed::Instr(label), None));
        }
        let split = cell
            .text
            .find(char::is_whitespace)
            .unwrap_or(cell.text.len());
        let mnemonic = Piece {
            text: &cell.text[..split],
            at: cell.at,
        };
        let args_piece = Piece {
            text: &cell.text[split..],
            at: cell.at + split,
        }
        .trim();
        let args: Vec<Piece> = if args_piece.text.is_empty() {
            Vec::new()
        } else {
            args_piece.split(',').into_iter().map(Piece::trim).collect()
        };
        let parts: Vec<&str> = mnemonic.text.split('.').collect();
        let args_end = cell.at + cell.text.len();
        let ins = Ins {
            p: self,
            mnemonic,
            args: &args,
            end: args_end,
            locations,
        };
        let vulkan_op = matches!(
            parts[0],
            "ld" | "st" | "rmw" | "membar" | "cbar" | "avdevice" | "visdevice"
        );
        if self.vulkan && vulkan_op && !(parts[0] == "ld" && ins.is_move(&parts)) {
            let (instr, op) = ins.vulkan(&parts)?;
            return Ok((Parsed::Instr(instr), Some(op)));
        }
        if super::async_ops::is_async(&parts) {
            return Ok((Parsed::Instr(ins.async_op(&parts)?), None));
        }
        if matches!(parts[0], "shfl" | "vote" | "match" | "redux" | "elect") {
            return Ok((Parsed::Warp(ins.exchange(&parts)?), None));
        }
        let instr = match parts[0] {
            "ld" | "suld" | "tld" | "cold" => ins.load(&parts),
            "st" | "sust" => ins.store(&parts),
            "atom" | "red" => ins.rmw(&parts),
            "fence" => ins.fence(&parts),
            "bar" if parts.get(1) == Some(&"warp") => ins.warp(&parts),
            "bar" | "barrier" => ins.barrier(&parts),
            "cp" => ins.cp_async(&parts),
            "mov" if parts.len() == 1 => {
                ins.arity(2)?;
                Ok(Instr::Mov {
                    dst: ins.reg(0)?,
                    src: ins.operand(1)?,
                })
            }
            // Register arithmetic (Dat3M's `localAdd`, `localSub`, `localMul`, `localDiv` of
            // its PTX and Vulkan grammars, and PTX's `rem`, `and`, `or`, `xor`, `shl`, `shr`):
            // `op dst, a, b`, `mul` also written as PTX's `mul.lo`.
            name if AluOp::from_name(name).is_some()
                && (parts.len() == 1 || parts[..] == ["mul", "lo"]) =>
            {
                ins.arity(3)?;
                Ok(Instr::Alu {
                    op: AluOp::from_name(name).expect("matched above"),
                    dst: ins.reg(0)?,
                    a: ins.operand(1)?,
                    b: ins.operand(2)?,
                })
            }
            // `setp.<cmp> dst, a, b`: 1 when `a cmp b` holds, else 0.
            "setp" if parts.len() == 2 => {
                let Some(cmp) = Cmp::from_name(parts[1]) else {
                    return self.err(
                        mnemonic.at,
                        format!(
                            "unknown comparison `{}` (expected eq, ne, lt, le, gt or ge)",
                            parts[1]
                        ),
                    );
                };
                ins.arity(3)?;
                Ok(Instr::Setp {
                    cmp,
                    dst: ins.reg(0)?,
                    a: ins.operand(1)?,
                    b: ins.operand(2)?,
                })
            }
            // The grammars' `branchCond : cond register Comma value Comma Label`, `cond` one
            // of `beq`, `bne`, `blt`, `ble`, `bgt`, `bge` (signed comparisons).
            name if parts.len() == 1
                && name.strip_prefix('b').and_then(Cmp::from_name).is_some() =>
            {
                ins.arity(3)?;
                let cmp = name.strip_prefix('b').and_then(Cmp::from_name);
                let target = self.identifier(args[2], "label")?;
                Ok(Instr::Branch {
                    cond: Some((
                        cmp.expect("matched above"),
                        ins.operand(0)?,
                        ins.operand(1)?,
                    )),
                    target,
                })
            }
            "goto" | "bra" if parts.len() == 1 => {
                ins.arity(1)?;
                Ok(Instr::Branch {
                    cond: None,
                    target: self.identifier(args[0], "label")?,
                })
            }
            _ => self.err(
                mnemonic.at,
                format!("unknown instruction `{}`", mnemonic.text),
            ),
        }?;
        Ok((Parsed::Instr(instr), None))
    }

    /// `P0@sg 0, wg 0, qf 0` in a Vulkan test.
    pub(super) fn vulkan_placement(&self, cell: Piece<'a>) -> Result<(ThreadId, VulkanPlacement)> {
        let (id, fields) = self.thread_at(cell, "P0@sg 0, wg 0, qf 0")?;
        let mut levels = [None; 3];
        for field in fields.split(',') {
            let field = field.trim();
            let words = split_words(field);
            if words.len() != 2 {
                return self.err(
                    field.at,
                    format!("expected `sg N`, `wg N` or `qf N`, found `{}`", field.text),
                );
            }
            let n = self.integer(words[1])?;
            let Ok(n) = u32::try_from(n) else {
                return self.err(words[1].at, "placement ids must be non-negative");
            };
            let level = match words[0].text {
                "sg" => 0,
                "wg" => 1,
                "qf" => 2,
                other => {
                    return self.err(
                        words[0].at,
                        format!("unknown placement level `{other}` (sg, wg, qf)"),
                    )
                }
            };
            if levels[level].replace(n).is_some() {
                return self.err(words[0].at, format!("`{}` is given twice", words[0].text));
            }
        }
        match levels {
            [Some(subgroup), Some(workgroup), Some(queue_family)] => Ok((
                id,
                VulkanPlacement {
                    subgroup,
                    workgroup,
                    queue_family,
                },
            )),
            _ => self.err(fields.at, "a Vulkan placement names `sg`, `wg` and `qf`"),
        }
    }
}
