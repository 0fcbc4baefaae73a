//! Launching the test kernel, plainly through cudarc's launch builder or as a cluster launch:
//! `cuLaunchKernelEx` with
//! `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` (CUDA Driver API, *cuLaunchKernelEx*: "the cluster
//! dimensions ... the grid dimension must be a multiple of the cluster dimension"). cudarc's
//! launch builder has no launch attributes, so this passes the kernel's arguments itself.

use cudarc::driver::{sys, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use std::ffi::c_void;

/// The test kernel's arguments in signature order: four pointers (locations, registers, start
/// barriers, scratch), then the 32-bit parameters.
pub struct TestArgs {
    pub pointers: [u64; 4],
    pub words: [u32; 14],
}

/// Launch the test kernel `f` on `stream` with `cfg`, in clusters of `clusters` blocks along x
/// when given.
///
/// # Safety
/// As [`launch_clusters`].
pub unsafe fn launch_test(
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    clusters: Option<u32>,
    args: &TestArgs,
) -> Result<(), DriverError> {
    if let Some(c) = clusters {
        return launch_clusters(stream, f, cfg, c, args);
    }
    let mut b = stream.launch_builder(f);
    for p in &args.pointers {
        b.arg(p);
    }
    for w in &args.words {
        b.arg(w);
    }
    b.launch(cfg).map(|_| ())
}

/// Launch `f` on `stream` with `cfg` in clusters of `cluster` blocks along x.
///
/// # Safety
/// `args` must match the kernel's signature, and every pointer in it must stay valid until the
/// kernel has run; `cfg.grid_dim.0` must be a multiple of `cluster`.
pub unsafe fn launch_clusters(
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    cluster: u32,
    args: &TestArgs,
) -> Result<(), DriverError> {
    stream.context().bind_to_thread()?;
    let mut attr: sys::CUlaunchAttribute = std::mem::zeroed();
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    let config = sys::CUlaunchConfig {
        gridDimX: cfg.grid_dim.0,
        gridDimY: cfg.grid_dim.1,
        gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0,
        blockDimY: cfg.block_dim.1,
        blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: &mut attr,
        numAttrs: 1,
    };
    let mut params: Vec<*mut c_void> = Vec::with_capacity(18);
    for p in &args.pointers {
        params.push(p as *const u64 as *mut c_void);
    }
    for w in &args.words {
        params.push(w as *const u32 as *mut c_void);
    }
    sys::cuLaunchKernelEx(
        &config,
        f.cu_function(),
        params.as_mut_ptr(),
        std::ptr::null_mut(),
    )
    .result()
}
