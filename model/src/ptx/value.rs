//! PTX fundamental types and what instructions compute on register values.
//!
//! PTX ISA, *Fundamental Types*: signed integers `.s8 .s16 .s32 .s64`, unsigned `.u8 … .u64`,
//! floating point `.f16 .f16x2 .f32 .f64`, bits (untyped) `.b8 … .b128`, predicate `.pred`. "The
//! `.u8`, `.s8` and `.b8` types are restricted to ld, st and cvt instructions" and registers of
//! them are at least 16 bits wide. A register here holds up to 64 bits (`u64`); an instruction of
//! a narrower type reads the low bits and writes them zero-extended (sign-extended for a signed
//! type, so that a following 64-bit read sees the value `cvt` would give).

/// A PTX scalar type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `.bN`: untyped bits.
    B(u32),
    /// `.uN`: unsigned integer.
    U(u32),
    /// `.sN`: two's-complement signed integer.
    S(u32),
    /// `.fN`: IEEE 754 binary floating point (`.f16`, `.f32`, `.f64`; `.f16x2`'s halves are
    /// `.f16`, see [`super::half`]).
    F(u32),
    /// `.pred`: a predicate (0 or 1).
    Pred,
}

impl Ty {
    /// The type a modifier names (`u32` → `.u32`), if it names one.
    pub fn parse(m: &str) -> Option<Ty> {
        let (kind, bits) = m.split_at(1);
        if m == "pred" {
            return Some(Ty::Pred);
        }
        let bits: u32 = bits.parse().ok()?;
        match (kind, bits) {
            ("b", 8 | 16 | 32 | 64) => Some(Ty::B(bits)),
            ("u", 8 | 16 | 32 | 64) => Some(Ty::U(bits)),
            ("s", 8 | 16 | 32 | 64) => Some(Ty::S(bits)),
            ("f", 16 | 32 | 64) => Some(Ty::F(bits)),
            _ => None,
        }
    }

    /// Width in bits (a predicate counts as 1).
    pub fn bits(self) -> u32 {
        match self {
            Ty::B(n) | Ty::U(n) | Ty::S(n) | Ty::F(n) => n,
            Ty::Pred => 1,
        }
    }

    /// Size in memory, in bytes.
    pub fn bytes(self) -> u64 {
        (self.bits() as u64).div_ceil(8)
    }

    /// A signed integer type.
    pub fn signed(self) -> bool {
        matches!(self, Ty::S(_))
    }

    /// A floating-point type.
    pub fn float(self) -> bool {
        matches!(self, Ty::F(_))
    }

    /// The low `bits()` bits of `v`.
    pub fn trunc(self, v: u64) -> u64 {
        match self.bits() {
            64 => v,
            n => v & ((1u64 << n) - 1),
        }
    }

    /// `v` as a register holds it: truncated, and sign-extended to 64 bits for signed types.
    pub fn norm(self, v: u64) -> u64 {
        match self {
            Ty::S(n) if n < 64 => ((v << (64 - n)) as i64 >> (64 - n)) as u64,
            Ty::Pred => (v & 1 != 0) as u64,
            _ => self.trunc(v),
        }
    }

    /// `v`'s low bits as a signed number.
    pub fn as_i64(self, v: u64) -> i64 {
        match self.bits() {
            64 => v as i64,
            n => ((v << (64 - n)) as i64) >> (64 - n),
        }
    }

    /// `v`'s low bits as a float (`.f16`, `.f32` or `.f64`), exactly.
    pub fn as_f64(self, v: u64) -> f64 {
        match self.bits() {
            16 => super::half::to_f64(v as u16),
            32 => f32::from_bits(v as u32) as f64,
            _ => f64::from_bits(v),
        }
    }

    /// The bits of `x` in this float type (rounded to nearest even for `.f16` and `.f32`).
    pub fn from_f64(self, x: f64) -> u64 {
        match self.bits() {
            16 => super::half::from_f64(x) as u64,
            32 => (x as f32).to_bits() as u64,
            _ => x.to_bits(),
        }
    }
}

/// A comparison of `setp`/`set`/`slct` (PTX ISA, *Comparison and Selection Instructions*).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `eq`.
    Eq,
    /// `ne`.
    Ne,
    /// `lt` (`lo` for unsigned).
    Lt,
    /// `le` (`ls`).
    Le,
    /// `gt` (`hi`).
    Gt,
    /// `ge` (`hs`).
    Ge,
    /// Floating point: `equ`, `neu`, `ltu`, `leu`, `gtu`, `geu` — true also when either is NaN.
    Unordered(UCmp),
    /// `num`: neither is NaN.
    Num,
    /// `nan`: either is NaN.
    Nan,
}

/// The ordered comparison an unordered float comparison extends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UCmp {
    /// `equ`.
    Eq,
    /// `neu`.
    Ne,
    /// `ltu`.
    Lt,
    /// `leu`.
    Le,
    /// `gtu`.
    Gt,
    /// `geu`.
    Ge,
}

impl Cmp {
    /// The comparison a `setp` modifier names.
    pub fn parse(m: &str) -> Option<Cmp> {
        Some(match m {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" | "lo" => Cmp::Lt,
            "le" | "ls" => Cmp::Le,
            "gt" | "hi" => Cmp::Gt,
            "ge" | "hs" => Cmp::Ge,
            "equ" => Cmp::Unordered(UCmp::Eq),
            "neu" => Cmp::Unordered(UCmp::Ne),
            "ltu" => Cmp::Unordered(UCmp::Lt),
            "leu" => Cmp::Unordered(UCmp::Le),
            "gtu" => Cmp::Unordered(UCmp::Gt),
            "geu" => Cmp::Unordered(UCmp::Ge),
            "num" => Cmp::Num,
            "nan" => Cmp::Nan,
            _ => return None,
        })
    }

    /// `a CMP b` in type `ty`: "The `.lo`, `.ls`, `.hi` and `.hs` comparisons are unsigned
    /// integer versions of lt, le, gt, ge"; for floats, ordered comparisons are false when
    /// either operand is NaN and the `u` forms are true then.
    pub fn eval(self, ty: Ty, a: u64, b: u64) -> bool {
        use std::cmp::Ordering;
        let ord: Option<Ordering> = match ty {
            Ty::F(_) => ty.as_f64(a).partial_cmp(&ty.as_f64(b)),
            Ty::S(_) => Some(ty.as_i64(a).cmp(&ty.as_i64(b))),
            _ => Some(ty.trunc(a).cmp(&ty.trunc(b))),
        };
        let ordered = |c: Ordering| match self {
            Cmp::Eq | Cmp::Unordered(UCmp::Eq) => c == Ordering::Equal,
            Cmp::Ne | Cmp::Unordered(UCmp::Ne) => c != Ordering::Equal,
            Cmp::Lt | Cmp::Unordered(UCmp::Lt) => c == Ordering::Less,
            Cmp::Le | Cmp::Unordered(UCmp::Le) => c != Ordering::Greater,
            Cmp::Gt | Cmp::Unordered(UCmp::Gt) => c == Ordering::Greater,
            Cmp::Ge | Cmp::Unordered(UCmp::Ge) => c != Ordering::Less,
            Cmp::Num => true,
            Cmp::Nan => false,
        };
        match ord {
            Some(c) => ordered(c),
            None => matches!(self, Cmp::Unordered(_) | Cmp::Nan),
        }
    }
}

/// A boolean combination (`setp`'s `.and/.or/.xor`, `and/or/xor` on predicates).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BoolOp {
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor`.
    Xor,
}

impl BoolOp {
    /// The operation a modifier names.
    pub fn parse(m: &str) -> Option<BoolOp> {
        Some(match m {
            "and" => BoolOp::And,
            "or" => BoolOp::Or,
            "xor" => BoolOp::Xor,
            _ => return None,
        })
    }

    /// `a OP b`.
    pub fn eval(self, a: bool, b: bool) -> bool {
        match self {
            BoolOp::And => a && b,
            BoolOp::Or => a || b,
            BoolOp::Xor => a != b,
        }
    }
}
