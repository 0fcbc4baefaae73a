//! Memory operations: loads, stores, read-modify-writes and fences. Each picks or appends a
//! store of one location, joins what the store releases when it acquires (see the sync module),
//! records what the read observes, and checks the access for races against every earlier
//! conflicting one.

use super::machine::{Access, Halt, Machine, ThreadState};
use super::memory::{AccessRec, Bits, StoreRec};
use super::race::find_race;
use super::report::{Decision, EventKind, RmwKind, Site};
use super::sync::{
    acquire, acquires, morally_strong, releases, Actor, Head, PendingAcquire, ScFence,
};
use super::view::{LevelMask, Observed, ALL_LEVELS};
use crate::scope::{Order, Scope};
use std::sync::Arc;

impl Machine {
    /// Check a new access (`rmw`: a read-modify-write's) against every earlier conflicting
    /// one, then remember it.
    #[allow(clippy::too_many_arguments)]
    fn race_check(
        &mut self,
        t: usize,
        loc: usize,
        actor: Actor,
        write: bool,
        rmw: bool,
        epoch: u32,
        event: usize,
    ) -> Result<(), Halt> {
        self.notify_access(&Access {
            thread: t,
            loc,
            write,
            event,
        })?;
        let view = &self.threads[t].view;
        if let Some(race) = find_race(&self.locs[loc].accesses, view, &actor, write) {
            if self.setup.stop_on_race {
                let (kind, headline, details) =
                    race.describe(&self.setup, &self.events, loc, event);
                self.fail(kind, headline, details);
                return Err(Halt);
            }
            self.races += 1;
        }
        Arc::make_mut(&mut self.locs[loc]).accesses.push(AccessRec {
            actor,
            epoch,
            write,
            event,
            rmw,
            async_proxy: false,
        });
        Ok(())
    }

    fn note_shared(&mut self, t: usize, loc: usize, site: Site) {
        let Some(addr) = self.setup.locs[loc].shared else {
            return;
        };
        let info = &self.setup.threads[t];
        let occ = Arc::make_mut(&mut self.threads[t])
            .occurrences
            .entry(site)
            .or_insert(0);
        *occ += 1;
        let key = (site, addr.block, info.tid / 32, *occ);
        self.bank.entry(key).or_default().push(addr.byte / 4);
    }

    /// The release heads a strong store by `t` to `loc` carries.
    fn release_heads(&self, t: usize, loc: usize, order: Order, actor: &Actor) -> Vec<Head> {
        let th = &self.threads[t];
        let mut heads = Vec::new();
        // An exchange's slot is no memory of the program: its relaxed RMWs end no release
        // pattern (PTX grants memory ordering among a warp's lanes to `bar.warp.sync` alone;
        // the cat models' `pattern-w` leaves `WX` out).
        if !actor.strong() || self.setup.exchange_slots.contains(&loc) {
            return heads;
        }
        if releases(order) {
            heads.push(Head {
                releaser: *actor,
                view: Arc::new(th.view.clone()),
                levels: ALL_LEVELS,
            });
        }
        // A release fence followed by this strong write.
        heads.extend(th.fence_heads.iter().cloned());
        // An earlier release store of this thread to the same location (release sequence).
        if let Some((_, head)) = th.rel_seq.iter().find(|(l, _)| *l == loc) {
            heads.push(head.clone());
        }
        heads
    }

    /// Append a store and do what follows from it: floors, release sequence, the store hooks
    /// (which wake spinners).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn append_store(
        &mut self,
        t: usize,
        loc: usize,
        value: Bits,
        epoch: u32,
        actor: Actor,
        order: Order,
        heads: Vec<Head>,
        event: usize,
    ) {
        let heads = if heads.is_empty() {
            Arc::clone(&self.empty_heads)
        } else {
            Arc::new(heads)
        };
        let own = heads
            .first()
            .filter(|h| h.releaser == actor && releases(order))
            .cloned();
        let state = Arc::make_mut(&mut self.locs[loc]);
        state.stores.push(StoreRec {
            value,
            writer: Some(t),
            epoch,
            actor: Some(actor),
            heads,
            event,
            chain: Vec::new(),
        });
        let index = state.latest() as u32;
        let th = Arc::make_mut(&mut self.threads[t]);
        th.view.floor_mut()[loc] = index;
        if let Some(head) = own {
            th.rel_seq.retain(|(l, _)| *l != loc);
            th.rel_seq.push((loc, head));
        }
        self.notify_store(t, loc);
    }

    /// Loom only: a new version of `loc`'s mirror stands for its newest store.
    fn push_mirror(&mut self, loc: usize) {
        if self.trace {
            let latest = self.locs[loc].latest() as u32;
            Arc::make_mut(&mut self.locs[loc]).mirror.push(latest);
        }
    }

    /// How many stores a load of `loc` by `t` may read now (the engine chooses among them).
    pub fn readable(&self, t: usize, loc: usize) -> usize {
        self.locs[loc].latest() - self.threads[t].view.floor()[loc] as usize + 1
    }

    /// Which store a load of `loc` by `t` reads: loom's pick (checked against our floor) or
    /// the engine's choice among the `n` readable stores, newest first.
    fn pick_store(
        &mut self,
        t: usize,
        loc: usize,
        mirror: Option<u32>,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<usize, Halt> {
        let floor = self.threads[t].view.floor()[loc] as usize;
        let latest = self.locs[loc].latest();
        let store = match mirror {
            Some(version) => {
                let store = self.locs[loc].mirror[version as usize] as usize;
                if store < floor {
                    self.mark_infeasible();
                    return Err(Halt);
                }
                store
            }
            None if latest == floor => latest,
            None => latest - choose(latest - floor + 1),
        };
        if latest > floor && self.trace {
            self.decisions.push(Decision::Pick((latest - store) as u32));
        }
        Ok(store)
    }

    /// Join (or, for a non-acquiring strong read, remember) what the read store releases, and
    /// return the writes the read observes ([`Machine::note_observed`] records them: a caller
    /// first checks the read for races, which observation does not order, see `load`).
    fn observe(
        &mut self,
        t: usize,
        loc: usize,
        store: usize,
        reader: &Actor,
        order: Order,
    ) -> Vec<Observed> {
        // An acquire pattern is also a strong read of `loc` followed in program order by an
        // acquire of `loc`: this acquire joins what the thread's earlier strong reads of `loc`
        // observed, not only what it reads itself.
        let earlier_reads = |th: &ThreadState| th.pending.iter().any(|p| p.loc == loc);
        if acquires(order) && reader.strong() && earlier_reads(&self.threads[t]) {
            let th = Arc::make_mut(&mut self.threads[t]);
            for p in th.pending.iter().filter(|p| p.loc == loc) {
                acquire(&mut th.view, reader, &p.heads, p.rf_levels);
            }
        }
        let s = &self.locs[loc].stores[store];
        let Some(writer) = s.actor else {
            return Vec::new();
        };
        // A read of its own thread's write observes it, weak or not (program order makes the
        // pair morally strong). Base causality orders that write before the read anyway; the
        // observation matters where only causality's observation clause reaches: a bulk copy
        // issued after the read (`async_copy`).
        if !reader.strong() {
            return match writer.thread == t {
                true => self.observed_through(loc, store, ALL_LEVELS),
                false => Vec::new(),
            };
        }
        let rf_levels = morally_strong(&writer, reader);
        if rf_levels == 0 {
            return Vec::new();
        }
        let observed = self.observed_through(loc, store, rf_levels);
        let s = &self.locs[loc].stores[store];
        if s.heads.is_empty() {
            return observed;
        }
        let heads = Arc::clone(&s.heads);
        let th = Arc::make_mut(&mut self.threads[t]);
        if acquires(order) {
            acquire(&mut th.view, reader, &heads, rf_levels);
        } else {
            th.pending.push(PendingAcquire {
                loc,
                heads,
                rf_levels,
            });
        }
        observed
    }

    /// Records writes a read observed (from [`Machine::observe`]).
    fn note_observed(&mut self, t: usize, observed: Vec<Observed>) {
        if observed.is_empty() {
            return;
        }
        let th = Arc::make_mut(&mut self.threads[t]);
        for o in observed {
            th.view.observe(o);
        }
    }

    /// PTX "Observation Order": a read observes the write it reads from (when the pair is morally
    /// strong, at `rf_levels`) and, through RMWs, every write that write's RMW observed.
    fn observed_through(&self, loc: usize, store: usize, rf_levels: LevelMask) -> Vec<Observed> {
        let s = &self.locs[loc].stores[store];
        let Some(writer) = s.writer else {
            return Vec::new();
        };
        let mut observed = vec![Observed {
            thread: writer as u32,
            epoch: s.epoch,
            levels: rf_levels,
        }];
        observed.extend(s.chain.iter().map(|o| Observed {
            levels: o.levels & rf_levels,
            ..*o
        }));
        observed.retain(|o| o.levels != 0);
        observed
    }

    /// A load by thread `t` of `loc`: picks the store it reads among those its view still
    /// allows (through `choose`, or loom's `mirror`), joins release heads when the load acquires,
    /// and checks it for races. Fails (halts) on a race when stopping on races, on a misuse or
    /// at the step bound.
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        &mut self,
        t: usize,
        loc: usize,
        order: Order,
        scope: Option<Scope>,
        site: Site,
        mirror: Option<u32>,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<Bits, Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let store = self.pick_store(t, loc, mirror, choose)?;
        let value = self.locs[loc].stores[store].value;
        let actor = self.actor(t, scope);
        let event = self.event(
            t,
            site,
            EventKind::Load {
                loc,
                order,
                scope,
                value,
                store,
            },
        );
        self.note_shared(t, loc, site);
        Arc::make_mut(&mut self.threads[t]).view.floor_mut()[loc] = store as u32;
        self.notify_read(t, loc, value, false);
        let observed = self.observe(t, loc, store, &actor, order);
        // After the read synchronizes: an acquire read is itself in causality order after what
        // precedes the release it reads (base causality is `po? ; (sync ; po?)+`, and `sync`
        // ends at the acquire pattern's read), so it races with none of that. Before what it
        // observes counts: causality is observation followed by base causality, which is not
        // reflexive, so a write the read observes only through other RMWs (not morally strong
        // with it) still races with it.
        self.race_check(t, loc, actor, false, false, epoch, event)?;
        self.note_observed(t, observed);
        Ok(value)
    }

    /// A store by thread `t` of `value` to `loc`: appended last in modification order, with the
    /// release heads it carries, and checked for races. Fails (halts) as [`Machine::load`].
    pub fn store(
        &mut self,
        t: usize,
        loc: usize,
        value: Bits,
        order: Order,
        scope: Option<Scope>,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let actor = self.actor(t, scope);
        let event = self.event(
            t,
            site,
            EventKind::Store {
                loc,
                order,
                scope,
                value,
            },
        );
        self.race_check(t, loc, actor, true, false, epoch, event)?;
        self.note_shared(t, loc, site);
        if self.spin_loops {
            Arc::make_mut(&mut self.threads[t]).spin_wrote = true;
        }
        let heads = self.release_heads(t, loc, order, &actor);
        self.append_store(t, loc, value, epoch, actor, order, heads, event);
        self.push_mirror(loc);
        Ok(())
    }

    /// An atomic read-modify-write: reads the newest store (atomicity) and, unless `apply`
    /// declines (a failed CAS), appends the new value right after it.
    #[allow(clippy::too_many_arguments)]
    pub fn rmw(
        &mut self,
        t: usize,
        loc: usize,
        kind: RmwKind,
        apply: &dyn Fn(Bits) -> Option<Bits>,
        order: Order,
        scope: Scope,
        site: Site,
    ) -> Result<Bits, Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let actor = self.actor(t, Some(scope));
        let read = self.locs[loc].latest();
        let old = self.locs[loc].stores[read].value;
        let new = apply(old);
        let event = self.event(
            t,
            site,
            EventKind::Rmw {
                loc,
                kind,
                order,
                scope,
                old,
                new,
            },
        );
        self.note_shared(t, loc, site);
        Arc::make_mut(&mut self.threads[t]).view.floor_mut()[loc] = read as u32;
        self.notify_read(t, loc, old, new.is_some_and(|n| n != old));
        let observed = self.observe(t, loc, read, &actor, order);
        self.note_observed(t, observed);
        // After the read synchronizes and observes (see `load`): the RMW is one operation, and
        // what its read acquires or observes precedes its write in causality order (observation
        // followed by program order), so the operation races with none of it.
        self.race_check(t, loc, actor, new.is_some(), true, epoch, event)?;
        if let Some(value) = new {
            let mut heads = self.release_heads(t, loc, order, &actor);
            // Observation chains through RMWs: what the read store released stays available,
            // at the levels where this RMW's read was morally strong.
            let s = &self.locs[loc].stores[read];
            if let Some(writer) = s.actor {
                let rf_levels = morally_strong(&writer, &actor);
                for h in s.heads.iter() {
                    if h.levels & rf_levels != 0 {
                        heads.push(Head {
                            levels: h.levels & rf_levels,
                            ..h.clone()
                        });
                    }
                }
            }
            // Also when this thread wrote the read store: program order makes the pair morally
            // strong, so writes that store observed are observed through this RMW too.
            let chain = match s.actor {
                Some(writer) => self.observed_through(loc, read, morally_strong(&writer, &actor)),
                None => Vec::new(),
            };
            self.append_store(t, loc, value, epoch, actor, order, heads, event);
            if !chain.is_empty() {
                let state = Arc::make_mut(&mut self.locs[loc]);
                state.stores.last_mut().expect("just appended").chain = chain;
            }
        }
        self.push_mirror(loc);
        Ok(old)
    }

    /// `fence.acq_rel`/`fence.acquire`/`fence.release` at `scope`, or `fence.sc` (`Order::Sc`).
    pub fn fence(&mut self, t: usize, order: Order, scope: Scope, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        self.event(t, site, EventKind::Fence { order, scope });
        let actor = self.actor(t, Some(scope));
        let th = Arc::make_mut(&mut self.threads[t]);
        if acquires(order) {
            for p in &th.pending {
                acquire(&mut th.view, &actor, &p.heads, p.rf_levels);
            }
        }
        if order == Order::Sc {
            for f in &self.sc_fences {
                let mask = morally_strong(&f.actor, &actor);
                if mask != 0 {
                    th.view.join(&f.view, mask);
                }
            }
        }
        if releases(order) {
            let head = Head {
                releaser: actor,
                view: Arc::new(th.view.clone()),
                levels: ALL_LEVELS,
            };
            th.fence_heads.retain(|h| h.releaser.scope != Some(scope));
            th.fence_heads.push(head);
        }
        if order == Order::Sc {
            let view = Arc::new(th.view.clone());
            self.sc_fences.push(ScFence { actor, view });
        }
        Ok(())
    }
}
