//! Mixed-size accesses: a 64-bit access of a word whose two 32-bit halves are locations of their
//! own, so that narrow and wide accesses of the same bytes meet in the race checks.
//!
//! PTX ISA, *Memory Consistency Model*: "Two memory operations are said to overlap when the set
//! of byte locations accessed by them has a non-empty intersection", and two overlapping
//! operations that conflict without being ordered by causality (and are not both morally strong)
//! are a data race. A 64-bit access overlaps each of its 32-bit halves, so it is performed here
//! as an access of both half locations in one step of the machine: a 32-bit store of a half that
//! is not ordered with a 64-bit load of the word races with that load on the half.

use super::ctx::Ctx;
use super::machine::Halt;
use super::memory::Bits;
use super::report::{FailureKind, Site};
use super::sched::Point;
use crate::scope::Order;

impl Ctx {
    /// A weak 64-bit load of the word made of the 32-bit locations `halves` (low half first):
    /// both halves are read in one step, each as a weak load.
    pub fn load_wide(&self, halves: [usize; 2], site: Site) -> Bits {
        self.sched.point(self.thread, Point::Other);
        let sched = &self.sched;
        let choose = |n| sched.choose(n);
        let [lo, hi] = self.step(|m| {
            let lo = m.load(
                self.thread,
                halves[0],
                Order::Weak,
                None,
                site,
                None,
                &choose,
            )?;
            let hi = m.load(
                self.thread,
                halves[1],
                Order::Weak,
                None,
                site,
                None,
                &choose,
            )?;
            Ok([lo, hi])
        });
        (lo & 0xffff_ffff) | (hi & 0xffff_ffff) << 32
    }

    /// A weak 64-bit store of `value` to the word made of the 32-bit locations `halves` (low
    /// half first), both halves written in one step.
    pub fn store_wide(&self, halves: [usize; 2], value: Bits, site: Site) {
        self.sched.point(self.thread, Point::Other);
        self.step(|m| {
            let t = self.thread;
            m.store(t, halves[0], value & 0xffff_ffff, Order::Weak, None, site)?;
            m.store(t, halves[1], value >> 32, Order::Weak, None, site)
        })
    }
}

impl Ctx {
    /// A weak access of the locations `locs` in one step (an interpreted PTX access that covers
    /// several elements of a buffer: each overlapped location is read, see the module
    /// documentation). With `defined`, reading a location's initial value is a failure of kind
    /// [`FailureKind::UninitializedRead`] (shared memory, which CUDA does not initialise).
    pub fn load_multi(
        &self,
        locs: &[usize],
        order: Order,
        scope: Option<crate::scope::Scope>,
        defined: bool,
        site: Site,
    ) -> Vec<Bits> {
        let mirror = match locs {
            [one] => self.sched.point(self.thread, Point::Read(*one)),
            _ => {
                self.sched.point(self.thread, Point::Other);
                None
            }
        };
        let sched = &self.sched;
        let choose = |n| sched.choose(n);
        self.step(|m| {
            let mut out = Vec::with_capacity(locs.len());
            for &loc in locs {
                let mirror = if locs.len() == 1 { mirror } else { None };
                out.push(m.load(self.thread, loc, order, scope, site, mirror, &choose)?);
                // The load set the thread's coherence floor to the store it read; store 0 is
                // the location's initial value.
                if defined && m.threads[self.thread].view.floor()[loc] == 0 {
                    let who = m.setup.threads[self.thread].name.clone();
                    m.fail(
                        FailureKind::UninitializedRead,
                        format!(
                            "{who} reads {} at {site} before any thread wrote it (shared \
                             memory is uninitialised at launch)",
                            m.setup.locs[loc].name
                        ),
                        vec![],
                    );
                    return Err(Halt);
                }
            }
            Ok(out)
        })
    }

    /// A weak store of `values` to the locations `locs` in one step (see
    /// [`Ctx::load_multi`]).
    pub fn store_multi(&self, locs: &[usize], values: &[Bits], site: Site) {
        match locs {
            [one] => self.sched.point(self.thread, Point::Write(*one)),
            _ => self.sched.point(self.thread, Point::Other),
        };
        self.step(|m| {
            for (&loc, &v) in locs.iter().zip(values) {
                m.store(self.thread, loc, v, Order::Weak, None, site)?;
            }
            Ok(())
        })
    }
}
