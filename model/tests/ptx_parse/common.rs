//! Helpers shared by the PTX parser tests: parsing with a panic on error, errors at an exact
//! position, the round trip, and trees compared with their positions cleared.

use scopecheck_model::ptx::ast::*;
use scopecheck_model::ptx::{parse, PtxError};
use std::path::{Path, PathBuf};

/// `tree` with every position set to the default, so that trees parsed from different texts
/// compare by their content.
pub fn clear_positions(mut m: Module) -> Module {
    fn decl(d: &mut VarDecl) {
        d.pos = Pos::default();
    }
    fn stmts(body: &mut [Statement]) {
        for s in body {
            match s {
                Statement::Label { pos, .. } | Statement::Pragma { pos, .. } => {
                    *pos = Pos::default()
                }
                Statement::Decl(d) => decl(d),
                Statement::Loc(l) => l.pos = Pos::default(),
                Statement::CallPrototype(p) => {
                    p.pos = Pos::default();
                    p.returns.iter_mut().for_each(decl);
                    p.params.iter_mut().for_each(decl);
                }
                Statement::BranchTargets { pos, .. } | Statement::CallTargets { pos, .. } => {
                    *pos = Pos::default()
                }
                Statement::Instr(i) => i.pos = Pos::default(),
                Statement::Block { pos, body } => {
                    *pos = Pos::default();
                    stmts(body);
                }
            }
        }
    }
    for item in &mut m.items {
        match item {
            Item::Var(d) => decl(d),
            Item::Func(f) => {
                f.pos = Pos::default();
                f.returns.iter_mut().for_each(decl);
                f.params.iter_mut().for_each(decl);
                if let Some(body) = &mut f.body {
                    stmts(body);
                }
            }
            Item::Section(s) => s.pos = Pos::default(),
            Item::Pragma { pos, .. } => *pos = Pos::default(),
        }
    }
    m
}

pub fn ok(src: &str) -> Module {
    match parse(src, "test.ptx") {
        Ok(m) => m,
        Err(e) => panic!("{e}\n{src}"),
    }
}

pub fn err(src: &str) -> PtxError {
    match parse(src, "test.ptx") {
        Ok(m) => panic!("parsed, expected an error:\n{src}\n{m:?}"),
        Err(e) => e,
    }
}

/// Asserts `src` fails at `line:col` with a message containing `needle`, and that the error
/// prints as `test.ptx:line:col: …` on one line.
pub fn fails_at(src: &str, line: u32, col: u32, needle: &str) {
    let e = err(src);
    assert_eq!((e.pos.line, e.pos.col), (line, col), "{e}");
    assert!(e.message.contains(needle), "`{needle}` not in: {e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("test.ptx:{line}:{col}: ")),
        "{shown}"
    );
    assert!(!shown.contains('\n'), "{shown}");
}

/// The round trip: the printed tree parses back to the same tree.
pub fn round_trip(src: &str, path: &str) -> Module {
    let first = parse(src, path).unwrap_or_else(|e| panic!("{e}"));
    let printed = first.to_string();
    let second = parse(&printed, path)
        .unwrap_or_else(|e| panic!("printed text does not parse: {e}\n{printed}"));
    let first = clear_positions(first);
    assert_eq!(
        first,
        clear_positions(second),
        "{path}: the printed text parses to another tree:\n{printed}"
    );
    first
}

/// The body of the only function of `ok(src)`.
pub fn body(src: &str) -> Vec<Statement> {
    let m = ok(src);
    let f = m
        .items
        .iter()
        .find_map(|i| match i {
            Item::Func(f) => Some(f.clone()),
            _ => None,
        })
        .expect("a function");
    f.body.expect("a body")
}

/// The instructions of `{ … }` wrapped in an entry, after `.reg` declarations of `%r`, `%rd`,
/// `%p`, `%f`.
pub fn instrs(text: &str) -> Vec<Instruction> {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{{\n\
         .reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n.reg .pred %p<9>;\n.reg .f32 %f<9>;\n{text}\n}}\n"
    );
    body(&src)
        .into_iter()
        .filter_map(|s| match s {
            Statement::Instr(i) => Some(i),
            _ => None,
        })
        .collect()
}

/// The operands of the one instruction `text`.
pub fn operands(text: &str) -> Vec<Operand> {
    let mut is = instrs(text);
    assert_eq!(is.len(), 1, "{text}");
    is.remove(0).operands
}

pub fn reg(s: &str) -> Operand {
    Operand::Reg(s.to_string())
}

pub fn sym(s: &str, offset: i64) -> Operand {
    Operand::Symbol {
        name: s.to_string(),
        offset,
    }
}

pub fn addr(base: AddrBase, offset: i64) -> Operand {
    Operand::Address(Address { base, offset })
}

pub fn ptx_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("tests/ptx"), root.join("../corpus/cuda")] {
        if !dir.exists() {
            continue;
        }
        for e in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let e = e.expect("readable directory");
            if e.path().extension().is_some_and(|x| x == "ptx") {
                out.push(e.path().to_path_buf());
            }
        }
    }
    out
}
