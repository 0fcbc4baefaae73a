//! The rest of CUDA's atomics (`atomicSub/Min/Max/And/Or/Xor/Inc/Dec`), PTX reductions
//! (`red.*`, no return value), `volatile` accesses and `ld.global.nc`.
//!
//! Every read-modify-write takes a PTX order and scope like [`ThreadCtx::atomic_add`] and
//! reads the newest store of its location (atomicity). The wrapping bounds of `atom.inc` and
//! `atom.dec` are the PTX ISA's (*Parallel Synchronization and Communication Instructions:
//! atom*): "`inc: d = (old >= b) ? 0 : old + 1`", "`dec: d = ((old == 0) || (old > b)) ? b :
//! old - 1`".

use super::buffer::{Buffer, Global};
use super::elem::Elem;
use super::order::{MemoryOrder, MemoryScope};
use super::thread::ThreadCtx;
use crate::runtime::report::RmwKind;
use crate::scope::{Order, Scope};

type Loc = crate::runtime::report::Site;

/// Integer element types: the bitwise and subtracting atomics take them.
pub trait Integer: Elem + Ord {
    /// `self - other`, wrapping.
    fn wrapping_sub(self, other: Self) -> Self;
    /// `self & other` (`atomicAnd`, `atom.and`).
    fn bit_and(self, other: Self) -> Self;
    /// `self | other` (`atomicOr`, `atom.or`).
    fn bit_or(self, other: Self) -> Self;
    /// `self ^ other` (`atomicXor`, `atom.xor`).
    fn bit_xor(self, other: Self) -> Self;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            fn wrapping_sub(self, other: Self) -> Self {
                <$t>::wrapping_sub(self, other)
            }
            fn bit_and(self, other: Self) -> Self {
                self & other
            }
            fn bit_or(self, other: Self) -> Self {
                self | other
            }
            fn bit_xor(self, other: Self) -> Self {
                self ^ other
            }
        }
    )*};
}
integer!(i32, u32, i64, u64);

/// `atom.inc`'s new value.
pub fn inc(old: u32, bound: u32) -> u32 {
    if old >= bound {
        0
    } else {
        old + 1
    }
}

/// `atom.dec`'s new value.
pub fn dec(old: u32, bound: u32) -> u32 {
    if old == 0 || old > bound {
        bound
    } else {
        old - 1
    }
}

impl ThreadCtx<'_> {
    /// `atomicSub`: subtract `value` (wrapping); returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("sub", Grid::new(1, 2));
    /// let n = k.global_from::<i32>("n", &[10]);
    /// k.postcondition("n == 4", move |m| m.get(&n, 0) == 4);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.atomic_sub(&n, 0, 3, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_sub<T: Integer, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let f = move |old: T| Some(old.wrapping_sub(value));
        self.rmw(buf, index, RmwKind::Sub, f, order, scope)
    }

    /// `atomicMin`: store the smaller of the old value and `value`; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("min", Grid::new(1, 2));
    /// let m = k.global_from::<i32>("m", &[5]);
    /// k.postcondition("m == -1", move |f| f.get(&m, 0) == -1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let v = if t.tid() == 0 { -1 } else { 3 };
    ///     t.atomic_min(&m, 0, v, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_min<T: Elem + PartialOrd, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let f = move |old: T| Some(if value < old { value } else { old });
        self.rmw(buf, index, RmwKind::Min, f, order, scope)
    }

    /// `atomicMax`: store the larger of the old value and `value`; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("max", Grid::new(1, 2));
    /// let m = k.global::<u32>("m", 1);
    /// k.postcondition("m == 9", move |f| f.get(&m, 0) == 9);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.atomic_max(&m, 0, 9 - t.tid(), MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_max<T: Elem + PartialOrd, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let f = move |old: T| Some(if value > old { value } else { old });
        self.rmw(buf, index, RmwKind::Max, f, order, scope)
    }

    /// `atomicAnd`: bitwise and; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("and", Grid::new(1, 2));
    /// let bits = k.global_from::<u32>("bits", &[0b111]);
    /// k.postcondition("bits == 0b001", move |f| f.get(&bits, 0) == 0b001);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let clear = !(0b10 << t.tid());
    ///     t.atomic_and(&bits, 0, clear, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_and<T: Integer, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let f = move |old: T| Some(old.bit_and(value));
        self.rmw(buf, index, RmwKind::And, f, order, scope)
    }

    /// `atomicOr`: bitwise or; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("or", Grid::new(1, 2));
    /// let bits = k.global::<u32>("bits", 1);
    /// k.postcondition("both bits set", move |f| f.get(&bits, 0) == 0b11);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.atomic_or(&bits, 0, 1 << t.tid(), MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_or<T: Integer, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let f = move |old: T| Some(old.bit_or(value));
        self.rmw(buf, index, RmwKind::Or, f, order, scope)
    }

    /// `atomicXor`: bitwise exclusive or; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("xor", Grid::new(1, 2));
    /// let bits = k.global::<u32>("bits", 1);
    /// k.postcondition("flipped twice", move |f| f.get(&bits, 0) == 0);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.atomic_xor(&bits, 0, 0b101, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_xor<T: Integer, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let f = move |old: T| Some(old.bit_xor(value));
        self.rmw(buf, index, RmwKind::Xor, f, order, scope)
    }

    /// `atomicInc(address, bound)` (`atom.inc.u32`): `(old >= bound) ? 0 : old + 1`; returns
    /// the old value. A ring of `bound + 1` tickets.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("inc", Grid::new(1, 3));
    /// let ticket = k.global::<u32>("ticket", 1);
    /// k.postcondition("wrapped to 1", move |f| f.get(&ticket, 0) == 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.atomic_inc(&ticket, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_inc<B: Buffer<u32>>(
        &self,
        buf: &B,
        index: usize,
        bound: u32,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> u32 {
        let f = move |old: u32| Some(inc(old, bound));
        self.rmw(buf, index, RmwKind::Inc, f, order, scope)
    }

    /// `atomicDec(address, bound)` (`atom.dec.u32`): `(old == 0 || old > bound) ? bound :
    /// old - 1`; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("dec", Grid::new(1, 2));
    /// let n = k.global::<u32>("n", 1);
    /// k.postcondition("0 -> 4 -> 3", move |f| f.get(&n, 0) == 3);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.atomic_dec(&n, 0, 4, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn atomic_dec<B: Buffer<u32>>(
        &self,
        buf: &B,
        index: usize,
        bound: u32,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> u32 {
        let f = move |old: u32| Some(dec(old, bound));
        self.rmw(buf, index, RmwKind::Dec, f, order, scope)
    }

    /// `red.add`: [`ThreadCtx::atomic_add`] without its return value (a reduction).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red", Grid::new(2, 1));
    /// let sum = k.global::<u64>("sum", 1);
    /// k.postcondition("sum == 2", move |f| f.get(&sum, 0) == 2);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_add(&sum, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn red_add<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_add(buf, index, value, order, scope);
    }

    /// `red.min`: [`ThreadCtx::atomic_min`] without its return value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red.min", Grid::new(1, 1));
    /// let m = k.global_from::<i32>("m", &[3]);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_min(&m, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed());
    /// ```
    #[track_caller]
    pub fn red_min<T: Elem + PartialOrd, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_min(buf, index, value, order, scope);
    }

    /// `red.max`: [`ThreadCtx::atomic_max`] without its return value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red.max", Grid::new(1, 1));
    /// let m = k.global::<i32>("m", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_max(&m, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed());
    /// ```
    #[track_caller]
    pub fn red_max<T: Elem + PartialOrd, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_max(buf, index, value, order, scope);
    }

    /// `red.and`: [`ThreadCtx::atomic_and`] without its return value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red.and", Grid::new(1, 1));
    /// let m = k.global_from::<u32>("m", &[3]);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_and(&m, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed());
    /// ```
    #[track_caller]
    pub fn red_and<T: Integer, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_and(buf, index, value, order, scope);
    }

    /// `red.or`: [`ThreadCtx::atomic_or`] without its return value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red.or", Grid::new(1, 1));
    /// let m = k.global::<u32>("m", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_or(&m, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed());
    /// ```
    #[track_caller]
    pub fn red_or<T: Integer, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_or(buf, index, value, order, scope);
    }

    /// `red.xor`: [`ThreadCtx::atomic_xor`] without its return value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red.xor", Grid::new(1, 1));
    /// let m = k.global::<u32>("m", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_xor(&m, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed());
    /// ```
    #[track_caller]
    pub fn red_xor<T: Integer, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_xor(buf, index, value, order, scope);
    }

    /// `red.inc`: [`ThreadCtx::atomic_inc`] without its return value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red.inc", Grid::new(1, 1));
    /// let m = k.global::<u32>("m", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_inc(&m, 0, 7, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed());
    /// ```
    #[track_caller]
    pub fn red_inc<B: Buffer<u32>>(
        &self,
        buf: &B,
        index: usize,
        bound: u32,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_inc(buf, index, bound, order, scope);
    }

    /// `red.dec`: [`ThreadCtx::atomic_dec`] without its return value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("red.dec", Grid::new(1, 1));
    /// let m = k.global::<u32>("m", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.red_dec(&m, 0, 7, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed());
    /// ```
    #[track_caller]
    pub fn red_dec<B: Buffer<u32>>(
        &self,
        buf: &B,
        index: usize,
        bound: u32,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_dec(buf, index, bound, order, scope);
    }

    /// A `volatile` load as CUDA compiles it (`ld.volatile`). PTX ISA §8.4.2 (*volatile
    /// Operation*): "The semantics of volatile operations are equivalent to a relaxed memory
    /// operation with system-scope but with the following extra implementation-specific
    /// constraints" (the number of volatile instructions is preserved, and they are not
    /// reordered with each other). The model treats it as `ld.relaxed.sys`: it does not race
    /// with other strong accesses, and it synchronizes nothing by itself.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("volatile flag", Grid::new(2, 1));
    /// let flag = k.global::<i32>("flag", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.bid() == 0 {
    ///         t.store_volatile(&flag, 0, 1);
    ///     } else {
    ///         let _ = t.load_volatile(&flag, 0);
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn load_volatile<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize) -> T {
        let loc = self.loc(buf, index);
        T::from_bits(
            self.rt
                .load(loc, Order::Relaxed, Some(Scope::Sys), Loc::caller()),
        )
    }

    /// A `volatile` store (`st.volatile`): `st.relaxed.sys` for the model (see
    /// [`ThreadCtx::load_volatile`]).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("volatile", Grid::new(1, 1));
    /// let x = k.global::<u32>("x", 1);
    /// k.postcondition("x == 3", move |f| f.get(&x, 0) == 3);
    /// let report = Checker::dfs().check(&k, move |t| t.store_volatile(&x, 0, 3));
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn store_volatile<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize, value: T) {
        let loc = self.loc(buf, index);
        self.rt.store(
            loc,
            value.to_bits(),
            Order::Relaxed,
            Some(Scope::Sys),
            Loc::caller(),
        )
    }

    /// `ld.global.nc` (`__ldg`): a weak load through the non-coherent read-only cache. Reading
    /// a location that any thread writes during the kernel is reported as a non-coherent read
    /// (see [`crate::runtime::noncoherent`]).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("ldg", Grid::new(2, 1));
    /// let weights = k.global_from::<f32>("weights", &[0.5]);
    /// let out = k.global::<f32>("out", 2);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let w = t.load_nc(&weights, 0);
    ///     t.store(&out, t.bid() as usize, w * 2.0);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn load_nc<T: Elem>(&self, buf: &Global<T>, index: usize) -> T {
        let loc = self.loc(buf, index);
        T::from_bits(self.rt.load_nc(loc, Loc::caller()))
    }
}
