//! Warp-level statements: `bar.warp.sync` over a member mask, and the exchanges (`shfl.sync`,
//! `vote.sync`, `match.sync`, `redux.sync`, `elect.sync`) between lanes of one CTA's warp.

use super::choose::{cta_of, insert_in_each, one_in};
use super::limits::Limits;
use crate::litmus::ir::*;
use crate::litmus::warp::{self, ReduxOp, ReduxType, ShflMode, VoteMode, WarpOp};
use arbitrary::{Result, Unstructured};

/// Now and then a `bar.warp.sync` over some lanes of one CTA's warp (the CTA's threads in
/// program order, see [`Program::lane`]), which every lane in its mask executes once.
pub(super) fn warp_sync(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    limits: &Limits,
) -> Result<()> {
    if !one_in(u, 3)? {
        return Ok(());
    }
    let chosen = u.choose_index(threads.len())?;
    let mut members = Vec::new();
    let mut mask = 0u32;
    for (lane, i) in cta_of(threads, chosen).into_iter().enumerate() {
        if i == chosen || u.arbitrary::<bool>()? {
            members.push(i);
            mask |= 1 << lane;
        }
    }
    insert_in_each(u, threads, &members, Instr::WarpSync { mask }, limits)
}

/// Now and then a `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` or `elect.sync` between
/// two lanes of one CTA's warp, which both execute once, each at a random place: a shuffle whose
/// source lanes lie in the mask (`.idx` of one lane, `.bfly` across the two, `.down`/`.up` to the
/// other lane clamped there), a vote, a match, a reduction (any operation and type) or an
/// election; the value is a register loaded before (else a constant: distinct ones for
/// a shuffle or a vote, 1 for a match, so that constants match). Two lanes at most: a wider
/// vote multiplies the axiomatic engine's executions (its counters' reductions are ordered in
/// every way).
pub(super) fn warp_exchange(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    limits: &Limits,
) -> Result<()> {
    if !one_in(u, 3)? {
        return Ok(());
    }
    let cta = cta_of(threads, u.choose_index(threads.len())?);
    if cta.len() < 2 {
        return Ok(());
    }
    let (a, b) = (u.choose_index(cta.len())?, u.choose_index(cta.len())?);
    let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
    if lo == hi {
        return Ok(());
    }
    let members = [cta[lo as usize], cta[hi as usize]];
    let mask = (1 << lo) | (1 << hi);
    // Kinds 10 to 15 are `redux.sync`, 16 `elect.sync`. The operation and an arithmetic
    // reduction's type also follow the lanes' program lengths, so that no further byte is drawn
    // (the bytes often run out by now) and every operation comes with each type.
    let kind = u.int_in_range(0..=16u8)?;
    let salt = members
        .iter()
        .map(|&i| threads[i].body.len())
        .sum::<usize>() as u32;
    let redux = ReduxOp::ALL[((kind.clamp(10, 15) - 10) as u32 + salt) as usize % 6];
    let redux_ty = match (redux.bitwise(), (kind as u32 + hi + salt / 6) % 2) {
        (true, _) => ReduxType::B32,
        (false, 0) => ReduxType::U32,
        (false, _) => ReduxType::S32,
    };
    // What a lane's exchange costs the exhaustive engines, in instructions: a shuffle is a store,
    // a load and two barriers; a vote adds one reduction per lane; a match loads the other
    // lane's slot, may add to its counter, and loads and clears the counter; a reduction stores
    // twice, loads the other lane's slot, folds it in and loads the result; an election is a
    // CAS, a load and an add.
    let cost = match kind {
        0..=3 => 2,
        4..=7 | 16 => 3,
        _ => 4,
    };
    let events: usize = threads.iter().map(|t| t.body.len()).sum();
    if events + 2 * cost > limits.max_events
        || members
            .iter()
            .any(|&i| threads[i].body.len() >= limits.max_instrs)
    {
        return Ok(());
    }
    // Where both lanes meet at a `bar.warp.sync` too, the exchange goes on the same side of it
    // in both: in opposite orders each lane would wait for the other at a different instruction
    // (PTX ISA, shfl.sync: the executing thread waits "until all non-exited threads
    // corresponding to membermask have executed shfl.sync with the same qualifiers and same
    // membermask value"), a hang the GPU harness refuses to run.
    let syncs: Vec<Option<usize>> = members
        .iter()
        .map(|&i| {
            threads[i]
                .body
                .iter()
                .position(|s| matches!(s.instr, Instr::WarpSync { .. }))
        })
        .collect();
    let both = syncs.iter().all(Option::is_some);
    let before_sync = both && u.arbitrary::<bool>()?;
    for (k, &i) in members.iter().enumerate() {
        let len = threads[i].body.len();
        let at = match syncs[k] {
            Some(sync) if both && before_sync => u.int_in_range(0..=sync)?,
            Some(sync) if both => u.int_in_range(sync + 1..=len)?,
            _ => u.int_in_range(0..=len)?,
        };
        let loaded: Vec<Reg> = threads[i].body[..at]
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Load { dst, .. } => Some(dst.clone()),
                _ => None,
            })
            .collect();
        let value = match loaded.is_empty() {
            true => Operand::Imm(k as Value + 1),
            false => Operand::Reg(u.choose(&loaded)?.clone()),
        };
        let dst = Reg(format!(
            "s{}",
            threads[i].body.iter().filter(|s| s.warp.is_some()).count()
        ));
        let shfl = |mode, b, c| WarpOp::Shfl {
            mode,
            dst: dst.clone(),
            src: value.clone(),
            b,
            c,
            mask,
        };
        let vote = |mode| WarpOp::Vote {
            mode,
            dst: dst.clone(),
            pred: value.clone(),
            mask,
        };
        let matching = |all| WarpOp::Match {
            all,
            dst: dst.clone(),
            src: match &value {
                Operand::Imm(_) => Operand::Imm(1),
                reg => reg.clone(),
            },
            mask,
        };
        let op = match kind {
            0 => shfl(ShflMode::Idx, lo, 0x1f),
            1 => shfl(ShflMode::Bfly, lo ^ hi, 0x1f),
            2 => shfl(ShflMode::Down, hi - lo, hi),
            3 => shfl(ShflMode::Up, hi - lo, lo),
            4 => vote(VoteMode::All),
            5 => vote(VoteMode::Any),
            6 => vote(VoteMode::Ballot),
            7 => vote(VoteMode::Uni),
            8 => matching(false),
            9 => matching(true),
            10..=15 => WarpOp::Redux {
                op: redux,
                ty: redux_ty,
                dst: dst.clone(),
                src: value.clone(),
                mask,
            },
            _ => WarpOp::Elect {
                dst: dst.clone(),
                mask,
            },
        };
        threads[i]
            .body
            .insert(at, warp::placeholder(op, Span::default()));
    }
    Ok(())
}
