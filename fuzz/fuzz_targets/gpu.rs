//! A generated program → the GPU (through scopecheck-gpu) → every observed final state must be
//! allowed by ptx-v7.5. A forbidden observation panics with the histogram and the program text.
//!
//! Without a GPU the target says so once and exits 0 before fuzzing starts. The GPU is the one
//! `SCOPECHECK_GPU_DEVICE` names (default 0), so a campaign runs one process per GPU:
//! `SCOPECHECK_GPU_DEVICE=1 cargo fuzz run --features gpu gpu`.

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use scopecheck_gpu::runner::{Gpu, GpuError, Params};
use scopecheck_gpu::{codegen, diff, oracle};
use scopecheck_model::litmus::arbitrary::{program, Limits};
use scopecheck_model::litmus::print;
use std::sync::OnceLock;

static GPU: OnceLock<Gpu> = OnceLock::new();

/// Launches per program: enough instances (2^16 each) for common weak outcomes to show, few
/// enough to try many programs.
const LAUNCHES: u64 = 20;

fuzz_target!(
    init: {
        let device = match std::env::var("SCOPECHECK_GPU_DEVICE") {
            Ok(v) => v.trim().parse::<usize>().unwrap_or_else(|_| {
                eprintln!("gpu target: SCOPECHECK_GPU_DEVICE=`{v}` is not a device index");
                std::process::exit(2);
            }),
            Err(_) => 0,
        };
        match scopecheck_gpu::open_device(device) {
            Ok(gpu) => {
                eprintln!(
                    "gpu target: GPU {device}: {} (sm {})",
                    gpu.info.name, gpu.info.compute_capability
                );
                let _ = GPU.set(gpu);
            }
            Err(GpuError::NoGpu(why)) => {
                eprintln!("gpu target: no GPU ({why}); nothing to fuzz");
                std::process::exit(0);
            }
            Err(e) => {
                eprintln!("gpu target: {e}");
                std::process::exit(2);
            }
        }
    },
    |data: &[u8]| {
        let gpu = GPU.get().expect("opened in init");
        let Ok(p) = program(&mut Unstructured::new(data), &Limits::gpu()) else {
            return;
        };
        // The generator keeps `Limits::gpu()` within what the harness runs (tests/fuzz_gpu.rs):
        // a refused program is a generator bug, not a program to skip quietly.
        let harness = codegen::generate(&p).unwrap_or_else(|e| {
            panic!("the harness refuses a generated program: {}\n{}", e.0, print(&p))
        });
        let allowed = match oracle::allowed(&p, &harness.observables, "ptx-v7.5") {
            Ok(a) => a,
            Err(_) => return,
        };
        let compiled = gpu
            .compile(&harness)
            .unwrap_or_else(|e| panic!("harness does not compile: {e}\n{}", print(&p)));
        let params = Params {
            launches: LAUNCHES,
            batch: LAUNCHES,
            seed: data.iter().fold(0x5c09ec4ec, |h, &b| h.rotate_left(5) ^ u64::from(b)),
            ..Params::default()
        };
        let run = gpu
            .run(&compiled, &params)
            .unwrap_or_else(|e| panic!("GPU run failed: {e}\n{}", print(&p)));
        let d = diff::diff(&p, &compiled.harness, &allowed, &run);
        if d.violations > 0 {
            let rows: Vec<String> = d
                .observed
                .iter()
                .map(|r| format!("  {:?} x{} allowed={:?}", r.state, r.count, r.allowed))
                .collect();
            panic!(
                "the GPU showed {} instance(s) in states ptx-v7.5 forbids\n--- observed:\n{}\n--- program:\n{}",
                d.violations,
                rows.join("\n"),
                print(&p)
            );
        }
    }
);
