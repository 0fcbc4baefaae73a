//! Module directives and function headers. PTX ISA, "PTX Module Directives": "`.version`,
//! `.target`, `.address_size`"; "Specifying Kernel Entry Points and Functions": "`.entry`,
//! `.func`"; "Performance-Tuning Directives": "`.maxnreg`, `.maxntid`, `.reqntid`,
//! `.minnctapersm`, `.maxnctapersm`, `.noreturn`, `.pragma`"; "Cluster Dimension Directives":
//! "`.reqnctapercluster`, `.explicitcluster`, `.maxclusterrank`"; "Debugging Directives":
//! "`.file`, `.section`" (`.loc` is a statement, parsed with
//! the other statements of a body).

use super::{PResult, Parser};
use crate::ptx::ast::{FuncKind, Function, Item, Linkage, Module, Section, StateSpace};
use crate::ptx::lex::Tok;

/// The performance-tuning and cluster directives a function header may carry, with how many
/// integer arguments each takes (`.maxntid nx{, ny{, nz}}`: one to three).
const FUNC_DIRECTIVES: &[(&str, usize, usize)] = &[
    ("maxntid", 1, 3),
    ("reqntid", 1, 3),
    ("minnctapersm", 1, 1),
    ("maxnctapersm", 1, 1),
    ("maxnreg", 1, 1),
    ("reqnctapercluster", 1, 3),
    ("explicitcluster", 0, 0),
    ("maxclusterrank", 1, 1),
    ("blocksareclusters", 0, 0),
    ("noreturn", 0, 0),
];

/// `.visible`, `.extern`, `.weak`, `.common`.
pub(super) fn linkage(name: &str) -> Option<Linkage> {
    match name {
        "visible" => Some(Linkage::Visible),
        "extern" => Some(Linkage::Extern),
        "weak" => Some(Linkage::Weak),
        "common" => Some(Linkage::Common),
        _ => None,
    }
}

/// Whether a directive starts a module-scope item (where recovery after an error resumes).
pub(super) fn starts_item(name: &str) -> bool {
    matches!(
        name,
        "version" | "target" | "address_size" | "file" | "section" | "pragma" | "entry" | "func"
    ) || linkage(name).is_some()
        || super::decl::state_space(name).is_some()
}

impl<'a> Parser<'a> {
    /// The whole module: directives and items up to the end of the input.
    pub(super) fn module(&mut self) -> PResult<Module> {
        let mut m = Module::default();
        loop {
            if let Err(e) = self.module_directive(&mut m) {
                self.record(e)?;
                self.skip_item();
            }
            if self.peek().tok == Tok::Eof {
                if let Some((pos, msg)) = self.lex_error.clone() {
                    return Err(self.error(pos, msg));
                }
                return Ok(m);
            }
        }
    }

    /// One module directive or item into `m`.
    fn module_directive(&mut self, m: &mut Module) -> PResult<()> {
        {
            let t = self.peek();
            match t.tok {
                Tok::Eof => {}
                Tok::Dot("version") => {
                    self.next();
                    m.version = Some(self.version()?);
                }
                Tok::Dot("target") => {
                    self.next();
                    // `.target stringlist`: "a comma-separated list of target specifiers".
                    loop {
                        let (name, _) = self.ident("a target name (`sm_90`, …)")?;
                        m.target.push(name.to_string());
                        if !self.eat(Tok::Punct(',')) {
                            break;
                        }
                    }
                }
                Tok::Dot("address_size") => {
                    self.next();
                    let pos = self.peek().pos;
                    let size = self.u32("an address size")?;
                    if size != 32 && size != 64 {
                        return Err(self.error(pos, "`.address_size` must be 32 or 64"));
                    }
                    m.address_size = Some(size);
                }
                Tok::Dot("file") => {
                    self.next();
                    let (index, name) = self.file()?;
                    m.files.insert(index, name);
                }
                Tok::Dot("section") => {
                    self.next();
                    m.items.push(Item::Section(self.section(t.pos)?));
                }
                Tok::Dot("pragma") => {
                    self.next();
                    let text = self.pragma_text()?;
                    m.items.push(Item::Pragma { pos: t.pos, text });
                }
                Tok::Dot(_) => self.item(&mut m.items)?,
                _ => return self.expected("a directive"),
            }
        }
        Ok(())
    }

    /// `.version major.minor`: the number's text, split at its dot.
    fn version(&mut self) -> PResult<(u32, u32)> {
        let t = self.next();
        let text = self.src.get(t.start..t.end).unwrap_or("");
        let parsed = match t.tok {
            Tok::F64(_) | Tok::Int(_) => text
                .split_once('.')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?))),
            _ => None,
        };
        parsed.ok_or_else(|| {
            self.error(
                t.pos,
                format!(
                    "expected a version `MAJOR.MINOR`, found {}",
                    t.describe(self.src)
                ),
            )
        })
    }

    /// `.file file_index "filename" {, timestamp, file_size}`.
    fn file(&mut self) -> PResult<(u32, String)> {
        let index = self.u32("a file index")?;
        let name = match self.peek().tok {
            Tok::Str(s) => {
                self.next();
                s.to_string()
            }
            _ => return self.expected("a file name string"),
        };
        if self.eat(Tok::Punct(',')) {
            self.uint("a timestamp")?;
            self.expect_punct(',', "before the file size")?;
            self.uint("a file size")?;
        }
        Ok((index, name))
    }

    /// `.section name { … }`: the text between the braces is kept as written.
    fn section(&mut self, pos: crate::ptx::ast::Pos) -> PResult<Section> {
        let name = match self.peek().tok {
            Tok::Dot(n) => n,
            _ => return self.expected("a section name (`.debug_info`, …)"),
        };
        self.next();
        // The window holds no token past the `{` here: `balanced_text` reads on from it.
        let open = self.peek();
        if open.tok != Tok::Punct('{') {
            return self.expected("`{` opening the section");
        }
        self.next();
        let text = self
            .lexer
            .balanced_text(open.pos)
            .map_err(|(p, m)| self.error(p, m))?;
        Ok(Section {
            pos,
            name: name.to_string(),
            text: text.to_string(),
        })
    }

    /// `"…" ;` after `.pragma`. PTX ISA, ".pragma": "`.pragma "pragma-string";`".
    pub(super) fn pragma_text(&mut self) -> PResult<String> {
        let text = match self.peek().tok {
            Tok::Str(s) => {
                self.next();
                s.to_string()
            }
            _ => return self.expected("a pragma string"),
        };
        self.expect_semi("the `.pragma`")?;
        Ok(text)
    }

    /// A module-scope item: `[linkage] .entry|.func …` or `[linkage] .SPACE … ;`.
    fn item(&mut self, items: &mut Vec<crate::ptx::ast::Item>) -> PResult<()> {
        let start = self.peek();
        let linkage = match start.tok {
            Tok::Dot(n) => linkage(n),
            _ => None,
        };
        if linkage.is_some() {
            self.next();
        }
        match self.peek().tok {
            Tok::Dot("entry") => {
                self.next();
                items.push(Item::Func(self.function(
                    start.pos,
                    linkage,
                    FuncKind::Entry,
                )?));
            }
            Tok::Dot("func") => {
                self.next();
                items.push(Item::Func(self.function(
                    start.pos,
                    linkage,
                    FuncKind::Func,
                )?));
            }
            Tok::Dot(n) if super::decl::state_space(n).is_some() => {
                for d in self.var_decls(start.pos, linkage)? {
                    items.push(Item::Var(d));
                }
            }
            Tok::Dot(n) => {
                let t = self.peek();
                return Err(self.error(t.pos, format!("unknown directive `.{n}`")));
            }
            _ => return self.expected("`.entry`, `.func` or a state space after the linkage"),
        }
        Ok(())
    }

    /// After `.entry` / `.func`: `[( returns )] name [( params )] directives… ({ body } | ;)`.
    fn function(
        &mut self,
        pos: crate::ptx::ast::Pos,
        linkage: Option<Linkage>,
        kind: FuncKind,
    ) -> PResult<Function> {
        self.regs.push(Vec::new());
        let result = self.function_in_scope(pos, linkage, kind);
        self.regs.pop();
        result
    }

    fn function_in_scope(
        &mut self,
        pos: crate::ptx::ast::Pos,
        linkage: Option<Linkage>,
        kind: FuncKind,
    ) -> PResult<Function> {
        let returns = if kind == FuncKind::Func && self.peek().tok == Tok::Punct('(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        let (name, _) = self.ident("the function's name")?;
        let params = if self.peek().tok == Tok::Punct('(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut f = Function {
            pos,
            linkage,
            kind,
            name: name.to_string(),
            returns,
            params,
            directives: Vec::new(),
            pragmas: Vec::new(),
            body: None,
        };
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Punct(';') => {
                    self.next();
                    return Ok(f);
                }
                Tok::Punct('{') => {
                    self.next();
                    f.body = Some(self.block_body(t.pos)?);
                    return Ok(f);
                }
                Tok::Dot("pragma") => {
                    self.next();
                    f.pragmas.push(self.pragma_text()?);
                }
                Tok::Dot(n) => {
                    let Some(&(_, min, max)) = FUNC_DIRECTIVES.iter().find(|d| d.0 == n) else {
                        return Err(self.error(t.pos, format!("unknown directive `.{n}`")));
                    };
                    self.next();
                    let mut args = Vec::new();
                    if min > 0 {
                        loop {
                            args.push(self.uint(&format!("an argument of `.{n}`"))?);
                            if args.len() == max || !self.eat(Tok::Punct(',')) {
                                break;
                            }
                        }
                    }
                    f.directives.push((n.to_string(), args));
                }
                _ => return self.expected("`{` or `;` after the function header"),
            }
        }
    }

    /// `( decl, decl, … )`: parameters or return values; `.reg` ones are registers in the body.
    pub(super) fn param_list(&mut self) -> PResult<Vec<crate::ptx::ast::VarDecl>> {
        self.expect_punct('(', "opening the parameter list")?;
        let mut out = Vec::new();
        if self.eat(Tok::Punct(')')) {
            return Ok(out);
        }
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Dot(n)
                    if matches!(
                        super::decl::state_space(n),
                        Some(StateSpace::Param | StateSpace::Reg)
                    ) =>
                {
                    out.push(self.param_decl(t.pos)?);
                }
                _ => return self.expected("`.param` or `.reg` declaring a parameter"),
            }
            if self.eat(Tok::Punct(')')) {
                return Ok(out);
            }
            self.expect_punct(',', "or `)` in the parameter list")?;
        }
    }
}
