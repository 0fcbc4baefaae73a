//! Warp-level operations: `__syncwarp`, shuffles (with `width`), votes, `__match_any_sync`,
//! `__match_all_sync`, `__reduce_*_sync` (`redux.sync`), `elect.sync`, `__activemask` and
//! `__nanosleep` (semantics and the rules they check in [`crate::runtime::warp`]).
//!
//! Lanes are consecutive thread ids of a block ([`ThreadCtx::lane`], [`ThreadCtx::warp`]).
//! A mask names lanes of the caller's warp, bit `i` for lane `i`; [`FULL_MASK`] names all 32,
//! and [`ThreadCtx::warp_mask`] all lanes of a model's (possibly scaled-down) warp.

use super::elem::Elem;
use super::thread::ThreadCtx;
use crate::runtime::report::FailureKind;
use crate::runtime::warp::WarpLanes;

type Loc = crate::runtime::report::Site;

/// The `shfl.sync` modes, by the CUDA function each is.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Shfl {
    Idx,
    Up,
    Down,
    Bfly,
}

impl Shfl {
    fn name(self) -> &'static str {
        match self {
            Shfl::Idx => "shfl_sync",
            Shfl::Up => "shfl_up_sync",
            Shfl::Down => "shfl_down_sync",
            Shfl::Bfly => "shfl_xor_sync",
        }
    }
}

/// The lane `shfl.sync` in `mode` reads for `lane`, and whether it is in range, for CUDA's
/// `width` (PTX ISA, *shfl.sync*, with `c = ((32 - width) << 8) | clamp`): "maxLane = (lane &
/// segmask) | (cval & ~segmask); minLane = (lane & segmask)"; `.up`: "j = lane - bval; pval =
/// (j >= maxLane)"; `.down`: "j = lane + bval; pval = (j <= maxLane)"; `.bfly`: "j = lane ^
/// bval; pval = (j <= maxLane)"; `.idx`: "j = minLane | (bval & ~segmask); pval = (j <=
/// maxLane)".
fn shfl_source(mode: Shfl, lane: u32, b: u32, width: u32) -> (i64, bool) {
    let (lane, b) = (lane as i64, (b & 0x1f) as i64);
    let segmask = !(width as i64 - 1) & 0x1f;
    let cval = if mode == Shfl::Up { 0 } else { 0x1f };
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let j = match mode {
        Shfl::Up => lane - b,
        Shfl::Down => lane + b,
        Shfl::Bfly => lane ^ b,
        Shfl::Idx => min_lane | (b & !segmask),
    };
    let valid = if mode == Shfl::Up {
        j >= max_lane
    } else {
        j <= max_lane
    };
    (j, valid)
}

/// The integer types `__reduce_add_sync`, `__reduce_min_sync` and `__reduce_max_sync` take
/// (PTX ISA, *redux.sync*: ".type = {.u32, .s32}"): `u32` and `i32`.
pub trait ReduxInt: Elem + Ord + private::Sealed {
    /// `a + b`, "truncated to 32 bits".
    fn wrapping_add(self, other: Self) -> Self;
}

impl ReduxInt for u32 {
    fn wrapping_add(self, other: Self) -> Self {
        u32::wrapping_add(self, other)
    }
}

impl ReduxInt for i32 {
    fn wrapping_add(self, other: Self) -> Self {
        i32::wrapping_add(self, other)
    }
}

mod private {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for i32 {}
}

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

    /// `__syncwarp(mask)` (`bar.warp.sync`): wait until every non-exited lane named in `mask`
    /// (which must name the caller) reaches a `syncwarp` with the same mask; their writes before
    /// it happen before their reads after it (PTX ISA: "bar.warp.sync also guarantee memory
    /// ordering among threads participating in barrier"). A named lane that has exited, or
    /// exits while the others wait, is not waited for; lanes disagreeing on the mask is warp
    /// misuse.
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

    /// `__shfl_sync(mask, var, src_lane)`: the `var` of lane `src_lane % warp_size`. Every
    /// non-exited lane of `mask` must call it (it waits for them as [`ThreadCtx::syncwarp`]
    /// does), and the source lane must be one of them. Unlike `syncwarp` it orders no memory
    /// accesses: the PTX ISA grants memory ordering to `bar.warp.sync` alone, and the exchanges
    /// (shuffles, votes, matches) only move register values.
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
        self.shuffle(Shfl::Idx, mask, var, src_lane, None)
    }

    /// `__shfl_sync(mask, var, src_lane, width)`: the warp splits into segments of `width`
    /// lanes, each "a separate entity with a starting logical lane ID of 0" (CUDA Programming
    /// Guide, *Warp Shuffle Functions*): the `var` of lane `src_lane % width` of the caller's
    /// segment. `width` must be a power of two no larger than the warp ("width must have a
    /// value which is a power of 2 in the range [1, warpSize]"); anything else is warp misuse.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("segment broadcast", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     // Two logical warps of two lanes: each gets its own first lane's value.
    ///     let v = t.shfl_sync_width(t.warp_mask(), t.lane() * 10, 0, 2);
    ///     scopecheck_model::check!(v == t.lane() / 2 * 20);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_sync_width<T: Elem>(&self, mask: u32, var: T, src_lane: u32, width: u32) -> T {
        self.shuffle(Shfl::Idx, mask, var, src_lane, Some(width))
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
        self.shuffle(Shfl::Up, mask, var, delta, None)
    }

    /// `__shfl_up_sync(mask, var, delta, width)`: within the caller's segment of `width`
    /// lanes, the `var` of lane `lane - delta`; a lane whose source would lie before its
    /// segment keeps its own value (PTX ISA, *shfl.sync*, `.up`: "j = lane - bval; pval = (j >=
    /// maxLane)", with `maxLane` the segment's first lane).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("segmented scan step", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = t.shfl_up_sync_width(t.warp_mask(), t.lane(), 1, 2);
    ///     // Lanes 0 and 2 start their segments and keep their own value.
    ///     scopecheck_model::check!(v == if t.lane() % 2 == 0 { t.lane() } else { t.lane() - 1 });
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_up_sync_width<T: Elem>(&self, mask: u32, var: T, delta: u32, width: u32) -> T {
        self.shuffle(Shfl::Up, mask, var, delta, Some(width))
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
        self.shuffle(Shfl::Down, mask, var, delta, None)
    }

    /// `__shfl_down_sync(mask, var, delta, width)`: within the caller's segment of `width`
    /// lanes, the `var` of lane `lane + delta`; a lane whose source would lie past its segment
    /// keeps its own value (PTX ISA, `.down`: "j = lane + bval; pval = (j <= maxLane)", with
    /// `maxLane` the segment's last lane).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("segmented shift", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = t.shfl_down_sync_width(t.warp_mask(), t.lane(), 1, 2);
    ///     scopecheck_model::check!(v == t.lane() / 2 * 2 + 1);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_down_sync_width<T: Elem>(&self, mask: u32, var: T, delta: u32, width: u32) -> T {
        self.shuffle(Shfl::Down, mask, var, delta, Some(width))
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
        self.shuffle(Shfl::Bfly, mask, var, lane_mask, None)
    }

    /// `__shfl_xor_sync(mask, var, lane_mask, width)`: the `var` of lane `lane ^ lane_mask`
    /// when it is not past the caller's segment of `width` lanes, else the caller's own (CUDA:
    /// "each group of width consecutive threads are able to access elements from earlier
    /// groups of threads, however if they attempt to access elements from later groups of
    /// threads their own value of var will be returned"; PTX ISA, `.bfly`: "j = lane ^ bval;
    /// pval = (j <= maxLane)").
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("sub-warp sum", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = t.lane() + 1;
    ///     let sum = v + t.shfl_xor_sync_width(t.warp_mask(), v, 1, 2);
    ///     scopecheck_model::check!(sum == if t.lane() < 2 { 3 } else { 7 });
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn shfl_xor_sync_width<T: Elem>(&self, mask: u32, var: T, lane_mask: u32, width: u32) -> T {
        self.shuffle(Shfl::Bfly, mask, var, lane_mask, Some(width))
    }

    /// Every shuffle: meet the lanes of `mask`, then read the lane PTX's `shfl.sync` picks with
    /// the `c` operand CUDA's `width` stands for (CUDA's headers pass `c = ((32 - width) << 8)
    /// | clamp`: the segment mask in bits 12..8, the clamp, 31 for all but `.up`'s 0, in bits
    /// 4..0). PTX ISA, *shfl.sync*: "cval = c[4:0]; segmask = c[12:8]; maxLane = (lane &
    /// segmask) | (cval & ~segmask); minLane = (lane & segmask)"; `.idx`: "j = minLane | (bval &
    /// ~segmask)", valid when "j <= maxLane"; a lane whose source is not valid keeps its own
    /// value ("If the source lane is out of range, the thread's own value is copied"). Without
    /// a width the segment is the model's whole warp, which may be scaled down to a size that
    /// is no power of two: `.idx` reads lane `b % warp_size`, the others clamp at its ends.
    #[track_caller]
    fn shuffle<T: Elem>(&self, mode: Shfl, mask: u32, var: T, b: u32, width: Option<u32>) -> T {
        let op = mode.name();
        let warp = self.grid.warp_size;
        let (j, valid) = match width {
            None => {
                let (lane, b) = (self.lane() as i64, b as i64);
                match mode {
                    Shfl::Idx => (b % warp as i64, true),
                    Shfl::Up => (lane - b, lane >= b),
                    Shfl::Down => (lane + b, true),
                    Shfl::Bfly => (lane ^ b, true),
                }
            }
            Some(width) => {
                if !width.is_power_of_two() || width > warp {
                    self.rt.fail_kind(
                        FailureKind::WarpMisuse,
                        format!(
                            "{op} at {}: width {width} is not a power of 2 in [1, {warp}] \
                             (CUDA: \"width must have a value which is a power of 2 in the \
                             range [1, warpSize]\")",
                            Loc::caller()
                        ),
                    );
                }
                shfl_source(mode, self.lane(), b, width)
            }
        };
        let values = self.warp_op(mask, op, var.to_bits());
        // A source past the model's (possibly scaled-down) warp is out of range.
        if valid && (0..warp as i64).contains(&j) {
            self.shuffled(&values, j as u32, op, mask)
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

    /// `__uni_sync(mask, predicate)` (`vote.sync.uni.pred`): whether every lane of the mask
    /// brought the same predicate (PTX ISA, *vote.sync*: "True if source predicate has the same
    /// value in all non-exited threads in membermask").
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("uni", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     scopecheck_model::check!(t.uni_sync(0b11, true) && !t.uni_sync(0b11, t.lane() == 1));
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn uni_sync(&self, mask: u32, predicate: bool) -> bool {
        let votes = self.warp_op(mask, "uni_sync", predicate as u64);
        votes.iter().all(|(_, p)| *p == votes[0].1)
    }

    /// `__match_all_sync(mask, value, &pred)` (`match.all.sync`): the lanes taking part and
    /// `true` when all of them brought the same value, else `(0, false)` (PTX ISA,
    /// *match.sync*: "d is set to mask corresponding to non-exited threads in membermask if all
    /// non-exited threads in membermask have same value of operand a; otherwise d is set to 0";
    /// "predicate p is set to true if all non-exited threads in membermask have same value of
    /// operand a").
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("match all", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     scopecheck_model::check!(t.match_all_sync(0b11, 7u32) == (0b11, true));
    ///     scopecheck_model::check!(t.match_all_sync(0b11, t.lane()) == (0, false));
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn match_all_sync<T: Elem>(&self, mask: u32, value: T) -> (u32, bool) {
        let bits = value.to_bits();
        let values = self.warp_op(mask, "match_all_sync", bits);
        if values.iter().all(|(_, v)| *v == bits) {
            (values.iter().fold(0, |m, (lane, _)| m | 1 << lane), true)
        } else {
            (0, false)
        }
    }

    /// The values every lane of the mask brought to one `redux.sync`.
    #[track_caller]
    fn reduce<T: Elem>(&self, mask: u32, op: &'static str, value: T) -> impl Iterator<Item = T> {
        self.warp_op(mask, op, value.to_bits())
            .into_iter()
            .map(|(_, v)| T::from_bits(v))
    }

    /// `__reduce_add_sync(mask, value)` (`redux.sync.add`): the sum of every lane's value,
    /// wrapping (PTX ISA, *redux.sync*: it "performs a reduction operation .op of the 32 bit
    /// source register src across all non-exited threads in the membermask"; "For the .add
    /// operation result is truncated to 32 bits"). Like the shuffles it waits for the lanes of
    /// the mask and orders no memory.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("redux", Grid::new(1, 4).with_warp_size(4));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     scopecheck_model::check!(t.reduce_add_sync(t.warp_mask(), t.lane() + 1) == 10);
    ///     scopecheck_model::check!(t.reduce_min_sync(t.warp_mask(), t.lane() as i32 - 1) == -1);
    ///     scopecheck_model::check!(t.reduce_max_sync(t.warp_mask(), 5 * t.lane()) == 15);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn reduce_add_sync<T: ReduxInt>(&self, mask: u32, value: T) -> T {
        let mut it = self.reduce(mask, "reduce_add_sync", value);
        let first = it.next().expect("the caller takes part");
        it.fold(first, T::wrapping_add)
    }

    /// `__reduce_min_sync(mask, value)` (`redux.sync.min.u32` / `.s32`): the smallest value any
    /// lane of the mask brought.
    #[track_caller]
    pub fn reduce_min_sync<T: ReduxInt>(&self, mask: u32, value: T) -> T {
        let it = self.reduce(mask, "reduce_min_sync", value);
        it.min().expect("the caller takes part")
    }

    /// `__reduce_max_sync(mask, value)` (`redux.sync.max.u32` / `.s32`): the largest value any
    /// lane of the mask brought.
    #[track_caller]
    pub fn reduce_max_sync<T: ReduxInt>(&self, mask: u32, value: T) -> T {
        let it = self.reduce(mask, "reduce_max_sync", value);
        it.max().expect("the caller takes part")
    }

    /// `__reduce_and_sync(mask, value)` (`redux.sync.and.b32`): the bitwise and of every lane's
    /// value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("bitwise redux", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = 0b100 | 1 << t.lane();
    ///     scopecheck_model::check!(t.reduce_and_sync(0b11, v) == 0b100);
    ///     scopecheck_model::check!(t.reduce_or_sync(0b11, v) == 0b111);
    ///     scopecheck_model::check!(t.reduce_xor_sync(0b11, v) == 0b011);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn reduce_and_sync(&self, mask: u32, value: u32) -> u32 {
        self.reduce(mask, "reduce_and_sync", value)
            .fold(u32::MAX, |a, v| a & v)
    }

    /// `__reduce_or_sync(mask, value)` (`redux.sync.or.b32`): the bitwise or of every lane's
    /// value.
    #[track_caller]
    pub fn reduce_or_sync(&self, mask: u32, value: u32) -> u32 {
        self.reduce(mask, "reduce_or_sync", value)
            .fold(0, |a, v| a | v)
    }

    /// `__reduce_xor_sync(mask, value)` (`redux.sync.xor.b32`): the bitwise exclusive or of
    /// every lane's value.
    #[track_caller]
    pub fn reduce_xor_sync(&self, mask: u32, value: u32) -> u32 {
        self.reduce(mask, "reduce_xor_sync", value)
            .fold(0, |a, v| a ^ v)
    }

    /// `elect.sync _|p, mask` (libcu++'s `cuda::ptx::elect_sync`): `true` in the one lane of
    /// the mask elected leader. PTX ISA, *elect.sync*: it "elects one predicated active leader
    /// thread from among a set of threads specified by membermask"; "Election of a leader
    /// thread happens deterministically, i.e. the same leader thread is elected for the same
    /// membermask every time". The ISA does not say which lane, so the checker explores every
    /// one (the first election over a mask picks any lane taking part, later ones over the same
    /// mask the same lane): code that assumes the leader is lane 0 fails. It waits for the
    /// lanes of the mask and orders no memory.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("elect", Grid::new(1, 2).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let leader = t.ballot_sync(0b11, t.elect_sync(0b11));
    ///     scopecheck_model::check!(leader.count_ones() == 1);
    ///     // The same mask elects the same lane again.
    ///     scopecheck_model::check!(t.ballot_sync(0b11, t.elect_sync(0b11)) == leader);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn elect_sync(&self, mask: u32) -> bool {
        let leader = self
            .rt
            .elect(&self.warp_lanes(), self.lane(), mask as u64, Loc::caller());
        leader == self.lane()
    }

    /// `cute::elect_one_sync()`: [`ThreadCtx::elect_sync`] over the whole warp
    /// ([`ThreadCtx::warp_mask`]).
    #[track_caller]
    pub fn elect_one_sync(&self) -> bool {
        self.elect_sync(self.warp_mask())
    }

    /// `__nanosleep(ns)` (`nanosleep.u32`): PTX ISA, *nanosleep*: it "suspends the thread for a
    /// sleep duration approximately close to the delay t", "guaranteed to be in the interval
    /// [0, 2*t]". The model has no clock: a sleep orders no memory and lets any other thread run
    /// meanwhile, or none, which every schedule already covers. CUDA code sleeps in the failed
    /// iteration of a spin loop (back-off), so this is that iteration's end,
    /// [`ThreadCtx::spin_loop`], with its contract: call it once per failed iteration, and
    /// keep what the next iteration does dependent only on what it reads (a back-off delay
    /// that grows is fine: time is not modelled).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("backoff", Grid::new(2, 1));
    /// let flag = k.global::<u32>("flag", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.bid() == 0 {
    ///         t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
    ///     } else {
    ///         let mut ns = 8;
    ///         while t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 0 {
    ///             t.nanosleep(ns);
    ///             ns = (ns * 2).min(256);
    ///         }
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn nanosleep(&self, ns: u32) {
        let _ = ns;
        self.rt.spin_wait(Loc::caller())
    }

    /// `__activemask()` (`activemask.b32`): the lanes executing this `activemask` together with
    /// the caller, which all get the same mask (PTX ISA: it "queries predicated-on active
    /// threads from the executing warp"). Which lanes execute it together is up to the
    /// scheduler, and the engine explores the possibilities: lanes at this call at the same
    /// moment, never one that exited or already went past it (see
    /// [`crate::runtime::Machine::active_mask_take`]). Code that assumes the whole warp is
    /// active is caught by the executions where it is not; code that uses the mask as its
    /// group (cooperative groups' `coalesced_threads()`) is not misuse.
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
