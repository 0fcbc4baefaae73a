//! Parser for herd's OpenCL C litmus dialect (see [`super::opencl`] for an example), and the
//! lowering of each kernel's C statements to the IR the engines read.
//!
//! The grammar read: a header `OPENCL NAME`; the initial state `{ [x] = 0; y = 1; }`; kernels
//! `P0@wg 0, dev 0 (global atomic_int* x, volatile global int* y) { ... }` (the placement may
//! be left out: work-group 0 of device 0); then herd's tail (`locations`, `filter`, the final
//! condition) as in the other dialects. Statements: `int r;`, `int r = e;`, `r = e;`,
//! `*x = e;`, calls of the OpenCL C atomic functions, `if (c) s [else s]` and blocks;
//! expressions are integers, registers, `*x` and calls. `//` and `(* *)` comments are blanks.
//!
//! Lowering: every load, store, read-modify-write and fence becomes one IR statement with its
//! [`OpenClOp`]; an operand that is itself a load or call is first read into a fresh register
//! (named `%tN`, which no condition can name); `if` becomes a branch on the negated condition
//! around its arms; `atomic_compare_exchange_strong(obj, expected, desired)` reads `*expected`,
//! compares-and-swaps, and on failure writes the value read to `*expected` (OpenCL C §6.13.11.7,
//! after C11 7.17.7.4: "if false, the value pointed to by expected is updated with the value
//! of the atomic object"), its result being 1 on success and 0 on failure.

use super::error::LitmusError;
use super::ir::*;
use super::opencl::*;
use crate::scope::{Order, Placement};
use std::collections::BTreeSet;

type Result<T> = std::result::Result<T, LitmusError>;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(Value),
    Punct(&'static str),
}

struct Token {
    tok: Tok,
    at: usize,
}

/// Reads an OpenCL test from `src` (comments `(* *)` already blanked) from the offset after
/// its header line; `tail` parses herd's tail from a byte offset into the program.
pub(super) fn program(
    src: &str,
    original: &str,
    file: &str,
    name: String,
    body_at: usize,
    tail: &dyn Fn(usize, &mut Program) -> Result<()>,
) -> Result<Program> {
    let err = |at: usize, m: String| LitmusError::at(file, original, span_at(original, at), m);
    let err_at = |span: Span, m: String| LitmusError::at(file, original, span, m);
    let pos = |at: usize| span_at(original, at);
    let tokens = lex(src, body_at).map_err(|(at, m)| err(at, m))?;
    let mut p = P {
        toks: &tokens,
        i: 0,
        end: src.len(),
        err: &err,
        err_at: &err_at,
        pos: &pos,
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
        vulkan: None,
        opencl: None,
    };
    p.init(&mut program)?;
    let mut kernels = Vec::new();
    while let Some(Tok::Ident(id)) = p.peek() {
        if !(id.starts_with('P') && id.len() > 1 && id[1..].chars().all(|c| c.is_ascii_digit())) {
            break;
        }
        let at = p.here();
        let t: usize = id[1..]
            .parse()
            .map_err(|_| err(at, format!("bad thread `{id}`")))?;
        if t != kernels.len() {
            return Err(err(
                at,
                format!("expected thread P{}, found `{id}`", kernels.len()),
            ));
        }
        p.i += 1;
        let (placement, kernel, body) = p.kernel(&mut program)?;
        program.threads.push(Thread {
            placement,
            body,
            span: span_at(original, at),
        });
        kernels.push(kernel);
    }
    if kernels.is_empty() {
        return Err(err(
            p.here(),
            "expected a kernel `P0@wg 0, dev 0 (...) { ... }`".into(),
        ));
    }
    program.opencl = Some(OpenClTest { threads: kernels });
    tail(p.here(), &mut program)?;
    Ok(program)
}

fn span_at(src: &str, offset: usize) -> Span {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Span {
        line: before.matches('\n').count() as u32 + 1,
        col: src[line_start..offset].chars().count() as u32 + 1,
    }
}

const PUNCT: [&str; 16] = [
    "==", "!=", "{", "}", "(", ")", "[", "]", ";", ",", "=", "*", "|", "@", "-", "+",
];

/// Tokens from `at` up to the final condition's keyword (the tail is left to the caller).
fn lex(src: &str, at: usize) -> std::result::Result<Vec<Token>, (usize, String)> {
    let b = src.as_bytes();
    let mut i = at;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[s..i];
            if matches!(word, "exists" | "forall" | "locations" | "filter") {
                out.push(Token {
                    tok: Tok::Ident(word.into()),
                    at: s,
                });
                return Ok(out);
            }
            out.push(Token {
                tok: Tok::Ident(word.into()),
                at: s,
            });
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let v = src[s..i]
                .parse::<Value>()
                .map_err(|_| (s, format!("integer `{}` out of range", &src[s..i])))?;
            out.push(Token {
                tok: Tok::Int(v),
                at: s,
            });
        } else if c == b'~' {
            // `~exists`: the tail starts here.
            out.push(Token {
                tok: Tok::Ident("~".into()),
                at: i,
            });
            return Ok(out);
        } else if let Some(p) = PUNCT.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            out.push(Token {
                tok: Tok::Punct(p),
                at: i,
            });
            i += p.len();
        } else {
            let ch = src[i..].chars().next().expect("in bounds");
            return Err((i, format!("unexpected character `{ch}`")));
        }
    }
    Ok(out)
}

struct P<'t, 'e> {
    toks: &'t [Token],
    i: usize,
    end: usize,
    err: &'e dyn Fn(usize, String) -> LitmusError,
    err_at: &'e dyn Fn(Span, String) -> LitmusError,
    pos: &'e dyn Fn(usize) -> Span,
}

/// What the lowering of one kernel knows: its parameters, registers and fresh names.
struct Lower<'a> {
    params: &'a [Param],
    regs: BTreeSet<Reg>,
    temps: usize,
    labels: usize,
    out: Vec<Stmt>,
}

impl<'t> P<'t, '_> {
    fn peek(&self) -> Option<&'t Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    fn here(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.at)
    }

    fn fail<T>(&self, m: impl Into<String>) -> Result<T> {
        Err((self.err)(self.here(), m.into()))
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn expect(&mut self, p: &str) -> Result<()> {
        if self.is(p) {
            self.i += 1;
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

    fn int(&mut self) -> Result<Value> {
        let neg = self.is("-");
        if neg {
            self.i += 1;
        }
        match self.peek() {
            Some(Tok::Int(v)) => {
                self.i += 1;
                Ok(if neg { -v } else { *v })
            }
            _ => {
                let found = self.describe();
                self.fail(format!("expected an integer, found {found}"))
            }
        }
    }

    /// `{ [x] = 0; y = 1; }`: every location with its initial value.
    fn init(&mut self, prog: &mut Program) -> Result<()> {
        self.expect("{")?;
        while !self.is("}") {
            let at = self.here();
            let bracket = self.is("[");
            if bracket {
                self.i += 1;
            }
            let name = self.ident("a location")?;
            if bracket {
                self.expect("]")?;
            }
            self.expect("=")?;
            let init = self.int()?;
            if prog.location_named(&name).is_some() {
                return Err((self.err)(
                    at,
                    format!("location `{name}` is declared twice"),
                ));
            }
            prog.locations.push(Location {
                name,
                kind: LocationKind::Plain { init },
                span: Span::default(),
                shared: None,
            });
            if !self.is("}") {
                self.expect(";")?;
            }
        }
        self.i += 1;
        Ok(())
    }

    /// `@wg 0, dev 0 (params) { body }` after the thread name.
    fn kernel(&mut self, prog: &mut Program) -> Result<(Placement, Kernel, Vec<Stmt>)> {
        let (mut wg, mut dev) = (0, 0);
        if self.is("@") {
            self.i += 1;
            for (k, slot) in [("wg", &mut wg), ("dev", &mut dev)] {
                let at = self.here();
                let word = self.ident(&format!("`{k}`"))?;
                if word != k {
                    return Err((self.err)(at, format!("expected `{k}`, found `{word}`")));
                }
                let v = self.int()?;
                *slot = u32::try_from(v)
                    .map_err(|_| (self.err)(at, format!("`{k} {v}` is not a valid id")))?;
                if k == "wg" {
                    self.expect(",")?;
                }
            }
        }
        self.expect("(")?;
        let mut params = Vec::new();
        while !self.is(")") {
            params.push(self.param(prog)?);
            if !self.is(")") {
                self.expect(",")?;
            }
        }
        self.i += 1;
        self.expect("{")?;
        let body = self.block_body(prog, &params)?;
        let mut lower = Lower {
            params: &params,
            regs: BTreeSet::new(),
            temps: 0,
            labels: 0,
            out: Vec::new(),
        };
        lower.stmts(&body, self.err_at)?;
        let out = lower.out;
        Ok((Placement::new(wg, dev), Kernel { params, body }, out))
    }

    /// `volatile global atomic_int* x`.
    fn param(&mut self, prog: &mut Program) -> Result<Param> {
        let (mut region, mut atomic, mut volatile, mut ty) = (None, false, false, false);
        loop {
            let at = self.here();
            match self.ident("a parameter type")?.as_str() {
                "volatile" => volatile = true,
                "global" | "__global" => region = Some(Region::Global),
                "local" | "__local" => region = Some(Region::Local),
                "atomic_int" | "atomic_uint" => (atomic, ty) = (true, true),
                "int" | "unsigned" | "uint" => ty = true,
                other => {
                    return Err((self.err)(
                        at,
                        format!("expected `global`, `local`, `volatile`, `int` or `atomic_int`, found `{other}`"),
                    ))
                }
            }
            if ty && self.is("*") {
                break;
            }
        }
        self.expect("*")?;
        let name = self.ident("a parameter name")?;
        let loc = match prog.location_named(&name) {
            Some(l) => l,
            None => {
                // herd: a location left out of the initial state starts at 0.
                prog.locations.push(Location {
                    name,
                    kind: LocationKind::Plain { init: 0 },
                    span: Span::default(),
                    shared: None,
                });
                prog.locations.len() - 1
            }
        };
        Ok(Param {
            loc,
            region,
            atomic,
            volatile,
        })
    }

    /// Statements up to the closing `}` (consumed).
    fn block_body(&mut self, prog: &Program, params: &[Param]) -> Result<Vec<Located>> {
        let mut out = Vec::new();
        while !self.is("}") {
            if self.peek().is_none() {
                return self.fail("missing `}` closing this kernel body");
            }
            if self.is(";") {
                self.i += 1;
                continue;
            }
            out.push(self.stmt(prog, params)?);
        }
        self.i += 1;
        Ok(out)
    }

    /// A statement, or a braced block: an arm of an `if`.
    fn arm(&mut self, prog: &Program, params: &[Param]) -> Result<Vec<Located>> {
        if self.is("{") {
            self.i += 1;
            self.block_body(prog, params)
        } else {
            Ok(vec![self.stmt(prog, params)?])
        }
    }

    fn stmt(&mut self, prog: &Program, params: &[Param]) -> Result<Located> {
        let at = self.here();
        let span = (self.pos)(at);
        let s = match self.peek() {
            Some(Tok::Ident(w)) if w == "int" => {
                self.i += 1;
                let r = Reg(self.ident("a register name")?);
                let init = if self.is("=") {
                    self.i += 1;
                    Some(self.expr(prog, params)?)
                } else {
                    None
                };
                self.expect(";")?;
                CStmt::Decl(r, init)
            }
            Some(Tok::Ident(w)) if w == "if" => {
                self.i += 1;
                self.expect("(")?;
                let left = self.expr(prog, params)?;
                let cmp = if self.is("==") || self.is("!=") {
                    let c = if self.is("==") { Cmp::Eq } else { Cmp::Ne };
                    self.i += 1;
                    Some((c, self.expr(prog, params)?))
                } else {
                    None
                };
                self.expect(")")?;
                let then = self.arm(prog, params)?;
                let other = match self.peek() {
                    Some(Tok::Ident(w)) if w == "else" => {
                        self.i += 1;
                        self.arm(prog, params)?
                    }
                    _ => Vec::new(),
                };
                CStmt::If(Cond { left, cmp }, then, other)
            }
            Some(Tok::Punct("*")) => {
                self.i += 1;
                let loc = self.location(prog, params)?;
                self.expect("=")?;
                let e = self.expr(prog, params)?;
                self.expect(";")?;
                CStmt::Store(loc, e)
            }
            Some(Tok::Ident(w)) if w.starts_with("atomic_") => {
                let c = self.call(prog, params)?;
                self.expect(";")?;
                CStmt::Call(c)
            }
            Some(Tok::Ident(_)) => {
                let r = Reg(self.ident("a register")?);
                self.expect("=")?;
                let e = self.expr(prog, params)?;
                self.expect(";")?;
                CStmt::Assign(r, e)
            }
            _ => {
                let found = self.describe();
                return self.fail(format!("expected a statement, found {found}"));
            }
        };
        Ok(Located { stmt: s, span })
    }

    /// A location named by a parameter of this kernel.
    fn location(&mut self, prog: &Program, params: &[Param]) -> Result<LocId> {
        let at = self.here();
        let name = self.ident("a location")?;
        match prog.location_named(&name) {
            Some(l) if params.iter().any(|p| p.loc == l) => Ok(l),
            _ => Err((self.err)(
                at,
                format!("`{name}` is not a parameter of this kernel"),
            )),
        }
    }

    /// A sum `a + b - k ...` of primary expressions (left to right).
    fn expr(&mut self, prog: &Program, params: &[Param]) -> Result<CExpr> {
        let mut e = self.primary(prog, params)?;
        loop {
            if self.is("+") {
                self.i += 1;
                e = CExpr::Add(Box::new(e), Box::new(self.primary(prog, params)?));
            } else if self.is("-") {
                self.i += 1;
                e = CExpr::Sub(Box::new(e), self.int()?);
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self, prog: &Program, params: &[Param]) -> Result<CExpr> {
        match self.peek() {
            Some(Tok::Int(_)) | Some(Tok::Punct("-")) => Ok(CExpr::Int(self.int()?)),
            Some(Tok::Punct("*")) => {
                self.i += 1;
                Ok(CExpr::Deref(self.location(prog, params)?))
            }
            Some(Tok::Ident(w)) if w.starts_with("atomic_") => {
                Ok(CExpr::Call(Box::new(self.call(prog, params)?)))
            }
            Some(Tok::Ident(_)) => Ok(CExpr::Reg(Reg(self.ident("a register")?))),
            _ => {
                let found = self.describe();
                self.fail(format!("expected an expression, found {found}"))
            }
        }
    }

    fn order(&mut self) -> Result<Order> {
        let at = self.here();
        let name = self.ident("a memory order")?;
        order_from_name(&name)
            .ok_or_else(|| (self.err)(at, format!("expected a `memory_order_...`, found `{name}`")))
    }

    /// `, memory_scope_...` if present.
    fn scope_opt(&mut self) -> Result<Option<OpenClScope>> {
        if !self.is(",") {
            return Ok(None);
        }
        self.i += 1;
        let at = self.here();
        let name = self.ident("a memory scope")?;
        OpenClScope::from_name(&name)
            .map(Some)
            .ok_or_else(|| (self.err)(at, format!("expected a `memory_scope_...`, found `{name}`")))
    }

    fn call(&mut self, prog: &Program, params: &[Param]) -> Result<Call> {
        let at = self.here();
        let name = self.ident("an atomic function")?;
        let (base, explicit) = match name.strip_suffix("_explicit") {
            Some(b) => (b.to_string(), true),
            None => (name.clone(), false),
        };
        self.expect("(")?;
        let mode = |p: &mut Self| -> Result<Mode> {
            if !explicit {
                return Ok(Mode::Plain);
            }
            p.expect(",")?;
            let o = p.order()?;
            Ok(Mode::Explicit(o, p.scope_opt()?))
        };
        let call = match base.as_str() {
            "atomic_load" => {
                let loc = self.location(prog, params)?;
                let mode = mode(self)?;
                if matches!(mode.order(), Order::Release | Order::AcqRel) {
                    return Err((self.err)(at, "atomic_load: \"The order argument shall not be memory_order_release nor memory_order_acq_rel\"".into()));
                }
                Call::Load { loc, mode }
            }
            "atomic_store" => {
                let loc = self.location(prog, params)?;
                self.expect(",")?;
                let value = self.expr(prog, params)?;
                let mode = mode(self)?;
                if matches!(mode.order(), Order::Acquire | Order::AcqRel) {
                    return Err((self.err)(at, "atomic_store: \"The order argument shall not be memory_order_acquire, nor memory_order_acq_rel\"".into()));
                }
                Call::Store { loc, value, mode }
            }
            "atomic_exchange" => {
                let loc = self.location(prog, params)?;
                self.expect(",")?;
                let value = self.expr(prog, params)?;
                Call::Fetch {
                    op: RmwOp::Exch,
                    loc,
                    value,
                    mode: mode(self)?,
                }
            }
            "atomic_compare_exchange_strong" => {
                let loc = self.location(prog, params)?;
                self.expect(",")?;
                let expected = self.location(prog, params)?;
                self.expect(",")?;
                let desired = self.expr(prog, params)?;
                let (mode, fail) = if explicit {
                    self.expect(",")?;
                    let o = self.order()?;
                    self.expect(",")?;
                    let f = self.order()?;
                    (Mode::Explicit(o, self.scope_opt()?), Some(f))
                } else {
                    (Mode::Plain, None)
                };
                Call::CompareExchange {
                    loc,
                    expected,
                    desired,
                    mode,
                    fail,
                }
            }
            "atomic_work_item_fence" => {
                let (mut global, mut local) = (false, false);
                loop {
                    let fat = self.here();
                    match self.ident("a fence flag")?.as_str() {
                        "CLK_GLOBAL_MEM_FENCE" => global = true,
                        "CLK_LOCAL_MEM_FENCE" => local = true,
                        other => {
                            return Err((self.err)(
                                fat,
                                format!("expected `CLK_GLOBAL_MEM_FENCE` or `CLK_LOCAL_MEM_FENCE`, found `{other}`"),
                            ))
                        }
                    }
                    if !self.is("|") {
                        break;
                    }
                    self.i += 1;
                }
                self.expect(",")?;
                let order = self.order()?;
                let sat = self.here();
                let Some(scope) = self.scope_opt()? else {
                    return Err((self.err)(
                        sat,
                        "atomic_work_item_fence takes a memory scope".into(),
                    ));
                };
                Call::Fence {
                    global,
                    local,
                    order,
                    scope,
                }
            }
            b => match b
                .strip_prefix("atomic_fetch_")
                .and_then(|op| FETCH_OPS.iter().find(|(n, _)| *n == op))
            {
                Some(&(_, op)) => {
                    let loc = self.location(prog, params)?;
                    self.expect(",")?;
                    let value = self.expr(prog, params)?;
                    Call::Fetch {
                        op,
                        loc,
                        value,
                        mode: mode(self)?,
                    }
                }
                None => return Err((self.err)(at, format!("unknown atomic function `{name}`"))),
            },
        };
        self.expect(")")?;
        Ok(call)
    }
}

impl Lower<'_> {
    fn param(&self, loc: LocId) -> &Param {
        self.params
            .iter()
            .find(|p| p.loc == loc)
            .expect("locations are checked against the parameters")
    }

    fn emit(&mut self, instr: Instr, op: Option<OpenClOp>, at: Span) {
        self.out.push(Stmt {
            instr,
            span: at,
            token: None,
            vulkan: None,
            opencl: op,
            warp: None,
        });
    }

    /// A store of `value` to `loc`, as `op` says.
    fn store(&mut self, loc: LocId, value: Operand, op: OpenClOp, span: Span) {
        let instr = Instr::Store {
            access: Self::access(&op),
            loc,
            value,
        };
        self.emit(instr, Some(op), span);
    }

    /// `goto target`.
    fn goto(&mut self, target: String, span: Span) {
        let instr = Instr::Branch { cond: None, target };
        self.emit(instr, None, span);
    }

    fn temp(&mut self) -> Reg {
        self.temps += 1;
        Reg(format!("%t{}", self.temps - 1))
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels - 1)
    }

    /// The annotation of a non-atomic access to `loc`.
    fn plain(&self, loc: LocId) -> OpenClOp {
        let region = self.param(loc).memory();
        OpenClOp {
            fence: false,
            atomic: false,
            order: Order::Weak,
            fail_order: None,
            scope: None,
            global: region == Region::Global,
            local: region == Region::Local,
        }
    }

    fn atomic(&self, loc: LocId, mode: Mode, fail: Option<Order>) -> OpenClOp {
        OpenClOp {
            atomic: true,
            order: mode.order(),
            fail_order: fail,
            scope: Some(mode.scope()),
            ..self.plain(loc)
        }
    }

    fn access(op: &OpenClOp) -> Access {
        Access {
            proxy: Proxy::Generic,
            order: op.order,
            scope: op.scope.map(OpenClScope::ptx_scope),
        }
    }

    fn stmts(&mut self, body: &[Located], err: &dyn Fn(Span, String) -> LitmusError) -> Result<()> {
        for s in body {
            self.stmt(&s.stmt, s.span, err)?;
        }
        Ok(())
    }

    fn stmt(
        &mut self,
        s: &CStmt,
        span: Span,
        err: &dyn Fn(Span, String) -> LitmusError,
    ) -> Result<()> {
        let at = span;
        match s {
            CStmt::Decl(r, init) => {
                if !self.regs.insert(r.clone()) {
                    return Err(err(at, format!("register `{r}` is declared twice")));
                }
                if let Some(e) = init {
                    self.assign(r.clone(), e, span, at, err)?;
                }
            }
            CStmt::Assign(r, e) => {
                if !self.regs.contains(r) {
                    return Err(err(
                        at,
                        format!("register `{r}` is not declared (`int {r};`)"),
                    ));
                }
                self.assign(r.clone(), e, span, at, err)?;
            }
            CStmt::Store(loc, e) => {
                let value = self.operand(e, span, at, err)?;
                self.store(*loc, value, self.plain(*loc), span);
            }
            CStmt::Call(c) => {
                let dst = self.temp();
                self.call(c, dst, span, at, err)?;
            }
            CStmt::If(c, then, other) => {
                let left = self.operand(&c.left, span, at, err)?;
                let (cmp, right) = match &c.cmp {
                    None => (Cmp::Ne, Operand::Imm(0)),
                    Some((cmp, e)) => (*cmp, self.operand(e, span, at, err)?),
                };
                let negated = match cmp {
                    Cmp::Eq => Cmp::Ne,
                    Cmp::Ne => Cmp::Eq,
                };
                let (skip, end) = (self.label(), self.label());
                self.emit(
                    Instr::Branch {
                        cond: Some((negated, left, right)),
                        target: skip.clone(),
                    },
                    None,
                    span,
                );
                self.stmts(then, err)?;
                if !other.is_empty() {
                    self.goto(end.clone(), span);
                }
                self.emit(Instr::Label(skip), None, span);
                if !other.is_empty() {
                    self.stmts(other, err)?;
                    self.emit(Instr::Label(end), None, span);
                }
            }
        }
        Ok(())
    }

    /// `r = e`: loads and calls write `r` directly.
    fn assign(
        &mut self,
        r: Reg,
        e: &CExpr,
        span: Span,
        at: Span,
        err: &dyn Fn(Span, String) -> LitmusError,
    ) -> Result<()> {
        match e {
            CExpr::Int(v) => self.emit(
                Instr::Mov {
                    dst: r,
                    src: Operand::Imm(*v),
                },
                None,
                span,
            ),
            CExpr::Reg(s) => {
                self.check_reg(s, at, err)?;
                self.emit(
                    Instr::Mov {
                        dst: r,
                        src: Operand::Reg(s.clone()),
                    },
                    None,
                    span,
                )
            }
            CExpr::Deref(loc) => {
                let op = self.plain(*loc);
                self.emit(
                    Instr::Load {
                        access: Self::access(&op),
                        dst: r,
                        loc: *loc,
                    },
                    Some(op),
                    span,
                )
            }
            CExpr::Call(c) => self.call(c, r, span, at, err)?,
            CExpr::Add(a, b) => {
                let a = self.operand(a, span, at, err)?;
                let b = self.operand(b, span, at, err)?;
                self.emit(Instr::Add { dst: r, a, b }, None, span)
            }
            CExpr::Sub(a, k) => {
                let a = self.operand(a, span, at, err)?;
                let b = Operand::Imm(k.wrapping_neg());
                self.emit(Instr::Add { dst: r, a, b }, None, span)
            }
        }
        Ok(())
    }

    fn check_reg(
        &self,
        r: &Reg,
        at: Span,
        err: &dyn Fn(Span, String) -> LitmusError,
    ) -> Result<()> {
        match self.regs.contains(r) {
            true => Ok(()),
            false => Err(err(
                at,
                format!("register `{r}` is not declared (`int {r};`)"),
            )),
        }
    }

    /// The value of an expression as an operand, reading memory into a fresh register.
    fn operand(
        &mut self,
        e: &CExpr,
        span: Span,
        at: Span,
        err: &dyn Fn(Span, String) -> LitmusError,
    ) -> Result<Operand> {
        Ok(match e {
            CExpr::Int(v) => Operand::Imm(*v),
            CExpr::Reg(r) => {
                self.check_reg(r, at, err)?;
                Operand::Reg(r.clone())
            }
            _ => {
                let t = self.temp();
                self.assign(t.clone(), e, span, at, err)?;
                Operand::Reg(t)
            }
        })
    }

    /// A call, its result (if any) in `dst`.
    fn call(
        &mut self,
        c: &Call,
        dst: Reg,
        span: Span,
        at: Span,
        err: &dyn Fn(Span, String) -> LitmusError,
    ) -> Result<()> {
        // An access is atomic when made through an atomic function, whatever the pointer's
        // declared type (as herd reads these tests).
        match c {
            Call::Load { loc, mode } => {
                let op = self.atomic(*loc, *mode, None);
                self.emit(
                    Instr::Load {
                        access: Self::access(&op),
                        dst,
                        loc: *loc,
                    },
                    Some(op),
                    span,
                );
            }
            Call::Store { loc, value, mode } => {
                let value = self.operand(value, span, at, err)?;
                self.store(*loc, value, self.atomic(*loc, *mode, None), span);
            }
            Call::Fetch {
                op: rmw,
                loc,
                value,
                mode,
            } => {
                let operand = self.operand(value, span, at, err)?;
                let op = self.atomic(*loc, *mode, None);
                self.emit(
                    Instr::Atom {
                        access: Self::access(&op),
                        op: *rmw,
                        dst,
                        loc: *loc,
                        operand,
                        new: None,
                    },
                    Some(op),
                    span,
                );
            }
            Call::CompareExchange {
                loc,
                expected,
                desired,
                mode,
                fail,
            } => {
                let new = self.operand(desired, span, at, err)?;
                let e = self.temp();
                self.assign(e.clone(), &CExpr::Deref(*expected), span, at, err)?;
                let old = self.temp();
                let op = self.atomic(*loc, *mode, *fail);
                self.emit(
                    Instr::Atom {
                        access: Self::access(&op),
                        op: RmwOp::Cas,
                        dst: old.clone(),
                        loc: *loc,
                        operand: Operand::Reg(e.clone()),
                        new: Some(new),
                    },
                    Some(op),
                    span,
                );
                // The result: 1 when the object held the expected value, else 0 and the value
                // read goes to `*expected`.
                let (failed, end) = (self.label(), self.label());
                self.emit(
                    Instr::Mov {
                        dst: dst.clone(),
                        src: Operand::Imm(1),
                    },
                    None,
                    span,
                );
                self.emit(
                    Instr::Branch {
                        cond: Some((Cmp::Ne, Operand::Reg(old.clone()), Operand::Reg(e))),
                        target: failed.clone(),
                    },
                    None,
                    span,
                );
                self.goto(end.clone(), span);
                self.emit(Instr::Label(failed), None, span);
                self.emit(
                    Instr::Mov {
                        dst,
                        src: Operand::Imm(0),
                    },
                    None,
                    span,
                );
                self.store(*expected, Operand::Reg(old), self.plain(*expected), span);
                self.emit(Instr::Label(end), None, span);
            }
            Call::Fence {
                global,
                local,
                order,
                scope,
            } => {
                let op = OpenClOp {
                    fence: true,
                    atomic: false,
                    order: *order,
                    fail_order: None,
                    scope: Some(*scope),
                    global: *global,
                    local: *local,
                };
                // The annotation says what the fence is; the IR records its PTX shape.
                let fence = match order {
                    Order::Sc => Fence::Sc(scope.ptx_scope()),
                    _ => Fence::AcqRel(scope.ptx_scope()),
                };
                self.emit(Instr::Fence(fence), Some(op), span);
            }
        }
        Ok(())
    }
}
