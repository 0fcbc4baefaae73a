//! Tests of `tune`.

use rand::SeedableRng;
use scopecheck_gpu::runner::Params;
use scopecheck_gpu::tune::*;
use std::path::{Path, PathBuf};

#[test]
fn budgets_round_up_to_whole_launches() {
    assert_eq!(launches_for(100_000_000, 16), 1526);
    assert_eq!(launches_for(1, 16), 1);
    assert_eq!(launches_for(1 << 20, 18), 4);
}

#[test]
fn env_files_sit_beside_the_test() {
    assert_eq!(
        env_path(Path::new("a/b/MP-relaxed.litmus")),
        PathBuf::from("a/b/MP-relaxed.env.json")
    );
}

#[test]
fn samples_stay_in_range_and_try_spins_only_when_there_are_spinning_readers() {
    let src = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;\n st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    let p = scopecheck_model::litmus::parse(src, "mp.litmus").unwrap();
    let h = scopecheck_gpu::codegen::generate(&p).unwrap();
    assert_eq!(h.spins.len(), 1, "P1 spins on y until it reads 1");
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let base = Params::default();
    let mut spun = false;
    for _ in 0..200 {
        let s = sample(&mut rng, &base, &h);
        assert!((14..=18).contains(&s.instances_log2));
        assert!(s.per_block_log2 <= 7 && s.stress_pattern < 4);
        assert!(s.occupancy_smem <= scopecheck_gpu::runner::MAX_OCCUPANCY_SMEM);
        assert_eq!(s.seed, base.seed);
        spun |= s.spin_bound > 0;
    }
    assert!(spun);
    let mut no_spin = h.clone();
    no_spin.spins.clear();
    assert!((0..50).all(|_| sample(&mut rng, &base, &no_spin).spin_bound == 0));
}
