//! Launching a PTX kernel on the model: the launch configuration (`--grid`, `--block`,
//! `--cluster`, `--arg`, `--dynamic-smem`, `--entry`, also read from a first-line comment
//! `// scopecheck: FLAGS` of the file, the command line overriding it), the kernel's buffers,
//! and the check with a [`Checker`].
//!
//! Grids and blocks of up to three dimensions are flattened onto the runtime's blocks × threads
//! (`x` fastest, as CUDA numbers threads: `%tid.{x,y,z}` and `%ctaid.{x,y,z}` are computed from
//! the linear ids); `--cluster X[,Y[,Z]]` cuts the grid into clusters of that shape, each block
//! in the cluster `blockIdx / dims` ([`Grid::with_cluster_dims`]).
//!
//! Kernel parameters: `--arg NAME=TYPE[N]` gives a pointer parameter a fresh global buffer of
//! `N` elements of `TYPE` (`u8 … u64`, `s8 … s64`, `f32`, `f64`), zero-initialised or
//! `=v,v,…` (one value for all, or one per element); `--arg NAME=VALUE` a scalar. `NAME` is
//! the PTX parameter's name; when it names none (CUDA names are not in the PTX), the arguments
//! bind the parameters in order and `NAME` only names the buffer in reports. `--tensor-map
//! NAME=BUFFER:TYPE:DIMS:BOX[:STRIDES]` gives a `CUtensorMap` parameter a tiled tensor map over a
//! `--arg` buffer ([`super::tensor_arg`], which says how it binds).

use super::decode::Space;
use super::exec;
use super::layout::{BoundTensorMap, Layout, Region, GLOBAL_BASE, WINDOW};
use super::program::{ParamSlot, Program};
use super::tensor_arg::{parse_tensor_map, TensorMapArg};
use super::value::Ty;
use crate::kernel::{Checker, Dim3, Grid, Kernel, Report};
use crate::runtime::memory::ElemKind;
use crate::runtime::report::FailureKind;
use std::sync::Arc;

/// A kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A pointer to a fresh global buffer.
    Buffer {
        /// The name.
        name: String,
        /// Element type.
        ty: Ty,
        /// Elements.
        len: u64,
        /// Initial values (empty: zeros; one: all).
        init: Vec<u64>,
    },
    /// A scalar (its bits).
    Scalar {
        /// The name.
        name: String,
        /// The value as written (integers, or a float).
        value: u64,
        /// Written as a float.
        float: bool,
    },
}

impl Arg {
    /// The argument's name.
    pub fn name(&self) -> &str {
        match self {
            Arg::Buffer { name, .. } | Arg::Scalar { name, .. } => name,
        }
    }
}

/// How to launch a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// `--grid X[,Y[,Z]]`.
    pub grid: Dim3,
    /// `--block X[,Y[,Z]]`.
    pub block: Dim3,
    /// `--cluster X[,Y[,Z]]`: the cluster's shape in blocks ([`Grid::with_cluster_dims`]).
    pub cluster: Option<Dim3>,
    /// `--arg …`, in order.
    pub args: Vec<Arg>,
    /// `--tensor-map …`, in order.
    pub tensor_maps: Vec<TensorMapArg>,
    /// `--dynamic-smem BYTES`.
    pub dynamic_smem: u64,
    /// `--entry NAME`.
    pub entry: Option<String>,
    /// `--timeout S`: a wall-clock budget for the exploration, in seconds (a result cut short
    /// by it is bounded).
    pub timeout: Option<f64>,
}

impl Default for Launch {
    fn default() -> Launch {
        Launch {
            grid: Dim3::x(1),
            block: Dim3::x(1),
            cluster: None,
            args: Vec::new(),
            tensor_maps: Vec::new(),
            dynamic_smem: 0,
            entry: None,
            timeout: None,
        }
    }
}

fn dim3(s: &str) -> Result<Dim3, String> {
    let parts: Result<Vec<u32>, _> = s.split(',').map(|p| p.trim().parse::<u32>()).collect();
    match parts.map_err(|_| format!("`{s}` is not X[,Y[,Z]]"))?[..] {
        [x] if x > 0 => Ok(Dim3::new(x, 1, 1)),
        [x, y] if x > 0 && y > 0 => Ok(Dim3::new(x, y, 1)),
        [x, y, z] if x > 0 && y > 0 && z > 0 => Ok(Dim3::new(x, y, z)),
        _ => Err(format!("`{s}`: expected 1 to 3 positive sizes")),
    }
}

fn number(s: &str) -> Result<(u64, bool), String> {
    let s = s.trim();
    let neg = s.starts_with('-');
    let body = s.trim_start_matches('-');
    let int = match body.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => body.parse::<u64>().ok(),
    };
    match int {
        Some(v) if neg => Ok(((v as i64).wrapping_neg() as u64, false)),
        Some(v) => Ok((v, false)),
        None => s
            .parse::<f64>()
            .map(|f| (f.to_bits(), true))
            .map_err(|_| format!("`{s}` is not a number")),
    }
}

/// Parse `NAME=TYPE[N][=v,v,…]` or `NAME=VALUE`.
pub fn parse_arg(s: &str) -> Result<Arg, String> {
    let (name, rest) = s
        .split_once('=')
        .ok_or_else(|| format!("--arg `{s}`: expected NAME=TYPE[N] or NAME=VALUE"))?;
    if name.is_empty() {
        return Err(format!("--arg `{s}`: missing the name"));
    }
    if let Some(open) = rest.find('[') {
        let ty = Ty::parse(&rest[..open])
            .filter(|t| *t != Ty::Pred && !matches!(t, Ty::F(16) | Ty::B(_)))
            .ok_or_else(|| format!("--arg `{s}`: unknown element type `{}`", &rest[..open]))?;
        let close = rest
            .find(']')
            .ok_or_else(|| format!("--arg `{s}`: missing `]`"))?;
        let len: u64 = rest[open + 1..close]
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("--arg `{s}`: the length must be a positive integer"))?;
        let init = match rest[close + 1..].strip_prefix('=') {
            Some(values) => values
                .split(',')
                .map(|v| {
                    let (bits, float) = number(v).map_err(|e| format!("--arg `{s}`: {e}"))?;
                    Ok(match (float, ty.float()) {
                        (true, true) => ty.from_f64(f64::from_bits(bits)),
                        (false, true) => ty.from_f64(ty_int(bits) as f64),
                        (true, false) => {
                            return Err(format!("--arg `{s}`: `{v}` is not an integer"))
                        }
                        (false, false) => ty.trunc(bits),
                    })
                })
                .collect::<Result<Vec<u64>, String>>()?,
            None if rest[close + 1..].is_empty() => vec![],
            None => return Err(format!("--arg `{s}`: unexpected `{}`", &rest[close + 1..])),
        };
        if init.len() > 1 && init.len() as u64 != len {
            return Err(format!(
                "--arg `{s}`: {} values for {len} elements",
                init.len()
            ));
        }
        return Ok(Arg::Buffer {
            name: name.to_string(),
            ty,
            len,
            init,
        });
    }
    let (value, float) = number(rest).map_err(|e| format!("--arg `{s}`: {e}"))?;
    Ok(Arg::Scalar {
        name: name.to_string(),
        value,
        float,
    })
}

fn ty_int(bits: u64) -> i64 {
    bits as i64
}

impl Launch {
    /// Apply one flag (`name` without dashes) with its value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "grid" => self.grid = dim3(value).map_err(|e| format!("--grid {e}"))?,
            "block" => self.block = dim3(value).map_err(|e| format!("--block {e}"))?,
            "cluster" => self.cluster = Some(dim3(value).map_err(|e| format!("--cluster {e}"))?),
            "arg" => {
                let arg = parse_arg(value)?;
                self.args.retain(|a| a.name() != arg.name());
                self.args.push(arg);
            }
            "tensor-map" => {
                let map = parse_tensor_map(value)?;
                self.tensor_maps.retain(|m| m.name != map.name);
                self.tensor_maps.push(map);
            }
            "dynamic-smem" => {
                self.dynamic_smem = value
                    .parse()
                    .map_err(|_| format!("--dynamic-smem `{value}` is not a byte count"))?
            }
            "entry" => self.entry = Some(value.to_string()),
            "timeout" => {
                let secs = value
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("--timeout `{value}` is not a number of seconds"))?;
                self.timeout = Some(secs);
            }
            other => return Err(format!("unknown launch flag `--{other}`")),
        }
        Ok(())
    }

    /// The launch flags of a first-line comment `// scopecheck: FLAGS` in `source` (none when
    /// the first line is not one). Flags are `--name value` or `--name=value`.
    pub fn from_source(source: &str) -> Result<Launch, String> {
        let mut launch = Launch::default();
        let first = source.lines().next().unwrap_or("");
        let Some(flags) = first.trim().strip_prefix("//").map(str::trim) else {
            return Ok(launch);
        };
        let Some(flags) = flags.strip_prefix("scopecheck:") else {
            return Ok(launch);
        };
        let words: Vec<&str> = flags.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let w = words[i]
                .strip_prefix("--")
                .ok_or_else(|| format!("line 1: `{}` is not a --flag", words[i]))?;
            let (name, value) = match w.split_once('=') {
                Some((n, v)) if !matches!(n, "arg" | "tensor-map") || v.contains('=') => {
                    (n, v.to_string())
                }
                _ => {
                    i += 1;
                    let v = words
                        .get(i)
                        .ok_or_else(|| format!("line 1: --{w} needs a value"))?;
                    (w, v.to_string())
                }
            };
            launch
                .set(name, &value)
                .map_err(|e| format!("line 1: {e}"))?;
            i += 1;
        }
        Ok(launch)
    }

    /// This launch with `over`'s flags replacing its own where `over` sets them (`args` by
    /// name; `grid`/`block` when not the default).
    pub fn overridden_by(mut self, over: &Launch, set: &[&str]) -> Launch {
        for s in set {
            match *s {
                "grid" => self.grid = over.grid,
                "block" => self.block = over.block,
                "cluster" => self.cluster = over.cluster,
                "dynamic-smem" => self.dynamic_smem = over.dynamic_smem,
                "entry" => self.entry.clone_from(&over.entry),
                "timeout" => self.timeout = over.timeout,
                _ => {}
            }
        }
        for a in &over.args {
            self.args.retain(|x| x.name() != a.name());
            self.args.push(a.clone());
        }
        for m in &over.tensor_maps {
            self.tensor_maps.retain(|x| x.name != m.name);
            self.tensor_maps.push(m.clone());
        }
        self
    }

    /// The runtime grid.
    pub fn runtime_grid(&self) -> Grid {
        let g = Grid::shaped(self.grid, self.block);
        match self.cluster {
            Some(c) => g.with_cluster_dims(c),
            None => g,
        }
    }
}

/// The most 8-byte words of shared memory per CTA that get an mbarrier
/// ([`Layout::mbarrier_slots`]).
pub const MAX_MBARRIER_SLOTS: usize = 1024;

/// A kernel ready to check: the model kernel with its buffers and the closure every thread
/// runs.
pub struct Prepared {
    /// The model kernel (grid, buffers).
    pub kernel: Kernel,
    shared: exec::Shared,
}

impl Prepared {
    /// Explore it with `checker`. A failure of kind [`FailureKind::Unsupported`] is not a
    /// verdict: it comes back as `Err` (bad input, exit 2), as do launch errors.
    pub fn check(&self, checker: &Checker) -> Result<Report, String> {
        let shared = Arc::clone(&self.shared);
        let report = checker.check(&self.kernel, move |t| {
            let (prog, layout, entry, params) = &*shared;
            exec::run(prog, layout, *entry, params, t)
        });
        match &report.failure {
            Some(f) if f.kind == FailureKind::Unsupported => Err(f.to_string()),
            _ => Ok(report),
        }
    }
}

/// Build the model kernel for `program` launched as `launch`.
pub fn prepare(program: Program, launch: &Launch) -> Result<Prepared, String> {
    let path = program.path.clone();
    let entry = program.entry(launch.entry.as_deref())?;
    let func = &program.funcs[entry];
    let grid = launch.runtime_grid();
    if let Some(why) = grid.cluster_shape_error() {
        return Err(format!("--cluster: {why}"));
    }
    // Bind tensor maps first (see `tensor_arg`), then arguments to the other parameters: by
    // PTX name, else in order.
    let all = &func.params[..func.n_params];
    let maps = bind_tensor_maps(all, &launch.tensor_maps).map_err(|e| format!("{path}: {e}"))?;
    let params: Vec<&ParamSlot> = (all.iter().enumerate())
        .filter(|(i, _)| maps.iter().all(|(p, _)| p != i))
        .map(|(_, p)| p)
        .collect();
    let by_name = launch
        .args
        .iter()
        .all(|a| params.iter().any(|p| p.name == a.name()));
    let mut bound: Vec<Option<&Arg>> = vec![None; params.len()];
    if by_name {
        for a in &launch.args {
            let i = params.iter().position(|p| p.name == a.name()).unwrap_or(0);
            bound[i] = Some(a);
        }
    } else {
        if launch.args.len() > params.len() {
            return Err(format!(
                "{path}: kernel `{}` has {} parameters besides its tensor maps, {} --arg given",
                func.name,
                params.len(),
                launch.args.len()
            ));
        }
        for (i, a) in launch.args.iter().enumerate() {
            bound[i] = Some(a);
        }
    }
    let mut regions = Vec::new();
    let mut bytes = vec![Vec::new(); all.len()];
    let slots = (0..all.len()).filter(|i| maps.iter().all(|(p, _)| p != i));
    for ((slot, p), a) in slots.zip(&params).zip(&bound) {
        let value = match a {
            None => {
                return Err(format!(
                    "{path}: kernel parameter `{}` ({} bytes) has no --arg (give a buffer, \
                     NAME=TYPE[N], or a value, NAME=VALUE; a CUtensorMap, --tensor-map)",
                    p.name, p.size
                ))
            }
            Some(Arg::Buffer {
                name,
                ty,
                len,
                init,
            }) => {
                if p.size != 8 {
                    return Err(format!(
                        "{path}: parameter `{}` is {} bytes, not a 64-bit pointer, but --arg {name} \
                         gives it a buffer",
                        p.name, p.size
                    ));
                }
                let start = GLOBAL_BASE + regions.len() as u64 * WINDOW;
                let mut data = Vec::new();
                for i in 0..*len as usize {
                    let v = match init.len() {
                        0 => 0,
                        1 => init[0],
                        _ => init[i],
                    };
                    data.extend_from_slice(&v.to_le_bytes()[..ty.bytes() as usize]);
                }
                regions.push(Region {
                    name: name.clone(),
                    space: Space::Global,
                    start,
                    size: len * ty.bytes(),
                    granule: ty.bytes(),
                    kind: kind_of(*ty),
                    init: data,
                    first_loc: 0,
                    per_block: 0,
                });
                start
            }
            Some(Arg::Scalar { value, float, .. }) => match p.ty {
                Some(t) if t.float() && !*float => t.from_f64(*value as i64 as f64),
                Some(t) if t.float() => t.from_f64(f64::from_bits(*value)),
                Some(t) if *float => {
                    return Err(format!(
                        "{path}: parameter `{}` is .{t:?}, not a float",
                        p.name
                    ))
                }
                _ => *value,
            },
        };
        bytes[slot] = value.to_le_bytes()[..p.size.min(8) as usize].to_vec();
    }
    // A tensor map's parameter holds the opaque 128-byte object; the copies find the map by the
    // parameter's address, its bytes read as zeros.
    let mut tensor_maps = Vec::new();
    for &(slot, m) in &maps {
        bytes[slot] = vec![0; all[slot].size as usize];
        tensor_maps.push(tensor_map_region(&regions, slot, m).map_err(|e| format!("{path}: {e}"))?);
    }
    let mut layout = Layout::new(&program, regions, launch.dynamic_smem);
    layout.tensor_maps = tensor_maps;
    let name = format!("{} ({path})", func.name);
    let mut kernel = Kernel::new(&name, grid);
    for r in &mut layout.regions {
        if r.space == Space::Const {
            continue;
        }
        let n = r.elements();
        let values: Vec<u64> = (0..n)
            .map(|i| {
                let at = i * r.granule as usize;
                let mut b = [0u8; 8];
                for (k, byte) in b.iter_mut().enumerate().take(r.granule as usize) {
                    *byte = r.init.get(at + k).copied().unwrap_or(0);
                }
                u64::from_le_bytes(b)
            })
            .collect();
        let (first, per_block) =
            kernel.buffer_of_bits(&r.name, r.kind, &values, r.space == Space::Shared);
        r.first_loc = first;
        r.per_block = per_block;
    }
    if layout.shared_size >= 1 << super::layout::CTA_SHIFT {
        return Err(format!(
            "{path}: {} bytes of shared memory per CTA; the model addresses at most {}",
            layout.shared_size,
            1u64 << super::layout::CTA_SHIFT
        ));
    }
    let (mbarriers, copies) = program.async_use();
    if mbarriers {
        for (name, n) in layout.mbarrier_slots(MAX_MBARRIER_SLOTS)? {
            kernel.mbarriers(&name, n);
        }
    }
    if copies {
        kernel.bulk_copies();
    }
    let kernel = kernel.max_steps(20_000);
    Ok(Prepared {
        kernel,
        shared: Arc::new((program, layout, entry, bytes)),
    })
}

/// The parameter slot each `--tensor-map` binds: the parameter of its name, else the next
/// 128-byte `.b8` parameter (`CUtensorMap` is "a 128-byte opaque object") not yet bound.
fn bind_tensor_maps<'a>(
    params: &[ParamSlot],
    maps: &'a [TensorMapArg],
) -> Result<Vec<(usize, &'a TensorMapArg)>, String> {
    let mut bound: Vec<(usize, &TensorMapArg)> = Vec::new();
    let is_map = |p: &ParamSlot| p.size == 128 && p.ty.is_none();
    for m in maps {
        let slot = match params.iter().position(|p| p.name == m.name) {
            Some(i) => i,
            None => (0..params.len())
                .find(|&i| is_map(&params[i]) && bound.iter().all(|(b, _)| *b != i))
                .ok_or_else(|| {
                    format!(
                        "--tensor-map {}: no parameter of that name, and no other 128-byte                          CUtensorMap parameter (.param .align 64 .b8 p[128]) left",
                        m.name
                    )
                })?,
        };
        if !is_map(&params[slot]) {
            return Err(format!(
                "--tensor-map {}: parameter `{}` is {} bytes, not a 128-byte CUtensorMap",
                m.name, params[slot].name, params[slot].size
            ));
        }
        if bound.iter().any(|(b, _)| *b == slot) {
            return Err(format!(
                "--tensor-map {}: parameter `{}` already has a tensor map",
                m.name, params[slot].name
            ));
        }
        bound.push((slot, m));
    }
    Ok(bound)
}

/// The tensor map `m` bound to `slot`, over its `--arg` buffer among `regions`.
fn tensor_map_region(
    regions: &[Region],
    slot: usize,
    m: &TensorMapArg,
) -> Result<BoundTensorMap, String> {
    let region = regions
        .iter()
        .position(|r| r.name == m.buffer && r.space == Space::Global)
        .ok_or_else(|| format!("--tensor-map {}: no --arg buffer `{}`", m.name, m.buffer))?;
    let r = &regions[region];
    if r.granule != m.ty.bytes() {
        return Err(format!(
            "--tensor-map {}: {}-byte elements over buffer `{}` of {}-byte elements",
            m.name,
            m.ty.bytes(),
            m.buffer,
            r.granule
        ));
    }
    if m.layout.span() > r.elements() as u64 {
        return Err(format!(
            "--tensor-map {}: the tensor spans {} elements, buffer `{}` has {}",
            m.name,
            m.layout.span(),
            m.buffer,
            r.elements()
        ));
    }
    Ok(BoundTensorMap {
        param: slot,
        region,
        layout: m.layout.clone(),
    })
}

fn kind_of(ty: Ty) -> ElemKind {
    match ty {
        Ty::F(32) => ElemKind::F32,
        Ty::F(64) => ElemKind::F64,
        Ty::S(64) => ElemKind::I64,
        Ty::S(_) => ElemKind::I32,
        Ty::U(64) | Ty::B(64) => ElemKind::U64,
        _ => ElemKind::U32,
    }
}

/// Check the kernel in the PTX file `path` (its text `source`): the launch flags of its first
/// line, overridden by `cli` for the flags named in `cli_set` (`grid`, `block`, …; `--arg`s
/// replace by name). A `.cu` file must be compiled to PTX first. The launch's `--timeout`
/// bounds `checker`'s exploration ([`Checker::timeout`]). Errors (bad input, exit 2 for a
/// CLI): a parse error, an instruction the interpreter does not decode, a missing `--arg`, an
/// access the model cannot represent.
pub fn check_ptx(
    source: &str,
    path: &str,
    cli: &Launch,
    cli_set: &[&str],
    checker: Checker,
) -> Result<Report, String> {
    let launch = Launch::from_source(source)
        .map_err(|e| format!("{path}:{e}"))?
        .overridden_by(cli, cli_set);
    let module = super::parse(source, path).map_err(|e| e.to_string())?;
    let program = Program::new(&module, path)?;
    let checker = match launch.timeout {
        Some(secs) => checker.timeout(
            std::time::Duration::try_from_secs_f64(secs).unwrap_or(std::time::Duration::MAX),
        ),
        None => checker,
    };
    prepare(program, &launch)?.check(&checker)
}
