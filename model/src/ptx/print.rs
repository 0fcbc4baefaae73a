//! The printer: canonical PTX text for the syntax tree, as `Display` impls. Parsing the printed
//! text gives the same tree, positions aside: constants print in a form that reads back to the
//! same value (integers in decimal, floating-point constants as their bits, `0fXXXXXXXX` /
//! `0dXXXXXXXXXXXXXXXX`), `.section` texts print as they were written, and `.file` directives
//! print after the module header. Bodies are indented with one tab per block, labels at the
//! left margin, as NVRTC lays them out.

use super::ast::{
    AddrBase, Address, CallPrototype, FloatLit, FuncKind, Function, Guard, Init, Instruction, Item,
    Linkage, Loc, Module, Operand, PtrAttr, Section, StateSpace, Statement, VarDecl,
};
use std::fmt::{self, Display, Formatter, Write};

impl Display for Linkage {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Linkage::Visible => ".visible",
            Linkage::Extern => ".extern",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        })
    }
}

impl Display for StateSpace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StateSpace::Reg => ".reg",
            StateSpace::Sreg => ".sreg",
            StateSpace::Const => ".const",
            StateSpace::Global => ".global",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
            StateSpace::Shared => ".shared",
            StateSpace::SharedCluster => ".shared::cluster",
            StateSpace::Tex => ".tex",
        })
    }
}

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some((major, minor)) = self.version {
            writeln!(f, ".version {major}.{minor}")?;
        }
        if !self.target.is_empty() {
            writeln!(f, ".target {}", self.target.join(", "))?;
        }
        if let Some(n) = self.address_size {
            writeln!(f, ".address_size {n}")?;
        }
        for (index, name) in &self.files {
            writeln!(f, ".file {index} \"{name}\"")?;
        }
        for item in &self.items {
            writeln!(f)?;
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

impl Display for Item {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Item::Var(d) => writeln!(f, "{d};"),
            Item::Func(func) => write!(f, "{func}"),
            Item::Section(s) => write!(f, "{s}"),
            Item::Pragma { text, .. } => writeln!(f, ".pragma \"{text}\";"),
        }
    }
}

impl Display for Section {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, ".section .{}", self.name)?;
        writeln!(f, "{{{}}}", self.text)
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, "{l} ")?;
        }
        f.write_str(match self.kind {
            FuncKind::Entry => ".entry ",
            FuncKind::Func => ".func ",
        })?;
        if !self.returns.is_empty() {
            write!(f, "({}) ", join(&self.returns, ", "))?;
        }
        f.write_str(&self.name)?;
        if self.params.is_empty() {
            f.write_str("()")?;
        } else {
            writeln!(f, "(")?;
            for (i, p) in self.params.iter().enumerate() {
                let comma = if i + 1 < self.params.len() { "," } else { "" };
                writeln!(f, "\t{p}{comma}")?;
            }
            f.write_str(")")?;
        }
        for (name, args) in &self.directives {
            write!(f, "\n.{name}")?;
            if !args.is_empty() {
                write!(f, " {}", join(args, ", "))?;
            }
        }
        for p in &self.pragmas {
            write!(f, "\n.pragma \"{p}\";")?;
        }
        match &self.body {
            None => writeln!(f, ";"),
            Some(body) => {
                writeln!(f, "\n{{")?;
                for s in body {
                    write_statement(f, s, 1)?;
                }
                writeln!(f, "}}")
            }
        }
    }
}

impl Display for PtrAttr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(".ptr")?;
        if let Some(space) = self.space {
            write!(f, "{space}")?;
        }
        write!(f, ".align {}", self.align)
    }
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, "{l} ")?;
        }
        write!(f, "{}", self.space)?;
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        if let Some(v) = self.vector {
            write!(f, " .v{v}")?;
        }
        write!(f, " .{}", self.ty)?;
        if let Some(p) = &self.ptr {
            write!(f, " {p}")?;
        }
        write!(f, " {}", self.name)?;
        if let Some(n) = self.range {
            write!(f, "<{n}>")?;
        }
        for dim in &self.array {
            match dim {
                Some(n) => write!(f, "[{n}]")?,
                None => f.write_str("[]")?,
            }
        }
        if let Some(init) = &self.init {
            write!(f, " = {init}")?;
        }
        Ok(())
    }
}

impl Display for Init {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Init::Scalar(op) => write!(f, "{op}"),
            Init::List(items) => write!(f, "{{{}}}", join(items, ", ")),
            Init::Generic { name, offset } => {
                write!(f, "generic({name})")?;
                write_offset(f, *offset)
            }
        }
    }
}

/// One statement at `indent` tabs (labels at the margin), with its newline.
fn write_statement(f: &mut Formatter<'_>, s: &Statement, indent: usize) -> fmt::Result {
    let tabs = "\t".repeat(indent);
    match s {
        Statement::Label { name, .. } => writeln!(f, "{name}:"),
        Statement::Decl(d) => writeln!(f, "{tabs}{d};"),
        Statement::Loc(loc) => writeln!(f, "{tabs}{loc}"),
        Statement::Pragma { text, .. } => writeln!(f, "{tabs}.pragma \"{text}\";"),
        Statement::Instr(i) => writeln!(f, "{tabs}{i}"),
        Statement::CallPrototype(p) => writeln!(f, "{tabs}{p}"),
        Statement::BranchTargets { labels, .. } => {
            writeln!(f, "{tabs}.branchtargets {};", labels.join(", "))
        }
        Statement::CallTargets { functions, .. } => {
            writeln!(f, "{tabs}.calltargets {};", functions.join(", "))
        }
        Statement::Block { body, .. } => {
            writeln!(f, "{tabs}{{")?;
            for s in body {
                write_statement(f, s, indent + 1)?;
            }
            writeln!(f, "{tabs}}}")
        }
    }
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_statement(f, self, 0)
    }
}

impl Display for CallPrototype {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(".callprototype ")?;
        if !self.returns.is_empty() {
            write!(f, "({}) ", join(&self.returns, ", "))?;
        }
        f.write_char('_')?;
        if !self.params.is_empty() {
            write!(f, " ({})", join(&self.params, ", "))?;
        }
        if self.noreturn {
            f.write_str(" .noreturn")?;
        }
        f.write_char(';')
    }
}

impl Display for Loc {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".loc {} {} {}", self.file, self.line, self.col)?;
        if let Some(name) = &self.function_name {
            write!(f, ", function_name {name}")?;
        }
        if let Some((file, line, col)) = self.inlined_at {
            write!(f, ", inlined_at {file} {line} {col}")?;
        }
        Ok(())
    }
}

impl Display for Guard {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let bang = if self.negated { "!" } else { "" };
        write!(f, "@{bang}{}", self.reg)
    }
}

impl Display for Instruction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "{g} ")?;
        }
        f.write_str(&self.opcode)?;
        for m in &self.modifiers {
            write!(f, ".{m}")?;
        }
        if !self.operands.is_empty() {
            write!(f, " {}", join(&self.operands, ", "))?;
        }
        f.write_char(';')
    }
}

impl Display for FloatLit {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            FloatLit::F32(bits) => write!(f, "0f{bits:08X}"),
            FloatLit::F64(bits) => write!(f, "0d{bits:016X}"),
        }
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => f.write_str(r),
            Operand::Not(r) => write!(f, "!{r}"),
            Operand::Int(v) => write!(f, "{v}"),
            Operand::Float(x) => write!(f, "{x}"),
            Operand::Symbol { name, offset } => {
                f.write_str(name)?;
                write_offset(f, *offset)
            }
            Operand::Address(a) => write!(f, "{a}"),
            Operand::TensorAddress { tensor_map, coords } => {
                let a = tensor_map.to_string();
                write!(f, "{}, {{{}}}]", &a[..a.len() - 1], join(coords, ", "))
            }
            Operand::Vector(items) => write!(f, "{{{}}}", join(items, ", ")),
            Operand::List(items) => write!(f, "({})", join(items, ", ")),
            Operand::Pair(a, b) => write!(f, "{a}|{b}"),
            Operand::Sink => f.write_char('_'),
        }
    }
}

impl Display for Address {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.base {
            AddrBase::Reg(name) | AddrBase::Symbol(name) => {
                write!(f, "[{name}")?;
                write_offset(f, self.offset)?;
                f.write_char(']')
            }
            AddrBase::Absolute => write!(f, "[{}]", self.offset),
        }
    }
}

/// `+N` / `-N`, nothing for 0.
fn write_offset(f: &mut Formatter<'_>, offset: i64) -> fmt::Result {
    match offset {
        0 => Ok(()),
        n if n > 0 => write!(f, "+{n}"),
        n => write!(f, "-{}", n.unsigned_abs()),
    }
}

fn join<T: Display>(items: &[T], sep: &str) -> String {
    let mut out = String::new();
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        let _ = write!(out, "{x}");
    }
    out
}
