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

mod emit;
mod observe;
mod support;

pub use self::observe::{observables, spins};

use self::emit::Gen;
use self::observe::saved_registers;
use self::support::{check_supported, roles};
use crate::host::HostThread;
use scopecheck_model::litmus::{Instr, LocId, Program, Reg, ThreadId};
use std::fmt;

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
