//! Warp-level register exchanges: `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` and
//! `elect.sync`.
//!
//! A lane of a warp hands a register value to other lanes without memory (PTX ISA,
//! *shfl.sync*: it "exchange\[s\] register data between threads of a warp"; *vote.sync*: it
//! performs "a reduction of the source predicate across all non-exited threads in
//! membermask"; *match.sync*: it "performs broadcast and compare of operand a across all
//! non-exited threads in membermask"; *redux.sync*: it "performs a reduction operation .op of
//! the 32 bit source register src across all non-exited threads in the membermask"; *elect.sync*:
//! it "elects one predicated active leader thread from among a set of threads specified by
//! membermask"). Each waits for the lanes of its member mask (*shfl.sync*: it "will cause
//! executing thread to wait until all non-exited threads corresponding to membermask have
//! executed shfl.sync with the same qualifiers and same membermask value before resuming
//! execution"). They order no memory: PTX grants memory ordering among a warp's lanes to
//! `bar.warp.sync` alone (*bar.warp.sync*: "bar.warp.sync also guarantee memory ordering among
//! threads participating in barrier"; none of the exchanges has such a sentence: they move
//! register data). Issue 19 gave the exchanges `bar.warp.sync`'s ordering; issue 29 takes it back.
//!
//! The engines see an exchange through instructions they already have: the parser lowers it
//! ([`lower`]) into a weak store of the contributed value to the lane's *slot* (a location the
//! program cannot name), a barrier of the mask's lanes (with its own first id [`WARP_EXCHANGE`]
//! so that it meets only exchanges, and the instruction's qualifiers as its last, so that it
//! meets only the same instruction: PTX waits for the lanes that "have executed shfl.sync with
//! the same qualifiers and same membermask value", and a lane that executes another leaves the
//! others waiting, as at a `bar.warp.sync` it never reaches), weak loads of the slots it reads,
//! the register arithmetic and forward branches that combine them, and a second barrier so that
//! no lane overwrites its slot before every lane read it. Every lowered statement carries a
//! [`WarpPart`], and the events they give are the exchange's (`WX` in the cat models): the
//! barriers of an exchange order the exchange's own slot accesses, the data flowing through it,
//! and nothing else (the models' `exchange-order`; the runtime's `Machine::exchange_barrier`).
//! Each slot is written by its own lane only and every read of it is ordered after this round's
//! store and before the next round's by the two barriers, so the loads return exactly the values
//! exchanged, without a data race; the program's own accesses on either side of the exchange
//! stay unordered across lanes, as PTX has them. The printer writes the instruction back as
//! written from the [`WarpPart::Start`] statement.
//!
//! Lanes: a CTA's litmus threads are its first warp's lanes in program order
//! ([`Program::lane`]).

pub use super::ir::warp_op::{ReduxOp, ReduxType, ShflMode, VoteMode, WarpOp, WarpPart};
use super::ir::*;
use crate::scope::{Order, Scope};

mod redux;

use redux::{elect, reduce};

/// The first barrier id of the barriers an exchange lowers to (the second is its member mask,
/// the third its qualifiers): they meet only the same exchange over the same mask, never a
/// `bar.warp.sync` or `bar.cta.sync`.
///
/// ```
/// use scopecheck_model::litmus::warp::WARP_EXCHANGE;
/// use scopecheck_model::litmus::{parse, Instr, Operand};
/// let p = parse(
///     "PTX S\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
///      shfl.sync.idx.b32 r0, 5, 0, 0x1f, 0x3 | shfl.sync.idx.b32 r0, 6, 0, 0x1f, 0x3 ;\n\
///      exists (P1:r0 == 5)\n",
///     "s.litmus",
/// )
/// .unwrap();
/// // Each lane's shuffle became two barriers of ids [WARP_EXCHANGE, mask, qualifiers].
/// let exchange_barriers = p.threads[1]
///     .body
///     .iter()
///     .filter(|s| matches!(&s.instr, Instr::Barrier { id, .. }
///         if id[..2] == [Operand::Imm(WARP_EXCHANGE), Operand::Imm(0x3)]))
///     .count();
/// assert_eq!(exchange_barriers, 2);
/// ```
pub const WARP_EXCHANGE: Value = -0x5348_464c;

impl WarpOp {
    /// The instruction's qualifiers as a number (the last id of the barriers it lowers to): each
    /// mode of each instruction its own.
    fn qualifiers(&self) -> Value {
        match self {
            WarpOp::Shfl { mode, .. } => *mode as Value,
            WarpOp::Vote { mode, .. } => 4 + *mode as Value,
            WarpOp::Match { all, .. } => 8 + Value::from(*all),
            WarpOp::Redux { op, ty, .. } => 16 + 4 * *op as Value + *ty as Value,
            WarpOp::Elect { .. } => 48,
        }
    }

    /// Whether the exchange writes the lane's value to its slot (`P<t>%lane`): a shuffle, a
    /// match or a reduction.
    fn uses_slot(&self) -> bool {
        matches!(
            self,
            WarpOp::Shfl { .. } | WarpOp::Match { .. } | WarpOp::Redux { .. }
        )
    }

    /// Whether the exchange folds values in the lane's accumulator (`P<t>%acc`): a reduction.
    fn uses_accumulator(&self) -> bool {
        matches!(self, WarpOp::Redux { .. })
    }

    /// Whether the exchange gathers a lane mask in the lane's counter (`P<t>%vote`): a vote or
    /// a match.
    fn uses_counter(&self) -> bool {
        matches!(self, WarpOp::Vote { .. } | WarpOp::Match { .. })
    }
}

/// Whether a location is an exchange slot or vote counter: no litmus identifier contains `%`,
/// so no program names one.
pub fn is_slot(loc: &Location) -> bool {
    loc.name.contains('%')
}

/// Whether a statement still awaits lowering: the parser and the generator first place the
/// exchange as an empty label carrying [`WarpPart::Start`].
fn pending(s: &Stmt) -> Option<&WarpOp> {
    match (&s.instr, &s.warp) {
        (Instr::Label(l), Some(WarpPart::Start(op))) if l.is_empty() => Some(op),
        _ => None,
    }
}

/// An exchange not lowered yet, placed where it will be lowered.
pub fn placeholder(op: WarpOp, span: Span) -> Stmt {
    Stmt {
        instr: Instr::Label(String::new()),
        span,
        token: None,
        qualifiers: None,
        warp: Some(WarpPart::Start(op)),
    }
}

/// Lower every placeholder exchange of `threads` (see the module docs). Every thread of a CTA
/// in which some thread shuffles or matches gets a slot (`P0%lane`), every thread of a CTA in
/// which some thread votes or matches a counter (`P0%vote`), appended to `locations` in thread order, so that a
/// program and its printed and parsed copy lower alike.
///
/// ```
/// use scopecheck_model::litmus::warp::{is_slot, WarpPart};
/// let src = "PTX shfl\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
///            shfl.sync.idx.b32 r0, 5, 0, 0x1f, 0x3 | shfl.sync.idx.b32 r0, 6, 0, 0x1f, 0x3 ;\n\
///            exists (P1:r0 == 5)\n";
/// // The parser places each exchange (`placeholder`) and lowers them all (`lower`).
/// let p = scopecheck_model::litmus::parse(src, "shfl.litmus").unwrap();
/// let slots: Vec<&str> = p.locations.iter().filter(|l| is_slot(l)).map(|l| l.name.as_str()).collect();
/// assert_eq!(slots, ["P0%lane", "P1%lane"]);
/// // Store, barrier, load, barrier: the first carries the instruction for the printer.
/// assert_eq!(p.threads[1].body.len(), 4);
/// assert!(matches!(p.threads[1].body[0].warp, Some(WarpPart::Start(_))));
/// assert!(scopecheck_model::litmus::print(&p).contains("shfl.sync.idx.b32 r0, 6, 0, 0x1f, 0x3"));
/// ```
pub fn lower(threads: &mut [Thread], locations: &mut Vec<Location>) {
    let cta = |t: &Thread| (t.placement.gpu, t.placement.cta);
    let using = |uses: fn(&WarpOp) -> bool| -> Vec<(u32, u32)> {
        threads
            .iter()
            .filter(|t| t.body.iter().any(|s| pending(s).is_some_and(uses)))
            .map(cta)
            .collect()
    };
    let (shuffling, voting) = (using(WarpOp::uses_slot), using(WarpOp::uses_counter));
    let reducing = using(WarpOp::uses_accumulator);
    // Each CTA's member masks of `elect.sync`, in the order the threads first name them.
    let mut electing: Vec<((u32, u32), u32)> = Vec::new();
    for th in threads.iter() {
        for s in &th.body {
            if let Some(WarpOp::Elect { mask, .. }) = pending(s) {
                if !electing.contains(&(cta(th), *mask)) {
                    electing.push((cta(th), *mask));
                }
            }
        }
    }
    if shuffling.is_empty() && voting.is_empty() && electing.is_empty() {
        return;
    }
    let mut add = |name: String| {
        locations.push(Location {
            name,
            kind: LocationKind::Plain { init: 0 },
            span: Span::default(),
            shared: None,
        });
        Some(locations.len() - 1)
    };
    let (mut slot, mut counter) = (vec![None; threads.len()], vec![None; threads.len()]);
    let mut accumulator = vec![None; threads.len()];
    for (t, th) in threads.iter().enumerate() {
        if shuffling.contains(&cta(th)) {
            slot[t] = add(format!("P{t}%lane"));
        }
        if voting.contains(&cta(th)) {
            counter[t] = add(format!("P{t}%vote"));
        }
        if reducing.contains(&cta(th)) {
            accumulator[t] = add(format!("P{t}%acc"));
        }
    }
    // One election word per CTA and member mask, named after the CTA's first thread.
    let elections: Vec<((u32, u32), u32, LocId)> = electing
        .iter()
        .map(|&(c, mask)| {
            let first = threads.iter().position(|th| cta(th) == c).unwrap_or(0);
            let loc = add(format!("P{first}%elect{mask:x}")).expect("added");
            (c, mask, loc)
        })
        .collect();
    let placements: Vec<(u32, u32)> = threads.iter().map(cta).collect();
    for t in 0..threads.len() {
        // The thread of each lane of `t`'s warp.
        let warp: Vec<usize> = (0..placements.len())
            .filter(|&u| placements[u] == placements[t])
            .collect();
        let lane = warp.iter().position(|&u| u == t).expect("t is in its warp") as u32;
        let body = std::mem::take(&mut threads[t].body);
        let mut out = Vec::with_capacity(body.len());
        for s in body {
            let Some(op) = pending(&s).cloned() else {
                out.push(s);
                continue;
            };
            let label = format!("%x{}", out.len());
            let lowered = match &op {
                WarpOp::Shfl { .. } => {
                    let j = op.source_lane(lane).expect("a shuffle has a source lane");
                    let source = slot[warp[j as usize]].expect("lanes of one CTA have slots");
                    shuffle(&op, slot[t].expect("a shuffling thread has a slot"), source)
                }
                WarpOp::Vote { .. } => {
                    let counters: Vec<LocId> = (0..warp.len())
                        .filter(|k| op.mask() & (1 << k) != 0)
                        .map(|k| counter[warp[k]].expect("lanes of one CTA have counters"))
                        .collect();
                    let own = counter[t].expect("a voting thread has a counter");
                    vote(&op, lane, own, &counters, &label)
                }
                WarpOp::Match { .. } => {
                    let others: Vec<(u32, LocId)> = (0..warp.len() as u32)
                        .filter(|&k| k != lane && op.mask() & (1 << k) != 0)
                        .map(|k| {
                            (
                                k,
                                slot[warp[k as usize]].expect("lanes of one CTA have slots"),
                            )
                        })
                        .collect();
                    let own = (
                        slot[t].expect("a matching thread has a slot"),
                        counter[t].expect("a matching thread has a counter"),
                    );
                    matching(&op, lane, own, &others, &label)
                }
                WarpOp::Redux { .. } => {
                    let others: Vec<LocId> = (0..warp.len())
                        .filter(|&k| k as u32 != lane && op.mask() & (1 << k) != 0)
                        .map(|k| slot[warp[k]].expect("lanes of one CTA have slots"))
                        .collect();
                    let own = (
                        slot[t].expect("a reducing thread has a slot"),
                        accumulator[t].expect("a reducing thread has an accumulator"),
                    );
                    reduce(&op, own, &others)
                }
                WarpOp::Elect { mask, .. } => {
                    let word = elections
                        .iter()
                        .find(|e| e.0 == placements[t] && e.1 == *mask)
                        .expect("every election has its word")
                        .2;
                    elect(&op, lane, word)
                }
            };
            for (i, instr) in lowered.into_iter().enumerate() {
                out.push(Stmt {
                    instr,
                    span: s.span,
                    token: None,
                    qualifiers: None,
                    warp: Some(if i == 0 {
                        WarpPart::Start(op.clone())
                    } else {
                        WarpPart::Rest
                    }),
                });
            }
        }
        threads[t].body = out;
    }
}

pub(super) const WEAK: Access = Access {
    proxy: Proxy::Generic,
    order: Order::Weak,
    scope: None,
};

/// The barrier an exchange meets its lanes at.
pub(super) fn barrier(op: &WarpOp) -> Instr {
    Instr::Barrier {
        op: BarrierOp::Sync,
        id: vec![
            Operand::Imm(WARP_EXCHANGE),
            Operand::Imm(op.mask() as Value),
            Operand::Imm(op.qualifiers()),
        ],
        quorum: Some(Operand::Imm(op.mask().count_ones() as Value)),
    }
}

/// `shfl.sync`: store `src` to the lane's slot, meet, load the source lane's slot, meet.
fn shuffle(op: &WarpOp, own: LocId, source: LocId) -> Vec<Instr> {
    let WarpOp::Shfl { dst, src, .. } = op else {
        unreachable!("a shuffle")
    };
    vec![
        Instr::Store {
            access: WEAK,
            loc: own,
            value: src.clone(),
        },
        barrier(op),
        Instr::Load {
            access: WEAK,
            dst: dst.clone(),
            loc: source,
        },
        barrier(op),
    ]
}

/// `vote.sync`: a lane whose predicate holds adds its bit (`1 << lane`) to every member lane's
/// counter (relaxed `.cta` reductions: several lanes add to one counter at once); after the
/// first meeting each lane's counter holds the ballot, which it loads and clears (no other lane
/// adds to it again before the second meeting). `any` is a nonzero ballot, `all` the full mask.
fn vote(op: &WarpOp, lane: u32, own: LocId, counters: &[LocId], label: &str) -> Vec<Instr> {
    let WarpOp::Vote {
        mode,
        dst,
        pred,
        mask,
    } = op
    else {
        unreachable!("a vote")
    };
    let (skip, end) = (format!("{label}.false"), format!("{label}.end"));
    let mut out = Vec::new();
    let adds = counters.iter().map(|&c| Instr::Red {
        access: Access {
            proxy: Proxy::Generic,
            order: Order::Relaxed,
            scope: Some(Scope::Cta),
        },
        op: RmwOp::Add,
        loc: c,
        operand: Operand::Imm(1 << lane),
    });
    match pred {
        Operand::Imm(0) => {}
        Operand::Imm(_) => out.extend(adds),
        Operand::Reg(_) => {
            out.push(Instr::Branch {
                cond: Some((Cmp::Eq, pred.clone(), Operand::Imm(0))),
                target: skip.clone(),
            });
            out.extend(adds);
            out.push(Instr::Label(skip));
        }
    }
    out.push(barrier(op));
    out.push(Instr::Load {
        access: WEAK,
        dst: dst.clone(),
        loc: own,
    });
    out.push(Instr::Store {
        access: WEAK,
        loc: own,
        value: Operand::Imm(0),
    });
    let reg = Operand::Reg(dst.clone());
    let set = |v: Value| Instr::Mov {
        dst: dst.clone(),
        src: Operand::Imm(v),
    };
    match mode {
        VoteMode::Ballot => {}
        VoteMode::Uni => {
            let same = format!("{label}.same");
            out.extend([
                Instr::Branch {
                    cond: Some((Cmp::Eq, reg.clone(), Operand::Imm(0))),
                    target: same.clone(),
                },
                Instr::Branch {
                    cond: Some((Cmp::Eq, reg, Operand::Imm(*mask as Value))),
                    target: same.clone(),
                },
                set(0),
                Instr::Branch {
                    cond: None,
                    target: end.clone(),
                },
                Instr::Label(same),
                set(1),
                Instr::Label(end),
            ]);
        }
        VoteMode::Any => out.extend([
            Instr::Branch {
                cond: Some((Cmp::Eq, reg, Operand::Imm(0))),
                target: end.clone(),
            },
            set(1),
            Instr::Label(end),
        ]),
        VoteMode::All => {
            let none = format!("{label}.none");
            out.extend([
                Instr::Branch {
                    cond: Some((Cmp::Ne, reg, Operand::Imm(*mask as Value))),
                    target: none.clone(),
                },
                set(1),
                Instr::Branch {
                    cond: None,
                    target: end.clone(),
                },
                Instr::Label(none),
                set(0),
                Instr::Label(end),
            ]);
        }
    }
    out.push(barrier(op));
    out
}

/// `match.sync`: store `src` to the lane's slot and meet; for each other member lane `k`, load
/// its slot into `dst` and, when it equals `src`, add `1 << k` to the lane's counter (only this
/// lane touches it); load the counter into `dst`, clear it, add the lane's own bit: `dst` is
/// the `.any` mask. `.all` keeps it when it is the member mask, else 0; meet again. `dst` receives loads while `src` is still compared, so the parser refuses a
/// `src` register equal to `dst`.
fn matching(
    op: &WarpOp,
    lane: u32,
    (slot, own): (LocId, LocId),
    others: &[(u32, LocId)],
    label: &str,
) -> Vec<Instr> {
    let WarpOp::Match {
        all,
        dst,
        src,
        mask,
    } = op
    else {
        unreachable!("a match")
    };
    let mut out = vec![
        Instr::Store {
            access: WEAK,
            loc: slot,
            value: src.clone(),
        },
        barrier(op),
    ];
    for &(k, other) in others {
        let differ = format!("{label}.k{k}");
        out.extend([
            Instr::Load {
                access: WEAK,
                dst: dst.clone(),
                loc: other,
            },
            Instr::Branch {
                cond: Some((Cmp::Ne, Operand::Reg(dst.clone()), src.clone())),
                target: differ.clone(),
            },
            Instr::Red {
                access: Access {
                    proxy: Proxy::Generic,
                    order: Order::Relaxed,
                    scope: Some(Scope::Cta),
                },
                op: RmwOp::Add,
                loc: own,
                operand: Operand::Imm(1 << k),
            },
            Instr::Label(differ),
        ]);
    }
    out.extend([
        Instr::Load {
            access: WEAK,
            dst: dst.clone(),
            loc: own,
        },
        Instr::Store {
            access: WEAK,
            loc: own,
            value: Operand::Imm(0),
        },
        Instr::Alu {
            op: AluOp::Add,
            dst: dst.clone(),
            a: Operand::Reg(dst.clone()),
            b: Operand::Imm(1 << lane),
        },
    ]);
    if *all {
        let keep = format!("{label}.all");
        out.extend([
            Instr::Branch {
                // The sum is an `add`, a 32-bit `int` ([`AluOp::apply`]): lane 31's bit is
                // its sign bit.
                cond: Some((
                    Cmp::Eq,
                    Operand::Reg(dst.clone()),
                    Operand::Imm(Value::from(*mask as i32)),
                )),
                target: keep.clone(),
            },
            Instr::Mov {
                dst: dst.clone(),
                src: Operand::Imm(0),
            },
            Instr::Label(keep),
        ]);
    }
    out.push(barrier(op));
    out
}
