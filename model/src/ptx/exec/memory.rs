//! Memory instructions on the runtime: addresses resolved through the
//! [`Layout`](crate::ptx::layout::Layout) (see [`crate::ptx::layout`] for the mapping and why
//! it is exact or refused).

use super::{le, Thread};
use crate::ptx::decode::{Addr, AddrBase, AtomOp, Op, Sem, Space, Src};
use crate::ptx::layout::{from_generic, to_generic, Region, PARAM_BASE, WINDOW};
use crate::ptx::value::Ty;
use crate::runtime::memory::Bits;
use crate::runtime::report::{FailureKind, RmwKind, Site};
use crate::scope::{Order, Scope};

/// Where an access lands.
pub(super) enum Target {
    /// Model memory: region, byte offset, and the block whose copy of a shared region it is.
    Model(usize, u64, u32),
    /// The thread's local memory, at this offset.
    Local(u64),
    /// A `.const` region (read-only bytes), byte offset.
    Const(usize, u64),
    /// A `.param` slot of the current frame, byte offset.
    Param(usize, u64),
}

impl Thread<'_> {
    /// Memory and synchronization instructions.
    pub(super) fn exec_shared(&mut self, op: &Op, site: Site) {
        match op {
            Op::Ld {
                sem,
                space,
                nc,
                ty,
                d,
                addr,
            } => {
                let a = self.address(addr);
                let values = self.load(*space, a, *ty, d.len(), *sem, *nc, site);
                for (dst, v) in d.iter().zip(values) {
                    self.set(dst, ty.norm(v));
                }
            }
            Op::St {
                sem,
                space,
                ty,
                v,
                addr,
            } => {
                let a = self.address(addr);
                let values: Vec<u64> = v.iter().map(|s| ty.trunc(self.src(s))).collect();
                self.store(*space, a, *ty, &values, *sem, site);
            }
            Op::Atom {
                order,
                scope,
                space,
                op,
                ty,
                d,
                addr,
                b,
            } => {
                let a = self.address(addr);
                let operands: Vec<u64> = b.iter().map(|s| self.src(s)).collect();
                let old = self.atom(*space, a, *ty, *op, &operands, *order, *scope, site);
                if let Some(d) = d {
                    self.set(d, ty.norm(old));
                }
            }
            Op::Cvta { d, a, space, to } => {
                let v = self.src(a);
                let r = if *to {
                    match from_generic(v) {
                        (s, addr) if s == *space || *space == Space::Global => addr,
                        // A generic address outside the space's window: what the hardware
                        // gives is undefined; report it rather than guess.
                        _ => self.fail(
                            FailureKind::OutOfBounds,
                            site,
                            format!(
                                "cvta.to of generic address {v:#x}, which is not in that space"
                            ),
                        ),
                    }
                } else {
                    to_generic(*space, v)
                };
                self.set(d, r);
            }
            Op::Isspacep { p, a, space } => {
                // PTX ISA, *isspacep*: "isspacep.shared::cta returns 1 if the generic address is
                // in the .shared::cta window of the executing CTA", ".shared::cluster" if in any
                // CTA's window of the cluster (which contains it).
                let (s, at) = from_generic(self.src(a));
                let yes = match space {
                    Space::Shared => s == Space::Shared && self.own_shared(at),
                    Space::SharedCluster => s == Space::Shared,
                    _ => s == *space,
                };
                self.set(p, yes as u64);
            }
            Op::Fence { order, scope } => {
                if *order == Order::Sc {
                    self.synced = true;
                }
                self.t.rt.fence(*order, *scope, site);
            }
            _ => self.exec_sync(op, site),
        }
    }

    /// The address an operand names, in the instruction's space.
    pub(super) fn address(&self, a: &Addr) -> u64 {
        let base = match a.base {
            AddrBase::Reg(r) => self.read_reg(r),
            AddrBase::Var(v) => self.src(&Src::Var(v, 0)),
            AddrBase::Param(p) => self.src(&Src::Param(p, 0)),
            AddrBase::Abs => 0,
        };
        base.wrapping_add(a.offset as u64)
    }

    /// Resolve `addr` in `space` for an access of `size` bytes.
    pub(super) fn target(&self, space: Space, addr: u64, size: u64, site: Site) -> Target {
        let cta_only = space == Space::Shared;
        let (space, addr) = match space {
            Space::Generic => from_generic(addr),
            s => (s, addr),
        };
        // Shared addresses name their CTA (`layout::CTA_SHIFT`): a `.shared::cluster` or
        // generic one any CTA of the cluster, a `.shared::cta` one only the executing CTA.
        let (space, addr, block) = match space {
            Space::Shared | Space::SharedCluster => {
                let (block, offset) = self.shared_block(addr, cta_only, site);
                (Space::Shared, offset, block)
            }
            s => (s, addr, self.t.bid()),
        };
        let oob = |what: &str| -> ! {
            self.fail(
                FailureKind::OutOfBounds,
                site,
                format!(
                    "{size}-byte access at {what} address {addr:#x} is outside {}",
                    {
                        match self.layout.nearest(space, addr) {
                            Some(r) => format!("`{}` ({} bytes at {:#x})", r.name, r.size, r.start),
                            None => "every buffer".into(),
                        }
                    }
                ),
            )
        };
        match space {
            Space::Local => {
                if addr + size > self.st.local.len() as u64 {
                    oob("local");
                }
                Target::Local(addr)
            }
            Space::Param => {
                let rel = addr.wrapping_sub(PARAM_BASE);
                let (slot, off) = ((rel >> 16) as usize, rel & 0xffff);
                match self.frame().params.get(slot) {
                    Some(bytes) if rel < WINDOW && off + size <= bytes.len() as u64 => {
                        Target::Param(slot, off)
                    }
                    _ => oob("param"),
                }
            }
            _ => match self.layout.find(space, addr) {
                Some((r, off)) if off + size <= self.layout.regions[r].size => {
                    if space == Space::Const {
                        Target::Const(r, off)
                    } else {
                        Target::Model(r, off, block)
                    }
                }
                _ => oob(match space {
                    Space::Shared => "shared",
                    Space::Const => "const",
                    _ => "global",
                }),
            },
        }
    }

    /// The locations an access of `size` bytes at `off` of region `r` (of `block`, for shared
    /// memory) covers, or an unsupported error (see the layout's module docs).
    pub(super) fn locations(
        &self,
        r: &Region,
        (off, block): (u64, u32),
        size: u64,
        strong: bool,
        site: Site,
    ) -> Vec<usize> {
        let g = r.granule;
        if !off.is_multiple_of(g) || !size.is_multiple_of(g) || (strong && size != g) {
            self.fail(
                FailureKind::Unsupported,
                site,
                format!(
                    "{} {size}-byte access at offset {off} of `{}`, whose elements are {g} \
                     bytes: the model represents accesses of whole elements only{}",
                    if strong { "a strong" } else { "a" },
                    r.name,
                    if strong {
                        " (a strong access of exactly one)"
                    } else {
                        ""
                    }
                ),
            );
        }
        let block = if r.space == Space::Shared {
            block as usize * r.per_block
        } else {
            0
        };
        (0..size / g)
            .map(|k| r.first_loc + block + (off / g + k) as usize)
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        space: Space,
        addr: u64,
        ty: Ty,
        n: usize,
        sem: Sem,
        nc: bool,
        site: Site,
    ) -> Vec<u64> {
        let size = ty.bytes();
        match self.target(space, addr, size * n as u64, site) {
            Target::Local(off) => (0..n)
                .map(|i| {
                    let at = (off + i as u64 * size) as usize;
                    le(&self.st.local[at..at + size as usize])
                })
                .collect(),
            Target::Param(slot, off) => (0..n)
                .map(|i| {
                    let at = (off + i as u64 * size) as usize;
                    le(&self.frame().params[slot][at..at + size as usize])
                })
                .collect(),
            Target::Const(r, off) => {
                let init = &self.layout.regions[r].init;
                (0..n)
                    .map(|i| {
                        let at = (off + i as u64 * size) as usize;
                        le(init.get(at..at + size as usize).unwrap_or(&[]))
                    })
                    .collect()
            }
            Target::Model(r, off, block) => {
                self.loaded = true;
                let region = &self.layout.regions[r];
                let defined = region.space == Space::Shared;
                let rt = self.t.rt;
                match sem {
                    Sem::Weak if nc => {
                        let locs =
                            self.locations(region, (off, block), size * n as u64, false, site);
                        let bits: Vec<Bits> = locs.iter().map(|&l| rt.load_nc(l, site)).collect();
                        split(&bits, region.granule, size, n)
                    }
                    Sem::Weak => {
                        let locs =
                            self.locations(region, (off, block), size * n as u64, false, site);
                        let bits = rt.load_multi(&locs, Order::Weak, None, defined, site);
                        split(&bits, region.granule, size, n)
                    }
                    Sem::Volatile | Sem::Strong(..) => {
                        let (order, scope) = strong(sem);
                        (0..n)
                            .map(|i| {
                                let at = off + i as u64 * size;
                                let locs = self.locations(region, (at, block), size, true, site);
                                rt.load_multi(&locs, order, Some(scope), defined, site)[0]
                            })
                            .collect()
                    }
                }
            }
        }
    }

    fn store(&mut self, space: Space, addr: u64, ty: Ty, values: &[u64], sem: Sem, site: Site) {
        let size = ty.bytes();
        let n = values.len();
        match self.target(space, addr, size * n as u64, site) {
            Target::Local(off) => {
                for (i, v) in values.iter().enumerate() {
                    let at = (off + i as u64 * size) as usize;
                    self.st.local[at..at + size as usize]
                        .copy_from_slice(&v.to_le_bytes()[..size as usize]);
                }
            }
            Target::Param(slot, off) => {
                for (i, v) in values.iter().enumerate() {
                    let at = (off + i as u64 * size) as usize;
                    self.frame_mut().params[slot][at..at + size as usize]
                        .copy_from_slice(&v.to_le_bytes()[..size as usize]);
                }
            }
            Target::Const(..) => self.fail(
                FailureKind::OutOfBounds,
                site,
                "a store to constant memory".into(),
            ),
            Target::Model(r, off, block) => {
                let region = &self.layout.regions[r];
                let rt = self.t.rt;
                match sem {
                    Sem::Weak => {
                        let locs =
                            self.locations(region, (off, block), size * n as u64, false, site);
                        let bits = join(values, size, region.granule);
                        rt.store_multi(&locs, &bits, site);
                    }
                    Sem::Volatile | Sem::Strong(..) => {
                        let (order, scope) = strong(sem);
                        for (i, v) in values.iter().enumerate() {
                            let at = off + i as u64 * size;
                            let locs = self.locations(region, (at, block), size, true, site);
                            rt.store(locs[0], *v, order, Some(scope), site);
                        }
                    }
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn atom(
        &mut self,
        space: Space,
        addr: u64,
        ty: Ty,
        op: AtomOp,
        b: &[u64],
        order: Order,
        scope: Scope,
        site: Site,
    ) -> u64 {
        let size = ty.bytes();
        let Target::Model(r, off, block) = self.target(space, addr, size, site) else {
            self.fail(
                FailureKind::Unsupported,
                site,
                "an atomic operation on local, constant or parameter memory".into(),
            )
        };
        let region = &self.layout.regions[r];
        let loc = self.locations(region, (off, block), size, true, site)[0];
        let (x, y) = (b[0], b.get(1).copied().unwrap_or(0));
        let kind = match op {
            AtomOp::And => RmwKind::And,
            AtomOp::Or => RmwKind::Or,
            AtomOp::Xor => RmwKind::Xor,
            AtomOp::Cas => RmwKind::Cas,
            AtomOp::Exch => RmwKind::Exchange,
            AtomOp::Add => RmwKind::Add,
            AtomOp::Inc => RmwKind::Inc,
            AtomOp::Dec => RmwKind::Dec,
            AtomOp::Min => RmwKind::Min,
            AtomOp::Max => RmwKind::Max,
        };
        // PTX ISA, *atom*: "atom.inc: d = [a]; [a] = (d >= b) ? 0 : d + 1" (unsigned);
        // "atom.dec: [a] = ((d == 0) || (d > b)) ? b : d - 1"; ".cas: [a] = (d == b) ? c : d".
        let apply = move |old: Bits| -> Option<Bits> {
            let old = ty.trunc(old);
            let new = match op {
                AtomOp::Cas => return (old == ty.trunc(x)).then_some(ty.trunc(y)),
                AtomOp::Exch => x,
                AtomOp::Inc => {
                    if old >= ty.trunc(x) {
                        0
                    } else {
                        old + 1
                    }
                }
                AtomOp::Dec => {
                    if old == 0 || old > ty.trunc(x) {
                        x
                    } else {
                        old - 1
                    }
                }
                AtomOp::Add if ty.float() => {
                    crate::ptx::alu::eval(crate::ptx::alu::AluOp::Add { sat: false }, ty, &[old, x])
                }
                AtomOp::Min | AtomOp::Max if ty.float() => {
                    let o = if op == AtomOp::Min {
                        crate::ptx::alu::AluOp::Min
                    } else {
                        crate::ptx::alu::AluOp::Max
                    };
                    crate::ptx::alu::eval(o, ty, &[old, x])
                }
                AtomOp::Add => old.wrapping_add(x),
                AtomOp::And => old & x,
                AtomOp::Or => old | x,
                AtomOp::Xor => old ^ x,
                AtomOp::Min if ty.signed() => ty.as_i64(old).min(ty.as_i64(x)) as u64,
                AtomOp::Max if ty.signed() => ty.as_i64(old).max(ty.as_i64(x)) as u64,
                AtomOp::Min => old.min(ty.trunc(x)),
                AtomOp::Max => old.max(ty.trunc(x)),
            };
            Some(ty.trunc(new))
        };
        self.t.rt.rmw(loc, kind, &apply, order, scope, site)
    }
}

/// A volatile access is `.relaxed.sys` for the memory model (PTX ISA, *Memory Consistency
/// Model*: "ld.volatile … treated as relaxed … with .sys scope").
fn strong(sem: Sem) -> (Order, Scope) {
    match sem {
        Sem::Strong(o, s) => (o, s),
        _ => (Order::Relaxed, Scope::Sys),
    }
}

/// `n` values of `size` bytes from the little-endian elements `bits` of `granule` bytes.
fn split(bits: &[Bits], granule: u64, size: u64, n: usize) -> Vec<u64> {
    let mut bytes = Vec::with_capacity(bits.len() * granule as usize);
    for b in bits {
        bytes.extend_from_slice(&b.to_le_bytes()[..granule as usize]);
    }
    (0..n)
        .map(|i| le(&bytes[i * size as usize..(i + 1) * size as usize]))
        .collect()
}

/// The elements of `granule` bytes that `values` of `size` bytes make, little-endian.
fn join(values: &[u64], size: u64, granule: u64) -> Vec<Bits> {
    let mut bytes = Vec::with_capacity(values.len() * size as usize);
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes()[..size as usize]);
    }
    bytes.chunks(granule as usize).map(le).collect()
}
