//! From a program to events: each thread is run on its own, once per choice of the values its
//! loads return, giving every *trace* the thread can take (loops unrolled up to a bound).
//!
//! A load may return any value some store could ever write to its physical location; that set
//! (the *value domain*) is found by a fixpoint over all threads first. Matching each load to a
//! store that wrote the guessed value is then the job of `enumerate.rs` (as in herd).
//!
//! Each event remembers the reads it depends on (data dependencies through registers and control
//! dependencies through branches), which the No-Thin-Air axiom needs.

use super::domain::{self, Domain, Usage};
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

/// All traces of all threads, with loads drawing from a value domain closed under every store
/// (a fixpoint over rounds of trace enumeration; see `domain.rs` for why it terminates).
pub fn traces(p: &Program, unroll: u32) -> Result<Traces, TraceError> {
    let max_writes = domain::max_writes(p, unroll);
    let init = domain::initial(p);
    let mut domain = init.clone();
    loop {
        let mut next = init.clone();
        for t in 0..p.threads.len() {
            let run = thread_traces(p, t, &domain, unroll)?;
            for (l, v, usage) in run.written {
                if domain::within(&usage, &max_writes) {
                    domain::insert_minimal(&mut next[l], v, usage);
                }
            }
        }
        if next == domain {
            break;
        }
        domain = next;
    }
    // Traces only need the values; one entry per value avoids duplicate traces.
    let values = domain::values_only(&domain);
    let mut bounded = false;
    let mut per_thread = Vec::with_capacity(p.threads.len());
    for t in 0..p.threads.len() {
        let run = thread_traces(p, t, &values, unroll)?;
        if run.traces.is_empty() {
            // With every value a store can write available, this thread can never finish.
            return Err(TraceError {
                span: run.cut.unwrap_or(p.threads[t].span),
                message: format!(
                    "thread P{t} cannot finish within the unroll bound of {unroll} loop iterations (raise --unroll)"
                ),
            });
        }
        bounded |= run.cut.is_some();
        per_thread.push(run.traces);
    }
    Ok(Traces {
        per_thread,
        bounded,
    })
}

/// A register's value and the reads it was computed from.
#[derive(Clone)]
struct Tainted {
    value: Value,
    deps: BTreeSet<usize>,
    usage: Usage,
}

impl Tainted {
    /// A value computed from two others: both sets of dependencies, the larger usage.
    fn combine(&self, other: &Tainted, value: Value) -> Tainted {
        Tainted {
            value,
            deps: self.deps.union(&other.deps).copied().collect(),
            usage: self
                .usage
                .iter()
                .zip(&other.usage)
                .map(|(a, b)| *a.max(b))
                .collect(),
        }
    }
}

#[derive(Clone)]
struct State {
    n_locations: usize,
    pc: usize,
    regs: HashMap<Reg, Tainted>,
    /// Reads every later event depends on through a branch.
    ctrl: BTreeSet<usize>,
    events: Vec<ThreadEvent>,
    /// Times each backward branch (by statement index) has been taken.
    loops: HashMap<usize, u32>,
    /// Values written so far: (physical location, value, usage including this write).
    written: Vec<(LocId, Value, Usage)>,
}

impl State {
    fn operand(&self, o: &Operand) -> Tainted {
        match o {
            Operand::Imm(v) => Tainted {
                value: *v,
                deps: BTreeSet::new(),
                usage: self.zero(),
            },
            Operand::Reg(r) => self.regs[r].clone(),
        }
    }

    fn zero(&self) -> Usage {
        vec![0; self.n_locations]
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

/// Every trace of one thread, the span of a branch whose bound cut some run short, and every
/// value its stores wrote (with usage).
struct ThreadRuns {
    traces: Vec<Trace>,
    cut: Option<Span>,
    written: Vec<(LocId, Value, Usage)>,
}

fn thread_traces(
    p: &Program,
    t: ThreadId,
    domain: &Domain,
    unroll: u32,
) -> Result<ThreadRuns, TraceError> {
    let n_locations = p.locations.len();
    let body = &p.threads[t].body;
    let labels: HashMap<&str, usize> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.instr {
            Instr::Label(l) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    let zero = vec![0; n_locations];
    let start = State {
        n_locations,
        pc: 0,
        regs: registers(p, t)
            .into_iter()
            .map(|(r, value)| {
                (
                    r,
                    Tainted {
                        value,
                        deps: BTreeSet::new(),
                        usage: zero.clone(),
                    },
                )
            })
            .collect(),
        ctrl: BTreeSet::new(),
        events: Vec::new(),
        loops: HashMap::new(),
        written: Vec::new(),
    };
    let mut runs = ThreadRuns {
        traces: Vec::new(),
        cut: None,
        written: Vec::new(),
    };
    let mut stack = vec![start];
    while let Some(mut s) = stack.pop() {
        let Some(stmt) = body.get(s.pc) else {
            let regs = s.regs.iter().map(|(r, v)| (r.clone(), v.value)).collect();
            runs.traces.push(Trace {
                events: s.events,
                regs,
            });
            runs.written.append(&mut s.written);
            if runs.traces.len() > MAX_TRACES {
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
        let values = |loc: LocId| &domain[p.physical(loc)];
        match &stmt.instr {
            Instr::Load { access, dst, loc } => {
                for (v, usage) in values(*loc) {
                    let mut n = s.clone();
                    let kind = Kind::Read {
                        loc: *loc,
                        access: *access,
                        value: *v,
                        rmw: false,
                    };
                    let r = n.push(here, kind, &BTreeSet::new());
                    n.regs.insert(
                        dst.clone(),
                        Tainted {
                            value: *v,
                            deps: BTreeSet::from([r]),
                            usage: usage.clone(),
                        },
                    );
                    stack.push(n);
                }
            }
            Instr::Store { access, loc, value } => {
                let v = s.operand(value);
                s.write(p, here, *access, *loc, &v, false);
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
                for (v, usage) in values(*loc) {
                    let mut n = s.clone();
                    let old = Tainted {
                        value: *v,
                        deps: BTreeSet::new(),
                        usage: usage.clone(),
                    };
                    let r = n.rmw(p, here, *access, *op, *loc, old, &arg, cas_new.as_ref());
                    n.regs.insert(
                        dst.clone(),
                        Tainted {
                            value: *v,
                            deps: BTreeSet::from([r]),
                            usage: usage.clone(),
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
                for (v, usage) in values(*loc) {
                    let mut n = s.clone();
                    let old = Tainted {
                        value: *v,
                        deps: BTreeSet::new(),
                        usage: usage.clone(),
                    };
                    n.rmw(p, here, *access, *op, *loc, old, &arg, None);
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
                let sum = a.combine(&b, a.value.wrapping_add(b.value));
                s.regs.insert(dst.clone(), sum);
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
                        let times = s.loops.entry(here).or_insert(0);
                        *times += 1;
                        if *times > unroll {
                            runs.cut.get_or_insert(stmt.span);
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
    runs.traces.reverse();
    Ok(runs)
}

impl State {
    /// A store of `v` to `loc`, depending on the reads `v` was computed from.
    fn write(
        &mut self,
        p: &Program,
        stmt: usize,
        access: Access,
        loc: LocId,
        v: &Tainted,
        rmw: bool,
    ) {
        self.push(
            stmt,
            Kind::Write {
                loc,
                access,
                value: v.value,
                rmw,
            },
            &v.deps,
        );
        let l = p.physical(loc);
        let mut usage = v.usage.clone();
        usage[l] += 1;
        self.written.push((l, v.value, usage));
    }

    /// An RMW reading `old`: a read, then (unless a CAS fails) a write of the new value.
    /// Returns the read's index.
    #[allow(clippy::too_many_arguments)]
    fn rmw(
        &mut self,
        p: &Program,
        stmt: usize,
        access: Access,
        op: RmwOp,
        loc: LocId,
        old: Tainted,
        arg: &Tainted,
        cas_new: Option<&Tainted>,
    ) -> usize {
        let (ra, wa) = split_rmw(access);
        let new_value = op.apply(old.value, arg.value, cas_new.map_or(0, |n| n.value));
        let r = self.push(
            stmt,
            Kind::Read {
                loc,
                access: ra,
                value: old.value,
                rmw: new_value.is_some(),
            },
            &BTreeSet::new(),
        );
        if let Some(v) = new_value {
            let mut from = Tainted {
                value: v,
                deps: BTreeSet::from([r]),
                usage: old.usage,
            };
            from = from.combine(arg, v);
            if let Some(n) = cas_new {
                from = from.combine(n, v);
            }
            self.write(p, stmt, wa, loc, &from, true);
        }
        r
    }
}
