//! The DFS's decision tree, with dynamic partial-order reduction.
//!
//! Every execution is a sequence of decisions: at a *scheduling node*, which of the threads
//! waiting at a scheduling point performs its operation next; at a *data node*, which of several
//! readable stores a load reads. The tree replays the prefix of the previous execution and moves
//! to the deepest node with an alternative left, so every path is run exactly once.
//!
//! Reduction: source-set DPOR with sleep sets (Abdulla, Aronis, Jonsson and Sagonas, "Optimal
//! dynamic partial order reduction", POPL 2014, Algorithm 1). A scheduling node does not try
//! every waiting thread, only those in its *backtrack set*. Each execution starts every new
//! node's set with the thread it ran; then every operation `e'` the execution performs is checked
//! against the earlier operations `e` it *races* with (dependent, by another thread, and ordered
//! before `e'` by happens-before only through their own dependence). For each such race, let `v`
//! be the operations after `e` that do not happen after it, followed by `e'`: running `v` from
//! the state before `e` reverses the race. Unless the backtrack set of `e`'s node already holds
//! one of `v`'s *initials* (the threads whose first operation in `v` has no happens-before
//! predecessor in `v`), one of them is added. Two operations are dependent when they are by
//! different threads and may not commute: [`super::dependence::dependent`] says which do, with
//! the argument for each case (locations, asynchronous copies by their
//! [`crate::runtime::sched::Footprint`], barriers, warp operations, mbarriers, `fence.sc`), and
//! [`super::dependence::dependent_known`] refines it by what the trace knows of each operation:
//! the instance an arrival at a counted named barrier joins (`Trace::joining`), and what an
//! operation on an mbarrier did there (whether it completed the phase, whether it is an arrival),
//! which the runtime reports right after the operation ran ([`Tree::mbarrier_step`]): such an
//! operation is analysed and recorded only then (`Tree::settle`).
//! Happens-before is the program
//! order of each thread, dependence between executed operations, and wake-ups (an operation that
//! unblocks a thread precedes everything that thread does next).
//!
//! Sleep sets (Godefroid): a node skips the threads whose next operation was explored in a sibling
//! branch and commutes with everything run since. They are sound together with source sets, not
//! with Flanagan and Godefroid's rule ("add the racing thread itself if it was enabled"): that
//! rule reverses a race in several steps, each from an execution that the sleep set may skip (a
//! load that must read a store made *after* the earlier node, in a branch where the load sleeps
//! until that store, is then never reordered with a later write).
//!
//! Every Mazurkiewicz trace — every class of executions equal up to swapping adjacent independent
//! operations — is still explored, so the same final states, races, deadlocks and assertion
//! failures are reached.

use super::dependence::{dependent_known, on_mbarrier, Known};
use super::trace::{happens_before, Event, Trace};
use crate::runtime::sched::{MBarrierStep, Point};

#[derive(Clone, Debug)]
enum Node {
    /// A load chose `chosen` among `options` stores.
    Data { chosen: usize, options: usize },
    /// Thread `chosen` ran among the `enabled` ones (GPU thread ids, in the order offered).
    Sched {
        enabled: Vec<usize>,
        /// Each enabled thread's next operation.
        ops: Vec<Point>,
        chosen: usize,
        backtrack: Vec<usize>,
        done: Vec<usize>,
        /// The sleep set on arrival: threads whose next operation was explored in a sibling
        /// branch and commutes with everything run since.
        sleep: Vec<(usize, Point)>,
    },
}

/// Answer one race at a scheduling node: unless its backtrack set already holds one of the
/// race's `initials` (those enabled there), add one, awake if possible; with no initial enabled
/// there (not expected), add every enabled thread.
fn add_initial(
    enabled: &[usize],
    backtrack: &mut Vec<usize>,
    sleep: &[(usize, Point)],
    initials: &[usize],
) {
    if initials.is_empty() {
        for &t in enabled {
            if !backtrack.contains(&t) {
                backtrack.push(t);
            }
        }
    } else if !initials.iter().any(|q| backtrack.contains(q)) {
        let awake = initials
            .iter()
            .copied()
            .find(|q| !sleep.iter().any(|(s, _)| s == q));
        backtrack.push(awake.unwrap_or(initials[0]));
    }
}

/// The first decision of a search, which the parallel search splits on: its branches are the
/// subtrees the one-thread search explores one after the other.
#[derive(Clone, Debug)]
pub(crate) struct Root(Node);

impl Root {
    /// The branches known so far, in the order the one-thread search takes them: every store
    /// of a data decision; the backtrack set of a scheduling decision (which races found in
    /// its branches extend through [`Root::answer`]).
    pub fn branches(&self) -> Vec<usize> {
        match &self.0 {
            Node::Data { options, .. } => (0..*options).collect(),
            Node::Sched { backtrack, .. } => backtrack.clone(),
        }
    }

    /// Answer a race found in a branch ([`add_initial`]), as the one-thread search does when
    /// it meets the race.
    pub fn answer(&mut self, initials: &[usize]) {
        if let Node::Sched {
            enabled,
            backtrack,
            sleep,
            ..
        } = &mut self.0
        {
            add_initial(enabled, backtrack, sleep, initials);
        }
    }
}

/// Where a branch of a parallel search reports the root it created and the races it found at
/// the root (`parallel.rs`).
pub(crate) trait RootSink: Send + Sync {
    /// Branch 0 created the root decision.
    fn root(&self, root: Root);
    /// A race of `branch` to answer at the root, with its initials enabled there.
    fn wish(&self, branch: usize, initials: Vec<usize>);
}

/// The decisions of the DFS: replay a prefix, branch at the deepest node with an alternative.
pub struct Tree {
    stack: Vec<Node>,
    /// Next node of the stack to replay or create.
    pos: usize,
    /// Nodes below this index were replayed from the previous execution (already analysed).
    replayed: usize,
    started: bool,
    exhausted: bool,
    reduce: bool,
    trace: Trace,
    /// The current state's sleep set (reduction only).
    sleep: Vec<(usize, Point)>,
    /// The current execution ended; the remaining threads only unwind.
    halted: bool,
    /// Nodes below this depth belong to a parallel search's coordinator: the search never
    /// backtracks into them, and their races go to `sink` (0: the whole tree is this search's).
    frozen: usize,
    /// The coordinator of a parallel search, and which of its root's branches this tree is.
    sink: Option<(std::sync::Arc<dyn RootSink>, usize)>,
    /// Branch 0 of a parallel search reported the root.
    published: bool,
    /// The operation chosen last, when it changes an mbarrier: its analysis and its place in
    /// the trace wait for what it did there ([`Tree::mbarrier_step`]).
    unsettled: Option<Unsettled>,
}

/// An operation chosen at a scheduling point and not analysed yet ([`Tree::settle`]).
struct Unsettled {
    thread: usize,
    point: Point,
    /// Its scheduling node.
    node: Option<usize>,
    /// It is new in this execution (its races were not analysed by an earlier one).
    fresh: bool,
}

impl Tree {
    /// A tree that tries every enabled thread at every scheduling node (`reduce: false`), or
    /// only those dynamic partial-order reduction asks for.
    pub fn new(reduce: bool) -> Tree {
        Tree {
            stack: Vec::new(),
            pos: 0,
            replayed: 0,
            started: false,
            exhausted: false,
            reduce,
            trace: Trace::default(),
            sleep: Vec::new(),
            halted: false,
            frozen: 0,
            sink: None,
            published: false,
            unsettled: None,
        }
    }

    /// The search of branch `branch` of a parallel search's root (see `parallel.rs`):
    /// branch 0 creates the root and reports it to `sink`; a later branch starts from `root`
    /// with `branch`'s choice taken there after the `done` ones (the branches the one-thread
    /// search explores before it), exactly as the one-thread search enters it.
    pub(crate) fn root_branch(
        reduce: bool,
        sink: std::sync::Arc<dyn RootSink>,
        branch: usize,
        root: Option<(&Root, &[usize])>,
    ) -> Tree {
        let mut tree = Tree::new(reduce);
        tree.frozen = 1;
        tree.sink = Some((sink, branch));
        if let Some((Root(node), done)) = root {
            let mut node = node.clone();
            match &mut node {
                Node::Data { chosen, .. } => *chosen = done[branch],
                Node::Sched {
                    chosen,
                    done: taken,
                    ..
                } => {
                    *chosen = done[branch];
                    *taken = done[..=branch].to_vec();
                }
            }
            tree.stack.push(node);
            tree.replayed = 1;
        }
        tree
    }

    /// After a node was pushed: in a parallel search's branch 0, the first one is the root,
    /// which the coordinator learns of.
    fn created(&mut self) {
        if let (Some((sink, 0)), Some(root), false) =
            (&self.sink, self.stack.first(), self.published)
        {
            sink.root(Root(root.clone()));
            self.published = true;
        }
    }

    /// Prepare the next execution; `false` when every path has been run.
    pub fn next_execution(&mut self) -> bool {
        self.settle(None);
        self.pos = 0;
        self.trace = Trace::default();
        self.sleep.clear();
        self.halted = false;
        if !std::mem::replace(&mut self.started, true) {
            return true;
        }
        while self.stack.len() > self.frozen {
            let Some(top) = self.stack.last_mut() else {
                break;
            };
            match top {
                Node::Data { chosen, options } if *chosen + 1 < *options => {
                    *chosen += 1;
                    self.replayed = self.stack.len();
                    return true;
                }
                Node::Sched {
                    chosen,
                    backtrack,
                    done,
                    sleep,
                    ..
                } => {
                    let asleep = |p: &usize| sleep.iter().any(|(t, _)| t == p);
                    if let Some(&p) = backtrack.iter().find(|p| !done.contains(p) && !asleep(p)) {
                        *chosen = p;
                        done.push(p);
                        self.replayed = self.stack.len();
                        return true;
                    }
                }
                Node::Data { .. } => {}
            }
            self.stack.pop();
        }
        self.exhausted = true;
        false
    }

    /// A data decision among `n` options.
    pub fn branch(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let choice = match self.stack.get(self.pos) {
            Some(&Node::Data { chosen, options }) if options == n => chosen,
            other => {
                // The prefix diverged (the kernel is not deterministic): restart this branch.
                if other.is_some() {
                    self.stack.truncate(self.pos);
                }
                self.stack.push(Node::Data {
                    chosen: 0,
                    options: n,
                });
                self.created();
                0
            }
        };
        self.pos += 1;
        choice
    }

    /// A scheduling decision: which of `enabled` (thread, next operation) runs. Returns its index.
    pub fn schedule(&mut self, enabled: &[(usize, Point)]) -> usize {
        self.settle(None);
        if self.halted {
            // The execution is over: the remaining threads only unwind, in any order. The
            // operations they were about to perform never happen, but each of them races with
            // the one that ended the execution (see [`Tree::halted`]).
            if self.reduce {
                for &(thread, op) in enabled {
                    let known = Known {
                        joined: self.trace.joining(op),
                        mbarrier: None,
                    };
                    self.analyse(thread, op, known);
                }
            }
            return 0;
        }
        let threads: Vec<usize> = enabled.iter().map(|&(t, _)| t).collect();
        // Is the operation chosen here new in this execution (not part of the replayed prefix,
        // whose races earlier executions analysed)? A node at `pos` is new from the flipped one
        // (`replayed - 1`) on; an operation without a node, from `replayed` on.
        let fresh = if threads.len() == 1 {
            self.pos >= self.replayed
        } else {
            self.pos + 1 >= self.replayed
        };
        let mut passed: Vec<(usize, Point)> = Vec::new();
        let (thread, node) = if threads.len() == 1 {
            (threads[0], None)
        } else {
            let chosen = match self.stack.get(self.pos) {
                Some(Node::Sched {
                    enabled,
                    chosen,
                    done,
                    ops,
                    ..
                }) if *enabled == threads => {
                    // Siblings explored before `chosen` sleep in its branch.
                    passed = done
                        .iter()
                        .filter(|&&q| q != *chosen)
                        .map(|&q| (q, ops[enabled.iter().position(|&t| t == q).unwrap_or(0)]))
                        .collect();
                    *chosen
                }
                other => {
                    if other.is_some() {
                        self.stack.truncate(self.pos);
                    }
                    let sleep = if self.reduce {
                        self.sleep.clone()
                    } else {
                        Vec::new()
                    };
                    // The first thread not asleep (all asleep: this branch is redundant, but
                    // it still has to run to its end).
                    let first = threads
                        .iter()
                        .copied()
                        .find(|t| !sleep.iter().any(|(s, _)| s == t))
                        .unwrap_or(threads[0]);
                    let backtrack = if self.reduce {
                        vec![first]
                    } else {
                        threads.clone()
                    };
                    self.stack.push(Node::Sched {
                        enabled: threads.clone(),
                        ops: enabled.iter().map(|&(_, op)| op).collect(),
                        chosen: first,
                        backtrack,
                        done: vec![first],
                        sleep,
                    });
                    first
                }
            };
            if let Some(Node::Sched { sleep, .. }) = self.stack.get(self.pos) {
                if self.reduce {
                    self.sleep = sleep.clone();
                }
            }
            self.pos += 1;
            self.created();
            (chosen, Some(self.pos - 1))
        };
        let index = threads
            .iter()
            .position(|&t| t == thread)
            .expect("the chosen thread is enabled");
        let op = enabled[index].1;
        if self.reduce {
            self.sleep.extend(passed);
        }
        self.unsettled = Some(Unsettled {
            thread,
            point: op,
            node,
            fresh,
        });
        // An operation on an mbarrier that may change it waits for what it did there.
        if !on_mbarrier(op) || matches!(op, Point::MBarrierWait(_)) {
            self.settle(None);
        }
        index
    }

    /// `thread`'s operation chosen last did `step` on its mbarrier (see
    /// [`crate::runtime::sched::Sched::mbarrier_step`]): analyse and record it knowing that.
    pub fn mbarrier_step(&mut self, thread: usize, step: MBarrierStep) {
        if self.unsettled.as_ref().is_some_and(|u| u.thread == thread) {
            self.settle(Some(step));
        }
    }

    /// Analyse the races of the operation chosen last and record it in the trace, with what it
    /// did to its mbarrier if that is known (`None`: it conflicts with every operation on its
    /// mbarrier). Every other entry point of the tree settles it first, before it reads the
    /// trace: nothing but that operation's own step runs in between.
    fn settle(&mut self, step: Option<MBarrierStep>) {
        let Some(Unsettled {
            thread,
            point: op,
            node,
            fresh,
        }) = self.unsettled.take()
        else {
            return;
        };
        let known = Known {
            joined: self.trace.joining(op),
            mbarrier: step,
        };
        if self.reduce {
            if fresh {
                self.analyse(thread, op, known);
            }
            // What sleeps here and commutes with the chosen operation sleeps on (what a sleeping
            // operation would do is not known: see `dependent_in`).
            self.sleep.retain(|&(t, other)| {
                t != thread && !dependent_known(other, Known::default(), op, known)
            });
        }
        self.trace.push(thread, op, node, known);
    }

    /// Source-set DPOR's race reversal for operation `next` of thread `p`, about to run after
    /// the current trace.
    fn analyse(&mut self, p: usize, next: Point, known: Known) {
        let events = &self.trace.events;
        // Earlier operations `next` depends on and that `p` does not know of yet.
        let candidates: Vec<usize> = (0..events.len())
            .filter(|&i| {
                let e = &events[i];
                e.thread != p
                    && dependent_known(e.point, e.known, next, known)
                    && !self.trace.knows(p, e)
            })
            .collect();
        for &i in &candidates {
            // A race only if no other candidate lies between them in happens-before.
            let e = &events[i];
            if candidates
                .iter()
                .any(|&j| j > i && happens_before(e, &events[j]))
            {
                continue;
            }
            let Some(node) = e.node else { continue };
            // `v`: what follows `e` without happening after it, then `next`.
            let v: Vec<&Event> = events[i + 1..]
                .iter()
                .filter(|u| !happens_before(e, u))
                .collect();
            let mut seen: Vec<usize> = Vec::new();
            let mut initials: Vec<usize> = Vec::new();
            for (k, w) in v.iter().enumerate() {
                if seen.contains(&w.thread) {
                    continue;
                }
                seen.push(w.thread);
                if v[..k].iter().all(|u| !happens_before(u, w)) {
                    initials.push(w.thread);
                }
            }
            if !seen.contains(&p)
                && v.iter().all(|u| {
                    !self.trace.knows(p, u) && !dependent_known(u.point, u.known, next, known)
                })
            {
                initials.push(p);
            }
            let Node::Sched {
                enabled,
                backtrack,
                sleep,
                ..
            } = &mut self.stack[node]
            else {
                unreachable!("events point at scheduling nodes")
            };
            initials.retain(|q| enabled.contains(q));
            if node < self.frozen {
                // A node the parallel search's coordinator owns: it applies the race in the
                // one-thread search's order (see `parallel.rs`).
                if let Some((sink, branch)) = &self.sink {
                    sink.wish(*branch, initials);
                }
                continue;
            }
            add_initial(enabled, backtrack, sleep, &initials);
        }
    }

    /// Thread `thread`'s latest operation ended the execution: from now on it counts as
    /// dependent with everything (every other thread's next operation was disabled by it).
    /// Nothing sleeps past it, and the order in which the other threads then unwind decides
    /// nothing.
    pub fn halted(&mut self, thread: usize) {
        self.settle(None);
        self.sleep.clear();
        self.halted = true;
        if let Some(e) = self
            .trace
            .events
            .iter_mut()
            .rev()
            .find(|e| e.thread == thread)
        {
            e.point = Point::Other;
            e.known = Known::default();
        }
    }

    /// Thread `woken` was unblocked by thread `by`'s latest operation.
    pub fn woke(&mut self, by: usize, woken: usize) {
        self.settle(None);
        if by != woken {
            self.trace.wake(by, woken);
        }
    }

    /// Whether the search is over: every branch of the tree was explored (the last
    /// execution's backtracking found no decision left to try).
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }
}
