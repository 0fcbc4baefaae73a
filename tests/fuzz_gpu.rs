//! The `gpu` fuzz target's programs are all ones the GPU harness can run (no GPU needed here:
//! only the CUDA code generation is exercised), warp-level instructions included.

use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::litmus::warp::{WarpOp, WarpPart};
use scopecheck_model::litmus::Instr;
use std::collections::BTreeSet;

// Enough seeds that every warp form shows: under the GPU limits (10 events) a two-lane
// `match` (4 instructions a lane) fits rarely, and one exchange in 17 is each `match` form.
const SEEDS: u64 = 40_000;

#[test]
fn every_gpu_fuzz_program_has_a_harness() {
    let mut warp_forms = BTreeSet::new();
    let mut warp_programs = 0;
    for seed in 0..SEEDS {
        let p = from_seed_with(seed, &Limits::gpu());
        assert!(p
            .threads
            .iter()
            .all(|t| t.placement.gpu == 0 && t.placement.cluster.is_none()));
        let harness = scopecheck_gpu::codegen::generate(&p).unwrap_or_else(|e| {
            panic!(
                "seed {seed}: {}\n{}",
                e.0,
                scopecheck_model::litmus::print(&p)
            )
        });
        assert_eq!(harness.warp_lanes, p.uses_warps(), "seed {seed}");
        warp_programs += usize::from(p.uses_warps());
        for s in p.threads.iter().flat_map(|t| &t.body) {
            match (&s.warp, &s.instr) {
                (Some(WarpPart::Start(WarpOp::Shfl { mode, .. })), _) => {
                    warp_forms.insert(format!("shfl.sync.{}", mode.name()))
                }
                (Some(WarpPart::Start(WarpOp::Vote { mode, .. })), _) => {
                    warp_forms.insert(format!("vote.sync.{}", mode.name()))
                }
                (Some(WarpPart::Start(WarpOp::Match { all, .. })), _) => {
                    warp_forms.insert(format!("match.{}.sync", if *all { "all" } else { "any" }))
                }
                (None, Instr::WarpSync { .. }) => warp_forms.insert("bar.warp.sync".to_string()),
                _ => false,
            };
        }
    }
    let want = [
        "bar.warp.sync",
        "shfl.sync.idx",
        "shfl.sync.bfly",
        "shfl.sync.down",
        "shfl.sync.up",
        "vote.sync.all",
        "vote.sync.any",
        "vote.sync.ballot",
        "vote.sync.uni",
        "match.any.sync",
        "match.all.sync",
    ];
    for form in want {
        assert!(
            warp_forms.contains(form),
            "no GPU fuzz program of {SEEDS} has {form} (seen: {warp_forms:?}, {warp_programs} warp programs)"
        );
    }
}
