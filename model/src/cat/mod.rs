//! Memory models as cat text (herd7's model language), interpreted over the axiomatic engine's
//! bit-matrix relations.
//!
//! A model is one page of definitions and checks (see [`syntax`] for the language). It starts
//! with these names, all computed by the engine for each candidate execution:
//!
//! | name | meaning |
//! |---|---|
//! | `_`, `R`, `W`, `M`, `F`, `IW`, `RMW`, `BAR` | every event, reads, writes, memory events, fences, initial writes, the events of read-modify-writes, barriers |
//! | `WEAK`, `RLX`, `ACQ`, `REL`, `ACQ_REL`, `SC` | each event's own memory order (`.weak` accesses and initial writes, `.relaxed`, `.acquire`, `.release`, `.acq_rel` accesses and fences, `fence.sc`) |
//! | `CTA`, `CLUSTER`, `GPU`, `SYS` | each event's own scope |
//! | `GEN`, `SUR`, `TEX`, `CON`, `ASYNC` | proxies: accesses through each and the proxy fences of each (`GEN` also holds `fence.sc` and `fence.acq_rel`) |
//! | `ALIAS` | `fence.proxy.alias` |
//! | `id`, `po`, `int`, `ext` | identity, program order, same thread, different threads |
//! | `loc`, `vloc`, `po-loc` | same physical location, same virtual (generic) address, `po & loc` |
//! | `rmw`, `dep` | read to write of one read-modify-write; address, data and control dependencies |
//! | `sr`, `scta` | same scope (each event's scope includes the other's thread), same CTA |
//! | `token-order` | Tile IR token order (without tokens: `rmw`) |
//! | `BULK`, `issue`, `copy` | PTX bulk copies: their events (in no `po`), from the issuing thread's earlier events to a copy's events, within one copy |
//! | `bulk-wait` | from the events of a `.bulk_group` bulk copy to its thread's events from the `cp.async.bulk.wait_group` that waited for it on (for the source read, also a `wait_group.read`) |
//! | `cluster-barrier` | from a `barrier.cluster.arrive` to the `barrier.cluster.wait`s of the other threads of its instance (the k-th arrive of each thread of a cluster, a wait joining its thread's latest arrive's) |
//! | `MBINIT`, `FMBINIT` | `mbarrier.init` writes; `fence.mbarrier_init.release.cluster` fences (also in `F`, `REL`, `CLUSTER`) |
//! | `fence-space` | from a proxy fence to the memory events of the state space it names (`fence.proxy.async.global`, `.shared::cta`, `.shared::cluster`; every one for the others) |
//! | `rf`, `co`, `fr` | the execution's reads-from, coherence and from-reads |
//! | `sync_fence` | the fence.sc order between pairs of `ms` (below) |
//! | `sync_barrier` | barrier synchronization: each barrier with the `bar.sync`s of its instance |
//! | `ATOM` | atomic accesses (Vulkan `.atom`, OpenCL's atomic functions) |
//! | `WG`, `DV` | Vulkan workgroup and device scope, OpenCL `memory_scope_work_group` and `memory_scope_device` |
//! | `WI`, `ALL` | OpenCL `memory_scope_work_item`, `memory_scope_all_svm_devices` |
//! | `GLOBAL`, `LOCAL` | OpenCL: accesses to global (local) memory, fences with `CLK_GLOBAL_MEM_FENCE` (`CLK_LOCAL_MEM_FENCE`) |
//! | `NAL` | OpenCL: accesses to a non-atomic object (no declaration gives the location an atomic type) |
//! | `swg`, `sdv` | same work-group (Vulkan workgroup instance, OpenCL `wg`), same device (`gpu`, OpenCL `dev`) |
//!
//! The engine reads three names a model may bind: `ms` (static: the pairs the fence.sc order
//! relates, the PTX spec's *morally strong* pairs; without it every pair of fences), `sync`
//! (shown as synchronization in witnesses), and every `flag` (a raised flag, such as a data
//! race, is reported with its pairs, never a consistency failure).
//!
//! How the enumeration prunes is read from the checks' text, never from the model's name:
//! - a check is *per location* when it reads only `rf`, `co` and `fr`, monotonically (no `\` or
//!   `~` over them), and relates only events of one location (built from same-location
//!   communication, `po-loc`, `loc`, `rmw`, identities, and intersections with those): it is
//!   checked as each location's choices are made, and every completion of a failing prefix is
//!   dropped;
//! - the others are *global*, checked on complete candidates; when the model gives the
//!   enumeration no causality order (below), those monotone in the choices (and not negated)
//!   are also checked on the choices made so far, location by location: a failing prefix
//!   fails with every completion;
//! - `irreflexive (rf | fr) ; C` (Causality) together with `empty (([W]; C; [W]) & loc) \ co`
//!   (Coherence), for one relation `C` that reads neither `co` nor `fr`, makes `C` the
//!   causality order the enumeration derives required coherence pairs from;
//! - `acyclic rf | dep` (also with more static relations in the union) forbids values out of
//!   thin air, so the engine skips valuations whose values flow in a cycle. Without it, a cycle
//!   of reads-from and data flow may justify any value (as Dartagnan's SMT encoding lets it),
//!   unless the title is followed by the option `withoutthinair`: the model's executions may
//!   have such cycles, but their values are values the program's writes produce.

pub mod checker;
pub mod compile;
pub mod env;
pub mod eval;
pub mod registry;
pub mod syntax;

use crate::diagnostic;
use compile::{CheckKind, Choice, Compiled, Op};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// A model the engine cannot read, with the place to blame: `Display` gives the one line
/// `file:line:col: message`, [`CatError::render`] adds the source line with the place
/// underlined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatError {
    /// The model file (or built-in model) the error is in, as it was named.
    pub file: String,
    /// The line of the error, from 1.
    pub line: usize,
    /// The column of the error, from 1, in characters.
    pub col: usize,
    /// What is wrong, on one line.
    pub message: String,
    /// The text of line `line` of `file`, for the snippet (empty when unknown or too long).
    pub source_line: String,
}

impl CatError {
    /// An error at `pos` of `file`; the compiler adds the source line ([`CatError::in_text`]).
    pub fn at(file: &str, pos: syntax::Pos, message: String) -> CatError {
        CatError {
            file: file.to_string(),
            line: pos.line,
            col: pos.col,
            message: diagnostic::one_line(&message),
            source_line: String::new(),
        }
    }

    /// An error about a whole file (one it cannot read, a definition it lacks): at its start.
    pub fn whole_file(file: &str, message: String) -> CatError {
        CatError::at(file, syntax::Pos { line: 1, col: 1 }, message)
    }

    /// The error with its source line taken from `text`, when `text` is the text of the file
    /// the error is in and the line is not known yet.
    pub fn in_text(mut self, file: &str, text: &str) -> CatError {
        if self.file == file && self.source_line.is_empty() {
            let line = text.lines().nth(self.line.saturating_sub(1)).unwrap_or("");
            self.source_line = diagnostic::shown_line(line);
        }
        self
    }

    /// The `file:line:col: message` line, then the source line with the offending token
    /// underlined ([`crate::diagnostic::snippet`]), as litmus errors print.
    pub fn render(&self) -> String {
        let snippet = diagnostic::snippet(
            &self.file,
            self.line,
            self.col,
            diagnostic::token_width(&self.source_line, self.col),
            &self.source_line,
            &self.message,
        );
        match snippet.is_empty() {
            true => self.to_string(),
            false => format!("{self}\n{snippet}"),
        }
    }
}

impl fmt::Display for CatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for CatError {}

/// A built-in model's or model fragment's text, by its name with or without `.cat`
/// ([`registry::MODELS`], [`registry::FRAGMENTS`]).
pub fn builtin_text(name: &str) -> Option<&'static str> {
    registry::find(name).map(|m| m.text).or_else(|| {
        registry::FRAGMENTS
            .iter()
            .find(|(file, _)| *file == name || file.strip_suffix(".cat") == Some(name))
            .map(|(_, text)| *text)
    })
}

/// The relation the enumeration may take as causality, and the sets the Coherence check
/// restricts it to (`[before]; C; [after]`).
#[derive(Clone, Debug)]
struct CauseForm {
    cause: usize,
    before: Option<usize>,
    after: Option<usize>,
}

/// A compiled cat model, classified for the enumeration.
#[derive(Clone, Debug)]
pub struct CatModel {
    name: String,
    compiled: Compiled,
    /// Nodes some check or the engine may ask for.
    needed: Vec<bool>,
    local: Vec<usize>,
    global: Vec<usize>,
    /// The global checks partial choices can already fail: monotone in the choices, not
    /// negated.
    partial: Vec<usize>,
    flags: Vec<usize>,
    cause: Option<CauseForm>,
    thin_air: bool,
    ms: Option<usize>,
    sync: Option<usize>,
}

impl CatModel {
    /// Compiles model text; `file` names it in errors and locates its includes.
    pub fn parse(file: &str, text: &str) -> Result<CatModel, CatError> {
        let compiled = compile::compile(file, text, &compile::Files)?;
        let name = Path::new(file)
            .file_name()
            .map_or(file.to_string(), |f| f.to_string_lossy().into_owned());
        let name = name.strip_suffix(".cat").unwrap_or(&name).to_string();
        Self::classify(name, compiled, file)
    }

    /// Reads and compiles a model file.
    pub fn load(path: &Path) -> Result<CatModel, CatError> {
        let file = path.display().to_string();
        let text = crate::input::read_text(path)
            .map_err(|e| CatError::whole_file(&file, format!("cannot read the model: {e}")))?;
        Self::parse(&file, &text)
    }

    /// A built-in model or fragment by name (`ptx-v7.5`, `ptx-v6.0`, `tile-ir`, with or without
    /// `.cat`; see [`registry`]), named after its registered name.
    pub fn builtin(name: &str) -> Option<CatModel> {
        let text = builtin_text(name)?;
        let bare = name.strip_suffix(".cat").unwrap_or(name);
        let file = format!("{}.cat", registry::find(name).map_or(bare, |m| m.name));
        Some(Self::parse(&file, text).unwrap_or_else(|e| panic!("built-in model: {e}")))
    }

    fn classify(name: String, compiled: Compiled, file: &str) -> Result<CatModel, CatError> {
        let nodes = &compiled.nodes;
        let ms = compiled.bindings.get("ms").copied();
        if let Some(i) = ms {
            if nodes[i].reads != 0 {
                return Err(CatError::whole_file(
                    file,
                    "`ms` (the pairs the fence.sc order relates) must not read rf, co, fr or the synchronization".into(),
                ));
            }
        }
        let sync = compiled.bindings.get("sync").copied();
        let communication = Choice::Rf as u8 | Choice::Co as u8 | Choice::Fr as u8;
        let (mut local, mut global, mut flags) = (Vec::new(), Vec::new(), Vec::new());
        for (c, check) in compiled.checks.iter().enumerate() {
            let node = &nodes[check.node];
            if check.flag {
                flags.push(c);
            } else if node.reads != 0
                && node.reads & !communication == 0
                && node.monotone
                && node.local
                && !check.negated
            {
                local.push(c);
            } else {
                global.push(c);
            }
        }
        let partial = global
            .iter()
            .copied()
            .filter(|&c| {
                let check = &compiled.checks[c];
                let node = &nodes[check.node];
                node.reads != 0 && node.monotone && !check.negated
            })
            .collect();
        let cause = find_cause(&compiled);
        let thin_air = compiled.checks.iter().any(|c| {
            if c.flag || c.negated || c.kind != CheckKind::Acyclic {
                return false;
            }
            let mut leaves = Vec::new();
            union_leaves(&compiled, c.node, &mut leaves);
            let has = |op: Op| leaves.iter().any(|&l| nodes[l].op == op);
            has(Op::Choice(Choice::Rf))
                && has(Op::Base(compile::Base::Dep))
                && leaves
                    .iter()
                    .all(|&l| nodes[l].op == Op::Choice(Choice::Rf) || nodes[l].reads == 0)
        });
        // Everything reachable from the checks and the names the engine reads.
        let mut needed = vec![false; nodes.len()];
        let mut stack: Vec<usize> = compiled.checks.iter().map(|c| c.node).collect();
        stack.extend(ms.iter().chain(&sync));
        if let Some(c) = &cause {
            stack.extend([Some(c.cause), c.before, c.after].into_iter().flatten());
        }
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut needed[i], true) {
                continue;
            }
            stack.extend(operands(&compiled, i));
        }
        Ok(CatModel {
            name,
            compiled,
            needed,
            local,
            global,
            partial,
            flags,
            cause,
            thin_air,
            ms,
            sync,
        })
    }

    /// The model's name: its file name without `.cat`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names of the model's flags (`flag ... as NAME`), in the order of the model text.
    pub fn flag_names(&self) -> Vec<&'static str> {
        self.flags
            .iter()
            .map(|&c| self.compiled.checks[c].name)
            .collect()
    }

    /// The string the model file starts with, if any.
    pub fn title(&self) -> Option<&str> {
        self.compiled.title.as_deref()
    }

    /// The checks' names, each with whether it is checked per location (see the module
    /// documentation), and whether it is a flag.
    pub fn checks(&self) -> Vec<(&'static str, CheckClass)> {
        self.compiled
            .checks
            .iter()
            .enumerate()
            .map(|(c, check)| {
                let class = if self.flags.contains(&c) {
                    CheckClass::Flag
                } else if self.local.contains(&c) {
                    CheckClass::PerLocation
                } else {
                    CheckClass::Global
                };
                (check.name, class)
            })
            .collect()
    }

    /// Whether the model reads one of the base sets or relations named `names` (a front end's
    /// own, such as Vulkan's `AV` or OpenCL's `GLOBAL`): a model that reads none of a
    /// dialect's own names cannot tell its tests' qualifiers apart, so it is no model of that
    /// dialect.
    pub fn reads_any(&self, names: &[&str]) -> bool {
        let named: Vec<compile::Base> = compile::BASE_NAMES
            .iter()
            .filter(|(name, _, _)| names.contains(name))
            .map(|&(_, b, _)| b)
            .collect();
        self.reads_base(|b| named.contains(&b))
    }

    fn reads_base(&self, which: impl Fn(compile::Base) -> bool) -> bool {
        // The nodes the checks read (every base name has a node, read or not).
        self.compiled
            .nodes
            .iter()
            .zip(&self.needed)
            .any(|(n, &needed)| needed && matches!(n.op, Op::Base(b) if which(b)))
    }

    /// Whether a check forbids values out of thin air (`acyclic rf | dep`).
    pub fn forbids_thin_air(&self) -> bool {
        self.thin_air
    }

    /// Whether a cycle of reads-from and data flow may justify any value: no check forbids
    /// the cycles and the model does not say `withoutthinair` after its title.
    pub fn thin_air_values(&self) -> bool {
        !self.thin_air
            && !self
                .compiled
                .options
                .contains(&syntax::ModelOption::WithoutThinAir)
    }

    /// Whether the enumeration gets a causality order from the model's checks.
    pub fn has_causality(&self) -> bool {
        self.cause.is_some()
    }

    /// The model prepared for one set of events.
    pub fn prepare(
        self: &Arc<Self>,
        ev: &crate::axiomatic::execution::Events,
    ) -> checker::CatChecker {
        checker::CatChecker::new(Arc::clone(self), ev)
    }
}

/// How the enumeration checks one of a model's checks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CheckClass {
    /// Checked as each location's choices are made (see the module documentation).
    PerLocation,
    /// Checked on complete candidate executions (and on partial ones where monotone).
    Global,
    /// A `flag`: reported when raised, never a consistency failure.
    Flag,
}

fn operands(m: &Compiled, i: usize) -> Vec<usize> {
    match m.nodes[i].op {
        Op::Fix(g, _) => {
            let group = &m.groups[g];
            group.bodies.iter().chain(&group.vars).copied().collect()
        }
        op => op.operands().collect(),
    }
}

fn union_leaves(m: &Compiled, i: usize, out: &mut Vec<usize>) {
    match m.nodes[i].op {
        Op::Union(a, b) => {
            union_leaves(m, a, out);
            union_leaves(m, b, out);
        }
        _ => out.push(i),
    }
}

/// Causality and Coherence in the forms the enumeration relies on (module documentation).
fn find_cause(m: &Compiled) -> Option<CauseForm> {
    let nodes = &m.nodes;
    let is = |i: usize, c: Choice| nodes[i].op == Op::Choice(c);
    let plain = |c: &compile::Check| !c.flag && !c.negated;
    let causes = m.checks.iter().filter(|c| plain(c)).filter_map(|c| {
        let Op::Seq(a, cause) = nodes[c.node].op else {
            return None;
        };
        let Op::Union(x, y) = nodes[a].op else {
            return None;
        };
        let rf_fr =
            (is(x, Choice::Rf) && is(y, Choice::Fr)) || (is(x, Choice::Fr) && is(y, Choice::Rf));
        let reads_co_fr = nodes[cause].reads & (Choice::Co as u8 | Choice::Fr as u8) != 0;
        (c.kind == CheckKind::Irreflexive && rf_fr && !reads_co_fr && nodes[cause].monotone)
            .then_some(cause)
    });
    let causes: Vec<usize> = causes.collect();
    let static_identity = |i: usize| match nodes[i].op {
        Op::Identity(s) if nodes[s].reads == 0 && nodes[s].rec.is_none() => Some(s),
        _ => None,
    };
    // `[S1] ; C ; [S2]` in either grouping, each identity optional.
    let restricted = |e: usize, cause: usize| -> Option<(Option<usize>, Option<usize>)> {
        if e == cause {
            return Some((None, None));
        }
        let Op::Seq(a, b) = nodes[e].op else {
            return None;
        };
        if let Some(s) = static_identity(a) {
            if b == cause {
                return Some((Some(s), None));
            }
            if let Op::Seq(c, d) = nodes[b].op {
                if c == cause {
                    return static_identity(d).map(|t| (Some(s), Some(t)));
                }
            }
        }
        if let Some(t) = static_identity(b) {
            if a == cause {
                return Some((None, Some(t)));
            }
            if let Op::Seq(c, d) = nodes[a].op {
                if d == cause {
                    return static_identity(c).map(|s| (Some(s), Some(t)));
                }
            }
        }
        None
    };
    for check in m
        .checks
        .iter()
        .filter(|c| plain(c) && c.kind == CheckKind::Empty)
    {
        let Op::Diff(e, co) = nodes[check.node].op else {
            continue;
        };
        if !is(co, Choice::Co) {
            continue;
        }
        let Op::Inter(p, q) = nodes[e].op else {
            continue;
        };
        // `loc`, or `loc \ id` (the enumeration requires distinct writes only).
        let loc = |i: usize| match nodes[i].op {
            Op::Base(compile::Base::Loc) => true,
            Op::Diff(l, id) => {
                nodes[l].op == Op::Base(compile::Base::Loc)
                    && nodes[id].op == Op::Base(compile::Base::Id)
            }
            _ => false,
        };
        let other = match (loc(p), loc(q)) {
            (true, _) => q,
            (_, true) => p,
            _ => continue,
        };
        for &cause in &causes {
            if let Some((before, after)) = restricted(other, cause) {
                return Some(CauseForm {
                    cause,
                    before,
                    after,
                });
            }
        }
    }
    None
}
