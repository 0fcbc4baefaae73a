//! Warp-level operations: `__syncwarp`, shuffles, votes, `__match_any_sync`, `__activemask`
//! (semantics and the rules they check in [`crate::runtime::warp`]).
//!
//! Lanes are consecutive thread ids of a block ([`ThreadCtx::lane`], [`ThreadCtx::warp`]).
//! A mask names lanes of the caller's warp, bit `i` for lane `i`; [`FULL_MASK`] names all 32,
//! and [`ThreadCtx::warp_mask`] all lanes of a model's (possibly scaled-down) warp.

use super::{Elem, ThreadCtx};
use crate::runtime::report::FailureKind;
use crate::runtime::warp::WarpLanes;

type Loc = crate::runtime::report::Site;

/// Every lane of a 32-lane warp (`0xffffffff`).
pub const FULL_MASK: u32 = 0xffff_ffff;

impl ThreadCtx<'_> {
    /// The caller's warp as the runtime sees it: which thread runs each lane.
    pub(crate) fn warp_lanes(&self) -> WarpLanes {
        let g = self.grid;
        let first_tid = self.warp() * g.warp_size;
        let base = (self.bid() * g.threads_per_block) as usize;
        WarpLanes {
            key: (self.bid() * g.warps_per_block() + self.warp()) as usize,
            lanes: (first_tid..first_tid + g.warp_size)
                .map(|tid| (tid < g.threads_per_block).then_some(base + tid as usize))
                .collect(),
        }
    }

    /// Every lane of the caller's warp (all `warp_size` bits; [`FULL_MASK`] for 32 lanes).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("mask", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.warp_mask() == 0b11));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn warp_mask(&self) -> u32 {
        u32::MAX >> (32 - self.grid.warp_size)
    }

    #[track_caller]
    fn warp_op(&self, mask: u32, op: &'static str, value: u64) -> Vec<(u32, u64)> {
        let result = self.rt.warp_sync(
            &self.warp_lanes(),
            self.lane(),
            mask as u64,
            op,
            value,
            Loc::caller(),
        );
        (*result).clone()
    }

    /// `__syncwarp(mask)`: wait until every lane named in `mask` (which must name the caller)
    /// reaches a `syncwarp` with the same mask; their writes before it happen before their
    /// reads after it. A named lane that exits instead leaves the others hanging (barrier
    /// divergence); naming an exited lane, or lanes disagreeing on the mask, is warp misuse.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("syncwarp", Grid::new(1, 2).with_warp_size(2));
    /// let s = k.shared::<i32>("s", 2);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let lane = t.lane() as usize;
    ///     t.store(&s, lane, lane as i32 + 1);
    ///     t.syncwarp(t.warp_mask());
    ///     scopecheck_model::check!(t.load(&s, 1 - lane) == 2 - lane as i32);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn syncwarp(&self, mask: u32) {
        self.warp_op(mask, "syncwarp", 0);
    }

    /// The value a shuffle reads from lane `src`, or misuse if `src` is not taking part.
    #[track_caller]
    fn shuffled<T: Elem>(&self, values: &[(u32, u64)], src: u32, op: &str, mask: u32) -> T {
        match values.iter().find(|(lane, _)| *lane == src) {
            Some(&(_, v)) => T::from_bits(v),
            None => self.rt.fail_kind(
                FailureKind::WarpMisuse,
                format!(
                    "{op} at {}: lane {} reads lane {src}, which is not in the mask {mask:#x} \
                     (threads may only read from a thread taking part in the shuffle)",
                    Loc::caller(),
                    self.lane()
                ),
            ),
        }
    }

    /// `__shfl_sync(mask, var, src_lane)`: the `var` of lane `src_lane % warp_size`. Every lane
    /// of `mask` must call it (the synchronization of [`ThreadCtx::syncwarp`]), and the source
    /// lane must be one of them.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("broadcast", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = t.shfl_sync(t.warp_mask(), t.lane() * 10, 2);
    ///     scopecheck_model::check!(v == 20);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_sync<T: Elem>(&self, mask: u32, var: T, src_lane: u32) -> T {
        let values = self.warp_op(mask, "shfl_sync", var.to_bits());
        self.shuffled(&values, src_lane % self.grid.warp_size, "shfl_sync", mask)
    }

    /// `__shfl_up_sync(mask, var, delta)`: the `var` of lane `lane - delta`; lanes below
    /// `delta` keep their own value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("scan step", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = t.shfl_up_sync(t.warp_mask(), t.lane() + 1, 1);
    ///     scopecheck_model::check!(v == 1);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_up_sync<T: Elem>(&self, mask: u32, var: T, delta: u32) -> T {
        let values = self.warp_op(mask, "shfl_up_sync", var.to_bits());
        match self.lane().checked_sub(delta) {
            Some(src) => self.shuffled(&values, src, "shfl_up_sync", mask),
            None => var,
        }
    }

    /// `__shfl_down_sync(mask, var, delta)`: the `var` of lane `lane + delta`; lanes whose
    /// source would be past the warp keep their own value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("shift", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = t.shfl_down_sync(t.warp_mask(), t.lane() + 1, 1);
    ///     scopecheck_model::check!(v == 2);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_down_sync<T: Elem>(&self, mask: u32, var: T, delta: u32) -> T {
        let values = self.warp_op(mask, "shfl_down_sync", var.to_bits());
        let src = self.lane() + delta;
        if src < self.grid.warp_size {
            self.shuffled(&values, src, "shfl_down_sync", mask)
        } else {
            var
        }
    }

    /// `__shfl_xor_sync(mask, var, lane_mask)`: the `var` of lane `lane ^ lane_mask` (the
    /// butterfly of warp reductions).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("warp sum", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let mut v = t.lane() + 1;
    ///     let mut offset = t.warp_size() / 2;
    ///     while offset > 0 {
    ///         v += t.shfl_xor_sync(t.warp_mask(), v, offset);
    ///         offset /= 2;
    ///     }
    ///     scopecheck_model::check!(v == 10);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_xor_sync<T: Elem>(&self, mask: u32, var: T, lane_mask: u32) -> T {
        let values = self.warp_op(mask, "shfl_xor_sync", var.to_bits());
        let src = self.lane() ^ lane_mask;
        if src < self.grid.warp_size {
            self.shuffled(&values, src, "shfl_xor_sync", mask)
        } else {
            var
        }
    }

    /// `__ballot_sync(mask, predicate)`: bit `i` set when lane `i` of the mask brought a true
    /// predicate.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("ballot", Grid::new(1, 3).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let b = t.ballot_sync(0b111, t.lane() != 1);
    ///     scopecheck_model::check!(b == 0b101);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn ballot_sync(&self, mask: u32, predicate: bool) -> u32 {
        self.warp_op(mask, "ballot_sync", predicate as u64)
            .iter()
            .filter(|(_, p)| *p != 0)
            .fold(0, |bits, (lane, _)| bits | 1 << lane)
    }

    /// `__any_sync(mask, predicate)`: whether any lane of the mask brought a true predicate.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("any", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     scopecheck_model::check!(t.any_sync(0b11, t.lane() == 1));
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn any_sync(&self, mask: u32, predicate: bool) -> bool {
        self.warp_op(mask, "any_sync", predicate as u64)
            .iter()
            .any(|(_, p)| *p != 0)
    }

    /// `__all_sync(mask, predicate)`: whether every lane of the mask brought a true predicate.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("all", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     scopecheck_model::check!(!t.all_sync(0b11, t.lane() == 1));
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn all_sync(&self, mask: u32, predicate: bool) -> bool {
        self.warp_op(mask, "all_sync", predicate as u64)
            .iter()
            .all(|(_, p)| *p != 0)
    }

    /// `__match_any_sync(mask, value)`: the lanes of the mask that brought the same value as
    /// the caller.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("match", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let same = t.match_any_sync(t.warp_mask(), t.lane() % 2);
    ///     scopecheck_model::check!(same == if t.lane() % 2 == 0 { 0b0101 } else { 0b1010 });
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn match_any_sync<T: Elem>(&self, mask: u32, value: T) -> u32 {
        let bits = value.to_bits();
        self.warp_op(mask, "match_any_sync", bits)
            .iter()
            .filter(|(_, v)| *v == bits)
            .fold(0, |m, (lane, _)| m | 1 << lane)
    }

    /// `__activemask()`: the caller's lane and some of the other lanes that have not exited;
    /// which ones is up to the scheduler, and the engine explores the possibilities (see
    /// [`crate::runtime::Machine::active_mask`]). Code that assumes the whole warp is active
    /// is caught by the executions where it is not.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("activemask", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let m = t.activemask();
    ///     scopecheck_model::check!(m & (1 << t.lane()) != 0);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn activemask(&self) -> u32 {
        self.rt
            .active_mask(&self.warp_lanes(), self.lane(), Loc::caller()) as u32
    }
}
