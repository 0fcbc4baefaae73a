//! Spin loops with await semantics: a spin-wait costs one execution per store that can change
//! what the loop sees (under the DFS: one execution), not one per spin.
//!
//! The contract (as for `core::hint::spin_loop`): a kernel calls `spin_loop()` once per failed
//! iteration, and a failed iteration that stores nothing leaves the thread's own state as it was
//! (what the next iteration does depends only on what it reads). Such an iteration only raised
//! the thread's coherence floors and its knowledge: the same execution without it (the thread
//! simply starts its next iteration later) can do everything this one can, since knowing less
//! only allows more reads and more races, and it reaches the same final state. Failures inside
//! the iteration (a race at one of its reads, an assertion) end the execution before the
//! iteration reaches `spin_loop()`, so they are reported whatever follows.
//!
//! Every engine:
//! - An iteration that stores nothing and reads the same values, location by location, as the
//!   previous one that stored nothing repeats it exactly: the execution is discarded.
//! - After such an iteration the thread blocks (`Status::Spinning`) until one of the locations it
//!   read has a readable store with another value than the one it read there; a store of the
//!   same value would only lead to a repeat. If none ever comes, the thread spins forever on this
//!   iteration: the execution ends in a hang (see `Machine::check_hang`) whose lasso is it.
//! - A loop over several locations may read an older store of any of them again in its next
//!   iteration (coherence allows it, as long as it is not older than what it read last): only
//!   the whole iteration must differ. A loop over one location skips, in its next iteration, the
//!   stores of the value it just read (they could only repeat it).
//!
//! With pruning (the DFS, [`super::sched::Engine::prunes_spins`]), a failed iteration that
//! stores nothing is kept only if the spinner then stays blocked for the rest of the execution,
//! the one case where it is needed (a hang). The execution is discarded as soon as the iteration
//! turns out not to be needed: at its end, when the thread could already read something else (a
//! newer store, or an older one of another value at a location it read stale), or later, when
//! another thread's store would wake it. The DFS treats the discarding operation as conflicting
//! with everything, so it also runs the other threads' operations before it, which is where the
//! execution without the iteration lies. A loop that reads several locations still reads an
//! older store of any of them in the iteration that succeeds (the polling bug of
//! `kernel_verified`).
//!
//! An RMW that writes back the value it read (a failed `atomic_exchange(lock, 1)`, a failed CAS)
//! counts as a read here: the store it adds changes no value any later read can see.

use super::ctx::Ctx;
use super::machine::{Halt, Machine, Status};
use super::memory::Bits;
use super::report::{EventKind, Site};
use std::sync::Arc;

impl Machine {
    /// Note a read of `loc` (and whether the access also stored a new value) for the current
    /// spin-loop iteration.
    pub(super) fn watch(&mut self, t: usize, loc: usize, value: Bits, wrote: bool) {
        if !self.spin_loops {
            return;
        }
        let th = Arc::make_mut(&mut self.threads[t]);
        th.watch.push((loc, value));
        th.spin_wrote |= wrote;
    }

    /// Can the next iteration read something else than `log` (a store at or above the thread's
    /// floor of a read location, with another value than the one read there)?
    fn can_change(&self, t: usize, log: &[(usize, Bits)]) -> bool {
        let floor = self.threads[t].view.floor();
        log.iter().any(|&(loc, value)| {
            self.locs[loc].stores[floor[loc] as usize..]
                .iter()
                .any(|s| s.value != value)
        })
    }

    /// A loop over one location: move the floor past the stores of the value just read.
    fn skip_same_value(&mut self, t: usize, log: &[(usize, Bits)]) {
        let Some(&(loc, value)) = log.first() else {
            return;
        };
        if log.iter().any(|&(l, _)| l != loc) {
            return;
        }
        let stores = &self.locs[loc].stores;
        let floor = self.threads[t].view.floor()[loc] as usize;
        if let Some(newer) = (floor..stores.len()).find(|&i| stores[i].value != value) {
            Arc::make_mut(&mut self.threads[t]).view.floor_mut()[loc] = newer as u32;
        }
    }

    /// The end of a failed spin-loop iteration. Returns `true` when the thread must block until
    /// another thread's store can change what its next iteration reads; discards the execution
    /// when another execution covers this one (see the module documentation).
    pub fn spin_wait(&mut self, t: usize, site: Site) -> Result<bool, Halt> {
        assert!(
            self.spin_loops,
            "spin_wait on a machine set up without spin loops"
        );
        let now = self.event_count;
        let th = Arc::make_mut(&mut self.threads[t]);
        let log = std::mem::take(&mut th.watch);
        let wrote = std::mem::take(&mut th.spin_wrote);
        let from = std::mem::replace(&mut th.iteration_from, now);
        if wrote || log.is_empty() {
            th.last_spin = None;
            return Ok(false);
        }
        if th.last_spin.as_ref() == Some(&log) {
            self.discard_covered_iteration();
            return Err(Halt);
        }
        if self.prune_spins {
            if self.can_change(t, &log) {
                self.discard_covered_iteration();
                return Err(Halt);
            }
        } else {
            Arc::make_mut(&mut self.threads[t]).last_spin = Some(log.clone());
            self.skip_same_value(t, &log);
            if self.can_change(t, &log) {
                return Ok(false);
            }
        }
        // The iteration a hang's lasso repeats: this thread's operations since it began.
        let iteration: Vec<usize> = (from..now)
            .filter(|&e| self.events.get(e).is_some_and(|ev| ev.thread == t))
            .collect();
        let spin = self.event(t, site, EventKind::SpinWait);
        let th = Arc::make_mut(&mut self.threads[t]);
        th.iteration_from = spin;
        th.blocked_iteration = iteration;
        th.status = Status::Spinning(log);
        self.check_hang()?;
        Ok(true)
    }

    /// Start a new spin-loop iteration without ending one: forget what the thread read since
    /// its last [`Machine::spin_wait`] (an interpreter calls this where what came before is not
    /// an iteration that left the thread's state unchanged).
    pub fn spin_restart(&mut self, t: usize) {
        let now = self.event_count;
        let th = Arc::make_mut(&mut self.threads[t]);
        th.watch.clear();
        th.spin_wrote = false;
        th.last_spin = None;
        th.iteration_from = now;
    }

    /// A store to `loc` was just appended by `writer`: wake the spinners whose next iteration
    /// can now read something else (with pruning: discard the execution, their iteration was
    /// not needed).
    pub(super) fn wake_spinners(&mut self, writer: usize, loc: usize) {
        for u in 0..self.threads.len() {
            if u == writer {
                continue;
            }
            let Status::Spinning(log) = &self.threads[u].status else {
                continue;
            };
            if !log.iter().any(|&(l, _)| l == loc) || !self.can_change(u, log) {
                continue;
            }
            if self.prune_spins {
                self.discard_covered_iteration();
                return;
            }
            let log = log.clone();
            Arc::make_mut(&mut self.threads[u]).status = Status::Running;
            self.skip_same_value(u, &log);
            self.wake.push(u);
        }
    }
}

impl Ctx {
    /// End of a failed spin-loop iteration (see [`Machine::spin_wait`]).
    pub fn spin_wait(&self, site: Site) {
        if self.step(|m| m.spin_wait(self.thread, site)) {
            self.wait();
        }
    }

    /// Start a new spin-loop iteration without ending one (see [`Machine::spin_restart`]).
    pub fn spin_restart(&self) {
        self.step(|m| {
            m.spin_restart(self.thread);
            Ok(())
        })
    }
}
