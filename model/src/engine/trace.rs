//! The happens-before bookkeeping of the DFS's current execution (`engine::tree`): each
//! operation's vector clock, joined from the earlier operations it conflicts with
//! ([`super::dependence::dependent_known`]), its own thread's program order and the wake-ups it
//! received.

use super::clock::{get, join, Clock};
use super::dependence::{dependent_known, mbarrier_conflict, on_mbarrier, Joined, Known};
use crate::runtime::sched::{GroupKey, Point};

/// Does operation `a` happen before operation `b` (or is it `b`)?
pub(super) fn happens_before(a: &Event, b: &Event) -> bool {
    get(&b.clock, a.thread) >= get(&a.clock, a.thread)
}

/// One operation of the current execution.
pub(super) struct Event {
    /// The GPU thread that performed it.
    pub(super) thread: usize,
    /// Its scheduling point.
    pub(super) point: Point,
    /// The scheduling node it was chosen at (`None` when it was the only enabled thread).
    pub(super) node: Option<usize>,
    /// For an arrival at a counted named barrier, the instance it joined
    /// ([`Trace::joining`]); for an operation that changed an mbarrier, what it did there.
    pub(super) known: Known,
    /// Its happens-before clock.
    pub(super) clock: Clock,
}

/// The current execution's happens-before bookkeeping.
#[derive(Default)]
pub(super) struct Trace {
    /// The operations so far, in execution order.
    pub(super) events: Vec<Event>,
    /// Per thread, the clock of its latest operation joined with the wake-ups it received.
    thread: Vec<Clock>,
    /// Per location, the join of its writes' clocks and of its reads' clocks.
    writes: Vec<Clock>,
    reads: Vec<Clock>,
    /// Per block, the join of its barrier arrivals' clocks.
    barriers: Vec<Clock>,
    /// The operations on mbarriers (indices into `events`): whether two conflict depends on what
    /// each did there ([`mbarrier_conflict`]), so they are looked up one by one.
    on_mbarriers: Vec<usize>,
    /// Per thread, the join of the clocks of the asynchronous steps that touched its bookkeeping
    /// ([`crate::runtime::sched::Footprint::queues`]).
    queues: Vec<Clock>,
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

    pub(super) fn knows(&self, t: usize, e: &Event) -> bool {
        self.thread
            .get(t)
            .is_some_and(|c| get(c, e.thread) >= get(&e.clock, e.thread))
    }

    /// Where an arrival at a counted named barrier would stand if it ran now: its barrier's
    /// arrivals in the trace so far fill its instances `count` at a time ([`Joined`]).
    pub(super) fn joining(&self, point: Point) -> Option<Joined> {
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

    /// The join of the clocks of the earlier operations `point` conflicts with (`known`: where
    /// it stands at its barrier, for a counted named-barrier arrival; what it did to its
    /// mbarrier).
    fn depends_on(&mut self, point: Point, known: Known, clock: &mut Clock) {
        if on_mbarrier(point) {
            self.join_mbarrier(point, known, clock);
        }
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
            }
            // A `syncthreads` arrival commutes with the earlier ones, but what the thread does
            // after it (once the instance completes) happens after every arrival.
            Point::Barrier(b) => join(clock, Trace::slot(&mut self.barriers, b)),
            // Named-barrier and warp arrivals conflict with some arrivals of their block only
            // ([`dependent_in`]): they are rare, so they look the earlier ones up.
            Point::NamedBarrier { .. } | Point::Warp { .. } => {
                self.join_dependent(point, known, clock)
            }
            // Joined above, operation by operation.
            Point::MBarrier(_) | Point::MBarrierWait(_) => {}
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
    fn join_dependent(&self, point: Point, known: Known, clock: &mut Clock) {
        for e in &self.events {
            let joins = match (e.point, point) {
                (Point::Warp { warp: v, .. }, Point::Warp { warp: w, .. }) => v == w,
                (Point::Barrier(_) | Point::NamedBarrier { .. } | Point::Warp { .. }, _) => {
                    dependent_known(e.point, e.known, point, known)
                }
                _ => false,
            };
            if joins {
                join(clock, &e.clock);
            }
        }
    }

    /// Join the clocks of the earlier operations on mbarriers that `point` conflicts with there
    /// ([`mbarrier_conflict`]): arrivals of one phase that complete nothing do not join each
    /// other's clocks, nor a wait those of the operations that complete no phase. What follows
    /// a phase's completion still happens after every operation of the phase: the completing
    /// one conflicts with all of them, and a wait that sees the phase completed with it.
    fn join_mbarrier(&self, point: Point, known: Known, clock: &mut Clock) {
        for &i in &self.on_mbarriers {
            let e = &self.events[i];
            if mbarrier_conflict(e.point, e.known.mbarrier, point, known.mbarrier) {
                join(clock, &e.clock);
            }
        }
    }

    /// Record `thread`'s operation `point`, chosen at `node`, with what is `known` of it beyond
    /// its point ([`Known::mbarrier`]; where a counted named-barrier arrival stands is computed
    /// here). A counted named-barrier arrival
    /// also joins its instance's clock; the one that completes the instance passes that clock
    /// to the threads it wakes ([`Trace::wake`]) and, when it waits (`bar.sync`), to its own
    /// next operations: a waiting arrival goes on only once every arrival of its instance ran,
    /// in every execution equivalent to this one. A `bar.arrive` goes on at once, after its
    /// own arrival only.
    pub(super) fn push(&mut self, thread: usize, point: Point, node: Option<usize>, known: Known) {
        let mut clock = Trace::slot(&mut self.thread, thread).clone();
        let joined = self.joining(point);
        let known = Known { joined, ..known };
        // What the operation depends on: the earlier operations it conflicts with.
        self.depends_on(point, known, &mut clock);
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
            }
            // A `syncthreads` arrival joins the earlier arrivals of its block, named ones
            // included (they conflict); a named arrival looks the earlier arrivals up.
            Point::Barrier(b) | Point::NamedBarrier { block: b, .. } => {
                join(Trace::slot(&mut self.barriers, b), &clock)
            }
            Point::Warp { .. } => {}
            Point::MBarrier(_) | Point::MBarrierWait(_) => {}
            Point::ScFence => join(&mut self.sc_fences, &clock),
            Point::Local => {}
            Point::Other => join(&mut self.other, &clock),
        }
        if on_mbarrier(point) {
            self.on_mbarriers.push(self.events.len());
        }
        self.events.push(Event {
            thread,
            point,
            node,
            known,
            clock,
        });
    }

    /// `woken` was unblocked by `by`'s latest operation: it learns that operation and, if it
    /// completed a named-barrier instance, every arrival of the instance.
    pub(super) fn wake(&mut self, by: usize, woken: usize) {
        let mut c = Trace::slot(&mut self.thread, by).clone();
        if let Some(Some(all)) = self.completed.get(by) {
            join(&mut c, all);
        }
        join(Trace::slot(&mut self.thread, woken), &c);
    }
}
