//! Parser for herd's OpenCL C litmus dialect, after Dat3M's `LitmusC.g4` (its OpenCL and C11
//! productions; the Linux-kernel ones are not OpenCL C and are refused by name), then the
//! lowering of each kernel to the IR ([`super::lower`]).
//!
//! `main : LitmusLanguage ~(LBrace)* variableDeclaratorList (threadDeclarator threadContent)+
//! variableList? assertionFilter? assertionList? comment? EOF`: the header `OPENCL NAME` and
//! any quoted descriptions (`"..."`, with `\"` for a quote), the initial state (this module),
//! the kernels (this module, statements in [`stmt`], expressions and calls in [`expr`]), then
//! herd's tail, which the shared tail parser reads.

mod expr;
mod lex;
mod stmt;

pub use lex::{quote, string};

use super::ast::*;
use super::lower::Lower;
use super::Region;
use crate::litmus::error::LitmusError;
use crate::litmus::ir::*;
use crate::litmus::lines::LineIndex;
use crate::scope::Placement;
use lex::{Tok, Token};
use std::collections::HashMap;

type Result<T> = std::result::Result<T, LitmusError>;

/// How deep blocks (`if`, `while` arms) and expressions (parentheses, `!`, casts) may nest:
/// the parser, the lowering and the printer recurse along them.
pub const MAX_NESTING: usize = 64;

/// The most binary operators one expression may chain (the depth of its tree, which lowering
/// walks recursively).
pub const MAX_OPERATORS: usize = 1024;

/// Reads an OpenCL test from `src` (comments `(* *)` already blanked) from the offset after
/// its name; `tail` parses herd's tail from a byte offset into the program.
pub(in crate::litmus) fn program(
    src: &str,
    original: &str,
    file: &str,
    name: String,
    body_at: usize,
    tail: &dyn Fn(usize, &mut Program) -> Result<()>,
) -> Result<Program> {
    // Spans from a line index: every statement gets one, and counting newlines from the start
    // for each made parsing quadratic in the number of statements.
    let lines = LineIndex::new(original);
    let err = |at: usize, m: String| LitmusError::at(file, original, lines.span(at), m);
    let err_at = |span: Span, m: String| LitmusError::at(file, original, span, m);
    let pos = |at: usize| lines.span(at);
    let tokens = lex::lex(src, body_at).map_err(|(at, m)| err(at, m))?;
    let mut p = P {
        toks: &tokens,
        i: 0,
        end: src.len(),
        err: &err,
        pos: &pos,
        arrays: HashMap::new(),
        depth: 0,
        operators: 0,
    };
    let mut program = Program {
        name,
        comments: Vec::new(),
        locations: Vec::new(),
        reg_init: Vec::new(),
        threads: Vec::new(),
        observed: Vec::new(),
        filter: None,
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop: Prop::True,
            span: Span::default(),
        },
        front: None,
        groups: None,
        relations: Default::default(),
    };
    // `~(LBrace)*`: herd writes a quoted description there.
    while let Some(Tok::Str(s)) = p.peek() {
        program.comments.push(s.clone());
        p.i += 1;
    }
    let init = p.init(&mut program)?;
    let mut kernels = Vec::new();
    while let Some(Tok::Ident(id)) = p.peek() {
        let Some(t) = thread_number(id) else { break };
        let at = p.here();
        if t != kernels.len() {
            return Err(err(
                at,
                format!("expected thread P{}, found `{id}`", kernels.len()),
            ));
        }
        p.i += 1;
        let (placement, kernel) = p.kernel(&mut program)?;
        let body = {
            let mut lower = Lower::new(&kernel.params, &program, kernels.len(), &err_at);
            lower.stmts(&kernel.body)?;
            lower.finish()
        };
        program.threads.push(Thread {
            placement,
            body,
            span: lines.span(at),
        });
        kernels.push(kernel);
    }
    if kernels.is_empty() {
        let found = p.describe();
        return Err(err(
            p.here(),
            format!("expected a kernel `P0@wg 0, dev 0 (...) {{ ... }}`, found {found}"),
        ));
    }
    for r in &program.reg_init {
        if r.thread >= kernels.len() {
            return Err(err(
                body_at,
                format!(
                    "the initial state sets P{}:{}, but the test has {} threads",
                    r.thread,
                    r.reg,
                    kernels.len()
                ),
            ));
        }
    }
    let test = OpenClTest {
        init,
        threads: kernels,
    };
    super::lower::mark_nonatomic_locations(&mut program, &test);
    let placements: Vec<(u32, u32)> = program
        .threads
        .iter()
        .map(|t| (t.placement.cta, t.placement.gpu))
        .collect();
    program.groups = Some(super::groups(&placements));
    program.front = Some(Front {
        dialect: super::DIALECT.to_string(),
        source: Some(Source::new(test)),
    });
    tail(p.here(), &mut program)?;
    Ok(program)
}

/// `ThreadIdentifier`: `P` and digits.
fn thread_number(id: &str) -> Option<usize> {
    let digits = id.strip_prefix('P')?;
    match !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        true => digits.parse().ok(),
        false => None,
    }
}

/// The parser's state: the tokens, where it is, and the arrays of the initial state (by name:
/// the first element and the length).
pub(super) struct P<'t, 'e> {
    toks: &'t [Token],
    i: usize,
    end: usize,
    err: &'e dyn Fn(usize, String) -> LitmusError,
    pos: &'e dyn Fn(usize) -> Span,
    arrays: HashMap<String, (LocId, u32)>,
    /// Blocks and expressions open at this point.
    depth: usize,
    /// Binary operators on the path from the current expression's root ([`MAX_OPERATORS`]).
    operators: usize,
}

impl<'t> P<'t, '_> {
    /// Runs `f` one nesting level deeper, refusing input nested past [`MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth == MAX_NESTING {
            return self.fail(format!(
                "nested too deep: more than {MAX_NESTING} blocks or parentheses"
            ));
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    fn peek(&self) -> Option<&'t Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&'t Tok> {
        self.toks.get(self.i + k).map(|t| &t.tok)
    }

    fn here(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.at)
    }

    fn fail<T>(&self, m: impl Into<String>) -> Result<T> {
        Err((self.err)(self.here(), m.into()))
    }

    fn fail_at<T>(&self, at: usize, m: impl Into<String>) -> Result<T> {
        Err((self.err)(at, m.into()))
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(q)) if q == w)
    }

    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.i += 1;
        }
        yes
    }

    fn expect(&mut self, p: &str) -> Result<()> {
        if self.eat(p) {
            Ok(())
        } else {
            let found = self.describe();
            self.fail(format!("expected `{p}`, found {found}"))
        }
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Int(v)) => format!("`{v}`"),
            Some(Tok::Str(_)) => "a quoted string".into(),
            Some(Tok::Punct(p)) => format!("`{p}`"),
        }
    }

    fn ident(&mut self, what: &str) -> Result<String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                self.i += 1;
                Ok(s.clone())
            }
            _ => {
                let found = self.describe();
                self.fail(format!("expected {what}, found {found}"))
            }
        }
    }

    /// `constant`: `Minus? DigitSequence | HexDigitSequence`.
    fn int(&mut self) -> Result<Value> {
        let neg = self.eat("-");
        match self.peek() {
            Some(Tok::Int(v)) => {
                self.i += 1;
                Ok(if neg { v.wrapping_neg() } else { *v })
            }
            _ => {
                let found = self.describe();
                self.fail(format!("expected an integer, found {found}"))
            }
        }
    }

    /// A non-negative integer that fits 32 bits (an id, a length, an offset).
    fn count(&mut self, what: &str) -> Result<u32> {
        let at = self.here();
        let v = self.int()?;
        u32::try_from(v).or_else(|_| self.fail_at(at, format!("`{v}` is not a valid {what}")))
    }

    /// `typeSpecifier : Volatile? basicTypeSpecifier Ast*`, if one starts here. The
    /// Linux-kernel types (`atomic_t`, `spinlock_t`) and `struct` are not OpenCL C.
    fn ctype(&mut self) -> Result<Option<CType>> {
        let start = self.i;
        let volatile = self.is_word("volatile");
        if volatile {
            self.i += 1;
        }
        let at = self.here();
        let base = match self.peek() {
            Some(Tok::Ident(w)) => match BaseType::from_name(w) {
                Some(b) => b,
                None if matches!(w.as_str(), "atomic_t" | "spinlock_t" | "struct") => {
                    return self.fail_at(
                        at,
                        format!("`{w}` is a Linux-kernel type, not an OpenCL C one"),
                    )
                }
                None if volatile => return self.fail_at(at, "expected a type after `volatile`"),
                None => {
                    self.i = start;
                    return Ok(None);
                }
            },
            _ if volatile => return self.fail_at(at, "expected a type after `volatile`"),
            _ => return Ok(None),
        };
        self.i += 1;
        let mut pointers = 0u8;
        while self.eat("*") {
            pointers = pointers.saturating_add(1);
        }
        Ok(Some(CType {
            volatile,
            base,
            pointers,
        }))
    }

    /// `variableDeclaratorList : LBrace (globalDeclarator Semi)* globalDeclarator? RBrace
    /// Semi?`.
    fn init(&mut self, prog: &mut Program) -> Result<Vec<InitDecl>> {
        self.expect("{")?;
        let mut out = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return self.fail("missing `}` closing the initial state");
            }
            out.push(self.global_declarator(prog)?);
            if !self.is("}") {
                self.expect(";")?;
            }
        }
        self.eat(";");
        Ok(out)
    }

    /// `globalDeclarator`: a location, a register, or an array, each with an optional type.
    /// Pointer-valued declarations (`x = &y`, `P0:r0 = &x`) are refused: this IR holds
    /// integers only.
    fn global_declarator(&mut self, prog: &mut Program) -> Result<InitDecl> {
        let ty = self.ctype()?;
        let at = self.here();
        // `globalDeclaratorRegister : typeSpecifier? threadId Colon varName (Equals
        // initConstantValue)?`, `threadId : ThreadIdentifier | DigitSequence`.
        let thread = match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Ident(id)), Some(Tok::Punct(":"))) => thread_number(id),
            (Some(Tok::Int(n)), Some(Tok::Punct(":"))) => usize::try_from(*n).ok(),
            _ => None,
        };
        if let Some(thread) = thread {
            self.i += 2;
            let reg = Reg(self.ident("a register")?);
            let value = match self.eat("=") {
                true => self.init_value()?,
                false => InitValue::Const(0),
            };
            if prog
                .reg_init
                .iter()
                .any(|r| r.thread == thread && r.reg == reg)
            {
                return self.fail_at(at, format!("P{thread}:{reg} is initialised twice"));
            }
            prog.reg_init.push(RegInit {
                thread,
                reg: reg.clone(),
                value: value.value(),
            });
            return Ok(InitDecl {
                ty,
                item: InitItem::Register { thread, reg, value },
            });
        }
        let bracketed = self.eat("[");
        let name = self.ident("a location")?;
        if bracketed {
            self.expect("]")?;
        } else if self.eat("[") {
            return self.array(prog, ty, name, at);
        }
        if prog.location_named(&name).is_some() || self.arrays.contains_key(&name) {
            return self.fail_at(at, format!("location `{name}` is declared twice"));
        }
        let value = match self.eat("=") {
            true => Some(self.init_value()?),
            false => None,
        };
        prog.locations.push(Location {
            name,
            kind: LocationKind::Plain {
                init: value.map_or(0, InitValue::value),
            },
            span: (self.pos)(at),
            shared: None,
        });
        Ok(InitDecl {
            ty,
            item: InitItem::Location {
                loc: prog.locations.len() - 1,
                bracketed,
                value,
            },
        })
    }

    /// `initConstantValue : AtomicInit LPar constant RPar | constant`; `&x` is refused.
    fn init_value(&mut self) -> Result<InitValue> {
        if self.is("&") || self.is("*") {
            return self.fail("pointer values (`&x`) are not supported: locations hold integers");
        }
        if self.is_word("ATOMIC_VAR_INIT") {
            self.i += 1;
            self.expect("(")?;
            let v = self.int()?;
            self.expect(")")?;
            return Ok(InitValue::AtomicVarInit(v));
        }
        if let Some(Tok::Ident(w)) = self.peek() {
            return self.fail(format!(
                "pointer values (`{w}`) are not supported: locations hold integers"
            ));
        }
        Ok(InitValue::Const(self.int()?))
    }

    /// `globalDeclaratorArray : typeSpecifier? varName LBracket DigitSequence? RBracket
    /// (Equals initArray)?`, after the `[`. `initArray : LBrace arrayElement* (Comma
    /// arrayElement)* RBrace` with constant elements; an element left out starts at 0 (C11
    /// 6.7.9: "all subobjects that are not initialized explicitly shall be initialized
    /// implicitly the same as objects that have static storage duration").
    fn array(
        &mut self,
        prog: &mut Program,
        ty: Option<CType>,
        name: String,
        at: usize,
    ) -> Result<InitDecl> {
        let len = match self.is("]") {
            true => None,
            false => Some(self.count("array length")?),
        };
        self.expect("]")?;
        let values = match self.eat("=") {
            true => {
                self.expect("{")?;
                let mut values = Vec::new();
                while !self.eat("}") {
                    if self.is("&") || matches!(self.peek(), Some(Tok::Ident(_))) {
                        return self.fail(
                            "pointer values (`&x`) are not supported: locations hold integers",
                        );
                    }
                    values.push(self.int()?);
                    if !self.is("}") {
                        self.expect(",")?;
                    }
                }
                Some(values)
            }
            false => None,
        };
        let n = match (len, &values) {
            (Some(n), Some(v)) if v.len() > n as usize => {
                return self.fail_at(
                    at,
                    format!("array `{name}` has {n} elements but {} values", v.len()),
                )
            }
            (Some(n), _) => n,
            (None, Some(v)) => v.len() as u32,
            (None, None) => return self.fail_at(at, format!("array `{name}` has no length")),
        };
        if n == 0 {
            return self.fail_at(at, format!("array `{name}` has no elements"));
        }
        if prog.location_named(&name).is_some() || self.arrays.contains_key(&name) {
            return self.fail_at(at, format!("location `{name}` is declared twice"));
        }
        let first = prog.locations.len();
        for k in 0..n {
            prog.locations.push(Location {
                name: format!("{name}[{k}]"),
                kind: LocationKind::Plain {
                    init: values
                        .as_ref()
                        .and_then(|v| v.get(k as usize).copied())
                        .unwrap_or(0),
                },
                span: (self.pos)(at),
                shared: None,
            });
        }
        self.arrays.insert(name.clone(), (first, n));
        Ok(InitDecl {
            ty,
            item: InitItem::Array {
                name,
                first,
                len: n,
                sized: len.is_some(),
                values,
            },
        })
    }

    /// `threadDeclarator threadContent` after the thread name: `(At threadScope)? LPar
    /// threadArguments? RPar LBrace expression* RBrace`, `threadScope : OpenCLWG scopeID Comma
    /// OpenCLDEV scopeID` (left out: work-group 0 of device 0).
    fn kernel(&mut self, prog: &mut Program) -> Result<(Placement, Kernel)> {
        let (mut wg, mut dev) = (0, 0);
        if self.eat("@") {
            for (k, slot) in [("wg", &mut wg), ("dev", &mut dev)] {
                let at = self.here();
                let word = self.ident(&format!("`{k}`"))?;
                if word != k {
                    return self.fail_at(at, format!("expected `{k}`, found `{word}`"));
                }
                *slot = self.count(&format!("`{k}` id"))?;
                if k == "wg" {
                    self.expect(",")?;
                }
            }
        }
        self.expect("(")?;
        let mut params = Vec::new();
        while !self.eat(")") {
            let param = self.param(prog)?;
            if params.iter().any(|q: &Param| q.loc == param.loc) {
                return self.fail("a parameter is named twice");
            }
            params.push(param);
            if !self.is(")") {
                self.expect(",")?;
            }
        }
        self.expect("{")?;
        let body = self.block_body(prog, &params)?;
        Ok((Placement::new(wg, dev), Kernel { params, body }))
    }

    /// `threadArgument : pointerTypeSpecifier varName`, `pointerTypeSpecifier : Volatile?
    /// openCLSpace? (basicTypeSpecifier | atomicTypeSpecifier) Ast`. A name the initial state
    /// leaves out is a location holding 0 (herd: "a location left out of the initial state
    /// starts at 0").
    fn param(&mut self, prog: &mut Program) -> Result<Param> {
        let volatile = self.is_word("volatile");
        if volatile {
            self.i += 1;
        }
        let region = match self.peek() {
            Some(Tok::Ident(w)) if matches!(w.as_str(), "global" | "__global") => {
                Some(Region::Global)
            }
            Some(Tok::Ident(w)) if matches!(w.as_str(), "local" | "__local") => Some(Region::Local),
            _ => None,
        };
        if region.is_some() {
            self.i += 1;
        }
        let at = self.here();
        let Some(ty) = self.ctype()? else {
            let found = self.describe();
            return self.fail_at(
                at,
                format!("expected a parameter type (`int*`, `atomic_int*`, ...), found {found}"),
            );
        };
        if ty.volatile || ty.pointers != 1 {
            return self.fail_at(
                at,
                "a kernel parameter is a pointer to an integer: `global atomic_int* x`",
            );
        }
        let name = self.ident("a parameter name")?;
        let loc = match (prog.location_named(&name), self.arrays.get(&name)) {
            (Some(l), _) => l,
            (None, Some(&(first, _))) => first,
            (None, None) => {
                prog.locations.push(Location {
                    name,
                    kind: LocationKind::Plain { init: 0 },
                    span: (self.pos)(at),
                    shared: None,
                });
                prog.locations.len() - 1
            }
        };
        Ok(Param {
            loc,
            region,
            atomic: ty.base.is_atomic(),
            volatile,
            base: ty.base,
        })
    }
}
