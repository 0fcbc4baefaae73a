//! scopecheck-gpu: run litmus programs on an NVIDIA GPU and diff what the hardware does against
//! what the memory model allows.
//!
//! [`codegen`] turns a litmus program into a CUDA C++ harness with inline PTX; [`runner`] compiles
//! it with NVRTC and launches it many times through cudarc; [`outcome`] decodes the device's
//! counters; the diff against the axiomatic model, violation files, environment tuning
//! ([`tune`]), MC Mutants' confidence rule ([`confidence`]) and the mutation score sit on top.

pub mod codegen;
pub mod confidence;
pub mod diff;
pub mod host;
pub mod launch;
pub mod mutate;
pub mod nvrtc;
pub mod oracle;
pub mod outcome;
pub mod record;
pub mod runner;
pub mod session;
pub mod shapes;
pub mod tune;

pub use codegen::{generate, Harness, Observable, Unsupported};
pub use runner::{
    device_count, open, open_device, DeviceInfo, GpuError, Layout, Params, RunResult,
};
