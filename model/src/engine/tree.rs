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
//! [`dependent_in`] refines it for the arrivals at a counted named barrier by the instance each
//! joins, which the trace knows (`Trace::joining`).
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

use super::clock::{get, join, Clock};
use super::dependence::{dependent_in, Joined};
use crate::runtime::sched::{GroupKey, Point};

/// Does operation `a` happen before operation `b` (or is it `b`)?
fn happens_before(a: &Event, b: &Event) -> bool {
    get(&b.clock, a.thread) >= get(&a.clock, a.thread)
}

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

/// One operation of the current execution.
struct Event {
    thread: usize,
    point: Point,
    /// The scheduling node it was chosen at (`None` when it was the only enabled thread).
    node: Option<usize>,
    /// For an arrival at a counted named barrier, the instance it joined
    /// ([`Trace::joining`]).
    joined: Option<Joined>,
    /// Its happens-before clock.
    clock: Clock,
}

/// The current execution's happens-before bookkeeping.
#[derive(Default)]
struct Trace {
    events: Vec<Event>,
    /// Per thread, the clock of its latest operation joined with the wake-ups it received.
    thread: Vec<Clock>,
    /// Per location, the join of its writes' clocks and of its reads' clocks.
    writes: Vec<Clock>,
    reads: Vec<Clock>,
    /// Per block, the join of its barrier arrivals' clocks; per mbarrier, of the operations
    /// that change it, and of its waits.
    barriers: Vec<Clock>,
    mbarriers: Vec<Clock>,
    mbarrier_waits: Vec<Clock>,
    /// Per thread, the join of the clocks of the asynchronous steps that touched its bookkeeping
    /// ([`crate::runtime::sched::Footprint::queues`]); the join of the clocks of the steps that may
    /// touch any mbarrier ([`crate::runtime::sched::Footprint::any_mbarrier`]).
    queues: Vec<Clock>,
    any_mbarrier: Clock,
    /// Per copy ([`crate::runtime::sched::Footprint::copy`]), the clock of its issue and first
    /// agent step; per async-group, the join of the clocks of the steps that marked it
    /// ([`crate::runtime::sched::Footprint::group`]) or read it
    /// ([`crate::runtime::sched::Footprint::waits`], by the groups below which they read).
    copies: Vec<((usize, u32), Clock)>,
    groups: Vec<(GroupKey, Clock)>,
    waits: Vec<(GroupKey, Clock)>,
    /// The join of the `fence.sc`s' clocks.
    sc_fences: Clock,
    /// Per instance of a counted named barrier (block, id, count, instance), the join of its
    /// arrivals' clocks; per thread, that of the instance its latest operation completed, which
    /// every thread it woke then learns ([`Trace::wake`]).
    instances: Vec<((usize, i64, u32, u32), Clock)>,
    completed: Vec<Option<Clock>>,
    /// The join of every operation's clock, and of every `Other` operation's clock.
    all: Clock,
    other: Clock,
}

impl Trace {
    fn slot(v: &mut Vec<Clock>, i: usize) -> &mut Clock {
        if v.len() <= i {
            v.resize(i + 1, Clock::new());
        }
        &mut v[i]
    }

    /// Join `clock` into the clock kept for `key`.
    fn keyed<K: PartialEq>(v: &mut Vec<(K, Clock)>, key: K, clock: &Clock) {
        match v.iter_mut().find(|(k, _)| *k == key) {
            Some((_, c)) => join(c, clock),
            None => v.push((key, clock.clone())),
        }
    }

    fn knows(&self, t: usize, e: &Event) -> bool {
        self.thread
            .get(t)
            .is_some_and(|c| get(c, e.thread) >= get(&e.clock, e.thread))
    }

    /// Where an arrival at a counted named barrier would stand if it ran now: its barrier's
    /// arrivals in the trace so far fill its instances `count` at a time ([`Joined`]).
    fn joining(&self, point: Point) -> Option<Joined> {
        let Point::NamedBarrier {
            block,
            id,
            count: Some(count),
            ..
        } = point
        else {
            return None;
        };
        if count == 0 {
            return None;
        }
        let before = self
            .events
            .iter()
            .filter(|e| {
                matches!(e.point, Point::NamedBarrier { block: b, id: i, count: Some(c), .. }
                    if b == block && i == id && c == count)
            })
            .count() as u32;
        Some(Joined {
            instance: before / count,
            completes: (before + 1).is_multiple_of(count),
        })
    }

    /// The join of the clocks of the earlier operations `point` conflicts with (`joined`: where
    /// it stands at its barrier, for a counted named-barrier arrival).
    fn depends_on(&mut self, point: Point, joined: Option<Joined>, clock: &mut Clock) {
        match point {
            Point::Read(x) => join(clock, Trace::slot(&mut self.writes, x)),
            Point::Write(x) => {
                join(clock, Trace::slot(&mut self.writes, x));
                join(clock, Trace::slot(&mut self.reads, x));
            }
            Point::Async(f) => {
                if let Some(x) = f.read {
                    join(clock, Trace::slot(&mut self.writes, x));
                }
                if let Some(x) = f.write {
                    join(clock, Trace::slot(&mut self.writes, x));
                    join(clock, Trace::slot(&mut self.reads, x));
                }
                for q in f.queues() {
                    join(clock, Trace::slot(&mut self.queues, q));
                }
                for (c, k) in &self.copies {
                    if f.copy == Some(*c) {
                        join(clock, k);
                    }
                }
                for (g, k) in &self.groups {
                    if f.group == Some(*g) || f.waits.is_some_and(|w| w.covers(*g)) {
                        join(clock, k);
                    }
                }
                for (w, k) in &self.waits {
                    if f.group.is_some_and(|g| w.covers(g)) {
                        join(clock, k);
                    }
                }
                if f.any_mbarrier {
                    for m in self.mbarriers.iter().chain(&self.mbarrier_waits) {
                        join(clock, m);
                    }
                }
                for m in f.mbarriers() {
                    join(clock, Trace::slot(&mut self.mbarriers, m));
                    join(clock, Trace::slot(&mut self.mbarrier_waits, m));
                }
                if f.any_mbarrier || f.mbarriers().next().is_some() {
                    join(clock, &self.any_mbarrier);
                }
            }
            // A `syncthreads` arrival commutes with the earlier ones, but what the thread does
            // after it (once the instance completes) happens after every arrival.
            Point::Barrier(b) => join(clock, Trace::slot(&mut self.barriers, b)),
            // Named-barrier and warp arrivals conflict with some arrivals of their block only
            // ([`dependent_in`]): they are rare, so they look the earlier ones up.
            Point::NamedBarrier { .. } | Point::Warp { .. } => {
                self.join_dependent(point, joined, clock)
            }
            Point::MBarrier(b) => {
                join(clock, Trace::slot(&mut self.mbarriers, b));
                join(clock, Trace::slot(&mut self.mbarrier_waits, b));
                join(clock, &self.any_mbarrier);
            }
            // A wait reads the mbarrier: it follows the operations that changed it, not the
            // other waits.
            Point::MBarrierWait(b) => {
                join(clock, Trace::slot(&mut self.mbarriers, b));
                join(clock, &self.any_mbarrier);
            }
            Point::ScFence => join(clock, &self.sc_fences),
            Point::Local => {}
            Point::Other => join(clock, &self.all),
        }
    }

    /// Join the clocks of the earlier barrier and warp arrivals `point` conflicts with, and,
    /// for a warp arrival, of every earlier arrival of its warp: like a `syncthreads` arrival,
    /// what a lane does after a warp-synchronous operation happens after every arrival of the
    /// instance (it completes only once all of them arrived), and an arrival at a later
    /// instance after those of the earlier one. Arrivals of one counted named-barrier instance
    /// do not join each other's clocks (they commute, [`dependent_in`]): what a waiting arrival
    /// does once the instance completes follows all of them through the wake-up
    /// ([`Trace::wake`], [`Trace::push`]).
    fn join_dependent(&self, point: Point, joined: Option<Joined>, clock: &mut Clock) {
        for e in &self.events {
            let joins = match (e.point, point) {
                (Point::Warp { warp: v, .. }, Point::Warp { warp: w, .. }) => v == w,
                (Point::Barrier(_) | Point::NamedBarrier { .. } | Point::Warp { .. }, _) => {
                    dependent_in(e.point, e.joined, point, joined)
                }
                _ => false,
            };
            if joins {
                join(clock, &e.clock);
            }
        }
    }

    /// Record `thread`'s operation `point`, chosen at `node`. A counted named-barrier arrival
    /// also joins its instance's clock; the one that completes the instance passes that clock
    /// to the threads it wakes ([`Trace::wake`]) and, when it waits (`bar.sync`), to its own
    /// next operations: a waiting arrival goes on only once every arrival of its instance ran,
    /// in every execution equivalent to this one. A `bar.arrive` goes on at once, after its
    /// own arrival only.
    fn push(&mut self, thread: usize, point: Point, node: Option<usize>) {
        let mut clock = Trace::slot(&mut self.thread, thread).clone();
        let joined = self.joining(point);
        // What the operation depends on: the earlier operations it conflicts with.
        self.depends_on(point, joined, &mut clock);
        if !matches!(point, Point::Local) {
            join(&mut clock, &self.other);
        }
        let own = get(&clock, thread) + 1;
        if clock.len() <= thread {
            clock.resize(thread + 1, 0);
        }
        clock[thread] = own;
        *Trace::slot(&mut self.thread, thread) = clock.clone();
        join(&mut self.all, &clock);
        if self.completed.len() <= thread {
            self.completed.resize(thread + 1, None);
        }
        self.completed[thread] = None;
        if let (
            Point::NamedBarrier {
                block,
                id,
                count: Some(count),
                wait,
            },
            Some(j),
        ) = (point, joined)
        {
            let key = (block, id, count, j.instance);
            Trace::keyed(&mut self.instances, key, &clock);
            if j.completes {
                let (_, all) = (self.instances.iter())
                    .find(|(k, _)| *k == key)
                    .expect("the instance was just joined");
                let all = all.clone();
                if wait {
                    join(Trace::slot(&mut self.thread, thread), &all);
                }
                self.completed[thread] = Some(all);
            }
        }
        match point {
            Point::Read(x) => join(Trace::slot(&mut self.reads, x), &clock),
            Point::Write(x) => join(Trace::slot(&mut self.writes, x), &clock),
            Point::Async(f) => {
                if let Some(x) = f.read {
                    join(Trace::slot(&mut self.reads, x), &clock);
                }
                if let Some(x) = f.write {
                    join(Trace::slot(&mut self.writes, x), &clock);
                }
                for q in f.queues() {
                    join(Trace::slot(&mut self.queues, q), &clock);
                }
                if let Some(c) = f.copy {
                    Trace::keyed(&mut self.copies, c, &clock);
                }
                if let Some(g) = f.group {
                    Trace::keyed(&mut self.groups, g, &clock);
                }
                if let Some(w) = f.waits {
                    Trace::keyed(&mut self.waits, w, &clock);
                }
                for m in f.mbarriers() {
                    join(Trace::slot(&mut self.mbarriers, m), &clock);
                }
                if f.any_mbarrier {
                    join(&mut self.any_mbarrier, &clock);
                }
            }
            // A `syncthreads` arrival joins the earlier arrivals of its block, named ones
            // included (they conflict); a named arrival looks the earlier arrivals up.
            Point::Barrier(b) | Point::NamedBarrier { block: b, .. } => {
                join(Trace::slot(&mut self.barriers, b), &clock)
            }
            Point::Warp { .. } => {}
            Point::MBarrier(b) => join(Trace::slot(&mut self.mbarriers, b), &clock),
            Point::MBarrierWait(b) => join(Trace::slot(&mut self.mbarrier_waits, b), &clock),
            Point::ScFence => join(&mut self.sc_fences, &clock),
            Point::Local => {}
            Point::Other => join(&mut self.other, &clock),
        }
        self.events.push(Event {
            thread,
            point,
            node,
            joined,
            clock,
        });
    }

    /// `woken` was unblocked by `by`'s latest operation: it learns that operation and, if it
    /// completed a named-barrier instance, every arrival of the instance.
    fn wake(&mut self, by: usize, woken: usize) {
        let mut c = Trace::slot(&mut self.thread, by).clone();
        if let Some(Some(all)) = self.completed.get(by) {
            join(&mut c, all);
        }
        join(Trace::slot(&mut self.thread, woken), &c);
    }
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
        if self.halted {
            // The execution is over: the remaining threads only unwind, in any order. The
            // operations they were about to perform never happen, but each of them races with
            // the one that ended the execution (see [`Tree::halted`]).
            if self.reduce {
                for &(thread, op) in enabled {
                    self.analyse(thread, op);
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
            if fresh {
                self.analyse(thread, op);
            }
            // What sleeps here and commutes with the chosen operation sleeps on (a sleeping
            // arrival's instance is not known: see `dependent_in`).
            let joined = self.trace.joining(op);
            self.sleep.extend(passed);
            self.sleep
                .retain(|&(t, other)| t != thread && !dependent_in(other, None, op, joined));
        }
        self.trace.push(thread, op, node);
        index
    }

    /// Source-set DPOR's race reversal for operation `next` of thread `p`, about to run after
    /// the current trace.
    fn analyse(&mut self, p: usize, next: Point) {
        let joined = self.trace.joining(next);
        let events = &self.trace.events;
        // Earlier operations `next` depends on and that `p` does not know of yet.
        let candidates: Vec<usize> = (0..events.len())
            .filter(|&i| {
                let e = &events[i];
                e.thread != p
                    && dependent_in(e.point, e.joined, next, joined)
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
                    !self.trace.knows(p, u) && !dependent_in(u.point, u.joined, next, joined)
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
            e.joined = None;
        }
    }

    /// Thread `woken` was unblocked by thread `by`'s latest operation.
    pub fn woke(&mut self, by: usize, woken: usize) {
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
