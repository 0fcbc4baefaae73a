//! `cp.async.bulk.tensor` on the runtime's copy agent: the tensor map an instruction names is
//! the one `--tensor-map` bound to the kernel parameter at its address
//! ([`crate::ptx::layout::BoundTensorMap`]), and the box's elements are those of
//! [`crate::kernel::TensorMapLayout::box_elements`] — the same copies the Rust kernel API's
//! [`crate::kernel::TensorMap`] issues.

use super::Thread;
use crate::ptx::decode::{Addr, AsyncOp, Space, Src};
use crate::ptx::layout::{from_generic, shared_cluster, shared_cta, BoundTensorMap};
use crate::runtime::async_copy::Completion;
use crate::runtime::report::{FailureKind, Site};

impl Thread<'_> {
    /// Execute `cp.async.bulk.tensor` ([`AsyncOp::TensorToShared`], [`AsyncOp::TensorToGlobal`]).
    pub(super) fn exec_tensor(&mut self, op: &AsyncOp, site: Site) {
        match op {
            // "copies the tensor data from the global memory ... into the shared memory ...
            // the mbarrier object ... complete-tx" with the box's bytes; ".multicast::cluster":
            // "copied to the same CTA-relative offset as dstMem in the shared memory of each
            // destination CTA" of `ctaMask`, "the mbarrier signal is also multicast to the same
            // CTA-relative offset".
            AsyncOp::TensorToShared {
                dst,
                tensor_map,
                coords,
                bar,
                multicast,
            } => {
                let map = self.tensor_map(tensor_map, site).clone();
                let src = self.tensor_box(&map, coords, site);
                let bytes = map.layout.box_bytes();
                let (d, b) = (self.address(dst), self.address(bar));
                let targets: Vec<(u64, u64)> = match multicast {
                    None => vec![(d, b)],
                    Some(mask) => {
                        let mask = self.src(mask);
                        let ((_, d_off), (_, b_off)) = (shared_cta(d), shared_cta(b));
                        (0..self.t.cluster_nctarank().min(16))
                            .filter(|rank| mask & (1 << rank) != 0)
                            .map(|r| (shared_cluster(r, d_off), shared_cluster(r, b_off)))
                            .collect()
                    }
                };
                for (d, b) in targets {
                    let dst = self.copy_locations(Space::SharedCluster, d, bytes, site);
                    self.box_cut_alike(&map, dst.len(), site);
                    let bar = self.mbarrier(Space::SharedCluster, b, false, site);
                    let (bar_block, _) = self.shared_block(b, false, site);
                    let (dst_block, _) = self.shared_block(d, false, site);
                    if bar_block != dst_block {
                        self.misuse(
                            site,
                            "the tensor copy's mbarrier is not in the CTA of its destination"
                                .into(),
                        );
                    }
                    (self.t.rt).tensor_copy(
                        src.clone(),
                        dst,
                        bytes,
                        Completion::MBarrier(bar),
                        site,
                    );
                }
            }
            // ".global.shared::cta ... bulk_group": the box from `srcMem`, written to the
            // tensor's elements inside its bounds only (tile mode), completing through the
            // thread's bulk async-groups.
            AsyncOp::TensorToGlobal {
                tensor_map,
                coords,
                src,
            } => {
                let map = self.tensor_map(tensor_map, site).clone();
                let dst = self.tensor_box(&map, coords, site);
                let s = self.address(src);
                let staged = self.copy_locations(Space::Shared, s, map.layout.box_bytes(), site);
                self.box_cut_alike(&map, staged.len(), site);
                let (src, dst): (Vec<Option<usize>>, Vec<usize>) = (staged.into_iter().zip(dst))
                    .filter_map(|(s, d)| d.map(|d| (Some(s), d)))
                    .unzip();
                let bytes = dst.len() as u64 * map.layout.element_bytes;
                (self.t.rt).tensor_copy(src, dst, bytes, Completion::BulkGroup, site);
            }
            _ => unreachable!("exec_tensor runs the tensor copies only"),
        }
    }

    /// The tensor map at the operand's address: a kernel parameter bound with `--tensor-map`
    /// ("tensorMap ... the address of the tensor-map object in .param space ... or .const /
    /// .global space"; the model's maps are parameters).
    fn tensor_map(&self, a: &Addr, site: Site) -> &BoundTensorMap {
        let addr = self.address(a);
        let (space, at) = from_generic(addr);
        let slot = (space == Space::Param && at.trailing_zeros() >= 16).then_some(at >> 16);
        let found = slot.and_then(|s| self.layout.tensor_maps.iter().find(|m| m.param as u64 == s));
        match found {
            Some(m) => m,
            None => self.fail(
                FailureKind::Unsupported,
                site,
                format!(
                    "the tensor map at {addr:#x} is not a kernel parameter bound with \
                     --tensor-map PARAM=BUFFER:TYPE:DIMS:BOX"
                ),
            ),
        }
    }

    /// The global locations of the box at `coords` (`.s32` each); `None` outside the tensor.
    fn tensor_box(&self, map: &BoundTensorMap, coords: &[Src], site: Site) -> Vec<Option<usize>> {
        let coords: Vec<i32> = coords.iter().map(|c| self.src(c) as u32 as i32).collect();
        let first = self.layout.regions[map.region].first_loc;
        match map.layout.box_elements(&coords) {
            Ok(e) => e
                .into_iter()
                .map(|o| o.map(|o| first + o as usize))
                .collect(),
            Err(e) => self.fail(FailureKind::Unsupported, site, e),
        }
    }

    /// The shared side of a tensor copy must hold the box as whole elements of its type.
    fn box_cut_alike(&self, map: &BoundTensorMap, shared: usize, site: Site) {
        if shared != map.layout.box_len() {
            self.fail(
                FailureKind::Unsupported,
                site,
                format!(
                    "the box's {} elements of {} bytes are {shared} elements of shared memory: \
                     the model copies whole elements",
                    map.layout.box_len(),
                    map.layout.element_bytes
                ),
            );
        }
    }
}
