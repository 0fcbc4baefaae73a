//! The Hopper TMA + mbarrier pipeline of `mbarrier-pipeline-phase-bug.zh.md`, and the classic
//! mbarrier mistakes around it.
//!
//! The document's kernel loads point `p` into stage `p % STAGES` with a bulk copy (TMA) that
//! completes on that stage's mbarrier, and waits on the barrier before reading the stage. It
//! works with STAGES = 1 and reads garbage with STAGES = 2. The document blames a "hardware
//! ping-pong buffer per phase" that a reused barrier's copy would write to the wrong half of.
//! No such thing exists: an mbarrier is a counter with a current phase, a bulk copy writes
//! exactly its destination and then performs `complete_tx` on whatever phase is current, and
//! `try_wait.parity p` answers one question — has the phase with parity `p` completed, i.e. is
//! the current phase's parity different from `p`?
//!
//! What goes wrong, as the model's trace shows it: the wait parity is taken from the point index
//! (`p & 1`). That flips on every point, which is right only when every point reuses the same
//! barrier (STAGES = 1). With STAGES = 2, stage `s` serves points `s, s+2, s+4, …`, so its
//! parity `p & 1 = s` never flips: point 1 waits on the fresh stage-1 barrier (phase 0) for
//! parity 1, and since the current parity 0 differs from 1 the wait succeeds at once — reading
//! the stage before (or while) the copy fills it, a data race with the copy's writes. If the
//! copy happens to land first, phase 0 completes, the current parity becomes 1 and the same
//! wait now blocks for a phase nobody will complete: a hang. Which one the hardware shows is a
//! matter of TMA latency (usually the garbage); the checker finds both.
//!
//! The document's four fixes: (1) one barrier per point — right: every barrier completes one
//! phase, so parity 0 is always the right one; (2) "double-buffered barriers"
//! `bars[stage][iteration % 2]` — wrong: with STAGES = 2 the extra index equals the stage
//! index, so each stage still reuses one barrier with the same non-flipping parity (the model
//! shows the same failure); (3) explicit phase management — right in spirit, but not as
//! written: PTX's mbarrier instructions (init, arrive, expect_tx, complete_tx, test_wait,
//! try_wait, pending_count, inval) have no `get_phase`, and a bulk copy has no phase operand to
//! "issue the TMA with". Keep a phase bit per pipeline and flip it whenever the stage index
//! wraps, as CUTLASS's `PipelineState` does, and wait on that parity (or wait on the token
//! `arrive` returns); (4) STAGES = 1 — right, at the cost of the overlap the pipeline was for.
//! Fix 1 also needs the wait parity to become 0: kept at `p & 1`, odd points still wait on a
//! fresh barrier with parity 1, which answers at once.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::check;
use scopecheck_model::kernel::*;

const SEED: &str = "mbarrier-pipeline-phase-bug.zh.md";
/// Elements per point (one 4-byte element keeps the DFS exhaustive).
pub const ELEMS: usize = 1;
pub const BYTES: u64 = 4 * ELEMS as u64;

/// How the consumer picks the parity it waits for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Parity {
    /// `p & 1`: flips every point — correct only when every point reuses one barrier.
    OfPoint,
    /// A phase bit flipped when the stage index wraps (CUTLASS `PipelineState`).
    PhaseBit,
    /// Always 0: the only phase of a barrier that is never reused.
    FirstPhase,
}

/// Which barrier a point uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Barriers {
    /// `bars[p % STAGES]`.
    PerStage,
    /// `bars[p]`: never reused (the document's fix 1).
    PerPoint,
    /// `bars[p % STAGES][p % 2]` (the document's fix 2).
    DoubleBuffered,
}

/// The document's kernel, one warp reduced to one thread that loads and consumes: prologue
/// loads `STAGES - 1` points; iteration `p` prefetches point `p + STAGES - 1`, then waits for
/// point `p` and copies it to `out[p]`.
pub fn seed_pipeline(
    stages: usize,
    points: usize,
    parity: Parity,
    barriers: Barriers,
) -> (Kernel, Body) {
    let mut k = Kernel::new("tma_pipeline", Grid::new(1, 1));
    let input: Vec<i32> = (0..points * ELEMS).map(|i| 100 + i as i32).collect();
    let src = k.global_from::<i32>("src", &input);
    let out = k.global::<i32>("out", points * ELEMS);
    let tile = k.shared::<i32>("tile", stages * ELEMS);
    let nbars = match barriers {
        Barriers::PerStage => stages,
        Barriers::PerPoint => points,
        Barriers::DoubleBuffered => stages * 2,
    };
    let bars = k.mbarriers("bar", nbars);
    let expected = input.clone();
    k.postcondition("out == src", move |m| {
        (0..expected.len()).all(|i| m.get(&out, i) == expected[i])
    });
    let bar_of = move |p: usize| match barriers {
        Barriers::PerStage => bars.at(p % stages),
        Barriers::PerPoint => bars.at(p),
        Barriers::DoubleBuffered => bars.at((p % stages) * 2 + p % 2),
    };
    let body = threads(move |t| {
        for b in 0..bars.len() {
            bars.at(b).init(t, 1);
        }
        let issue = |p: usize| {
            let bar = bar_of(p);
            bar.arrive_expect_tx(t, BYTES);
            t.bulk_copy_global_to_shared(&tile, (p % stages) * ELEMS, &src, p * ELEMS, BYTES, &bar);
        };
        for p in 0..stages - 1 {
            if p < points {
                issue(p);
            }
        }
        let mut phase = 0;
        for p in 0..points {
            if p + stages - 1 < points {
                issue(p + stages - 1);
            }
            let stage = p % stages;
            let wait_parity = match parity {
                Parity::OfPoint => (p & 1) as u32,
                Parity::PhaseBit => phase,
                Parity::FirstPhase => 0,
            };
            bar_of(p).wait_parity(t, wait_parity);
            for i in 0..ELEMS {
                let v = t.load(&tile, stage * ELEMS + i);
                t.store(&out, p * ELEMS + i, v);
            }
            // The stage is refilled by a later bulk copy: its generic reads need a proxy fence
            // before that copy's async-proxy write (PTX ISA, Proxies: "Accessing the same
            // memory location across multiple proxies needs a cross-proxy fence").
            t.fence_proxy_async();
            if stage == stages - 1 {
                phase ^= 1;
            }
        }
    });
    (k, body)
}

/// A CUTLASS-style warp-specialized pipeline: thread 0 produces (waits `empty`, arrives on
/// `full` with the expected bytes, issues the copy), thread 1 consumes (waits `full`, reads,
/// arrives on `empty`). Both keep a (stage, phase) state that flips the phase when the stage
/// wraps; the producer's phase starts at `producer_start` (1 in CUTLASS: a fresh `empty`
/// barrier counts as released). `expect_extra` bytes are expected beyond what is copied.
pub fn cutlass_pipeline(
    stages: usize,
    points: usize,
    producer_start: u32,
    expect_extra: u64,
) -> (Kernel, Body) {
    let mut k = Kernel::new("cutlass_pipeline", Grid::new(1, 2));
    let input: Vec<i32> = (0..points * ELEMS).map(|i| 100 + i as i32).collect();
    let src = k.global_from::<i32>("src", &input);
    let tile = k.shared::<i32>("tile", stages * ELEMS);
    let full = k.mbarriers("full", stages);
    let empty = k.mbarriers("empty", stages);
    let body = threads(move |t| {
        if t.tid() == 0 {
            for s in 0..stages {
                full.at(s).init(t, 1);
                empty.at(s).init(t, 1);
            }
        }
        t.syncthreads();
        let (mut stage, mut phase) = (0, if t.tid() == 0 { producer_start } else { 0 });
        for p in 0..points {
            if t.tid() == 0 {
                // producer_acquire: wait until the consumer released the stage.
                empty.at(stage).wait_parity(t, phase);
                let bar = full.at(stage);
                bar.arrive_expect_tx(t, BYTES + expect_extra);
                t.bulk_copy_global_to_shared(&tile, stage * ELEMS, &src, p * ELEMS, BYTES, &bar);
            } else {
                // consumer_wait, read, consumer_release.
                full.at(stage).wait_parity(t, phase);
                for i in 0..ELEMS {
                    let v = t.load(&tile, stage * ELEMS + i);
                    check!(
                        v == input[p * ELEMS + i],
                        "point {p} read {v} from stage {stage}"
                    );
                }
                // consumer_release: fence.proxy.async first, so that the producer's next bulk
                // copy into the stage is ordered after these generic reads (the fix DeepEP
                // #642, nccl-extensions #8 and TransformerEngine #2695 add).
                t.fence_proxy_async();
                empty.at(stage).arrive(t);
            }
            stage += 1;
            if stage == stages {
                stage = 0;
                phase ^= 1;
            }
        }
    });
    (k, body)
}

/// Arriving on a barrier whose phase already has all its arrivals (two arrives, count 1, while
/// the expected bytes are still missing).
fn arrive_past_count() -> (Kernel, Body) {
    let mut k = Kernel::new("arrive_past_count", Grid::new(1, 1));
    let bars = k.mbarriers("bar", 1);
    let body = threads(move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        bar.expect_tx(t, 4);
        bar.arrive(t);
        bar.arrive(t);
    });
    (k, body)
}

/// Waiting with a token two phases old.
fn stale_token(phases_behind: u32) -> (Kernel, Body) {
    let mut k = Kernel::new("stale_token", Grid::new(1, 1));
    let bars = k.mbarriers("bar", 1);
    let body = threads(move |t| {
        let bar = bars.at(0);
        bar.init(t, 1);
        let first = bar.arrive(t);
        for _ in 0..phases_behind.saturating_sub(1) {
            bar.arrive(t);
        }
        bar.try_wait(t, first);
    });
    (k, body)
}

/// Thread 0 re-initialises the barrier while thread 1 may still be waiting on it.
fn init_while_in_use(wait_first: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("init_while_in_use", Grid::new(1, 2));
    let bars = k.mbarriers("bar", 1);
    let body = threads(move |t| {
        let bar = bars.at(0);
        if t.tid() == 0 {
            bar.init(t, 2);
        }
        t.syncthreads();
        bar.arrive(t);
        bar.wait_parity(t, 0);
        if wait_first {
            // Everyone is past the phase: a re-init is safe.
            t.syncthreads();
        }
        if t.tid() == 0 {
            bar.init(t, 1);
        }
    });
    (k, body)
}

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "mbarrier/seed-stages-1",
            source: SEED,
            about: "The document's TMA pipeline with STAGES = 1: one barrier, reused for every \
                    point, waited on with parity p & 1 — which is the barrier's phase parity, so \
                    every wait covers its own copy.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || seed_pipeline(1, 3, Parity::OfPoint, Barriers::PerStage),
        },
        BugCase {
            name: "mbarrier/seed-stages-2-stale-parity",
            source: SEED,
            about: "STAGES = 2 with wait parity p & 1: stage 1's barrier is waited on with parity \
                    1 while still in phase 0, which try_wait.parity reports as completed (the \
                    current parity differs), so the thread reads the stage while the bulk copy \
                    fills it: a data race (or, if the copy lands first, a wait on a phase no one \
                    completes: a hang). Not a per-phase ping-pong buffer: the parity never \
                    flips for a reused stage.",
            expect: Expect::FailsWith(&[FailureKind::DataRace, FailureKind::Hang]),
            explore: Explore::Exhaustive,
            build: || seed_pipeline(2, 3, Parity::OfPoint, Barriers::PerStage),
        },
        BugCase {
            name: "mbarrier/seed-fix-1-barrier-per-point",
            source: SEED,
            about: "The document's fix 1: one barrier per point, each completing exactly one \
                    phase, waited on with parity 0.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || seed_pipeline(2, 3, Parity::FirstPhase, Barriers::PerPoint),
        },
        BugCase {
            name: "mbarrier/seed-fix-1-keeping-point-parity",
            source: SEED,
            about: "Fix 1 with the old wait parity p & 1 kept: point 1's fresh barrier (phase 0) \
                    waited on with parity 1 answers at once, so the fix works only together with \
                    parity 0.",
            expect: Expect::FailsWith(&[FailureKind::DataRace, FailureKind::Hang]),
            explore: Explore::Exhaustive,
            build: || seed_pipeline(2, 3, Parity::OfPoint, Barriers::PerPoint),
        },
        BugCase {
            name: "mbarrier/seed-fix-2-double-buffered-barriers",
            source: SEED,
            about: "The document's fix 2, bars[stage][iteration % 2]: with STAGES = 2 the extra \
                    index equals the stage index, so each stage still reuses one barrier with a \
                    parity that never flips: the same failure.",
            expect: Expect::FailsWith(&[FailureKind::DataRace, FailureKind::Hang]),
            explore: Explore::Exhaustive,
            build: || seed_pipeline(2, 3, Parity::OfPoint, Barriers::DoubleBuffered),
        },
        BugCase {
            name: "mbarrier/seed-fix-3-phase-bit",
            source: SEED,
            about: "Fix 3 done right: a phase bit flipped whenever the stage index wraps (CUTLASS \
                    PipelineState), used as the wait parity.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || seed_pipeline(2, 3, Parity::PhaseBit, Barriers::PerStage),
        },
        BugCase {
            name: "mbarrier/cutlass-full-empty",
            source: SEED,
            about: "A CUTLASS-style warp-specialized pipeline (full and empty barriers, producer \
                    phase starting at 1): every stage is refilled only after the consumer \
                    released it, and read only after its copy completed. (Three engine threads \
                    and two reused stages are past exhaustive search; model/tests/kernel_mbarrier.rs \
                    verifies smaller shapes exhaustively.)",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Sampled { iterations: 1000 },
            build: || cutlass_pipeline(2, 3, 1, 0),
        },
        BugCase {
            name: "mbarrier/cutlass-producer-wrong-start-phase",
            source: SEED,
            about: "The producer's phase starts at 0: it waits for the fresh empty barrier's \
                    phase 0 to complete, which needs the consumer, which waits for a full \
                    barrier no one fills: a hang, every thread blocked for good.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Exhaustive,
            build: || cutlass_pipeline(2, 3, 0, 0),
        },
        BugCase {
            name: "mbarrier/cutlass-expect-tx-mismatch",
            source: SEED,
            about: "The producer expects 4 bytes more than the copy delivers: the full barrier's \
                    tx-count never returns to 0, its phase never completes: a hang (the consumer waits on it again and again).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Exhaustive,
            build: || cutlass_pipeline(2, 3, 1, 4),
        },
        BugCase {
            name: "mbarrier/arrive-past-count",
            source: SEED,
            about: "Two arrives on a barrier initialised for one, while the phase still waits for \
                    its bytes: the second arrive exceeds the phase's count.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::MBarrierMisuse)),
            explore: Explore::Exhaustive,
            build: arrive_past_count,
        },
        BugCase {
            name: "mbarrier/wait-two-phases-behind",
            source: SEED,
            about: "try_wait with the token of phase 0 once the barrier is in phase 2: outside \
                    the valid window (current and immediately preceding phase).",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::MBarrierMisuse)),
            explore: Explore::Exhaustive,
            build: || stale_token(2),
        },
        BugCase {
            name: "mbarrier/wait-one-phase-behind",
            source: SEED,
            about: "try_wait with the token of the immediately preceding phase: valid, and true.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || stale_token(1),
        },
        BugCase {
            name: "mbarrier/init-while-in-use",
            source: SEED,
            about: "Thread 0 re-initialises the barrier right after its own wait, while thread 1 \
                    may not have arrived yet.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::MBarrierMisuse)),
            explore: Explore::Exhaustive,
            build: || init_while_in_use(false),
        },
        BugCase {
            name: "mbarrier/init-after-everyone-is-done",
            source: SEED,
            about: "The same re-init after a syncthreads that every thread reaches after its \
                    wait: the barrier is idle, the re-init is fine.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || init_while_in_use(true),
        },
    ]
}
