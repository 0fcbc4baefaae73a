//! The printer of herd's OpenCL C litmus dialect: the initial state and kernels as the syntax
//! tree holds them, so that parsing the text gives the same program back.

use super::ast::*;
use super::{order_name, Region};
use crate::litmus::ir::{LocId, Program};
use std::collections::HashMap;
use std::fmt::Write;

/// Prints the declarations of the initial state, one a line.
pub fn print_init(out: &mut String, p: &Program, test: &OpenClTest) {
    for d in &test.init {
        out.push_str("  ");
        if let Some(t) = &d.ty {
            write!(out, "{} ", ctype(t)).unwrap();
        }
        match &d.item {
            InitItem::Location {
                loc,
                bracketed,
                value,
            } => {
                let name = &p.locations[*loc].name;
                match bracketed {
                    true => write!(out, "[{name}]").unwrap(),
                    false => out.push_str(name),
                }
                if let Some(v) = value {
                    write!(out, " = {}", init_value(*v)).unwrap();
                }
            }
            InitItem::Register { thread, reg, value } => {
                write!(out, "P{thread}:{reg} = {}", init_value(*value)).unwrap()
            }
            InitItem::Array {
                name,
                len,
                sized,
                values,
                ..
            } => {
                match sized {
                    true => write!(out, "{name}[{len}]").unwrap(),
                    false => write!(out, "{name}[]").unwrap(),
                }
                if let Some(vs) = values {
                    let vs: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
                    write!(out, " = {{{}}}", vs.join(", ")).unwrap();
                }
            }
        }
        out.push_str(";\n");
    }
}

fn init_value(v: InitValue) -> String {
    match v {
        InitValue::Const(v) => v.to_string(),
        InitValue::AtomicVarInit(v) => format!("ATOMIC_VAR_INIT({v})"),
    }
}

fn ctype(t: &CType) -> String {
    let volatile = if t.volatile { "volatile " } else { "" };
    format!(
        "{volatile}{}{}",
        t.base.name(),
        "*".repeat(t.pointers as usize)
    )
}

/// Prints an OpenCL test's kernels (`P0@wg 0, dev 0 (params) { body }`), naming locations
/// with `name` (an array by its own name).
pub fn print_kernels(
    out: &mut String,
    test: &OpenClTest,
    placements: &[(u32, u32)],
    name: &dyn Fn(LocId) -> String,
) {
    let arrays: HashMap<LocId, &str> = test
        .init
        .iter()
        .filter_map(|d| match &d.item {
            InitItem::Array { name, first, .. } => Some((*first, name.as_str())),
            _ => None,
        })
        .collect();
    let name = |l: LocId| arrays.get(&l).map_or_else(|| name(l), |n| n.to_string());
    let pr = Printer { name: &name };
    for (t, k) in test.threads.iter().enumerate() {
        let params: Vec<String> = k.params.iter().map(|p| pr.param(p)).collect();
        let (wg, dev) = placements[t];
        writeln!(out, "P{t}@wg {wg}, dev {dev} ({}) {{", params.join(", ")).unwrap();
        pr.block(out, &k.body, 1);
        out.push_str("}\n\n");
    }
}

struct Printer<'a> {
    name: &'a dyn Fn(LocId) -> String,
}

impl Printer<'_> {
    fn param(&self, p: &Param) -> String {
        let mut s = String::new();
        if p.volatile {
            s.push_str("volatile ");
        }
        match p.region {
            Some(Region::Global) => s.push_str("global "),
            Some(Region::Local) => s.push_str("local "),
            None => {}
        }
        write!(s, "{}* {}", p.base.name(), (self.name)(p.loc)).unwrap();
        s
    }

    fn address(&self, a: &Address) -> String {
        let base = (self.name)(a.base);
        let text = match a.offset {
            0 => base,
            k => format!("{base} + {k}"),
        };
        match a.parens {
            true => format!("({text})"),
            false => text,
        }
    }

    fn block(&self, out: &mut String, body: &[Located], depth: usize) {
        let pad = "  ".repeat(depth);
        for s in body {
            match &s.stmt {
                CStmt::Decl(t, r, None) => writeln!(out, "{pad}{} {r};", ctype(t)).unwrap(),
                CStmt::Decl(t, r, Some(e)) => {
                    writeln!(out, "{pad}{} {r} = {};", ctype(t), self.expr(e)).unwrap()
                }
                CStmt::Assign(r, e) => writeln!(out, "{pad}{r} = {};", self.expr(e)).unwrap(),
                CStmt::Store(a, e) => {
                    writeln!(out, "{pad}*{} = {};", self.address(a), self.expr(e)).unwrap()
                }
                CStmt::Expr(e) => writeln!(out, "{pad}{};", self.expr(e)).unwrap(),
                CStmt::Barrier { id, flags, scope } => {
                    let scope = scope.map_or(String::new(), |s| format!(", {}", s.name()));
                    writeln!(out, "{pad}B{id}: barrier({}{scope});", self.flags(flags)).unwrap()
                }
                CStmt::If(c, then, other) => {
                    writeln!(out, "{pad}if ({}) {{", self.expr(c)).unwrap();
                    self.block(out, then, depth + 1);
                    if !other.is_empty() {
                        writeln!(out, "{pad}}} else {{").unwrap();
                        self.block(out, other, depth + 1);
                    }
                    writeln!(out, "{pad}}}").unwrap();
                }
                CStmt::While(c, body) => {
                    writeln!(out, "{pad}while ({}) {{", self.expr(c)).unwrap();
                    self.block(out, body, depth + 1);
                    writeln!(out, "{pad}}}").unwrap();
                }
            }
        }
    }

    fn flags(&self, f: &Flags) -> String {
        match (f.global, f.local, f.local_first) {
            (true, true, false) => "CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE",
            (true, true, true) => "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE",
            (false, true, _) => "CLK_LOCAL_MEM_FENCE",
            _ => "CLK_GLOBAL_MEM_FENCE",
        }
        .to_string()
    }

    /// An expression as written: the tree keeps the parentheses, and operators bind as they
    /// did when it was parsed.
    fn expr(&self, e: &CExpr) -> String {
        match e {
            CExpr::Int(v) => v.to_string(),
            CExpr::Bool(b) => b.to_string(),
            CExpr::Reg(r) => r.to_string(),
            CExpr::Deref(a) => format!("*{}", self.address(a)),
            CExpr::Call(c) => self.call(c),
            CExpr::Not(e) => format!("!{}", self.expr(e)),
            CExpr::Binary(op, a, b) => {
                format!("{} {} {}", self.expr(a), op.symbol(), self.expr(b))
            }
            CExpr::Paren(e) => format!("({})", self.expr(e)),
            CExpr::Cast(t, e) => format!("({}) {}", ctype(t), self.expr(e)),
        }
    }

    fn call(&self, c: &Call) -> String {
        // `_explicit` calls end with their orders and scope.
        let tail = |mode: Mode, fail: Option<crate::scope::Order>| match mode {
            Mode::Plain => String::new(),
            Mode::Explicit(o, s) => {
                let mut t = format!(", {}", order_name(o).expect("atomic order"));
                if let Some(f) = fail {
                    write!(t, ", {}", order_name(f).expect("atomic order")).unwrap();
                }
                if let Some(s) = s {
                    write!(t, ", {}", s.name()).unwrap();
                }
                t
            }
        };
        let explicit = |mode: Mode| match mode {
            Mode::Plain => "",
            Mode::Explicit(..) => "_explicit",
        };
        match c {
            Call::Load { loc, mode } => format!(
                "atomic_load{}({}{})",
                explicit(*mode),
                self.address(loc),
                tail(*mode, None)
            ),
            Call::Store { loc, value, mode } => format!(
                "atomic_store{}({}, {}{})",
                explicit(*mode),
                self.address(loc),
                self.expr(value),
                tail(*mode, None)
            ),
            Call::Fetch {
                op,
                loc,
                value,
                mode,
            } => {
                let f = match FETCH_OPS.iter().find(|(_, o)| o == op) {
                    Some((n, _)) => format!("atomic_fetch_{n}"),
                    None => "atomic_exchange".to_string(),
                };
                format!(
                    "{f}{}({}, {}{})",
                    explicit(*mode),
                    self.address(loc),
                    self.expr(value),
                    tail(*mode, None)
                )
            }
            Call::CompareExchange {
                loc,
                expected,
                desired,
                mode,
                fail,
            } => format!(
                "atomic_compare_exchange_strong{}({}, {}, {}{})",
                explicit(*mode),
                self.address(loc),
                self.address(expected),
                self.expr(desired),
                tail(*mode, *fail)
            ),
            Call::Fence {
                flags,
                order,
                scope,
            } => format!(
                "atomic_work_item_fence({}, {}, {})",
                self.flags(flags),
                order_name(*order).expect("fence order"),
                scope.name()
            ),
        }
    }
}
