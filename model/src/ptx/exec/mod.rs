//! The per-thread PTX interpreter: one CUDA thread runs its kernel's decoded instructions on the
//! runtime, through the same [`crate::runtime::Ctx`] the Rust kernel models use, so every engine
//! and detector applies.
//!
//! A thread is a stack of frames (a `.func` call pushes one: its registers, its `.param` slots,
//! its `.local` frame) over the function's instruction list; a guard `@p`/`@!p` skips an
//! instruction whose predicate says so; `bra` jumps to the label's index. Every memory and
//! synchronization instruction is one operation of the runtime with the instruction's site
//! (PTX line, CUDA line).
//!
//! Spin loops: at a taken backward branch the thread compares its whole private state
//! (program counter, call stack, registers, parameters, local memory) with that at the last
//! backward branch it marked. When they are equal, what ran in between is an iteration that
//! left the thread's own state as it was, the contract of [`crate::runtime::spin`]: it is ended
//! with `spin_wait` (which blocks the thread until a store can change what the next iteration
//! reads). Otherwise the thread marks this point and starts a new iteration with
//! `spin_restart`. An iteration that synchronized with other threads (a barrier, a warp
//! operation, `fence.sc`) is never ended as a spin (it restarts instead), since repeating it is
//! not invisible to them. A loop whose state changes every iteration (a counter) is never
//! treated as a spin: it runs to the step bound like any loop.
//!
//! An mbarrier spin (`L: mbarrier.try_wait.parity p, [bar], 0; @!p bra L`, what
//! `cuda::barrier::wait` and CUTLASS's `wait` compile to) gets the await treatment of the
//! Rust API's [`crate::kernel::MBarrier::wait_parity`]: when such an iteration left the
//! thread's state as it was, its only observation was the failed wait (it read no memory and
//! synchronized with nobody), so it ends by blocking until the awaited phase completes (a
//! phase that never completes is a proven hang), and a search that prunes spins keeps it only
//! for such a hang (`Machine::mbar_spin`). An iteration that also read memory restarts
//! instead (its reads may be what ends it: it runs to the step bound).

mod asynchronous;
mod awaits;
mod cluster;
mod memory;
mod tensor;
mod warp;

use super::alu::{self, convert};
use super::decode::{Callee, Dst, Op, Special, Src};
use super::layout::{Layout, PARAM_BASE};
use super::program::{Func, Program};
use super::value::Ty;
use crate::kernel::ThreadCtx;
use crate::runtime::report::{FailureKind, Site};
use std::sync::Arc;

/// Instructions one thread may execute in one execution before it is cut off as a possible
/// hang: a loop that never touches memory is no step of the machine, so the runtime's step
/// bound does not see it.
pub const MAX_INSTRUCTIONS: u64 = 5_000_000;

/// One call frame.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Frame {
    func: usize,
    pc: usize,
    regs: Vec<u64>,
    params: Vec<Vec<u8>>,
    /// Where this frame's `.local` variables start in the thread's local memory.
    local_base: u64,
    /// The caller's `.param` slots (or registers) that receive the returns.
    rets: Vec<Src>,
}

/// The private state of a thread, compared at backward branches (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Private {
    frames: Vec<Frame>,
    local: Vec<u8>,
}

/// What the interpreter of one thread needs.
pub struct Thread<'a> {
    prog: &'a Program,
    layout: &'a Layout,
    t: &'a ThreadCtx<'a>,
    st: Private,
    /// The state at the last marked backward branch.
    mark: Option<(usize, Private)>,
    /// The current iteration synchronized with other threads.
    synced: bool,
    /// The thread's last `barrier.cluster.arrive`, for the `barrier.cluster.wait` after it.
    cluster_arrival: Option<crate::kernel::ClusterArrival>,
    /// The current iteration's last failed mbarrier wait (module docs).
    failed_wait: Option<asynchronous::FailedWait>,
    /// The current iteration read model memory.
    loaded: bool,
    /// The latest loop head reached, with the state the round starting there began in.
    head: Option<(usize, Private)>,
    /// Operations on the machine since then.
    round_ops: u32,
    /// The registers the await check tracks through a simulated round (the awaits module).
    tracked: std::cell::RefCell<Option<awaits::Tracked>>,
}

/// Run `entry` for the calling thread with the kernel parameters' bytes `params`.
pub fn run(prog: &Program, layout: &Layout, entry: usize, params: &[Vec<u8>], t: &ThreadCtx) {
    let func = &prog.funcs[entry];
    let mut slots: Vec<Vec<u8>> = func
        .params
        .iter()
        .map(|p| vec![0; p.size as usize])
        .collect();
    for (slot, bytes) in slots.iter_mut().zip(params) {
        slot.clone_from(bytes);
    }
    let mut th = Thread {
        prog,
        layout,
        t,
        st: Private {
            frames: vec![],
            local: vec![],
        },
        mark: None,
        synced: false,
        cluster_arrival: None,
        failed_wait: None,
        loaded: false,
        head: None,
        round_ops: 0,
        tracked: std::cell::RefCell::new(None),
    };
    th.push_frame(entry, slots, vec![]);
    th.run_loop();
}

impl Thread<'_> {
    fn func(&self) -> &Func {
        &self.prog.funcs[self.frame().func]
    }

    fn frame(&self) -> &Frame {
        self.st.frames.last().expect("a running thread has a frame")
    }

    fn frame_mut(&mut self) -> &mut Frame {
        self.st
            .frames
            .last_mut()
            .expect("a running thread has a frame")
    }

    fn push_frame(&mut self, func: usize, params: Vec<Vec<u8>>, rets: Vec<Src>) {
        let local_base = self.st.local.len() as u64;
        let size = self.layout.frame_size[func];
        self.st.local.resize((local_base + size) as usize, 0);
        self.st.frames.push(Frame {
            func,
            pc: 0,
            regs: vec![0; self.prog.funcs[func].nregs],
            params,
            local_base,
            rets,
        });
    }

    /// Fail the execution with `kind` at `site`.
    fn fail(&self, kind: FailureKind, site: Site, what: String) -> ! {
        self.t
            .rt
            .fail_kind(kind, format!("{} at {site}: {what}", self.name()))
    }

    fn name(&self) -> String {
        self.t.rt.info().name.clone()
    }

    fn run_loop(&mut self) {
        let mut executed = 0u64;
        loop {
            executed += 1;
            if executed > MAX_INSTRUCTIONS {
                let site = self.func().site;
                self.fail(
                    FailureKind::PossibleHang,
                    site,
                    format!(
                        "executed {MAX_INSTRUCTIONS} instructions in `{}` without ending \
                         (a loop that never touches memory?)",
                        self.func().name
                    ),
                );
            }
            let pc = self.frame().pc;
            let Some(step) = self.func().code.get(pc) else {
                // Falling off the end of a function returns from it.
                if self.ret() {
                    return;
                }
                continue;
            };
            let (op, guard, site) = (step.op.clone(), step.guard, step.site);
            self.round_head(pc);
            self.frame_mut().pc += 1;
            if let Some((p, negated)) = guard {
                if (self.read_reg(p) & 1 == 1) == negated {
                    continue;
                }
            }
            self.round_op(&op);
            if self.exec(&op, site) {
                return;
            }
        }
    }

    /// Return from the current function; `true` when the thread is done.
    fn ret(&mut self) -> bool {
        let done = self.st.frames.pop().expect("a frame to return from");
        if self.st.frames.is_empty() {
            return true;
        }
        let func = &self.prog.funcs[done.func];
        let returns = &done.params[func.n_params..func.n_params + func.n_returns];
        for (dst, bytes) in done.rets.iter().zip(returns) {
            match *dst {
                Src::Param(slot, _) => self.frame_mut().params[slot].clone_from(bytes),
                Src::Reg(r) => self.frame_mut().regs[r as usize] = le(bytes),
                _ => {}
            }
        }
        self.st.local.truncate(done.local_base as usize);
        false
    }

    /// The value of a source operand.
    fn src(&self, s: &Src) -> u64 {
        match *s {
            Src::Reg(r) => self.read_reg(r),
            Src::NotReg(r) => (self.read_reg(r) & 1) ^ 1,
            Src::Imm(v) => v,
            Src::Special(sp) => self.special(sp),
            Src::Var(v, off) => {
                let var = &self.prog.vars[v];
                let base = match var.space {
                    super::decode::Space::Local => self.frame().local_base,
                    _ => 0,
                };
                (base + self.layout.var_addr[v]).wrapping_add(off as u64)
            }
            Src::Param(slot, off) => (PARAM_BASE + ((slot as u64) << 16)).wrapping_add(off as u64),
        }
    }

    fn set(&mut self, d: &Dst, v: u64) {
        if let Dst::Reg(r) = *d {
            self.frame_mut().regs[r as usize] = v;
            self.wrote_reg(r);
        }
    }

    /// The deterministic values of the special registers.
    fn special(&self, s: Special) -> u64 {
        let g = self.t.grid;
        let pick = |d: crate::kernel::Dim3, c: u8| [d.x, d.y, d.z][c as usize] as u64;
        let lane = self.t.lane();
        let lanes_below = (1u64 << lane) - 1;
        match s {
            Special::Tid(c) => pick(self.t.thread_idx(), c),
            Special::Ntid(c) => pick(g.block_shape, c),
            Special::Ctaid(c) => pick(self.t.block_idx(), c),
            Special::Nctaid(c) => pick(g.grid_shape, c),
            Special::Laneid => lane as u64,
            Special::Warpid => self.t.warp() as u64,
            Special::Nwarpid => g.warps_per_block() as u64,
            // PTX ISA, *Special Registers*: %clusterid "a predefined, read-only identifier of
            // the cluster within the grid", %cluster_ctaid "the CTA identifier within a
            // cluster", %nclusterid and %cluster_nctaid their ranges, per dimension.
            Special::Clusterid(c) => pick(g.cluster_grid().index_of(self.t.cluster_id()), c),
            Special::Nclusterid(c) => pick(g.cluster_grid(), c),
            Special::ClusterCtaid(c) => pick(self.t.cluster_ctaid(), c),
            Special::ClusterNctaid(c) => pick(self.t.cluster_nctaid(), c),
            Special::ClusterCtarank => self.t.cluster_ctarank() as u64,
            Special::ClusterNctarank => self.t.cluster_nctarank() as u64,
            Special::IsExplicitCluster => g.cluster_size.is_some() as u64,
            Special::Lanemask(c) => {
                use super::decode::LaneCmp as L;
                let eq = 1u64 << lane;
                let m = match c {
                    L::Eq => eq,
                    L::Lt => lanes_below,
                    L::Le => lanes_below | eq,
                    L::Gt => !(lanes_below | eq),
                    L::Ge => !lanes_below,
                };
                m & 0xffff_ffff
            }
            Special::Smid => self.t.bid() as u64,
            Special::Nsmid => g.blocks as u64,
            Special::Gridid | Special::Timer | Special::Envreg => 0,
            Special::WarpSz => g.warp_size as u64,
            Special::DynamicSmemSize => self.layout.dynamic_smem,
            Special::TotalSmemSize => self.layout.shared_size,
        }
    }

    /// Execute one instruction; `true` when the thread is done.
    fn exec(&mut self, op: &Op, site: Site) -> bool {
        match op {
            Op::Alu { op, ty, d, a } => {
                let args: Vec<u64> = a.iter().map(|s| self.src(s)).collect();
                let v = alu::eval(*op, *ty, &args);
                self.set(d, v);
            }
            Op::AluX2 { op, d, a } => {
                let args: Vec<u64> = a.iter().map(|s| self.src(s)).collect();
                self.set(d, alu::eval_x2(*op, &args));
            }
            Op::Setp {
                cmp,
                ty,
                p,
                q,
                a,
                combine,
            } => {
                let t = cmp.eval(*ty, self.src(&a[0]), self.src(&a[1]));
                let (pv, qv) = match combine {
                    Some((b, c)) => {
                        let c = self.src(c) & 1 == 1;
                        (b.eval(t, c), b.eval(!t, c))
                    }
                    None => (t, !t),
                };
                self.set(p, pv as u64);
                if let Some(q) = q {
                    self.set(q, qv as u64);
                }
            }
            Op::Selp { ty, d, a } => {
                let v = if self.src(&a[2]) & 1 == 1 {
                    self.src(&a[0])
                } else {
                    self.src(&a[1])
                };
                self.set(d, ty.norm(v));
            }
            Op::Slct { ty, cty, d, a } => {
                let c = self.src(&a[2]);
                let take_a = match cty {
                    Ty::F(_) => cty.as_f64(c) >= 0.0 || cty.as_f64(c) == 0.0,
                    _ => cty.as_i64(c) >= 0,
                };
                let v = self.src(&a[if take_a { 0 } else { 1 }]);
                self.set(d, ty.norm(v));
            }
            Op::Mov { d, a, ty } => self.mov(d, a, *ty),
            Op::Cvt {
                d,
                a,
                dty,
                sty,
                rnd,
                sat,
            } => {
                let v = convert(*dty, *sty, self.src(a), *rnd, *sat);
                self.set(d, v);
            }
            Op::Bra(target) => self.branch(*target, site),
            Op::Ret => return self.ret(),
            Op::Exit => return true,
            Op::Trap => self.fail(
                FailureKind::Assertion,
                site,
                "trap (the kernel aborted)".into(),
            ),
            Op::Nop => {}
            Op::Call { callee, rets, args } => self.call(callee, rets, args, site),
            Op::Async(op) => self.exec_async(op, site),
            _ => self.exec_shared(op, site),
        }
        false
    }

    fn mov(&mut self, d: &[Dst], a: &[Src], ty: Ty) {
        let w = ty.bits() / d.len().max(a.len()) as u32;
        let mask = if w >= 64 { u64::MAX } else { (1 << w) - 1 };
        if a.len() > 1 {
            // Pack: element i is bits [i*w, (i+1)*w).
            let v = a.iter().enumerate().fold(0u64, |acc, (i, s)| {
                acc | (self.src(s) & mask) << (i as u32 * w)
            });
            self.set(&d[0], v);
        } else {
            let v = self.src(&a[0]);
            if d.len() > 1 {
                for (i, dst) in d.iter().enumerate() {
                    self.set(dst, (v >> (i as u32 * w)) & mask);
                }
            } else {
                self.set(&d[0], ty.norm(v));
            }
        }
    }

    /// A taken branch; backward ones are where spin loops are recognised (module docs).
    fn branch(&mut self, target: usize, site: Site) {
        let from = self.frame().pc - 1;
        self.frame_mut().pc = target;
        if target > from {
            return;
        }
        let same = matches!(&self.mark, Some((pc, st)) if *pc == from && *st == self.st);
        let failed_wait = self.failed_wait.take();
        match failed_wait {
            // A spin on an mbarrier wait: block until the awaited phase completes.
            Some(w) if same && !self.synced && !self.loaded => {
                self.t.rt.mbar_spin(w.bar, w.on, w.sem, site);
                self.t.rt.spin_restart();
            }
            None if same && !self.synced => self.t.rt.spin_wait(site),
            _ => {
                self.mark = Some((from, self.st.clone()));
                self.t.rt.spin_restart();
            }
        }
        self.synced = false;
        self.loaded = false;
    }

    fn call(&mut self, callee: &Callee, rets: &[Src], args: &[Src], site: Site) {
        match callee {
            Callee::AssertFail => self.fail(
                FailureKind::Assertion,
                site,
                "assertion failed (CUDA `assert`, `__assertfail`)".into(),
            ),
            Callee::Printf => {
                for r in rets {
                    if let Src::Param(slot, _) = *r {
                        self.frame_mut().params[slot].fill(0);
                    }
                }
            }
            Callee::Func(f) => {
                let func = &self.prog.funcs[*f];
                let mut slots: Vec<Vec<u8>> = func
                    .params
                    .iter()
                    .map(|p| vec![0; p.size as usize])
                    .collect();
                for (i, a) in args.iter().enumerate().take(func.n_params) {
                    let bytes = match *a {
                        Src::Param(slot, 0) => self.frame().params[slot].clone(),
                        ref other => self.src(other).to_le_bytes().to_vec(),
                    };
                    let n = slots[i].len().min(bytes.len());
                    slots[i][..n].copy_from_slice(&bytes[..n]);
                }
                if self.st.frames.len() > 256 {
                    self.fail(
                        FailureKind::Unsupported,
                        site,
                        "call depth above 256 (unbounded recursion?)".into(),
                    );
                }
                self.push_frame(*f, slots, rets.to_vec());
            }
        }
    }
}

/// Little-endian bytes as a value.
fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |acc, (i, b)| acc | (*b as u64) << (8 * i))
}

/// A shared program and layout, for the closure every thread runs.
pub type Shared = Arc<(Program, Layout, usize, Vec<Vec<u8>>)>;
