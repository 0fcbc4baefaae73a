//! Bounds on the generated programs: how many threads, instructions and locations, and which
//! features (clusters, barriers, warps, async copies, mbarriers, ...) may appear.

/// Bounds on the generated programs' size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The fewest threads a program gets.
    pub min_threads: usize,
    /// The most threads a program gets.
    pub max_threads: usize,
    /// Instructions per thread (at least one each).
    pub max_instrs: usize,
    /// The most memory locations a program declares.
    pub max_locations: usize,
    /// Instructions in the whole program: exhaustive engines pay exponentially for each one.
    pub max_events: usize,
    /// `add`/`sub` read-modify-writes in the whole program. Each one makes new values out of
    /// old ones, and engines that guess the values loads return pay for every value reachable.
    pub max_arith_rmws: usize,
    /// Whether an `add`/`sub` may take its operand from a register (a value loaded earlier), which
    /// lets values multiply fastest.
    pub arith_register_operands: bool,
    /// Threads may run on a second GPU (reached only by `.sys`).
    pub multi_gpu: bool,
    /// Pairs of CTAs may share a cluster.
    pub clusters: bool,
    /// The threads of one CTA may meet at a `bar.cta.sync`.
    pub barriers: bool,
    /// Loads may be `ld.global.nc` (through the non-coherent texture path) of locations no
    /// instruction writes.
    pub noncoherent: bool,
    /// Lanes of one CTA's warp may meet at a `bar.warp.sync` over a member mask, and two lanes
    /// may exchange a value by `shfl.sync` or `vote.sync`.
    pub warps: bool,
    /// Threads may copy one location into another with `cp.async`, committing groups and
    /// waiting for them (`cp.async.commit_group`, `cp.async.wait_group n`,
    /// `cp.async.wait_all`).
    pub cp_async: bool,
    /// An mbarrier in one CTA's shared memory that threads of its cluster arrive on (remotely
    /// through `.shared::cluster`), expect and complete transaction bytes on, and threads of its
    /// CTA try_wait on.
    pub mbarriers: bool,
    /// A location only the threads of one cluster access may lie in the shared memory of one of
    /// its CTAs (the others reach it through `.shared::cluster`).
    pub shared_memory: bool,
    /// With an mbarrier: bulk copies (`cp.async.bulk...mbarrier::complete_tx::bytes`) of a
    /// global location into the barrier CTA's shared memory, and `fence.proxy.async{,.global,
    /// .shared::cta,.shared::cluster}`.
    pub bulk_copies: bool,
    /// With clusters: the threads of one cluster meet at the cluster barrier
    /// (`barrier.cluster.arrive{.release,.relaxed}` / `barrier.cluster.wait.acquire`), some
    /// arriving without waiting, some only on one branch, some not at all.
    pub cluster_barriers: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            min_threads: 2,
            max_threads: 4,
            max_instrs: 4,
            max_locations: 3,
            max_events: 16,
            max_arith_rmws: 2,
            arith_register_operands: true,
            multi_gpu: true,
            clusters: true,
            barriers: true,
            noncoherent: true,
            warps: true,
            cp_async: true,
            mbarriers: true,
            shared_memory: true,
            bulk_copies: true,
            cluster_barriers: true,
        }
    }
}

impl Limits {
    /// Programs both engines answer in milliseconds, for the engine differential: at most six
    /// instructions and one `add`/`sub`, with a constant operand. Arithmetic multiplies the
    /// distinct values the axiomatic engine computes along reads-from and the executions the
    /// runtime explores; `scopecheck fuzz --arith N --arith-registers --max-events N` widens this.
    pub fn differential() -> Limits {
        Limits {
            max_events: 6,
            max_arith_rmws: 1,
            arith_register_operands: false,
            ..Limits::default()
        }
    }

    /// The differential's programs, within what the GPU harness runs: one GPU, no clusters, no
    /// barriers (many test instances share a block). Warp-level instructions stay (the harness
    /// runs them on adjacent lanes of one warp), with room for the two lanes of a `vote.sync` or
    /// `match.sync` beside one instruction each: only the axiomatic engine judges these programs,
    /// and ten instructions keep it at milliseconds.
    pub fn gpu() -> Limits {
        Limits {
            max_events: 10,
            multi_gpu: false,
            clusters: false,
            barriers: false,
            noncoherent: false,
            // The harness has no shared-memory destination for a `cp.async`.
            cp_async: false,
            mbarriers: false,
            shared_memory: false,
            bulk_copies: false,
            cluster_barriers: false,
            ..Limits::differential()
        }
    }
}
