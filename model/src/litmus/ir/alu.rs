//! Register arithmetic and comparisons: the operations of `add`, `sub`, `mul`, `div`, `rem`,
//! `and`, `or`, `xor`, `shl`, `shr` and the tests of branches, `setp` and final conditions.
//! A leaf of the IR: it imports only [`Value`].
//!
//! Arithmetic is on 32-bit signed two's complement integers, the `int` of OpenCL C and the
//! `.s32` of PTX (and the `int` registers of the GPU harness): each operand is taken modulo
//! 2^32 as an `int` and the result is the 32-bit value, sign-extended into a [`Value`]. Where
//! C11 leaves a result undefined (6.5p5: "If an exceptional condition occurs during the
//! evaluation of an expression (that is, if the result is not mathematically defined or not
//! in the range of representable values for its type), the behavior is undefined"), the IR
//! defines it, so that every engine and the GPU harness compute the same value; each case is
//! documented at [`AluOp::apply`].

use super::operand::Value;
use serde::{Deserialize, Serialize};

/// A binary operation on registers and immediates (PTX's integer arithmetic and logic
/// instructions, named by their PTX mnemonics).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AluOp {
    /// `add`: `a + b`.
    Add,
    /// `sub`: `a - b`.
    Sub,
    /// `mul.lo`: the low 32 bits of `a * b`.
    Mul,
    /// `div`: `a / b`, truncated toward zero.
    Div,
    /// `rem`: `a % b`, with the sign of `a`.
    Rem,
    /// `and`: bitwise and.
    And,
    /// `or`: bitwise or.
    Or,
    /// `xor`: bitwise exclusive or.
    Xor,
    /// `shl`: shift left, filling with zeros.
    Shl,
    /// `shr.s32`: arithmetic shift right, filling with the sign bit.
    Shr,
}

impl AluOp {
    /// Every operation, in declaration order.
    pub const ALL: [AluOp; 10] = [
        AluOp::Add,
        AluOp::Sub,
        AluOp::Mul,
        AluOp::Div,
        AluOp::Rem,
        AluOp::And,
        AluOp::Or,
        AluOp::Xor,
        AluOp::Shl,
        AluOp::Shr,
    ];

    /// The PTX mnemonic (`add`, `sub`, `mul`, `div`, `rem`, `and`, `or`, `xor`, `shl`, `shr`).
    pub fn name(self) -> &'static str {
        match self {
            AluOp::Add => "add",
            AluOp::Sub => "sub",
            AluOp::Mul => "mul",
            AluOp::Div => "div",
            AluOp::Rem => "rem",
            AluOp::And => "and",
            AluOp::Or => "or",
            AluOp::Xor => "xor",
            AluOp::Shl => "shl",
            AluOp::Shr => "shr",
        }
    }

    /// The operation [`AluOp::name`] spells; `None` for any other word.
    pub fn from_name(name: &str) -> Option<AluOp> {
        AluOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// `a op b` on 32-bit `int`s (see the module documentation), a total function:
    ///
    /// - `add`, `sub`, `mul`: the result modulo 2^32 (PTX `add.s32`, `sub.s32`, `mul.lo.s32`:
    ///   ".lo ... the lower half of the result is written"; C11 leaves signed overflow
    ///   undefined, the IR wraps).
    /// - `div`: C11 6.5.5p6 "When integers are divided, the result of the / operator is the
    ///   algebraic quotient with any fractional part discarded" (truncation toward zero).
    ///   Division by zero is undefined in C11 (6.5.5p5) and "yields an unspecified,
    ///   machine-specific value" in PTX (`div`); the IR defines `a / 0 = -1` (every bit set)
    ///   and `a % 0 = a`, as RISC-V's M extension does. `INT_MIN / -1`, which overflows,
    ///   is `INT_MIN`, and `INT_MIN % -1` is 0.
    /// - `rem`: C11 6.5.5p6 "If the quotient a/b is representable, the expression
    ///   (a/b)*b + a%b shall equal a", so the remainder has the sign of `a`.
    /// - `and`, `or`, `xor`: on the two's complement bits.
    /// - `shl`, `shr`: PTX `shl`/`shr`: "Shift amounts greater than the register width N are
    ///   clamped to N", the amount read as unsigned; `shl` fills with zeros, `shr` ("Signed
    ///   shifts fill with the sign bit") with the sign bit, so `shl` by 32 or more gives 0 and
    ///   `shr` by 32 or more gives 0 or -1. (OpenCL C's shifts use the amount modulo 32
    ///   instead; its front end masks the amount before shifting.)
    ///
    /// ```
    /// use scopecheck_model::litmus::AluOp;
    /// assert_eq!(AluOp::Div.apply(-7, 2), -3);
    /// assert_eq!(AluOp::Rem.apply(-7, 2), -1);
    /// assert_eq!(AluOp::Div.apply(5, 0), -1);
    /// assert_eq!(AluOp::Shr.apply(-8, 40), -1);
    /// assert_eq!(AluOp::Add.apply(2_147_483_647, 1), -2_147_483_648);
    /// ```
    pub fn apply(self, a: Value, b: Value) -> Value {
        // C11 6.3.1.3p3 leaves converting an out-of-range value to `int` implementation-
        // defined; the IR takes it modulo 2^32, as every GPU compiler does.
        let (x, y) = (a as i32, b as i32);
        let shift = (y as u32).min(32);
        let r = match self {
            AluOp::Add => x.wrapping_add(y),
            AluOp::Sub => x.wrapping_sub(y),
            AluOp::Mul => x.wrapping_mul(y),
            AluOp::Div if y == 0 => -1,
            AluOp::Div => x.wrapping_div(y),
            AluOp::Rem if y == 0 => x,
            AluOp::Rem => x.wrapping_rem(y),
            AluOp::And => x & y,
            AluOp::Or => x | y,
            AluOp::Xor => x ^ y,
            AluOp::Shl if shift == 32 => 0,
            AluOp::Shl => ((x as u32) << shift) as i32,
            AluOp::Shr => x >> shift.min(31),
        };
        Value::from(r)
    }
}

/// A comparison of two values (branches, `setp`, the final condition), signed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cmp {
    /// `==` (`beq`).
    Eq,
    /// `!=` (`bne`).
    Ne,
    /// `<` (`blt`).
    Lt,
    /// `<=` (`ble`).
    Le,
    /// `>` (`bgt`).
    Gt,
    /// `>=` (`bge`).
    Ge,
}

impl Cmp {
    /// Every comparison, in declaration order.
    pub const ALL: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

    /// Whether `a cmp b` holds, comparing as signed integers (C11 6.5.8p6: "Each of the
    /// operators < (less than), > (greater than), <= (less than or equal to), and >= (greater
    /// than or equal to) shall yield 1 if the specified relation is true and 0 if it is
    /// false").
    pub fn holds(self, a: Value, b: Value) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }

    /// The comparison that holds exactly when this one does not (`<` and `>=`, ...).
    pub fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
        }
    }

    /// The PTX comparison operator (`eq`, `ne`, `lt`, `le`, `gt`, `ge`): `setp.<name>` and,
    /// after `b`, the branch mnemonic (`beq`, `blt`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
        }
    }

    /// The comparison [`Cmp::name`] spells; `None` for any other word.
    pub fn from_name(name: &str) -> Option<Cmp> {
        Cmp::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The C operator (`==`, `!=`, `<`, `<=`, `>`, `>=`).
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
}
