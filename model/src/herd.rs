//! herd7's log format, so that herdtools' `mcompare7` and `msum7` read scopecheck's logs beside
//! herd7's and Dartagnan's. One test's log, as herd7 prints it:
//!
//! ```text
//! Test MP Allowed
//! States 3
//! 1:r0=0; 1:r1=0;
//! 1:r0=0; 1:r1=1;
//! 1:r0=1; 1:r1=1;
//! No
//! Witnesses
//! Positive: 0 Negative: 3
//! Condition exists (1:r0=1 /\ 1:r1=0)
//! Observation MP Never 0 3
//! Time MP 0.00
//! Hash=5f0e1b0c4b9bd4a9e0f3c8d3a3c5a1f2
//!
//! ```
//!
//! - `Test NAME KIND`: `Allowed` for `exists`, `Forbidden` for `~exists`, `Required` for
//!   `forall` (herd's `ConstrGen.pp_kind`).
//! - `States N` and one line per final state, restricted (as herd does) to the locations the
//!   condition names and those of `locations [...]`: registers first (`1:r0`, by thread then
//!   name), then memory, each `loc=value;`.
//! - `Ok` when the condition validates (exists: some execution satisfies the proposition;
//!   ~exists: none does; forall: all do), else `No`; `Loop ` before it when a loop was cut at the
//!   unroll bound (herd's "unrolling limit exceeded").
//! - `Positive: P Negative: N`: the executions that satisfy the proposition and those that do
//!   not, swapped for `~exists` (herd's `check_wit`); `Observation NAME Never|Always|Sometimes P N`
//!   unswapped.
//! - `Flag NAME`, one line per flag of the model (`flag ~empty race as data-race`) that some
//!   consistent execution raises (an execution `filter` leaves out raises none), in the order of
//!   the names, as herd7 prints them after the witnesses.
//! - `Condition`: herd's printing of the condition (`=` atoms, `not (...)`, n-ary `/\`, `\/`).
//! - `Interrupted NAME` (scopecheck's, not herd's) when a signal stopped the search: the states
//!   are those found so far.
//! - `Time NAME secs`, two decimals.
//! - `Hash=`: herd's test digest (`TestHash.digest`): the MD5 of the MD5s of the initial state,
//!   of the code and of the observed locations, each printed in herd's normal form. The initial
//!   state and the observed locations print exactly as herd prints them; the code prints each
//!   instruction in this dialect's syntax (Dartagnan's PTX), which herd7's PTX front end does
//!   not read, so the hash equals herd7's only for the init and location parts: it identifies a
//!   test across scopecheck logs, and `mcompare7` compares two logs' states whatever their hashes.

use crate::axiomatic::{condition_holds_on, Analysis, FinalState, Stop};
use crate::litmus::print::instr;
use crate::litmus::{Cmp, Instr, LocationKind, Program, Prop, Quantifier, Term, Value};
use md5::{Digest, Md5};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

/// A location as herd names and orders it: registers (by thread, then name) before memory.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Loc {
    Reg(usize, String),
    Global(String),
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Loc::Reg(t, r) => write!(f, "{t}:{r}"),
            Loc::Global(name) => f.write_str(name),
        }
    }
}

/// herd's name of a condition term; `None` for a constant.
fn loc_of(p: &Program, t: &Term) -> Option<Loc> {
    match t {
        Term::Reg(thread, reg) => Some(Loc::Reg(*thread, reg.0.clone())),
        Term::Loc(l) => Some(Loc::Global(p.locations[*l].name.clone())),
        Term::Const(_) => None,
    }
}

/// Every location a proposition names.
fn prop_locs(p: &Program, prop: &Prop, out: &mut BTreeSet<Loc>) {
    match prop {
        Prop::True => {}
        Prop::Cmp(_, a, b) => out.extend([a, b].into_iter().filter_map(|t| loc_of(p, t))),
        Prop::Not(q) => prop_locs(p, q, out),
        Prop::And(a, b) | Prop::Or(a, b) => {
            prop_locs(p, a, out);
            prop_locs(p, b, out);
        }
    }
}

/// The locations herd shows in each final state: the condition's and `locations [...]`.
fn displayed(p: &Program) -> BTreeSet<Loc> {
    let mut out: BTreeSet<Loc> = p.observed.iter().filter_map(|t| loc_of(p, t)).collect();
    prop_locs(p, &p.condition.prop, &mut out);
    out
}

/// The value of a displayed location in a final state.
fn value(p: &Program, s: &FinalState, loc: &Loc) -> Value {
    match loc {
        Loc::Reg(t, r) => s
            .regs
            .get(&format!("P{t}:{r}"))
            .copied()
            .unwrap_or_else(|| p.initial_reg(*t, &crate::litmus::Reg(r.clone()))),
        Loc::Global(name) => {
            let l = p.location_named(name).expect("displayed locations exist");
            let phys = p.physical(l);
            s.mem
                .get(&p.locations[phys].name)
                .copied()
                .unwrap_or_else(|| p.initial_value(phys))
        }
    }
}

/// herd's kind word for the condition's quantifier.
pub fn kind(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

/// The test name as one herd token (herd's names have no blanks).
fn test_name(p: &Program) -> String {
    p.name.split_whitespace().collect::<Vec<_>>().join("_")
}

/// herd7's log of one test: the lines described in the module documentation, ending with an
/// empty line. `seconds` is the time the analysis took; `flags` says whether to print the
/// `Flag` lines (the CLI leaves out the PTX models' data races unless asked for them).
pub fn log(p: &Program, a: &Analysis, seconds: f64, flags: bool) -> String {
    let name = test_name(p);
    let shown = displayed(p);
    // Final states restricted to the displayed locations, with the executions reaching them.
    let mut states: BTreeMap<Vec<(Loc, Value)>, u64> = BTreeMap::new();
    let (mut pos, mut neg) = (0u64, 0u64);
    for s in &a.states {
        let key: Vec<(Loc, Value)> = shown
            .iter()
            .map(|l| (l.clone(), value(p, &s.state, l)))
            .collect();
        *states.entry(key).or_default() += s.witnesses;
        if condition_holds_on(p, &s.state) {
            pos += s.witnesses;
        } else {
            neg += s.witnesses;
        }
    }
    let mut out = String::new();
    writeln!(out, "Test {name} {}", kind(p.condition.quantifier)).unwrap();
    writeln!(out, "States {}", states.len()).unwrap();
    for key in states.keys() {
        let bindings: Vec<String> = key.iter().map(|(l, v)| format!("{l}={v};")).collect();
        writeln!(out, "{}", bindings.join(" ")).unwrap();
    }
    let verdict = if a.holds { "Ok" } else { "No" };
    let cut = if a.bounded { "Loop " } else { "" };
    writeln!(out, "{cut}{verdict}").unwrap();
    let (wit_pos, wit_neg) = match p.condition.quantifier {
        Quantifier::NotExists => (neg, pos),
        Quantifier::Exists | Quantifier::Forall => (pos, neg),
    };
    writeln!(out, "Witnesses\nPositive: {wit_pos} Negative: {wit_neg}").unwrap();
    // herd7 prints one `Flag NAME` line per flag some consistent execution raised, in the
    // order of the flags' names (its `Flag.Map`), between the witnesses and the condition.
    let raised: BTreeSet<&str> = a
        .states
        .iter()
        .flat_map(|s| s.flags.iter().copied())
        .filter(|_| flags)
        .collect();
    for flag in raised {
        writeln!(out, "Flag {flag}").unwrap();
    }
    writeln!(out, "Condition {}", condition(p)).unwrap();
    let observation = if pos == 0 {
        "Never"
    } else if neg == 0 {
        "Always"
    } else {
        "Sometimes"
    };
    writeln!(out, "Observation {name} {observation} {pos} {neg}").unwrap();
    if a.stopped == Some(Stop::Interrupted) {
        // Not herd's: the states above are those found before a signal stopped the search.
        writeln!(out, "Interrupted {name}").unwrap();
    }
    writeln!(out, "Time {name} {seconds:.2}").unwrap();
    writeln!(out, "Hash={}", hash(p)).unwrap();
    out.push('\n');
    out
}

/// The final condition as herd prints it: `exists (1:r0=1 /\ x=2)`.
pub fn condition(p: &Program) -> String {
    format!(
        "{} ({})",
        p.condition.quantifier.keyword(),
        herd_prop(p, &p.condition.prop, Op::Top)
    )
}

/// The context a proposition is printed in (herd's `ConstrGen.op`).
#[derive(Copy, Clone, PartialEq)]
enum Op {
    Top,
    And,
    Or,
}

/// The operands of a chain of one operator (`a /\ b /\ c` is one n-ary conjunction in herd).
fn chain<'p>(prop: &'p Prop, and: bool, out: &mut Vec<&'p Prop>) {
    match prop {
        Prop::And(a, b) if and => {
            chain(a, and, out);
            chain(b, and, out);
        }
        Prop::Or(a, b) if !and => {
            chain(a, and, out);
            chain(b, and, out);
        }
        _ => out.push(prop),
    }
}

fn herd_prop(p: &Program, prop: &Prop, above: Op) -> String {
    let atom = |a: &Term, b: &Term| -> String {
        match (loc_of(p, a), loc_of(p, b), a, b) {
            (Some(l), None, _, Term::Const(v)) | (None, Some(l), Term::Const(v), _) => {
                format!("{l}={v}")
            }
            (Some(l), Some(m), _, _) => format!("{l}={m}"),
            (None, None, Term::Const(x), Term::Const(y)) => {
                (if x == y { "true" } else { "false" }).to_string()
            }
            _ => unreachable!("a term is a location or a constant"),
        }
    };
    match prop {
        Prop::True => "true".into(),
        Prop::Cmp(Cmp::Eq, a, b) => atom(a, b),
        Prop::Cmp(Cmp::Ne, a, b) => format!("not ({})", atom(a, b)),
        // herd's atoms test equality only; an ordered comparison (Dat3M's assertions have
        // them) prints with its C operator, which herd's tools do not read back.
        Prop::Cmp(cmp, a, b) => {
            let side = |t: &Term| match (loc_of(p, t), t) {
                (_, Term::Const(v)) => v.to_string(),
                (Some(l), _) => l.to_string(),
                (None, _) => unreachable!("a term is a location or a constant"),
            };
            format!("{}{}{}", side(a), cmp.symbol(), side(b))
        }
        Prop::Not(q) => format!("not ({})", herd_prop(p, q, Op::Top)),
        Prop::And(..) | Prop::Or(..) => {
            let and = matches!(prop, Prop::And(..));
            let here = if and { Op::And } else { Op::Or };
            let mut operands = Vec::new();
            chain(prop, and, &mut operands);
            let parts: Vec<String> = operands
                .into_iter()
                .map(|q| herd_prop(p, q, here))
                .collect();
            let text = parts.join(if and { " /\\ " } else { " \\/ " });
            // herd's `is_paren`: a disjunction inside a conjunction is parenthesised.
            if above == Op::And && here == Op::Or {
                format!("({text})")
            } else {
                text
            }
        }
    }
}

/// herd's test digest (see the module documentation): MD5 over the MD5s of the initial state,
/// the code and the observed locations, in lowercase hex.
pub fn hash(p: &Program) -> String {
    let digest = |text: &str| Md5::digest(text.as_bytes());
    let mut all = Vec::with_capacity(48);
    all.extend_from_slice(&digest(&init_text(p)));
    all.extend_from_slice(&digest(&code_text(p)));
    all.extend_from_slice(&digest(&locations_text(p)));
    Md5::digest(&all)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The initial state as herd's `digest_init` prints it: `loc=value` sorted by location, joined
/// by `; `. An alias prints as a typed declaration, `proxy name=target`.
fn init_text(p: &Program) -> String {
    let mut init: Vec<(Loc, String)> = p
        .reg_init
        .iter()
        .map(|i| (Loc::Reg(i.thread, i.reg.0.clone()), format!("{}", i.value)))
        .collect();
    for loc in &p.locations {
        let text = match loc.kind {
            LocationKind::Plain { init } => format!("{}={init}", loc.name),
            LocationKind::Alias { proxy, of } => {
                format!("{} {}={}", proxy.name(), loc.name, p.locations[of].name)
            }
        };
        init.push((Loc::Global(loc.name.clone()), text));
    }
    init.sort_by(|a, b| a.0.cmp(&b.0));
    init.iter()
        .map(|(l, text)| match l {
            Loc::Reg(..) => format!("{l}={text}"),
            Loc::Global(_) => text.clone(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The code as herd's `digest_code` prints it: labels renamed `L00`, `L01`, ... in the sorted
/// order of their names, then one row per line of the thread columns (`Misc.string_of_prog`):
/// each cell ` %-*s ` padded to its column's width, cells joined by `|`, each row ending `;`.
fn code_text(p: &Program) -> String {
    let labels: BTreeSet<&str> = p
        .threads
        .iter()
        .flat_map(|t| &t.body)
        .filter_map(|s| match &s.instr {
            Instr::Label(l) => Some(l.as_str()),
            Instr::Branch { target, .. } => Some(target.as_str()),
            _ => None,
        })
        .collect();
    let renamed: HashMap<&str, String> = labels
        .into_iter()
        .enumerate()
        .map(|(i, l)| (l, format!("L{i:02}")))
        .collect();
    let columns: Vec<Vec<String>> = p
        .threads
        .iter()
        .map(|t| {
            t.body
                .iter()
                .map(|s| {
                    let i = match &s.instr {
                        Instr::Label(l) => Instr::Label(renamed[l.as_str()].clone()),
                        Instr::Branch { cond, target } => Instr::Branch {
                            cond: cond.clone(),
                            target: renamed[target.as_str()].clone(),
                        },
                        other => other.clone(),
                    };
                    instr(p, &i)
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| c.iter().map(String::len).max().unwrap_or(0))
        .collect();
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for row in 0..rows {
        let cells: Vec<String> = columns
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {:<w$} ", c.get(row).map_or("", String::as_str)))
            .collect();
        writeln!(out, "{};", cells.join("|")).unwrap();
    }
    out
}

/// The observed locations (the condition's, the filter's and `locations [...]`), sorted, joined
/// by `; ` (herd's `digest_observed`).
fn locations_text(p: &Program) -> String {
    let mut locs = displayed(p);
    if let Some(f) = &p.filter {
        prop_locs(p, f, &mut locs);
    }
    locs.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
