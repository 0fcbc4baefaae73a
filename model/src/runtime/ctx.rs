//! The handle a GPU thread uses to reach the machine: every visible operation is a scheduling
//! point followed by one atomic step of the machine.

use super::machine::{Halt, Machine, Status, ThreadInfo};
use super::memory::Bits;
use super::panics::HaltSignal;
use super::report::{FailureKind, RmwKind, Site};
use super::sched::{Point, Sched};
use crate::scope::{Order, Scope};
use std::sync::{Arc, Mutex};

/// One GPU thread's handle on the execution it runs in: its identity and placement, the shared
/// [`Machine`], and the engine's scheduler. Each method is one visible operation: a scheduling
/// point ([`Sched::point`]) then one atomic step of the machine; an operation that blocks parks
/// the thread until the machine wakes it.
pub struct Ctx {
    pub(crate) thread: usize,
    pub(crate) info: ThreadInfo,
    pub(crate) machine: Arc<Mutex<Machine>>,
    pub(crate) sched: Arc<dyn Sched>,
}

/// Unwind the calling GPU thread (its execution is over).
fn halt() -> ! {
    std::panic::resume_unwind(Box::new(HaltSignal))
}

impl Ctx {
    /// This GPU thread's grid-wide index.
    pub fn thread(&self) -> usize {
        self.thread
    }

    /// This thread's placement, block, thread index in the block, and name.
    pub fn info(&self) -> &ThreadInfo {
        &self.info
    }

    /// Lock the machine, run `f`, release, and unpark whoever `f` woke.
    pub(crate) fn step<R>(&self, f: impl FnOnce(&mut Machine) -> Result<R, Halt>) -> R {
        let (result, wake) = {
            let mut m = self.machine.lock().unwrap_or_else(|e| e.into_inner());
            if m.halted {
                drop(m);
                halt();
            }
            let r = f(&mut m);
            // What the step did to an mbarrier, before the wake-ups it caused.
            if let Some((thread, step)) = m.mbarrier_step.take() {
                self.sched.mbarrier_step(thread, step);
            }
            if m.halted {
                // This step ended the execution: it conflicts with every other thread's next
                // operation (which will now never happen).
                self.sched.halted(self.thread);
            }
            (r, std::mem::take(&mut m.wake))
        };
        for t in wake {
            self.sched.unpark(t);
        }
        result.unwrap_or_else(|Halt| halt())
    }

    /// The scheduling point of an arrival at this thread's block's `syncthreads`.
    pub(crate) fn barrier_point(&self) -> Point {
        Point::Barrier(self.info.block as usize)
    }

    /// The scheduling point of an arrival at this thread's block's named barrier `id` with
    /// thread count `count` (`None`: the whole CTA), waiting for the instance if `wait`.
    pub(crate) fn named_barrier_point(&self, id: i64, count: Option<u32>, wait: bool) -> Point {
        Point::NamedBarrier {
            block: self.info.block as usize,
            id,
            count,
            wait,
        }
    }

    /// Park until the machine marks this thread running again.
    pub(crate) fn wait(&self) {
        loop {
            {
                let m = self.machine.lock().unwrap_or_else(|e| e.into_inner());
                if m.halted {
                    drop(m);
                    halt();
                }
                if *m.status(self.thread) == Status::Running {
                    return;
                }
            }
            self.sched.park(self.thread);
        }
    }

    /// A load of `loc` (weak when `scope` is `None`); returns the value of the store the engine
    /// chose among those the memory model lets it read ([`Machine::load`]).
    pub fn load(&self, loc: usize, order: Order, scope: Option<Scope>, site: Site) -> Bits {
        let mirror = self.sched.point(self.thread, Point::Read(loc));
        let sched = &self.sched;
        self.step(|m| {
            m.load(self.thread, loc, order, scope, site, mirror, &|n| {
                sched.choose(n)
            })
        })
    }

    /// A store of `value` to `loc` (weak when `scope` is `None`) ([`Machine::store`]).
    pub fn store(&self, loc: usize, value: Bits, order: Order, scope: Option<Scope>, site: Site) {
        self.sched.point(self.thread, Point::Write(loc));
        self.step(|m| m.store(self.thread, loc, value, order, scope, site))
    }

    /// An atomic read-modify-write of `loc`: `apply` maps the old value to the new one, or to
    /// `None` for no write (a failed CAS); returns the old value ([`Machine::rmw`]).
    #[allow(clippy::too_many_arguments)]
    pub fn rmw(
        &self,
        loc: usize,
        kind: RmwKind,
        apply: &dyn Fn(Bits) -> Option<Bits>,
        order: Order,
        scope: Scope,
        site: Site,
    ) -> Bits {
        self.sched.point(self.thread, Point::Write(loc));
        self.step(|m| m.rmw(self.thread, loc, kind, apply, order, scope, site))
    }

    /// A fence of `order` at `scope` (`fence.sc` when `order` is [`Order::Sc`],
    /// `fence.acq_rel` etc. otherwise) ([`Machine::fence`]).
    pub fn fence(&self, order: Order, scope: Scope, site: Site) {
        // Only fence.sc meets other threads (the fence-SC order); the others act on the
        // thread's own view.
        let point = if order == Order::Sc {
            Point::ScFence
        } else {
            Point::Local
        };
        self.sched.point(self.thread, point);
        self.step(|m| m.fence(self.thread, order, scope, site))
    }

    /// Expose a value in the execution's final state (litmus registers).
    pub fn record(&self, key: String, value: i64) {
        self.step(|m| {
            m.record(key, value);
            Ok(())
        })
    }

    /// Fail the execution with an assertion-style error (misuse found by the facade).
    pub fn fail(&self, message: String) -> ! {
        self.step::<()>(|m| {
            let advice = super::advice::fence_sc_advice(m);
            m.fail(FailureKind::Assertion, message, advice);
            Err(Halt)
        });
        unreachable!("a failed step halts the thread")
    }

    /// Fail the execution with a failure of the given kind (misuse found by the facade).
    pub fn fail_kind(&self, kind: FailureKind, message: String) -> ! {
        self.step::<()>(|m| {
            m.fail(kind, message, vec![]);
            Err(Halt)
        });
        unreachable!("a failed step halts the thread")
    }
}
