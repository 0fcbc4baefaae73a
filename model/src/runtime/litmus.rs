//! Litmus programs as kernel models: every litmus thread becomes a GPU thread of the runtime
//! (placed in its CTA/cluster/GPU), its instructions become runtime operations, and each feasible
//! execution that runs to the end contributes its final state — registers `P1:r0` and physical
//! locations by name, the same shape as [`crate::axiomatic::FinalState`]. Since the runtime's
//! modification order is execution order, its outcomes are a subset of the axiomatic ones; the
//! fuzzer checks exactly that.
//!
//! Not modelled: proxies (every access goes to its physical location through the generic path,
//! and `fence.proxy` does nothing), so proxy-dependent weak outcomes are not reached.

use super::driver::{explore as run_explore, Body};
use super::machine::{Machine, Setup, ThreadInfo};
use super::memory::{ElemKind, LocInfo};
use super::report::{FailureKind, RmwKind, Site};
use super::Ctx;
use crate::axiomatic::events::registers;
use crate::axiomatic::FinalState;
use crate::engine::{Engine, Flow};
use crate::litmus::{
    BarrierOp, Cmp, Fence, Instr, LocationKind, Operand, Program, Reg, RmwOp, Value,
};
use crate::scope::{Order, Scope};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Bounds for running litmus threads.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many times each backward branch may be taken in one run of a thread (as in the
    /// axiomatic engine); executions that need more are cut and counted in [`Outcomes::cut`].
    pub unroll: u32,
    /// Operations one thread may perform in one execution.
    pub max_steps: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            unroll: 2,
            max_steps: 500,
        }
    }
}

/// Every final state the runtime reached, and how it got there.
#[derive(Clone, Debug, Default)]
pub struct Outcomes {
    pub states: BTreeSet<FinalState>,
    /// Executions that ran to the end.
    pub executions: u64,
    /// Executions that contained a data race (their final states are still recorded).
    pub racy: u64,
    /// Executions cut short by a bound, a deadlock or barrier divergence (no final state).
    pub cut: u64,
    /// Executions discarded as infeasible (loom).
    pub infeasible: u64,
    /// The engine explored everything it can reach and no execution was cut.
    pub complete: bool,
    /// The exploration could not run (e.g. more threads than loom supports).
    pub error: Option<String>,
}

/// The final states `engine` reaches on `p`.
pub fn explore(p: &Program, engine: &dyn Engine) -> BTreeSet<FinalState> {
    explore_with(p, engine, &Options::default()).states
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
                    if m.races > 0 {
                        out.racy += 1;
                    }
                    out.states.insert(visit_model.final_state(m));
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

/// One number for a barrier's id operands (barriers meet when all of them agree).
fn barrier_id(ops: impl Iterator<Item = i64>) -> i64 {
    ops.fold(0i64, |acc, v| acc.wrapping_mul(1_000_003).wrapping_add(v))
}

/// A litmus program prepared for running: per thread, its statements with labels resolved.
struct LitmusModel {
    threads: Vec<Vec<Step>>,
    /// Registers (and initial values) each thread reports.
    regs: Vec<BTreeMap<Reg, Value>>,
    /// Our location index for every litmus location (aliases share their physical one).
    loc_of: Vec<usize>,
    /// Physical location names, in our order.
    names: Vec<String>,
    unroll: u32,
}

/// One statement, with its branch target resolved to a statement index.
struct Step {
    instr: Instr,
    site: Site,
    target: Option<usize>,
}

/// Litmus statements have no Rust call site; every operation of a litmus thread reports this
/// one, and reports name the statement through the trace instead.
fn litmus_site() -> Site {
    std::panic::Location::caller()
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
        let threads = p
            .threads
            .iter()
            .map(|th| {
                let labels: HashMap<&str, usize> = th
                    .body
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| match &s.instr {
                        Instr::Label(l) => Some((l.as_str(), i)),
                        _ => None,
                    })
                    .collect();
                th.body
                    .iter()
                    .map(|s| {
                        let target = match &s.instr {
                            Instr::Branch { target, .. } => labels.get(target.as_str()).copied(),
                            _ => None,
                        };
                        Step {
                            instr: s.instr.clone(),
                            site,
                            target,
                        }
                    })
                    .collect()
            })
            .collect();
        let regs = (0..p.threads.len()).map(|t| registers(p, t)).collect();
        LitmusModel {
            threads,
            regs,
            loc_of,
            names,
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
            });
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
        Setup {
            name: p.name.clone(),
            threads,
            locs,
            blocks,
            max_steps: opts.max_steps,
            stop_on_race: false,
        }
    }

    fn final_state(&self, m: &Machine) -> FinalState {
        let mut state = FinalState::default();
        for (t, regs) in self.regs.iter().enumerate() {
            for (r, v) in regs {
                state.regs.insert(format!("P{t}:{r}"), *v);
            }
        }
        for (key, value) in &m.observed {
            state.regs.insert(key.clone(), *value);
        }
        for (l, name) in self.names.iter().enumerate() {
            state.mem.insert(name.clone(), m.final_value(l) as i64);
        }
        state
    }

    /// Interpret thread `ctx.thread()`'s statements on the runtime.
    fn run_thread(&self, ctx: &Ctx) {
        let t = ctx.thread();
        let body = &self.threads[t];
        let mut regs: HashMap<Reg, Value> =
            self.regs[t].iter().map(|(r, v)| (r.clone(), *v)).collect();
        let mut taken_back: HashMap<usize, u32> = HashMap::new();
        let val = |regs: &HashMap<Reg, Value>, o: &Operand| match o {
            Operand::Reg(r) => regs.get(r).copied().unwrap_or(0),
            Operand::Imm(v) => *v,
        };
        let mut pc = 0;
        while pc < body.len() {
            let step = &body[pc];
            pc += 1;
            match &step.instr {
                Instr::Load { access, dst, loc } => {
                    let v =
                        ctx.load(self.loc_of[*loc], access.order, access.scope, step.site) as i64;
                    regs.insert(dst.clone(), v);
                }
                Instr::Store { access, loc, value } => {
                    let v = val(&regs, value);
                    ctx.store(
                        self.loc_of[*loc],
                        v as u64,
                        access.order,
                        access.scope,
                        step.site,
                    );
                }
                Instr::Atom {
                    access,
                    op,
                    dst,
                    loc,
                    operand,
                    new,
                } => {
                    let (a, b) = (
                        val(&regs, operand),
                        new.as_ref().map_or(0, |n| val(&regs, n)),
                    );
                    let old = self.rmw(ctx, *loc, *op, a, b, access.order, access.scope, step.site);
                    regs.insert(dst.clone(), old);
                }
                Instr::Red {
                    access,
                    op,
                    loc,
                    operand,
                } => {
                    let a = val(&regs, operand);
                    self.rmw(ctx, *loc, *op, a, 0, access.order, access.scope, step.site);
                }
                Instr::Fence(Fence::Sc(scope)) => ctx.fence(Order::Sc, *scope, step.site),
                Instr::Fence(Fence::AcqRel(scope)) => ctx.fence(Order::AcqRel, *scope, step.site),
                // Proxies are not modelled: every access already uses the generic path.
                Instr::Fence(Fence::Proxy(_)) => {}
                Instr::Barrier { op, id, quorum } => {
                    let id = barrier_id(id.iter().map(|o| val(&regs, o)));
                    let quorum = quorum.as_ref().map(|q| val(&regs, q).max(1) as usize);
                    // A barrier that ends its thread need not wait: nothing after it could
                    // observe what waiting brings, and the axiomatic model lets it never complete.
                    let last = body[pc..]
                        .iter()
                        .all(|s| matches!(s.instr, Instr::Label(_)));
                    let wait = *op == BarrierOp::Sync && !last;
                    ctx.bar(id, quorum, wait, self.future_barriers(t, pc), step.site);
                }
                Instr::Mov { dst, src } => {
                    let v = val(&regs, src);
                    regs.insert(dst.clone(), v);
                }
                Instr::Add { dst, a, b } => {
                    let v = val(&regs, a).wrapping_add(val(&regs, b));
                    regs.insert(dst.clone(), v);
                }
                Instr::Label(_) => {}
                Instr::Branch { cond, .. } => {
                    let taken = match cond {
                        None => true,
                        Some((Cmp::Eq, a, b)) => val(&regs, a) == val(&regs, b),
                        Some((Cmp::Ne, a, b)) => val(&regs, a) != val(&regs, b),
                    };
                    if taken {
                        let Some(target) = step.target else {
                            ctx.fail(format!("P{t}: branch to an undefined label"));
                        };
                        if target < pc {
                            let n = taken_back.entry(pc).or_insert(0);
                            *n += 1;
                            if *n > self.unroll {
                                ctx.fail(format!(
                                    "P{t}: loop unroll bound {} exceeded",
                                    self.unroll
                                ));
                            }
                        }
                        pc = target;
                    }
                }
            }
        }
        for (r, v) in regs {
            if self.regs[t].contains_key(&r) {
                ctx.record(format!("P{t}:{r}"), v);
            }
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
            if let Instr::Barrier { id, .. } = &s.instr {
                let consts: Option<Vec<i64>> = id
                    .iter()
                    .map(|o| match o {
                        Operand::Imm(v) => Some(*v),
                        Operand::Reg(_) => None,
                    })
                    .collect();
                ids.push(barrier_id(consts?.into_iter()));
            }
        }
        Some(ids)
    }

    #[allow(clippy::too_many_arguments)]
    fn rmw(
        &self,
        ctx: &Ctx,
        loc: usize,
        op: RmwOp,
        a: Value,
        b: Value,
        order: Order,
        scope: Option<Scope>,
        site: Site,
    ) -> Value {
        let kind = match op {
            RmwOp::Add => RmwKind::Add,
            RmwOp::Sub => RmwKind::Sub,
            RmwOp::Exch => RmwKind::Exchange,
            RmwOp::Cas => RmwKind::Cas,
        };
        let apply = move |old: u64| op.apply(old as i64, a, b).map(|v| v as u64);
        // An atom without a scope is gpu-scoped (PTX's default); its order is at least relaxed.
        let order = if order == Order::Weak {
            Order::Relaxed
        } else {
            order
        };
        ctx.rmw(
            self.loc_of[loc],
            kind,
            &apply,
            order,
            scope.unwrap_or(Scope::Gpu),
            site,
        ) as i64
    }
}
