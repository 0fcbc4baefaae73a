//! `scopecheck fuzz --gpu --save DIR --programs N`: the GPU fuzzer's programs, written for
//! `scopecheck gpu`, each checked against the harness generator first.

use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::litmus::{print, Program};
use std::path::Path;
use std::process::ExitCode;

/// Why the GPU harness generator refuses `p`, if it does.
#[cfg(feature = "gpu")]
fn harness_refuses(p: &Program) -> Result<(), String> {
    scopecheck_gpu::codegen::generate(p)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// `--gpu`: the GPU fuzzer's programs of seeds `first ..` into `dir`, each checked against the
/// harness generator (which refuses what the GPU cannot run as the model judges it).
pub fn programs(first: u64, n: u64, dir: &Path) -> ExitCode {
    #[cfg(not(feature = "gpu"))]
    {
        let _ = (first, n, dir);
        eprintln!("{}", super::super::NO_GPU.replace("{what}", "fuzz --gpu"));
        ExitCode::from(2)
    }
    #[cfg(feature = "gpu")]
    gpu_programs_checked(first, n, dir)
}

#[cfg(feature = "gpu")]
fn gpu_programs_checked(first: u64, n: u64, dir: &Path) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("scopecheck fuzz: {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    let (mut written, mut warps, mut refused) = (0u64, 0u64, 0u64);
    for seed in (0..n).map(|i| first.wrapping_add(i)) {
        let mut p = from_seed_with(seed, &Limits::gpu());
        p.name = format!("gpu-{seed}");
        if let Err(e) = harness_refuses(&p) {
            refused += 1;
            println!(
                "seed {seed}: the GPU harness refuses it: {e}\n{}",
                print(&p)
            );
            continue;
        }
        let path = dir.join(format!("{}.litmus", p.name));
        if let Err(e) = std::fs::write(&path, print(&p)) {
            eprintln!("scopecheck fuzz: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        written += 1;
        warps += u64::from(p.uses_warps());
    }
    eprintln!(
        "scopecheck fuzz --gpu: wrote {written} programs from seed {first} into {} ({warps} with warp-level instructions), {refused} refused by the harness; run them with `scopecheck gpu {}`",
        dir.display(),
        dir.display()
    );
    if refused == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
