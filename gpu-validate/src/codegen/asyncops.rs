//! The CUDA C++ text of shared-memory addressing, Hopper's asynchronous instructions
//! (mbarriers, bulk copies, cluster barriers), Ampere's `cp.async`, and the block prologue and
//! epilogue that shared memory and clusters need. Each litmus instruction is one `asm volatile`
//! in its exact PTX form.

use super::gen::{ident, Gen};
use super::shared::{cluster_index, is_shared, names};
use scopecheck_model::litmus::async_ops::{AsyncOp, BulkCompletion, MbarrierState};
use scopecheck_model::litmus::{Instr, LocId, LocationKind, ThreadId};
use std::collections::BTreeSet;
use std::fmt::Write;

macro_rules! emit {
    ($g:expr, $($arg:tt)*) => {{ let _ = writeln!($g.out, $($arg)*); }};
}

/// Tries of a litmus `mbarrier.try_wait` (each a potentially blocking PTX `try_wait` with a
/// suspend-time hint of [`TRY_WAIT_HINT_NS`]).
pub const TRY_WAIT_TRIES: u32 = 16;
/// The suspend-time hint of each try (ns).
pub const TRY_WAIT_HINT_NS: u32 = 1000;

/// Polls of the block's end wait for a bulk copy's phase (`mbarrier.test_wait`, 100 ns apart).
pub const COPY_WAIT_POLLS: u32 = 1000;

impl Gen<'_> {
    /// The role (index into `roles`) thread `tid` plays.
    pub(super) fn role_of(&self, tid: ThreadId) -> usize {
        self.roles
            .iter()
            .position(|r| r.contains(&tid))
            .expect("every GPU thread has a role")
    }

    /// Declares `A<l>`, the 32-bit shared address of each shared location thread `tid` names:
    /// its own CTA's slot (a `.shared::cta` address), or a peer's, mapped with `mapa` (PTX ISA,
    /// *mapa*: "Map the address of the shared variable in the target CTA").
    pub(super) fn shared_addresses(&mut self, tid: ThreadId) {
        let p = self.program;
        let mine = self.role_of(tid);
        let locs: BTreeSet<LocId> = p.threads[tid]
            .body
            .iter()
            .flat_map(|s| names(&s.instr))
            .map(|l| p.physical(l))
            .filter(|&l| is_shared(self.shared, l))
            .collect();
        for l in locs {
            let (owner, slot) = self.shared.slot[l].expect("shared");
            let local = format!(
                "sh_base + ({slot}u * ipb + jl) * {}u",
                self.shared.slot_bytes
            );
            if owner == mine {
                emit!(
                    self,
                    "    const u32 A{l} = {local}; // {}",
                    p.locations[l].name
                );
            } else {
                let rank = self.cluster.map_or(0, |c| c.rank(owner));
                emit!(
                    self,
                    "    u32 A{l}; asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(A{l}) : \"r\"({local}), \"r\"({rank}u)); // {} of rank {rank}",
                    p.locations[l].name
                );
            }
        }
    }

    /// The state-space qualifier and the address operand (constraint, expression) of an
    /// access by `tid` to `loc`.
    pub(super) fn space(&self, tid: ThreadId, loc: LocId) -> (&'static str, String) {
        let l = self.program.physical(loc);
        match self.shared.slot[l] {
            Some((owner, _)) if owner == self.role_of(tid) => {
                ("shared::cta", format!("\"r\"(A{l})"))
            }
            Some(_) => ("shared::cluster", format!("\"r\"(A{l})")),
            None => ("global", format!("\"l\"(L{l})")),
        }
    }

    /// One asynchronous instruction.
    pub(super) fn async_instr(&self, tid: ThreadId, op: &AsyncOp) -> String {
        let a = |l: &LocId| format!("A{}", self.program.physical(*l));
        match op {
            // PTX ISA, mbarrier.init: "mbarrier.init{.shared{::cta}}.b64 [addr], count".
            AsyncOp::MbarrierInit { bar, count } => format!(
                "asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"({}), \"r\"({}) : \"memory\");",
                a(bar),
                self.operand(count)
            ),
            // PTX ISA, mbarrier.arrive: "mbarrier.arrive{.sem}{.scope}{.shared{::cta}}.b64 state,
            // [addr]{, count}" and "mbarrier.arrive{.sem}{.scope}{.shared::cluster}.b64 _,
            // [addr]{, count}" (a remote arrive returns no state); `.expect_tx` takes txCount.
            AsyncOp::MbarrierArrive {
                bar,
                order,
                scope,
                window,
                arrival,
            } => {
                let (tx, n) = arrival.ptx_parts();
                let (space, _) = self.space(tid, *bar);
                let q = format!(
                    "mbarrier.arrive{tx}.{}.{}.{space}.b64",
                    order.ptx_name(),
                    scope.ptx_name()
                );
                debug_assert_eq!(space, window.name());
                if space == "shared::cluster" {
                    format!(
                        "asm volatile(\"{q} _, [%0], %1;\" :: \"r\"({}), \"r\"({}) : \"memory\");",
                        a(bar),
                        self.operand(n)
                    )
                } else {
                    format!(
                        "{{ u64 state_; asm volatile(\"{q} %0, [%1], %2;\" : \"=l\"(state_) : \"r\"({}), \"r\"({}) : \"memory\"); }}",
                        a(bar),
                        self.operand(n)
                    )
                }
            }
            // PTX ISA: "mbarrier.expect_tx{.sem}{.scope}{.space}.b64 [addr], txCount" and
            // "mbarrier.complete_tx{.sem}{.scope}{.space}.b64 [addr], txCount", .sem = .relaxed.
            AsyncOp::MbarrierExpectTx {
                bar, scope, bytes, ..
            }
            | AsyncOp::MbarrierCompleteTx {
                bar, scope, bytes, ..
            } => {
                let name = if matches!(op, AsyncOp::MbarrierExpectTx { .. }) {
                    "expect_tx"
                } else {
                    "complete_tx"
                };
                let (space, _) = self.space(tid, *bar);
                format!(
                    "asm volatile(\"mbarrier.{name}.relaxed.{}.{space}.b64 [%0], %1;\" :: \"r\"({}), \"r\"({}) : \"memory\");",
                    scope.ptx_name(),
                    a(bar),
                    self.operand(bytes)
                )
            }
            // The litmus try_wait returns once, 1 or 0; PTX's is "a potentially blocking
            // instruction which tests for the completion of the phase" and may return false when
            // its time limit runs out. The harness retries a false result up to TRY_WAIT_TRIES
            // times, so the value kept is that of the last try. Sound for the same reason as a
            // spinning reader (`Spin`): the earlier tries that returned false read the barrier
            // and returned nothing the program uses; dropping those events from a consistent
            // execution of the program with the retries leaves a consistent execution of the
            // litmus program in which its one try_wait returned what the last try did.
            AsyncOp::MbarrierTryWait {
                dst,
                bar,
                order,
                scope,
                parity,
            } => format!(
                "{{ u32 w_ = 0; for (u32 t_ = 0; t_ < TRY_WAIT_TRIES && !w_; ++t_) asm volatile(\"{{ .reg .pred p; mbarrier.try_wait.parity.{}.{}.shared::cta.b64 p, [%1], %2, %3; selp.u32 %0, 1, 0, p; }}\" : \"=r\"(w_) : \"r\"({}), \"r\"({}), \"r\"(TRY_WAIT_HINT_NS) : \"memory\"); r_{} = (int)w_; }}",
                order.ptx_name(),
                scope.ptx_name(),
                a(bar),
                self.operand(parity),
                ident(&dst.0)
            ),
            // PTX ISA, cp.async.bulk: "cp.async.bulk.dst.src.completion_mechanism [dstMem],
            // [srcMem], size, [mbar]" with .dst = .shared::cluster, .src = .global or
            // .shared::cta; and "... .global.shared::cta.bulk_group [dstMem], [srcMem], size".
            AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::Mbarrier(bar),
            } => {
                let (src_space, src_op) = self.space(tid, *src);
                let from = if src_space == "global" {
                    "global"
                } else {
                    "shared::cta"
                };
                format!(
                    "asm volatile(\"cp.async.bulk.shared::cluster.{from}.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\" :: \"r\"({}), {src_op}, \"r\"({size}u), \"r\"({}) : \"memory\");",
                    self.cluster_address(tid, *dst),
                    self.cluster_address(tid, *bar)
                )
            }
            AsyncOp::BulkCopy {
                dst,
                src,
                size,
                completion: BulkCompletion::BulkGroup,
            } => format!(
                "asm volatile(\"cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\" :: \"l\"(L{}), \"r\"({}), \"r\"({size}u) : \"memory\");",
                self.program.physical(*dst),
                a(src)
            ),
            AsyncOp::BulkCommitGroup => {
                "asm volatile(\"cp.async.bulk.commit_group;\" ::: \"memory\");".into()
            }
            AsyncOp::BulkWaitGroup { pending, read } => format!(
                "asm volatile(\"cp.async.bulk.wait_group{} {pending};\" ::: \"memory\");",
                if *read { ".read" } else { "" }
            ),
            AsyncOp::FenceMbarrierInit => {
                "asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");".into()
            }
            // PTX ISA, barrier.cluster: "barrier.cluster.arrive{.sem}{.aligned}" with .sem =
            // .release or .relaxed, "barrier.cluster.wait{.acquire}{.aligned}". The harness keeps
            // whether the thread has arrived without waiting (`cl_pending`) for its epilogue.
            AsyncOp::ClusterArrive { order } => format!(
                "asm volatile(\"barrier.cluster.arrive.{};\" ::: \"memory\"); cl_pending = 1u;",
                order.ptx_name()
            ),
            AsyncOp::ClusterWait => {
                "asm volatile(\"barrier.cluster.wait.acquire;\" ::: \"memory\"); cl_pending = 0u;"
                    .into()
            }
        }
    }

    /// A `.shared::cluster` address of a shared location: a `.shared::cta` address names the
    /// executing CTA's own memory in the cluster window too (PTX ISA, *State spaces*: "the
    /// .shared::cta window is contained in the .shared::cluster window").
    fn cluster_address(&self, _tid: ThreadId, loc: LocId) -> String {
        format!("A{}", self.program.physical(loc))
    }

    /// `cp.async.ca.shared.global [dst], [src], 4` and its group instructions (PTX ISA,
    /// *cp.async*, *cp.async.commit_group*, *cp.async.wait_group / wait_all*).
    pub(super) fn cp_async(&self, i: &Instr) -> String {
        match i {
            Instr::CpAsync { dst, src } => format!(
                "asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"(A{}), \"l\"(L{}) : \"memory\");",
                self.program.physical(*dst),
                self.program.physical(*src)
            ),
            Instr::CpAsyncCommit => "asm volatile(\"cp.async.commit_group;\" ::: \"memory\");".into(),
            Instr::CpAsyncWait { all: true, .. } => {
                "asm volatile(\"cp.async.wait_all;\" ::: \"memory\");".into()
            }
            Instr::CpAsyncWait { n, .. } => {
                format!("asm volatile(\"cp.async.wait_group {n};\" ::: \"memory\");")
            }
            _ => unreachable!("not a cp.async instruction"),
        }
    }

    /// What a thread does after its last litmus instruction so its asynchronous work is done
    /// before the block reads shared memory out and exits: wait for its `cp.async` groups and
    /// its bulk async-groups (a CTA's shared memory must outlive the copies that use it).
    pub(super) fn thread_epilogue(&mut self, tid: ThreadId) {
        let body = &self.program.threads[tid].body;
        if body
            .iter()
            .any(|s| matches!(s.instr, Instr::CpAsync { .. }))
        {
            emit!(
                self,
                "    asm volatile(\"cp.async.wait_all;\" ::: \"memory\");"
            );
        }
        if body.iter().any(|s| {
            matches!(
                s.instr,
                Instr::Async(AsyncOp::BulkCopy {
                    completion: BulkCompletion::BulkGroup,
                    ..
                })
            )
        }) {
            emit!(
                self,
                "    asm volatile(\"cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;\" ::: \"memory\");"
            );
        }
    }

    /// The block's start: the instance's shared slots get their initial values (an mbarrier
    /// declared `= mbarrier N` is initialised with `mbarrier.init`), then the whole CTA (the
    /// whole cluster in a cluster launch) meets, so every slot is initialised — and every CTA of
    /// the cluster running, as distributed shared memory needs — before any litmus thread
    /// starts. Generic writes are made visible to the async proxy first (PTX ISA, *Proxies*:
    /// "a cross-proxy fence is required").
    pub(super) fn block_prologue(&mut self) {
        if !self.shared.any() {
            return;
        }
        let p = self.program;
        emit!(
            self,
            "  extern __shared__ __align__(128) unsigned char smem[];"
        );
        emit!(
            self,
            "  const u32 sh_base = (u32)__cvta_generic_to_shared(smem);"
        );
        emit!(self, "  if (active && slot == 0u) {{");
        emit!(self, "    switch (role) {{");
        for r in 0..self.roles.len() {
            emit!(self, "    case {r}u:");
            for l in 0..p.locations.len() {
                let Some((owner, slot)) = self.shared.slot[l] else {
                    continue;
                };
                if owner != r {
                    continue;
                }
                let init = match p.locations[l].kind {
                    LocationKind::Plain { init } => init,
                    LocationKind::Alias { .. } => 0,
                };
                let addr = format!(
                    "sh_base + ({slot}u * ipb + jl) * {}u",
                    self.shared.slot_bytes
                );
                if self.shared.mbarrier[l] && init != 0 {
                    let count = MbarrierState::unpack(init).expected;
                    emit!(
                        self,
                        "      asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"({addr}), \"r\"({count}u) : \"memory\"); // {}",
                        p.locations[l].name
                    );
                } else {
                    emit!(
                        self,
                        "      asm volatile(\"st.shared::cta.v2.u64 [%0], {{%1, %2}};\" :: \"r\"({addr}), \"l\"((u64)(u32){}), \"l\"(0ull) : \"memory\"); // {}",
                        init as i32,
                        p.locations[l].name
                    );
                }
            }
            emit!(self, "      break;");
        }
        emit!(self, "    default: break;");
        emit!(self, "    }}");
        emit!(
            self,
            "    asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");"
        );
        if self.cluster.is_some() {
            emit!(
                self,
                "    asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");"
            );
        }
        emit!(self, "  }}");
        self.block_sync("release");
    }

    /// Every thread of the CTA (of the cluster, in a cluster launch) meets.
    fn block_sync(&mut self, arrive: &str) {
        if self.cluster.is_some() {
            emit!(
                self,
                "  asm volatile(\"barrier.cluster.arrive.{arrive}; barrier.cluster.wait.acquire;\" ::: \"memory\");"
            );
        } else {
            emit!(self, "  __syncthreads();");
        }
    }

    /// The block's end, after every litmus thread of the block has run: (1) the threads meet
    /// with a relaxed arrive, which stands for the litmus thread's exit (PTX ISA,
    /// barrier.cluster: the wait completes once "all non-exited threads of the cluster" arrived;
    /// an exited thread releases nothing, and neither does a relaxed arrive); a thread that
    /// arrived on the cluster barrier without waiting waits first. (2) Each instance's copies
    /// into shared memory complete: the owner waits (boundedly) for phase 0 of every mbarrier a
    /// bulk copy signals. (3) The threads meet again, releasing everything, and each instance's
    /// slot-0 thread copies its role's shared locations to their global slots, where the check
    /// kernel reads final values.
    pub(super) fn block_epilogue(&mut self) {
        if !self.shared.any() && self.cluster.is_none() {
            return;
        }
        let p = self.program;
        if self.cluster.is_some() {
            emit!(
                self,
                "  if (cl_pending) asm volatile(\"barrier.cluster.wait.acquire;\" ::: \"memory\");"
            );
            self.block_sync("relaxed");
        } else {
            self.block_sync("release");
        }
        if !self.shared.any() {
            return;
        }
        let copied: BTreeSet<usize> = p
            .threads
            .iter()
            .flat_map(|t| t.body.iter())
            .filter_map(|s| match &s.instr {
                Instr::Async(AsyncOp::BulkCopy {
                    completion: BulkCompletion::Mbarrier(b),
                    ..
                }) => Some(p.physical(*b)),
                _ => None,
            })
            .collect();
        emit!(self, "  if (slot == 0u) {{");
        emit!(self, "    switch (role) {{");
        for r in 0..self.roles.len() {
            emit!(self, "    case {r}u:");
            for l in 0..p.locations.len() {
                let Some((owner, slot)) = self.shared.slot[l] else {
                    continue;
                };
                if owner != r || !copied.contains(&l) {
                    continue;
                }
                let addr = format!(
                    "sh_base + ({slot}u * ipb + jl) * {}u",
                    self.shared.slot_bytes
                );
                emit!(
                    self,
                    "      for (u32 t_ = 0; t_ < {}u; ++t_) {{ u32 w_; asm volatile(\"{{ .reg .pred p; mbarrier.test_wait.parity.relaxed.cta.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }}\" : \"=r\"(w_) : \"r\"({addr}) : \"memory\"); if (w_) break; __nanosleep(100); }} // {}",
                    COPY_WAIT_POLLS,
                    p.locations[l].name
                );
            }
            emit!(self, "      break;");
        }
        emit!(self, "    default: break;");
        emit!(self, "    }}");
        emit!(self, "  }}");
        self.block_sync("release");
        emit!(self, "  if (slot == 0u) {{");
        emit!(
            self,
            "    asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");"
        );
        emit!(self, "    switch (role) {{");
        for r in 0..self.roles.len() {
            emit!(self, "    case {r}u:");
            for l in 0..p.locations.len() {
                let Some((owner, slot)) = self.shared.slot[l] else {
                    continue;
                };
                if owner != r || self.shared.mbarrier[l] {
                    continue;
                }
                emit!(
                    self,
                    "      {{ u32 v_; asm volatile(\"ld.shared::cta.u32 %0, [%1];\" : \"=r\"(v_) : \"r\"(sh_base + ({slot}u * ipb + jl) * {}u) : \"memory\"); *L{l} = v_; }} // {}",
                    self.shared.slot_bytes,
                    p.locations[l].name
                );
            }
            emit!(self, "      break;");
        }
        emit!(self, "    default: break;");
        emit!(self, "    }}");
        emit!(self, "  }}");
    }

    /// The permutation key of a role's instances: in a cluster launch every role of one
    /// hardware cluster numbers its instances alike, so that an instance's CTAs are the blocks
    /// of one cluster.
    pub(super) fn instance_key(&self) -> String {
        match self.cluster {
            Some(c) => {
                let mut s = String::from("(");
                for (r, _) in self.roles.iter().enumerate() {
                    let _ = write!(s, "role == {r}u ? {}u : ", cluster_index(c, r));
                }
                s.push_str("0u)");
                s
            }
            None => "role".into(),
        }
    }
}
