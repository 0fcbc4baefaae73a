//! The exploration driver every engine on shuttle's coroutines shares: shuttle supplies
//! coroutines and parking; our [`DecisionScheduler`] sits in front of the decision source a
//! strategy gives it ([`Mode`]: the DFS's [`Tree`], a shuttle scheduler, a [`Walk`], a replay
//! token) so that scheduling decisions are made only where they matter.
//!
//! The rule: a *decision* is taken only when every runnable task sits at a scheduling point with
//! one visible operation pending; then choosing a task = choosing which thread performs the next
//! operation. Tasks that are not at such a point (the main thread, a fresh or just-woken GPU
//! thread) only do thread-local work until their next point, so they run first, in a fixed order.
//! One decision sequence is thus one execution, and the same sequence means the same thing under
//! every engine — which is what makes replay tokens engine-independent.

use super::tree::Tree;
use super::walk::Walk;
use crate::runtime::report::Decision;
use crate::runtime::sched::{Exploration, Flow, MBarrierStep, Point, RunOne, Sched, Shape};
use shuttle::scheduler::{Schedule, Scheduler, Task, TaskId};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Where decisions come from.
pub(crate) enum Mode {
    /// Exhaustive depth-first enumeration (with or without partial-order reduction).
    Dfs(Box<Tree>),
    /// Delegate to a shuttle scheduler (random, PCT); data choices use its randomness.
    Inner(Box<dyn Scheduler + Send>),
    /// A sampling strategy over our decisions (PCT, the uniform random walk: see [`Walk`]).
    Walk(Box<dyn Walk>),
    /// Follow a recorded token.
    Replay {
        decisions: Vec<Decision>,
        pos: usize,
        started: bool,
    },
}

/// State shared by the scheduler (owned by shuttle's runner) and the per-execution [`ShuttleSched`].
pub(crate) struct Log {
    pub mode: Mode,
    /// Per shuttle task: the GPU thread waiting at a scheduling point and what it will do.
    pending: Vec<Option<(usize, Point)>>,
    /// Per shuttle task: the GPU thread it runs (once it reached a scheduling point).
    task_thread: Vec<Option<usize>>,
    pub stop: bool,
    /// Executions started, discarded ones included.
    pub executions: u64,
    /// Executions discarded ([`Flow::Discarded`]).
    pub discarded: u64,
    /// The budget, in executions started (discarded ones included).
    pub max_executions: u64,
    pub error: Option<String>,
    /// Shared by the searches of one parallel search: raised when any of them stops (a
    /// failure, the budget), after which none starts another execution.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Log {
    pub fn new(mode: Mode, max_executions: u64) -> Log {
        Log {
            mode,
            pending: Vec::new(),
            task_thread: Vec::new(),
            stop: false,
            executions: 0,
            discarded: 0,
            max_executions,
            error: None,
            cancel: None,
        }
    }

    /// Whether the budget is spent: `max_executions` executions started, discarded ones
    /// included (the report prints both counts: "N executions (+M discarded)"). Counting only
    /// kept executions let searches that discard nearly everything (spin loops) run many times
    /// longer than their budget, which the bug corpus under every engine could not afford.
    fn spent(&self) -> bool {
        self.executions >= self.max_executions
    }

    fn choose(&mut self, n: usize) -> usize {
        match &mut self.mode {
            Mode::Dfs(log) => log.branch(n),
            Mode::Inner(inner) => (inner.next_u64() % n as u64) as usize,
            Mode::Walk(walk) => walk.choose(n),
            Mode::Replay { decisions, pos, .. } => match decisions.get(*pos) {
                Some(&Decision::Pick(k)) if (k as usize) < n => {
                    *pos += 1;
                    k as usize
                }
                // Past the token's end only halted threads unwind; nothing is decided any more.
                None => 0,
                other => {
                    self.error.get_or_insert_with(|| {
                        format!("replay token does not fit this kernel: expected a choice among {n} stores, found {other:?}")
                    });
                    0
                }
            },
        }
    }

    fn set_pending(&mut self, task: usize, op: Option<(usize, Point)>) {
        if self.pending.len() <= task {
            self.pending.resize(task + 1, None);
        }
        self.pending[task] = op;
        if let Some((thread, _)) = op {
            if self.task_thread.len() <= task {
                self.task_thread.resize(task + 1, None);
            }
            self.task_thread[task] = Some(thread);
        }
    }

    fn pending(&self, task: usize) -> Option<usize> {
        self.pending_op(task).map(|(thread, _)| thread)
    }

    fn pending_op(&self, task: usize) -> Option<(usize, Point)> {
        self.pending.get(task).copied().flatten()
    }
}

pub(crate) struct DecisionScheduler {
    pub log: Arc<Mutex<Log>>,
}

impl Scheduler for DecisionScheduler {
    fn new_execution(&mut self) -> Option<Schedule> {
        let mut log = self.log.lock().unwrap();
        let cancelled = log
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::SeqCst));
        if log.stop || log.spent() || cancelled {
            // Let a wrapped shuttle scheduler see its end (shuttle's random scheduler prints a
            // "failing seed" banner when dropped before it ran out).
            if let Mode::Inner(inner) = &mut log.mode {
                while inner.new_execution().is_some() {}
            }
            return None;
        }
        log.pending.clear();
        log.task_thread.clear();
        let go = match &mut log.mode {
            Mode::Dfs(branches) => branches.next_execution(),
            Mode::Inner(inner) => inner.new_execution().is_some(),
            Mode::Walk(walk) => walk.new_execution(),
            Mode::Replay { started, pos, .. } => {
                *pos = 0;
                !std::mem::replace(started, true)
            }
        };
        if !go {
            return None;
        }
        log.executions += 1;
        Some(Schedule::new(0))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        _yielding: bool,
    ) -> Option<TaskId> {
        let mut log = self.log.lock().unwrap();
        let live: Vec<&Task> = runnable.iter().copied().filter(|t| t.runnable()).collect();
        let live = if live.is_empty() {
            runnable.to_vec()
        } else {
            live
        };
        // Thread-local work first: the current task if it may go on, else the oldest such task.
        let free = |t: &Task| log.pending(usize::from(t.id())).is_none();
        if let Some(cur) = current.filter(|c| live.iter().any(|t| t.id() == *c && free(t))) {
            return Some(cur);
        }
        if let Some(t) = live.iter().find(|t| free(t)) {
            return Some(t.id());
        }
        // A real decision: which pending operation runs next.
        let chosen = match &mut log.mode {
            Mode::Dfs(_) => {
                let enabled: Vec<(usize, Point)> = live
                    .iter()
                    .map(|t| {
                        log.pending_op(usize::from(t.id()))
                            .expect("every live task waits at a point")
                    })
                    .collect();
                let Mode::Dfs(tree) = &mut log.mode else {
                    unreachable!()
                };
                live[tree.schedule(&enabled)].id()
            }
            Mode::Inner(inner) => inner
                .next_task(&live, current, false)
                .unwrap_or(live[0].id()),
            Mode::Walk(_) => {
                let threads: Vec<usize> = live
                    .iter()
                    .map(|t| log.pending(usize::from(t.id())).unwrap_or(0))
                    .collect();
                let Mode::Walk(walk) = &mut log.mode else {
                    unreachable!()
                };
                live[walk.decide(&threads)].id()
            }
            Mode::Replay { decisions, pos, .. } => {
                let want = match decisions.get(*pos) {
                    Some(&Decision::Run(t)) => Some(t as usize),
                    _ => None,
                };
                if *pos >= decisions.len() {
                    // Past the token's end only halted threads unwind: any order will do.
                    let first = live[0].id();
                    log.set_pending(usize::from(first), None);
                    return Some(first);
                }
                let found = want.and_then(|w| {
                    live.iter()
                        .find(|t| log.pending(usize::from(t.id())) == Some(w))
                });
                match found {
                    Some(t) => {
                        if let Mode::Replay { pos, .. } = &mut log.mode {
                            *pos += 1;
                        }
                        t.id()
                    }
                    None => {
                        let msg = format!(
                            "replay token does not fit this kernel: decision {} wants {:?}, but the \
                             threads ready to run are {:?}",
                            match &log.mode {
                                Mode::Replay { pos, .. } => *pos,
                                _ => 0,
                            },
                            want,
                            live.iter().filter_map(|t| log.pending(usize::from(t.id()))).collect::<Vec<_>>()
                        );
                        log.error.get_or_insert(msg);
                        live[0].id()
                    }
                }
            }
        };
        log.set_pending(usize::from(chosen), None);
        Some(chosen)
    }

    fn next_u64(&mut self) -> u64 {
        match &mut self.log.lock().unwrap().mode {
            Mode::Inner(inner) => inner.next_u64(),
            _ => 0,
        }
    }
}

/// The per-execution services over shuttle.
pub(crate) struct ShuttleSched {
    log: Arc<Mutex<Log>>,
    handles: Mutex<Vec<shuttle::thread::JoinHandle<()>>>,
    threads: Mutex<Vec<shuttle::thread::Thread>>,
}

impl Sched for ShuttleSched {
    fn spawn(&self, _thread: usize, body: Box<dyn FnOnce() + Send + 'static>) {
        let handle = shuttle::thread::spawn(body);
        self.threads.lock().unwrap().push(handle.thread().clone());
        self.handles.lock().unwrap().push(handle);
    }

    fn join_all(&self) {
        let handles = std::mem::take(&mut *self.handles.lock().unwrap());
        for h in handles {
            // Our threads catch their own panics; a join error would be a bug in the runtime.
            h.join().expect("GPU threads catch their own panics");
        }
    }

    fn point(&self, thread: usize, point: Point) -> Option<u32> {
        let task = shuttle::current::get_current_task().expect("inside a shuttle task");
        self.log
            .lock()
            .unwrap()
            .set_pending(usize::from(task), Some((thread, point)));
        shuttle::thread::yield_now();
        None
    }

    fn choose(&self, n: usize) -> usize {
        self.log.lock().unwrap().choose(n)
    }

    fn park(&self, _thread: usize) {
        shuttle::thread::park();
    }

    fn halted(&self, thread: usize) {
        if let Mode::Dfs(tree) = &mut self.log.lock().unwrap().mode {
            tree.halted(thread);
        }
    }

    fn mbarrier_step(&self, thread: usize, step: MBarrierStep) {
        if let Mode::Dfs(tree) = &mut self.log.lock().unwrap().mode {
            tree.mbarrier_step(thread, step);
        }
    }

    fn unpark(&self, thread: usize) {
        {
            // The waker's latest operation happens before whatever the woken thread does next.
            let mut log = self.log.lock().unwrap();
            let waker = shuttle::current::get_current_task()
                .and_then(|task| log.task_thread.get(usize::from(task)).copied().flatten());
            if let (Some(waker), Mode::Dfs(tree)) = (waker, &mut log.mode) {
                tree.woke(waker, thread);
            }
        }
        let t = self.threads.lock().unwrap()[thread].clone();
        t.unpark();
    }
}

/// Run `run` under shuttle with decisions from `mode`.
pub(crate) fn explore_with(
    mode: Mode,
    max_executions: u64,
    shape: Shape,
    run: RunOne,
) -> (Exploration, Arc<Mutex<Log>>) {
    explore_cancellable(mode, max_executions, shape, run, None)
}

/// [`explore_with`], stopping when `cancel` is raised (and raising it when `run` stops).
pub(crate) fn explore_cancellable(
    mode: Mode,
    max_executions: u64,
    _shape: Shape,
    run: RunOne,
    cancel: Option<Arc<AtomicBool>>,
) -> (Exploration, Arc<Mutex<Log>>) {
    crate::runtime::panics::install_hook();
    let mut log = Log::new(mode, max_executions);
    log.cancel = cancel;
    let log = Arc::new(Mutex::new(log));
    let scheduler = DecisionScheduler {
        log: Arc::clone(&log),
    };
    let mut config = shuttle::Config::new();
    config.failure_persistence = shuttle::FailurePersistence::None;
    config.max_steps = shuttle::MaxSteps::None;
    config.silence_warnings = true;
    config.stack_size = 0x4_0000;
    let inner_log = Arc::clone(&log);
    shuttle::Runner::new(scheduler, config).run(move || {
        let sched: Arc<dyn Sched> = Arc::new(ShuttleSched {
            log: Arc::clone(&inner_log),
            handles: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
        });
        match run(&sched) {
            Flow::Stop => {
                let mut log = inner_log.lock().unwrap();
                log.stop = true;
                if let Some(cancel) = &log.cancel {
                    cancel.store(true, Ordering::SeqCst);
                }
            }
            Flow::Discarded => inner_log.lock().unwrap().discarded += 1,
            Flow::Continue => {}
        }
    });
    let l = log.lock().unwrap();
    let complete = match &l.mode {
        Mode::Dfs(branches) => branches.exhausted() && !l.stop,
        _ => false,
    };
    let exploration = Exploration {
        executions: l.executions,
        complete,
        error: l.error.clone(),
    };
    drop(l);
    (exploration, log)
}
