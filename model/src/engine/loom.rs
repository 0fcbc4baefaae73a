//! The loom engine: exhaustive, up to 4 GPU threads (loom's MAX_THREADS is 5, main included).
//!
//! Loom's atomics are used only as *mirrors*: one relaxed `AtomicUsize` per location counts the
//! writes to it. A store or RMW is a `fetch_add` on its location's mirror (a scheduling point);
//! a load is a relaxed mirror load, so loom itself enumerates which write version the load sees.
//! The runtime maps the version back to its own store and, when loom picked a store our model
//! forbids (older than the thread's coherence floor — loom only knows relaxed coherence), marks
//! the execution infeasible: it is cut short and its results are discarded. Loom keeps at most
//! the last 7 writes per atomic, so locations written more often are explored only partially.
//!
//! The other scheduling points touch an atomic of what they operate on, so that loom's partial
//! order reduction sees operations on different objects as independent, as the DFS engine does
//! ([`Point`]): one per block for its barriers, one per mbarrier, one for every other visible
//! operation; a [`Point::Local`] operation, independent of every other thread's, is no
//! scheduling point at all.
//!
//! Loom enumerates schedules and the values relaxed loads read, nothing else: a choice the
//! runtime asks for with [`Sched::choose`] (which lanes form an `activemask` group, a
//! non-coherent load's stale value, a mixed-size read's split) cannot be enumerated by it. Loom
//! takes the first option there, and an exploration that met such a choice is reported
//! incomplete (*bounded*), never verified.

use crate::runtime::sched::{Engine, Exploration, Flow, Footprint, Point, RunOne, Sched, Shape};
use loom::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Loom's exhaustive exploration.
#[derive(Clone, Debug)]
pub struct Loom {
    /// Bound on preemptions per execution (`None`: unbounded, exhaustive).
    pub preemption_bound: Option<usize>,
    /// Loom's `Builder::max_branches`: "Maximum number of thread switches per permutation"
    /// (loom's own docs); an execution past it makes loom panic.
    pub max_branches: usize,
}

impl Default for Loom {
    fn default() -> Loom {
        Loom {
            preemption_bound: None,
            max_branches: 100_000,
        }
    }
}

/// Thrown out of loom's model to end the exploration early.
struct StopExploring;

struct LoomSched {
    mirrors: Vec<AtomicUsize>,
    /// Per block (its barriers), per mbarrier.
    blocks: Vec<AtomicUsize>,
    mbarriers: Vec<AtomicUsize>,
    ticker: AtomicUsize,
    /// Set when the runtime asked for a choice of two or more options (see the module doc).
    choices_cut: Arc<AtomicBool>,
    handles: Mutex<Vec<loom::thread::JoinHandle<()>>>,
    threads: Mutex<Vec<loom::thread::Thread>>,
}

impl Sched for LoomSched {
    fn spawn(&self, _thread: usize, body: Box<dyn FnOnce() + Send + 'static>) {
        let handle = loom::thread::spawn(body);
        self.threads.lock().unwrap().push(handle.thread().clone());
        self.handles.lock().unwrap().push(handle);
    }

    fn join_all(&self) {
        let handles = std::mem::take(&mut *self.handles.lock().unwrap());
        for h in handles {
            h.join().expect("GPU threads catch their own panics");
        }
    }

    fn point(&self, _thread: usize, point: Point) -> Option<u32> {
        match point {
            Point::Read(loc) => Some(self.mirrors[loc].load(Relaxed) as u32),
            // A copy's element write appends a store to its destination, as a store does.
            Point::Write(loc)
            | Point::Async(Footprint {
                write: Some(loc), ..
            }) => {
                self.mirrors[loc].fetch_add(1, Relaxed);
                None
            }
            Point::Local => None,
            Point::Barrier(block)
            | Point::NamedBarrier { block, .. }
            | Point::Warp { block, .. } => {
                self.blocks[block].fetch_add(1, Relaxed);
                None
            }
            Point::MBarrier(bar) | Point::MBarrierWait(bar) => {
                self.mbarriers[bar].fetch_add(1, Relaxed);
                None
            }
            Point::Async(_) | Point::ScFence | Point::Other => {
                self.ticker.fetch_add(1, Relaxed);
                None
            }
        }
    }

    fn choose(&self, n: usize) -> usize {
        // Loads take loom's mirror choice; any other choice is one loom cannot enumerate.
        if n > 1 {
            self.choices_cut.store(true, Ordering::Relaxed);
        }
        0
    }

    fn park(&self, _thread: usize) {
        loom::thread::park();
    }

    fn unpark(&self, thread: usize) {
        let t = self.threads.lock().unwrap()[thread].clone();
        t.unpark();
    }
}

impl Engine for Loom {
    fn name(&self) -> String {
        match self.preemption_bound {
            Some(b) => format!("loom(preemption bound {b})"),
            None => "loom".to_string(),
        }
    }

    fn max_threads(&self) -> Option<usize> {
        Some(loom::MAX_THREADS - 1)
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        crate::runtime::panics::install_hook();
        if shape.threads > loom::MAX_THREADS - 1 {
            return Exploration {
                error: Some(format!(
                    "loom runs at most {} GPU threads; this kernel has {}",
                    loom::MAX_THREADS - 1,
                    shape.threads
                )),
                ..Exploration::default()
            };
        }
        let stop = Arc::new(AtomicBool::new(false));
        let choices_cut = Arc::new(AtomicBool::new(false));
        let executions = Arc::new(AtomicU64::new(0));
        let mut builder = loom::model::Builder::new();
        builder.max_branches = self.max_branches;
        builder.preemption_bound = self.preemption_bound;
        let (stop2, executions2) = (Arc::clone(&stop), Arc::clone(&executions));
        let cut2 = Arc::clone(&choices_cut);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            builder.check(move || {
                if stop2.load(Ordering::Relaxed) {
                    resume_unwind(Box::new(StopExploring));
                }
                executions2.fetch_add(1, Ordering::Relaxed);
                let sched = Arc::new(LoomSched {
                    mirrors: (0..shape.locations).map(|_| AtomicUsize::new(0)).collect(),
                    blocks: (0..shape.blocks).map(|_| AtomicUsize::new(0)).collect(),
                    mbarriers: (0..shape.mbarriers).map(|_| AtomicUsize::new(0)).collect(),
                    ticker: AtomicUsize::new(0),
                    choices_cut: Arc::clone(&cut2),
                    handles: Mutex::new(Vec::new()),
                    threads: Mutex::new(Vec::new()),
                });
                let sched: Arc<dyn Sched> = sched;
                if run(&sched) == Flow::Stop {
                    stop2.store(true, Ordering::Relaxed);
                }
            })
        }));
        let executions = executions.load(Ordering::Relaxed);
        match outcome {
            Ok(()) => Exploration {
                executions,
                complete: self.preemption_bound.is_none() && !choices_cut.load(Ordering::Relaxed),
                error: None,
            },
            Err(payload) if payload.is::<StopExploring>() => Exploration {
                executions,
                complete: false,
                error: None,
            },
            Err(payload) => Exploration {
                executions,
                complete: false,
                error: Some(format!(
                    "loom stopped: {}",
                    crate::runtime::panics::message(&*payload)
                )),
            },
        }
    }
}
