//! Byte addresses onto the runtime's typed locations.
//!
//! PTX addresses are bytes; the runtime's memory is a set of locations, each holding one value
//! of a fixed width, whose stores and accesses the memory model orders. The mapping:
//!
//! - Every buffer the kernel can reach — a `--arg` buffer, a module `.global` variable, a
//!   `.shared` variable (one copy per CTA), the launch's dynamic shared memory — is a *region*:
//!   a range of addresses in its state space cut into *elements* of `granule` bytes, element `i`
//!   being one location. A `--arg` buffer's granule is its element type's size; a variable's is
//!   its declared type's size, except `.b8`/`.u8`/`.s8` arrays (what NVRTC emits for most
//!   arrays: `.shared .align 4 .b8 s[128]`), whose granule is their alignment up to 4 bytes.
//! - An access of `size` bytes at offset `o` of a region is exact when it covers whole elements:
//!   `o` and `size` multiples of the granule. A weak access of several elements (a 64-bit load of
//!   two 32-bit elements, a `.v4` load) reads or writes each of them in one step of the machine;
//!   PTX ISA, *Memory Consistency Model*: "two memory operations are said to overlap when the set
//!   of byte locations accessed by them has a non-empty intersection", and such an access
//!   overlaps exactly the elements it covers, so races are checked on each. A strong access must
//!   be exactly one element (a strong operation on several locations has no single location in
//!   the model). Every other access — a part of an element, a misaligned one — cannot be
//!   represented exactly and is an *unsupported* error, never a silently different access.
//! - An access outside every region of its space is an out-of-bounds failure of its own kind.
//! - `.const` memory and kernel parameters are read-only for the whole kernel (no thread can
//!   write them), and `.local` memory and function parameters are private to their thread: none
//!   of them can take part in a race or synchronization, so each thread keeps them as plain
//!   bytes in the interpreter, outside the memory model.
//!
//! Address spaces (chosen here; a kernel only sees them through pointer values): a `.global`
//! region `k` starts at `GLOBAL_BASE + k * 2^32`; `.shared` addresses of a CTA start at 0, in
//! declaration order with each variable's alignment, dynamic shared memory after the static
//! variables aligned to 16; `.local` addresses are offsets in the thread's stack of `.local`
//! frames; `.const` ones offsets in the module's constant bank. Generic addresses: global
//! addresses are generic addresses unchanged (`cvta.global` is the identity); shared, local and
//! constant addresses appear in the generic space at `SHARED_WINDOW`, `LOCAL_WINDOW` and
//! `CONST_WINDOW` (`cvta.shared` adds the window's base, `cvta.to.shared` subtracts it), each
//! window 2^32 bytes.
//!
//! Shared addresses of the cluster (PTX ISA, *State spaces*: "the .shared::cta window is
//! contained in the .shared::cluster window"): bits `CTA_SHIFT..32` of a shared address name
//! its CTA, 0 the executing CTA (every `.shared::cta` address), `r + 1` the CTA of rank `r` in
//! the cluster (what `mapa` makes); the bits below are the offset in that CTA's shared memory,
//! which must stay below `2^CTA_SHIFT` bytes.

use super::decode::Space;
use super::program::Program;
use crate::runtime::memory::ElemKind;

/// Where `.global` region 0 starts; region `k` is `2^32 * k` bytes further.
pub const GLOBAL_BASE: u64 = 0x100_0000_0000;
/// The generic address of shared address 0.
pub const SHARED_WINDOW: u64 = 0x10_0000_0000;
/// The generic address of local address 0.
pub const LOCAL_WINDOW: u64 = 0x20_0000_0000;
/// The generic address of constant address 0.
pub const CONST_WINDOW: u64 = 0x30_0000_0000;
/// Where the CTA of a shared address starts (see the module documentation).
pub const CTA_SHIFT: u32 = 24;
/// Each window's size.
pub const WINDOW: u64 = 1 << 32;
/// Where the address of a function's `.param` slot `s` is: `PARAM_BASE + s * 2^16` (for
/// `mov.u64 %rd, param` followed by `ld.param [%rd]`).
pub const PARAM_BASE: u64 = 0x40_0000_0000;

/// A buffer in model memory.
#[derive(Clone, Debug)]
pub struct Region {
    /// The name reports use.
    pub name: String,
    /// `Global` or `Shared` (model memory), or `Const` (read-only bytes in `init`).
    pub space: Space,
    /// First address, in its space.
    pub start: u64,
    /// Size in bytes.
    pub size: u64,
    /// Bytes per element (location).
    pub granule: u64,
    /// How element values print.
    pub kind: ElemKind,
    /// Initial contents (little-endian; shorter than `size`: the rest is zero, or undefined for
    /// shared memory).
    pub init: Vec<u8>,
    /// The location of element 0 (of block 0, for shared memory), set when the kernel's buffers
    /// are created.
    pub first_loc: usize,
    /// For shared memory: elements per block copy (block `b`'s element `i` is location
    /// `first_loc + b * per_block + i`).
    pub per_block: usize,
}

impl Region {
    /// Elements in the region.
    pub fn elements(&self) -> usize {
        (self.size / self.granule) as usize
    }
}

/// The launch's memory: every region, and each variable's address in its space.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// The regions.
    pub regions: Vec<Region>,
    /// Per program variable: its address in its space (`.local` variables: the offset in their
    /// function's frame), or `None` for a `.local` one.
    pub var_addr: Vec<u64>,
    /// Per function: the size of its `.local` frame.
    pub frame_size: Vec<u64>,
    /// Static plus dynamic shared memory per CTA.
    pub shared_size: u64,
    /// Dynamic shared memory per CTA.
    pub dynamic_smem: u64,
    /// The shared regions that hold mbarriers ([`Layout::mbarrier_slots`]): region index and
    /// the slot of its first 8-byte word.
    pub mbarrier_regions: Vec<(usize, usize)>,
    /// The tensor maps bound to the entry's parameters (`--tensor-map`).
    pub tensor_maps: Vec<BoundTensorMap>,
}

/// A tensor map (`CUtensorMap`) bound to a kernel parameter: the parameter's address is the
/// map's address, and the map describes a tensor in a global region.
#[derive(Clone, Debug)]
pub struct BoundTensorMap {
    /// The entry's parameter slot holding the map (`.param .align 64 .b8 tmap[128]`).
    pub param: usize,
    /// The global region (a `--arg` buffer) the tensor lies in, from its first element.
    pub region: usize,
    /// The map's geometry, in the region's elements.
    pub layout: crate::kernel::TensorMapLayout,
}

/// The granule of a variable's region: its type's size, or for byte arrays their alignment up
/// to 4 bytes (see the module documentation).
fn granule_of(var: &super::program::Var) -> u64 {
    let bytes = var.elem.bytes();
    if bytes == 1 {
        var.align.clamp(1, 4)
    } else {
        bytes
    }
}

fn kind_of(ty: super::value::Ty, granule: u64) -> ElemKind {
    use super::value::Ty;
    match (ty, granule) {
        (Ty::F(32), 4) => ElemKind::F32,
        (Ty::F(64), 8) => ElemKind::F64,
        (Ty::S(_), 4) => ElemKind::I32,
        (Ty::S(_), 8) => ElemKind::I64,
        (_, 8) => ElemKind::U64,
        _ => ElemKind::U32,
    }
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

impl Layout {
    /// Lay out `program`'s variables, after the `--arg` buffers already in `regions` (global
    /// regions numbered in order), with `dynamic_smem` bytes of dynamic shared memory.
    pub fn new(program: &Program, mut regions: Vec<Region>, dynamic_smem: u64) -> Layout {
        let mut var_addr = vec![0; program.vars.len()];
        let mut shared = 0u64;
        let mut konst = 0u64;
        let mut globals = regions.len() as u64;
        let mut frame_size = vec![0; program.funcs.len()];
        let mut dynamic_align = 16u64;
        for (i, v) in program.vars.iter().enumerate() {
            let granule = granule_of(v);
            let (start, space) = match v.space {
                Space::Global => {
                    let start = GLOBAL_BASE + globals * WINDOW;
                    globals += 1;
                    (start, Space::Global)
                }
                Space::Shared if v.dynamic => {
                    dynamic_align = dynamic_align.max(v.align);
                    continue;
                }
                Space::Shared => {
                    shared = align_up(shared, v.align);
                    let start = shared;
                    shared += v.size;
                    (start, Space::Shared)
                }
                Space::Const => {
                    konst = align_up(konst, v.align);
                    let start = konst;
                    konst += v.size;
                    (start, Space::Const)
                }
                _ => continue,
            };
            var_addr[i] = start;
            regions.push(Region {
                name: v.name.clone(),
                space,
                start,
                size: align_up(v.size, granule),
                granule,
                kind: kind_of(v.elem, granule),
                init: v.init.clone(),
                first_loc: 0,
                per_block: 0,
            });
        }
        // `.local` variables: offsets within their function's frame.
        for (f, func) in program.funcs.iter().enumerate() {
            let mut size = 0u64;
            for &v in &func.locals {
                let var = &program.vars[v];
                size = align_up(size, var.align);
                var_addr[v] = size;
                size += var.size;
            }
            frame_size[f] = align_up(size, 16);
        }
        // Dynamic shared memory: after the static variables, aligned for every extern
        // declaration; every `extern .shared` variable names its start.
        let dyn_start = align_up(shared, dynamic_align);
        if dynamic_smem > 0 {
            let granule = program
                .vars
                .iter()
                .filter(|v| v.dynamic)
                .map(granule_of)
                .min()
                .unwrap_or(4);
            regions.push(Region {
                name: "dynamic shared memory".into(),
                space: Space::Shared,
                start: dyn_start,
                size: align_up(dynamic_smem, granule),
                granule,
                kind: ElemKind::U32,
                init: Vec::new(),
                first_loc: 0,
                per_block: 0,
            });
        }
        for (i, v) in program.vars.iter().enumerate() {
            if v.dynamic {
                var_addr[i] = dyn_start;
            }
        }
        Layout {
            regions,
            var_addr,
            frame_size,
            shared_size: dyn_start + dynamic_smem,
            dynamic_smem,
            mbarrier_regions: Vec::new(),
            tensor_maps: Vec::new(),
        }
    }

    /// Give every 8-byte word of the shared regions that can hold an mbarrier a slot (PTX ISA,
    /// *mbarrier*: "an opaque object in shared memory … of size 8 bytes … aligned to 8 bytes"):
    /// the regions that start 8-byte aligned. Returns each such region's name and number of
    /// words, in slot order, for the launch to declare as the kernel's mbarriers; slot `k` of
    /// the launch is mbarrier `k` of each CTA. At most `limit` slots: more is an error.
    pub fn mbarrier_slots(&mut self, limit: usize) -> Result<Vec<(String, usize)>, String> {
        let mut slots = Vec::new();
        let mut next = 0;
        for (i, r) in self.regions.iter().enumerate() {
            if r.space != Space::Shared || !r.start.is_multiple_of(8) || r.size < 8 {
                continue;
            }
            let words = (r.size / 8) as usize;
            self.mbarrier_regions.push((i, next));
            slots.push((r.name.clone(), words));
            next += words;
        }
        if next > limit {
            return Err(format!(
                "the kernel's shared memory has {next} 8-byte words that may hold an mbarrier; \
                 the model declares at most {limit} (use less shared memory in the check)"
            ));
        }
        Ok(slots)
    }

    /// The mbarrier slot of the 8-byte word at shared offset `offset`, or why there is none.
    pub fn mbarrier_at(&self, offset: u64) -> Result<usize, String> {
        let Some((r, off)) = self.find(Space::Shared, offset) else {
            return Err("not in any shared variable".into());
        };
        if !off.is_multiple_of(8) {
            return Err(format!("not 8-byte aligned in `{}`", self.regions[r].name));
        }
        match self
            .mbarrier_regions
            .iter()
            .find(|(region, _)| *region == r)
        {
            Some(&(_, first)) => Ok(first + (off / 8) as usize),
            None => Err(format!(
                "`{}` is not 8-byte aligned, so it cannot hold an mbarrier",
                self.regions[r].name
            )),
        }
    }

    /// The region of `space` holding address `addr` and the offset in it, if any.
    pub fn find(&self, space: Space, addr: u64) -> Option<(usize, u64)> {
        self.regions.iter().enumerate().find_map(|(i, r)| {
            (r.space == space && addr >= r.start && addr - r.start < r.size)
                .then(|| (i, addr - r.start))
        })
    }

    /// The region of `space` nearest below `addr`, to name in an out-of-bounds report.
    pub fn nearest(&self, space: Space, addr: u64) -> Option<&Region> {
        self.regions
            .iter()
            .filter(|r| r.space == space && r.start <= addr)
            .max_by_key(|r| r.start)
    }
}

/// A shared address's CTA (`None`: the executing CTA; `Some(r)`: rank `r` of the cluster) and
/// its offset in that CTA's shared memory.
pub fn shared_cta(addr: u64) -> (Option<u32>, u64) {
    let rank = ((addr & (WINDOW - 1)) >> CTA_SHIFT) as u32;
    let offset = addr & ((1 << CTA_SHIFT) - 1);
    (rank.checked_sub(1), offset)
}

/// The `.shared::cluster` address of `offset` in the CTA of rank `rank` (`mapa`).
pub fn shared_cluster(rank: u32, offset: u64) -> u64 {
    (u64::from(rank) + 1) << CTA_SHIFT | (offset & ((1 << CTA_SHIFT) - 1))
}

/// A generic address's state space and its address there.
pub fn from_generic(addr: u64) -> (Space, u64) {
    for (base, space) in [
        (SHARED_WINDOW, Space::Shared),
        (LOCAL_WINDOW, Space::Local),
        (CONST_WINDOW, Space::Const),
        (PARAM_BASE, Space::Param),
    ] {
        if addr >= base && addr - base < WINDOW {
            return (space, addr - base);
        }
    }
    (Space::Global, addr)
}

/// The generic address of `addr` in `space` (`cvta.space`).
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared | Space::SharedCluster => SHARED_WINDOW + (addr & (WINDOW - 1)),
        Space::Local => LOCAL_WINDOW + (addr & (WINDOW - 1)),
        Space::Const => CONST_WINDOW + (addr & (WINDOW - 1)),
        Space::Param => addr,
        Space::Global | Space::Generic => addr,
    }
}
