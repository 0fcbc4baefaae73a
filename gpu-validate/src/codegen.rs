//! Litmus program → a CUDA C++ test harness whose memory operations are inline PTX.
//!
//! NVRTC compiles the harness; inline `asm volatile` keeps each litmus instruction's exact PTX form
//! (`ld.relaxed.gpu`, `st.release.cta`, `fence.sc.gpu`, `atom.acq_rel.gpu.add`, ...), which C++
//! atomics could not promise. The harness runs many *instances* of the test per launch
//! (parallel testing, as in Kirkham et al.'s MC Mutants):
//!
//! - Each CTA of the litmus test (a *role*) gets its own thread blocks; block `b` plays role
//!   `b % roles` for group `b / roles`. Inside a block, `ipb` instances sit side by side, each
//!   using one GPU thread per litmus thread of that role (`slot`). Litmus threads that share a CTA
//!   therefore share a block, and litmus threads of different CTAs never do.
//! - The instance a thread works on is a random permutation (fresh per launch) of its position,
//!   chosen independently per role, so the partners of one instance sit in unrelated places.
//! - Every location of every instance lives at a permuted index of its own array, `stride` words
//!   apart, so no two locations share a cache line when the stride is ≥ 32 words.
//! - Optional: a bounded spin barrier per instance before the test body, pre-stress traffic by
//!   the testing threads, and extra memory-stress blocks hammering a scratch area.
//! - A second kernel classifies each instance on the device (one hash-table counter per distinct
//!   final state of the condition's observables) and resets the locations for the next launch, so
//!   the host copies back only counters.

use crate::host::HostThread;
use scopecheck_model::litmus::warp::{VoteMode, WarpOp, WarpPart};
use scopecheck_model::litmus::{
    Access, BarrierOp, Cmp, Fence, Instr, LocId, LocationKind, Operand, Program, Prop, Proxy,
    ProxyFence, Quantifier, Reg, RmwOp, Term, ThreadId,
};
use scopecheck_model::scope::Order;
use std::collections::BTreeSet;
use std::fmt::{self, Write};

/// Names of the two kernels in the generated module.
pub const TEST_KERNEL: &str = "litmus_test";
pub const CHECK_KERNEL: &str = "litmus_check";

/// Slots in the device outcome table (a power of two).
pub const TABLE_SLOTS: usize = 4096;
/// The most observables one key packs: 56 bits below the tag byte, shared out by
/// [`value_bits`].
pub const MAX_OBSERVABLES: usize = 16;

/// Bits per observed value in a key of `observables` values: 8 for up to 7 values (-128..=127),
/// 4 for up to 14 (-8..=7), 3 for up to 16 (-4..=3). A value outside its range marks the
/// instance "too wide" instead of being packed.
pub fn value_bits(observables: usize) -> u32 {
    match observables {
        0..=7 => 8,
        8..=14 => 4,
        _ => 3,
    }
}
/// Backward branches a litmus thread may take before it gives up (its instance counts as timed out).
pub const STEP_LIMIT: u32 = 1 << 16;

/// Tag byte of an outcome key: an ordinary final state.
pub const TAG_STATE: u64 = 1;
/// Tag byte: some litmus thread of the instance ran out of steps.
pub const TAG_TIMEOUT: u64 = 2;
/// Tag byte: some observable fell outside the range its [`value_bits`] can pack.
pub const TAG_WIDE: u64 = 3;
/// Tag byte: a spinning reader gave up before its load returned the value it waits for. The
/// instance has no final state of the test (the reader never got past its first load).
pub const TAG_SPIN: u64 = 4;

/// A program the harness cannot express, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unsupported on GPU: {}", self.0)
    }
}

impl std::error::Error for Unsupported {}

/// One value the device classifies an instance by: a register of the condition or a location's
/// final value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Observable {
    Reg(ThreadId, Reg),
    /// A physical location.
    Loc(LocId),
}

impl Observable {
    /// The name the axiomatic engine uses: `P1:r0` for registers, the location name otherwise.
    pub fn name(&self, program: &Program) -> String {
        match self {
            Observable::Reg(t, r) => format!("P{t}:{r}"),
            Observable::Loc(l) => program.locations[*l].name.clone(),
        }
    }
}

/// The generated harness and the facts the runner and the classifier need about it.
#[derive(Clone, Debug)]
pub struct Harness {
    /// CUDA C++ source for NVRTC.
    pub source: String,
    /// Litmus threads grouped by CTA: `roles[c]` run in one block, in slot order.
    pub roles: Vec<Vec<ThreadId>>,
    /// The largest number of litmus threads in one role: GPU threads per instance in a block.
    pub slots: usize,
    /// The condition's registers and locations, in key byte order.
    pub observables: Vec<Observable>,
    /// Every register a litmus thread writes or the condition reads, in the order they are saved
    /// per instance (one `int` each, followed by the timeout flag).
    pub saved: Vec<(ThreadId, Reg)>,
    /// Physical locations; index `k` is the harness's location array `k`.
    pub locations: Vec<LocId>,
    /// Loads that may spin (see [`Spin`]); they spin only when the run's spin bound is non-zero.
    pub spins: Vec<Spin>,
    /// The device each role runs on (0 for every role of a one-GPU program): the rank of its
    /// thread's GPU id among the program's GPU ids. Each device's roles are contiguous.
    pub role_devices: Vec<usize>,
    /// Litmus threads placed on the host (`P1@host`): run by CPU threads of the runner on
    /// mapped host memory (see [`crate::host`]), never by the kernel.
    pub host: Vec<HostThread>,
    /// Does any thread run an RMW (`atom`/`red`)?
    pub has_rmw: bool,
    /// The program uses warp-level instructions (`bar.warp.sync`): an instance's threads of one
    /// CTA must be adjacent lanes of one warp, so the runner launches it with the warp layout
    /// whatever the settings, and `slots` is a power of two.
    pub warp_lanes: bool,
}

/// A load that the harness can repeat until it returns `value`: a *spinning reader*.
///
/// Only loads whose destination register the condition pins to a constant (a top-level conjunct
/// `Pt:r == value` of an `exists`/`~exists` condition) in a thread without branches are chosen,
/// and never for the location's initial value. Why the diff stays sound: an instance whose
/// spinning load finally returns `value` is an execution of the original program in which that
/// load returned `value`, plus earlier reads of the same location by the same thread whose
/// results are dropped; removing those read events from a consistent execution leaves every
/// relation of the model (program order, reads-from, coherence and the orders built from them)
/// a restriction of what it was, so the acyclicity and irreflexivity axioms still hold and the
/// final state is one the model allows for the original program. Instances whose reader gave up
/// are counted apart ([`TAG_SPIN`]), never as a final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spin {
    pub thread: ThreadId,
    /// Index of the load in the thread's body.
    pub stmt: usize,
    /// The value the load waits for.
    pub value: i64,
}

impl Harness {
    /// Ints saved per instance: every saved register plus the timeout and spin-miss flags.
    pub fn words_per_instance(&self) -> usize {
        self.saved.len() + 2
    }

    pub fn threads(&self) -> usize {
        self.roles.iter().map(Vec::len).sum()
    }

    /// GPUs the program spans.
    pub fn devices(&self) -> usize {
        self.role_devices.iter().max().map_or(1, |d| d + 1)
    }

    /// The contiguous run of roles device `d` launches: (first role, count).
    pub fn device_roles(&self, d: usize) -> (u32, u32) {
        let first = self.role_devices.iter().position(|&x| x == d).unwrap_or(0);
        let count = self.role_devices.iter().filter(|&&x| x == d).count();
        (first as u32, count as u32)
    }
}

/// Generate the harness for `program`, or say why the GPU cannot run it.
pub fn generate(program: &Program) -> Result<Harness, Unsupported> {
    check_supported(program)?;
    let (roles, role_devices) = roles(program)?;

    let warp_lanes = program.uses_warps();
    let most = roles.iter().map(Vec::len).max().unwrap_or(0);
    // With warp-level instructions an instance's threads of a CTA must not straddle two warps:
    // a power of two of slots divides the warp, so under the warp layout they never do.
    let slots = if warp_lanes {
        most.next_power_of_two()
    } else {
        most
    };
    let locations: Vec<LocId> = (0..program.locations.len()).collect();
    let observables = observables(program)?;
    let saved = saved_registers(program, &observables);
    let host: Vec<HostThread> = (0..program.threads.len())
        .filter(|&t| program.threads[t].placement.is_host())
        .map(|t| HostThread::new(program, &saved, t))
        .collect();
    // Host threads are run by the runner's CPU threads, which load once.
    let spins: Vec<Spin> = spins(program)
        .into_iter()
        .filter(|x| !program.threads[x.thread].placement.is_host())
        .collect();
    let mut g = Gen {
        program,
        out: String::new(),
        roles: &roles,
        slots,
        saved: &saved,
        locations: &locations,
        observables: &observables,
        spins: &spins,
        warp_lanes,
    };
    g.emit()?;
    Ok(Harness {
        source: g.out,
        roles,
        slots,
        observables,
        saved,
        locations,
        spins,
        role_devices,
        host,
        has_rmw: program.threads.iter().any(|t| {
            t.body
                .iter()
                .any(|s| matches!(s.instr, Instr::Atom { .. } | Instr::Red { .. }))
        }),
        warp_lanes,
    })
}

fn unsupported<T>(msg: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported(msg.into()))
}

/// Everything the harness cannot express, found before any code is written.
fn check_supported(p: &Program) -> Result<(), Unsupported> {
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
            check_i32(init, &format!("initial value of `{}`", l.name))?;
        }
    }
    for i in &p.reg_init {
        check_i32(
            i.value,
            &format!("initial value of P{}:{}", i.thread, i.reg),
        )?;
    }
    if p.threads.iter().any(|t| t.placement.cluster.is_some()) {
        return unsupported("cluster placements (the harness launches no clusters)");
    }
    if let Some(l) = p.locations.iter().find(|l| l.shared.is_some()) {
        return unsupported(format!(
            "shared-memory location `{}` (the harness places every location in global memory)",
            l.name
        ));
    }
    for (tid, t) in p.threads.iter().enumerate() {
        for s in &t.body {
            let at = format!("P{tid} at {}", s.span);
            match &s.warp {
                Some(WarpPart::Start(op)) => {
                    check_warp_collective(p, tid, op.mask(), &exchange_form(op), &at)?;
                    let value = match op {
                        WarpOp::Shfl { src, .. } | WarpOp::Match { src, .. } => src,
                        WarpOp::Vote { pred, .. } => pred,
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
                Instr::Fence(Fence::Proxy(k))
                    if !matches!(k, ProxyFence::Alias | ProxyFence::Async) =>
                {
                    return unsupported(format!("{at}: `fence.proxy.{}`", k.name()));
                }
                Instr::Async(_) => {
                    return unsupported(format!(
                        "{at}: `{}` (mbarriers, bulk copies, cluster barriers)",
                        scopecheck_model::litmus::print::instr(p, &s.instr)
                    ));
                }
                Instr::CpAsync { .. } | Instr::CpAsyncCommit | Instr::CpAsyncWait { .. } => {
                    return unsupported(format!(
                        "{at}: cp.async (its destination is shared memory; the harness keeps \
                         every location in global memory)"
                    ));
                }
                Instr::WarpSync { mask } => {
                    check_warp_collective(p, tid, *mask, "bar.warp.sync", &at)?
                }
                Instr::Barrier { quorum, .. } => {
                    let q = if quorum.is_some() {
                        " with a quorum"
                    } else {
                        ""
                    };
                    return unsupported(format!(
                        "{at}: CTA barrier{q} (many instances share a block, so a barrier would join unrelated instances)"
                    ));
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
fn check_warp_arrivals(p: &Program) -> Result<(), Unsupported> {
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
fn check_warp_collective(
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
fn exchange_form(op: &WarpOp) -> String {
    match op {
        WarpOp::Shfl { mode, .. } => format!("shfl.sync.{}.b32", mode.name()),
        WarpOp::Vote { mode, .. } => format!("vote.sync.{}", mode.name()),
        WarpOp::Match { all: true, .. } => "match.all.sync.b32".to_string(),
        WarpOp::Match { all: false, .. } => "match.any.sync.b32".to_string(),
    }
}

fn check_i32(v: i64, what: &str) -> Result<(), Unsupported> {
    if i32::try_from(v).is_err() {
        return unsupported(format!("{what} {v} does not fit 32 bits"));
    }
    Ok(())
}

/// The litmus `ld.global.nc` form: a weak load through the texture proxy. The harness runs it as
/// PTX's `ld.global.nc` (through the non-coherent read-only data cache), the instruction the form
/// names; every other texture-proxy access has no global-memory form here.
fn is_nc(a: &Access) -> bool {
    a.proxy == Proxy::Texture && !a.order.is_strong()
}

fn check_access(a: &Access, at: &str) -> Result<(), Unsupported> {
    if a.proxy != Proxy::Generic {
        return unsupported(format!("{at}: {} proxy access", a.proxy.name()));
    }
    if a.order.is_strong() && a.scope.is_none() {
        return unsupported(format!("{at}: strong access without a scope"));
    }
    Ok(())
}

/// How many GPUs the program's threads sit on.
fn roles_devices(p: &Program) -> usize {
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
fn roles(p: &Program) -> Result<(Vec<Vec<ThreadId>>, Vec<usize>), Unsupported> {
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

/// The registers and locations the condition mentions, in first-mention order, then those only
/// the `filter` mentions (the diff needs them to leave out the states the filter rejects).
pub fn observables(p: &Program) -> Result<Vec<Observable>, Unsupported> {
    fn walk(p: &Program, prop: &Prop, out: &mut Vec<Observable>) {
        match prop {
            Prop::True => {}
            Prop::Cmp(_, a, b) => {
                for t in [a, b] {
                    let o = match t {
                        Term::Reg(th, r) => Observable::Reg(*th, r.clone()),
                        Term::Loc(l) => Observable::Loc(p.physical(*l)),
                        Term::Const(_) => continue,
                    };
                    if !out.contains(&o) {
                        out.push(o);
                    }
                }
            }
            Prop::Not(a) => walk(p, a, out),
            Prop::And(a, b) | Prop::Or(a, b) => {
                walk(p, a, out);
                walk(p, b, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(p, &p.condition.prop, &mut out);
    if let Some(filter) = &p.filter {
        walk(p, filter, &mut out);
    }
    for o in &out {
        if let Observable::Reg(t, r) = o {
            if *t >= p.threads.len() {
                return unsupported(format!(
                    "the condition names P{t}:{r} but there is no thread P{t}"
                ));
            }
        }
    }
    if out.len() > MAX_OBSERVABLES {
        return unsupported(format!(
            "the condition observes {} values; the device classifier packs at most {MAX_OBSERVABLES}",
            out.len()
        ));
    }
    Ok(out)
}

/// Registers each thread defines, plus the condition's registers: all are stored, so that no load
/// is dead code (ptxas deletes loads whose result is never used).
fn saved_registers(p: &Program, observables: &[Observable]) -> Vec<(ThreadId, Reg)> {
    let mut set: BTreeSet<(ThreadId, Reg)> = BTreeSet::new();
    for (tid, t) in p.threads.iter().enumerate() {
        for s in &t.body {
            if let Some(r) = s.instr.written_reg() {
                set.insert((tid, r.clone()));
            }
        }
    }
    for o in observables {
        if let Observable::Reg(t, r) = o {
            set.insert((*t, r.clone()));
        }
    }
    set.into_iter().collect()
}

/// The spinning-reader candidates of `p` (see [`Spin`]).
pub fn spins(p: &Program) -> Vec<Spin> {
    fn pinned(prop: &Prop, out: &mut Vec<(ThreadId, Reg, i64)>) {
        match prop {
            Prop::And(a, b) => {
                pinned(a, out);
                pinned(b, out);
            }
            Prop::Cmp(Cmp::Eq, Term::Reg(t, r), Term::Const(c))
            | Prop::Cmp(Cmp::Eq, Term::Const(c), Term::Reg(t, r)) => out.push((*t, r.clone(), *c)),
            _ => {}
        }
    }
    if p.condition.quantifier == Quantifier::Forall {
        return vec![];
    }
    let mut pins = Vec::new();
    pinned(&p.condition.prop, &mut pins);
    let mut out = Vec::new();
    for (t, r, value) in pins {
        let Some(thread) = p.threads.get(t) else {
            continue;
        };
        if thread
            .body
            .iter()
            .any(|s| matches!(s.instr, Instr::Branch { .. } | Instr::Label(_)))
        {
            continue;
        }
        let defs: Vec<usize> = thread
            .body
            .iter()
            .enumerate()
            .filter(|(_, s)| s.instr.written_reg() == Some(&r))
            .map(|(i, _)| i)
            .collect();
        if let [i] = defs[..] {
            if let (Instr::Load { loc, .. }, None) = (&thread.body[i].instr, &thread.body[i].warp) {
                if p.initial_value(*loc) != value && i32::try_from(value).is_ok() {
                    out.push(Spin {
                        thread: t,
                        stmt: i,
                        value,
                    });
                }
            }
        }
    }
    out.sort_by_key(|s| (s.thread, s.stmt));
    out.dedup();
    out
}

/// A C identifier for a litmus name: letters, digits and `_` kept, anything else hex-escaped.
fn ident(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if c == '_' {
            s.push_str("__");
        } else {
            let _ = write!(s, "_{:x}", c as u32);
        }
    }
    s
}

/// The PTX qualifiers for an RMW. PTX ISA (`atom`, `red`): "If no `.sem` is specified, `.relaxed`
/// is assumed" and with no scope `.gpu` is, so a weak RMW runs as `atom.relaxed.gpu`; that only
/// strengthens it (every execution of the stronger program is one the model allows the weaker),
/// so whatever the device shows is still judged soundly.
fn rmw_sem(a: &Access) -> String {
    if a.order.is_strong() {
        sem(a)
    } else {
        "relaxed.gpu".to_string()
    }
}

/// The PTX qualifiers for an access: `weak`, `relaxed.gpu`, `acquire.cta`, ...
fn sem(a: &Access) -> String {
    match a.scope {
        Some(scope) if a.order.is_strong() => {
            format!("{}.{}", a.order.ptx_name(), scope.ptx_name())
        }
        _ => "weak".to_string(),
    }
}

struct Gen<'a> {
    program: &'a Program,
    out: String,
    roles: &'a [Vec<ThreadId>],
    slots: usize,
    saved: &'a [(ThreadId, Reg)],
    locations: &'a [LocId],
    observables: &'a [Observable],
    spins: &'a [Spin],
    warp_lanes: bool,
}

macro_rules! emit {
    ($g:expr, $($arg:tt)*) => {{ let _ = writeln!($g.out, $($arg)*); }};
}

impl Gen<'_> {
    fn emit(&mut self) -> Result<(), Unsupported> {
        let p = self.program;
        emit!(
            self,
            "// scopecheck GPU harness for litmus test `{}`",
            p.name.replace('\n', " ")
        );
        emit!(
            self,
            "// roles (CTAs): {:?}; slots per instance: {}",
            self.roles,
            self.slots
        );
        emit!(self, "typedef unsigned int u32;");
        emit!(self, "typedef unsigned long long u64;");
        emit!(self, "#define ROLES {}u", self.roles.len());

        emit!(self, "#define SLOTS {}u", self.slots);
        emit!(
            self,
            "#define THREADS {}u",
            self.roles.iter().map(Vec::len).sum::<usize>()
        );
        emit!(self, "#define LOCS {}u", self.locations.len());
        emit!(self, "#define WORDS {}u", self.saved.len() + 2);
        emit!(self, "#define TIMEOUT_WORD {}u", self.saved.len());
        emit!(self, "#define SPIN_WORD {}u", self.saved.len() + 1);
        emit!(self, "#define TABLE_MASK {}u", TABLE_SLOTS - 1);
        emit!(self, "#define STEP_LIMIT {}u", STEP_LIMIT);
        // Instances whose threads sit on several GPUs meet at a start barrier in device 0's
        // memory, reached through peer access: its counter is a system-scope atomic (mode 1).
        // With a host thread the barrier is a go flag the host sets in mapped host memory and
        // the GPU threads poll with `.sys` loads (mode 2): no GPU atomic on host memory.
        let devices = roles_devices(self.program);
        let host = self.program.threads.iter().any(|t| t.placement.is_host());
        let mode = if host { 2 } else { u32::from(devices > 1) };
        emit!(self, "#define SYS_BARRIER {mode}");
        self.out.push_str(PRELUDE);
        self.emit_test_kernel()?;
        self.emit_check_kernel();
        Ok(())
    }

    /// `L<i>`: this instance's slot of location array `i`, at a per-launch permuted index.
    fn emit_location_pointers(&mut self) {
        for li in 0..self.locations.len() {
            emit!(
                self,
                "  u32* L{li} = mem + ((u64){li}u * n + (loc_perm ? perm(inst, mix(seed ^ {:#x}u), mask, k) : inst)) * stride;",
                0x200 + li
            );
        }
    }

    fn loc_ptr(&self, loc: LocId) -> String {
        format!("L{}", self.program.physical(loc))
    }

    fn emit_test_kernel(&mut self) -> Result<(), Unsupported> {
        emit!(self, "");
        emit!(self, "extern \"C\" __global__ void {TEST_KERNEL}(u32* mem, int* regs, u32* bar, u32* scratch,");
        emit!(
            self,
            "    u32 seed, u32 k, u32 ipb_log2, u32 stride, u32 layout, u32 bar_bound,"
        );
        emit!(
            self,
            "    u32 pre_stress, u32 stress_iters, u32 scratch_mask, u32 loc_perm, u32 stress_pattern,"
        );
        emit!(
            self,
            "    u32 spin_bound, u32 role_base, u32 role_count) {{"
        );
        emit!(
            self,
            "  const u32 n = 1u << k, mask = n - 1u, ipb = 1u << ipb_log2;"
        );
        emit!(self, "  // This device plays roles role_base .. role_base + role_count (all of them on one GPU).");
        emit!(
            self,
            "  const u32 test_blocks = (n >> ipb_log2) * role_count;"
        );
        emit!(self, "  if (blockIdx.x >= test_blocks) {{ stress_block(scratch, seed, stress_iters, scratch_mask, stress_pattern); return; }}");
        emit!(
            self,
            "  const u32 role = role_base + blockIdx.x % role_count, group = blockIdx.x / role_count;"
        );
        emit!(self, "  // layout 0: an instance's threads in different warps; layout 1: adjacent lanes of one warp");
        emit!(
            self,
            "  const u32 slot = layout ? threadIdx.x % SLOTS : threadIdx.x >> ipb_log2;"
        );
        emit!(
            self,
            "  const u32 j = layout ? threadIdx.x / SLOTS : threadIdx.x & (ipb - 1u);"
        );
        emit!(self, "  if (slot >= SLOTS || j >= ipb) return;");
        if self.warp_lanes {
            emit!(self, "  // warp layout (forced for warp-level instructions): the instance's threads of this CTA are lanes lane_base .. lane_base + SLOTS - 1");
            emit!(self, "  const u32 lane_base = (threadIdx.x & 31u) - slot;");
        }
        emit!(
            self,
            "  const u32 inst = perm(group * ipb + j, mix(seed ^ (0x100u + role)), mask, k);"
        );
        self.emit_location_pointers();
        emit!(self, "  int* out = regs + (u64)inst * WORDS;");
        emit!(self, "  if (pre_stress) stress_lines(scratch, seed ^ (blockIdx.x * 1024u + threadIdx.x), pre_stress, scratch_mask, stress_pattern);");
        emit!(self, "  const u32 me = role * SLOTS + slot;");
        emit!(
            self,
            "  if (bar_bound) spin_barrier(bar + inst, bar_bound);"
        );
        emit!(self, "  switch (me) {{");
        let roles = self.roles.to_vec();
        for (r, threads) in roles.iter().enumerate() {
            for (s, &tid) in threads.iter().enumerate() {
                emit!(self, "  case {}u: {{ // P{tid}", r * self.slots + s);
                self.emit_thread(tid)?;
                emit!(self, "    break;");
                emit!(self, "  }}");
            }
        }
        emit!(self, "  default: break;");
        emit!(self, "  }}");
        emit!(self, "}}");
        Ok(())
    }

    fn emit_thread(&mut self, tid: ThreadId) -> Result<(), Unsupported> {
        let p = self.program;
        let t = &p.threads[tid];
        let mut regs: BTreeSet<&Reg> = BTreeSet::new();
        for s in &t.body {
            regs.extend(s.instr.regs());
        }
        for (th, r) in self.saved {
            if *th == tid {
                regs.insert(r);
            }
        }
        for r in &regs {
            emit!(
                self,
                "    int r_{} = {};",
                ident(&r.0),
                p.initial_reg(tid, r)
            );
        }
        let labels: BTreeSet<&String> = t
            .body
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Label(l) => Some(l),
                _ => None,
            })
            .collect();
        // The thread's own branches: an exchange runs as one instruction.
        let has_branch = t
            .body
            .iter()
            .any(|s| s.warp.is_none() && matches!(s.instr, Instr::Branch { .. }));
        if has_branch {
            emit!(self, "    u32 steps = 0;");
        }
        for (i, s) in t.body.iter().enumerate() {
            match &s.warp {
                Some(WarpPart::Start(op)) => {
                    emit!(self, "    {}", self.exchange(tid, op));
                    continue;
                }
                Some(WarpPart::Rest) => continue,
                None => {}
            }
            let code = self.instr(tid, &s.instr, &labels, s.span)?;
            match (
                self.spins.iter().find(|x| x.thread == tid && x.stmt == i),
                &s.instr,
            ) {
                (Some(spin), Instr::Load { dst, .. }) => {
                    // A spinning reader: repeat the load until it returns the value the
                    // condition waits for, at most `spin_bound` times. With spinning off the
                    // load is emitted alone: a branch on its value would hold back every later
                    // access of the thread until the load returns (a control dependency), and
                    // the shape's weak outcome with it.
                    let r = format!("r_{}", ident(&dst.0));
                    let v = spin.value;
                    emit!(self, "    if (spin_bound) {{ u32 spins_ = 0;");
                    emit!(
                        self,
                        "      do {{ {code} }} while ({r} != ({v}) && ++spins_ < spin_bound);"
                    );
                    emit!(self, "      if ({r} != ({v})) out[SPIN_WORD] = 1;");
                    emit!(self, "    }} else {{ {code} }}");
                }
                _ => emit!(self, "    {code}"),
            }
        }
        emit!(self, "  P{tid}_done:");
        for (i, (th, r)) in self.saved.iter().enumerate() {
            if *th == tid {
                emit!(self, "    out[{i}] = r_{};", ident(&r.0));
            }
        }
        if has_branch {
            emit!(self, "    if (steps > STEP_LIMIT) out[TIMEOUT_WORD] = 1;");
        }
        Ok(())
    }

    /// A `shfl.sync`, `vote.sync` or `match.sync` as written (not its lowering). The CTA's
    /// litmus threads are the adjacent lanes `lane_base ..` of one warp (see
    /// `Harness::warp_lanes`): a litmus mask or lane is the warp's shifted by `lane_base`, and a
    /// lane mask the instruction returns is shifted back. A shuffle reads the source lane its
    /// litmus form picks through `.idx`; a predicate is a nonzero
    /// register, and a `.pred` result is 1 or 0, as in the litmus dialect.
    fn exchange(&self, tid: ThreadId, op: &WarpOp) -> String {
        let mask = format!("{:#x}u << lane_base", op.mask());
        match op {
            WarpOp::Shfl { dst, src, .. } => {
                let lane = self.program.lane(tid);
                let j = op.source_lane(lane).unwrap_or(lane);
                format!(
                    "asm volatile(\"shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;\" : \"=r\"(r_{}) : \"r\"({}), \"r\"(lane_base + {j}u), \"r\"({mask}) : \"memory\");",
                    ident(&dst.0),
                    self.operand(src)
                )
            }
            WarpOp::Vote {
                mode: VoteMode::Ballot,
                dst,
                pred,
                ..
            } => format!(
                "{{ u32 ballot_; asm volatile(\"{{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }}\" : \"=r\"(ballot_) : \"r\"({}), \"r\"({mask}) : \"memory\"); r_{} = (int)(ballot_ >> lane_base); }}",
                self.operand(pred),
                ident(&dst.0)
            ),
            WarpOp::Vote {
                mode, dst, pred, ..
            } => format!(
                "asm volatile(\"{{ .reg .pred p, q; setp.ne.s32 p, %1, 0; vote.sync.{}.pred q, p, %2; selp.s32 %0, 1, 0, q; }}\" : \"=r\"(r_{}) : \"r\"({}), \"r\"({mask}) : \"memory\");",
                mode.name(),
                ident(&dst.0),
                self.operand(pred)
            ),
            WarpOp::Match { all, dst, src, .. } => format!(
                "{{ u32 match_; asm volatile(\"match.{}.sync.b32 %0, %1, %2;\" : \"=r\"(match_) : \"r\"({}), \"r\"({mask}) : \"memory\"); r_{} = (int)(match_ >> lane_base); }}",
                if *all { "all" } else { "any" },
                self.operand(src),
                ident(&dst.0)
            ),
        }
    }

    fn operand(&self, op: &Operand) -> String {
        match op {
            Operand::Reg(r) => format!("r_{}", ident(&r.0)),
            Operand::Imm(v) => format!("({v})"),
        }
    }

    fn instr(
        &self,
        tid: ThreadId,
        i: &Instr,
        labels: &BTreeSet<&String>,
        span: scopecheck_model::litmus::Span,
    ) -> Result<String, Unsupported> {
        Ok(match i {
            Instr::Load { access, dst, loc } if is_nc(access) => format!(
                "asm volatile(\"ld.global.nc.u32 %0, [%1];\" : \"=r\"(r_{}) : \"l\"({}) : \"memory\");",
                ident(&dst.0),
                self.loc_ptr(*loc)
            ),
            Instr::Load { access, dst, loc } => format!(
                "asm volatile(\"ld.{}.global.u32 %0, [%1];\" : \"=r\"(r_{}) : \"l\"({}) : \"memory\");",
                sem(access),
                ident(&dst.0),
                self.loc_ptr(*loc)
            ),
            Instr::Store { access, loc, value } => format!(
                "asm volatile(\"st.{}.global.u32 [%0], %1;\" :: \"l\"({}), \"r\"({}) : \"memory\");",
                sem(access),
                self.loc_ptr(*loc),
                self.operand(value)
            ),
            Instr::Atom { access, op, dst, loc, operand, new } => {
                let (ptx_op, operand) = rmw_form(*op, &self.operand(operand));
                match op {
                    RmwOp::Cas => {
                        let new = new.as_ref().map(|n| self.operand(n)).unwrap_or_else(|| "0".into());
                        format!(
                            "asm volatile(\"atom.{}.global.cas.b32 %0, [%1], %2, %3;\" : \"=r\"(r_{}) : \"l\"({}), \"r\"({}), \"r\"({}) : \"memory\");",
                            rmw_sem(access),
                            ident(&dst.0),
                            self.loc_ptr(*loc),
                            operand,
                            new
                        )
                    }
                    _ => format!(
                        "asm volatile(\"atom.{}.global.{ptx_op} %0, [%1], %2;\" : \"=r\"(r_{}) : \"l\"({}), \"r\"({operand}) : \"memory\");",
                        rmw_sem(access),
                        ident(&dst.0),
                        self.loc_ptr(*loc),
                    ),
                }
            }
            Instr::Red { access, op, loc, operand } => {
                let (ptx_op, operand) = rmw_form(*op, &self.operand(operand));
                if access.order.is_acquire() {
                    // `red` has no acquire form: an `atom` whose result is discarded has the same
                    // memory semantics (an RMW with acquire and release sides).
                    format!(
                        "{{ int unused_; asm volatile(\"atom.{}.global.{ptx_op} %0, [%1], %2;\" : \"=r\"(unused_) : \"l\"({}), \"r\"({operand}) : \"memory\"); }}",
                        rmw_sem(access),
                        self.loc_ptr(*loc)
                    )
                } else {
                    format!(
                        "asm volatile(\"red.{}.global.{ptx_op} [%0], %1;\" :: \"l\"({}), \"r\"({operand}) : \"memory\");",
                        rmw_sem(access),
                        self.loc_ptr(*loc)
                    )
                }
            }
            Instr::Fence(f) => {
                let ptx = match f {
                    Fence::Sc(s) => format!("fence.sc.{};", s.ptx_name()),
                    Fence::AcqRel(s) => format!("fence.acq_rel.{};", s.ptx_name()),
                    Fence::Proxy(k) => format!("fence.proxy.{};", k.name()),
                };
                format!("asm volatile(\"{ptx}\" ::: \"memory\");")
            }
            Instr::Barrier { op, .. } => {
                let name = if *op == BarrierOp::Sync { "sync" } else { "arrive" };
                return unsupported(format!("P{tid} at {span}: bar.cta.{name}"));
            }
            Instr::Async(_) => {
                let text = scopecheck_model::litmus::print::instr(self.program, i);
                return unsupported(format!("P{tid} at {span}: `{text}`"));
            }
            Instr::CpAsync { .. } | Instr::CpAsyncCommit | Instr::CpAsyncWait { .. } => {
                return unsupported(format!("P{tid} at {span}: cp.async (a shared-memory destination)"));
            }
            // The CTA's litmus threads are the adjacent lanes `lane_base ..` of one warp (see
            // `Harness::warp_lanes`), so the litmus mask (lane i: the CTA's i-th thread) is the
            // warp's mask shifted by `lane_base`.
            Instr::WarpSync { mask } => format!(
                "asm volatile(\"bar.warp.sync %0;\" :: \"r\"({mask:#x}u << lane_base) : \"memory\");"
            ),
            Instr::Mov { dst, src } => format!("r_{} = {};", ident(&dst.0), self.operand(src)),
            Instr::Add { dst, a, b } => {
                format!("r_{} = (int)((u32){} + (u32){});", ident(&dst.0), self.operand(a), self.operand(b))
            }
            Instr::Label(l) => format!("P{tid}_{}: ;", ident(l)),
            Instr::Branch { cond, target } => {
                if !labels.contains(target) {
                    return unsupported(format!("P{tid} at {span}: branch to unknown label `{target}`"));
                }
                let guard = match cond {
                    None => "true".to_string(),
                    Some((c, a, b)) => {
                        let op = if *c == Cmp::Eq { "==" } else { "!=" };
                        format!("{} {op} {}", self.operand(a), self.operand(b))
                    }
                };
                format!(
                    "if ({guard}) {{ if (++steps > STEP_LIMIT) goto P{tid}_done; goto P{tid}_{}; }}",
                    ident(target)
                )
            }
        })
    }

    fn emit_check_kernel(&mut self) {
        let p = self.program;
        emit!(self, "");
        emit!(
            self,
            "// One thread per instance: classify the final state, then reset for the next launch."
        );
        emit!(self, "extern \"C\" __global__ void {CHECK_KERNEL}(u32* mem, int* regs, u32* bar, u64* keys, u64* counts,");
        emit!(
            self,
            "    u64* lost, u32 seed, u32 k, u32 stride, u32 classify, u32 loc_perm) {{"
        );
        emit!(self, "  const u32 n = 1u << k, mask = n - 1u;");
        emit!(
            self,
            "  const u32 inst = blockIdx.x * blockDim.x + threadIdx.x;"
        );
        emit!(self, "  if (inst >= n) return;");
        self.emit_location_pointers();
        emit!(self, "  int* out = regs + (u64)inst * WORDS;");
        emit!(self, "  if (classify) {{");
        emit!(self, "    u64 key = {TAG_STATE}ull << 56;");
        emit!(self, "    bool wide = false;");
        let bits = value_bits(self.observables.len());
        let (lo, hi, mask) = (
            -(1i64 << (bits - 1)),
            (1i64 << (bits - 1)) - 1,
            (1u64 << bits) - 1,
        );
        for (b, o) in self.observables.iter().enumerate() {
            let src = match o {
                Observable::Reg(t, r) => {
                    let idx = self
                        .saved
                        .iter()
                        .position(|(th, rr)| th == t && rr == r)
                        .expect("saved");
                    format!("out[{idx}]")
                }
                Observable::Loc(l) => format!("(int)*L{l}"),
            };
            emit!(self, "    {{ int v = {src}; // {}", o.name(p));
            emit!(self, "      wide |= v < ({lo}) || v > {hi};");
            emit!(
                self,
                "      key |= (u64)(v & {mask:#x}) << {}; }}",
                bits as usize * b
            );
        }
        emit!(self, "    if (wide) key = {TAG_WIDE}ull << 56;");
        emit!(
            self,
            "    if (out[TIMEOUT_WORD]) key = {TAG_TIMEOUT}ull << 56;"
        );
        emit!(self, "    if (out[SPIN_WORD]) key = {TAG_SPIN}ull << 56;");
        emit!(self, "    count_outcome(keys, counts, lost, key);");
        emit!(self, "  }}");
        for (k, &l) in self.locations.iter().enumerate() {
            emit!(
                self,
                "  *L{k} = {}u; // {}",
                p.initial_value(l) as i32 as u32,
                p.locations[l].name
            );
        }
        emit!(self, "  out[TIMEOUT_WORD] = 0;");
        emit!(self, "  out[SPIN_WORD] = 0;");
        emit!(self, "  bar[inst] = 0;");
        emit!(self, "}}");
    }
}

/// The PTX operation and operand for an RMW: PTX has no `atom.sub`, so subtraction adds the
/// negated operand.
fn rmw_form(op: RmwOp, operand: &str) -> (&'static str, String) {
    match op {
        RmwOp::Add => ("add.u32", operand.to_string()),
        RmwOp::Sub => ("add.u32", format!("(int)(0u - (u32){operand})")),
        RmwOp::Exch => ("exch.b32", operand.to_string()),
        RmwOp::Cas => ("cas.b32", operand.to_string()),
        RmwOp::Inc => ("inc.u32", operand.to_string()),
        RmwOp::Dec => ("dec.u32", operand.to_string()),
        // The dialect's min/max compare signed values (see `RmwOp`).
        RmwOp::Min => ("min.s32", operand.to_string()),
        RmwOp::Max => ("max.s32", operand.to_string()),
        RmwOp::And => ("and.b32", operand.to_string()),
        RmwOp::Or => ("or.b32", operand.to_string()),
        RmwOp::Xor => ("xor.b32", operand.to_string()),
    }
}

/// Helpers shared by both kernels: hashing, permutations, stress, the spin barrier and the
/// outcome table.
const PRELUDE: &str = r#"
__device__ __forceinline__ u32 mix(u32 x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}

// A bijection on [0, 2^k): odd multiply, add, xor-shift, odd multiply (each step invertible mod 2^k).
__device__ __forceinline__ u32 perm(u32 x, u32 key, u32 mask, u32 k) {
  const u32 a = mix(key) | 1u, b = mix(key ^ 0x9e3779b9u), c = mix(key + 0x632be5abu) | 1u;
  x = (x * a + b) & mask;
  x ^= x >> ((k + 1u) / 2u);
  return (x * c) & mask;
}

// Two accesses per step to random scratch lines; `asm volatile` keeps them. Patterns (as in
// published GPU litmus campaigns): 0 store then load, 1 store then store, 2 load then load,
// 3 load then store.
__device__ __noinline__ void stress_lines(u32* scratch, u32 seed, u32 iters, u32 scratch_mask, u32 pattern) {
  u32 acc = 0;
  for (u32 i = 0; i < iters; ++i) {
    u32* p = scratch + ((mix(seed + i * 0x9e3779b9u) & scratch_mask) << 5);
    u32 v = 0, w = 0;
    if (pattern & 2u) asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(w) : "l"(p) : "memory");
    else asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(i) : "memory");
    if (pattern & 1u) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p + 1), "r"(i) : "memory");
    else asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p + 1) : "memory");
    acc += v + w;
  }
  if (acc == 0xdeadbeefu) scratch[0] = acc;
}

__device__ void stress_block(u32* scratch, u32 seed, u32 iters, u32 scratch_mask, u32 pattern) {
  if (iters) stress_lines(scratch, mix(seed ^ (blockIdx.x * 2048u + threadIdx.x)), iters, scratch_mask, pattern);
}

// Wait (boundedly) until every litmus thread of the instance has arrived, so they start together.
__device__ __forceinline__ void spin_barrier(u32* counter, u32 bound) {
  u32 seen;
#if SYS_BARRIER == 2
  for (u32 i = 0; i < bound; ++i) {
    asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
    if (seen != 0u) break;
  }
  return;
#endif
#if SYS_BARRIER
  atomicAdd_system(counter, 1u);
#else
  atomicAdd(counter, 1u);
#endif
  for (u32 i = 0; i < bound; ++i) {
#if SYS_BARRIER
    asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
#else
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
#endif
    if (seen >= THREADS) break;
  }
}

// Count one outcome: lanes with equal keys add once per warp, into an open-addressing table.
__device__ void count_outcome(u64* keys, u64* counts, u64* lost, u64 key) {
  const u32 active = __activemask();
  const u32 peers = __match_any_sync(active, key);
  if ((threadIdx.x & 31u) != (u32)(__ffs(peers) - 1)) return;
  const u64 c = (u64)__popc(peers);
  u32 h = mix((u32)key ^ (u32)(key >> 32)) & TABLE_MASK;
  for (u32 probe = 0; probe <= TABLE_MASK; ++probe) {
    const u64 prev = atomicCAS(keys + h, 0ull, key);
    if (prev == 0ull || prev == key) { atomicAdd(counts + h, c); return; }
    h = (h + 1u) & TABLE_MASK;
  }
  atomicAdd(lost, c);
}
"#;
