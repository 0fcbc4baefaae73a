//! Litmus programs as kernel models: every litmus thread becomes a GPU thread of the runtime
//! (placed in its CTA/cluster/GPU), its instructions become runtime operations, and each feasible
//! execution that runs to the end contributes its final state — registers `P1:r0` and physical
//! locations by name, the same shape as [`crate::axiomatic::FinalState`]. Since the runtime's
//! modification order is execution order, its outcomes are a subset of the axiomatic ones; the
//! fuzzer checks exactly that.
//!
//! `cp.async` runs as in kernels: each CTA that issues copies has a copy agent, one more engine
//! thread that performs them (a read of the source and a write of the destination, generic
//! proxy) at a point the engine chooses between the issue and the `cp.async.wait_group` that
//! covers the copy's group (see [`crate::runtime::cp_async`]).
//!
//! Bulk copies completed through an mbarrier (`cp.async.bulk...mbarrier::complete_tx::bytes`)
//! run on copy agents too, one per bulk-copy statement, placed in the destination's CTA: the
//! agent reads the source and writes the destination in the async proxy, then performs the
//! complete-tx on the barrier's location (see [`crate::runtime::async_copy`]: the copy is ordered
//! by its own clock, and generic accesses reach it only through `fence.proxy.async`, which runs
//! here as one visible operation with the locations of its state space). Shared→global bulk
//! copies (`.bulk_group`) run on their agents the same way and complete through their issuer's
//! bulk async-groups (`cp.async.bulk.commit_group`, `wait_group{.read}`: see
//! [`crate::runtime::async_groups`]). `mbarrier.init` is a weak store that
//! `fence.mbarrier_init` releases alone ([`Machine::fence_mbarrier_init`]).
//!
//! Not modelled: the other proxies (every other access goes to its physical location through
//! the generic path, and the other `fence.proxy` forms do nothing), so their weak outcomes are
//! not reached. Cluster barriers run on
//! the kernel runtime's per-cluster hardware barrier (`runtime::cluster`), one per cluster of a
//! GPU (a CTA placed in no cluster is a cluster of one: `cluster_key`), expecting one arrival per phase from every litmus thread of the cluster that has not
//! exited (PTX ISA: the wait waits "for all non-exited threads of the cluster to perform
//! barrier.cluster.arrive"): a thread that skips its arrive and exits lets the others go.

use super::driver::{explore as run_explore, Body};
use super::machine::{Machine, Setup, ThreadInfo};
use super::memory::{ElemKind, LocInfo};
use super::report::{FailureKind, Site};
use super::Ctx;
use crate::axiomatic::events::registers;
use crate::axiomatic::execution::in_fence_space;
use crate::axiomatic::FinalState;
use crate::engine::{Engine, Flow};
use crate::litmus::warp::is_slot;
use crate::litmus::{AsyncOp, Fence, Instr, LocationKind, Operand, Program, Reg, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use thread::{Next, ThreadRun};

mod states;
mod thread;

pub use states::explore_states;

/// Bounds for running litmus threads.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many times each backward branch may be taken in one run of a thread (as in the
    /// axiomatic engine); executions that need more are cut and counted in [`Outcomes::cut`].
    pub unroll: u32,
    /// Operations one thread may perform in one execution.
    pub max_steps: usize,
    /// Distinct configurations [`explore_states`] may visit before it stops (bounded).
    pub max_configurations: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            unroll: 2,
            max_steps: 500,
            max_configurations: 200_000,
        }
    }
}

/// Every final state the runtime reached, and how it got there.
#[derive(Clone, Debug, Default)]
pub struct Outcomes {
    /// Every distinct final state reached (registers and memory, as the axiomatic side
    /// reports them).
    pub states: BTreeSet<FinalState>,
    /// Executions that ran to the end.
    pub executions: u64,
    /// Executions that contained a data race (their final states are still recorded).
    pub racy: u64,
    /// The final states of those executions.
    pub racy_states: BTreeSet<FinalState>,
    /// Executions cut short by a bound, a deadlock or barrier divergence (no final state).
    pub cut: u64,
    /// Executions discarded as infeasible (loom).
    pub infeasible: u64,
    /// Distinct configurations visited ([`explore_states`] only).
    pub configurations: u64,
    /// The engine explored everything it can reach and no execution was cut.
    pub complete: bool,
    /// The exploration could not run (e.g. more threads than loom supports).
    pub error: Option<String>,
}

/// The final states `engine` reaches on `p`.
pub fn explore(p: &Program, engine: &dyn Engine) -> BTreeSet<FinalState> {
    explore_with(p, engine, &Options::default()).states
}

/// The cluster a litmus thread runs in: its GPU and cluster id, or, in a CTA placed in no
/// cluster, that CTA alone. PTX ISA, *Cluster of Cooperative Thread Arrays*: "If the user
/// specifies the cluster dimensions at launch time then it will be treated as explicit cluster
/// launch, otherwise it will be treated as implicit cluster launch with default dimension
/// 1x1x1" — a CTA launched without a cluster is a cluster of one (the axiomatic engine groups
/// cluster barriers the same way: `axiomatic::execution`'s cluster barrier instances).
pub(crate) fn cluster_key(pl: &crate::scope::Placement) -> (u32, Option<u32>, u32) {
    (pl.gpu, pl.cluster, pl.cluster.map_or(pl.cta, |_| 0))
}

/// [`explore`] with bounds, returning counts as well.
pub fn explore_with(p: &Program, engine: &dyn Engine, opts: &Options) -> Outcomes {
    let model = Arc::new(LitmusModel::new(p, opts));
    let setup = Arc::new(model.setup(p, opts));
    let body_model = Arc::clone(&model);
    let body: Body = Arc::new(move |ctx: &Ctx| body_model.run_thread(ctx));
    let visit_model = Arc::clone(&model);
    let (mut out, exploration, infeasible) = run_explore(
        engine,
        setup,
        body,
        Outcomes::default(),
        move |out: &mut Outcomes, m: &mut Machine| {
            match &m.failure {
                Some(f) if f.kind != FailureKind::DataRace => out.cut += 1,
                _ => {
                    out.executions += 1;
                    let state = visit_model.final_state(m);
                    if m.races > 0 {
                        out.racy += 1;
                        out.racy_states.insert(state.clone());
                    }
                    out.states.insert(state);
                }
            }
            Flow::Continue
        },
    );
    out.infeasible = infeasible;
    out.complete = exploration.complete && out.cut == 0;
    out.error = exploration.error;
    out
}

/// Whether a statement is a bulk copy.
fn bulk_copy(i: &Instr) -> bool {
    matches!(i, Instr::Async(AsyncOp::BulkCopy { .. }))
}

/// The CTAs (GPU, CTA id) with a thread that issues `cp.async`.
fn cp_async_ctas(p: &Program) -> BTreeSet<(u32, u32)> {
    p.threads
        .iter()
        .filter(|th| {
            th.body
                .iter()
                .any(|s| matches!(s.instr, Instr::CpAsync { .. }))
        })
        .map(|th| (th.placement.gpu, th.placement.cta))
        .collect()
}

/// One number for a barrier's id operands (barriers meet when all of them agree).
fn barrier_id(ops: impl Iterator<Item = i64>) -> i64 {
    ops.fold(0i64, |acc, v| acc.wrapping_mul(1_000_003).wrapping_add(v))
}

/// A litmus program prepared for running: per thread, its statements with labels resolved.
pub(crate) struct LitmusModel {
    threads: Vec<Vec<Step>>,
    /// Registers (and initial values) each thread reports.
    regs: Vec<BTreeMap<Reg, Value>>,
    /// The same registers as slots of [`ThreadRun::regs`], their names in final states
    /// (`P1:r0`) and their initial values.
    reg_names: Vec<Vec<Reg>>,
    reg_keys: Vec<Vec<String>>,
    reg_init: Vec<Vec<Value>>,
    /// Our location index for every litmus location (aliases share their physical one).
    loc_of: Vec<usize>,
    /// Physical location names, in our order.
    names: Vec<String>,
    /// The warp exchanges' slots (our indices): [`Setup::exchange_slots`].
    exchange_slots: Arc<[usize]>,
    unroll: u32,
}

/// One statement, with its branch target resolved to a statement index.
struct Step {
    instr: Instr,
    site: Site,
    target: Option<usize>,
    /// A bulk copy: the slot of its copy agent in `Setup::agents`.
    agent: Option<usize>,
    /// A `fence.proxy.async` restricted to a state space: the locations it covers (our
    /// indices).
    covers: Option<Arc<[usize]>>,
}

/// Litmus statements have no Rust call site; every operation of a litmus thread reports this
/// one, and reports name the statement through the trace instead.
fn litmus_site() -> Site {
    Site::caller()
}

impl LitmusModel {
    fn new(p: &Program, opts: &Options) -> LitmusModel {
        let mut loc_of = vec![0; p.locations.len()];
        let mut names = Vec::new();
        let mut index_of_physical = HashMap::new();
        for (l, loc) in p.locations.iter().enumerate() {
            if let LocationKind::Plain { .. } = loc.kind {
                index_of_physical.insert(l, names.len());
                names.push(loc.name.clone());
            }
        }
        for (l, slot) in loc_of.iter_mut().enumerate() {
            *slot = index_of_physical[&p.physical(l)];
        }
        let site = litmus_site();
        // Agent slots: the `cp.async` agents come first, one per CTA that issues copies (their
        // slot is the block's index, see `setup`), then one per bulk-copy statement.
        let mut next_agent = cp_async_ctas(p).len();
        let threads = p
            .threads
            .iter()
            .map(|th| {
                let labels = th.labels();
                th.body
                    .iter()
                    .map(|s| {
                        let target = match &s.instr {
                            Instr::Branch { target, .. } => labels.get(target.as_str()).copied(),
                            _ => None,
                        };
                        let agent = bulk_copy(&s.instr).then(|| {
                            next_agent += 1;
                            next_agent - 1
                        });
                        let covers = match &s.instr {
                            Instr::Fence(Fence::Proxy(kind)) if kind.is_async() => {
                                let covered: Vec<usize> = (0..p.locations.len())
                                    .filter(|&l| in_fence_space(p, *kind, &th.placement, l))
                                    .map(|l| loc_of[l])
                                    .collect();
                                Some(covered.into())
                            }
                            _ => None,
                        };
                        Step {
                            instr: s.instr.clone(),
                            site,
                            target,
                            agent,
                            covers,
                        }
                    })
                    .collect()
            })
            .collect();
        let regs: Vec<BTreeMap<Reg, Value>> =
            (0..p.threads.len()).map(|t| registers(p, t)).collect();
        let reg_names: Vec<Vec<Reg>> = regs.iter().map(|r| r.keys().cloned().collect()).collect();
        let reg_keys = reg_names
            .iter()
            .enumerate()
            .map(|(t, names)| names.iter().map(|r| format!("P{t}:{r}")).collect())
            .collect();
        let reg_init = regs.iter().map(|r| r.values().copied().collect()).collect();
        let mut exchange_slots: Vec<usize> = (0..p.locations.len())
            .filter(|&l| is_slot(&p.locations[l]))
            .map(|l| loc_of[l])
            .collect();
        exchange_slots.sort_unstable();
        exchange_slots.dedup();
        LitmusModel {
            threads,
            regs,
            reg_names,
            reg_keys,
            reg_init,
            loc_of,
            names,
            exchange_slots: exchange_slots.into(),
            unroll: opts.unroll,
        }
    }

    fn setup(&self, p: &Program, opts: &Options) -> Setup {
        let mut block_of: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        let mut blocks: Vec<Vec<usize>> = Vec::new();
        let mut threads = Vec::new();
        for (t, th) in p.threads.iter().enumerate() {
            let key = (th.placement.gpu, th.placement.cta);
            let b = *block_of.entry(key).or_insert_with(|| {
                blocks.push(Vec::new());
                blocks.len() - 1
            });
            let tid = blocks[b].len() as u32;
            blocks[b].push(t);
            threads.push(ThreadInfo {
                placement: th.placement,
                block: b as u32,
                tid,
                name: format!("P{t}"),
                agent: false,
            });
        }
        // `cp.async`: every CTA whose threads issue copies gets a copy agent that performs them
        // (see `runtime::cp_async`), after every litmus thread, so thread `t` stays `P{t}`.
        // Their slots in `Setup::agents` are their blocks: the blocks with copies come first.
        let issues = |t: &usize| {
            let th = &p.threads[*t];
            cp_async_ctas(p).contains(&(th.placement.gpu, th.placement.cta))
        };
        blocks.sort_by_key(|members| !members.iter().any(issues));
        for (b, members) in blocks.iter().enumerate() {
            for &t in members {
                threads[t].block = b as u32;
            }
        }
        let mut agents = Vec::new();
        for (b, members) in blocks.iter().enumerate() {
            if members.iter().any(issues) {
                agents.push(threads.len());
                threads.push(ThreadInfo {
                    placement: threads[members[0]].placement,
                    block: b as u32,
                    tid: u32::MAX,
                    name: format!("CTA {b} cp.async agent"),
                    agent: true,
                });
            }
        }
        // A bulk copy's agent (slots in statement order, as `new` numbers them) belongs to its
        // issuer's block, which it outlives as long as that block runs, and is placed in the
        // destination's CTA, where the copy writes and completes (`ptx-v8.cat`'s CHOICE).
        for (t, th) in p.threads.iter().enumerate() {
            for (i, s) in th.body.iter().enumerate() {
                let Instr::Async(AsyncOp::BulkCopy { dst, .. }) = &s.instr else {
                    continue;
                };
                let placement = p
                    .shared_of(*dst)
                    .and_then(|of| p.cta_placement(of))
                    .unwrap_or(th.placement);
                debug_assert_eq!(self.threads[t][i].agent, Some(agents.len()));
                agents.push(threads.len());
                threads.push(ThreadInfo {
                    placement,
                    block: threads[t].block,
                    tid: u32::MAX,
                    name: format!("P{t} bulk copy at {}", s.span),
                    agent: true,
                });
            }
        }
        let locs = p
            .locations
            .iter()
            .filter_map(|l| match l.kind {
                LocationKind::Plain { init } => Some(LocInfo {
                    name: l.name.clone(),
                    init: init as u64,
                    kind: ElemKind::I64,
                    shared: None,
                }),
                LocationKind::Alias { .. } => None,
            })
            .collect();
        let mbarriers = cluster_barriers(p, &threads);
        Setup {
            name: p.name.clone(),
            threads,
            locs,
            blocks,
            max_steps: opts.max_steps,
            stop_on_race: false,
            mbarriers,
            agents,
            resident_blocks: None,
            starts_after: Vec::new(),
            exchange_slots: Arc::clone(&self.exchange_slots),
        }
    }

    /// The final state of an execution that recorded its registers in `m.observed`.
    fn final_state(&self, m: &Machine) -> FinalState {
        let initial = self
            .regs
            .iter()
            .enumerate()
            .flat_map(|(t, regs)| regs.iter().map(move |(r, v)| (format!("P{t}:{r}"), *v)));
        let observed = m.observed.iter().cloned();
        self.final_state_with(m, initial.chain(observed))
    }

    /// Registers as given (a later value for the same register wins), memory from `m`.
    fn final_state_with(
        &self,
        m: &Machine,
        regs: impl Iterator<Item = (String, i64)>,
    ) -> FinalState {
        let mut state = FinalState::default();
        state.regs.extend(regs);
        for (l, name) in self.names.iter().enumerate() {
            state.mem.insert(name.clone(), m.final_value(l) as i64);
        }
        state
    }

    /// Interpret thread `ctx.thread()`'s statements on the runtime, one scheduling point per
    /// visible statement.
    fn run_thread(&self, ctx: &Ctx) {
        let t = ctx.thread();
        let mut run = ThreadRun::new(self, t);
        loop {
            match run.advance(self, t) {
                Next::Finished => break,
                Next::Failed(message) => ctx.fail(message),
                Next::Visible => {}
            }
            let mirror = ctx.sched.point(t, run.point(self, t));
            let sched = &ctx.sched;
            let blocked = ctx.step(|m| run.exec(self, t, m, mirror, &|n| sched.choose(n)));
            if blocked {
                ctx.wait();
            }
        }
        for (key, value) in run.recorded(self, t) {
            ctx.record(key, value);
        }
    }

    /// The barrier ids thread `t` may reach from statement `pc` on: `None` when unknown (an id
    /// from a register, or a loop that may go back).
    fn future_barriers(&self, t: usize, pc: usize) -> Option<Vec<i64>> {
        let body = &self.threads[t];
        if body.iter().any(|s| matches!(s.instr, Instr::Branch { .. })) {
            return None;
        }
        let mut ids = Vec::new();
        for s in &body[pc..] {
            match &s.instr {
                Instr::Barrier { id, .. } => {
                    let consts: Option<Vec<i64>> = id
                        .iter()
                        .map(|o| match o {
                            Operand::Imm(v) => Some(*v),
                            Operand::Reg(_) => None,
                        })
                        .collect();
                    ids.push(barrier_id(consts?.into_iter()));
                }
                Instr::WarpSync { mask } => {
                    ids.push(barrier_id(Instr::warp_barrier(*mask).0.into_iter()));
                }
                _ => {}
            }
        }
        Some(ids)
    }
}

/// One hardware barrier per cluster (of one GPU; a CTA placed in no cluster is a cluster of
/// one, [`cluster_key`]) whose threads use `barrier.cluster`, in the CTA of its first thread,
/// expecting every litmus thread of the cluster: PTX ISA, *barrier.cluster*: the wait waits
/// "for all non-exited threads of the cluster to perform barrier.cluster.arrive", and a thread
/// that exits stops counting ([`crate::runtime::cluster`]).
fn cluster_barriers(p: &Program, threads: &[ThreadInfo]) -> Vec<super::mbarrier::MBarInfo> {
    let uses = |t: usize| {
        p.threads[t].body.iter().any(|s| {
            matches!(
                s.instr,
                Instr::Async(AsyncOp::ClusterArrive { .. } | AsyncOp::ClusterWait)
            )
        })
    };
    let cluster = |t: usize| cluster_key(&p.threads[t].placement);
    let mut clusters: Vec<(u32, Option<u32>, u32)> = (0..p.threads.len())
        .filter(|&t| uses(t))
        .map(cluster)
        .collect();
    clusters.sort_unstable();
    clusters.dedup();
    let gpus = p.threads.iter().any(|th| th.placement.gpu != 0);
    clusters
        .into_iter()
        .map(|key| {
            let members: Vec<usize> = (0..p.threads.len())
                .filter(|&t| cluster(t) == key)
                .collect();
            let name = match key {
                (_, Some(c), _) => format!("cluster{c}"),
                (_, None, cta) => format!("cluster of cta{cta}"),
            };
            super::mbarrier::MBarInfo {
                name: match gpus {
                    true => format!("{name}@gpu{}", key.0),
                    false => name,
                },
                block: threads[members[0]].block,
                launch_count: Some(members.len() as u32),
            }
        })
        .collect()
}
