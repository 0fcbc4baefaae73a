//! The CUDA C++ text of the two kernels: one `asm volatile` per litmus instruction.

use super::alu::{alu, cmp};
use super::gen::{ident, Gen};
use super::harness::Observable;
use super::layout::{
    value_bits, CHECK_KERNEL, STEP_LIMIT, TABLE_SLOTS, TAG_SPIN, TAG_STATE, TAG_TIMEOUT, TAG_WIDE,
    TEST_KERNEL,
};
use super::support::{is_nc, roles_devices};
use super::unsupported::unsupported;
use super::unsupported::Unsupported;
use scopecheck_model::litmus::warp::{VoteMode, WarpOp, WarpPart};
use scopecheck_model::litmus::{
    Access, BarrierOp, Fence, Instr, LocId, Operand, Reg, RmwOp, ThreadId,
};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The PTX qualifiers for an RMW. PTX ISA (`atom`, `red`): "If no `.sem` is specified, `.relaxed`
/// is assumed" and with no scope `.gpu` is, so a weak RMW runs as `atom.relaxed.gpu`; that only
/// strengthens it (every execution of the stronger program is one the model allows the weaker),
/// so whatever the device shows is still judged soundly.
pub(super) fn rmw_sem(a: &Access) -> String {
    if a.order.is_strong() {
        sem(a)
    } else {
        "relaxed.gpu".to_string()
    }
}

/// The PTX qualifiers for an access: `weak`, `relaxed.gpu`, `acquire.cta`, ...
pub(super) fn sem(a: &Access) -> String {
    match a.scope {
        Some(scope) if a.order.is_strong() => {
            format!("{}.{}", a.order.ptx_name(), scope.ptx_name())
        }
        _ => "weak".to_string(),
    }
}

macro_rules! emit {
    ($g:expr, $($arg:tt)*) => {{ let _ = writeln!($g.out, $($arg)*); }};
}

impl Gen<'_> {
    pub(super) fn emit(&mut self) -> Result<(), Unsupported> {
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
        emit!(
            self,
            "#define TRY_WAIT_TRIES {}u",
            super::asyncops::TRY_WAIT_TRIES
        );
        emit!(
            self,
            "#define TRY_WAIT_HINT_NS {}u",
            super::asyncops::TRY_WAIT_HINT_NS
        );
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
        match self.cluster {
            None => {
                emit!(
                    self,
                    "  const u32 test_blocks = (n >> ipb_log2) * role_count;"
                );
                emit!(self, "  if (blockIdx.x >= test_blocks) {{ stress_block(scratch, seed, stress_iters, scratch_mask, stress_pattern); return; }}");
                emit!(
                    self,
                    "  const u32 role = role_base + blockIdx.x % role_count, group = blockIdx.x / role_count;"
                );
            }
            Some(c) => {
                // A cluster launch (PTX ISA, %cluster_ctarank: "CTA identifier in a cluster
                // across all dimensions"; for a 1-D grid of 1-D clusters it is blockIdx.x modulo
                // the cluster size): a group of `count` clusters of `size` blocks per `ipb`
                // instances; the block at position `pos` of its group plays the role placed there.
                emit!(
                    self,
                    "  // cluster launch: {} cluster(s) of {} block(s) per group",
                    c.count,
                    c.size
                );
                emit!(
                    self,
                    "  const u32 test_blocks = (n >> ipb_log2) * {}u;",
                    c.blocks()
                );
                emit!(self, "  if (blockIdx.x >= test_blocks) {{ stress_block(scratch, seed, stress_iters, scratch_mask, stress_pattern); return; }}");
                emit!(
                    self,
                    "  const u32 pos = blockIdx.x % {}u, group = blockIdx.x / {}u;",
                    c.blocks(),
                    c.blocks()
                );
                let mut role = String::new();
                for (r, at) in c.position.iter().enumerate() {
                    let _ = write!(role, "pos == {at}u ? {r}u : ");
                }
                emit!(self, "  const u32 role = {role}0xffffffffu;");
                emit!(
                    self,
                    "  if (role == 0xffffffffu) return; // no CTA of the test at this rank"
                );
            }
        }
        if self.warp_per_thread {
            emit!(
                self,
                "  // each litmus thread is lane 0 of a warp of its own (CTA barriers count warps)"
            );
            emit!(
                self,
                "  const u32 slot = (threadIdx.x >> 5) % SLOTS, j = (threadIdx.x >> 5) / SLOTS;"
            );
        } else {
            emit!(self, "  // layout 0: an instance's threads in different warps; layout 1: adjacent lanes of one warp");
            emit!(
                self,
                "  const u32 slot = layout ? threadIdx.x % SLOTS : threadIdx.x >> ipb_log2;"
            );
            emit!(
                self,
                "  const u32 j = layout ? threadIdx.x / SLOTS : threadIdx.x & (ipb - 1u);"
            );
        }
        if self.shared.any() || self.cluster.is_some() || self.warp_per_thread {
            // Block-local instances are shuffled per role; shared slots are indexed by `jl`, so an
            // instance's CTAs of one cluster find its slots at the same offsets.
            let lane0 = if self.warp_per_thread {
                " && (threadIdx.x & 31u) == 0u"
            } else {
                ""
            };
            emit!(
                self,
                "  const bool active = slot < SLOTS && j < ipb{lane0};"
            );
            emit!(self, "  const u32 jl = perm(j & (ipb - 1u), mix(seed ^ (0x300u + role)), ipb - 1u, ipb_log2);");
            emit!(
                self,
                "  const u32 inst = perm(group * ipb + jl, mix(seed ^ (0x100u + {})), mask, k);",
                self.instance_key()
            );
            self.block_prologue();
            if self.cluster.is_some() {
                // A thread that plays no litmus thread exits: it must not hold back the
                // program's cluster barriers (only non-exited threads are waited for).
                let mut size = String::new();
                for (r, t) in self.roles.iter().enumerate() {
                    let _ = write!(size, "role == {r}u ? {}u : ", t.len());
                }
                emit!(self, "  if (!active || slot >= ({size}0u)) return;");
            } else {
                emit!(self, "  if (!active) return;");
            }
        } else {
            emit!(self, "  if (slot >= SLOTS || j >= ipb) return;");
        }
        if self.warp_lanes {
            emit!(self, "  // warp layout (forced for warp-level instructions): the instance's threads of this CTA are lanes lane_base .. lane_base + SLOTS - 1");
            emit!(self, "  const u32 lane_base = (threadIdx.x & 31u) - slot;");
        }
        if !(self.shared.any() || self.cluster.is_some() || self.warp_per_thread) {
            emit!(
                self,
                "  const u32 inst = perm(group * ipb + j, mix(seed ^ (0x100u + role)), mask, k);"
            );
        }
        self.emit_location_pointers();
        emit!(self, "  int* out = regs + (u64)inst * WORDS;");
        emit!(self, "  if (pre_stress) stress_lines(scratch, seed ^ (blockIdx.x * 1024u + threadIdx.x), pre_stress, scratch_mask, stress_pattern);");
        emit!(self, "  const u32 me = role * SLOTS + slot;");
        emit!(
            self,
            "  if (bar_bound) spin_barrier(bar + inst, bar_bound);"
        );
        emit!(self, "  u32 cl_pending = 0u; (void)cl_pending;");
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
        self.block_epilogue();
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
        self.shared_addresses(tid);
        for (i, s) in t.body.iter().enumerate() {
            match &s.warp {
                Some(WarpPart::Start(op)) => {
                    emit!(self, "    {}", self.exchange(tid, op));
                    continue;
                }
                Some(WarpPart::Rest) => continue,
                None => {}
            }
            let mut code = self.instr(tid, &s.instr, &labels, s.span)?;
            if let Instr::Load { access, loc, .. } = &s.instr {
                // A repeated weak load of one location gets an address ptxas cannot prove equal
                // to the earlier one's (`k >> 5` is 0 at run time: k ≤ 26): on the H100 ptxas
                // merged `ld.weak r3, x` into an earlier `ld.weak r1, x` across an
                // `ld.acquire.gpu` between them (corpus/gpu-observations/h100-2026-11-27-async),
                // so the compiled code read x once, before the acquire, which the litmus
                // program does not do.
                let l = p.physical(*loc);
                let n = t.body[..i]
                    .iter()
                    .filter(|e| match &e.instr {
                        Instr::Load {
                            access: a, loc: m, ..
                        } => !a.order.is_strong() && p.physical(*m) == l,
                        _ => false,
                    })
                    .count();
                if n > 0 && !access.order.is_strong() {
                    let (_, addr) = self.space(tid, *loc);
                    let step = if addr.starts_with("\"r\"") { 4 * n } else { n };
                    let opaque = format!("{} + (k >> 5u) * {step}u)", addr.trim_end_matches(')'));
                    code = code.replacen(&addr, &opaque, 1);
                }
            }
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
        self.thread_epilogue(tid);
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
            WarpOp::Redux {
                op: red,
                ty,
                dst,
                src,
                ..
            } => format!(
                "asm volatile(\"redux.sync.{}.{} %0, %1, %2;\" : \"=r\"(r_{}) : \"r\"({}), \"r\"({mask}) : \"memory\");",
                red.name(),
                ty.name(),
                ident(&dst.0),
                self.operand(src)
            ),
            // The leader's laneid, shifted back to the litmus lane.
            WarpOp::Elect { dst, .. } => format!(
                "{{ u32 leader_; asm volatile(\"{{ .reg .pred p; elect.sync %0|p, %1; }}\" : \"=r\"(leader_) : \"r\"({mask}) : \"memory\"); r_{} = (int)(leader_ - lane_base); }}",
                ident(&dst.0)
            ),
        }
    }

    pub(super) fn operand(&self, op: &Operand) -> String {
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
            Instr::Load { access, dst, loc } => {
                let (space, addr) = self.space(tid, *loc);
                format!(
                    "asm volatile(\"ld.{}.{space}.u32 %0, [%1];\" : \"=r\"(r_{}) : {addr} : \"memory\");",
                    sem(access),
                    ident(&dst.0),
                )
            }
            Instr::Store { access, loc, value } => {
                let (space, addr) = self.space(tid, *loc);
                format!(
                    "asm volatile(\"st.{}.{space}.u32 [%0], %1;\" :: {addr}, \"r\"({}) : \"memory\");",
                    sem(access),
                    self.operand(value)
                )
            }
            Instr::Atom { access, op, dst, loc, operand, new } => {
                let (ptx_op, operand) = rmw_form(*op, &self.operand(operand));
                let (space, addr) = self.space(tid, *loc);
                match op {
                    RmwOp::Cas => {
                        let new = new.as_ref().map(|n| self.operand(n)).unwrap_or_else(|| "0".into());
                        format!(
                            "asm volatile(\"atom.{}.{space}.cas.b32 %0, [%1], %2, %3;\" : \"=r\"(r_{}) : {addr}, \"r\"({}), \"r\"({}) : \"memory\");",
                            rmw_sem(access),
                            ident(&dst.0),
                            operand,
                            new
                        )
                    }
                    _ => format!(
                        "asm volatile(\"atom.{}.{space}.{ptx_op} %0, [%1], %2;\" : \"=r\"(r_{}) : {addr}, \"r\"({operand}) : \"memory\");",
                        rmw_sem(access),
                        ident(&dst.0),
                    ),
                }
            }
            Instr::Red { access, op, loc, operand } => {
                let (ptx_op, operand) = rmw_form(*op, &self.operand(operand));
                let (space, addr) = self.space(tid, *loc);
                if access.order.is_acquire() {
                    // `red` has no acquire form: an `atom` whose result is discarded has the same
                    // memory semantics (an RMW with acquire and release sides).
                    format!(
                        "{{ int unused_; asm volatile(\"atom.{}.{space}.{ptx_op} %0, [%1], %2;\" : \"=r\"(unused_) : {addr}, \"r\"({operand}) : \"memory\"); }}",
                        rmw_sem(access),
                    )
                } else {
                    format!(
                        "asm volatile(\"red.{}.{space}.{ptx_op} [%0], %1;\" :: {addr}, \"r\"({operand}) : \"memory\");",
                        rmw_sem(access),
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
            // See `ctabar`: the instance's own hardware barrier, counting one warp per thread.
            Instr::Barrier { op, id, quorum } => {
                let name = if *op == BarrierOp::Sync { "sync" } else { "arrive" };
                let key: Vec<i64> = id
                    .iter()
                    .map(|o| match o {
                        Operand::Imm(v) => *v,
                        Operand::Reg(_) => 0,
                    })
                    .collect();
                let k = self.bars.ids.iter().position(|i| *i == key).unwrap_or(0);
                let role = self.role_of(tid);
                let count = match quorum {
                    Some(Operand::Imm(v)) => *v as usize,
                    _ => self.roles[role].len(),
                };
                format!(
                    "asm volatile(\"bar.cta.{name} %0, %1;\" :: \"r\"(1u + jl * {}u + {k}u), \"r\"({}u) : \"memory\");",
                    self.bars.ids.len(),
                    32 * count
                )
            }
            Instr::Async(op) => self.async_instr(tid, op),
            Instr::CpAsync { .. } | Instr::CpAsyncCommit | Instr::CpAsyncWait { .. } => {
                self.cp_async(i)
            }
            // The CTA's litmus threads are the adjacent lanes `lane_base ..` of one warp (see
            // `Harness::warp_lanes`), so the litmus mask (lane i: the CTA's i-th thread) is the
            // warp's mask shifted by `lane_base`.
            Instr::WarpSync { mask } => format!(
                "asm volatile(\"bar.warp.sync %0;\" :: \"r\"({mask:#x}u << lane_base) : \"memory\");"
            ),
            Instr::Mov { dst, src } => format!("r_{} = {};", ident(&dst.0), self.operand(src)),
            Instr::Alu { op, dst, a, b } => {
                format!("r_{} = {};", ident(&dst.0), alu(*op, &self.operand(a), &self.operand(b)))
            }
            Instr::Setp { cmp: c, dst, a, b } => {
                format!("r_{} = {};", ident(&dst.0), cmp(*c, &self.operand(a), &self.operand(b)))
            }
            Instr::Label(l) => format!("P{tid}_{}: ;", ident(l)),
            Instr::Branch { cond, target } => {
                if !labels.contains(target) {
                    return unsupported(format!("P{tid} at {span}: branch to unknown label `{target}`"));
                }
                let guard = match cond {
                    None => "true".to_string(),
                    Some((c, a, b)) => cmp(*c, &self.operand(a), &self.operand(b)),
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
pub(super) fn rmw_form(op: RmwOp, operand: &str) -> (&'static str, String) {
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
pub(super) const PRELUDE: &str = r#"
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
