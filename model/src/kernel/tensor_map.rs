//! Tensor maps (`CUtensorMap`, tile mode) and the TMA copies that use them,
//! `cp.async.bulk.tensor`.
//!
//! ```
//! use scopecheck_model::kernel::*;
//! // A 6 × 2 tensor of u32 in global memory (rows of 6, a row stride of 8 elements = 32 bytes);
//! // a 4 × 2 box at column 4 reaches past the row's end: columns 6 and 7 are zero-filled.
//! let mut k = Kernel::new("tma tile", Grid::new(1, 1));
//! let src = k.global_from::<u32>("src", &(1..=16).collect::<Vec<u32>>());
//! let tile = k.shared::<u32>("tile", 8);
//! let full = k.mbarriers("full", 1);
//! let tmap = TensorMap::tiled(&src, &[6, 2], &[8], &[4, 2]);
//! let report = Checker::dfs().check(&k, move |t| {
//!     let bar = full.at(0);
//!     bar.init(t, 1);
//!     bar.arrive_expect_tx(t, tmap.box_bytes());
//!     t.cp_async_bulk_tensor_global_to_shared(&tile, 0, &tmap, &[4, 0], &bar);
//!     bar.wait_parity(t, 0);
//!     // Row 0: src[4], src[5], then two zeros; row 1: src[12], src[13], zeros.
//!     scopecheck_model::check!(t.load(&tile, 1) == 6 && t.load(&tile, 2) == 0);
//!     scopecheck_model::check!(t.load(&tile, 4) == 13 && t.load(&tile, 7) == 0);
//! });
//! assert!(report.passed(), "{report}");
//! ```
//!
//! PTX ISA, *Tensors*: a tensor is "a multi-dimensional matrix structure in the memory",
//! described by a tensor map ("an opaque tensor-map object ... created with
//! `cuTensorMapEncodeTiled`") that gives its element type, its dimensions, the strides between
//! the starts of consecutive elements of dimensions 1 and up (dimension 0 is contiguous) and a
//! *bounding box*, the box of `boxDim` elements a copy moves, placed at the tensor coordinates
//! the instruction gives. *Tile mode*: the box's elements are the tensor's elements at
//! coordinates `coords[d] + i`, `0 <= i < boxDim[d]`; "the elements outside the tensor bounds
//! are ... filled with zeros" on a load (out-of-bound fill `NONE`), and are not written by a
//! store. Shared memory holds the box with dimension 0 fastest (no interleave, no swizzle).
//!
//! The runtime's copy agent reads and writes exactly those elements (the race detector's and
//! the DFS's footprint): an out-of-bounds element of a load writes zero and reads nothing; one
//! of a store is skipped. Only `.tile` mode of 1-D and 2-D tensors is modelled (no im2col, no
//! swizzle, no interleave); `cuTensorMapEncodeTiled`'s constraints are checked at creation.

use super::buffer::{Buffer, Global, Shared};
use super::elem::Elem;
use super::mbarrier::MBarrier;
use super::thread::ThreadCtx;
use crate::runtime::async_copy::Completion;

type Loc = crate::runtime::report::Site;

/// The most dimensions a tensor map has here (CUDA allows 5; the model has 1-D and 2-D).
pub const MAX_TENSOR_RANK: usize = 2;

/// The geometry of a tiled tensor map, in elements: what `cuTensorMapEncodeTiled` takes, with
/// strides in elements rather than bytes. Front ends that have no [`Global`] (the PTX
/// interpreter) use it directly.
///
/// ```
/// use scopecheck_model::kernel::TensorMapLayout;
/// let l = TensorMapLayout::new(4, &[4, 3], &[4], &[4, 2]).unwrap();
/// // Box at (0, 2): row 2 is in bounds, row 3 is not.
/// assert_eq!(l.box_elements(&[0, 2]).unwrap(), [Some(8), Some(9), Some(10), Some(11), None, None, None, None]);
/// assert!(TensorMapLayout::new(4, &[4, 3], &[4], &[3, 2]).is_err()); // 12-byte box rows
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapLayout {
    /// Bytes per element (`CUtensorMapDataType`'s size).
    pub element_bytes: u64,
    /// `globalDim`: elements in each dimension, dimension 0 first.
    pub global_dim: Vec<u64>,
    /// `globalStrides` in elements: the distance between the starts of consecutive elements of
    /// dimensions `1..rank` (dimension 0's is 1).
    pub global_strides: Vec<u64>,
    /// `boxDim`: the bounding box's elements in each dimension.
    pub box_dim: Vec<u32>,
}

impl TensorMapLayout {
    /// Check a tiled tensor map's geometry against `cuTensorMapEncodeTiled`'s rules (CUDA Driver
    /// API, *Tensor Map Object Management*): `tensorRank` is 1 to 5 (1 or 2 here); every
    /// `globalDim` is positive; "each following dimension specified includes previous
    /// dimension stride" (a stride covers the dimension below it) and `globalStrides` are "a
    /// multiple of 16"; `boxDim` entries are "non-zero and less than or equal to 256", and with
    /// no interleave "the inner-dimension" of the box, `boxDim[0] * elementSizeInBytes`, "must
    /// be a multiple of 16 bytes".
    pub fn new(
        element_bytes: u64,
        global_dim: &[u64],
        global_strides: &[u64],
        box_dim: &[u32],
    ) -> Result<TensorMapLayout, String> {
        let rank = global_dim.len();
        if !(1..=MAX_TENSOR_RANK).contains(&rank) {
            return Err(format!(
                "a tensor map has 1 to {MAX_TENSOR_RANK} dimensions here, not {rank}"
            ));
        }
        if global_strides.len() + 1 != rank || box_dim.len() != rank {
            return Err(format!(
                "a {rank}-D tensor map takes {rank} sizes, {} strides and {rank} box sizes",
                rank - 1
            ));
        }
        if let Some(d) = global_dim.iter().position(|&n| n == 0) {
            return Err(format!("globalDim[{d}] is 0"));
        }
        if let Some(d) = box_dim.iter().position(|&b| b == 0 || b > 256) {
            return Err(format!("boxDim[{d}] = {} is not in 1..=256", box_dim[d]));
        }
        if !(box_dim[0] as u64 * element_bytes).is_multiple_of(16) {
            return Err(format!(
                "the box's inner dimension is {} bytes, not a multiple of 16",
                box_dim[0] as u64 * element_bytes
            ));
        }
        let mut below = global_dim[0];
        for (d, &s) in global_strides.iter().enumerate() {
            if !(s * element_bytes).is_multiple_of(16) {
                return Err(format!(
                    "globalStrides[{}] is {} bytes, not a multiple of 16",
                    d + 1,
                    s * element_bytes
                ));
            }
            if s < below {
                return Err(format!(
                    "globalStrides[{}] = {s} elements does not cover dimension {d} ({below} elements)",
                    d + 1
                ));
            }
            below = s * global_dim[d + 1];
        }
        Ok(TensorMapLayout {
            element_bytes,
            global_dim: global_dim.to_vec(),
            global_strides: global_strides.to_vec(),
            box_dim: box_dim.to_vec(),
        })
    }

    /// The tensor's dimensions.
    pub fn rank(&self) -> usize {
        self.global_dim.len()
    }

    /// Elements of global memory the tensor spans (its last element's offset + 1).
    pub fn span(&self) -> u64 {
        1 + (self.global_dim[0] - 1)
            + (self.global_strides.iter())
                .zip(&self.global_dim[1..])
                .map(|(s, d)| s * (d - 1))
                .sum::<u64>()
    }

    /// Elements in the bounding box.
    pub fn box_len(&self) -> usize {
        self.box_dim.iter().map(|&b| b as usize).product()
    }

    /// Bytes of the bounding box: what a load's `complete_tx` counts (out-of-bound elements
    /// included: they are written, as zeros).
    pub fn box_bytes(&self) -> u64 {
        self.box_len() as u64 * self.element_bytes
    }

    /// The element offsets in global memory of the box at `coords` (`tensorCoords`, one per
    /// dimension, signed), box element `i` at position `i` with dimension 0 fastest; `None`
    /// for an element outside the tensor (PTX ISA, tile mode: a coordinate below 0 or at or
    /// past `globalDim` is out of bounds).
    pub fn box_elements(&self, coords: &[i32]) -> Result<Vec<Option<u64>>, String> {
        if coords.len() != self.rank() {
            return Err(format!(
                "a {}-D tensor map takes {} coordinates, not {}",
                self.rank(),
                self.rank(),
                coords.len()
            ));
        }
        let mut out = Vec::with_capacity(self.box_len());
        for i in 0..self.box_len() {
            let mut at = i;
            let mut offset = Some(0u64);
            for (d, &coord) in coords.iter().enumerate() {
                let b = self.box_dim[d] as usize;
                let c = coord as i64 + (at % b) as i64;
                at /= b;
                let stride = match d {
                    0 => 1,
                    _ => self.global_strides[d - 1],
                };
                offset = match (offset, c >= 0 && (c as u64) < self.global_dim[d]) {
                    (Some(o), true) => Some(o + c as u64 * stride),
                    _ => None,
                };
            }
            out.push(offset);
        }
        Ok(out)
    }
}

/// A tiled tensor map over a [`Global`] buffer of `T` (`CUtensorMap` made by
/// `cuTensorMapEncodeTiled`, passed to a kernel as a `const __grid_constant__ CUtensorMap`).
#[derive(Clone, Debug)]
pub struct TensorMap<T> {
    global: Global<T>,
    layout: TensorMapLayout,
}

impl<T: Elem> TensorMap<T> {
    /// `cuTensorMapEncodeTiled(&map, T, dims.len(), global, dims, strides, box_dim, ...)` with
    /// strides in elements ([`TensorMapLayout::new`] for the rules); panics when they are
    /// broken or the tensor does not fit the buffer, as the driver call fails.
    #[track_caller]
    pub fn tiled(global: &Global<T>, dims: &[u64], strides: &[u64], box_dim: &[u32]) -> Self {
        let layout = TensorMapLayout::new(T::BYTES, dims, strides, box_dim)
            .unwrap_or_else(|e| panic!("cuTensorMapEncodeTiled: {e}"));
        assert!(
            layout.span() <= global.len() as u64,
            "cuTensorMapEncodeTiled: the tensor spans {} elements, the buffer has {}",
            layout.span(),
            global.len()
        );
        TensorMap {
            global: *global,
            layout,
        }
    }

    /// The map's geometry.
    pub fn layout(&self) -> &TensorMapLayout {
        &self.layout
    }

    /// Bytes one copy of the box moves: what `mbarrier.expect_tx` must announce for a load.
    pub fn box_bytes(&self) -> u64 {
        self.layout.box_bytes()
    }

    /// The global locations of the box at `coords`; `None` outside the tensor.
    #[track_caller]
    fn sources(&self, t: &ThreadCtx, coords: &[i32]) -> Vec<Option<usize>> {
        match self.layout.box_elements(coords) {
            Ok(e) => (e.into_iter())
                .map(|o| o.map(|o| self.global.location(t.bid(), o as usize)))
                .collect(),
            Err(e) => {
                t.rt.fail(format!("cp.async.bulk.tensor: {e} at {}", Loc::caller()))
            }
        }
    }
}

impl ThreadCtx<'_> {
    /// The shared locations `buf[start..]` that hold a box of `n` elements.
    #[track_caller]
    fn box_in<T: Elem, B: Buffer<T>>(&self, buf: &B, start: usize, n: usize) -> Vec<usize> {
        if start + n > buf.len() {
            self.rt.fail(format!(
                "cp.async.bulk.tensor: a box of {n} elements from element {start} does not fit \
                 a shared buffer of {} at {}",
                buf.len(),
                Loc::caller()
            ));
        }
        (start..start + n)
            .map(|i| buf.location(self.bid(), i))
            .collect()
    }

    /// `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    /// [dstMem], [tensorMap, tensorCoords], [mbar]`: copy the box of `tmap` at `coords` into
    /// this block's `dst[dst_start..]` asynchronously (out-of-bound elements as zeros); when
    /// done, the copy performs `complete_tx(box bytes)` on `bar`. CCCL:
    /// `cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared`.
    #[track_caller]
    pub fn cp_async_bulk_tensor_global_to_shared<T: Elem>(
        &self,
        dst: &Shared<T>,
        dst_start: usize,
        tmap: &TensorMap<T>,
        coords: &[i32],
        bar: &MBarrier,
    ) {
        let src = tmap.sources(self, coords);
        let dst = self.box_in(dst, dst_start, src.len());
        let completion = Completion::MBarrier(bar.index_of(self));
        (self.rt).tensor_copy(src, dst, tmap.box_bytes(), completion, Loc::caller())
    }

    /// `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    /// .multicast::cluster [dstMem], [tensorMap, tensorCoords], [mbar], ctaMask`: the box into
    /// `dst[dst_start..]` of every block of the caller's cluster whose rank is set in
    /// `cta_mask`, each destination's instance of `bar` receiving the complete-tx ("the
    /// mbarrier signal is also multicast to the same CTA-relative offset as dstMem"); one copy
    /// per destination, issued by the caller's copy agent.
    #[track_caller]
    pub fn cp_async_bulk_tensor_global_to_shared_multicast<T: Elem>(
        &self,
        dst: &Shared<T>,
        dst_start: usize,
        tmap: &TensorMap<T>,
        coords: &[i32],
        bar: &MBarrier,
        cta_mask: u16,
    ) {
        for rank in 0..self.cluster_nctarank().min(16) {
            if cta_mask & (1 << rank) == 0 {
                continue;
            }
            let peer = dst.map_shared_rank(self, rank);
            let src = tmap.sources(self, coords);
            let d = self.box_in(&peer, dst_start, src.len());
            let index = bar.peer_index(peer.block());
            let completion = Completion::MBarrier(index);
            (self.rt).tensor_copy(src, d, tmap.box_bytes(), completion, Loc::caller())
        }
    }

    /// `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [tensorMap, tensorCoords],
    /// [srcMem]`: copy this block's `src[src_start..]` (the box, dimension 0 fastest) to the box
    /// of `tmap` at `coords` asynchronously, skipping the elements outside the tensor; it
    /// completes through the thread's bulk async-groups ([`ThreadCtx::bulk_wait`]). The copy
    /// reads shared memory in the async proxy: generic writes to `src` need
    /// [`ThreadCtx::fence_proxy_async`] before it. CCCL:
    /// `cuda::device::experimental::cp_async_bulk_tensor_2d_shared_to_global`.
    #[track_caller]
    pub fn cp_async_bulk_tensor_shared_to_global<T: Elem>(
        &self,
        tmap: &TensorMap<T>,
        coords: &[i32],
        src: &Shared<T>,
        src_start: usize,
    ) {
        let dst = tmap.sources(self, coords);
        let box_src = self.box_in(src, src_start, dst.len());
        // PTX ISA, tile mode: a store writes only the box's elements inside the tensor.
        let (src, dst): (Vec<Option<usize>>, Vec<usize>) = (box_src.into_iter().zip(dst))
            .filter_map(|(s, d)| d.map(|d| (Some(s), d)))
            .unzip();
        let bytes = dst.len() as u64 * T::BYTES;
        (self.rt).tensor_copy(src, dst, bytes, Completion::BulkGroup, Loc::caller())
    }
}
