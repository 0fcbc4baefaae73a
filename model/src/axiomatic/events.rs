//! From a program to events: each thread is run on its own, once per choice of the values its
//! loads return, giving every *trace* the thread can take (loops unrolled up to a bound).
//!
//! A load may return any value some store could ever write to its physical location; that set
//! (the *value domain*) is found by a fixpoint over all threads first. Matching each load to a
//! store that wrote the guessed value is then the job of `enumerate.rs` (as in herd).
//!
//! Each event remembers the reads it depends on (data dependencies through registers and control
//! dependencies through branches), which the No-Thin-Air axiom needs.

use crate::litmus::*;
use crate::scope::Order;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What one event of a thread does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `rmw`: a write of the same instruction follows this read.
    Read {
        loc: LocId,
        access: Access,
        value: Value,
        rmw: bool,
    },
    /// `rmw`: this write completes the read just before it.
    Write {
        loc: LocId,
        access: Access,
        value: Value,
        rmw: bool,
    },
    Fence(Fence),
    Barrier {
        op: BarrierOp,
        id: Vec<Value>,
        quorum: Option<Value>,
    },
}

#[derive(Clone, Debug)]
pub struct ThreadEvent {
    /// Index of the statement in the thread's body.
    pub stmt: usize,
    pub kind: Kind,
    /// Indices (within the trace) of the reads this event depends on.
    pub deps: Vec<usize>,
}

/// One way a thread can run to its end.
#[derive(Clone, Debug)]
pub struct Trace {
    pub events: Vec<ThreadEvent>,
    /// The final value of every register of the thread.
    pub regs: BTreeMap<Reg, Value>,
}

/// Every trace of every thread, plus what the bound cut off.
pub struct Traces {
    pub per_thread: Vec<Vec<Trace>>,
    /// Some run needed more loop iterations than the bound allows.
    pub bounded: bool,
}

/// Why a program cannot be turned into traces.
pub struct TraceError {
    pub span: Span,
    pub message: String,
}

/// The most traces one thread may have before we give up (a guard against value explosions).
const MAX_TRACES: usize = 200_000;

/// Every register a thread mentions, with its initial value.
pub fn registers(p: &Program, t: ThreadId) -> BTreeMap<Reg, Value> {
    let mut regs = BTreeMap::new();
    let mut note = |r: &Reg| {
        regs.entry(r.clone()).or_insert_with(|| p.initial_reg(t, r));
    };
    for i in p.reg_init.iter().filter(|i| i.thread == t) {
        note(&i.reg);
    }
    let op = |o: &Operand| match o {
        Operand::Reg(r) => Some(r.clone()),
        Operand::Imm(_) => None,
    };
    for stmt in &p.threads[t].body {
        let mut mentioned: Vec<Reg> = Vec::new();
        match &stmt.instr {
            Instr::Load { dst, .. } => mentioned.push(dst.clone()),
            Instr::Store { value, .. } => mentioned.extend(op(value)),
            Instr::Atom {
                dst, operand, new, ..
            } => {
                mentioned.push(dst.clone());
                mentioned.extend(op(operand));
                mentioned.extend(new.as_ref().and_then(op));
            }
            Instr::Red { operand, .. } => mentioned.extend(op(operand)),
            Instr::Barrier { id, quorum, .. } => {
                mentioned.extend(id.iter().filter_map(op));
                mentioned.extend(quorum.as_ref().and_then(op));
            }
            Instr::Mov { dst, src } => {
                mentioned.push(dst.clone());
                mentioned.extend(op(src));
            }
            Instr::Add { dst, a, b } => {
                mentioned.push(dst.clone());
                mentioned.extend(op(a));
                mentioned.extend(op(b));
            }
            Instr::Branch {
                cond: Some((_, a, b)),
                ..
            } => {
                mentioned.extend(op(a));
                mentioned.extend(op(b));
            }
            Instr::Fence(_) | Instr::Label(_) | Instr::Branch { cond: None, .. } => {}
        }
        for r in &mentioned {
            note(r);
        }
    }
    collect_condition_regs(&p.condition.prop, t, &mut note);
    regs
}

fn collect_condition_regs(prop: &Prop, t: ThreadId, note: &mut impl FnMut(&Reg)) {
    match prop {
        Prop::True => {}
        Prop::Cmp(_, a, b) => {
            for term in [a, b] {
                if let Term::Reg(th, r) = term {
                    if *th == t {
                        note(r);
                    }
                }
            }
        }
        Prop::Not(p) => collect_condition_regs(p, t, note),
        Prop::And(a, b) | Prop::Or(a, b) => {
            collect_condition_regs(a, t, note);
            collect_condition_regs(b, t, note);
        }
    }
}

/// The values each physical location may hold, indexed by `LocId` (aliases share their target's).
pub type Domain = Vec<BTreeSet<Value>>;

/// All traces of all threads, with loads drawing from a value domain closed under every store.
pub fn traces(p: &Program, unroll: u32) -> Result<Traces, TraceError> {
    let init: Domain = (0..p.locations.len())
        .map(|l| {
            if p.physical(l) == l {
                BTreeSet::from([p.initial_value(l)])
            } else {
                BTreeSet::new()
            }
        })
        .collect();
    let mut domain = init.clone();
    // Each round lets values flow through one more store; a real execution has at most as many
    // stores as all threads' longest traces together, so that many rounds reach every value.
    let mut rounds_left = 1 + p
        .threads
        .iter()
        .map(|t| t.body.iter().filter(|s| writes(&s.instr)).count() * (unroll as usize + 1))
        .sum::<usize>();
    loop {
        let mut bounded = false;
        let mut per_thread = Vec::with_capacity(p.threads.len());
        let mut stuck = None;
        for t in 0..p.threads.len() {
            let (ts, cut) = thread_traces(p, t, &domain, unroll)?;
            if ts.is_empty() && stuck.is_none() {
                stuck = Some((t, cut.unwrap_or(p.threads[t].span)));
            }
            bounded |= cut.is_some();
            per_thread.push(ts);
        }
        let mut next = init.clone();
        for ts in &per_thread {
            for tr in ts {
                for e in &tr.events {
                    if let Kind::Write { loc, value, .. } = e.kind {
                        next[p.physical(loc)].insert(value);
                    }
                }
            }
        }
        rounds_left -= 1;
        if next == domain || rounds_left == 0 {
            // With every value a store can write available, a thread with no complete run
            // can never finish within the bound.
            if let Some((t, span)) = stuck {
                return Err(TraceError {
                    span,
                    message: format!(
                        "thread P{t} cannot finish within the unroll bound of {unroll} loop iterations (raise --unroll)"
                    ),
                });
            }
            return Ok(Traces {
                per_thread,
                bounded,
            });
        }
        domain = next;
    }
}

fn writes(i: &Instr) -> bool {
    matches!(
        i,
        Instr::Store { .. } | Instr::Atom { .. } | Instr::Red { .. }
    )
}

/// A register's value and the reads it was computed from.
#[derive(Clone)]
struct Tainted {
    value: Value,
    deps: BTreeSet<usize>,
}

#[derive(Clone)]
struct State {
    pc: usize,
    regs: HashMap<Reg, Tainted>,
    /// Reads every later event depends on through a branch.
    ctrl: BTreeSet<usize>,
    events: Vec<ThreadEvent>,
    /// Times each backward branch (by statement index) has been taken.
    loops: HashMap<usize, u32>,
}

impl State {
    fn operand(&self, o: &Operand) -> Tainted {
        match o {
            Operand::Imm(v) => Tainted {
                value: *v,
                deps: BTreeSet::new(),
            },
            Operand::Reg(r) => self.regs[r].clone(),
        }
    }

    fn push(&mut self, stmt: usize, kind: Kind, data: &BTreeSet<usize>) -> usize {
        let deps = data.union(&self.ctrl).copied().collect();
        self.events.push(ThreadEvent { stmt, kind, deps });
        self.events.len() - 1
    }
}

/// The order of the read and the write halves of an RMW: acquire stays with the read, release
/// with the write; each half is at least relaxed.
pub fn split_rmw(access: Access) -> (Access, Access) {
    let read = if access.order.is_acquire() {
        Order::Acquire
    } else {
        Order::Relaxed
    };
    let write = if access.order.is_release() {
        Order::Release
    } else {
        Order::Relaxed
    };
    (
        Access {
            order: read,
            ..access
        },
        Access {
            order: write,
            ..access
        },
    )
}

/// Every trace of thread `t`, and the span of a branch whose bound cut some run short.
fn thread_traces(
    p: &Program,
    t: ThreadId,
    domain: &Domain,
    unroll: u32,
) -> Result<(Vec<Trace>, Option<Span>), TraceError> {
    let body = &p.threads[t].body;
    let labels: HashMap<&str, usize> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.instr {
            Instr::Label(l) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    let initial = registers(p, t);
    let start = State {
        pc: 0,
        regs: initial
            .iter()
            .map(|(r, v)| {
                (
                    r.clone(),
                    Tainted {
                        value: *v,
                        deps: BTreeSet::new(),
                    },
                )
            })
            .collect(),
        ctrl: BTreeSet::new(),
        events: Vec::new(),
        loops: HashMap::new(),
    };
    let mut out = Vec::new();
    let mut cut = None;
    let mut stack = vec![start];
    while let Some(mut s) = stack.pop() {
        let Some(stmt) = body.get(s.pc) else {
            let regs = s.regs.iter().map(|(r, v)| (r.clone(), v.value)).collect();
            out.push(Trace {
                events: s.events,
                regs,
            });
            if out.len() > MAX_TRACES {
                return Err(TraceError {
                    span: p.threads[t].span,
                    message: format!(
                        "thread P{t} has more than {MAX_TRACES} distinct runs; lower --unroll"
                    ),
                });
            }
            continue;
        };
        let here = s.pc;
        s.pc += 1;
        let values = |loc: LocId| domain[p.physical(loc)].iter().copied().collect::<Vec<_>>();
        match &stmt.instr {
            Instr::Load { access, dst, loc } => {
                for v in values(*loc) {
                    let mut n = s.clone();
                    let kind = Kind::Read {
                        loc: *loc,
                        access: *access,
                        value: v,
                        rmw: false,
                    };
                    let r = n.push(here, kind, &BTreeSet::new());
                    n.regs.insert(
                        dst.clone(),
                        Tainted {
                            value: v,
                            deps: BTreeSet::from([r]),
                        },
                    );
                    stack.push(n);
                }
            }
            Instr::Store { access, loc, value } => {
                let v = s.operand(value);
                s.push(
                    here,
                    Kind::Write {
                        loc: *loc,
                        access: *access,
                        value: v.value,
                        rmw: false,
                    },
                    &v.deps,
                );
                stack.push(s);
            }
            Instr::Atom {
                access,
                op,
                dst,
                loc,
                operand,
                new,
            } => {
                let arg = s.operand(operand);
                let cas_new = new.as_ref().map(|n| s.operand(n));
                for v in values(*loc) {
                    let mut n = s.clone();
                    rmw(&mut n, here, *access, *op, *loc, v, &arg, cas_new.as_ref());
                    let r = n
                        .events
                        .iter()
                        .rposition(|e| matches!(e.kind, Kind::Read { .. }))
                        .unwrap();
                    n.regs.insert(
                        dst.clone(),
                        Tainted {
                            value: v,
                            deps: BTreeSet::from([r]),
                        },
                    );
                    stack.push(n);
                }
            }
            Instr::Red {
                access,
                op,
                loc,
                operand,
            } => {
                let arg = s.operand(operand);
                for v in values(*loc) {
                    let mut n = s.clone();
                    rmw(&mut n, here, *access, *op, *loc, v, &arg, None);
                    stack.push(n);
                }
            }
            Instr::Fence(f) => {
                s.push(here, Kind::Fence(*f), &BTreeSet::new());
                stack.push(s);
            }
            Instr::Barrier { op, id, quorum } => {
                let ids: Vec<Tainted> = id.iter().map(|o| s.operand(o)).collect();
                let q = quorum.as_ref().map(|o| s.operand(o));
                let mut deps = BTreeSet::new();
                for d in ids.iter().chain(q.iter()) {
                    deps.extend(d.deps.iter().copied());
                }
                let kind = Kind::Barrier {
                    op: *op,
                    id: ids.iter().map(|t| t.value).collect(),
                    quorum: q.map(|q| q.value),
                };
                s.push(here, kind, &deps);
                stack.push(s);
            }
            Instr::Mov { dst, src } => {
                let v = s.operand(src);
                s.regs.insert(dst.clone(), v);
                stack.push(s);
            }
            Instr::Add { dst, a, b } => {
                let (a, b) = (s.operand(a), s.operand(b));
                let deps = a.deps.union(&b.deps).copied().collect();
                s.regs.insert(
                    dst.clone(),
                    Tainted {
                        value: a.value.wrapping_add(b.value),
                        deps,
                    },
                );
                stack.push(s);
            }
            Instr::Label(_) => stack.push(s),
            Instr::Branch { cond, target } => {
                let Some(&dest) = labels.get(target.as_str()) else {
                    return Err(TraceError {
                        span: stmt.span,
                        message: format!("branch to undefined label `{target}`"),
                    });
                };
                let taken = match cond {
                    None => true,
                    Some((cmp, a, b)) => {
                        let (a, b) = (s.operand(a), s.operand(b));
                        s.ctrl.extend(a.deps.iter().chain(&b.deps).copied());
                        match cmp {
                            Cmp::Eq => a.value == b.value,
                            Cmp::Ne => a.value != b.value,
                        }
                    }
                };
                if taken {
                    if dest <= here {
                        let n = s.loops.entry(here).or_insert(0);
                        *n += 1;
                        if *n > unroll {
                            cut.get_or_insert(stmt.span);
                            continue;
                        }
                    }
                    s.pc = dest;
                }
                stack.push(s);
            }
        }
    }
    // Depth-first search from a stack yields traces in reverse choice order; keep them stable.
    out.reverse();
    Ok((out, cut))
}

#[allow(clippy::too_many_arguments)]
fn rmw(
    s: &mut State,
    stmt: usize,
    access: Access,
    op: RmwOp,
    loc: LocId,
    old: Value,
    arg: &Tainted,
    cas_new: Option<&Tainted>,
) {
    let (ra, wa) = split_rmw(access);
    let new_value = op.apply(old, arg.value, cas_new.map_or(0, |n| n.value));
    let r = s.push(
        stmt,
        Kind::Read {
            loc,
            access: ra,
            value: old,
            rmw: new_value.is_some(),
        },
        &BTreeSet::new(),
    );
    if let Some(v) = new_value {
        let mut deps: BTreeSet<usize> = arg.deps.clone();
        deps.insert(r);
        if let Some(n) = cas_new {
            deps.extend(n.deps.iter().copied());
        }
        s.push(
            stmt,
            Kind::Write {
                loc,
                access: wa,
                value: v,
                rmw: true,
            },
            &deps,
        );
    }
}
