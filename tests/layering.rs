//! Imports flow one way: no two source files of a crate import each other, directly or through
//! others (ARCHITECTURE.md, "The one-way rule").
//!
//! The graph is read from the source text: a file is a module (`a/b.rs` and `a/b/mod.rs` are
//! `a::b`), and every path `crate::…`, `super::…` or `self::…` in it is an edge to the longest
//! module that path names (an item re-exported by `a/mod.rs` counts as an import of `a`). The
//! strongly connected components of that graph with more than one file are import circles.
//!
//! Circles that predated the rule were listed in `KNOWN` (empty since issue 28): a circle may
//! shrink or go, and the test then asks for its entry to shrink too; a new circle, or a known one
//! that grew, fails the test.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Circles present when the test was written, as (crate source root, files): each one was debt to
/// pay off, never a place to add to. Issue 28 paid the last two (`litmus::{async_ops, ir, vulkan,
/// warp}` and `runtime::litmus::{states, thread}`); the list stays so that a circle found later
/// and accepted as debt has a place, shrinking as it is paid.
const KNOWN: &[(&str, &[&str])] = &[];

/// The crates' source roots, relative to the workspace root.
const ROOTS: &[&str] = &["model/src", "src", "gpu-validate/src"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `a/b.rs`, `a/b/mod.rs` → `a::b`; `lib.rs`, `main.rs` → the crate root (`""`).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// Every whole-word `keyword` (ending in its space, as `"mod "`) in `text` followed by a name:
/// (offset of the keyword, the name).
fn named_after<'a>(text: &'a str, keyword: &str) -> Vec<(usize, &'a str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(keyword) {
        let at = from + i;
        from = at + keyword.len();
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = &text[from..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len > 0 {
            out.push((at, &rest[..len]));
        }
    }
    out
}

/// The inline modules (`mod NAME {` … `}`) of a file, as (name, byte range of the body).
fn inline_modules(text: &str) -> Vec<(&str, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    for (at, name) in named_after(text, "mod ") {
        let after = &text[at + 4 + name.len()..];
        if !after.trim_start().starts_with('{') {
            continue; // `mod name;`: a file of its own
        }
        let open = at + 4 + name.len() + after.find('{').unwrap();
        out.push((name, open..matching_brace(text, open)));
    }
    out
}

/// The offset of the `}` closing the `{` at `open` (the text's end if none). Braces are matched
/// by counting, which format strings keep balanced.
fn matching_brace(text: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &b) in text.as_bytes().iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// Every `crate::a::b`, `super::a`, `self::a` path in `text`, as its first keyword, segments and
/// byte offset.
fn paths(text: &str) -> Vec<(&str, Vec<&str>, usize)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for kw in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(kw) {
            let at = from + i;
            from = at + kw.len();
            let boundary =
                at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            if !boundary {
                continue;
            }
            let mut segs = Vec::new();
            let mut rest = &text[at + kw.len()..];
            loop {
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if len == 0 {
                    break;
                }
                segs.push(&rest[..len]);
                rest = &rest[len..];
                match rest.strip_prefix("::") {
                    Some(r) => rest = r,
                    None => break,
                }
            }
            out.push((&kw[..kw.len() - 2], segs, at));
        }
    }
    out
}

/// The import graph of one crate: module → the modules it names.
fn graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeMap<String, PathBuf> = files
        .iter()
        .map(|f| (module_of(root, f), f.clone()))
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = fs::read_to_string(file).unwrap();
        let here: Vec<&str> = if module.is_empty() {
            Vec::new()
        } else {
            module.split("::").collect()
        };
        let inline = inline_modules(&text);
        for (kw, segs, at) in paths(&text) {
            // Inside `mod tests { use super::*; }` the path starts from the inline module.
            let mut within = here.clone();
            within.extend(
                inline
                    .iter()
                    .filter(|(_, body)| body.contains(&at))
                    .map(|(name, _)| *name),
            );
            let mut base: Vec<&str> = match kw {
                "crate" => Vec::new(),
                "super" => within[..within.len().saturating_sub(1)].to_vec(),
                _ => within.clone(),
            };
            let mut target =
                (kw != "self" && modules.contains_key(&base.join("::"))).then(|| base.join("::"));
            for s in segs {
                base.push(s);
                let name = base.join("::");
                if modules.contains_key(&name) {
                    target = Some(name);
                }
            }
            if let Some(t) = target {
                if &t != module {
                    edges.entry(module.clone()).or_default().insert(t);
                }
            }
        }
        edges.entry(module.clone()).or_default();
    }
    edges
}

/// Tarjan's strongly connected components with more than one module, each sorted.
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[v].min(self.low[w]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.low[v].min(self.index[w]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    comp.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
    }
    let mut walk = Walk {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

#[test]
fn no_new_import_circle() {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut total = 0;
    for root in ROOTS {
        for circle in circles(&graph(&ws.join(root))) {
            total += 1;
            println!("{root}: circle of {}: {}", circle.len(), circle.join(", "));
            let within_known = KNOWN
                .iter()
                .any(|(r, known)| r == root && circle.iter().all(|m| known.contains(&m.as_str())));
            if !within_known {
                problems.push(format!(
                    "{root}: new import circle: {} (make imports flow one way; see ARCHITECTURE.md)",
                    circle.join(" ↔ ")
                ));
            }
        }
    }
    for (root, known) in KNOWN {
        let now = circles(&graph(&ws.join(root)));
        let still = now
            .iter()
            .any(|c| c.len() == known.len() && c.iter().all(|m| known.contains(&m.as_str())));
        if !still {
            problems.push(format!(
                "{root}: the known circle {} changed or went away: shrink its KNOWN entry to what \
                 is left (or remove it)",
                known.join(", ")
            ));
        }
    }
    println!("{total} import circle(s) of more than one file");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_graph_reader_resolves_paths_to_the_longest_module() {
    let p = paths("use crate::runtime::machine::Machine; use super::x; let y = self::z::w;");
    assert_eq!(p.len(), 3);
    assert_eq!(p[0], ("crate", vec!["runtime", "machine", "Machine"], 4));
    assert_eq!(p[1], ("super", vec!["x"], 42));
    assert_eq!(p[2], ("self", vec!["z", "w"], 60));
    // Inside an identifier the keyword is no path.
    assert!(paths("notcrate::x").is_empty());
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(circles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
    // `super` inside an inline module is the file's own module: no edge out of the file.
    let text = "mod kernel { use super::Row; }\nmod file;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}";
    let inline = inline_modules(text);
    let names: Vec<&str> = inline.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["kernel", "tests"]);
    let (_, _, at) = paths(text)[0];
    assert!(inline[0].1.contains(&at) && !inline[1].1.contains(&at));
}

/// The runtime's floors (`model/src/runtime/mod.rs`, "Layering"), as files under [`RUNTIME`].
const RUNTIME: &str = "model/src/runtime";

/// Floor 2, the core: it imports only plain data (and other core files) and calls no method
/// that a feature or the running floor defines.
const CORE: &[&str] = &[
    "machine.rs",
    "access.rs",
    "race.rs",
    "hang.rs",
    "ctx.rs",
    "advice.rs",
    "hooks.rs",
];

/// Floor 1, plain data, besides each feature's `state` module; `panics.rs` imports nothing.
const PLAIN_DATA: &[&str] = &[
    "view.rs",
    "memory.rs",
    "sync.rs",
    "report.rs",
    "setup.rs",
    "sched.rs",
    "describe.rs",
    "async_groups.rs",
    "panics.rs",
];

/// The bodies of a file's inherent `impl` blocks of a type whose last path segment is one of
/// `types` (`impl Machine {`, `impl super::Ctx {`; a trait's `impl … for …` is not one).
fn impl_bodies<'a>(text: &'a str, types: &[&str]) -> Vec<&'a str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("impl ") {
        let at = from + i;
        from = at + 5;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = text[at + 5..].trim_start();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let ty = rest[..len].rsplit("::").next().unwrap_or("");
        if !types.contains(&ty) || !rest[len..].trim_start().starts_with('{') {
            continue;
        }
        let open = text.len() - rest.len() + len + rest[len..].find('{').unwrap();
        out.push(&text[open + 1..matching_brace(text, open)]);
    }
    out
}

/// The names of the `fn`s defined in `body`.
fn fn_names(body: &str) -> Vec<&str> {
    named_after(body, "fn ")
        .into_iter()
        .map(|(_, name)| name)
        .collect()
}

/// Where `code` calls or names one of `methods`: `.NAME(`, or `Machine::NAME`, `Ctx::NAME`,
/// `Self::NAME` as a whole name, outside `//` comments. Returns (line from 1, name).
fn calls_by_name<'a>(code: &str, methods: &BTreeSet<&'a str>) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        for &name in methods {
            let whole =
                |after: &str| !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            let called = line.contains(&format!(".{name}("));
            let named = ["Machine::", "Ctx::", "Self::"].iter().any(|ty| {
                let path = format!("{ty}{name}");
                line.match_indices(&path)
                    .any(|(i, _)| whole(&line[i + path.len()..]))
            });
            if called || named {
                out.push((n + 1, name));
            }
        }
    }
    out
}

/// The runtime's files, relative to [`RUNTIME`] with `/` separators, and their text.
fn runtime_files(ws: &Path) -> Vec<(String, String)> {
    let root = ws.join(RUNTIME);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&root).unwrap().to_string_lossy();
            (rel.replace('\\', "/"), fs::read_to_string(f).unwrap())
        })
        .collect()
}

/// Issue 28: the core calls no feature by name. A feature hears of accesses, stores, exits and
/// hangs through the hooks it registers (`runtime/hooks.rs`, registered in
/// `runtime/features.rs`); a core file that calls a method of `Machine` or `Ctx` written in a
/// feature file (or on the running floor) fails this test.
#[test]
fn the_runtime_core_calls_no_feature_by_name() {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = runtime_files(ws);
    for core in CORE {
        assert!(
            files.iter().any(|(f, _)| f == core),
            "{RUNTIME}/{core} is gone: update CORE (and the runtime's Layering doc)"
        );
    }
    let mut defined: BTreeMap<&str, &str> = BTreeMap::new();
    for (file, text) in files.iter().filter(|(f, _)| !CORE.contains(&f.as_str())) {
        for body in impl_bodies(text, &["Machine", "Ctx"]) {
            for name in fn_names(body) {
                defined.entry(name).or_insert(file);
            }
        }
    }
    assert!(
        defined.len() > 20,
        "found only {} feature methods: the reader no longer sees the features' `impl Machine` \
         blocks",
        defined.len()
    );
    let names: BTreeSet<&str> = defined.keys().copied().collect();
    let mut problems = Vec::new();
    for (file, text) in files.iter().filter(|(f, _)| CORE.contains(&f.as_str())) {
        for (line, name) in calls_by_name(text, &names) {
            problems.push(format!(
                "{RUNTIME}/{file}:{line}: the core calls `{name}`, defined in {RUNTIME}/{}: \
                 register a hook for it in runtime/features.rs instead (runtime/hooks.rs)",
                defined[name]
            ));
        }
    }
    println!(
        "{} core files, {} methods of features and the running floor, {} calls by name",
        CORE.len(),
        names.len(),
        problems.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The core imports no feature and nothing of the running floor: only plain data (each
/// feature's `state` module included), other core files and modules outside the runtime.
#[test]
fn the_runtime_core_imports_only_plain_data() {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"));
    let module = |file: &str| format!("runtime::{}", file.trim_end_matches(".rs"));
    let allowed = |target: &str| {
        let Some(inner) = target.strip_prefix("runtime::") else {
            return target != "runtime";
        };
        let file = format!("{inner}.rs");
        inner.ends_with("::state")
            || CORE.contains(&file.as_str())
            || PLAIN_DATA.contains(&file.as_str())
    };
    let g = graph(&ws.join("model/src"));
    let mut problems = Vec::new();
    for core in CORE {
        let edges = g
            .get(&module(core))
            .unwrap_or_else(|| panic!("{RUNTIME}/{core} is gone: update CORE"));
        for target in edges.iter().filter(|t| !allowed(t)) {
            problems.push(format!(
                "{RUNTIME}/{core} imports {target}: the core imports only plain data (see the \
                 runtime's Layering doc)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_call_reader_finds_feature_methods_and_calls_to_them() {
    let feature =
        "impl Machine {\n    pub(super) fn token_check(&mut self) {}\n    fn helper(&self) {}\n}\n\
                   impl fmt::Display for Machine { fn fmt(&self) {} }\n\
                   impl super::Ctx {\n    pub fn token_begin(&self) { let f = |x| x; }\n}\n\
                   fn free() {}";
    let bodies = impl_bodies(feature, &["Machine", "Ctx"]);
    assert_eq!(bodies.len(), 2, "trait impls are not read");
    let names: BTreeSet<&str> = bodies.iter().flat_map(|b| fn_names(b)).collect();
    assert_eq!(
        names,
        BTreeSet::from(["helper", "token_begin", "token_check"])
    );
    let core = "fn race_check(&mut self) {\n    self.token_check(t)?;\n    // self.helper() in a \
                comment\n    let h = Machine::helper;\n    self.token_checks(t);\n    \
                Self::token_begin_all();\n}";
    assert_eq!(
        calls_by_name(core, &names),
        vec![(2, "token_check"), (4, "helper")]
    );
}

/// The modules of the dialects other than PTX's, whose front ends lower into the litmus IR.
const DIALECT_MODULES: &[&str] = &["vulkan", "opencl"];

/// Whether a module is (or lies within) a dialect's module.
fn is_dialect_module(module: &str) -> bool {
    module.split("::").any(|s| DIALECT_MODULES.contains(&s))
}

/// The lines (1-based) of `text` whose code, comments left out, names a dialect: a word holding
/// `vulkan` or `opencl` in any case (a module path, `VulkanOp`, `OpenClTest`, ...).
fn lines_naming_a_dialect(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or("").to_ascii_lowercase();
            DIALECT_MODULES.iter().any(|d| code.contains(d))
        })
        .map(|(i, _)| i + 1)
        .collect()
}

/// Issue 28: the litmus IR knows no dialect. Neither `litmus/ir.rs` nor a file under
/// `litmus/ir/` imports a dialect's module, directly or through the modules it imports, nor
/// names one in its code: each front end lowers into the IR's plain data (qualifiers, groups,
/// thread relations), never the other way round.
#[test]
fn the_litmus_ir_names_no_dialect() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("model/src");
    let g = graph(&root);
    let ir: Vec<&String> = g
        .keys()
        .filter(|m| *m == "litmus::ir" || m.starts_with("litmus::ir::"))
        .collect();
    assert!(
        ir.len() > 1 && ir.iter().any(|m| *m == "litmus::ir"),
        "the IR's modules were not found: {ir:?}"
    );
    let mut problems = Vec::new();
    // Every module the IR reaches through its imports.
    let mut seen = BTreeSet::new();
    let mut stack: Vec<(&String, &String)> = ir.iter().map(|m| (*m, *m)).collect();
    while let Some((from, m)) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        for t in g.get(m).into_iter().flatten() {
            if is_dialect_module(t) {
                problems.push(format!(
                    "{m} (reached from {from}) imports the dialect module {t}"
                ));
            }
            stack.push((from, t));
        }
    }
    let mut files = vec![root.join("litmus/ir.rs")];
    rust_files(&root.join("litmus/ir"), &mut files);
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for line in lines_naming_a_dialect(&text) {
            problems.push(format!("{}:{line} names a dialect", file.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_dialect_check_sees_imports_and_names_but_not_comments() {
    assert!(is_dialect_module("litmus::opencl::ast") && is_dialect_module("litmus::vulkan"));
    assert!(!is_dialect_module("litmus::ir::front") && !is_dialect_module("litmus::warp"));
    let text = "use super::vulkan::VulkanOp;\n/// An OpenCL word in a doc.\npub x: Option<OpenClTest>, // vulkan\nlet y = 1; // opencl\n";
    assert_eq!(lines_naming_a_dialect(text), [1, 3]);
}
