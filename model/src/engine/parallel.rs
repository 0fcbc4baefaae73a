//! The DFS on several cores: the branches of the search's first decision (its *root*) are
//! explored by `jobs` workers at once, each branch by one worker as a search of its own, and the
//! result is the one-thread search's: the same executions, so the same verdicts and counts.
//!
//! Why the split is exact. The one-thread search (see [`super::tree`]) explores the root's
//! branches one after the other, in the order of the root's backtrack set (every store of a
//! data decision). A branch's search depends on the root only through the branches taken there
//! before it (its sleep set: those of them that commute with its first operation), never
//! through what later branches do; and it changes the root only by answering races there,
//! which appends threads to the root's backtrack set (`Root::answer`: whether a race adds a
//! thread depends on what the set already holds). So given the order of the branches, each
//! branch's search is fixed and can run as soon as its place in the order is known; only the
//! answers to root races must be applied in the one-thread order: all of branch 0's, in the
//! order it met them, then branch 1's, and so on. The coordinator applies the races of the
//! earliest unfinished branch as they come, keeps those of later branches until every earlier
//! branch has finished, and hands each new branch of the root to the next free worker. The union
//! of the branches' searches is the one-thread search, execution for execution.
//!
//! A failure (or the execution budget) stops every worker: the verdict is the same, but which
//! failing execution is reported first, and how many executions ran before it, may differ.

use super::dfs::Dfs;
use super::explore::{explore_cancellable, Mode};
use super::tree::{Root, RootSink, Tree};
use crate::runtime::sched::{Engine, Exploration, Flow, RunOne, Shape};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Our DFS ([`Dfs`]) on `jobs` worker threads.
#[derive(Clone, Debug)]
pub struct ParallelDfs {
    /// The search each worker runs on its branches (its budget counts over all workers).
    pub dfs: Dfs,
    /// Worker threads (1: the one-thread search on a worker).
    pub jobs: usize,
}

impl Engine for ParallelDfs {
    fn name(&self) -> String {
        format!("{}(jobs={})", self.dfs.name(), self.jobs)
    }

    fn prunes_spins(&self) -> bool {
        self.dfs.prunes_spins()
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        explore_parallel(&self.dfs, self.jobs.max(1), shape, run)
    }
}

/// The coordinator's state.
#[derive(Default)]
struct Coordinator {
    /// The root, once branch 0 created it (never, if the search has no decision at all).
    root: Option<Root>,
    /// Branch 0 finished without creating a root: the search was one execution.
    rootless: bool,
    /// Branches handed to workers so far.
    started: usize,
    /// Per branch: finished.
    finished: Vec<bool>,
    /// The earliest unfinished branch, whose races are applied as they come.
    current: usize,
    /// Races of later branches, kept until their turn.
    kept: Vec<Vec<Vec<usize>>>,
    /// Per branch: its search's exploration.
    explored: Vec<Option<Exploration>>,
}

impl Coordinator {
    /// The branches of the root known so far (branch 0 runs before the root is known).
    fn branches(&self) -> usize {
        match &self.root {
            Some(root) => root.branches().len(),
            None => 1,
        }
    }

    fn done(&self) -> bool {
        (self.rootless || self.root.is_some())
            && self.current >= self.branches()
            && self.started >= self.branches()
    }

    fn slot<T: Default>(v: &mut Vec<T>, i: usize) -> &mut T {
        if v.len() <= i {
            v.resize_with(i + 1, T::default);
        }
        &mut v[i]
    }

    /// Branch `branch` finished: the following branches' kept races now apply, in order.
    fn finish(&mut self, branch: usize, exploration: Exploration) {
        *Coordinator::slot(&mut self.finished, branch) = true;
        *Coordinator::slot(&mut self.explored, branch) = Some(exploration);
        if branch == 0 && self.root.is_none() {
            self.rootless = true;
        }
        while self.current < self.branches()
            && self.finished.get(self.current).copied().unwrap_or(false)
        {
            self.current += 1;
            let kept = std::mem::take(Coordinator::slot(&mut self.kept, self.current));
            if let Some(root) = &mut self.root {
                for initials in &kept {
                    root.answer(initials);
                }
            }
        }
    }
}

/// The coordinator as the branches' trees see it.
struct Shared {
    state: Mutex<Coordinator>,
    wake: Condvar,
}

impl RootSink for Shared {
    fn root(&self, root: Root) {
        self.state.lock().unwrap().root = Some(root);
        self.wake.notify_all();
    }

    fn wish(&self, branch: usize, initials: Vec<usize>) {
        let mut state = self.state.lock().unwrap();
        if branch == state.current {
            if let Some(root) = &mut state.root {
                root.answer(&initials);
            }
        } else {
            Coordinator::slot(&mut state.kept, branch).push(initials);
        }
        drop(state);
        self.wake.notify_all();
    }
}

/// Explore with `jobs` workers (see the module documentation).
fn explore_parallel(dfs: &Dfs, jobs: usize, shape: Shape, run: RunOne) -> Exploration {
    let shared = Arc::new(Shared {
        state: Mutex::new(Coordinator::default()),
        wake: Condvar::new(),
    });
    let cancel = Arc::new(AtomicBool::new(false));
    let total = Arc::new(AtomicU64::new(0));
    let budget_hit = Arc::new(AtomicBool::new(false));
    // Every worker's executions count toward one budget.
    let counted: RunOne = {
        let (total, cancel, budget_hit) = (
            Arc::clone(&total),
            Arc::clone(&cancel),
            Arc::clone(&budget_hit),
        );
        let max = dfs.max_executions;
        Arc::new(move |sched| {
            let flow = run(sched);
            if total.fetch_add(1, Ordering::SeqCst) + 1 >= max && flow != Flow::Stop {
                budget_hit.store(true, Ordering::SeqCst);
                cancel.store(true, Ordering::SeqCst);
            }
            flow
        })
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (shared, cancel, counted) = (
                Arc::clone(&shared),
                Arc::clone(&cancel),
                Arc::clone(&counted),
            );
            let reduce = dfs.reduction;
            scope.spawn(move || {
                let _guard = crate::runtime::panics::ModelGuard::enter();
                worker(&shared, reduce, shape, counted, cancel)
            });
        }
    });
    let state = shared.state.lock().unwrap();
    let mut out = Exploration {
        complete: !cancel.load(Ordering::SeqCst) && !budget_hit.load(Ordering::SeqCst),
        ..Exploration::default()
    };
    for e in state.explored.iter().flatten() {
        out.executions += e.executions;
        out.complete &= e.complete;
        if out.error.is_none() {
            out.error = e.error.clone();
        }
    }
    out
}

/// One worker: take the next branch whose place in the order is known, search it, repeat.
fn worker(shared: &Arc<Shared>, reduce: bool, shape: Shape, run: RunOne, cancel: Arc<AtomicBool>) {
    loop {
        let (branch, tree) = {
            let mut state = shared.state.lock().unwrap();
            loop {
                if state.done() || cancel.load(Ordering::SeqCst) {
                    return;
                }
                if state.started < state.branches() && (state.started == 0 || state.root.is_some())
                {
                    break;
                }
                state = shared.wake.wait(state).unwrap();
            }
            let branch = state.started;
            state.started += 1;
            let sink: Arc<dyn RootSink> = Arc::clone(shared) as Arc<dyn RootSink>;
            let tree = match &state.root {
                Some(root) => {
                    let order = root.branches();
                    Tree::root_branch(reduce, sink, branch, Some((root, &order)))
                }
                None => Tree::root_branch(reduce, sink, branch, None),
            };
            (branch, tree)
        };
        let mode = Mode::Dfs(Box::new(tree));
        let (exploration, _) = explore_cancellable(
            mode,
            u64::MAX,
            shape,
            Arc::clone(&run),
            Some(Arc::clone(&cancel)),
        );
        shared.state.lock().unwrap().finish(branch, exploration);
        shared.wake.notify_all();
    }
}
