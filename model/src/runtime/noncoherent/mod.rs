//! `ld.global.nc`: loads through the non-coherent read-only data cache.
//!
//! PTX ISA (*Data Movement and Conversion Instructions: ld.global.nc*): "Load register
//! variable `d` from the location specified by the source address operand `a` in the global
//! state space, and optionally cache in non-coherent read-only cache." and §8.1: "The memory
//! consistency model does not apply to texture (including `ld.global.nc`) and surface
//! accesses." Nothing keeps that
//! cache coherent with the kernel's own stores, so the CUDA Programming Guide allows the
//! read-only path only for data that is "read-only for the lifetime of the kernel" (*Compute
//! Capability 5.x, Global Memory*). The model therefore reports a **non-coherent read**
//! whenever a location read by `ld.global.nc` is written by any thread of the kernel — before
//! the read (the cache may hold the line from before the store) or after it (the data was not
//! read-only) — whatever synchronization orders the two. Otherwise the load is a weak load.

use super::ctx::Ctx;
use super::machine::{Halt, Machine};
use super::memory::Bits;
use super::report::{FailureKind, Site};
use super::sched::Point;
use crate::scope::Order;

pub mod state;

pub use self::state::NcRead;

impl Machine {
    /// `ld.global.nc` of `loc` by `t`.
    #[allow(clippy::too_many_arguments)]
    pub fn load_nc(
        &mut self,
        t: usize,
        loc: usize,
        site: Site,
        mirror: Option<u32>,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<Bits, Halt> {
        let value = self.load(t, loc, Order::Weak, None, site, mirror, choose)?;
        self.nc_reads.push((loc, t, site));
        let written = self.locs[loc].stores.iter().find_map(|s| s.writer);
        if let Some(w) = written {
            let names = &self.setup.threads;
            let headline = format!(
                "{} reads {} through the non-coherent cache (ld.global.nc) at {site}, but {} \
                 wrote it during the kernel: the read may return a stale value",
                names[t].name, self.setup.locs[loc].name, names[w].name
            );
            self.fail(FailureKind::NonCoherentRead, headline, vec![]);
            return Err(Halt);
        }
        Ok(value)
    }

    /// Before `t` writes `loc`: a write to data some thread read with `ld.global.nc`.
    pub(super) fn nc_check_write(&mut self, t: usize, loc: usize) -> Result<(), Halt> {
        let Some(&(_, reader, site)) = self.nc_reads.iter().find(|(l, _, _)| *l == loc) else {
            return Ok(());
        };
        let names = &self.setup.threads;
        let headline = format!(
            "{} writes {}, which {} read through the non-coherent cache (ld.global.nc) at \
             {site}: data read that way must be read-only for the lifetime of the kernel",
            names[t].name, self.setup.locs[loc].name, names[reader].name
        );
        self.fail(FailureKind::NonCoherentRead, headline, vec![]);
        Err(Halt)
    }
}

impl Ctx {
    /// `ld.global.nc` (see [`Machine::load_nc`]).
    pub fn load_nc(&self, loc: usize, site: Site) -> Bits {
        let mirror = self.sched.point(self.thread, Point::Read(loc));
        let sched = &self.sched;
        self.step(|m| m.load_nc(self.thread, loc, site, mirror, &|n| sched.choose(n)))
    }
}
