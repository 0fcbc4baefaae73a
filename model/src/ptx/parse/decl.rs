//! Variable and register declarations. PTX ISA, "Variable Declarations": "In addition to
//! requiring a type, variable declarations may specify a state space, alignment, vector size,
//! array size, and an initialiser": `.SPACE [.align N] [.vN] .TYPE name [<N>] [[N]…] [= init]`,
//! with "a comma-separated list of variable names" after one head (`.reg .b32 r1, r2;`), and
//! "Parameterized Variable Names": "`.reg .b32 %r<100>;` declares `%r0`, `%r1`, …, `%r99`".

use super::{PResult, Parser};
use crate::ptx::ast::{Init, Linkage, Pos, PtrAttr, StateSpace, VarDecl};
use crate::ptx::lex::Tok;

/// A state space's directive name. PTX ISA, "State Spaces": "`.reg .sreg .const .global .local
/// .param .shared .tex`"; `.shared::cta` is `.shared`, `.shared::cluster` the cluster's window.
pub(crate) fn state_space(name: &str) -> Option<StateSpace> {
    Some(match name {
        "reg" => StateSpace::Reg,
        "sreg" => StateSpace::Sreg,
        "const" => StateSpace::Const,
        "global" => StateSpace::Global,
        "local" => StateSpace::Local,
        "param" => StateSpace::Param,
        "shared" | "shared::cta" => StateSpace::Shared,
        "shared::cluster" => StateSpace::SharedCluster,
        "tex" => StateSpace::Tex,
        _ => return None,
    })
}

/// The types a variable may have. PTX ISA, "Fundamental Types": "Signed integer `.s8, .s16,
/// .s32, .s64`; Unsigned integer `.u8, .u16, .u32, .u64`; Floating-point `.f16, .f16x2, .f32,
/// .f64`; Bits (untyped) `.b8, .b16, .b32, .b64, .b128`; Predicate `.pred`", the alternate
/// floating-point formats (`.bf16`, `.bf16x2`, `.tf32`, `.e4m3`, `.e5m2`, … and their `x2`/`x4`
/// packings), and "Texture, Sampler, and Surface Types": "`.texref`, `.samplerref`, `.surfref`".
const TYPES: &[&str] = &[
    "s8",
    "s16",
    "s32",
    "s64",
    "u8",
    "u16",
    "u32",
    "u64",
    "f16",
    "f16x2",
    "f32",
    "f64",
    "b8",
    "b16",
    "b32",
    "b64",
    "b128",
    "pred",
    "bf16",
    "bf16x2",
    "tf32",
    "e4m3",
    "e5m2",
    "e4m3x2",
    "e5m2x2",
    "e2m3",
    "e3m2",
    "e2m1",
    "e2m3x2",
    "e3m2x2",
    "e2m1x2",
    "ue8m0",
    "ue8m0x2",
    "s2f6",
    "s2f6x2",
    "texref",
    "samplerref",
    "surfref",
];

impl<'a> Parser<'a> {
    /// `.SPACE … name, name … ;` with its linkage already read; `pos` is where it starts.
    pub(super) fn var_decls(
        &mut self,
        pos: Pos,
        linkage: Option<Linkage>,
    ) -> PResult<Vec<VarDecl>> {
        let head = self.decl_head(pos, linkage)?;
        let mut out = Vec::new();
        loop {
            out.push(self.declarator(head.clone(), true)?);
            if !self.eat(Tok::Punct(',')) {
                break;
            }
        }
        self.expect_semi("the declaration")?;
        Ok(out)
    }

    /// One parameter or return value: `.param .u64 .ptr.global.align 8 p`, `.reg .b32 r`.
    pub(super) fn param_decl(&mut self, pos: Pos) -> PResult<VarDecl> {
        let head = self.decl_head(pos, None)?;
        self.declarator(head, false)
    }

    /// `.SPACE {.align N} {.vN} .TYPE {.ptr{.SPACE}.align N}`: everything before the name.
    fn decl_head(&mut self, pos: Pos, linkage: Option<Linkage>) -> PResult<VarDecl> {
        let t = self.next();
        let Tok::Dot(space_name) = t.tok else {
            return Err(self.error(t.pos, "expected a state space"));
        };
        let Some(space) = state_space(space_name) else {
            return Err(self.error(t.pos, format!("unknown state space `.{space_name}`")));
        };
        let mut d = VarDecl {
            pos,
            linkage,
            space,
            align: None,
            vector: None,
            ty: String::new(),
            name: String::new(),
            range: None,
            array: Vec::new(),
            ptr: None,
            init: None,
        };
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Dot("align") => {
                    self.next();
                    d.align = Some(self.alignment()?);
                }
                Tok::Dot(v @ ("v2" | "v4" | "v8")) => {
                    self.next();
                    d.vector = v[1..].parse().ok();
                }
                Tok::Dot(ty) if TYPES.contains(&ty) => {
                    self.next();
                    d.ty = ty.to_string();
                    break;
                }
                Tok::Dot(other) => {
                    return Err(self.error(t.pos, format!("unknown type `.{other}`")));
                }
                _ => return self.expected("a type (`.b32`, `.u64`, `.pred`, …)"),
            }
        }
        if self.peek().tok == Tok::Dot("ptr") {
            self.next();
            d.ptr = Some(self.ptr_attr()?);
        }
        Ok(d)
    }

    /// `.align N`'s byte count: PTX ISA, "Alignment": "the alignment … must be a power of two".
    fn alignment(&mut self) -> PResult<u32> {
        let pos = self.peek().pos;
        let n = self.u32("an alignment")?;
        if !n.is_power_of_two() {
            return Err(self.error(pos, format!("alignment {n} is not a power of two")));
        }
        Ok(n)
    }

    /// After `.ptr`: PTX ISA, "Kernel Parameter Attribute: .ptr": "`.ptr.space.align N`" and
    /// "`.ptr.align N`" (the space is generic when left out).
    fn ptr_attr(&mut self) -> PResult<PtrAttr> {
        let mut space = None;
        let t = self.peek();
        if let Tok::Dot(n) = t.tok {
            if n != "align" {
                match state_space(n) {
                    Some(
                        s @ (StateSpace::Global
                        | StateSpace::Shared
                        | StateSpace::Const
                        | StateSpace::Local),
                    ) => {
                        space = Some(s);
                        self.next();
                    }
                    _ => return Err(self.error(t.pos, format!("`.ptr` cannot point into `.{n}`"))),
                }
            }
        }
        if !self.eat(Tok::Dot("align")) {
            return self.expected("`.align N` in the `.ptr` attribute");
        }
        Ok(PtrAttr {
            space,
            align: self.alignment()?,
        })
    }

    /// `name {<N>} {[N]…} {= init}` (`_` names an unused parameter in a call prototype).
    fn declarator(&mut self, mut d: VarDecl, allow_init: bool) -> PResult<VarDecl> {
        let t = self.peek();
        d.name = match t.tok {
            Tok::Ident(n) => n.to_string(),
            Tok::Sink => "_".to_string(),
            _ => return self.expected("a variable name"),
        };
        self.next();
        if self.eat(Tok::Punct('<')) {
            d.range = Some(self.u32("a register count")?);
            self.expect_punct('>', "closing the register count")?;
        }
        while self.peek().tok == Tok::Punct('[') {
            self.next();
            if self.eat(Tok::Punct(']')) {
                d.array.push(None);
            } else {
                d.array.push(Some(self.uint("an array size")?));
                self.expect_punct(']', "closing the array size")?;
            }
        }
        if allow_init && self.peek().tok == Tok::Punct('=') {
            self.next();
            d.init = Some(self.init()?);
        }
        if d.space == StateSpace::Reg {
            if let Some(scope) = self.regs.last_mut() {
                scope.push((d.name.clone(), d.range));
            }
        }
        Ok(d)
    }

    /// An initialiser. PTX ISA, "Initializers": "Variables in `.const` and `.global` state
    /// spaces may be initialized … `{ … }` lists, nested for multi-dimensional arrays"; "the
    /// address of a variable … or `generic(var)` … optionally followed by `+ offset`".
    fn init(&mut self) -> PResult<Init> {
        let t = self.peek();
        match t.tok {
            Tok::Punct('{') => {
                self.next();
                self.enter(t.pos, "initialiser lists")?;
                let result = self.init_list();
                self.leave();
                result
            }
            Tok::Ident("generic") if self.peek_nth(1).tok == Tok::Punct('(') => {
                self.next();
                self.next();
                let (name, _) = self.ident("a variable name in `generic(…)`")?;
                self.expect_punct(')', "closing `generic(`")?;
                let offset = self.offset()?;
                Ok(Init::Generic {
                    name: name.to_string(),
                    offset,
                })
            }
            _ => Ok(Init::Scalar(self.constant_or_symbol()?)),
        }
    }

    fn init_list(&mut self) -> PResult<Init> {
        let mut items = Vec::new();
        if self.eat(Tok::Punct('}')) {
            return Ok(Init::List(items));
        }
        loop {
            items.push(self.init()?);
            if self.eat(Tok::Punct('}')) {
                return Ok(Init::List(items));
            }
            self.expect_punct(',', "or `}` in the initialiser list")?;
        }
    }
}
