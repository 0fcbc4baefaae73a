//! Running one thread on its own: every path it can take, loops unrolled up to a bound.

use super::event::Kind;
use super::expr::Expr;
use super::limits::{MAX_PATHS, MAX_PATH_EVENTS, MAX_STEPS, MAX_THREAD_EVENTS};
use super::path::{Path, TraceError};
use super::registers::registers;
use super::state::{sides, State, Tainted, Trail};
use crate::litmus::*;
use crate::scope::Order;
use std::collections::{BTreeSet, HashMap};

pub(super) fn thread_paths(
    p: &Program,
    t: ThreadId,
    unroll: u32,
    lassos: bool,
) -> Result<Vec<Path>, TraceError> {
    let body = &p.threads[t].body;
    let labels = p.threads[t].labels();
    let start = State {
        pc: 0,
        regs: registers(p, t)
            .into_iter()
            .map(|(r, value)| (r, Tainted::constant(value)))
            .collect(),
        ctrl: BTreeSet::new(),
        events: Vec::new(),
        assumes: Vec::new(),
        loops: HashMap::new(),
        cp_open: Vec::new(),
        cp_groups: Vec::new(),
        bulk_open: Vec::new(),
        bulk_groups: Vec::new(),
        trail: lassos.then(Trail::default),
    };
    let mut paths = Vec::new();
    let mut stack = vec![start];
    let (mut steps, mut held) = (0u64, 0usize);
    while let Some(mut s) = stack.pop() {
        steps += 1;
        if s.events.len() > MAX_PATH_EVENTS || steps > MAX_STEPS || held > MAX_THREAD_EVENTS {
            let what = if steps > MAX_STEPS {
                format!("more than {MAX_STEPS} unrolled statements")
            } else if held > MAX_THREAD_EVENTS {
                format!("paths of more than {MAX_THREAD_EVENTS} events in all")
            } else {
                format!("a run of more than {MAX_PATH_EVENTS} events")
            };
            return Err(TraceError {
                span: p.threads[t].span,
                message: format!(
                    "thread P{t} has {what} within the unroll bound of {unroll} loop iterations (a loop that never exits?); lower --unroll"
                ),
            });
        }
        if paths.len() > MAX_PATHS {
            return Err(TraceError {
                span: p.threads[t].span,
                message: format!(
                    "thread P{t} has more than {MAX_PATHS} distinct paths; lower --unroll"
                ),
            });
        }
        let Some(stmt) = body.get(s.pc) else {
            held += s.events.len();
            paths.push(s.into_path(None, false));
            continue;
        };
        let here = s.pc;
        s.pc += 1;
        if let Some(trail) = &mut s.trail {
            trail.stmts.push(here);
        }
        match &stmt.instr {
            Instr::Load { access, dst, loc } => {
                let r = s.next_event();
                let kind = Kind::Read {
                    loc: *loc,
                    access: *access,
                    value: Expr::Read(r),
                    rmw: false,
                };
                s.push(here, kind, &BTreeSet::new());
                s.regs.insert(dst.clone(), Tainted::read(r));
                stack.push(s);
            }
            Instr::Store { access, loc, value } => {
                let v = s.operand(value);
                s.write(here, *access, *loc, &v, false);
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
                for mut n in s.rmw(here, *access, *op, *loc, &arg, cas_new.as_ref()) {
                    let r = n.read;
                    n.state.regs.insert(dst.clone(), Tainted::read(r));
                    stack.push(n.state);
                }
            }
            Instr::Red {
                access,
                op,
                loc,
                operand,
            } => {
                let arg = s.operand(operand);
                for n in s.rmw(here, *access, *op, *loc, &arg, None) {
                    stack.push(n.state);
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
                    id: ids.into_iter().map(|t| t.value).collect(),
                    quorum: q.map(|q| q.value),
                };
                s.push(here, kind, &deps);
                stack.push(s);
            }
            Instr::WarpSync { mask } => {
                // A barrier among the mask's lanes (see `Instr::WarpSync`).
                let (id, quorum) = Instr::warp_barrier(*mask);
                let kind = Kind::Barrier {
                    op: BarrierOp::Sync,
                    id: id.iter().map(|&v| Expr::Const(v)).collect(),
                    quorum: Some(Expr::Const(quorum)),
                };
                s.push(here, kind, &BTreeSet::new());
                stack.push(s);
            }
            Instr::CpAsync { dst, src } => {
                // PTX ISA, *cp.async*: it "initiates an asynchronous copy operation of data from
                // the location specified by source address operand src to the location
                // specified by destination address operand dst"; the non-bulk copy is not one
                // of the operations PTX performs in the async proxy, so it reads and writes
                // through the generic proxy, as weak accesses (it has no `.sem`). It writes the
                // value it read: the write depends on the read.
                let weak = Access {
                    proxy: Proxy::Generic,
                    order: Order::Weak,
                    scope: None,
                };
                let r = s.next_event();
                let kind = Kind::Read {
                    loc: *src,
                    access: weak,
                    value: Expr::Read(r),
                    rmw: false,
                };
                s.push(here, kind, &BTreeSet::new());
                s.write(here, weak, *dst, &Tainted::read(r), false);
                for e in [r, r + 1] {
                    s.events[e].copy_until = Some(usize::MAX);
                    s.cp_open.push(e);
                }
                stack.push(s);
            }
            Instr::CpAsyncCommit => {
                s.cp_commit();
                stack.push(s);
            }
            Instr::CpAsyncWait { n, all } => {
                // PTX ISA, *cp.async.wait_group*: it makes "the executing thread wait till only
                // N or fewer of the most recent cp.async-groups are pending and all the prior
                // cp.async-groups committed by the executing thread are complete";
                // *cp.async.wait_all* "is equivalent to: cp.async.commit_group;
                // cp.async.wait_group 0;".
                if *all {
                    s.cp_commit();
                }
                s.cp_wait(*n as usize);
                stack.push(s);
            }
            Instr::Mov { dst, src } => {
                let v = s.operand(src);
                s.regs.insert(dst.clone(), v);
                stack.push(s);
            }
            Instr::Alu { op, dst, a, b } => {
                let (a, b) = (s.operand(a), s.operand(b));
                let v = a.combine(&b, Expr::alu(*op, a.value.clone(), b.value.clone()));
                s.regs.insert(dst.clone(), v);
                stack.push(s);
            }
            Instr::Setp { cmp, dst, a, b } => {
                let (a, b) = (s.operand(a), s.operand(b));
                let v = a.combine(&b, Expr::setp(*cmp, a.value.clone(), b.value.clone()));
                s.regs.insert(dst.clone(), v);
                stack.push(s);
            }
            Instr::Async(op) => stack.extend(s.async_op(here, op)),
            Instr::Label(_) => stack.push(s),
            Instr::Branch { cond, target } => {
                let Some(&dest) = labels.get(target.as_str()) else {
                    return Err(TraceError {
                        span: stmt.span,
                        message: format!("branch to undefined label `{target}`"),
                    });
                };
                let outcomes = match cond {
                    None => vec![(true, s)],
                    Some((cmp, a, b)) => {
                        let (a, b) = (s.operand(a), s.operand(b));
                        s.ctrl.extend(a.deps.iter().chain(&b.deps).copied());
                        sides(s, *cmp, &a, &b)
                    }
                };
                for (taken, mut s) in outcomes {
                    if taken {
                        if dest <= here {
                            let times = s.loops.entry(here).or_insert(0);
                            *times += 1;
                            if *times > unroll {
                                held += s.events.len();
                                paths.push(s.into_path(Some((here, stmt.span)), true));
                                continue;
                            }
                            if s.trail
                                .as_ref()
                                .is_some_and(|t| t.taken.contains_key(&here))
                            {
                                // Recording lassos: the run may also repeat the iteration that
                                // ends here forever, after fewer takings than the bound allows
                                // (a shorter prefix: a path cut here).
                                held += s.events.len();
                                paths.push(s.clone().into_path(Some((here, stmt.span)), false));
                            }
                            if let Some(trail) = &mut s.trail {
                                let at = (s.events.len(), trail.stmts.len(), s.regs.clone());
                                if let Some((events, stmts, _)) = trail.taken.insert(here, at) {
                                    trail.before_last.insert(here, (events, stmts));
                                }
                            }
                        }
                        s.pc = dest;
                    }
                    stack.push(s);
                }
            }
        }
    }
    // Depth-first search from a stack yields paths in reverse choice order; keep them stable.
    paths.reverse();
    Ok(paths)
}
