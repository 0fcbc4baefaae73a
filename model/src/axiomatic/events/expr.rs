//! Symbolic values: expressions over constants and the values of a path's reads.

use crate::litmus::async_ops::MbarrierState;
use crate::litmus::*;

/// A value computed from constants and the values of a path's reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A value known without reading memory (an immediate, an initial register value).
    Const(Value),
    /// The value returned by the read at this index of the path.
    Read(usize),
    /// The wrapping sum of two values (PTX `add`).
    Add(Box<Expr>, Box<Expr>),
    /// The wrapping difference of two values (PTX `sub`).
    Sub(Box<Expr>, Box<Expr>),
    /// `a op b` of register arithmetic ([`AluOp::apply`]: 32-bit `int`s).
    Alu(AluOp, Box<Expr>, Box<Expr>),
    /// 1 when `a cmp b` holds, else 0 (`setp`).
    Setp(Cmp, Box<Expr>, Box<Expr>),
    /// The value an `atom`/`red` of this operation writes, from the old value and the operand
    /// ([`RmwOp::apply`]; never `Cas`, whose write is its `new` operand).
    Rmw(RmwOp, Box<Expr>, Box<Expr>),
    /// The state `mbarrier.init` writes for this count ([`MbarrierState::init`]).
    MbarInit(Box<Expr>),
    /// An mbarrier's state after a tx-count change and arrivals:
    /// [`MbarrierState::update`]`(state, arrivals, tx)`.
    MbarUpdate(Box<[Expr; 3]>),
    /// 1 when the phase of parity `.1` has completed in mbarrier state `.0`, else 0
    /// ([`MbarrierState::completed`]).
    MbarDone(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// `a + b`, folded when both are constants.
    pub(super) fn add(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_add(*y)),
            _ => Expr::Add(Box::new(a), Box::new(b)),
        }
    }

    /// `a - b`, folded when both are constants.
    pub(super) fn sub(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_sub(*y)),
            _ => Expr::Sub(Box::new(a), Box::new(b)),
        }
    }

    /// `a op b` ([`AluOp::apply`]), folded when both are constants.
    pub(super) fn alu(op: AluOp, a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(op.apply(*x, *y)),
            _ => Expr::Alu(op, Box::new(a), Box::new(b)),
        }
    }

    /// 1 when `a cmp b` holds, else 0, folded when both are constants.
    pub(super) fn setp(cmp: Cmp, a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(Value::from(cmp.holds(*x, *y))),
            _ => Expr::Setp(cmp, Box::new(a), Box::new(b)),
        }
    }

    /// What an RMW of `op` writes over `old` with operand `arg`, folded when both are constants.
    pub(super) fn rmw(op: RmwOp, old: Expr, arg: Expr) -> Expr {
        match (op, &old, &arg) {
            (RmwOp::Add, ..) => Expr::add(old, arg),
            (RmwOp::Sub, ..) => Expr::sub(old, arg),
            (RmwOp::Exch, ..) => arg,
            (_, Expr::Const(a), Expr::Const(b)) => {
                Expr::Const(op.apply(*a, *b, 0).expect("only a CAS fails"))
            }
            _ => Expr::Rmw(op, Box::new(old), Box::new(arg)),
        }
    }

    /// Appends the index of every read the expression mentions.
    pub fn reads(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Const(_) => {}
            Expr::Read(i) => out.push(*i),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Alu(_, a, b)
            | Expr::Setp(_, a, b)
            | Expr::Rmw(_, a, b)
            | Expr::MbarDone(a, b) => {
                a.reads(out);
                b.reads(out);
            }
            Expr::MbarInit(a) => a.reads(out),
            Expr::MbarUpdate(args) => args.iter().for_each(|a| a.reads(out)),
        }
    }

    /// The value, once every read it mentions has one (`read` gives them by index).
    pub fn eval(&self, read: &impl Fn(usize) -> Option<Value>) -> Option<Value> {
        match self {
            Expr::Const(v) => Some(*v),
            Expr::Read(i) => read(*i),
            Expr::Add(a, b) => Some(a.eval(read)?.wrapping_add(b.eval(read)?)),
            Expr::Sub(a, b) => Some(a.eval(read)?.wrapping_sub(b.eval(read)?)),
            Expr::Alu(op, a, b) => Some(op.apply(a.eval(read)?, b.eval(read)?)),
            Expr::Setp(cmp, a, b) => Some(Value::from(cmp.holds(a.eval(read)?, b.eval(read)?))),
            Expr::Rmw(op, a, b) => op.apply(a.eval(read)?, b.eval(read)?, 0),
            Expr::MbarInit(count) => Some(MbarrierState::init(count.eval(read)?)),
            Expr::MbarUpdate(args) => {
                let [state, arrivals, tx] = &**args;
                Some(MbarrierState::update(
                    state.eval(read)?,
                    arrivals.eval(read)?,
                    tx.eval(read)?,
                ))
            }
            Expr::MbarDone(state, parity) => Some(Value::from(MbarrierState::completed(
                state.eval(read)?,
                parity.eval(read)?,
            ))),
        }
    }
}
