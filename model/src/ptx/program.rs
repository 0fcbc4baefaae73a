//! A PTX module made ready to interpret: every function's statements flattened into one list of
//! decoded instructions (labels resolved to indices once per module, nested `{ }` scopes opened,
//! each instruction with its site: PTX `line:col` and the CUDA `file:line` of the last `.loc`),
//! its registers numbered, and the module's variables collected.

use super::ast::{FuncKind, Init, Item, Module, Operand, StateSpace, Statement, VarDecl};
use super::decode::{self, Names, Op, Space};
use super::value::Ty;
use crate::runtime::report::Site;

/// A decoded instruction with its guard and site.
#[derive(Clone, Debug)]
pub struct Step {
    /// The operation.
    pub op: Op,
    /// `@p` (`false`) / `@!p` (`true`): the register and whether it is negated.
    pub guard: Option<(u32, bool)>,
    /// Where it is.
    pub site: Site,
}

/// A `.param` variable of a function: a parameter, a return value, or one declared in its body
/// (the arguments and results of the calls it makes).
#[derive(Clone, Debug)]
pub struct ParamSlot {
    /// The name.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// The scalar type, when declared with one (`.u64`), `None` for `.b8 p[16]` aggregates.
    pub ty: Option<Ty>,
}

/// A function ready to run.
#[derive(Clone, Debug)]
pub struct Func {
    /// The name.
    pub name: String,
    /// `.entry` or `.func`.
    pub kind: FuncKind,
    /// Registers (numbered as declared).
    pub nregs: usize,
    /// `.param` slots: the parameters first, then the returns, then the body's.
    pub params: Vec<ParamSlot>,
    /// How many of `params` are parameters.
    pub n_params: usize,
    /// How many of `params` after them are returns.
    pub n_returns: usize,
    /// The instructions.
    pub code: Vec<Step>,
    /// The function's `.local` variables (indices into [`Program::vars`]), allocated per call.
    pub locals: Vec<usize>,
    /// Where the definition starts.
    pub site: Site,
    /// Per instruction, whether a backward branch (`bra` to it from at or after it) targets it
    /// across an `mbarrier.try_wait`/`test_wait`: the head of a loop that may be one blocking
    /// wait, where a round of the loop starts.
    pub loop_heads: Vec<bool>,
}

/// A variable in addressable memory: module scope, or a function's `.local`/`.shared`.
#[derive(Clone, Debug)]
pub struct Var {
    /// The name.
    pub name: String,
    /// Its state space (`Global`, `Shared`, `Const`, `Local`).
    pub space: Space,
    /// Size in bytes (0 for `extern .shared … []`: the dynamic shared memory).
    pub size: u64,
    /// `.align`, or the element size.
    pub align: u64,
    /// The declared element type.
    pub elem: Ty,
    /// `.extern .shared .b8 x[]`: the launch's dynamic shared memory.
    pub dynamic: bool,
    /// Initial bytes (`= {…}`), little-endian; empty when not initialised.
    pub init: Vec<u8>,
    /// Where it is declared.
    pub site: Site,
}

/// A module ready to interpret.
#[derive(Clone, Debug)]
pub struct Program {
    /// The PTX file.
    pub path: String,
    /// Functions with a body.
    pub funcs: Vec<Func>,
    /// Addressable variables.
    pub vars: Vec<Var>,
}

/// An error with its PTX position (and CUDA line) already in the message.
pub type Error = String;

impl Program {
    /// Flatten and decode every function of `module` (`path` names it in sites and errors).
    /// Any instruction the decoder does not know is an error naming it, its `path:line:col`,
    /// and the CUDA line of the `.loc` before it.
    pub fn new(module: &Module, path: &str) -> Result<Program, Error> {
        let mut vars = Vec::new();
        let mut names = Names::default();
        let bodies: Vec<_> = module
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Func(f) if f.body.is_some() => Some(f),
                _ => None,
            })
            .collect();
        for (i, f) in bodies.iter().enumerate() {
            names.funcs.insert(f.name.clone(), i);
        }
        for item in &module.items {
            if let Item::Var(v) = item {
                let site = Site::ptx(path, v.pos.line, v.pos.col, None);
                if let Some(var) = var_of(v, site)? {
                    names.vars.insert(v.name.clone(), vars.len());
                    vars.push(var);
                }
            }
        }
        let mut funcs = Vec::new();
        for f in bodies {
            let mut fnames = Names {
                funcs: names.funcs.clone(),
                vars: names.vars.clone(),
                ..Names::default()
            };
            let site = Site::ptx(path, f.pos.line, f.pos.col, None);
            let mut params = Vec::new();
            for p in f.params.iter().chain(&f.returns) {
                fnames.params.insert(p.name.clone(), params.len());
                params.push(param_slot(p, site)?);
            }
            let body = f.body.as_deref().unwrap_or_default();
            let mut b = Builder {
                path,
                module,
                names: fnames,
                params,
                vars: &mut vars,
                locals: Vec::new(),
                code: Vec::new(),
                count: 0,
                loc: None,
            };
            b.declare(body)?;
            b.emit(body)?;
            // Only a loop with an mbarrier wait in it can be one blocking wait (the await
            // check, `exec::awaits`): the interpreter snapshots a thread's state at these heads
            // alone, not at the head of every loop of every kernel.
            let waits = |from: usize, to: usize| {
                b.code[from..=to]
                    .iter()
                    .any(|s| matches!(s.op, Op::Async(decode::AsyncOp::MbarWait { .. })))
            };
            let mut loop_heads = vec![false; b.code.len()];
            for (at, step) in b.code.iter().enumerate() {
                if let Op::Bra(target) = step.op {
                    if target <= at && target < loop_heads.len() && waits(target, at) {
                        loop_heads[target] = true;
                    }
                }
            }
            funcs.push(Func {
                name: f.name.clone(),
                kind: f.kind,
                nregs: b.names.regs.len(),
                n_params: f.params.len(),
                n_returns: f.returns.len(),
                params: b.params,
                code: b.code,
                locals: b.locals,
                site,
                loop_heads,
            });
        }
        Ok(Program {
            path: path.to_string(),
            funcs,
            vars,
        })
    }

    /// Which runtime objects the asynchronous instructions need: `(mbarriers, copies)`: whether
    /// any instruction operates on an mbarrier (`mbarrier.*`, `cp.async.mbarrier.arrive`, a
    /// bulk copy into shared memory), and whether any issues an asynchronous copy (which a
    /// CTA's copy agent performs).
    pub fn async_use(&self) -> (bool, bool) {
        use super::decode::AsyncOp as A;
        let ops = self
            .funcs
            .iter()
            .flat_map(|f| &f.code)
            .filter_map(|s| match &s.op {
                Op::Async(a) => Some(a),
                _ => None,
            });
        let (mut mbarriers, mut copies) = (false, false);
        for a in ops {
            match a {
                A::MbarInit { .. }
                | A::MbarArrive { .. }
                | A::MbarExpectTx { .. }
                | A::MbarWait { .. }
                | A::MbarInval { .. }
                | A::CpAsyncMbarArrive { .. } => mbarriers = true,
                A::BulkToShared { .. } | A::TensorToShared { .. } => {
                    (mbarriers, copies) = (true, true)
                }
                A::CpAsync { .. } | A::BulkToGlobal { .. } | A::TensorToGlobal { .. } => {
                    copies = true
                }
                _ => {}
            }
        }
        (mbarriers, copies)
    }

    /// The kernel to launch: `entry`, or the module's only `.entry`.
    pub fn entry(&self, entry: Option<&str>) -> Result<usize, Error> {
        let entries: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| self.funcs[i].kind == FuncKind::Entry)
            .collect();
        match entry {
            Some(name) => entries
                .iter()
                .copied()
                .find(|&i| self.funcs[i].name == name)
                .ok_or_else(|| format!("{}: no .entry named `{name}`", self.path)),
            None => match entries[..] {
                [one] => Ok(one),
                [] => Err(format!("{}: the module has no .entry", self.path)),
                _ => Err(format!(
                    "{}: the module has several kernels ({}); choose one with --entry",
                    self.path,
                    entries
                        .iter()
                        .map(|&i| self.funcs[i].name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            },
        }
    }
}

struct Builder<'a> {
    path: &'a str,
    module: &'a Module,
    names: Names,
    params: Vec<ParamSlot>,
    vars: &'a mut Vec<Var>,
    locals: Vec<usize>,
    code: Vec<Step>,
    /// Instructions seen by `declare` (label targets).
    count: usize,
    /// The CUDA file and line of the last `.loc`.
    loc: Option<(String, u32)>,
}

impl Builder<'_> {
    /// First pass: labels, registers, `.param`, `.local` and `.shared` declarations.
    fn declare(&mut self, body: &[Statement]) -> Result<(), Error> {
        for s in body {
            match s {
                Statement::Label { name, .. } => {
                    self.names.labels.insert(name.clone(), self.count);
                }
                Statement::Instr(_) => self.count += 1,
                Statement::Block { body, .. } => self.declare(body)?,
                Statement::Decl(d) => self.decl(d)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn decl(&mut self, d: &VarDecl) -> Result<(), Error> {
        let site = Site::ptx(self.path, d.pos.line, d.pos.col, None);
        match d.space {
            StateSpace::Reg => match d.range {
                Some(n) => {
                    for i in 0..n {
                        self.names.declare_reg(&format!("{}{i}", d.name));
                    }
                }
                None => {
                    self.names.declare_reg(&d.name);
                }
            },
            StateSpace::Param => {
                self.names.params.insert(d.name.clone(), self.params.len());
                self.params.push(param_slot(d, site)?);
            }
            _ => {
                if let Some(var) = var_of(d, site)? {
                    if var.space == Space::Local {
                        self.locals.push(self.vars.len());
                    }
                    self.names.vars.insert(d.name.clone(), self.vars.len());
                    self.vars.push(var);
                }
            }
        }
        Ok(())
    }

    /// Second pass: decode the instructions.
    fn emit(&mut self, body: &[Statement]) -> Result<(), Error> {
        for s in body {
            match s {
                Statement::Loc(l) => {
                    let file = self.module.files.get(&l.file).cloned();
                    self.loc = file.map(|f| (f, l.line));
                }
                Statement::Block { body, .. } => self.emit(body)?,
                Statement::Instr(i) => {
                    let cuda = self.loc.as_ref().map(|(f, l)| (f.as_str(), *l));
                    let site = Site::ptx(self.path, i.pos.line, i.pos.col, cuda);
                    let fail = |e: String| {
                        let mut text = i.opcode.clone();
                        for m in &i.modifiers {
                            text.push('.');
                            text.push_str(m);
                        }
                        let from = match cuda {
                            Some((f, l)) => format!(" (CUDA {f}:{l})"),
                            None => String::new(),
                        };
                        format!(
                            "{}:{}:{}: `{text}`: {e}{from}",
                            self.path, i.pos.line, i.pos.col
                        )
                    };
                    let op = decode::decode(i, &mut self.names).map_err(fail)?;
                    let guard = match &i.guard {
                        Some(g) => match self.names.regs.get(&g.reg) {
                            Some(&r) => Some((r, g.negated)),
                            None => return Err(fail(format!("guard `{}` is not declared", g.reg))),
                        },
                        None => None,
                    };
                    self.code.push(Step { op, guard, site });
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn elem_of(d: &VarDecl, site: Site) -> Result<Ty, Error> {
    Ty::parse(&d.ty).ok_or_else(|| format!("{site}: type `.{}` is not supported", d.ty))
}

fn param_slot(d: &VarDecl, site: Site) -> Result<ParamSlot, Error> {
    let ty = elem_of(d, site)?;
    let count: u64 = d
        .array
        .iter()
        .map(|n| n.unwrap_or(0))
        .product::<u64>()
        .max(1)
        * d.vector.unwrap_or(1) as u64;
    Ok(ParamSlot {
        name: d.name.clone(),
        size: ty.bytes() * count,
        ty: (d.array.is_empty() && d.vector.is_none()).then_some(ty),
    })
}

/// The variable a declaration of an addressable space declares (`None` for `.tex` and other
/// spaces that hold none).
fn var_of(d: &VarDecl, site: Site) -> Result<Option<Var>, Error> {
    let space = match d.space {
        StateSpace::Global => Space::Global,
        StateSpace::Shared => Space::Shared,
        StateSpace::Const => Space::Const,
        StateSpace::Local => Space::Local,
        StateSpace::SharedCluster => Space::Shared,
        StateSpace::Tex => return Err(format!("{site}: `.tex` variables are not supported")),
        _ => return Ok(None),
    };
    let elem = elem_of(d, site)?;
    let dynamic = d.array.first() == Some(&None) && d.init.is_none();
    let count: u64 =
        d.array.iter().map(|n| n.unwrap_or(0)).product::<u64>() * d.vector.unwrap_or(1) as u64;
    let count = if d.array.is_empty() {
        d.vector.unwrap_or(1) as u64
    } else {
        count
    };
    let mut init = Vec::new();
    if let Some(i) = &d.init {
        flatten_init(i, elem, &mut init, site)?;
    }
    let size = if dynamic && space == Space::Shared {
        0
    } else if d.array.first() == Some(&None) {
        init.len() as u64
    } else {
        count * elem.bytes()
    };
    if dynamic && space != Space::Shared {
        return Err(format!(
            "{site}: `{}` has no size (only `.extern .shared` arrays may)",
            d.name
        ));
    }
    Ok(Some(Var {
        name: d.name.clone(),
        space,
        size,
        align: d.align.map(u64::from).unwrap_or(elem.bytes()).max(1),
        elem,
        dynamic: dynamic && space == Space::Shared,
        init,
        site,
    }))
}

fn flatten_init(i: &Init, elem: Ty, out: &mut Vec<u8>, site: Site) -> Result<(), Error> {
    match i {
        Init::List(xs) => xs.iter().try_for_each(|x| flatten_init(x, elem, out, site)),
        Init::Scalar(Operand::Int(v)) => {
            let v = if elem.float() {
                elem.from_f64(*v as f64)
            } else {
                *v as u64
            };
            out.extend_from_slice(&v.to_le_bytes()[..elem.bytes() as usize]);
            Ok(())
        }
        Init::Scalar(Operand::Float(f)) => {
            let x = match f {
                super::ast::FloatLit::F32(b) => f32::from_bits(*b) as f64,
                super::ast::FloatLit::F64(b) => f64::from_bits(*b),
            };
            let v = elem.from_f64(x);
            out.extend_from_slice(&v.to_le_bytes()[..elem.bytes() as usize]);
            Ok(())
        }
        other => Err(format!(
            "{site}: initialiser `{other:?}` (an address) is not supported"
        )),
    }
}
