//! The syntax tree of an OpenCL C litmus test as written (Dat3M's `LitmusC.g4`, the OpenCL
//! productions of herd's C litmus syntax): what the printer prints back and the lowering reads.
//! Each type names the grammar rule it stands for.

use super::{OpenClScope, Region};
use crate::litmus::ir::alu::{AluOp, Cmp};
use crate::litmus::ir::operand::{LocId, Reg, ThreadId, Value};
use crate::litmus::ir::rmw::RmwOp;
use crate::litmus::ir::span::Span;
use crate::scope::Order;
use serde::{Deserialize, Serialize};

/// What makes a program an OpenCL test: its initial state and kernels as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenClTest {
    /// `variableDeclaratorList`: the declarations of the initial state, in order.
    #[serde(default)]
    pub init: Vec<InitDecl>,
    /// Each work-item's kernel, by thread id (`P0` first).
    pub threads: Vec<Kernel>,
}

/// `globalDeclarator`: one declaration of the initial state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitDecl {
    /// `typeSpecifier?`.
    pub ty: Option<CType>,
    /// What is declared: a location, a register or an array.
    pub item: InitItem,
}

/// The forms of `globalDeclarator` this dialect reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum InitItem {
    /// `globalDeclaratorLocation`: `[x] = 1`, `x = 1`, `x = ATOMIC_VAR_INIT(1)`, `x`.
    Location {
        /// The location declared.
        loc: LocId,
        /// Written in brackets (`[x] = 1`).
        bracketed: bool,
        /// The initial value, when written (else 0).
        value: Option<InitValue>,
    },
    /// `globalDeclaratorRegister`: `P0:r0 = 1` (or `0:r0 = 1`).
    Register {
        /// The thread whose register it is.
        thread: ThreadId,
        /// The register.
        reg: Reg,
        /// Its initial value.
        value: InitValue,
    },
    /// `globalDeclaratorArray`: `y[2] = {1, 2}`, `y[2]`, `y[] = {1, 2}`; its elements are the
    /// locations `y[0]`, `y[1]`, ... (`first` is `y[0]`).
    Array {
        /// The array's name (`y`).
        name: String,
        /// The location of its first element, `y[0]`; the others follow it in order.
        first: LocId,
        /// Its number of elements.
        len: u32,
        /// Whether the length was written between the brackets.
        sized: bool,
        /// `initArray`, when written.
        values: Option<Vec<Value>>,
    },
}

/// `initConstantValue`: `1` or `ATOMIC_VAR_INIT(1)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum InitValue {
    /// A plain constant: `1`.
    Const(Value),
    /// `ATOMIC_VAR_INIT(1)`.
    AtomicVarInit(Value),
}

impl InitValue {
    /// The value held.
    pub fn value(self) -> Value {
        match self {
            InitValue::Const(v) | InitValue::AtomicVarInit(v) => v,
        }
    }
}

/// `typeSpecifier` (and `pointerTypeSpecifier` without its address space): `volatile`, a
/// basic or atomic type, and how many `*` follow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CType {
    /// Qualified `volatile`.
    pub volatile: bool,
    /// The basic or atomic type.
    pub base: BaseType,
    /// How many `*` follow (0: not a pointer).
    pub pointers: u8,
}

/// `basicTypeSpecifier`: the integer types of OpenCL C and their atomic forms.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BaseType {
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `char`.
    Char,
    /// `intptr_t`.
    IntPtr,
    /// `atomic_int`.
    AtomicInt,
    /// `atomic_uint`.
    AtomicUint,
}

impl BaseType {
    /// Every type, with its spelling.
    pub const ALL: [(BaseType, &'static str); 6] = [
        (BaseType::Int, "int"),
        (BaseType::Uint, "uint"),
        (BaseType::Char, "char"),
        (BaseType::IntPtr, "intptr_t"),
        (BaseType::AtomicInt, "atomic_int"),
        (BaseType::AtomicUint, "atomic_uint"),
    ];

    /// The C spelling.
    pub fn name(self) -> &'static str {
        BaseType::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("int", |(_, n)| n)
    }

    /// The type a spelling names.
    pub fn from_name(name: &str) -> Option<BaseType> {
        BaseType::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(t, _)| *t)
    }

    /// OpenCL C §6.13.11.6: `atomic_int` and `atomic_uint` are the atomic integer types.
    pub fn is_atomic(self) -> bool {
        matches!(self, BaseType::AtomicInt | BaseType::AtomicUint)
    }
}

/// One work-item's kernel (`threadContent`): its parameters and statements.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    /// `threadArguments`: the locations it may access, as pointer parameters.
    pub params: Vec<Param>,
    /// Its statements, in order.
    pub body: Vec<Located>,
}

/// A statement and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    /// The statement.
    pub stmt: CStmt,
    /// Where it was written.
    pub span: Span,
}

/// `threadArgument`: `volatile global atomic_int* x`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// The location named (the first element of an array).
    pub loc: LocId,
    /// `None`: no address space named (the generic one; the test's locations are global).
    pub region: Option<Region>,
    /// Its pointee type is atomic (`atomic_int*`).
    pub atomic: bool,
    /// Qualified `volatile`.
    pub volatile: bool,
    /// The type as written (`int`, `atomic_uint`, ...).
    #[serde(default = "default_base")]
    pub base: BaseType,
}

fn default_base() -> BaseType {
    BaseType::Int
}

impl Param {
    /// The memory region the parameter's accesses touch.
    pub fn memory(&self) -> Region {
        self.region.unwrap_or(Region::Global)
    }
}

/// `expression`: a statement of a kernel body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CStmt {
    /// `nreRegDeclaration`: `int r;` or `int r = e;` (the type as written).
    Decl(CType, Reg, Option<CExpr>),
    /// `nreAssignment` to a register: `r = e;`.
    Assign(Reg, CExpr),
    /// `nreAssignment` through a pointer: `*x = e;` (a non-atomic store).
    Store(Address, CExpr),
    /// `reAsNre` and the call statements (`nreC11Store`, `nreOpenCLFence`, ...): an expression
    /// evaluated for its effects.
    Expr(CExpr),
    /// `nreOpenCLBarrier`: `B1: barrier(CLK_GLOBAL_MEM_FENCE);` (the scope may follow the
    /// flags).
    Barrier {
        /// The label's number (`B1:`): threads meet at equal ids.
        id: u32,
        /// The fence flags: which memories the barrier orders.
        flags: Flags,
        /// The memory scope, when written; else `memory_scope_work_group` (OpenCL C §6.13.8:
        /// `barrier(flags)` is `work_group_barrier(flags)`).
        scope: Option<OpenClScope>,
    },
    /// `ifExpression`: `if (c) s else s` (an arm is a statement or a braced block).
    If(CExpr, Vec<Located>, Vec<Located>),
    /// `whileExpression`: `while (c) s`.
    While(CExpr, Vec<Located>),
}

/// `openCLFenceFlags`: `CLK_GLOBAL_MEM_FENCE`, `CLK_LOCAL_MEM_FENCE`, or both joined by `|`
/// (in the order written).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    /// `CLK_GLOBAL_MEM_FENCE` is named.
    pub global: bool,
    /// `CLK_LOCAL_MEM_FENCE` is named.
    pub local: bool,
    /// Both, `CLK_LOCAL_MEM_FENCE` written first.
    pub local_first: bool,
}

/// The memory an address names: a kernel parameter, `offset` elements on (`y + 1`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Address {
    /// The location the parameter names.
    pub base: LocId,
    /// Elements past `base` (`1` in `y + 1`; 0 when no offset is written).
    pub offset: u32,
    /// Written in parentheses (`*(y + 1)`, `atomic_load((x))`).
    pub parens: bool,
}

/// `re`: an expression.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CExpr {
    /// `constant`.
    Int(Value),
    /// `boolConst`: `true`, `false`.
    Bool(bool),
    /// `varName`: a register.
    Reg(Reg),
    /// `reReadNa`: `*x`, a non-atomic load.
    Deref(Address),
    /// A call of an atomic function.
    Call(Box<Call>),
    /// `reOpBoolNot`: `!e`.
    Not(Box<CExpr>),
    /// `reOpBool`, `reOpCompare`, `reOpArith`: `a op b`.
    Binary(BinOp, Box<CExpr>, Box<CExpr>),
    /// `reParenthesis`: `(e)`.
    Paren(Box<CExpr>),
    /// `reCast`: `(int) e`.
    Cast(CType, Box<CExpr>),
}

/// The binary operators (`opBool`, `opCompare`, `opArith`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `&` (bitwise).
    BitAnd,
    /// `^` (bitwise).
    Xor,
    /// `|` (bitwise).
    BitOr,
    /// `&&` (logical).
    And,
    /// `||` (logical).
    Or,
}

impl BinOp {
    /// Every operator with its spelling and C precedence (higher binds tighter; C11 6.5.5 to
    /// 6.5.14: multiplicative, additive, shift, relational, equality, `&`, `^`, `|`, `&&`,
    /// `||`). A longer spelling comes before its prefix (`<<` and `<=` before `<`).
    pub const ALL: [(BinOp, &'static str, u8); 18] = [
        (BinOp::Mul, "*", 10),
        (BinOp::Div, "/", 10),
        (BinOp::Rem, "%", 10),
        (BinOp::Add, "+", 9),
        (BinOp::Sub, "-", 9),
        (BinOp::Shl, "<<", 8),
        (BinOp::Shr, ">>", 8),
        (BinOp::Le, "<=", 7),
        (BinOp::Ge, ">=", 7),
        (BinOp::Lt, "<", 7),
        (BinOp::Gt, ">", 7),
        (BinOp::Eq, "==", 6),
        (BinOp::Ne, "!=", 6),
        (BinOp::And, "&&", 2),
        (BinOp::Or, "||", 1),
        (BinOp::BitAnd, "&", 5),
        (BinOp::Xor, "^", 4),
        (BinOp::BitOr, "|", 3),
    ];

    /// The C spelling.
    pub fn symbol(self) -> &'static str {
        BinOp::ALL
            .iter()
            .find(|(o, ..)| *o == self)
            .map_or("+", |(_, s, _)| s)
    }

    /// The IR operation of an arithmetic or bitwise operator (`*` is `mul`, `&` is `and`,
    /// ...); `None` for the comparisons and the logical `&&`, `||`.
    pub fn alu(self) -> Option<AluOp> {
        Some(match self {
            BinOp::Mul => AluOp::Mul,
            BinOp::Div => AluOp::Div,
            BinOp::Rem => AluOp::Rem,
            BinOp::Add => AluOp::Add,
            BinOp::Sub => AluOp::Sub,
            BinOp::Shl => AluOp::Shl,
            BinOp::Shr => AluOp::Shr,
            BinOp::BitAnd => AluOp::And,
            BinOp::Xor => AluOp::Xor,
            BinOp::BitOr => AluOp::Or,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => return None,
            BinOp::And | BinOp::Or => return None,
        })
    }

    /// The comparison of a relational or equality operator; `None` for the others.
    pub fn cmp(self) -> Option<Cmp> {
        Some(match self {
            BinOp::Lt => Cmp::Lt,
            BinOp::Le => Cmp::Le,
            BinOp::Gt => Cmp::Gt,
            BinOp::Ge => Cmp::Ge,
            BinOp::Eq => Cmp::Eq,
            BinOp::Ne => Cmp::Ne,
            _ => return None,
        })
    }

    /// The precedence (see [`BinOp::ALL`]).
    pub fn precedence(self) -> u8 {
        BinOp::ALL
            .iter()
            .find(|(o, ..)| *o == self)
            .map_or(0, |(.., p)| *p)
    }
}

/// A call of an OpenCL C atomic function. `explicit` is the `_explicit` form (orders and
/// scope given; the scope may be left out); the plain form is `memory_order_seq_cst` and
/// `memory_scope_device` (OpenCL C, §6.13.11.1: "The non-explicit versions ... use
/// memory_order_seq_cst ... memory_scope_device").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Call {
    /// `reC11Load`, `reC11LoadExplicit`.
    Load {
        /// The atomic object (the pointer argument).
        loc: Address,
        /// Plain, or explicit with its order and scope.
        mode: Mode,
    },
    /// `nreC11Store`, `nreC11StoreExplicit`.
    Store {
        /// The atomic object (the pointer argument).
        loc: Address,
        /// The value stored (`desired`).
        value: CExpr,
        /// Plain, or explicit with its order and scope.
        mode: Mode,
    },
    /// `C11AtomicOp` (`atomic_fetch_<op>[_explicit]`) and `reC11AtomicXchg[Explicit]`.
    Fetch {
        /// The operation (`Exch` for `atomic_exchange`).
        op: RmwOp,
        /// The atomic object (the pointer argument).
        loc: Address,
        /// The operand.
        value: CExpr,
        /// Plain, or explicit with its order and scope.
        mode: Mode,
    },
    /// `reC11SCmpXchg[Explicit]`: `atomic_compare_exchange_strong[_explicit](obj, expected,
    /// desired, ...)`: `expected` is a location (a pointer argument) that receives the value
    /// read on failure.
    CompareExchange {
        /// The atomic object (the pointer argument).
        loc: Address,
        /// The location holding the expected value, overwritten with the value read on failure.
        expected: Address,
        /// The value written on success.
        desired: CExpr,
        /// Plain, or explicit with its success order and scope.
        mode: Mode,
        /// The failure order, when the explicit form gives one.
        fail: Option<Order>,
    },
    /// `nreOpenCLFence`: `atomic_work_item_fence(flags, order, scope)`.
    Fence {
        /// Which memories it orders.
        flags: Flags,
        /// Its memory order.
        order: Order,
        /// Its memory scope.
        scope: OpenClScope,
    },
}

/// How an atomic function was called: plain, or explicit with its order and optional scope.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// The non-explicit form: `memory_order_seq_cst`, `memory_scope_device`.
    Plain,
    /// The `_explicit` form: its order and, when written, its scope.
    Explicit(Order, Option<OpenClScope>),
}

impl Mode {
    /// The memory order: the explicit one, `seq_cst` ([`Order::Sc`]) for the plain form.
    pub fn order(self) -> Order {
        match self {
            Mode::Plain => Order::Sc,
            Mode::Explicit(o, _) => o,
        }
    }

    /// The memory scope: the explicit one, `memory_scope_device` when none is written.
    pub fn scope(self) -> OpenClScope {
        match self {
            Mode::Explicit(_, Some(s)) => s,
            _ => OpenClScope::Device,
        }
    }
}

/// The names of the `atomic_fetch_<op>` functions' operations (OpenCL C §6.13.11.7.5:
/// `add`, `sub`, `or`, `xor`, `and`, `min`, `max`).
pub const FETCH_OPS: [(&str, RmwOp); 7] = [
    ("add", RmwOp::Add),
    ("sub", RmwOp::Sub),
    ("or", RmwOp::Or),
    ("xor", RmwOp::Xor),
    ("and", RmwOp::And),
    ("min", RmwOp::Min),
    ("max", RmwOp::Max),
];
