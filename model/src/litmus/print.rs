//! Printer for the PTX and Vulkan litmus dialects: `parse(print(p)) == p` for every program.

use super::async_ops::MbarrierState;
use super::ir::*;
use super::opencl::parse::quote;
use super::opencl::{print_init, print_kernels, OpenClTest};
use super::vulkan::{VulkanKind, VulkanOp, DIALECT as VULKAN};
use super::warp::WarpPart;
use std::fmt::Write;

/// Prints a program in Dartagnan's PTX litmus dialect (its Vulkan dialect for a Vulkan test,
/// herd's OpenCL C dialect for an OpenCL test), columns aligned.
pub fn print(p: &Program) -> String {
    let mut out = String::new();
    if let Some(test) = super::opencl::test_of(p) {
        return opencl(p, test);
    }
    writeln!(out, "{} {}", p.dialect(), p.name).unwrap();
    for c in &p.comments {
        writeln!(out, "{}", quote(c)).unwrap();
    }
    out.push_str("{\n");
    // Exchange slots are the lowering's, which parsing the exchanges makes again.
    for loc in p.locations.iter().filter(|l| !super::warp::is_slot(l)) {
        match (&loc.kind, loc.shared) {
            (LocationKind::Plain { init }, Some(of)) => {
                let expected = MbarrierState::unpack(*init).expected;
                match *init != 0 && MbarrierState::init(expected.into()) == *init {
                    true => writeln!(out, "{} @ {of} = mbarrier {expected};", loc.name),
                    false => writeln!(out, "{} @ {of} = {init};", loc.name),
                }
                .unwrap()
            }
            (LocationKind::Plain { init }, None) => writeln!(out, "{}={init};", loc.name).unwrap(),
            (LocationKind::Alias { proxy, of }, _) => writeln!(
                out,
                "{} @ {} aliases {};",
                loc.name,
                proxy.name(),
                p.locations[*of].name
            )
            .unwrap(),
        }
    }
    for init in &p.reg_init {
        writeln!(out, "P{}:{}={};", init.thread, init.reg, init.value).unwrap();
    }
    out.push_str("}\n");
    // The relations between threads, in a second block (`ssw 0 1;`).
    if p.relations.values().any(|pairs| !pairs.is_empty()) {
        out.push_str("{\n");
        for (name, pairs) in &p.relations {
            for (a, b) in pairs {
                writeln!(out, "{name} {a} {b};").unwrap();
            }
        }
        out.push_str("}\n");
    }
    let vulkan = p.dialect() == VULKAN;

    let mut columns: Vec<Vec<String>> = p
        .threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            let placement = match &p.groups {
                Some(groups) => groups.placement(t),
                None => th.placement.to_string(),
            };
            std::iter::once(format!("P{t}@{placement}"))
                .chain(th.body.iter().filter_map(|s| {
                    let op = s.qualifiers.as_ref().filter(|_| vulkan);
                    Some(match (&s.token, op, &s.warp) {
                        (_, _, Some(WarpPart::Start(op))) => op.text(),
                        (_, _, Some(WarpPart::Rest)) => return None,
                        (_, Some(q), None) => vulkan_instr(p, &s.instr, &VulkanOp::of(&s.instr, q)),
                        (None, None, None) => instr_of(p, th, &s.instr),
                        (Some(t), None, None) => {
                            format!("{} {}", instr(p, &s.instr), token_order(t))
                        }
                    })
                }))
                .collect()
        })
        .collect();
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    for col in &mut columns {
        col.resize(rows, String::new());
    }
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| c.iter().map(String::len).max().unwrap_or(0))
        .collect();
    for row in 0..rows {
        let cells: Vec<String> = columns
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {:<w$} ", c[row], w = *w))
            .collect();
        writeln!(out, "{};", cells.join("|")).unwrap();
    }
    tail(p, &mut out);
    out
}

/// herd's tail: `locations [...]`, `filter (...)` and the final condition.
fn tail(p: &Program, out: &mut String) {
    if !p.observed.is_empty() {
        let terms: Vec<String> = p
            .observed
            .iter()
            .map(|t| format!("{};", term(p, t)))
            .collect();
        writeln!(*out, "locations [{}]", terms.join(" ")).unwrap();
    }
    if let Some(filter) = &p.filter {
        writeln!(*out, "filter ({})", prop(p, filter, Level::Or)).unwrap();
    }
    writeln!(
        *out,
        "{} ({})",
        p.condition.quantifier.keyword(),
        prop(p, &p.condition.prop, Level::Or)
    )
    .unwrap();
}

/// An OpenCL test in herd's OpenCL C dialect: its initial state, its kernels as written, its
/// tail.
fn opencl(p: &Program, test: &OpenClTest) -> String {
    let mut out = format!("OPENCL {}\n", p.name);
    for c in &p.comments {
        writeln!(out, "{}", quote(c)).unwrap();
    }
    out.push_str("{\n");
    print_init(&mut out, p, test);
    out.push_str("}\n\n");
    let placements: Vec<(u32, u32)> = p
        .threads
        .iter()
        .map(|t| (t.placement.cta, t.placement.gpu))
        .collect();
    let name = |l: LocId| p.locations[l].name.clone();
    print_kernels(&mut out, test, &placements, &name);
    tail(p, &mut out);
    out
}

/// One instruction of thread `th` in litmus syntax: an access to shared memory names its
/// window, `.shared::cta` for the thread's own CTA's and `.shared::cluster` for a peer's.
pub fn instr_of(p: &Program, th: &Thread, i: &Instr) -> String {
    let text = instr(p, i);
    let Some(of) = i.location().and_then(|l| p.shared_of(l)) else {
        return text;
    };
    let window = match of.is_own(&th.placement) {
        true => "shared::cta",
        false => "shared::cluster",
    };
    // The window follows the mnemonic's other qualifiers: `ld.relaxed.cluster.shared::cluster`.
    match text.split_once(' ') {
        Some((mnemonic, args)) => format!("{mnemonic}.{window} {args}"),
        None => text,
    }
}

/// One instruction in litmus syntax (an access to shared memory without its window: see
/// [`instr_of`]).
pub fn instr(p: &Program, i: &Instr) -> String {
    let loc = |l: &LocId| p.locations[*l].name.as_str();
    match i {
        Instr::Load {
            access,
            dst,
            loc: l,
        } if is_nc_load(p, access, *l) => format!("ld.global.nc {dst}, {}", loc(l)),
        Instr::Load {
            access,
            dst,
            loc: l,
        } => {
            let op = match access.proxy {
                Proxy::Surface => "suld",
                Proxy::Texture => "tld",
                Proxy::Constant => "cold",
                Proxy::Generic | Proxy::Async => "ld",
            };
            format!("{op}{} {dst}, {}", qualifiers(access), loc(l))
        }
        Instr::Store {
            access,
            loc: l,
            value,
        } => {
            let op = if access.proxy == Proxy::Surface {
                "sust"
            } else {
                "st"
            };
            format!("{op}{} {}, {value}", qualifiers(access), loc(l))
        }
        Instr::Atom {
            access,
            op,
            dst,
            loc: l,
            operand,
            new,
        } => {
            let tail = new.as_ref().map(|n| format!(", {n}")).unwrap_or_default();
            format!(
                "atom{}.{} {dst}, {}, {operand}{tail}",
                qualifiers(access),
                op.name(),
                loc(l)
            )
        }
        Instr::Red {
            access,
            op,
            loc: l,
            operand,
        } => {
            format!(
                "red{}.{} {}, {operand}",
                qualifiers(access),
                op.name(),
                loc(l)
            )
        }
        Instr::Fence(Fence::Sc(s)) => format!("fence.sc.{s}"),
        Instr::Fence(Fence::AcqRel(s)) => format!("fence.acq_rel.{s}"),
        Instr::Fence(Fence::Proxy(k)) => format!("fence.proxy.{}", k.name()),
        Instr::Barrier { op, id, quorum } => {
            let op = match op {
                BarrierOp::Sync => "sync",
                BarrierOp::Arrive => "arrive",
            };
            let args: Vec<String> = id.iter().chain(quorum).map(ToString::to_string).collect();
            format!("bar.cta.{op} {}", args.join(", "))
        }
        Instr::Async(op) => op.print(p),
        Instr::WarpSync { mask } => format!("bar.warp.sync {mask:#x}"),
        Instr::CpAsync { dst, src } => {
            format!("cp.async.ca.shared.global {}, {}, 4", loc(dst), loc(src))
        }
        Instr::CpAsyncCommit => "cp.async.commit_group".to_string(),
        Instr::CpAsyncWait { all: true, .. } => "cp.async.wait_all".to_string(),
        Instr::CpAsyncWait { n, all: false } => format!("cp.async.wait_group {n}"),
        Instr::Mov { dst, src } => format!("mov {dst}, {src}"),
        Instr::Alu { op, dst, a, b } => format!("{} {dst}, {a}, {b}", op.name()),
        Instr::Setp { cmp, dst, a, b } => format!("setp.{} {dst}, {a}, {b}", cmp.name()),
        Instr::Label(l) => format!("{l}:"),
        Instr::Branch { cond: None, target } => format!("goto {target}"),
        Instr::Branch {
            cond: Some((cmp, a, b)),
            target,
        } => {
            format!("b{} {a}, {b}, {target}", cmp.name())
        }
    }
}

/// One Vulkan instruction in Dat3M's Vulkan dialect.
pub fn vulkan_instr(p: &Program, i: &Instr, op: &VulkanOp) -> String {
    let loc = |l: &LocId| p.locations[*l].name.as_str();
    let q = op.qualifiers();
    match (op.kind, i) {
        (VulkanKind::AvDevice, _) => "avdevice".into(),
        (VulkanKind::VisDevice, _) => "visdevice".into(),
        (VulkanKind::MemoryBarrier, _) => format!("membar{q}"),
        (VulkanKind::ControlBarrier, Instr::Barrier { id, quorum, .. }) => {
            let args: Vec<String> = id.iter().chain(quorum).map(ToString::to_string).collect();
            format!("cbar{q} {}", args.join(", "))
        }
        (_, Instr::Load { dst, loc: l, .. }) => format!("ld{q} {dst}, {}", loc(l)),
        (_, Instr::Store { loc: l, value, .. }) => format!("st{q} {}, {value}", loc(l)),
        (
            _,
            Instr::Atom {
                op: rmw,
                dst,
                loc: l,
                operand,
                ..
            },
        ) => {
            let name = match rmw {
                RmwOp::Exch => String::new(),
                other => format!(".{}", other.name()),
            };
            format!("rmw{q}{name} {dst}, {}, {operand}", loc(l))
        }
        (_, other) => instr(p, other),
    }
}

/// Whether a load is `ld.global.nc`: a weak load of a location through the texture path (a
/// `tld` of a texture alias is printed as written).
fn is_nc_load(p: &Program, access: &Access, loc: LocId) -> bool {
    access.proxy == Proxy::Texture
        && access.order == crate::scope::Order::Weak
        && matches!(p.locations[loc].kind, LocationKind::Plain { .. })
}

fn qualifiers(a: &Access) -> String {
    match a.scope {
        Some(s) => format!(".{}.{s}", a.order),
        None => format!(".{}", a.order),
    }
}

/// Binding strength of a proposition's context, loosest first.
#[derive(Copy, Clone, PartialEq, PartialOrd)]
pub enum Level {
    /// An operand of `\/`: anything but a bare disjunction on the right is printed bare.
    Or,
    /// An operand of `/\`: a disjunction needs parentheses.
    And,
    /// An operand of `~` or the right of `/\`: every binary proposition needs parentheses.
    Atom,
}

/// Prints a proposition, parenthesising only where the parser's precedence would regroup it.
pub fn prop(p: &Program, q: &Prop, at: Level) -> String {
    let wrap = |s: String, level: Level| if level < at { format!("({s})") } else { s };
    match q {
        Prop::True => "true".into(),
        Prop::Cmp(cmp, a, b) => {
            format!("{} {} {}", term(p, a), cmp.symbol(), term(p, b))
        }
        Prop::Not(inner) => format!("~{}", prop(p, inner, Level::Atom)),
        Prop::And(a, b) => wrap(
            format!("{} /\\ {}", prop(p, a, Level::And), prop(p, b, Level::Atom)),
            Level::And,
        ),
        Prop::Or(a, b) => wrap(
            format!("{} \\/ {}", prop(p, a, Level::Or), prop(p, b, Level::And)),
            Level::Or,
        ),
    }
}

/// Prints a term of the final condition.
pub fn term(p: &Program, t: &Term) -> String {
    match t {
        Term::Reg(thread, reg) => format!("P{thread}:{reg}"),
        Term::Loc(l) => p.locations[*l].name.clone(),
        Term::Const(v) => v.to_string(),
    }
}

/// A Tile IR token annotation: `[t0, t1 -> t2]`, `[-> t0]`, `[t0 ->]`.
pub fn token_order(t: &TokenOrder) -> String {
    let after = t.after.join(", ");
    let sep = if after.is_empty() { "" } else { " " };
    match &t.produces {
        Some(out) => format!("[{after}{sep}-> {out}]"),
        None => format!("[{after}{sep}->]"),
    }
}
