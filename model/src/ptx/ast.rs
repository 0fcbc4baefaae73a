//! The syntax tree of a PTX module, as the PTX ISA's "Syntax" chapter describes it: a module is a
//! sequence of directives (`.version`, `.target`, `.address_size`, `.file`, variable declarations,
//! `.entry` / `.func` definitions); a function body is a sequence of statements, each a label, a
//! declaration, a directive (`.loc`, `.pragma`) or an instruction "formed from an instruction
//! opcode followed by a comma-separated list of zero or more operands, and terminated with a
//! semicolon", optionally preceded by a guard predicate `@p` / `@!p`.
//!
//! The tree is generic: an instruction keeps its opcode and its dot-separated modifiers as text
//! (`ld` + `["acquire", "gpu", "global", "u32"]`). What an instruction means is decided by the
//! decoder that lowers it for the interpreter, which names the instruction and its position when
//! it does not know it. The parser produces this tree, the printer prints it back, and parsing the
//! printed text gives the same tree (positions aside).

use std::collections::BTreeMap;

/// A position in the PTX text: 1-based line and column (columns count characters).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// A parsed PTX module (one `.ptx` file).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// `.version MAJOR.MINOR`.
    pub version: Option<(u32, u32)>,
    /// `.target` names (`sm_90a`, `texmode_independent`, …).
    pub target: Vec<String>,
    /// `.address_size 32|64`.
    pub address_size: Option<u32>,
    /// `.file INDEX "NAME"{, TIMESTAMP, SIZE}`: the source files `.loc` lines refer to.
    pub files: BTreeMap<u32, String>,
    /// Module-scope variables and functions, in file order.
    pub items: Vec<Item>,
}

/// A module-scope item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A module-scope variable (`.global`, `.shared`, `.const`, …).
    Var(VarDecl),
    /// An `.entry` or `.func` definition or declaration.
    Func(Function),
    /// `.section NAME { … }`: a debug section (DWARF data), kept as its text between the braces.
    Section(Section),
    /// `.pragma "…";` at module scope.
    Pragma {
        /// Where the directive is.
        pos: Pos,
        /// The string, without quotes.
        text: String,
    },
}

/// A `.section` directive: PTX ISA, ".section": "`.section section_name { dwarf-lines }`". Its
/// lines are DWARF data for debuggers, which nothing here reads: the text between the braces is
/// kept as written, so that printing gives it back byte for byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Where the directive starts.
    pub pos: Pos,
    /// The section's name without its dot (`debug_info`, `debug_str`).
    pub name: String,
    /// The text between `{` and the matching `}`, exactly as written.
    pub text: String,
}

/// `.visible`, `.extern`, `.weak` or `.common` before a declaration.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// `.visible`: visible outside the module.
    Visible,
    /// `.extern`: defined elsewhere.
    Extern,
    /// `.weak`: visible, may be overridden.
    Weak,
    /// `.common`: visible, merged with other `.common` symbols of the same name.
    Common,
}

/// A PTX state space.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// `.reg`: registers.
    Reg,
    /// `.sreg`: special registers.
    Sreg,
    /// `.const`: constant memory.
    Const,
    /// `.global`: global memory.
    Global,
    /// `.local`: per-thread local memory.
    Local,
    /// `.param`: kernel or function parameters.
    Param,
    /// `.shared` or `.shared::cta`: the CTA's shared memory.
    Shared,
    /// `.shared::cluster`: shared memory of any CTA of the cluster.
    SharedCluster,
    /// `.tex`: texture memory (deprecated).
    Tex,
}

/// A declaration of registers or a variable: `.reg .b32 %r<10>;`, `.shared .align 4 .b8 buf[64];`,
/// `.global .u32 counts[2] = {1, 2};`, `.param .u64 .ptr.global.align 8 p`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// Where the declaration starts.
    pub pos: Pos,
    /// Linkage, if written.
    pub linkage: Option<Linkage>,
    /// The state space.
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2` / `.v4` / `.v8`: a vector variable of this many elements.
    pub vector: Option<u32>,
    /// The element type as written, without the dot (`b32`, `u64`, `f16x2`, `pred`, …).
    pub ty: String,
    /// The name (`%r`, `buf`, `__cudart_i2opi_f`).
    pub name: String,
    /// `%r<10>`: declares `%r0` … `%r9`.
    pub range: Option<u32>,
    /// Array dimensions: `[64]` is `Some(64)`, `[]` (size from the initialiser or external) `None`.
    pub array: Vec<Option<u64>>,
    /// `.ptr` attributes of a kernel parameter: the space it points into and its alignment.
    pub ptr: Option<PtrAttr>,
    /// `= …`: the initialiser.
    pub init: Option<Init>,
}

/// The `.ptr.SPACE.align N` attribute of an `.entry` parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    /// The space the pointer points into (`.global`, `.shared`, `.const`, `.local`), if written.
    pub space: Option<StateSpace>,
    /// `.align N`.
    pub align: u32,
}

/// A variable's initialiser.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// A scalar: a constant, or an address expression (`sym`, `sym+8`, `generic(sym)`).
    Scalar(Operand),
    /// `{a, b, …}`, possibly nested for multi-dimensional arrays.
    List(Vec<Init>),
    /// `generic(sym)` or `generic(sym)+N`: the generic address of a variable (PTX ISA,
    /// "Initializers": "`generic()` is used to get the generic address of the variable").
    Generic {
        /// The variable's name.
        name: String,
        /// `+N` / `-N` after the closing parenthesis.
        offset: i64,
    },
}

/// Whether a function is a kernel or a device function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FuncKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function, called with `call`.
    Func,
}

/// An `.entry` or `.func`.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Where the directive starts.
    pub pos: Pos,
    /// Linkage, if written.
    pub linkage: Option<Linkage>,
    /// `.entry` or `.func`.
    pub kind: FuncKind,
    /// The function's name.
    pub name: String,
    /// `.func (.reg .b32 r) name (…)`: the return parameters.
    pub returns: Vec<VarDecl>,
    /// The parameters, in order.
    pub params: Vec<VarDecl>,
    /// Performance-tuning directives between the parameter list and the body, with their
    /// arguments: `.maxntid 128, 1, 1`, `.reqntid 64`, `.minnctapersm 2`, `.maxnreg 32`,
    /// `.reqnctapercluster 2, 1, 1`, `.explicitcluster`, `.noreturn`, `.pragma "nounroll"` (a
    /// string argument is kept as text in `pragmas`).
    pub directives: Vec<(String, Vec<u64>)>,
    /// `.pragma "…";` lines before the body.
    pub pragmas: Vec<String>,
    /// The body; `None` for a declaration (`.extern .func f (…);`).
    pub body: Option<Vec<Statement>>,
}

/// One statement of a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `NAME:`.
    Label {
        /// Where the label is.
        pos: Pos,
        /// The label's name (`$L__BB0_2`).
        name: String,
    },
    /// A declaration inside the body (`.reg`, `.local`, `.shared`, `.param`).
    Decl(VarDecl),
    /// `.loc FILE LINE COL{, function_name …, inlined_at …}`: the source line of what follows.
    Loc(Loc),
    /// `.pragma "…";`.
    Pragma {
        /// Where the directive is.
        pos: Pos,
        /// The string, without quotes.
        text: String,
    },
    /// An instruction.
    Instr(Instruction),
    /// `.callprototype`, after the label that names it: the signature of the functions an
    /// indirect `call` through that label may reach.
    CallPrototype(CallPrototype),
    /// `.branchtargets L1, L2, …;`, after a label: the labels a `brx.idx` naming that label
    /// jumps to, by index.
    BranchTargets {
        /// Where the directive is.
        pos: Pos,
        /// The target labels, in order.
        labels: Vec<String>,
    },
    /// `.calltargets f, g, …;`, after a label: the functions an indirect `call` naming that
    /// label may reach.
    CallTargets {
        /// Where the directive is.
        pos: Pos,
        /// The functions' names, in order.
        functions: Vec<String>,
    },
    /// `{ … }`: a nested scope (NVRTC wraps inline assembly and calls in them).
    Block {
        /// Where `{` is.
        pos: Pos,
        /// The statements inside.
        body: Vec<Statement>,
    },
}

/// A `.callprototype` directive (PTX ISA, ".callprototype": "`label: .callprototype
/// (ret-param) _ (param-list);`", each part optional, "`.noreturn`" at the end).
#[derive(Clone, Debug, PartialEq)]
pub struct CallPrototype {
    /// Where the directive is.
    pub pos: Pos,
    /// The return parameters (`(.param .b32 _)`), empty when none.
    pub returns: Vec<VarDecl>,
    /// The input parameters, empty when none.
    pub params: Vec<VarDecl>,
    /// `.noreturn`: the callee does not return.
    pub noreturn: bool,
}

/// A `.loc` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// Where the directive is.
    pub pos: Pos,
    /// The `.file` index.
    pub file: u32,
    /// The source line.
    pub line: u32,
    /// The source column.
    pub col: u32,
    /// `, function_name LABEL{+OFFSET}`, kept as written after the keyword.
    pub function_name: Option<String>,
    /// `, inlined_at FILE LINE COL`: where the inlined function was called.
    pub inlined_at: Option<(u32, u32, u32)>,
}

/// An instruction: `@!%p1 ld.acquire.gpu.global.u32 %r1, [%rd2+4];`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// Where the instruction starts (the guard, if any).
    pub pos: Pos,
    /// `@p` / `@!p`.
    pub guard: Option<Guard>,
    /// The opcode (`ld`, `atom`, `mbarrier`, `cp`, `setp`, …).
    pub opcode: String,
    /// The dot-separated modifiers after the opcode, in order, without the dots; a `::` stays
    /// inside its modifier (`cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` is
    /// `cp` + `["async", "bulk", "shared::cluster", "global", "mbarrier::complete_tx::bytes"]`).
    pub modifiers: Vec<String>,
    /// The operands, in order.
    pub operands: Vec<Operand>,
}

/// A guard predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// `@!p`.
    pub negated: bool,
    /// The predicate register (`%p1`).
    pub reg: String,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, special register or register component: `%r1`, `%tid.x`, `%lanemask_lt`, `%p`.
    Reg(String),
    /// `!%p`: a negated predicate operand (`selp`, `setp`'s `c` operand, `vote`).
    Not(String),
    /// An integer constant (decimal, `0x…`, `0…` octal, `0b…`; a `U` suffix is dropped). Negative
    /// constants are kept as their two's-complement `i64`.
    Int(i64),
    /// A floating-point constant: `0fXXXXXXXX` (f32 bits), `0dXXXXXXXXXXXXXXXX` (f64 bits), or a
    /// decimal (`1.5`, an f64).
    Float(FloatLit),
    /// A symbol, optionally with an offset: a variable, function or label name (`$L__BB0_2`,
    /// `smem+16`, `__unnamed_1`).
    Symbol {
        /// The name.
        name: String,
        /// `+N` / `-N` after the name.
        offset: i64,
    },
    /// `[…]`: an address operand.
    Address(Address),
    /// `[tensorMap, tensorCoords]`: a tensor map's address and the coordinates of a box in the
    /// tensor (PTX ISA, *cp.async.bulk.tensor*: "`[tensorMap, tensorCoords]`", the coordinates
    /// "a vector of .s32 type" in `{…}`).
    TensorAddress {
        /// The tensor map's address (`[tmap]`'s base and offset).
        tensor_map: Address,
        /// The coordinates, dimension 0 first (the vector's items).
        coords: Vec<Operand>,
    },
    /// `{a, b, …}`: a vector operand (`ld.v4`, `mov.b64 {lo, hi}`, `shfl`'s `{d, p}`).
    Vector(Vec<Operand>),
    /// `(a, b, …)`: a `call`'s return or argument list.
    List(Vec<Operand>),
    /// `a|b`: two destinations (`setp`'s `p|q`, `shfl.sync`'s `d|p`).
    Pair(Box<Operand>, Box<Operand>),
    /// `_`: the sink, a destination that is discarded.
    Sink,
}

/// A floating-point literal.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum FloatLit {
    /// `0fXXXXXXXX`: the IEEE single-precision bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal literal: the IEEE double-precision bits.
    F64(u64),
}

/// `[base+offset]`: what an address operand names.
#[derive(Clone, Debug, PartialEq)]
pub struct Address {
    /// The base: a register, a variable or an absolute address.
    pub base: AddrBase,
    /// The constant offset (`[%rd1+-4]` is -4).
    pub offset: i64,
}

/// The base of an address operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddrBase {
    /// `[%rd1]`.
    Reg(String),
    /// `[buf]`, `[buf+8]`.
    Symbol(String),
    /// `[0x100]`: an absolute address.
    Absolute,
}
