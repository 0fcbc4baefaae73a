//! What the harness can run: every refusal names the PTX feature or the hardware limit.

use super::harness::Observable;
use super::shared::SharedMap;
use super::unsupported::{unsupported, Unsupported};
use scopecheck_model::litmus::warp::{WarpOp, WarpPart};
use scopecheck_model::litmus::{
    Access, Fence, Instr, LocationKind, Operand, Program, Proxy, ProxyFence, RmwOp, ThreadId,
};
use scopecheck_model::scope::Order;
use std::collections::BTreeSet;

/// Everything the harness cannot express, found before any code is written.
pub(super) fn check_supported(p: &Program) -> Result<(), Unsupported> {
    if p.threads.is_empty() {
        return unsupported("the program has no threads");
    }
    for l in &p.locations {
        if let LocationKind::Alias { proxy, of } = l.kind {
            return unsupported(format!(
                "location `{}` aliases `{}` through the {} proxy; the harness maps each location once \
                 (no second virtual address, no non-generic proxy)",
                l.name,
                p.locations[of].name,
                proxy.name()
            ));
        }
        if let LocationKind::Plain { init } = l.kind {
            // An mbarrier's initial value is its packed state (see `MbarrierState`).
            if !(l.shared.is_some() && init > i64::from(i32::MAX)) {
                check_i32(init, &format!("initial value of `{}`", l.name))?;
            }
        }
    }
    for i in &p.reg_init {
        check_i32(
            i.value,
            &format!("initial value of P{}:{}", i.thread, i.reg),
        )?;
    }
    for (tid, t) in p.threads.iter().enumerate() {
        for s in &t.body {
            let at = format!("P{tid} at {}", s.span);
            match &s.warp {
                Some(WarpPart::Start(op)) => {
                    check_warp_collective(p, tid, op.mask(), &exchange_form(op), &at)?;
                    let value = match op {
                        WarpOp::Shfl { src, .. }
                        | WarpOp::Match { src, .. }
                        | WarpOp::Redux { src, .. } => src,
                        WarpOp::Vote { pred, .. } => pred,
                        WarpOp::Elect { .. } => &Operand::Imm(0),
                    };
                    if let Operand::Imm(v) = value {
                        check_i32(*v, &format!("{at}: immediate"))?;
                    }
                    continue;
                }
                // The rest of an exchange's lowering: the harness runs the instruction itself.
                Some(WarpPart::Rest) => continue,
                None => {}
            }
            match &s.instr {
                Instr::Load { access, .. } if is_nc(access) => {}
                Instr::Load { access, .. } | Instr::Store { access, .. } => {
                    check_access(access, &at)?;
                    if access.order == Order::Sc {
                        return unsupported(format!(
                            "{at}: `.sc` on a load or store (PTX has no `ld.sc`/`st.sc`; a \
                             `fence.sc` before a relaxed access is a compilation scheme, not the \
                             access the model judges)"
                        ));
                    }
                }
                Instr::Atom { access, op, .. } | Instr::Red { access, op, .. } => {
                    check_access(access, &at)?;
                    if access.order == Order::Sc {
                        return unsupported(format!(
                            "{at}: an RMW with order `{}` has no PTX form",
                            access.order
                        ));
                    }
                    if matches!(s.instr, Instr::Red { .. })
                        && matches!(op, RmwOp::Exch | RmwOp::Cas)
                    {
                        return unsupported(format!("{at}: PTX has no `red.{}`", op.name()));
                    }
                }
                Instr::Fence(Fence::Proxy(k)) if !(*k == ProxyFence::Alias || k.is_async()) => {
                    return unsupported(format!("{at}: `fence.proxy.{}`", k.name()));
                }
                Instr::WarpSync { mask } => {
                    check_warp_collective(p, tid, *mask, "bar.warp.sync", &at)?
                }
                _ => {}
            }
            for op in s.instr.operands() {
                if let Operand::Imm(v) = op {
                    check_i32(*v, &format!("{at}: immediate"))?;
                }
            }
        }
    }
    check_warp_arrivals(p)
}

/// The warp-level instructions of each CTA complete, lane by lane, in program order: each lane's
/// instructions matched per mask (see [`check_warp_collective`]) can still wait on each other in
/// a cycle across masks (lane 0 at `bar.warp.sync 0x7` waiting for lane 1, lane 1 at a
/// `shfl.sync` over `0x3` waiting for lane 0), which hangs on the GPU. Played out here: an
/// instruction completes when every lane of its mask has the same instruction (form and mask)
/// next; what never completes is refused. Runs after the per-instruction checks, so every named
/// lane exists and no lane with a warp-level instruction branches.
pub(super) fn check_warp_arrivals(p: &Program) -> Result<(), Unsupported> {
    let mut ctas: Vec<(u32, u32)> = p
        .threads
        .iter()
        .filter(|t| !t.placement.is_host())
        .map(|t| (t.placement.gpu, t.placement.cta))
        .collect();
    ctas.sort_unstable();
    ctas.dedup();
    for cta in ctas {
        let lanes: Vec<ThreadId> = (0..p.threads.len())
            .filter(|&u| {
                let at = p.threads[u].placement;
                !at.is_host() && (at.gpu, at.cta) == cta
            })
            .collect();
        // Per lane, its warp-level instructions still to complete, last first.
        let mut pending: Vec<Vec<(String, u32)>> = lanes
            .iter()
            .map(|&u| {
                let mut seq: Vec<(String, u32)> = p.threads[u]
                    .body
                    .iter()
                    .filter_map(|s| match (&s.instr, &s.warp) {
                        (Instr::WarpSync { mask }, None) => {
                            Some(("bar.warp.sync".to_string(), *mask))
                        }
                        (_, Some(WarpPart::Start(op))) => Some((exchange_form(op), op.mask())),
                        _ => None,
                    })
                    .collect();
                seq.reverse();
                seq
            })
            .collect();
        loop {
            let ready = (0..lanes.len()).find(|&l| {
                pending[l].last().is_some_and(|next| {
                    (0..32u32)
                        .filter(|k| next.1 >> k & 1 == 1)
                        .all(|k| pending.get(k as usize).and_then(|q| q.last()) == Some(next))
                })
            });
            let Some(l) = ready else { break };
            let mask = pending[l].last().expect("ready").1;
            for k in (0..32).filter(|k| mask >> k & 1 == 1) {
                pending[k].pop();
            }
        }
        if let Some(l) = (0..lanes.len()).find(|&l| !pending[l].is_empty()) {
            let (form, mask) = pending[l].last().expect("not empty");
            return unsupported(format!(
                "P{}: {form} {mask:#x} waits forever for lanes blocked at other warp-level \
                 instructions (the GPU would hang; the model judges it)",
                lanes[l]
            ));
        }
    }
    Ok(())
}

/// A warp-level instruction (`bar.warp.sync`, `shfl.sync`, `vote.sync`, `match.sync`) runs on
/// the GPU only where every lane it names reaches a matching one: PTX ISA, bar.warp.sync: "the
/// behavior of bar.warp.sync is undefined if the executing thread is not in the membermask",
/// and each of these instructions makes the executing thread "wait until all non-exited threads
/// corresponding to membermask have executed" the instruction "with the same qualifiers and same
/// membermask value" (shfl.sync; vote.sync and match.sync alike), so a lane of the mask that
/// never executes a matching one leaves the others waiting (the model judges such a program; the
/// GPU would hang or do something undefined). Checked exactly on threads without branches of
/// their own: the executing lane is in the mask, and every lane of the mask executes the same
/// sequence of warp-level instructions with this mask, as the harness emits them (`form`).
pub(super) fn check_warp_collective(
    p: &Program,
    tid: ThreadId,
    mask: u32,
    form: &str,
    at: &str,
) -> Result<(), Unsupported> {
    let cta = |u: usize| (p.threads[u].placement.gpu, p.threads[u].placement.cta);
    let lanes: Vec<ThreadId> = (0..p.threads.len())
        .filter(|&u| !p.threads[u].placement.is_host() && cta(u) == cta(tid))
        .collect();
    let collectives = |u: ThreadId| -> Vec<String> {
        p.threads[u]
            .body
            .iter()
            .filter_map(|s| match (&s.instr, &s.warp) {
                (Instr::WarpSync { mask: m }, None) if *m == mask => {
                    Some("bar.warp.sync".to_string())
                }
                (_, Some(WarpPart::Start(op))) if op.mask() == mask => Some(exchange_form(op)),
                _ => None,
            })
            .collect()
    };
    // Branches of the thread's own, not those an exchange lowers to (the harness runs the
    // exchange as one instruction).
    let branches = |u: ThreadId| {
        p.threads[u]
            .body
            .iter()
            .any(|s| s.warp.is_none() && matches!(s.instr, Instr::Branch { .. }))
    };
    let named: Vec<u32> = (0..32).filter(|l| mask >> l & 1 == 1).collect();
    let undefined = |why: &str| {
        unsupported(format!(
            "{at}: {form} {mask:#x} {why} (undefined on the GPU; the model judges it)"
        ))
    };
    if mask >> p.lane(tid) & 1 == 0 {
        return undefined("does not name the executing lane");
    }
    for l in named {
        match lanes.get(l as usize) {
            None => return undefined(&format!("names lane {l}, which no thread of the CTA is")),
            Some(&u) if branches(u) => {
                return unsupported(format!(
                    "{at}: {form} in a CTA whose lane {l} branches (the harness runs warp-level \
                     instructions only where it can match every lane's arrivals)"
                ))
            }
            Some(&u) if collectives(u) != collectives(tid) => {
                return undefined(&format!(
                    "names lane {l}, which does not execute the same warp-level instructions \
                     with this mask"
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// An exchange's instruction and qualifiers, without operands: the lanes of a mask must agree on
/// them (as the model's exchanges meet only the same instruction, see `litmus::warp`). The
/// harness emits every shuffle as `.idx` of the source lane the litmus form picks.
pub(super) fn exchange_form(op: &WarpOp) -> String {
    match op {
        WarpOp::Shfl { mode, .. } => format!("shfl.sync.{}.b32", mode.name()),
        WarpOp::Vote { mode, .. } => format!("vote.sync.{}", mode.name()),
        WarpOp::Match { all: true, .. } => "match.all.sync.b32".to_string(),
        WarpOp::Match { all: false, .. } => "match.any.sync.b32".to_string(),
        WarpOp::Redux { op, ty, .. } => format!("redux.sync.{}.{}", op.name(), ty.name()),
        WarpOp::Elect { .. } => "elect.sync".to_string(),
    }
}

/// What shared memory adds to the refusals. PTX ISA, *mbarrier*: "An mbarrier object is an
/// opaque object in shared memory ... Performing any operation other than the mbarrier
/// instructions on an mbarrier object results in undefined behavior" (*mbarrier*, contents of
/// the mbarrier object), so neither a plain access nor a final value of one can be observed on
/// the hardware; and a non-coherent `ld.global.nc` reads only global memory.
pub(super) fn check_shared(
    p: &Program,
    map: &SharedMap,
    observables: &[Observable],
) -> Result<(), Unsupported> {
    let opaque = |l: usize| {
        format!(
            "`{}` is an mbarrier (PTX ISA, mbarrier: \"an opaque object in shared memory\"; \
             \"performing any operation other than the mbarrier instructions on an mbarrier \
             object results in undefined behavior\")",
            p.locations[l].name
        )
    };
    for o in observables {
        if let Observable::Loc(l) = o {
            if map.mbarrier[*l] {
                return unsupported(format!("the condition observes {}", opaque(*l)));
            }
        }
    }
    for (tid, t) in p.threads.iter().enumerate() {
        for s in &t.body {
            let at = format!("P{tid} at {}", s.span);
            match &s.instr {
                Instr::Load { loc, .. }
                | Instr::Store { loc, .. }
                | Instr::Atom { loc, .. }
                | Instr::Red { loc, .. }
                | Instr::CpAsync { dst: loc, .. } => {
                    let l = p.physical(*loc);
                    if map.mbarrier[l] {
                        return unsupported(format!("{at}: a plain access to {}", opaque(l)));
                    }
                    if let Instr::Load { access, .. } = &s.instr {
                        if is_nc(access) && map.slot[l].is_some() {
                            return unsupported(format!(
                                "{at}: `ld.global.nc` of a shared location (PTX ISA, ld.global.nc: \
                                 \"load a register variable from global state space via \
                                 non-coherent cache\")"
                            ));
                        }
                    }
                }
                _ => {}
            }
            if let Instr::CpAsync { src, .. } = &s.instr {
                if map.slot[p.physical(*src)].is_some() {
                    return unsupported(format!(
                        "{at}: cp.async from shared memory (PTX ISA, cp.async: the source is \
                         \"in the global state space\")"
                    ));
                }
            }
        }
    }
    Ok(())
}

pub(super) fn check_i32(v: i64, what: &str) -> Result<(), Unsupported> {
    if i32::try_from(v).is_err() {
        return unsupported(format!("{what} {v} does not fit 32 bits"));
    }
    Ok(())
}

/// The litmus `ld.global.nc` form: a weak load through the texture proxy. The harness runs it as
/// PTX's `ld.global.nc` (through the non-coherent read-only data cache), the instruction the form
/// names; every other texture-proxy access has no global-memory form here.
pub(super) fn is_nc(a: &Access) -> bool {
    a.proxy == Proxy::Texture && !a.order.is_strong()
}

pub(super) fn check_access(a: &Access, at: &str) -> Result<(), Unsupported> {
    if a.proxy != Proxy::Generic {
        return unsupported(format!("{at}: {} proxy access", a.proxy.name()));
    }
    if a.order.is_strong() && a.scope.is_none() {
        return unsupported(format!("{at}: strong access without a scope"));
    }
    Ok(())
}

/// How many GPUs the program's threads sit on.
pub(super) fn roles_devices(p: &Program) -> usize {
    p.threads
        .iter()
        .filter(|t| !t.placement.is_host())
        .map(|t| t.placement.gpu)
        .collect::<BTreeSet<u32>>()
        .len()
        .max(1)
}

/// Group the litmus threads by (GPU, CTA), in order of first appearance, the roles of GPU `g`
/// before those of any higher GPU (so each device launches one contiguous run of roles). Also
/// returns each role's device: the rank of its GPU id among the program's GPU ids.
pub(super) fn roles(p: &Program) -> Result<(Vec<Vec<ThreadId>>, Vec<usize>), Unsupported> {
    let gpus: Vec<u32> = p
        .threads
        .iter()
        .filter(|t| !t.placement.is_host())
        .map(|t| t.placement.gpu)
        .collect::<BTreeSet<u32>>()
        .into_iter()
        .collect();
    if gpus.is_empty() {
        return unsupported("every thread is on the host: the harness needs a GPU thread");
    }
    let mut keys: Vec<(u32, u32)> = Vec::new();
    let mut roles: Vec<Vec<ThreadId>> = Vec::new();
    for (tid, t) in p.threads.iter().enumerate() {
        if t.placement.is_host() {
            continue;
        }
        let key = (t.placement.gpu, t.placement.cta);
        match keys.iter().position(|&k| k == key) {
            Some(r) => roles[r].push(tid),
            None => {
                keys.push(key);
                roles.push(vec![tid]);
            }
        }
    }
    if roles.iter().any(|r| r.len() > 32) {
        return unsupported("more than 32 litmus threads in one CTA");
    }
    let mut order: Vec<usize> = (0..roles.len()).collect();
    order.sort_by_key(|&r| keys[r].0); // stable: first appearance within a GPU
    let devices = order
        .iter()
        .map(|&r| gpus.iter().position(|&g| g == keys[r].0).expect("listed"))
        .collect();
    Ok((
        order.into_iter().map(|r| roles[r].clone()).collect(),
        devices,
    ))
}
