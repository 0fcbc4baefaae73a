//! Warp-level register exchanges as plain data: `shfl.sync`, `vote.sync`, `match.sync`,
//! `redux.sync` and `elect.sync` as written (PTX ISA, *shfl.sync*, *vote.sync*, *match.sync*,
//! *redux.sync*, *elect.sync*). A leaf of the IR: a statement's `warp` field carries a
//! [`WarpPart`]; the `warp` module, which imports the IR, lowers an exchange into IR
//! instructions, and its module docs say how.

use super::operand::{Operand, Reg, Value};
use super::rmw::RmwOp;
use serde::{Deserialize, Serialize};

/// How `shfl.sync` picks its source lane (PTX ISA, *shfl.sync*, `.mode`).
///
/// ```
/// use scopecheck_model::litmus::warp::{ShflMode, WarpOp};
/// use scopecheck_model::litmus::{Operand, Reg};
/// // `c` packs the segment mask and the clamp: 0x1f for down/bfly/idx, 0 for up (PTX ISA).
/// let shfl = |mode, c| WarpOp::Shfl {
///     mode, dst: Reg("r1".into()), src: Operand::Imm(0), b: 1, c, mask: 0xf,
/// };
/// assert_eq!(ShflMode::Bfly.name(), "bfly");
/// assert_eq!(shfl(ShflMode::Up, 0).source_lane(2), Some(1));
/// assert_eq!(shfl(ShflMode::Up, 0).source_lane(0), Some(0)); // below lane 0: its own value
/// assert_eq!(shfl(ShflMode::Bfly, 0x1f).source_lane(2), Some(3));
/// assert_eq!(shfl(ShflMode::Idx, 0x1f).source_lane(2), Some(1));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShflMode {
    /// `.up`: lane `i - b`.
    Up,
    /// `.down`: lane `i + b`.
    Down,
    /// `.bfly`: lane `i ^ b`.
    Bfly,
    /// `.idx`: lane `b`.
    Idx,
}

/// Which reduction `vote.sync` computes (PTX ISA, *vote.sync*, `.mode`).
///
/// ```
/// use scopecheck_model::litmus::warp::{VoteMode, WarpOp};
/// use scopecheck_model::litmus::{Operand, Reg};
/// let vote = WarpOp::Vote {
///     mode: VoteMode::Ballot, dst: Reg("r1".into()), pred: Operand::Imm(1), mask: 0x3,
/// };
/// assert_eq!(VoteMode::Any.name(), "any");
/// assert_eq!(vote.to_string(), "vote.sync.ballot.b32 r1, 1, 0x3");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VoteMode {
    /// `.all.pred`: 1 when every lane's predicate is true.
    All,
    /// `.any.pred`: 1 when some lane's predicate is true.
    Any,
    /// `.ballot.b32`: bit `k` set when lane `k`'s predicate is true.
    Ballot,
    /// `.uni.pred`: 1 when every lane's predicate has the same value (PTX ISA, *vote.sync*:
    /// "True if source predicate has the same value in all non-exited threads in
    /// membermask").
    Uni,
}

/// A warp-level exchange instruction, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarpOp {
    /// `shfl.sync.MODE.b32 dst, src, b, c, membermask`: `dst` gets `src` of the source lane
    /// that `MODE`, `b` and `c` pick, or the lane's own `src` when that lane is out of range.
    Shfl {
        /// `.up`, `.down`, `.bfly` or `.idx`.
        mode: ShflMode,
        /// The register that receives the value.
        dst: Reg,
        /// The value this lane offers.
        src: Operand,
        /// The lane operand: an offset (`.up`, `.down`), an xor mask (`.bfly`) or a lane index
        /// (`.idx`).
        b: u32,
        /// The segment mask (bits 8 to 12) and the clamp value `cval` (bits 0 to 4), packed
        /// (PTX ISA, *shfl.sync*); see [`WarpOp::source_lane`].
        c: u32,
        /// The `membermask` operand: bit `i` names lane `i` (a program's `Program::lane`).
        mask: u32,
    },
    /// `vote.sync.all.pred` / `vote.sync.any.pred` / `vote.sync.uni.pred` /
    /// `vote.sync.ballot.b32 dst, pred, membermask`. The litmus dialect has no predicate
    /// registers: `pred` is true when nonzero, and a `.pred` destination receives 1 or 0.
    Vote {
        /// `.all`, `.any`, `.uni` or `.ballot`.
        mode: VoteMode,
        /// The register that receives the result (1/0, or the ballot's lane mask).
        dst: Reg,
        /// This lane's predicate: true when nonzero.
        pred: Operand,
        /// The `membermask` operand: bit `i` names lane `i` (a program's `Program::lane`).
        mask: u32,
    },
    /// `match.any.sync.b32 dst, src, membermask` or `match.all.sync.b32 dst, src, membermask`
    /// (PTX ISA, *match.sync*): with `.any`, `dst` gets the mask of the member lanes whose
    /// `src` equals this lane's; with `.all`, the member mask when every member lane's `src`
    /// is equal, else 0. The litmus dialect splits rows at `|`, so `match.all`'s optional
    /// predicate destination (`dst|p`) is not written: it is `dst != 0`.
    Match {
        /// `.all` (else `.any`).
        all: bool,
        /// The register that receives the lane mask.
        dst: Reg,
        /// The value this lane compares.
        src: Operand,
        /// The `membermask` operand: bit `i` names lane `i` (a program's `Program::lane`).
        mask: u32,
    },
    /// `redux.sync.OP.TYPE dst, src, membermask` (PTX ISA, *redux.sync*: ".op = {.add, .min,
    /// .max}" with ".type = {.u32, .s32}", ".op = {.and, .or, .xor}" with `.b32`): `dst` gets
    /// `OP` folded over the `src` of every member lane. Litmus values are integers, compared
    /// as such: `.s32`'s order, and `.u32`'s for the nonnegative values litmus tests write.
    Redux {
        /// The operation folded over the member lanes.
        op: ReduxOp,
        /// The type qualifier as written (`u32`, `s32` or `b32`).
        ty: ReduxType,
        /// The register that receives the result.
        dst: Reg,
        /// The value this lane contributes.
        src: Operand,
        /// The `membermask` operand: bit `i` names lane `i` (a program's `Program::lane`).
        mask: u32,
    },
    /// `elect.sync dst, membermask` (PTX ISA, *elect.sync*: "laneid of the elected thread is
    /// returned in the 32-bit destination operand d"). The ISA leaves which member lane is
    /// elected open, but "Election of a leader thread happens deterministically, i.e. the same
    /// leader thread is elected for the same membermask every time": the first `elect.sync`
    /// over a mask elects any member lane, every later one over that mask the same. The litmus
    /// dialect splits rows at `|`, so the predicate destination of `d|p` is not written: it is
    /// `dst ==` the lane's id.
    Elect {
        /// The register that receives the elected lane's id.
        dst: Reg,
        /// The `membermask` operand: bit `i` names lane `i` (a program's `Program::lane`).
        mask: u32,
    },
}

/// What a lowered statement is part of: the first statement of an exchange carries the
/// instruction, the others are its rest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarpPart {
    /// The exchange's first lowered statement, with the instruction as written.
    Start(WarpOp),
    /// Another lowered statement of the same exchange (the printer skips it).
    Rest,
}

impl ShflMode {
    /// The mode as PTX writes it (`up`, `down`, `bfly`, `idx`).
    pub fn name(self) -> &'static str {
        match self {
            ShflMode::Up => "up",
            ShflMode::Down => "down",
            ShflMode::Bfly => "bfly",
            ShflMode::Idx => "idx",
        }
    }
}

impl VoteMode {
    /// The mode as PTX writes it (`all`, `any`, `ballot`).
    pub fn name(self) -> &'static str {
        match self {
            VoteMode::All => "all",
            VoteMode::Any => "any",
            VoteMode::Ballot => "ballot",
            VoteMode::Uni => "uni",
        }
    }
}

impl WarpOp {
    /// The member mask.
    pub fn mask(&self) -> u32 {
        match self {
            WarpOp::Shfl { mask, .. }
            | WarpOp::Vote { mask, .. }
            | WarpOp::Match { mask, .. }
            | WarpOp::Redux { mask, .. }
            | WarpOp::Elect { mask, .. } => *mask,
        }
    }

    /// The instruction as the litmus dialect writes it.
    ///
    /// ```
    /// use scopecheck_model::litmus::warp::{ShflMode, WarpOp};
    /// use scopecheck_model::litmus::{Operand, Reg};
    /// let op = WarpOp::Shfl {
    ///     mode: ShflMode::Down,
    ///     dst: Reg("r1".into()),
    ///     src: Operand::Reg(Reg("r0".into())),
    ///     b: 1,
    ///     c: 0x1f,
    ///     mask: 0x3,
    /// };
    /// assert_eq!(op.to_string(), "shfl.sync.down.b32 r1, r0, 1, 0x1f, 0x3");
    /// ```
    pub fn text(&self) -> String {
        match self {
            WarpOp::Shfl {
                mode,
                dst,
                src,
                b,
                c,
                mask,
            } => format!(
                "shfl.sync.{}.b32 {dst}, {src}, {b}, {c:#x}, {mask:#x}",
                mode.name()
            ),
            WarpOp::Vote {
                mode,
                dst,
                pred,
                mask,
            } => {
                let ty = if *mode == VoteMode::Ballot {
                    "b32"
                } else {
                    "pred"
                };
                format!("vote.sync.{}.{ty} {dst}, {pred}, {mask:#x}", mode.name())
            }
            WarpOp::Match {
                all,
                dst,
                src,
                mask,
            } => {
                let mode = if *all { "all" } else { "any" };
                format!("match.{mode}.sync.b32 {dst}, {src}, {mask:#x}")
            }
            WarpOp::Redux {
                op,
                ty,
                dst,
                src,
                mask,
            } => format!(
                "redux.sync.{}.{} {dst}, {src}, {mask:#x}",
                op.name(),
                ty.name()
            ),
            WarpOp::Elect { dst, mask } => format!("elect.sync {dst}, {mask:#x}"),
        }
    }

    /// The lane whose `src` lane `lane` of a `shfl.sync` reads (PTX ISA, *shfl.sync*: `maxLane
    /// = (lane & segmask) | (cval & ~segmask)`, `minLane = lane & segmask`; `.up`: `j = lane -
    /// b`, in range when `j >= maxLane`; `.down`: `j = lane + b`, `.bfly`: `j = lane ^ b`,
    /// `.idx`: `j = minLane | (b & ~segmask)`, in range when `j <= maxLane`; out of range, the
    /// lane reads its own). `None` for a vote.
    ///
    /// ```
    /// use scopecheck_model::litmus::warp::{ShflMode, WarpOp};
    /// use scopecheck_model::litmus::{Operand, Reg};
    /// let down = |b| WarpOp::Shfl {
    ///     mode: ShflMode::Down, dst: Reg("r1".into()), src: Operand::Imm(0), b, c: 0x1f, mask: 0xf,
    /// };
    /// assert_eq!(down(1).source_lane(2), Some(3));
    /// assert_eq!(down(1).source_lane(31), Some(31)); // past lane 31: its own value
    /// ```
    pub fn source_lane(&self, lane: u32) -> Option<u32> {
        let WarpOp::Shfl { mode, b, c, .. } = self else {
            return None;
        };
        let (lane, b) = (lane as i64, (b & 0x1f) as i64);
        let (cval, segmask) = ((c & 0x1f) as i64, ((c >> 8) & 0x1f) as i64);
        let max_lane = (lane & segmask) | (cval & !segmask);
        let min_lane = lane & segmask;
        let (j, in_range) = match mode {
            ShflMode::Up => (lane - b, lane - b >= max_lane),
            ShflMode::Down => (lane + b, lane + b <= max_lane),
            ShflMode::Bfly => (lane ^ b, (lane ^ b) <= max_lane),
            ShflMode::Idx => {
                let j = min_lane | (b & !segmask);
                (j, j <= max_lane)
            }
        };
        Some(if in_range { j as u32 } else { lane as u32 })
    }
}

impl std::fmt::Display for WarpOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// The reduction `redux.sync` computes (PTX ISA, *redux.sync*, `.op`).
///
/// ```
/// use scopecheck_model::litmus::warp::ReduxOp;
/// assert_eq!(ReduxOp::from_name("xor"), Some(ReduxOp::Xor));
/// assert_eq!(ReduxOp::Min.apply(3, -2), -2);
/// assert!(ReduxOp::And.bitwise());
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReduxOp {
    /// `.add`: the sum ("For the .add operation result is truncated to 32 bits").
    Add,
    /// `.min`: the smallest value.
    Min,
    /// `.max`: the largest value.
    Max,
    /// `.and`: bitwise and.
    And,
    /// `.or`: bitwise or.
    Or,
    /// `.xor`: bitwise exclusive or.
    Xor,
}

/// The type qualifier of `redux.sync` (PTX ISA, *redux.sync*: `.u32`/`.s32` for `.add`, `.min`,
/// `.max`; `.b32` for `.and`, `.or`, `.xor`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReduxType {
    /// `.u32`.
    U32,
    /// `.s32`.
    S32,
    /// `.b32`.
    B32,
}

impl ReduxOp {
    /// Every operation, in the order the PTX ISA lists them.
    pub const ALL: [ReduxOp; 6] = [
        ReduxOp::Add,
        ReduxOp::Min,
        ReduxOp::Max,
        ReduxOp::And,
        ReduxOp::Or,
        ReduxOp::Xor,
    ];

    /// The operation as PTX writes it (`add`, `min`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ReduxOp::Add => "add",
            ReduxOp::Min => "min",
            ReduxOp::Max => "max",
            ReduxOp::And => "and",
            ReduxOp::Or => "or",
            ReduxOp::Xor => "xor",
        }
    }

    /// The operation a PTX qualifier names.
    pub fn from_name(name: &str) -> Option<ReduxOp> {
        ReduxOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the operation is bitwise (typed `.b32`), else arithmetic (`.u32`/`.s32`).
    pub fn bitwise(self) -> bool {
        matches!(self, ReduxOp::And | ReduxOp::Or | ReduxOp::Xor)
    }

    /// The atomic read-modify-write that folds one more value in (the lowering accumulates
    /// with it).
    pub fn rmw(self) -> RmwOp {
        match self {
            ReduxOp::Add => RmwOp::Add,
            ReduxOp::Min => RmwOp::Min,
            ReduxOp::Max => RmwOp::Max,
            ReduxOp::And => RmwOp::And,
            ReduxOp::Or => RmwOp::Or,
            ReduxOp::Xor => RmwOp::Xor,
        }
    }

    /// Fold `b` into `a`.
    pub fn apply(self, a: Value, b: Value) -> Value {
        self.rmw()
            .apply(a, b, 0)
            .expect("a reduction always writes")
    }
}

impl ReduxType {
    /// The type as PTX writes it.
    pub fn name(self) -> &'static str {
        match self {
            ReduxType::U32 => "u32",
            ReduxType::S32 => "s32",
            ReduxType::B32 => "b32",
        }
    }
}
