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
pub mod alu;
mod asyncops;
pub mod ctabar;
mod emit;
mod gen;
mod harness;
pub mod layout;
mod observe;
pub mod shared;
mod support;
mod unsupported;

pub use self::harness::{Harness, Observable, Spin, Unsupported};
pub use self::layout::{
    value_bits, CHECK_KERNEL, MAX_OBSERVABLES, STEP_LIMIT, TABLE_SLOTS, TAG_SPIN, TAG_STATE,
    TAG_TIMEOUT, TAG_WIDE, TEST_KERNEL,
};
pub use self::observe::{observables, spins};
pub use self::shared::{ClusterShape, SharedMap};

use self::gen::Gen;
use self::observe::saved_registers;
use self::shared::{cluster_shape, shared_map};
use self::support::{check_shared, check_supported, roles};
use crate::host::HostThread;
use scopecheck_model::litmus::async_ops::AsyncOp;
use scopecheck_model::litmus::{Instr, LocId, Program};

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
    let shared = shared_map(program, &roles)?;
    let cluster = cluster_shape(program, &roles)?;
    check_shared(program, &shared, &observables)?;
    let bars = ctabar::cta_barriers(program, &roles)?;
    if bars.any() && warp_lanes {
        return Err(Unsupported(
            "CTA barriers and warp-level instructions in one program (a barrier needs each litmus \
             thread in a warp of its own, a warp-level instruction its CTA's threads in one warp)"
                .into(),
        ));
    }
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
    let warp_per_thread = bars.any()
        || program.threads.iter().any(|t| {
            t.body.iter().any(|s| {
                matches!(
                    s.instr,
                    Instr::Async(AsyncOp::ClusterArrive { .. } | AsyncOp::ClusterWait)
                )
            })
        });
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
        shared: &shared,
        cluster: cluster.as_ref(),
        bars: &bars,
        warp_per_thread,
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
        shared,
        cluster,
        cta_barriers: bars,
        warp_per_thread,
    })
}
