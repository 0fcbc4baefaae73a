//! scopecheck-gpu: run litmus programs on an NVIDIA GPU and diff what the hardware does against
//! what the memory model allows.
//!
//! [`codegen`] turns a litmus program into a CUDA C++ harness with inline PTX; [`runner`] compiles
//! it with NVRTC and launches it many times through cudarc; [`outcome`] decodes the device's
//! counters; the diff against the axiomatic model, violation files and the mutation score sit on
//! top.

pub mod codegen;
pub mod diff;
pub mod mutate;
pub mod oracle;
pub mod outcome;
pub mod record;
pub mod runner;

pub use codegen::{generate, Harness, Observable, Unsupported};
pub use runner::{open, DeviceInfo, GpuError, Layout, Params, RunResult};
