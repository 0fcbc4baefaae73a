//! Parsing Hopper's asynchronous instructions ([`AsyncOp`]), shared-memory declarations
//! (`x @ shared cta 1 = 0`) and the state-space checks of every access (`.shared::cta`,
//! `.shared::cluster`, `.global`). The syntax is PTX's, with the litmus dialect's habits: no
//! brackets around addresses, no state result of `mbarrier.arrive`, an `mbarrier.try_wait`
//! that returns once (0 or 1) instead of blocking.

use super::parser::{split_words, Ins, Parser, Piece, Result};
use crate::litmus::async_ops::{
    check_window, cta_placement, Arrival, BulkCompletion, MbarrierState, SharedOf, SharedWindow,
};
use crate::litmus::ir::*;
use crate::scope::{Order, Placement, Scope};

/// Whether a mnemonic (split at dots) is one of [`AsyncOp`]'s.
pub(super) fn is_async(parts: &[&str]) -> bool {
    matches!(
        parts,
        ["mbarrier", ..]
            | ["cp", "async", "bulk", ..]
            | ["fence", "mbarrier_init", ..]
            | ["barrier", "cluster", ..]
    )
}

/// A state-space qualifier: `.global`, `.shared` (= `.shared::cta`), `.shared::cta`,
/// `.shared::cluster`.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Space {
    Global,
    Shared(SharedWindow),
}

fn space(q: &str) -> Option<Space> {
    Some(match q {
        "global" => Space::Global,
        "shared" | "shared::cta" => Space::Shared(SharedWindow::Cta),
        "shared::cluster" => Space::Shared(SharedWindow::Cluster),
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    /// `x @ shared cta 1[,gpu 0][ = v]`: a location in CTA 1's shared memory (0 when no value
    /// is given; `= mbarrier N` for an mbarrier initialised with count N).
    pub(super) fn shared_declaration(
        &self,
        lhs: Piece<'a>,
        rhs: Piece<'a>,
    ) -> Result<(String, SharedOf, Value)> {
        let name = self.identifier(lhs, "location name")?;
        let (place, init) = match rhs.text.find('=') {
            Some(eq) => {
                let value = Piece {
                    text: &rhs.text[eq + 1..],
                    at: rhs.at + eq + 1,
                }
                .trim();
                let place = Piece {
                    text: &rhs.text[..eq],
                    at: rhs.at,
                }
                .trim();
                let init = match value.text.strip_prefix("mbarrier") {
                    // `= mbarrier N`: a barrier `mbarrier.init` already set up with count N.
                    Some(count) => {
                        let count = Piece {
                            text: count,
                            at: value.at + "mbarrier".len(),
                        }
                        .trim();
                        match self.integer(count)? {
                            n @ 1..=0x7fff => MbarrierState::init(n),
                            n => {
                                return self.err(
                                    count.at,
                                    format!("an mbarrier's count is 1 to 32767, found {n}"),
                                )
                            }
                        }
                    }
                    None => self.integer(value)?,
                };
                (place, init)
            }
            None => (rhs, 0),
        };
        let place = Piece {
            text: &place.text["shared".len()..],
            at: place.at + "shared".len(),
        }
        .trim();
        let (mut cta, mut gpu) = (None, 0);
        if place.text.is_empty() {
            return self.err(
                place.at,
                "a shared location names its CTA: `x @ shared cta 0 = 0`",
            );
        }
        for field in place.split(',') {
            let field = field.trim();
            let words = split_words(field);
            let n = match words.as_slice() {
                [level, n] if matches!(level.text, "cta" | "gpu") => self.integer(*n)?,
                _ => {
                    return self.err(
                        field.at,
                        format!(
                            "expected `cta N` or `gpu N` after `shared`, found `{}`",
                            field.text
                        ),
                    )
                }
            };
            let Some(n) = u32::try_from(n).ok().filter(|&n| n != Placement::HOST_GPU) else {
                return self.err(words[1].at, "placement ids must be non-negative");
            };
            match words[0].text {
                "cta" => cta = Some(n),
                _ => gpu = n,
            }
        }
        let Some(cta) = cta else {
            return self.err(
                place.at,
                "a shared location names its CTA: `x @ shared cta 0 = 0`",
            );
        };
        Ok((name, SharedOf { cta, gpu }, init))
    }

    /// The state-space rules of one instruction of a thread at `by`: shared memory is reached
    /// from its own CTA, or from a CTA of its cluster through `.shared::cluster`; `.global`
    /// names only global memory; mbarriers live in shared memory; a bulk copy's spaces are
    /// those its mnemonic names.
    pub(super) fn check_spaces(
        &self,
        cell: Piece<'a>,
        instr: &Instr,
        by: &Placement,
        placements: &[Placement],
        locations: &[Location],
    ) -> Result<()> {
        let mnemonic = cell.text.split_whitespace().next().unwrap_or("");
        let shared_of = |l: LocId| shared_of(locations, l);
        let owner = |of: SharedOf| cta_placement(placements.iter(), of);
        let name = |l: LocId| locations[l].name.as_str();
        let here = |l: LocId, window: SharedWindow| -> Result<()> {
            match shared_of(l) {
                Some(of) => check_window(by, of, owner(of).as_ref(), window)
                    .or_else(|why| self.err(cell.at, format!("`{}`: {why}", name(l)))),
                None => self.err(
                    cell.at,
                    format!(
                        "`{}` is in global memory; declare it shared: `{} @ shared cta {} = 0`",
                        name(l),
                        name(l),
                        by.cta
                    ),
                ),
            }
        };
        match instr {
            Instr::Load { loc, .. }
            | Instr::Store { loc, .. }
            | Instr::Atom { loc, .. }
            | Instr::Red { loc, .. } => {
                let spaces: Vec<Space> = mnemonic.split('.').filter_map(space).collect();
                match (spaces.as_slice(), shared_of(*loc)) {
                    ([], None) | ([Space::Global], None) => Ok(()),
                    ([], Some(_)) => here(*loc, SharedWindow::Cta),
                    ([Space::Shared(w)], _) => here(*loc, *w),
                    ([Space::Global], Some(of)) => self.err(
                        cell.at,
                        format!(
                            "`.global` names global memory, but `{}` is {of}",
                            name(*loc)
                        ),
                    ),
                    _ => self.err(cell.at, "at most one state space per access"),
                }
            }
            Instr::Async(op) => match op {
                AsyncOp::MbarrierInit { bar, .. } | AsyncOp::MbarrierTryWait { bar, .. } => {
                    here(*bar, SharedWindow::Cta)
                }
                AsyncOp::MbarrierArrive { bar, window, .. }
                | AsyncOp::MbarrierExpectTx { bar, window, .. }
                | AsyncOp::MbarrierCompleteTx { bar, window, .. } => here(*bar, *window),
                AsyncOp::BulkCopy {
                    dst,
                    src,
                    completion: BulkCompletion::Mbarrier(bar),
                    ..
                } => {
                    here(*dst, SharedWindow::Cluster)?;
                    here(*bar, SharedWindow::Cluster)?;
                    if mnemonic.contains(".shared::cta.") {
                        here(*src, SharedWindow::Cta)?;
                    } else if let Some(of) = shared_of(*src) {
                        return self.err(
                            cell.at,
                            format!("the copy reads global memory, but `{}` is {of}", name(*src)),
                        );
                    }
                    if shared_of(*dst) != shared_of(*bar) {
                        return self.err(
                            cell.at,
                            format!(
                                "the mbarrier `{}` must be in the destination's CTA (PTX ISA, cp.async.bulk)",
                                name(*bar)
                            ),
                        );
                    }
                    Ok(())
                }
                AsyncOp::BulkCopy { dst, src, .. } => {
                    here(*src, SharedWindow::Cta)?;
                    match shared_of(*dst) {
                        Some(of) => self.err(
                            cell.at,
                            format!(
                                "the copy writes global memory, but `{}` is {of}",
                                name(*dst)
                            ),
                        ),
                        None => Ok(()),
                    }
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

fn shared_of(locations: &[Location], mut l: LocId) -> Option<SharedOf> {
    for _ in 0..=locations.len() {
        match locations[l].kind {
            LocationKind::Alias { of, .. } if of < locations.len() => l = of,
            _ => break,
        }
    }
    locations[l].shared
}

impl<'a> Ins<'_, 'a> {
    /// Where qualifier `k` of `parts` (0 is the opcode) starts.
    fn qualifier_at(&self, parts: &[&str], k: usize) -> usize {
        self.mnemonic.at + parts[..k].iter().map(|q| q.len() + 1).sum::<usize>()
    }

    /// One [`AsyncOp`] (`parts` is the mnemonic split at dots, [`is_async`] holds).
    pub(super) fn async_op(mut self, parts: &[&str]) -> Result<Instr> {
        let op = match parts {
            ["mbarrier", "init", rest @ ..] => {
                self.quals(parts, 2, rest, &mut |_, q| matches!(q, "shared" | "shared::cta" | "b64"))?;
                self.arity(2)?;
                AsyncOp::MbarrierInit {
                    bar: self.location(0)?,
                    count: self.operand(1)?,
                }
            }
            ["mbarrier", "arrive", rest @ ..] => {
                let mut q = MbarQuals::new(Order::Release, &[Order::Release, Order::Relaxed]);
                let mut expect_tx = false;
                self.quals(parts, 2, rest, &mut |k, w| {
                    if w == "expect_tx" && k == 0 {
                        expect_tx = true;
                        true
                    } else {
                        q.take(w)
                    }
                })?;
                let arrival = if expect_tx {
                    self.arity(2)?;
                    Arrival::ExpectTx(self.operand(1)?)
                } else {
                    if self.args.len() == 1 {
                        Arrival::Count(Operand::Imm(1))
                    } else {
                        self.arity(2)?;
                        Arrival::Count(self.operand(1)?)
                    }
                };
                AsyncOp::MbarrierArrive {
                    bar: self.location(0)?,
                    order: q.order,
                    scope: q.scope,
                    window: q.window,
                    arrival,
                }
            }
            ["mbarrier", tx @ ("expect_tx" | "complete_tx"), rest @ ..] => {
                let mut q = MbarQuals::new(Order::Relaxed, &[Order::Relaxed]);
                self.quals(parts, 2, rest, &mut |_, w| q.take(w))?;
                self.arity(2)?;
                let (bar, bytes) = (self.location(0)?, self.operand(1)?);
                let (scope, window) = (q.scope, q.window);
                match *tx {
                    "expect_tx" => AsyncOp::MbarrierExpectTx {
                        bar,
                        scope,
                        window,
                        bytes,
                    },
                    _ => AsyncOp::MbarrierCompleteTx {
                        bar,
                        scope,
                        window,
                        bytes,
                    },
                }
            }
            ["mbarrier", "try_wait", "parity", rest @ ..] => {
                let mut q = MbarQuals::new(Order::Acquire, &[Order::Acquire, Order::Relaxed]);
                self.quals(parts, 3, rest, &mut |_, w| q.take(w))?;
                if q.window == SharedWindow::Cluster {
                    return self.p.err(
                        self.mnemonic.at,
                        "`mbarrier.try_wait` waits on the executing CTA's own barrier (`.shared::cta`)",
                    );
                }
                self.arity(3)?;
                AsyncOp::MbarrierTryWait {
                    dst: self.reg(0)?,
                    bar: self.location(1)?,
                    order: q.order,
                    scope: q.scope,
                    parity: self.operand(2)?,
                }
            }
            ["cp", "async", "bulk", "commit_group"] => {
                self.arity(0)?;
                AsyncOp::BulkCommitGroup
            }
            ["cp", "async", "bulk", "wait_group", rest @ ..] => {
                let read = match rest {
                    [] => false,
                    ["read"] => true,
                    _ => {
                        return self.p.err(
                            self.qualifier_at(parts, 4),
                            "`cp.async.bulk.wait_group` takes only `.read`",
                        )
                    }
                };
                self.arity(1)?;
                let n = self.p.integer(self.args[0])?;
                let Ok(pending) = u32::try_from(n) else {
                    return self.p.err(self.args[0].at, "the group count is a non-negative integer");
                };
                AsyncOp::BulkWaitGroup { pending, read }
            }
            ["cp", "async", "bulk", "shared::cluster", from @ ("global" | "shared::cta"), "mbarrier::complete_tx::bytes"] =>
            {
                let _ = from;
                self.arity(4)?;
                AsyncOp::BulkCopy {
                    dst: self.location(0)?,
                    src: self.location(1)?,
                    size: self.copy_size(2)?,
                    completion: BulkCompletion::Mbarrier(self.location(3)?),
                }
            }
            ["cp", "async", "bulk", "global", "shared::cta", "bulk_group"] => {
                self.arity(3)?;
                AsyncOp::BulkCopy {
                    dst: self.location(0)?,
                    src: self.location(1)?,
                    size: self.copy_size(2)?,
                    completion: BulkCompletion::BulkGroup,
                }
            }
            ["cp", "async", "bulk", ..] => {
                return self.p.err(
                    self.mnemonic.at,
                    format!(
                        "unknown bulk copy `{}` (cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes, \
                         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes, \
                         cp.async.bulk.global.shared::cta.bulk_group, cp.async.bulk.commit_group, \
                         cp.async.bulk.wait_group)",
                        self.mnemonic.text
                    ),
                )
            }
            ["fence", "mbarrier_init", "release", "cluster"] => {
                self.arity(0)?;
                AsyncOp::FenceMbarrierInit
            }
            ["fence", "mbarrier_init", ..] => {
                return self.p.err(
                    self.mnemonic.at,
                    "the only form is `fence.mbarrier_init.release.cluster`",
                )
            }
            ["barrier", "cluster", "arrive", rest @ ..] => {
                let mut order = None;
                self.quals(parts, 3, rest, &mut |_, w| match w {
                    "release" | "relaxed" if order.is_none() => {
                        order = Order::from_name(w);
                        true
                    }
                    "aligned" => true,
                    _ => false,
                })?;
                self.arity(0)?;
                AsyncOp::ClusterArrive {
                    order: order.unwrap_or(Order::Release),
                }
            }
            ["barrier", "cluster", "wait", rest @ ..] => {
                self.quals(parts, 3, rest, &mut |_, w| matches!(w, "acquire" | "aligned"))?;
                self.arity(0)?;
                AsyncOp::ClusterWait
            }
            _ => {
                return self.p.err(
                    self.mnemonic.at,
                    format!("unknown instruction `{}`", self.mnemonic.text),
                )
            }
        };
        Ok(Instr::Async(op))
    }

    /// Reads the qualifiers `rest` (which start at index `first` of `parts`): `take(k, q)` says
    /// whether the `k`-th one is known; the first it rejects (or repeats) is an error.
    fn quals(
        &self,
        parts: &[&str],
        first: usize,
        rest: &[&str],
        take: &mut dyn FnMut(usize, &str) -> bool,
    ) -> Result<()> {
        for (k, q) in rest.iter().enumerate() {
            if rest[..k].contains(q) || !take(k, q) {
                return self.p.err(
                    self.qualifier_at(parts, first + k),
                    format!(
                        "unknown or repeated qualifier `.{q}` on `{}`",
                        self.mnemonic.text
                    ),
                );
            }
        }
        Ok(())
    }

    /// A bulk copy's size: bytes, a positive multiple of 16 (PTX ISA, *cp.async.bulk*: "the
    /// size ... must be a multiple of 16").
    fn copy_size(&self, i: usize) -> Result<Value> {
        let size = self.p.integer(self.args[i])?;
        if size <= 0 || size % 16 != 0 {
            return self.p.err(
                self.args[i].at,
                format!("a bulk copy's size is a positive multiple of 16 bytes, found {size}"),
            );
        }
        Ok(size)
    }
}

/// The `.sem`, `.scope` and state-space qualifiers of an mbarrier instruction.
struct MbarQuals<'o> {
    order: Order,
    allowed: &'o [Order],
    scope: Scope,
    window: SharedWindow,
}

impl<'o> MbarQuals<'o> {
    /// PTX ISA: ".scope defaults to .cta"; the state space to `.shared::cta`.
    fn new(order: Order, allowed: &'o [Order]) -> MbarQuals<'o> {
        MbarQuals {
            order,
            allowed,
            scope: Scope::Cta,
            window: SharedWindow::Cta,
        }
    }

    fn take(&mut self, q: &str) -> bool {
        match (Order::from_name(q), q) {
            (Some(o), _) if self.allowed.contains(&o) => self.order = o,
            (_, "cta") => self.scope = Scope::Cta,
            (_, "cluster") => self.scope = Scope::Cluster,
            (_, "shared" | "shared::cta") => self.window = SharedWindow::Cta,
            (_, "shared::cluster") => self.window = SharedWindow::Cluster,
            (_, "b64") => {}
            _ => return false,
        }
        true
    }
}
