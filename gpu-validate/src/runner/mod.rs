//! Compile a harness with NVRTC, load it once through cudarc, and launch it many times with fresh
//! random parameters, keeping only the device's outcome counters.

use crate::codegen::{self, Harness, CHECK_KERNEL, TABLE_SLOTS, TEST_KERNEL};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod params;
pub use self::params::{Layout, Params};

/// Why nothing could run.
#[derive(Debug, Clone)]
pub enum GpuError {
    /// No usable GPU here (no driver library, no device): callers print one line and skip.
    NoGpu(String),
    /// A GPU is there but something failed (toolchain, compilation, launch).
    Failed(String),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoGpu(m) => write!(f, "no GPU: {m}"),
            GpuError::Failed(m) => write!(f, "GPU error: {m}"),
        }
    }
}

impl std::error::Error for GpuError {}

fn failed(what: &str) -> impl Fn(cudarc::driver::DriverError) -> GpuError + '_ {
    move |e| GpuError::Failed(format!("{what}: {e}"))
}

/// Which device ran the test.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    pub compute_capability: String,
    /// The kernel driver's version (e.g. `580.159.04`), from `/proc/driver/nvidia/version`.
    pub driver: String,
    /// The CUDA version the driver supports, e.g. `13.0`.
    pub driver_cuda_version: String,
    pub multiprocessors: u32,
    /// The driver's ordinal of this GPU.
    #[serde(default)]
    pub ordinal: usize,
}

/// The most dynamic shared memory a block may ask for without raising its limit.
pub const MAX_OCCUPANCY_SMEM: u32 = 48 * 1024;

/// An opened GPU.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    pub info: DeviceInfo,
}

/// Open GPU 0, saying plainly when there is none.
pub fn open() -> Result<Gpu, GpuError> {
    open_device(0)
}

/// How many GPUs the driver sees (0 with no driver library), checked before any other call.
pub fn device_count() -> Result<usize, GpuError> {
    // SAFETY: only tries to dlopen the driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(GpuError::NoGpu(
            "the CUDA driver library (libcuda) is not installed".into(),
        ));
    }
    match CudaContext::device_count() {
        Ok(n) if n > 0 => Ok(n as usize),
        Ok(_) => Err(GpuError::NoGpu("the CUDA driver reports no devices".into())),
        Err(e) => Err(GpuError::NoGpu(format!(
            "the CUDA driver cannot count devices ({e})"
        ))),
    }
}

/// Open GPU `ordinal`, saying plainly when there is none. With no libcuda the first driver call
/// would panic, so presence of the library is checked before anything else.
pub fn open_device(ordinal: usize) -> Result<Gpu, GpuError> {
    // SAFETY: only tries to dlopen the driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(GpuError::NoGpu(
            "the CUDA driver library (libcuda) is not installed".into(),
        ));
    }
    let count = device_count()?;
    if ordinal >= count {
        return Err(GpuError::Failed(format!(
            "no GPU {ordinal}: the driver sees {count}"
        )));
    }
    // SAFETY: only tries to dlopen the NVRTC library.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(GpuError::Failed(
            "NVRTC (libnvrtc) not found; put CUDA's lib64 on LD_LIBRARY_PATH".into(),
        ));
    }
    let what = format!("creating a context on GPU {ordinal}");
    let ctx = CudaContext::new(ordinal).map_err(failed(&what))?;
    // One stream, no cross-stream hazards: cudarc's per-buffer event tracking only costs time.
    // SAFETY: every buffer is used on `stream` alone.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.default_stream();
    let (major, minor) = ctx
        .compute_capability()
        .map_err(failed("compute capability"))?;
    let mut version: std::ffi::c_int = 0;
    // SAFETY: writes one int.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(failed("driver version"))?;
    let sms = ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .map_err(failed("multiprocessor count"))?;
    let info = DeviceInfo {
        name: ctx.name().map_err(failed("device name"))?,
        compute_capability: format!("{major}.{minor}"),
        driver: kernel_driver_version().unwrap_or_else(|| "unknown".into()),
        driver_cuda_version: format!("{}.{}", version / 1000, (version % 1000) / 10),
        multiprocessors: sms as u32,
        ordinal,
    };
    Ok(Gpu { ctx, stream, info })
}

/// `580.159.04` out of the first line of `/proc/driver/nvidia/version`, e.g. "NVRM version:
/// NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the first word made
/// of digits and dots.
fn kernel_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    driver_version_in(text.lines().next()?)
}

/// The driver version in the first line of `/proc/driver/nvidia/version`.
pub fn driver_version_in(line: &str) -> Option<String> {
    line.split_whitespace()
        .find(|w| w.contains('.') && w.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
}

/// A harness compiled and loaded on one GPU (and, for a test whose threads sit on several GPUs,
/// on the peer devices that play the other GPUs' roles).
pub struct Compiled {
    pub harness: Harness,
    test: CudaFunction,
    check: CudaFunction,
    /// The PTX NVRTC produced (kept for inspection).
    pub ptx: String,
    /// Devices 1.. of the harness, in order: other GPUs of the host, each with peer access to
    /// this GPU's memory, where every location, register and barrier lives.
    peers: Vec<Peer>,
}

/// Locations, registers or flags of one run.
enum Buffer {
    Device(CudaSlice<u32>),
    /// Page-locked host memory mapped into the devices' address space.
    Mapped {
        host: *mut u32,
        device: u64,
    },
}

impl Buffer {
    /// The address kernels use.
    fn device_ptr(&self, stream: &CudaStream) -> u64 {
        match self {
            Buffer::Device(slice) => slice.device_ptr(stream).0,
            Buffer::Mapped { device, .. } => *device,
        }
    }

    /// The address host threads use (null for device memory).
    fn host_ptr(&self) -> *mut u32 {
        match self {
            Buffer::Device(_) => std::ptr::null_mut(),
            Buffer::Mapped { host, .. } => *host,
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Buffer::Mapped { host, .. } = *self {
            // SAFETY: allocated by `cuMemHostAlloc`, freed once; no launch uses it any more
            // (every run waits for its stream before returning or fails with the context).
            unsafe { cudarc::driver::sys::cuMemFreeHost(host.cast()) };
        }
    }
}

/// Another GPU of the host playing the roles of one of the test's GPUs.
struct Peer {
    stream: Arc<CudaStream>,
    test: CudaFunction,
    ordinal: usize,
}

/// What the device counted, as raw keys (see [`crate::outcome`]).
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub keys: BTreeMap<u64, u64>,
    /// Instances the table had no room for.
    pub lost: u64,
}

/// A run's counters, how long it took, and any error that cut it short.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub counts: Counts,
    /// Instances whose outcome was counted.
    pub instances: u64,
    /// Seconds spent in launches (compilation excluded).
    pub seconds: f64,
    pub error: Option<String>,
}

impl Gpu {
    /// Compile with NVRTC for this device's architecture and load both kernels.
    pub fn compile(&self, harness: &Harness) -> Result<Compiled, GpuError> {
        let arch = format!(
            "--gpu-architecture=compute_{}",
            self.info.compute_capability.replace('.', "")
        );
        let opts = cudarc::nvrtc::CompileOptions {
            options: vec![arch],
            ..Default::default()
        };
        let ptx = cudarc::nvrtc::compile_ptx_with_opts(&harness.source, opts)
            .map_err(|e| GpuError::Failed(format!("NVRTC rejected the harness: {e}")))?;
        let text = ptx.to_src();
        let module = self
            .ctx
            .load_module(ptx)
            .map_err(failed("loading the module"))?;
        let test = module
            .load_function(TEST_KERNEL)
            .map_err(failed("loading the test kernel"))?;
        let check = module
            .load_function(CHECK_KERNEL)
            .map_err(failed("loading the check kernel"))?;
        let peers = self.peers_for(harness, &text)?;
        Ok(Compiled {
            harness: harness.clone(),
            test,
            check,
            ptx: text,
            peers,
        })
    }

    /// Let GPU `ordinal` read and write what this device's current memory pool allocates.
    fn open_pool_to(&self, ordinal: usize) -> Result<(), GpuError> {
        use cudarc::driver::sys;
        if !self.ctx.has_async_alloc() {
            return Ok(()); // plain `cuMemAlloc` memory: peer access alone reaches it
        }
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: writes one handle for an existing device.
        unsafe { sys::cuDeviceGetMemPool(&mut pool, self.ctx.cu_device()) }
            .result()
            .map_err(failed("finding the memory pool"))?;
        let desc = sys::CUmemAccessDesc {
            location: sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: ordinal as std::ffi::c_int,
            },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        // SAFETY: one valid descriptor.
        unsafe { sys::cuMemPoolSetAccess(pool, &desc, 1) }
            .result()
            .map_err(failed(&format!("opening the memory pool to GPU {ordinal}")))
    }

    /// The peer devices a harness spanning several GPUs needs: the test's GPU ids, ranked, are
    /// this device and then the host's other devices in the driver's order. Each must be able to
    /// reach this device's memory (`cuDeviceCanAccessPeer`); peer access is enabled from it to
    /// this device's context and the test kernel loaded there.
    fn peers_for(&self, harness: &Harness, ptx: &str) -> Result<Vec<Peer>, GpuError> {
        let wanted = harness.devices();
        if wanted <= 1 {
            return Ok(vec![]);
        }
        let count = device_count()?;
        if count < wanted {
            return Err(GpuError::Failed(format!(
                "the test's threads sit on {wanted} GPUs; the driver sees {count}"
            )));
        }
        let me = self.info.ordinal;
        let mut peers = Vec::new();
        for ordinal in (0..count).filter(|&o| o != me).take(wanted - 1) {
            let ctx = CudaContext::new(ordinal)
                .map_err(failed(&format!("creating a context on GPU {ordinal}")))?;
            // SAFETY: every buffer a peer launch uses is ordered by events on its stream.
            unsafe { ctx.disable_event_tracking() };
            let mut can: std::ffi::c_int = 0;
            // SAFETY: writes one int; both ordinals exist.
            unsafe {
                cudarc::driver::sys::cuDeviceCanAccessPeer(
                    &mut can,
                    ctx.cu_device(),
                    self.ctx.cu_device(),
                )
            }
            .result()
            .map_err(failed("asking for peer access"))?;
            if can == 0 {
                return Err(GpuError::Failed(format!(
                    "GPU {ordinal} cannot access GPU {me}'s memory (no peer access between them)"
                )));
            }
            ctx.bind_to_thread()
                .map_err(failed("binding a peer context"))?;
            // SAFETY: enables access from the current context (the peer's) to ours.
            let r = unsafe { cudarc::driver::sys::cuCtxEnablePeerAccess(self.ctx.cu_ctx(), 0) };
            if r != cudarc::driver::sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
                r.result()
                    .map_err(failed(&format!("enabling peer access from GPU {ordinal}")))?;
            }
            // Buffers come from this device's stream-ordered memory pool (`cuMemAllocAsync`),
            // which peer access does not open: the pool is opened to the peer explicitly.
            self.open_pool_to(ordinal)?;
            let module = ctx
                .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
                .map_err(failed("loading the module on a peer GPU"))?;
            let test = module
                .load_function(TEST_KERNEL)
                .map_err(failed("loading the test kernel on a peer GPU"))?;
            peers.push(Peer {
                stream: ctx.default_stream(),
                test,
                ordinal,
            });
        }
        self.ctx
            .bind_to_thread()
            .map_err(failed("binding the context"))?;
        Ok(peers)
    }

    /// Launch `params.launches` times; on a device error or a watchdog timeout, return what the
    /// last completed batch counted together with the error.
    pub fn run(&self, c: &Compiled, params: &Params) -> Result<RunResult, GpuError> {
        let h = &c.harness;
        let (role_base, role_count) = h.device_roles(0);
        let slots = h.slots as u32;
        // A block holds at most 1024 threads and never more instances than a launch has.
        let (k, per_block_log2) = clamp_launch(h, params);
        let n = 1usize << k;
        // A bulk copy moves whole 16-byte units from or to a global location's slot, which must
        // be 16-byte aligned and hold them all (PTX ISA, cp.async.bulk).
        let stride = match h.shared.bulk_bytes {
            0 => params.stride.max(1) as usize,
            b => (params.stride as usize).max(b / 4).next_multiple_of(4),
        };
        let locs = h.locations.len().max(1);
        let s = &self.stream;
        // With a host thread the locations, registers and go flags live in mapped host memory,
        // where both the CPU and the GPU reach them; otherwise in device 0's memory.
        let mapped = !h.host.is_empty();
        if mapped {
            self.check_host_atomics(h)?;
        }
        let mem = self.buffer(mapped, locs * n * stride, "the locations")?;
        let regs = self.buffer(mapped, n * h.words_per_instance(), "registers")?;
        let bar = self.buffer(mapped, n, "barriers")?;
        let scratch_lines_log2 = params.scratch_lines_log2.min(20);
        let scratch = self.buffer(false, 32usize << scratch_lines_log2, "scratch")?;
        let keys: CudaSlice<u64> = s
            .alloc_zeros(TABLE_SLOTS)
            .map_err(failed("allocating the table"))?;
        let counts: CudaSlice<u64> = s
            .alloc_zeros(TABLE_SLOTS)
            .map_err(failed("allocating the table"))?;
        let lost: CudaSlice<u64> = s.alloc_zeros(1).map_err(failed("allocating the table"))?;
        let (mem_p, regs_p, bar_p, scratch_p) = (
            mem.device_ptr(s),
            regs.device_ptr(s),
            bar.device_ptr(s),
            scratch.device_ptr(s),
        );
        let (keys_p, counts_p, lost_p) = (
            keys.device_ptr(s).0,
            counts.device_ptr(s).0,
            lost.device_ptr(s).0,
        );

        // In a cluster launch a group is whole clusters, and so are the stress blocks.
        let (per_group, cluster) = match &h.cluster {
            Some(c) => (Some(c.blocks() as u32), c.size as u32),
            None => (None, 1),
        };
        let shared_bytes = h.shared.bytes(1 << per_block_log2) as u32;
        // Each litmus thread may be lane 0 of a warp of its own (`Harness::warp_per_thread`).
        let warp_per_thread = if h.warp_per_thread { 5 } else { 0 };
        let test_cfg = |role_count: u32| LaunchConfig {
            grid_dim: (
                (n >> per_block_log2) as u32 * per_group.unwrap_or(role_count)
                    + params.stress_blocks.next_multiple_of(cluster),
                1,
                1,
            ),
            block_dim: (slots << per_block_log2 << warp_per_thread, 1, 1),
            shared_mem_bytes: params
                .occupancy_smem
                .min(MAX_OCCUPANCY_SMEM)
                .max(shared_bytes),
        };
        // The other GPUs' roles run on the peers, on device 0's (or the host's) locations,
        // registers and start barriers, each with stress scratch of its own.
        let mut peer_scratch = Vec::new();
        for (i, peer) in c.peers.iter().enumerate() {
            let scratch: CudaSlice<u32> = peer
                .stream
                .alloc_zeros(32usize << scratch_lines_log2)
                .map_err(failed(&format!(
                    "allocating scratch on GPU {}",
                    peer.ordinal
                )))?;
            let p = scratch.device_ptr(&peer.stream).0;
            peer_scratch.push((h.device_roles(i + 1), p, scratch));
        }
        let check_threads = n.min(256) as u32;
        let check_cfg = LaunchConfig {
            grid_dim: ((n as u32).div_ceil(check_threads), 1, 1),
            block_dim: (check_threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let (k32, stride32) = (k, stride as u32);
        // A program with warp-level instructions needs its CTA's threads in one warp.
        let layout = u32::from(params.layout == Layout::Warp || h.warp_lanes);
        let scratch_mask = (1u32 << scratch_lines_log2) - 1;
        let loc_perm = u32::from(params.permute_locations);
        let stress_pattern = params.stress_pattern & 3;
        let mut rng = rand::rngs::StdRng::seed_from_u64(params.seed);
        let host_memory = mapped.then(|| crate::host::Memory {
            mem: mem.host_ptr(),
            regs: regs.host_ptr(),
            go: bar.host_ptr(),
            k,
            stride: stride as u32,
            loc_perm: params.permute_locations,
        });

        let check = |seed: u32, classify: u32| -> Result<(), GpuError> {
            let mut b = s.launch_builder(&c.check);
            b.arg(&mem_p)
                .arg(&regs_p)
                .arg(&bar_p)
                .arg(&keys_p)
                .arg(&counts_p)
                .arg(&lost_p);
            b.arg(&seed)
                .arg(&k32)
                .arg(&stride32)
                .arg(&classify)
                .arg(&loc_perm);
            // SAFETY: argument list matches the generated kernel's signature.
            unsafe { b.launch(check_cfg) }
                .map(|_| ())
                .map_err(failed("launching the check kernel"))
        };
        // Write every location's initial value (the reset half of the check kernel).
        check(0, 0)?;
        s.synchronize()
            .map_err(failed("initialising the locations"))?;

        let start = Instant::now();
        let mut done = 0u64;
        let mut snapshot = Counts::default();
        let mut error = None;
        let batch = params.batch.max(1);
        while done < params.launches {
            let this_batch = batch.min(params.launches - done);
            let mut launch = || -> Result<(), GpuError> {
                for _ in 0..this_batch {
                    let seed: u32 = rng.gen();
                    if host_memory.is_some() {
                        // The host reads and writes the instances itself: the last check must
                        // have reset them before it starts.
                        self.wait(params.watchdog_s)?;
                    }
                    // A peer starts after the last check has reset the instances, and not after
                    // device 0's test kernel: joined before that kernel is queued.
                    for peer in &c.peers {
                        peer.stream.join(s).map_err(failed("ordering a peer GPU"))?;
                    }
                    // Every device runs its roles of the same instances with the same seed.
                    let devices = std::iter::once((s, &c.test, (role_base, role_count), scratch_p))
                        .chain(c.peers.iter().zip(&peer_scratch).map(
                            |(peer, (roles, scratch, _))| {
                                (&peer.stream, &peer.test, *roles, *scratch)
                            },
                        ));
                    for (stream, test, (base, count), scratch) in devices {
                        let args = crate::launch::TestArgs {
                            pointers: [mem_p, regs_p, bar_p, scratch],
                            words: [
                                seed,
                                k32,
                                per_block_log2,
                                stride32,
                                layout,
                                params.barrier_spins,
                                params.pre_stress,
                                params.stress_iters,
                                scratch_mask,
                                loc_perm,
                                stress_pattern,
                                params.spin_bound,
                                base,
                                count,
                            ],
                        };
                        let clusters = per_group.map(|_| cluster);
                        // SAFETY: the words follow the generated kernel's signature; the buffers
                        // of device 0 are reachable from a peer through peer access, mapped host
                        // memory from every device, and they outlive the launches.
                        unsafe {
                            crate::launch::launch_test(
                                stream,
                                test,
                                test_cfg(count),
                                clusters,
                                &args,
                            )
                        }
                        .map_err(failed("launching the test kernel"))?;
                    }
                    if let Some(m) = &host_memory {
                        // The host threads run while the kernels do, one CPU thread each.
                        std::thread::scope(|scope| {
                            for t in &h.host {
                                scope.spawn(move || t.run_launch(m, seed));
                            }
                        });
                    }
                    // The check reads what every device wrote.
                    for peer in &c.peers {
                        s.join(&peer.stream)
                            .map_err(failed("waiting for a peer GPU"))?;
                    }
                    check(seed, 1)?;
                }
                self.wait(params.watchdog_s)
            };
            if let Err(e) = launch() {
                error = Some(e.to_string());
                break;
            }
            done += this_batch;
            match self.read_counts(&keys, &counts, &lost) {
                Ok(c) => snapshot = c,
                Err(e) => {
                    error = Some(e.to_string());
                    break;
                }
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        let instances = snapshot.keys.values().sum::<u64>() + snapshot.lost;
        Ok(RunResult {
            counts: snapshot,
            instances,
            seconds,
            error,
        })
    }

    /// A zeroed buffer of `words` words: in device memory, or (`mapped`) in page-locked host
    /// memory mapped into every device's address space.
    fn buffer(&self, mapped: bool, words: usize, what: &str) -> Result<Buffer, GpuError> {
        if !mapped {
            let slice = self
                .stream
                .alloc_zeros::<u32>(words)
                .map_err(failed(&format!("allocating {what}")))?;
            return Ok(Buffer::Device(slice));
        }
        use cudarc::driver::sys;
        self.ctx
            .bind_to_thread()
            .map_err(failed("binding the context"))?;
        let bytes = words.max(1) * 4;
        let mut host: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: allocates `bytes` of page-locked memory, mapped and usable from every context.
        unsafe {
            sys::cuMemHostAlloc(
                &mut host,
                bytes,
                sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE,
            )
        }
        .result()
        .map_err(failed(&format!("allocating {what} in mapped host memory")))?;
        // SAFETY: `bytes` bytes were just allocated.
        unsafe { std::ptr::write_bytes(host.cast::<u8>(), 0, bytes) };
        let mut device: sys::CUdeviceptr = 0;
        // SAFETY: `host` is a mapped allocation of this context.
        let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host, 0) }.result();
        // From here the buffer owns the allocation (and frees it when dropped, error or not).
        let buffer = Buffer::Mapped {
            host: host.cast(),
            device,
        };
        mapped.map_err(failed("mapping host memory into the GPU"))?;
        Ok(buffer)
    }

    /// RMWs on words the CPU also touches are atomic only where the GPU has native atomics on
    /// host memory (`CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED`, e.g. NVLink-C2C): over
    /// PCIe a GPU RMW and a CPU access to one word may interleave, so such tests are refused.
    fn check_host_atomics(&self, h: &Harness) -> Result<(), GpuError> {
        if !h.has_rmw {
            return Ok(());
        }
        let native = self
            .ctx
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED,
            )
            .map_err(failed("host atomic support"))?;
        if native == 0 {
            return Err(GpuError::Failed(format!(
                "unsupported here: RMWs in a test with a host thread need atomics between GPU {} \
                 and host memory, which this system does not have (no host-native atomics)",
                self.info.ordinal
            )));
        }
        Ok(())
    }

    /// Wait for the stream with a host-side deadline instead of blocking forever.
    fn wait(&self, watchdog_s: f64) -> Result<(), GpuError> {
        let event = self
            .stream
            .record_event(None)
            .map_err(failed("recording an event"))?;
        let deadline = Instant::now() + Duration::from_secs_f64(watchdog_s.max(0.1));
        loop {
            match event.try_is_complete() {
                Ok(true) => return Ok(()),
                Ok(false) if Instant::now() > deadline => {
                    return Err(GpuError::Failed(format!(
                        "watchdog: launches still running after {watchdog_s} s (a litmus thread may spin forever); \
                         the histogram keeps the batches completed before"
                    )))
                }
                Ok(false) => std::thread::sleep(Duration::from_micros(200)),
                Err(e) => return Err(GpuError::Failed(format!("device error while running: {e}"))),
            }
        }
    }

    fn read_counts(
        &self,
        keys: &CudaSlice<u64>,
        counts: &CudaSlice<u64>,
        lost: &CudaSlice<u64>,
    ) -> Result<Counts, GpuError> {
        let s = &self.stream;
        let k = s
            .clone_dtoh(keys)
            .map_err(failed("reading the outcome table"))?;
        let c = s
            .clone_dtoh(counts)
            .map_err(failed("reading the outcome table"))?;
        let l = s
            .clone_dtoh(lost)
            .map_err(failed("reading the outcome table"))?;
        let mut out = Counts {
            lost: l[0],
            ..Counts::default()
        };
        for (key, count) in k.into_iter().zip(c) {
            if key != 0 {
                *out.keys.entry(key).or_default() += count;
            }
        }
        Ok(out)
    }
}

/// The launch shape both runners share: instances per block clamped to the block size limit.
fn clamp_launch(h: &Harness, params: &Params) -> (u32, u32) {
    let slots = h.slots as u32;
    let k = params.instances_log2.clamp(5, 26);
    let mut per_block_log2 = params.per_block_log2.min(k);
    if h.cta_barriers.any() {
        per_block_log2 = per_block_log2.min(h.cta_barriers.ipb_log2);
    }
    let warp_per_thread = if h.warp_per_thread { 5 } else { 0 };
    while ((slots << per_block_log2 << warp_per_thread) > 1024
        || h.shared.bytes(1 << per_block_log2) > MAX_OCCUPANCY_SMEM as usize)
        && per_block_log2 > 0
    {
        per_block_log2 -= 1;
    }
    (k, per_block_log2)
}

/// Compile-free helper for tests and `--emit`: the harness for a program.
pub fn harness(
    program: &scopecheck_model::litmus::Program,
) -> Result<Harness, codegen::Unsupported> {
    codegen::generate(program)
}
