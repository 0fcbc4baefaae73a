//! The element types kernel buffers hold, and how the runtime stores their values.

use crate::runtime::memory::{Bits, ElemKind};

/// Element types buffers may hold.
pub trait Elem: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    /// How the runtime prints and compares values of this type.
    const KIND: ElemKind;
    /// Size in bytes (shared-memory banks and bulk-copy byte counts use it).
    const BYTES: u64;
    /// The value as the runtime stores it.
    fn to_bits(self) -> Bits;
    /// The value the runtime's bits stand for.
    fn from_bits(bits: Bits) -> Self;
    /// `atomic_add` (wrapping for integers).
    fn add(self, other: Self) -> Self;
}

macro_rules! int_elem {
    ($t:ty, $kind:ident, $bytes:expr, $unsigned:ty) => {
        impl Elem for $t {
            const KIND: ElemKind = ElemKind::$kind;
            const BYTES: u64 = $bytes;
            fn to_bits(self) -> Bits {
                self as $unsigned as Bits
            }
            fn from_bits(bits: Bits) -> Self {
                bits as $unsigned as $t
            }
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
    };
}
int_elem!(i32, I32, 4, u32);
int_elem!(u32, U32, 4, u32);
int_elem!(i64, I64, 8, u64);
int_elem!(u64, U64, 8, u64);

impl Elem for f32 {
    const KIND: ElemKind = ElemKind::F32;
    const BYTES: u64 = 4;
    fn to_bits(self) -> Bits {
        f32::to_bits(self) as Bits
    }
    fn from_bits(bits: Bits) -> Self {
        f32::from_bits(bits as u32)
    }
    fn add(self, other: Self) -> Self {
        self + other
    }
}

impl Elem for f64 {
    const KIND: ElemKind = ElemKind::F64;
    const BYTES: u64 = 8;
    fn to_bits(self) -> Bits {
        f64::to_bits(self)
    }
    fn from_bits(bits: Bits) -> Self {
        f64::from_bits(bits)
    }
    fn add(self, other: Self) -> Self {
        self + other
    }
}

impl Elem for bool {
    const KIND: ElemKind = ElemKind::Bool;
    const BYTES: u64 = 1;
    fn to_bits(self) -> Bits {
        self as Bits
    }
    fn from_bits(bits: Bits) -> Self {
        bits != 0
    }
    fn add(self, other: Self) -> Self {
        self | other
    }
}
