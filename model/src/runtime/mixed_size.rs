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
use super::memory::Bits;
use super::report::Site;
use crate::engine::Point;
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
