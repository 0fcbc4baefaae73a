//! The core's notifications: the points of an execution where a feature may act.
//!
//! The core names no feature. At each point below it runs the hooks registered for it in the
//! machine's [`Hooks`](super::machine::Hooks) table, in order, with the machine and what
//! happened; a hook reads and writes its feature's state and calls the core's operations (fail,
//! wake, the views), so calls go from features into the core, never the reverse. The table is
//! built once, on the running floor (the one module that knows every feature), and handed to
//! [`Machine::new`]; the core only iterates it. (The table's types are the machine module's,
//! which holds the table: this module calls them, and the machine imports nothing from here.)
//!
//! Order matters where hooks may fail: the first failing hook is the failure reported, and the
//! rest do not run. Each list runs in the order the table gives.

use super::machine::{Access, Halt, Machine, Status};
use super::memory::Bits;

impl Machine {
    /// Run the access hooks in order; the first failure stops the access.
    pub(super) fn notify_access(&mut self, access: &Access) -> Result<(), Halt> {
        let hooks = self.hooks;
        for hook in hooks.on_access {
            hook(self, access)?;
        }
        Ok(())
    }

    /// Run the read hooks.
    pub(super) fn notify_read(&mut self, thread: usize, loc: usize, value: Bits, wrote: bool) {
        let hooks = self.hooks;
        for hook in hooks.on_read {
            hook(self, thread, loc, value, wrote);
        }
    }

    /// Run the store hooks.
    pub(super) fn notify_store(&mut self, writer: usize, loc: usize) {
        let hooks = self.hooks;
        for hook in hooks.on_store {
            hook(self, writer, loc);
        }
    }

    /// Run the exit hooks in order; the first failure stops the exit's handling.
    pub(super) fn notify_exit(&mut self, thread: usize) -> Result<(), Halt> {
        let hooks = self.hooks;
        for hook in hooks.on_exit {
            hook(self, thread)?;
        }
        Ok(())
    }

    /// Run the barrier-settling hooks.
    pub(super) fn notify_barrier_settle(&mut self, block: usize) {
        let hooks = self.hooks;
        for hook in hooks.on_barrier_settle {
            hook(self, block);
        }
    }

    /// The first registered wording of why `thread` waits with this status, if any.
    pub(super) fn describe_wait(&self, thread: usize, status: &Status) -> Option<String> {
        self.hooks
            .describe_wait
            .iter()
            .find_map(|hook| hook(self, thread, status))
    }
}
