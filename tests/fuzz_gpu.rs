//! The `gpu` fuzz target's programs are all ones the GPU harness can run (no GPU needed here:
//! only the CUDA code generation is exercised).

use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};

#[test]
fn every_gpu_fuzz_program_has_a_harness() {
    for seed in 0..500 {
        let p = from_seed_with(seed, &Limits::gpu());
        assert!(p
            .threads
            .iter()
            .all(|t| t.placement.gpu == 0 && t.placement.cluster.is_none()));
        if let Err(e) = scopecheck_gpu::codegen::generate(&p) {
            panic!(
                "seed {seed}: {}\n{}",
                e.0,
                scopecheck_model::litmus::print(&p)
            );
        }
    }
}
