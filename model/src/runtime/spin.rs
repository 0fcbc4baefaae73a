//! Spin loops with await semantics: a failed iteration that stores nothing and reads what the
//! previous one read is not a new state, so the spinner waits instead of repeating it.
//!
//! The contract (as for `core::hint::spin_loop`): a kernel calls `spin_loop()` once per failed
//! iteration, and a failed iteration that stores nothing leaves the thread's own state as it was
//! (what the next iteration does depends only on what it reads). Then:
//! - An iteration that stores nothing and reads the same values, location by location, as the
//!   previous one that stored nothing repeats it exactly. The execution that contains it is
//!   discarded: the same execution without it is explored too, and it can do everything this one
//!   can (the repeat only raised the thread's coherence floors and knowledge, and knowing less
//!   only allows more reads and more races).
//! - After such an iteration the thread blocks (`Status::Spinning`) until one of the locations it
//!   read has a readable store with another value than the one it read there; a store of the
//!   same value would only lead to a repeat. A spin-wait thus costs one execution per store that
//!   can change what the loop sees, not one per spin.
//! - A loop over several locations may read an older store of any of them again in its next
//!   iteration (coherence allows it, as long as it is not older than what it read last): only
//!   the whole iteration must differ. A loop over one location skips, in its next iteration, the
//!   stores of the value it just read (they could only repeat it).
//!
//! An RMW that writes back the value it read (a failed `atomic_exchange(lock, 1)`, a failed CAS)
//! counts as a read here: the store it adds changes no value any later read can see.

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
    /// (as a repeat) when this iteration repeated the previous one.
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
            self.discard_repeat();
            return Err(Halt);
        }
        th.last_spin = Some(log.clone());
        self.skip_same_value(t, &log);
        if self.can_change(t, &log) {
            return Ok(false);
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

    /// A store to `loc` was just appended by `writer`: wake the spinners whose next iteration
    /// can now read something else.
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
            let log = log.clone();
            Arc::make_mut(&mut self.threads[u]).status = Status::Running;
            self.skip_same_value(u, &log);
            self.wake.push(u);
        }
    }
}
