//! The lowering of an OpenCL C kernel to the IR every engine reads. Every load, store,
//! read-modify-write, fence and barrier becomes one IR statement qualified with what its
//! [`OpenClOp`] lowers to ([`OpenClOp::lower`]); an operand that is itself a load or call is first read into a fresh register
//! (named `%tN`, which no condition can name); control flow becomes labels and branches.
//!
//! - `if (c) a else b` and `while (c) a` branch on `c` around their arms; `&&`, `||` and `!`
//!   branch as C evaluates them (C11 6.5.13: "the second operand is not evaluated" when the
//!   first decides), `==` and `!=` compare, and a value is true when it is not 0.
//! - A comparison used as a value is 1 or 0 (C11 6.5.9: "Each of the operators yields 1 if
//!   the specified relation is true and 0 if it is false").
//! - `atomic_compare_exchange_strong(obj, expected, desired)` reads `*expected`,
//!   compares-and-swaps, and on failure writes the value read to `*expected` (OpenCL C
//!   §6.13.11.7, after C11 7.17.7.4: "if false, the value pointed to by expected is updated
//!   with the value of the atomic object"), its result being 1 on success and 0 on failure.
//! - `Bn: barrier(flags)` is a barrier of id `n` of the work-group (OpenCL C §6.13.8: "all
//!   work-items in a work-group executing the kernel on a processor must execute this
//!   function before any are allowed to continue execution beyond the barrier").
//!
//! - `+`, `-`, `*`, `/`, `%`, `&`, `|`, `^`, `<<`, `>>` on `int` are the IR's register
//!   arithmetic ([`AluOp::apply`] gives the C11 sentences each rests on, and the value the IR
//!   defines where C leaves it undefined); a shift amount is first taken modulo 32 (OpenCL C
//!   6.3.j, see `assign`). `<`, `<=`, `>`, `>=`, `==`, `!=` are the IR's signed comparisons:
//!   a branch where they decide control, a `setp` (1 or 0) where they are values.

use super::ast::*;
use super::{OpenClOp, OpenClScope, Region};
use crate::litmus::error::LitmusError;
use crate::litmus::ir::*;
use crate::scope::Order;
use std::collections::BTreeSet;

type Result<T> = std::result::Result<T, LitmusError>;

/// What the lowering of one kernel knows: its parameters, registers and fresh names.
pub(super) struct Lower<'a> {
    params: &'a [Param],
    err: &'a dyn Fn(Span, String) -> LitmusError,
    regs: BTreeSet<Reg>,
    temps: usize,
    labels: usize,
    out: Vec<Stmt>,
    /// The span of the statement being lowered.
    span: Span,
}

impl<'a> Lower<'a> {
    /// The lowering of a kernel with these parameters; registers the initial state sets for
    /// thread `thread` count as declared.
    pub(super) fn new(
        params: &'a [Param],
        prog: &'a Program,
        thread: ThreadId,
        err: &'a dyn Fn(Span, String) -> LitmusError,
    ) -> Lower<'a> {
        let regs = prog
            .reg_init
            .iter()
            .filter(|r| r.thread == thread)
            .map(|r| r.reg.clone())
            .collect();
        Lower {
            params,
            err,
            regs,
            temps: 0,
            labels: 0,
            out: Vec::new(),
            span: Span::default(),
        }
    }

    /// The IR statements.
    pub(super) fn finish(self) -> Vec<Stmt> {
        self.out
    }

    fn fail<T>(&self, m: impl Into<String>) -> Result<T> {
        Err((self.err)(self.span, m.into()))
    }

    fn emit(&mut self, instr: Instr, op: Option<OpenClOp>) {
        self.out.push(Stmt {
            instr,
            span: self.span,
            token: None,
            qualifiers: op.map(|op| op.lower()),
            warp: None,
        });
    }

    fn temp(&mut self) -> Reg {
        self.temps += 1;
        Reg(format!("%t{}", self.temps - 1))
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels - 1)
    }

    fn goto(&mut self, target: &str) {
        let instr = Instr::Branch {
            cond: None,
            target: target.to_string(),
        };
        self.emit(instr, None);
    }

    fn branch(&mut self, cmp: Cmp, a: Operand, b: Operand, target: &str) {
        let instr = Instr::Branch {
            cond: Some((cmp, a, b)),
            target: target.to_string(),
        };
        self.emit(instr, None);
    }

    /// The location an address names.
    fn loc(&self, a: &Address) -> LocId {
        a.base + a.offset as usize
    }

    /// The region of the parameter an address goes through.
    fn region(&self, a: &Address) -> Region {
        self.params
            .iter()
            .find(|p| p.loc == a.base)
            .expect("addresses are checked against the parameters")
            .memory()
    }

    /// The annotation of a non-atomic access through `a`.
    fn plain(&self, a: &Address) -> OpenClOp {
        let region = self.region(a);
        OpenClOp {
            global: region == Region::Global,
            local: region == Region::Local,
            ..OpenClOp::new(Order::Weak)
        }
    }

    fn atomic(&self, a: &Address, mode: Mode, fail: Option<Order>) -> OpenClOp {
        OpenClOp {
            atomic: true,
            order: mode.order(),
            fail_order: fail,
            scope: Some(mode.scope()),
            ..self.plain(a)
        }
    }

    fn access(op: &OpenClOp) -> Access {
        Access {
            proxy: Proxy::Generic,
            order: op.order,
            scope: op.scope.map(OpenClScope::ptx_scope),
        }
    }

    fn load(&mut self, dst: Reg, a: &Address, op: OpenClOp) {
        let instr = Instr::Load {
            access: Self::access(&op),
            dst,
            loc: self.loc(a),
        };
        self.emit(instr, Some(op));
    }

    fn store(&mut self, a: &Address, value: Operand, op: OpenClOp) {
        let instr = Instr::Store {
            access: Self::access(&op),
            loc: self.loc(a),
            value,
        };
        self.emit(instr, Some(op));
    }

    pub(super) fn stmts(&mut self, body: &[Located]) -> Result<()> {
        body.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &Located) -> Result<()> {
        self.span = s.span;
        match &s.stmt {
            CStmt::Decl(_, r, init) => {
                if !self.regs.insert(r.clone()) {
                    return self.fail(format!("register `{r}` is declared twice"));
                }
                // C11 6.7.9: an object with automatic storage duration "is not initialized
                // explicitly, its value is indeterminate"; herd's registers start at 0.
                if let Some(e) = init {
                    self.assign(r.clone(), e)?;
                }
            }
            CStmt::Assign(r, e) => {
                self.check_reg(r)?;
                self.assign(r.clone(), e)?;
            }
            CStmt::Store(a, e) => {
                let value = self.operand(e)?;
                self.store(a, value, self.plain(a));
            }
            CStmt::Expr(e) => {
                let t = self.temp();
                self.assign(t, e)?;
            }
            CStmt::Barrier { id, flags, scope } => {
                let op = OpenClOp {
                    fence: true,
                    barrier: true,
                    atomic: false,
                    nonatomic_location: false,
                    order: Order::AcqRel,
                    fail_order: None,
                    // OpenCL C §6.13.8: `barrier(flags)` is `work_group_barrier(flags)`,
                    // whose scope is memory_scope_work_group.
                    scope: Some(scope.unwrap_or(OpenClScope::WorkGroup)),
                    global: flags.global,
                    local: flags.local,
                };
                let instr = Instr::Barrier {
                    op: BarrierOp::Sync,
                    id: vec![Operand::Imm(Value::from(*id))],
                    quorum: None,
                };
                self.emit(instr, Some(op));
            }
            CStmt::If(c, then, other) => {
                let (skip, end) = (self.label(), self.label());
                let span = self.span;
                self.jump_unless(c, &skip)?;
                self.stmts(then)?;
                self.span = span;
                if !other.is_empty() {
                    self.goto(&end);
                }
                self.emit(Instr::Label(skip), None);
                if !other.is_empty() {
                    self.stmts(other)?;
                    self.span = span;
                    self.emit(Instr::Label(end), None);
                }
            }
            CStmt::While(c, body) => {
                let (top, end) = (self.label(), self.label());
                let span = self.span;
                self.emit(Instr::Label(top.clone()), None);
                self.jump_unless(c, &end)?;
                self.stmts(body)?;
                self.span = span;
                self.goto(&top);
                self.emit(Instr::Label(end), None);
            }
        }
        Ok(())
    }

    fn check_reg(&self, r: &Reg) -> Result<()> {
        match self.regs.contains(r) {
            true => Ok(()),
            false => self.fail(format!("register `{r}` is not declared (`int {r};`)")),
        }
    }

    /// Jumps to `target` when `c` is false (0).
    fn jump_unless(&mut self, c: &CExpr, target: &str) -> Result<()> {
        self.jump(c, false, target)
    }

    /// Jumps to `target` when `c`'s truth is `when`, evaluating as C does.
    fn jump(&mut self, c: &CExpr, when: bool, target: &str) -> Result<()> {
        match c {
            CExpr::Paren(e) => self.jump(e, when, target),
            CExpr::Not(e) => self.jump(e, !when, target),
            CExpr::Bool(b) => {
                if *b == when {
                    self.goto(target);
                }
                Ok(())
            }
            CExpr::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                // `a && b` is false when `a` is, `a || b` true when `a` is; else it is `b`.
                let decides = *op == BinOp::Or;
                if decides == when {
                    self.jump(a, when, target)?;
                    self.jump(b, when, target)
                } else {
                    let past = self.label();
                    self.jump(a, decides, &past)?;
                    self.jump(b, when, target)?;
                    self.emit(Instr::Label(past), None);
                    Ok(())
                }
            }
            CExpr::Binary(op, a, b) if op.cmp().is_some() => {
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                let cmp = op.cmp().expect("matched above");
                self.branch(if when { cmp } else { cmp.negate() }, a, b, target);
                Ok(())
            }
            e => {
                let v = self.operand(e)?;
                let cmp = if when { Cmp::Ne } else { Cmp::Eq };
                self.branch(cmp, v, Operand::Imm(0), target);
                Ok(())
            }
        }
    }

    /// `r = e`: loads and calls write `r` directly.
    fn assign(&mut self, r: Reg, e: &CExpr) -> Result<()> {
        match e {
            CExpr::Int(v) => self.emit(
                Instr::Mov {
                    dst: r,
                    src: Operand::Imm(*v),
                },
                None,
            ),
            CExpr::Bool(b) => self.emit(
                Instr::Mov {
                    dst: r,
                    src: Operand::Imm(Value::from(*b)),
                },
                None,
            ),
            CExpr::Reg(s) => {
                self.check_reg(s)?;
                self.emit(
                    Instr::Mov {
                        dst: r,
                        src: Operand::Reg(s.clone()),
                    },
                    None,
                )
            }
            CExpr::Deref(a) => self.load(r, a, self.plain(a)),
            CExpr::Call(c) => self.call(c, r)?,
            // C11 6.3.1.3: converting a value to another integer type that can represent it
            // leaves it unchanged.
            CExpr::Paren(e) | CExpr::Cast(_, e) => self.assign(r, e)?,
            CExpr::Binary(op, a, b) if op.alu().is_some() => {
                let alu = op.alu().expect("matched above");
                let a = self.operand(a)?;
                let b = match (alu, self.operand(b)?) {
                    // OpenCL C 6.3.j: "The result of E1 << E2 is E1 left-shifted by log2(N)
                    // least significant bits in E2 viewed as an unsigned integer value, where
                    // N is the number of bits used to represent the data type of E1" (and so
                    // for `>>`): the amount is taken modulo 32 here, where the IR's `shl` and
                    // `shr` would clamp it (PTX's rule, [`AluOp::apply`]).
                    (AluOp::Shl | AluOp::Shr, Operand::Imm(k)) => Operand::Imm(k & 31),
                    (AluOp::Shl | AluOp::Shr, amount) => {
                        let t = self.temp();
                        let mask = Instr::Alu {
                            op: AluOp::And,
                            dst: t.clone(),
                            a: amount,
                            b: Operand::Imm(31),
                        };
                        self.emit(mask, None);
                        Operand::Reg(t)
                    }
                    (_, b) => b,
                };
                self.emit(
                    Instr::Alu {
                        op: alu,
                        dst: r,
                        a,
                        b,
                    },
                    None,
                )
            }
            // C11 6.5.8p6 and 6.5.9p3: the relational and equality operators "shall yield 1 if
            // the specified relation is true and 0 if it is false. The result has type int."
            CExpr::Binary(op, a, b) if op.cmp().is_some() => {
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                let cmp = op.cmp().expect("matched above");
                self.emit(Instr::Setp { cmp, dst: r, a, b }, None)
            }
            // A truth value as an integer: 1 or 0.
            CExpr::Not(_) | CExpr::Binary(..) => {
                let end = self.label();
                self.emit(
                    Instr::Mov {
                        dst: r.clone(),
                        src: Operand::Imm(0),
                    },
                    None,
                );
                self.jump_unless(e, &end)?;
                self.emit(
                    Instr::Mov {
                        dst: r,
                        src: Operand::Imm(1),
                    },
                    None,
                );
                self.emit(Instr::Label(end), None);
            }
        }
        Ok(())
    }

    /// The value of an expression as an operand, computing it into a fresh register unless
    /// it is a constant or a register.
    fn operand(&mut self, e: &CExpr) -> Result<Operand> {
        Ok(match e {
            CExpr::Int(v) => Operand::Imm(*v),
            CExpr::Bool(b) => Operand::Imm(Value::from(*b)),
            CExpr::Reg(r) => {
                self.check_reg(r)?;
                Operand::Reg(r.clone())
            }
            CExpr::Paren(e) | CExpr::Cast(_, e) => self.operand(e)?,
            _ => {
                let t = self.temp();
                self.assign(t.clone(), e)?;
                Operand::Reg(t)
            }
        })
    }

    /// A call, its result (if any) in `dst`. An access is atomic when made through an atomic
    /// function, whatever the pointer's declared type (as herd reads these tests).
    fn call(&mut self, c: &Call, dst: Reg) -> Result<()> {
        match c {
            Call::Load { loc, mode } => self.load(dst, loc, self.atomic(loc, *mode, None)),
            Call::Store { loc, value, mode } => {
                let value = self.operand(value)?;
                self.store(loc, value, self.atomic(loc, *mode, None));
            }
            Call::Fetch {
                op: rmw,
                loc,
                value,
                mode,
            } => {
                let operand = self.operand(value)?;
                let op = self.atomic(loc, *mode, None);
                let instr = Instr::Atom {
                    access: Self::access(&op),
                    op: *rmw,
                    dst,
                    loc: self.loc(loc),
                    operand,
                    new: None,
                };
                self.emit(instr, Some(op));
            }
            Call::CompareExchange {
                loc,
                expected,
                desired,
                mode,
                fail,
            } => {
                let new = self.operand(desired)?;
                let e = self.temp();
                self.load(e.clone(), expected, self.plain(expected));
                let old = self.temp();
                let op = self.atomic(loc, *mode, *fail);
                let instr = Instr::Atom {
                    access: Self::access(&op),
                    op: RmwOp::Cas,
                    dst: old.clone(),
                    loc: self.loc(loc),
                    operand: Operand::Reg(e.clone()),
                    new: Some(new),
                };
                self.emit(instr, Some(op));
                // The result: 1 when the object held the expected value, else 0 and the value
                // read goes to `*expected`.
                let end = self.label();
                let mov = |v| Instr::Mov {
                    dst: dst.clone(),
                    src: Operand::Imm(v),
                };
                self.emit(mov(1), None);
                self.branch(Cmp::Eq, Operand::Reg(old.clone()), Operand::Reg(e), &end);
                self.emit(mov(0), None);
                self.store(expected, Operand::Reg(old), self.plain(expected));
                self.emit(Instr::Label(end), None);
            }
            Call::Fence {
                flags,
                order,
                scope,
            } => {
                let op = OpenClOp {
                    fence: true,
                    barrier: false,
                    atomic: false,
                    nonatomic_location: false,
                    order: *order,
                    fail_order: None,
                    scope: Some(*scope),
                    global: flags.global,
                    local: flags.local,
                };
                // The annotation says what the fence is; the IR records its PTX shape.
                let fence = match order {
                    Order::Sc => Fence::Sc(scope.ptx_scope()),
                    _ => Fence::AcqRel(scope.ptx_scope()),
                };
                self.emit(Instr::Fence(fence), Some(op));
            }
        }
        Ok(())
    }
}

/// Marks each access to a non-atomic object: a location no declaration of the test gives an
/// atomic type, neither in the initial state nor as a kernel parameter (C11 6.2.5: "atomic
/// types" are those declared `_Atomic`, OpenCL C's `atomic_int` and `atomic_uint`).
pub(super) fn mark_nonatomic_locations(p: &mut Program, test: &OpenClTest) {
    let mut atomic = BTreeSet::new();
    for d in &test.init {
        let is_atomic =
            d.ty.as_ref()
                .is_some_and(|t| t.base.is_atomic() && t.pointers == 0);
        match (&d.item, is_atomic) {
            (InitItem::Location { loc, .. }, true) => {
                atomic.insert(*loc);
            }
            (InitItem::Array { first, len, .. }, true) => {
                atomic.extend(*first..*first + *len as usize);
            }
            _ => {}
        }
    }
    for k in &test.threads {
        for param in k.params.iter().filter(|q| q.atomic) {
            let len = test
                .init
                .iter()
                .find_map(|d| match d.item {
                    InitItem::Array { first, len, .. } if first == param.loc => Some(len),
                    _ => None,
                })
                .unwrap_or(1);
            atomic.extend(param.loc..param.loc + len as usize);
        }
    }
    for t in &mut p.threads {
        for s in &mut t.body {
            let loc = s.instr.location();
            if let (Some(q), Some(l)) = (&mut s.qualifiers, loc) {
                if !atomic.contains(&l) {
                    q.tag(super::tag::NAL);
                }
            }
        }
    }
}
