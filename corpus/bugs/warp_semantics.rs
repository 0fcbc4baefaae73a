//! Warp semantics as PTX defines them (issue 29 item 3): `activemask` gives the lanes executing
//! it together one set, so cooperative groups' `coalesced_threads()` idiom is correct; the
//! exchanges (`vote/shfl/match.sync`) wait only for the non-exited lanes of their mask, so a lane
//! that returned early does not break a full-mask vote; and only `bar.warp.sync` (`__syncwarp`)
//! orders memory, so shared-memory writes "published" by a `__ballot_sync` race with the reads
//! after it. The semantics (and the sentences they rest on) are in `model/src/runtime/warp/`.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::kernel::*;

const ACTIVEMASK: &str = "PTX ISA: activemask; CUDA Programming Guide: Cooperative Groups \
                          (coalesced_threads, atomicAggInc)";
const EXITED: &str = "PTX ISA: vote.sync, shfl.sync (\"all non-exited threads corresponding to \
                      membermask\"); CUDA Programming Guide: __syncwarp";
const ORDERING: &str = "PTX ISA: bar.warp.sync (\"also guarantee memory ordering among threads \
                        participating in barrier\"), vote.sync";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "warp/coalesced-atomic-agg-inc",
            source: ACTIVEMASK,
            about: "NVIDIA's atomicAggInc on a coalesced group, reached after a divergent \
                    branch: the group is __activemask(), its leader (lowest lane) adds \
                    the group's size and __shfl_sync over the group broadcasts the old value. \
                    The lanes executing one activemask together get the same mask, so every \
                    group's shuffle meets, and every lane gets a distinct ticket.",
            expect: Expect::Verdict(Verdict::Pass),
            // Not loom: it cannot enumerate which lanes form an activemask group (a runtime
            // choice, not a load), so its run would be bounded, and it did not end in 20 minutes.
            explore: Explore::Dfs,
            build: atomic_agg_inc,
        },
        BugCase {
            name: "warp/vote-after-early-return",
            source: EXITED,
            about: "Lane 2 returns early; lanes 0 and 1 vote with __ballot_sync over the full \
                    warp mask. The vote waits for the non-exited lanes of the mask only, so it \
                    is neither misuse nor divergence, and the ballot holds their bits.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: vote_after_early_return,
        },
        BugCase {
            name: "warp/syncwarp-lanes-exited",
            source: EXITED,
            about: "__syncwarp(full mask) inside `if (lane < 2)`, the other lane exits: \
                    __syncwarp waits for the non-exited lanes named in the mask, so the two \
                    lanes meet and each reads what the other wrote before it.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || divergent_syncwarp(false),
        },
        BugCase {
            name: "warp/syncwarp-in-divergent-branch",
            source: EXITED,
            about: "__syncwarp(full mask) inside `if (lane < 2)` while the other lane, in the \
                    else branch, waits at __syncthreads: each side waits for the other forever.",
            expect: Expect::FailsWith(&[
                FailureKind::BarrierDivergence,
                FailureKind::Hang,
                FailureKind::WarpMisuse,
            ]),
            explore: Explore::Exhaustive,
            build: || divergent_syncwarp(true),
        },
        BugCase {
            name: "warp/ballot-as-barrier",
            source: ORDERING,
            about: "Each lane writes its shared slot, then __ballot_sync over the warp, then \
                    reads its neighbour's slot. The ballot waits for the lanes but orders no \
                    memory (PTX grants that to bar.warp.sync alone): a data race.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || ballot_publish(false),
        },
        BugCase {
            name: "warp/ballot-then-syncwarp",
            source: ORDERING,
            about: "The same with __syncwarp after the ballot: the barrier orders the writes \
                    before the reads.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || ballot_publish(true),
        },
    ]
}

/// CUDA's `atomicAggInc(ctr)` on `coalesced_threads()`: the group is the active mask, its
/// leader its lowest lane, each lane's ticket the old value plus its rank in the group.
fn atomic_agg_inc_at(t: &ThreadCtx, ctr: &Global<u32>) -> u32 {
    let lane = t.lane();
    let group = t.activemask();
    let leader = group.trailing_zeros();
    let rank = (group & ((1u32 << lane) - 1)).count_ones();
    let mut old = 0;
    if lane == leader {
        old = t.atomic_add(
            ctr,
            0,
            group.count_ones(),
            MemoryOrder::Relaxed,
            MemoryScope::Device,
        );
    }
    t.shfl_sync(group, old, leader) + rank
}

fn atomic_agg_inc() -> (Kernel, Body) {
    const LANES: u32 = 3;
    let mut k = Kernel::new("atomic_agg_inc", Grid::new(1, LANES).with_warp_size(LANES));
    let ctr = k.global::<u32>("ctr", 1);
    let out = k.global::<u32>("out", LANES as usize);
    k.postcondition("ctr == 3 and the tickets are 0, 1, 2", move |m| {
        let mut tickets: Vec<u32> = (0..LANES as usize).map(|i| m.get(&out, i)).collect();
        tickets.sort_unstable();
        m.get(&ctr, 0) == LANES && tickets == [0, 1, 2]
    });
    let note = k.global::<u32>("note", 1);
    let body = threads(move |t| {
        // A divergent branch first: lane 0 arrives at the activemask later than the others
        // (or not: the engine explores both).
        if t.lane() == 0 {
            t.store(&note, 0, 1);
        }
        let ticket = atomic_agg_inc_at(t, &ctr);
        t.store(&out, t.lane() as usize, ticket);
    });
    (k, body)
}

fn vote_after_early_return() -> (Kernel, Body) {
    const LANES: u32 = 3;
    let mut k = Kernel::new(
        "vote_early_return",
        Grid::new(1, LANES).with_warp_size(LANES),
    );
    let out = k.global::<u32>("out", 2);
    k.postcondition("both ballots are 0b10", move |m| {
        m.get(&out, 0) == 0b10 && m.get(&out, 1) == 0b10
    });
    let body = threads(move |t| {
        if t.lane() == 2 {
            return;
        }
        let b = t.ballot_sync(t.warp_mask(), t.lane() == 1);
        t.store(&out, t.lane() as usize, b);
    });
    (k, body)
}

fn divergent_syncwarp(other_branch_waits: bool) -> (Kernel, Body) {
    const LANES: u32 = 3;
    let mut k = Kernel::new(
        "syncwarp_divergent",
        Grid::new(1, LANES).with_warp_size(LANES),
    );
    let s = k.shared::<i32>("s", LANES as usize);
    let body = threads(move |t| {
        let lane = t.lane() as usize;
        if lane < 2 {
            t.store(&s, lane, 1);
            t.syncwarp(t.warp_mask());
            scopecheck_model::check!(t.load(&s, 1 - lane) == 1);
        } else if other_branch_waits {
            t.syncthreads();
        }
    });
    (k, body)
}

fn ballot_publish(syncwarp: bool) -> (Kernel, Body) {
    const LANES: u32 = 2;
    let mut k = Kernel::new("ballot_publish", Grid::new(1, LANES).with_warp_size(LANES));
    let s = k.shared::<i32>("s", LANES as usize);
    let body = threads(move |t| {
        let lane = t.lane() as usize;
        t.store(&s, lane, lane as i32 + 1);
        let _ = t.ballot_sync(t.warp_mask(), true);
        if syncwarp {
            t.syncwarp(t.warp_mask());
        }
        let _ = t.load(&s, 1 - lane);
    });
    (k, body)
}
