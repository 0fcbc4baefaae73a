//! The barriers of a litmus warp exchange (`shfl.sync`, `vote.sync`, `match.sync`,
//! `redux.sync`, `elect.sync`, as `litmus::warp` lowers them): barriers of the member mask's
//! lanes that order the exchange's own slot accesses, the register data flowing through it, and
//! no other memory.
//!
//! PTX ISA, *shfl.sync*: it "exchange\[s\] register data between threads of a warp" and "will
//! cause executing thread to wait until all non-exited threads corresponding to membermask have
//! executed shfl.sync with the same qualifiers and same membermask value before resuming
//! execution"; the other exchanges say the same of themselves. Memory ordering among the lanes
//! is `bar.warp.sync`'s alone (*bar.warp.sync*: "bar.warp.sync also guarantee memory ordering
//! among threads participating in barrier"). So an exchange barrier completes as a barrier does
//! (the same instances, quorum and waiting: [`Machine::barrier_op`]), but the lanes leave it
//! knowing only the exchange's locations: each waiting lane's coherence floor of every slot
//! rises to the latest any arriving lane knows (its loads then read the values exchanged), and
//! every access an arriving lane made to a slot precedes what the waiting lanes do next in
//! causality order, as an observed write does ([`View::observe`]): the next round's stores and
//! this round's loads of a slot do not race. A slot's stores carry no release either (see
//! `Machine::release_heads`). Their clocks do not change, so the program's own
//! accesses before and after the exchange stay unordered across lanes (the cat models'
//! `exchange-order` is the same order).

use super::barriers::state::Arrival;
use super::machine::{Halt, Machine, Status};
use super::report::BarrierKey;
use super::report::Site;
use super::view::{Observed, View, ALL_LEVELS};
use std::sync::Arc;

impl Machine {
    /// Lane `t` arrives at an exchange barrier `key` of `quorum` lanes (waiting if `wait`),
    /// which orders only the exchanges' slots ([`super::Setup::exchange_slots`]). Returns
    /// whether `t` must block.
    pub fn exchange_barrier(
        &mut self,
        t: usize,
        site: Site,
        key: BarrierKey,
        quorum: usize,
        wait: bool,
    ) -> Result<bool, Halt> {
        let slots = Arc::clone(&self.setup.exchange_slots);
        self.barrier_arrive(t, site, key, Some(quorum), wait, Some(slots))
    }

    /// Complete an exchange barrier's instance `group`: the waiting lanes learn `locations`
    /// alone (see the module docs) and run on.
    pub(super) fn complete_exchange(&mut self, group: Vec<Arrival>, locations: &[usize]) {
        let lanes: Vec<usize> = group.iter().map(|a| a.thread).collect();
        let floors: Vec<u32> = locations
            .iter()
            .map(|&l| group.iter().map(|a| a.view.floor()[l]).max().unwrap_or(0))
            .collect();
        let performed: Vec<Observed> = locations
            .iter()
            .flat_map(|&l| self.locs[l].accesses.iter())
            .filter(|rec| lanes.contains(&rec.actor.thread))
            .map(|rec| Observed {
                thread: rec.actor.thread as u32,
                epoch: rec.epoch,
                levels: ALL_LEVELS,
            })
            .collect();
        for a in group.iter().filter(|a| a.wait) {
            let th = Arc::make_mut(&mut self.threads[a.thread]);
            learn(&mut th.view, locations, &floors, &performed);
            th.status = Status::Running;
            self.wake.push(a.thread);
        }
    }
}

/// Raise `view`'s floors of `locations` to `floors` and order `performed` before it.
fn learn(view: &mut View, locations: &[usize], floors: &[u32], performed: &[Observed]) {
    for (&l, &f) in locations.iter().zip(floors) {
        let floor = &mut view.floor_mut()[l];
        *floor = (*floor).max(f);
    }
    for &o in performed {
        view.observe(o);
    }
}
