//! One litmus thread as an interpreter: a program counter, its registers and its loop counts.
//! Local statements (`mov`, `add`, labels, branches, proxy fences other than
//! `fence.proxy.async`) run inside the thread; every
//! other statement is one visible operation of the machine. Both explorations share it: the
//! engines' coroutines ([`LitmusModel::run_thread`]) and the state-caching search (the sibling
//! module `states`, which imports this one), which clones and compares it, so it is plain data.

use super::{barrier_id, LitmusModel};
use crate::engine::Point;
use crate::litmus::async_ops::{Arrival, BulkCompletion, MbarrierState};
use crate::litmus::warp::WARP_EXCHANGE;
use crate::litmus::{AsyncOp, BarrierOp, Fence, Instr, Operand, Proxy, Reg, RmwOp, Value};
use crate::runtime::async_copy::Completion;
use crate::runtime::cluster::cluster_barrier;
use crate::runtime::machine::{BarrierKey, Halt, Machine};
use crate::runtime::mbarrier::{WaitOn, WaitResult, WaitSem};
use crate::runtime::report::RmwKind;
use crate::scope::{Order, Scope};

/// The first id operand of every warp exchange's barriers.
const EXCHANGE_ID: Operand = Operand::Imm(WARP_EXCHANGE);

/// Where a thread stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ThreadRun {
    /// The next statement.
    pub pc: usize,
    /// Register values, in the order of [`LitmusModel::reg_names`].
    pub regs: Regs,
    /// Per branch statement, how often it jumped backwards (empty until the first time).
    pub back_taken: Vec<u32>,
    /// The thread ran off its end and exited.
    pub finished: bool,
    /// The phase of the cluster barrier its latest `barrier.cluster.arrive` arrived on, which
    /// its next `barrier.cluster.wait` waits for.
    pub cluster_arrival: Option<u32>,
}

/// A thread's register values: inline for the few registers litmus threads have (the
/// state-caching search copies them at every step), on the heap past that.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Regs {
    Inline {
        len: u8,
        values: [Value; INLINE_REGS],
    },
    Heap(Vec<Value>),
}

const INLINE_REGS: usize = 6;

impl Regs {
    fn new(initial: &[Value]) -> Regs {
        if initial.len() > INLINE_REGS {
            return Regs::Heap(initial.to_vec());
        }
        let mut values = [0; INLINE_REGS];
        values[..initial.len()].copy_from_slice(initial);
        Regs::Inline {
            len: initial.len() as u8,
            values,
        }
    }
}

impl std::ops::Deref for Regs {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        match self {
            Regs::Inline { len, values } => &values[..*len as usize],
            Regs::Heap(values) => values,
        }
    }
}

impl std::ops::DerefMut for Regs {
    fn deref_mut(&mut self) -> &mut [Value] {
        match self {
            Regs::Inline { len, values } => &mut values[..*len as usize],
            Regs::Heap(values) => values,
        }
    }
}

/// What the thread does next, once its local statements have run.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// The statement at `pc` is a visible operation.
    Visible,
    /// No statements left.
    Finished,
    /// A local statement failed (an undefined label, the unroll bound).
    Failed(String),
}

impl ThreadRun {
    pub fn new(model: &LitmusModel, t: usize) -> ThreadRun {
        ThreadRun {
            pc: 0,
            regs: Regs::new(&model.reg_init[t]),
            back_taken: Vec::new(),
            finished: false,
            cluster_arrival: None,
        }
    }

    fn slot(model: &LitmusModel, t: usize, r: &Reg) -> usize {
        model.reg_names[t]
            .iter()
            .position(|n| n == r)
            .expect("every register of a thread has a slot")
    }

    fn val(&self, model: &LitmusModel, t: usize, o: &Operand) -> Value {
        match o {
            Operand::Reg(r) => self.regs[Self::slot(model, t, r)],
            Operand::Imm(v) => *v,
        }
    }

    fn set(&mut self, model: &LitmusModel, t: usize, r: &Reg, v: Value) {
        self.regs[Self::slot(model, t, r)] = v;
    }

    /// Run local statements until a visible one (or the end).
    pub fn advance(&mut self, model: &LitmusModel, t: usize) -> Next {
        let body = &model.threads[t];
        while let Some(step) = body.get(self.pc) {
            match &step.instr {
                Instr::Mov { dst, src } => {
                    let v = self.val(model, t, src);
                    self.set(model, t, dst, v);
                }
                Instr::Alu { op, dst, a, b } => {
                    let v = op.apply(self.val(model, t, a), self.val(model, t, b));
                    self.set(model, t, dst, v);
                }
                Instr::Setp { cmp, dst, a, b } => {
                    let holds = cmp.holds(self.val(model, t, a), self.val(model, t, b));
                    self.set(model, t, dst, Value::from(holds));
                }
                // Proxies other than the async one are not modelled: every other access already
                // uses the generic path.
                Instr::Label(_) => {}
                Instr::Fence(Fence::Proxy(kind)) if !kind.is_async() => {}
                Instr::Branch { cond, .. } => {
                    let taken = match cond {
                        None => true,
                        Some((cmp, a, b)) => {
                            cmp.holds(self.val(model, t, a), self.val(model, t, b))
                        }
                    };
                    if taken {
                        let Some(target) = step.target else {
                            return Next::Failed(format!("P{t}: branch to an undefined label"));
                        };
                        if target <= self.pc {
                            if self.back_taken.is_empty() {
                                self.back_taken = vec![0; body.len()];
                            }
                            self.back_taken[self.pc] += 1;
                            if self.back_taken[self.pc] > model.unroll {
                                return Next::Failed(format!(
                                    "P{t}: loop unroll bound {} exceeded",
                                    model.unroll
                                ));
                            }
                        }
                        self.pc = target;
                        continue;
                    }
                }
                _ => return Next::Visible,
            }
            self.pc += 1;
        }
        Next::Finished
    }

    /// The machine location the statement at `pc` loads from, if it is a load.
    pub fn next_load(&self, model: &LitmusModel, t: usize) -> Option<usize> {
        match &model.threads[t].get(self.pc)?.instr {
            Instr::Load { loc, .. } | Instr::Async(AsyncOp::MbarrierTryWait { bar: loc, .. }) => {
                Some(model.loc_of[*loc])
            }
            _ => None,
        }
    }

    /// The scheduling point of the visible statement at `pc`.
    pub fn point(&self, model: &LitmusModel, t: usize) -> Point {
        match &model.threads[t][self.pc].instr {
            Instr::Load { loc, .. } => Point::Read(model.loc_of[*loc]),
            Instr::Store { loc, .. } | Instr::Atom { loc, .. } | Instr::Red { loc, .. } => {
                Point::Write(model.loc_of[*loc])
            }
            Instr::Async(AsyncOp::MbarrierTryWait { bar, .. }) => Point::Read(model.loc_of[*bar]),
            // Issuing a copy queues it on its agent.
            Instr::Async(AsyncOp::BulkCopy { .. }) => Point::Other,
            // A commit touches only its thread's own groups (see `Machine::bulk_commit`).
            Instr::Async(AsyncOp::BulkCommitGroup) => Point::Local,
            Instr::Async(op) => match op.mbarrier() {
                Some(bar) => Point::Write(model.loc_of[bar]),
                None => Point::Other,
            },
            // A commit touches only its thread's own groups (see `Machine::cp_async_commit`).
            // A proxy fence is only read by copies issued after it in causality order.
            Instr::CpAsyncCommit | Instr::Fence(Fence::Proxy(_)) => Point::Local,
            _ => Point::Other,
        }
    }

    /// Perform the visible statement at `pc` on `m`. Returns whether the thread must block (a
    /// `bar.sync` whose instance has not completed, a `cp.async.wait_group` whose groups have
    /// not).
    pub fn exec(
        &mut self,
        model: &LitmusModel,
        t: usize,
        m: &mut Machine,
        mirror: Option<u32>,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<bool, Halt> {
        let body = &model.threads[t];
        let step = &body[self.pc];
        self.pc += 1;
        let site = step.site;
        match &step.instr {
            Instr::Load { access, dst, loc } if access.proxy == Proxy::Texture => {
                // `ld.global.nc`: the runtime's non-coherent read rule (a write of the location
                // anywhere in the kernel is a bug; see `runtime::noncoherent`).
                let v = m.load_nc(t, model.loc_of[*loc], site, mirror, choose)? as i64;
                self.set(model, t, dst, v);
            }
            Instr::Load { access, dst, loc } => {
                let loc = model.loc_of[*loc];
                let v = m.load(t, loc, access.order, access.scope, site, mirror, choose)? as i64;
                self.set(model, t, dst, v);
            }
            Instr::Store { access, loc, value } => {
                let v = self.val(model, t, value) as u64;
                m.store(t, model.loc_of[*loc], v, access.order, access.scope, site)?;
            }
            Instr::Atom {
                access,
                op,
                dst,
                loc,
                operand,
                new,
            } => {
                let a = self.val(model, t, operand);
                let b = new.as_ref().map_or(0, |n| self.val(model, t, n));
                let rmw = Rmw {
                    op: *op,
                    a,
                    b,
                    order: access.order,
                    scope: access.scope,
                };
                let old = rmw.run(m, t, model.loc_of[*loc], site)?;
                self.set(model, t, dst, old);
            }
            Instr::Red {
                access,
                op,
                loc,
                operand,
            } => {
                let rmw = Rmw {
                    op: *op,
                    a: self.val(model, t, operand),
                    b: 0,
                    order: access.order,
                    scope: access.scope,
                };
                rmw.run(m, t, model.loc_of[*loc], site)?;
            }
            Instr::Async(AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::Mbarrier(bar),
            }) => {
                // The copy's agent performs it (see `runtime::async_copy`).
                let slot = step.agent.expect("every bulk copy has an agent");
                let (src, dst, bar) = (model.loc_of[*src], model.loc_of[*dst], model.loc_of[*bar]);
                let done = Completion::MbarrierAt(bar);
                m.bulk_copy_on(
                    t,
                    slot,
                    (vec![Some(src)], vec![dst], false),
                    *size as u64,
                    done,
                    site,
                )?;
            }
            Instr::Async(AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::BulkGroup,
            }) => {
                // Shared→global: the copy's agent performs it; the issuer's bulk async-group
                // completes it (see `runtime::async_groups`).
                let slot = step.agent.expect("every bulk copy has an agent");
                let (src, dst) = (model.loc_of[*src], model.loc_of[*dst]);
                let done = Completion::BulkGroup;
                m.bulk_copy_on(
                    t,
                    slot,
                    (vec![Some(src)], vec![dst], false),
                    *size as u64,
                    done,
                    site,
                )?;
            }
            Instr::Async(AsyncOp::BulkCommitGroup) => m.bulk_commit(t, site)?,
            Instr::Async(AsyncOp::BulkWaitGroup { pending, read }) => {
                return m.bulk_wait_group(t, *pending as usize, *read, site);
            }
            Instr::Async(AsyncOp::FenceMbarrierInit) => m.fence_mbarrier_init(t, site)?,
            Instr::Async(AsyncOp::ClusterArrive { order }) => {
                // The kernel runtime's cluster barrier (`runtime::cluster`): an arrive on the
                // cluster's hardware barrier, releasing at `.cluster` scope unless `.relaxed`.
                let bar = cluster_barrier(&m.setup, t).expect(
                    "every cluster whose threads use its barrier has one (`cluster_barriers`)",
                );
                self.cluster_arrival = Some(m.cluster_arrive(t, bar, order.is_release(), site)?);
            }
            Instr::Async(AsyncOp::ClusterWait) => {
                // Waits for the phase of the thread's latest arrive and acquires what it
                // released; a wait before any arrive waits for nothing (as in the axiomatic
                // engine's `cluster_barrier_syncs`). A blocked wait runs again when woken.
                let bar = cluster_barrier(&m.setup, t).expect(
                    "every cluster whose threads use its barrier has one (`cluster_barriers`)",
                );
                if let Some(phase) = self.cluster_arrival {
                    let on = WaitOn::Token(phase);
                    let sem = WaitSem::ACQUIRE_CLUSTER;
                    if m.mbar_wait(t, bar, on, sem, true, site)? == WaitResult::Blocked {
                        self.pc -= 1;
                        return Ok(true);
                    }
                }
            }
            Instr::Async(op) => self.mbarrier(model, t, m, op, site, mirror, choose)?,
            Instr::Fence(Fence::Proxy(kind)) => {
                let name = format!("fence.proxy.{}", kind.name());
                m.fence_proxy_async_in(t, step.covers.clone(), &name, site)?;
            }
            Instr::Fence(Fence::Sc(scope)) => m.fence(t, Order::Sc, *scope, site)?,
            Instr::Fence(Fence::AcqRel(scope)) => m.fence(t, Order::AcqRel, *scope, site)?,
            Instr::Barrier { op, id, quorum } if id.first() == Some(&EXCHANGE_ID) => {
                // A warp exchange's barrier: it orders the exchange's slots alone.
                let id = barrier_id(id.iter().map(|o| self.val(model, t, o)));
                let quorum = quorum.as_ref().map_or(1, |q| self.val(model, t, q).max(1));
                let wait = *op == BarrierOp::Sync && !self.ends_thread(model, t);
                let key = BarrierKey::Id(id);
                m.set_future_barriers(t, model.future_barriers(t, self.pc));
                return m.exchange_barrier(t, site, key, quorum as usize, wait);
            }
            Instr::Barrier { op, id, quorum } => {
                let id = barrier_id(id.iter().map(|o| self.val(model, t, o)));
                let quorum = quorum
                    .as_ref()
                    .map(|q| self.val(model, t, q).max(1) as usize);
                return self.barrier(model, t, m, id, quorum, *op == BarrierOp::Sync);
            }
            Instr::WarpSync { mask } => {
                // The CTA barrier of the mask's lanes (see `Instr::warp_barrier`).
                let (id, quorum) = Instr::warp_barrier(*mask);
                let id = barrier_id(id.into_iter());
                return self.barrier(model, t, m, id, Some(quorum as usize), true);
            }
            Instr::CpAsync { dst, src } => {
                // The copy joins the thread's open group; the CTA's copy agent performs it.
                let (src, dst) = (model.loc_of[*src], model.loc_of[*dst]);
                m.cp_async(t, vec![src], vec![dst], 4, site)?;
            }
            Instr::CpAsyncCommit => m.cp_async_commit(t, site)?,
            Instr::CpAsyncWait { n, all } => {
                // PTX ISA, *cp.async.wait_all*: "equivalent to: cp.async.commit_group;
                // cp.async.wait_group 0;".
                if *all {
                    m.cp_async_commit(t, site)?;
                }
                return m.cp_async_wait(t, *n as usize, site);
            }
            other => unreachable!("{other:?} is local; `advance` runs it"),
        }
        Ok(false)
    }

    /// Arrive at the barrier `id` of the thread's CTA (the statement before `pc`), waiting if
    /// `sync`. Returns whether the thread must block.
    fn barrier(
        &self,
        model: &LitmusModel,
        t: usize,
        m: &mut Machine,
        id: i64,
        quorum: Option<usize>,
        sync: bool,
    ) -> Result<bool, Halt> {
        let body = &model.threads[t];
        let last = self.ends_thread(model, t);
        m.set_future_barriers(t, model.future_barriers(t, self.pc));
        m.barrier_op(
            t,
            body[self.pc - 1].site,
            BarrierKey::Id(id),
            quorum,
            sync && !last,
        )
    }

    /// Whether the barrier just executed ends its thread: then it need not wait, since nothing
    /// after it could observe what waiting brings, and the axiomatic model lets it never
    /// complete.
    fn ends_thread(&self, model: &LitmusModel, t: usize) -> bool {
        model.threads[t][self.pc..]
            .iter()
            .all(|s| matches!(s.instr, Instr::Label(_)))
    }

    /// The thread's registers and their final values, named as final states name them.
    pub fn recorded<'a>(
        &'a self,
        model: &'a LitmusModel,
        t: usize,
    ) -> impl Iterator<Item = (String, i64)> + 'a {
        model.reg_keys[t]
            .iter()
            .zip(self.regs.iter())
            .map(|(key, v)| (key.clone(), *v))
    }
}

impl ThreadRun {
    /// An mbarrier instruction on the barrier's location, whose value is the packed
    /// [`MbarrierState`], as the axiomatic engine has it (`axiomatic::events`): `init` a weak
    /// store, arrive / expect-tx / complete-tx atomic read-modify-writes, `try_wait` a strong
    /// load. The runtime acquires with every `.acquire` try_wait, also one that returns 0 (the
    /// axiomatic model acquires only where it returns 1): more synchronization, so fewer
    /// outcomes, never more.
    #[allow(clippy::too_many_arguments)]
    fn mbarrier(
        &mut self,
        model: &LitmusModel,
        t: usize,
        m: &mut Machine,
        op: &AsyncOp,
        site: crate::runtime::report::Site,
        mirror: Option<u32>,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<(), Halt> {
        let update = |m: &mut Machine, bar: usize, arrivals: Value, tx: Value, order, scope| {
            let apply =
                move |old: u64| Some(MbarrierState::update(old as Value, arrivals, tx) as u64);
            let loc = model.loc_of[bar];
            m.rmw(t, loc, RmwKind::Mbarrier, &apply, order, scope, site)
                .map(|_| ())
        };
        match op {
            AsyncOp::MbarrierInit { bar, count } => {
                let v = MbarrierState::init(self.val(model, t, count));
                m.mbarrier_init_store(t, model.loc_of[*bar], v as u64, site)
            }
            AsyncOp::MbarrierArrive {
                bar,
                order,
                scope,
                arrival,
                ..
            } => {
                let (arrivals, tx) = match arrival {
                    Arrival::Count(n) => (self.val(model, t, n), 0),
                    Arrival::ExpectTx(bytes) => (1, self.val(model, t, bytes)),
                };
                update(m, *bar, arrivals, tx, *order, *scope)
            }
            AsyncOp::MbarrierExpectTx {
                bar, scope, bytes, ..
            } => {
                let tx = self.val(model, t, bytes);
                update(m, *bar, 0, tx, Order::Relaxed, *scope)
            }
            AsyncOp::MbarrierCompleteTx {
                bar, scope, bytes, ..
            } => {
                let tx = self.val(model, t, bytes).wrapping_neg();
                update(m, *bar, 0, tx, Order::Relaxed, *scope)
            }
            AsyncOp::MbarrierTryWait {
                dst,
                bar,
                order,
                scope,
                parity,
            } => {
                let loc = model.loc_of[*bar];
                let state = m.load(t, loc, *order, Some(*scope), site, mirror, choose)?;
                let done = MbarrierState::completed(state as Value, self.val(model, t, parity));
                self.set(model, t, dst, Value::from(done));
                Ok(())
            }
            other => unreachable!("`unsupported` keeps {other:?} from the litmus runtime"),
        }
    }
}

/// One `atom`/`red` with its operands evaluated.
struct Rmw {
    op: RmwOp,
    a: Value,
    b: Value,
    order: Order,
    scope: Option<Scope>,
}

impl Rmw {
    fn run(
        &self,
        m: &mut Machine,
        t: usize,
        loc: usize,
        site: crate::runtime::report::Site,
    ) -> Result<Value, Halt> {
        let kind = match self.op {
            RmwOp::Add => RmwKind::Add,
            RmwOp::Sub => RmwKind::Sub,
            RmwOp::Exch => RmwKind::Exchange,
            RmwOp::Cas => RmwKind::Cas,
            RmwOp::Inc => RmwKind::Inc,
            RmwOp::Dec => RmwKind::Dec,
            RmwOp::Min => RmwKind::Min,
            RmwOp::Max => RmwKind::Max,
            RmwOp::And => RmwKind::And,
            RmwOp::Or => RmwKind::Or,
            RmwOp::Xor => RmwKind::Xor,
        };
        let (op, a, b) = (self.op, self.a, self.b);
        let apply = move |old: u64| op.apply(old as i64, a, b).map(|v| v as u64);
        // An atom without a scope is gpu-scoped (PTX's default); its order is at least relaxed.
        let order = if self.order == Order::Weak {
            Order::Relaxed
        } else {
            self.order
        };
        let scope = self.scope.unwrap_or(Scope::Gpu);
        Ok(m.rmw(t, loc, kind, &apply, order, scope, site)? as i64)
    }
}
