//! Operands: registers, constants, special registers, symbol addresses and address operands,
//! resolved against the names a function can see.

use crate::ptx::ast::{AddrBase as AstBase, FloatLit, Operand};
use std::collections::HashMap;

/// A special register (PTX ISA, *Special Registers*), with the component for vectors
/// (`%tid.x` is `Tid(0)`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// `%tid.{x,y,z}`.
    Tid(u8),
    /// `%ntid.{x,y,z}`.
    Ntid(u8),
    /// `%ctaid.{x,y,z}`.
    Ctaid(u8),
    /// `%nctaid.{x,y,z}`.
    Nctaid(u8),
    /// `%laneid`.
    Laneid,
    /// `%warpid` (the thread's warp in its CTA: deterministic here).
    Warpid,
    /// `%nwarpid` (warps per CTA here).
    Nwarpid,
    /// `%clusterid.{x,y,z}`.
    Clusterid(u8),
    /// `%nclusterid.{x,y,z}`.
    Nclusterid(u8),
    /// `%cluster_ctaid.{x,y,z}`.
    ClusterCtaid(u8),
    /// `%cluster_nctaid.{x,y,z}`.
    ClusterNctaid(u8),
    /// `%cluster_ctarank`.
    ClusterCtarank,
    /// `%cluster_nctarank`.
    ClusterNctarank,
    /// `%is_explicit_cluster`.
    IsExplicitCluster,
    /// `%lanemask_eq`, `_le`, `_lt`, `_ge`, `_gt`.
    Lanemask(LaneCmp),
    /// `%smid`: the CTA's id here (one SM per CTA).
    Smid,
    /// `%nsmid`: the number of CTAs.
    Nsmid,
    /// `%gridid`: 0.
    Gridid,
    /// `%clock`, `%clock64`, `%globaltimer{_lo,_hi}`: 0 (a loop waiting for time to pass
    /// never ends here: it is reported as a hang or a possible hang).
    Timer,
    /// `%envregN`: 0.
    Envreg,
    /// `WARP_SZ`: the warp size.
    WarpSz,
    /// `%dynamic_smem_size`.
    DynamicSmemSize,
    /// `%total_smem_size`.
    TotalSmemSize,
}

/// Which lanes a `%lanemask_*` register names, relative to the thread's lane.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LaneCmp {
    /// `_eq`.
    Eq,
    /// `_le`.
    Le,
    /// `_lt`.
    Lt,
    /// `_ge`.
    Ge,
    /// `_gt`.
    Gt,
}

impl Special {
    /// The special register a name denotes.
    pub fn parse(name: &str) -> Option<Special> {
        let (base, comp) = match name.rsplit_once('.') {
            Some((b, c @ ("x" | "y" | "z"))) => (b, Some(c.as_bytes()[0] - b'x')),
            _ => (name, None),
        };
        use Special::*;
        let dim = |f: fn(u8) -> Special| comp.map(f);
        match base {
            "%tid" => dim(Tid),
            "%ntid" => dim(Ntid),
            "%ctaid" => dim(Ctaid),
            "%nctaid" => dim(Nctaid),
            "%clusterid" => dim(Clusterid),
            "%nclusterid" => dim(Nclusterid),
            "%cluster_ctaid" => dim(ClusterCtaid),
            "%cluster_nctaid" => dim(ClusterNctaid),
            _ if comp.is_some() => None,
            "%laneid" => Some(Laneid),
            "%warpid" => Some(Warpid),
            "%nwarpid" => Some(Nwarpid),
            "%cluster_ctarank" => Some(ClusterCtarank),
            "%cluster_nctarank" => Some(ClusterNctarank),
            "%is_explicit_cluster" => Some(IsExplicitCluster),
            "%lanemask_eq" => Some(Lanemask(LaneCmp::Eq)),
            "%lanemask_le" => Some(Lanemask(LaneCmp::Le)),
            "%lanemask_lt" => Some(Lanemask(LaneCmp::Lt)),
            "%lanemask_ge" => Some(Lanemask(LaneCmp::Ge)),
            "%lanemask_gt" => Some(Lanemask(LaneCmp::Gt)),
            "%smid" => Some(Smid),
            "%nsmid" => Some(Nsmid),
            "%gridid" => Some(Gridid),
            "%clock" | "%clock64" | "%clock_hi" | "%globaltimer" | "%globaltimer_lo"
            | "%globaltimer_hi" => Some(Timer),
            "WARP_SZ" => Some(WarpSz),
            "%dynamic_smem_size" => Some(DynamicSmemSize),
            "%total_smem_size" => Some(TotalSmemSize),
            n if n.starts_with("%envreg") => n[7..].parse::<u8>().ok().map(|_| Envreg),
            _ => None,
        }
    }
}

/// A source operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// A register (index into the function's register file).
    Reg(u32),
    /// `!%p`: a negated predicate register.
    NotReg(u32),
    /// A constant (floats as their bits).
    Imm(u64),
    /// A special register.
    Special(Special),
    /// The address of a variable plus an offset (`mov.u64 %rd1, buf;`).
    Var(usize, i64),
    /// A `.param` variable of the function (by slot), as `call` names arguments.
    Param(usize, i64),
}

/// A destination operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dst {
    /// A register.
    Reg(u32),
    /// `_`: discarded.
    Sink,
}

/// What an address operand is based on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddrBase {
    /// A register holding an address of the instruction's state space.
    Reg(u32),
    /// A variable (index into the program's variables).
    Var(usize),
    /// A `.param` variable of the function (by slot).
    Param(usize),
    /// An absolute address.
    Abs,
}

/// `[base+offset]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr {
    /// The base.
    pub base: AddrBase,
    /// The constant offset.
    pub offset: i64,
}

/// The names one function's instructions resolve: its registers (numbered as declared), its
/// `.param` variables (parameters, returns and body declarations), its labels, and the module's
/// variables and functions.
#[derive(Debug, Default)]
pub struct Names {
    /// Register name → index.
    pub regs: HashMap<String, u32>,
    /// `.param` variable name → slot (in declaration order).
    pub params: HashMap<String, usize>,
    /// Label → statement index.
    pub labels: HashMap<String, usize>,
    /// Variable name → index (module variables and this function's `.local`/`.shared`).
    pub vars: HashMap<String, usize>,
    /// Function name → index (functions with a body).
    pub funcs: HashMap<String, usize>,
}

impl Names {
    /// Declare register `name`; returns its index.
    pub fn declare_reg(&mut self, name: &str) -> u32 {
        let n = self.regs.len() as u32;
        *self.regs.entry(name.to_string()).or_insert(n)
    }

    fn reg(&self, name: &str) -> Result<u32, String> {
        self.regs
            .get(name)
            .copied()
            .ok_or_else(|| format!("register `{name}` is not declared"))
    }

    /// A source operand.
    pub fn src(&self, o: &Operand) -> Result<Src, String> {
        Ok(match o {
            Operand::Reg(r) => match self.regs.get(r.as_str()) {
                Some(&i) => Src::Reg(i),
                None => match Special::parse(r) {
                    Some(s) => Src::Special(s),
                    None => match self.params.get(r.as_str()) {
                        Some(&p) => Src::Param(p, 0),
                        None => return Err(format!("register `{r}` is not declared")),
                    },
                },
            },
            Operand::Not(r) => Src::NotReg(self.reg(r)?),
            Operand::Int(v) => Src::Imm(*v as u64),
            Operand::Float(FloatLit::F32(b)) => Src::Imm(*b as u64),
            Operand::Float(FloatLit::F64(b)) => Src::Imm(*b),
            Operand::Symbol { name, offset } => self.symbol(name, *offset)?,
            other => return Err(format!("operand `{other:?}` is not a value")),
        })
    }

    fn symbol(&self, name: &str, offset: i64) -> Result<Src, String> {
        if let Some(&v) = self.vars.get(name) {
            return Ok(Src::Var(v, offset));
        }
        if let Some(&p) = self.params.get(name) {
            return Ok(Src::Param(p, offset));
        }
        if let Some(s) = Special::parse(name) {
            return Ok(Src::Special(s));
        }
        if self.funcs.contains_key(name) {
            return Err(format!("the address of function `{name}` is not supported"));
        }
        Err(format!("`{name}` is not declared"))
    }

    /// A destination operand.
    pub fn dst(&self, o: &Operand) -> Result<Dst, String> {
        match o {
            Operand::Reg(r) => Ok(Dst::Reg(self.reg(r)?)),
            Operand::Sink => Ok(Dst::Sink),
            other => Err(format!("operand `{other:?}` is not a register")),
        }
    }

    /// An address operand `[…]`.
    pub fn addr(&self, o: &Operand) -> Result<Addr, String> {
        let Operand::Address(a) = o else {
            return Err(format!("expected an address `[…]`, found `{o:?}`"));
        };
        let base = match &a.base {
            AstBase::Reg(r) => match self.regs.get(r.as_str()) {
                Some(&i) => AddrBase::Reg(i),
                None => match self.params.get(r.as_str()) {
                    Some(&p) => AddrBase::Param(p),
                    None => match self.vars.get(r.as_str()) {
                        Some(&v) => AddrBase::Var(v),
                        None => return Err(format!("register `{r}` is not declared")),
                    },
                },
            },
            AstBase::Symbol(s) => match self.symbol(s, 0)? {
                Src::Var(v, _) => AddrBase::Var(v),
                Src::Param(p, _) => AddrBase::Param(p),
                _ => return Err(format!("`{s}` is not a variable")),
            },
            AstBase::Absolute => AddrBase::Abs,
        };
        Ok(Addr {
            base,
            offset: a.offset,
        })
    }

    /// A branch target.
    pub fn label(&self, o: &Operand) -> Result<usize, String> {
        match o {
            Operand::Symbol { name, offset: 0 } => self
                .labels
                .get(name.as_str())
                .copied()
                .ok_or_else(|| format!("label `{name}` is not defined in this function")),
            other => Err(format!("expected a label, found `{other:?}`")),
        }
    }

    /// A called function.
    pub fn func(&self, name: &str) -> Result<usize, String> {
        self.funcs
            .get(name)
            .copied()
            .ok_or_else(|| format!("function `{name}` has no body in this module"))
    }
}
