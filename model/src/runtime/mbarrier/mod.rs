//! mbarrier: PTX's split-phase barrier object in shared memory.
//!
//! A barrier has a *current phase* (0, 1, 2, …), a count of arrivals still pending in it and a
//! signed transaction count (`tx`). `init(count)` starts phase 0 with `count` pending arrivals.
//! `arrive` takes one pending arrival; `expect_tx(b)` adds `b` bytes; `complete_tx(b)` (done by
//! bulk copies) subtracts them — it may come first, so `tx` is signed. When no arrival is pending
//! and `tx == 0` the phase completes: the phase number advances and the pending count resets.
//!
//! Waiting: `try_wait.parity p` is true iff the phase with parity `p` has completed, i.e. the
//! current phase's parity is not `p` (so it speaks only of the current phase and the one just
//! before it: nothing in the barrier remembers older phases). A token from `arrive` names its
//! phase; waiting on a token two or more phases old is outside the valid window.
//!
//! Synchronization: an arrive (release, CTA scope, by default) releases the arriving thread's
//! view into the phase, a `complete_tx` releases the copy's writes; a successful acquiring wait
//! acquires what the completed phase released to it. The waiters are in the barrier's CTA (PTX:
//! `try_wait` takes a `.shared::cta` address). A release arrive and an acquire wait synchronize
//! only when morally strong, each scope including the other's thread (PTX ISA, *Scope*: `.cta`
//! is "the set of threads ... in the same CTA"): a release arrive of the barrier's own CTA (and
//! a `complete_tx`, which happens at the destination CTA, as `ptx-v8.cat` has it) reaches every
//! acquiring wait; a peer CTA's *remote* release arrive at `.cluster` scope reaches only waits
//! at `.cluster` scope (`mbarrier.try_wait.acquire.cluster`; PTX ISA, *mbarrier.test_wait /
//! try_wait*: "If the .scope qualifier is not specified then it defaults to .cta", which leaves
//! the peer CTA out); a remote arrive at `.cta` scope still counts but releases nothing. A
//! `.relaxed` arrive releases nothing and a `.relaxed` wait acquires nothing (".relaxed":
//! no memory ordering).
//!
//! Initialisation across a cluster: a peer CTA may use a barrier only once its `init` happens
//! before the use. A release `barrier.cluster.arrive` carries it like any write; a relaxed one
//! carries only the inits its thread published with `fence.mbarrier_init.release.cluster` (PTX
//! ISA, *membar/fence*: "a light-weight fence ... that applies to prior mbarrier.init
//! operations"), which is what CUTLASS's `fence_barrier_init(); cluster_sync()` relies on.

use super::async_copy::state::same_cta;
use super::machine::{Halt, Machine, Status};
use super::report::{EventKind, FailureKind, Site};
use super::sched::{MBarrierEffect, MBarrierStep};
use super::view::{View, ALL_LEVELS};
use crate::scope::Scope;
use std::sync::Arc;

pub mod state;

pub use self::state::{Arrive, InitRec, MBarInfo, MBarState, WaitOn, WaitResult, WaitSem};

impl Machine {
    /// `full[0]@block0 (phase 1: 1 arrival pending, tx 8)`.
    pub(super) fn mbar_describe(&self, bar: usize) -> String {
        let b = &self.mbars[bar];
        let name = &self.setup.mbarriers[bar].name;
        if b.init.is_none() {
            return format!("{name} (not initialised)");
        }
        format!(
            "{name} (current phase {}, parity {}: {} arrival{} pending, tx {})",
            b.phase,
            b.phase % 2,
            b.pending,
            if b.pending == 1 { "" } else { "s" },
            b.tx
        )
    }

    fn misuse(&mut self, headline: String, details: Vec<String>) -> Halt {
        self.fail(FailureKind::MBarrierMisuse, headline, details);
        Halt
    }

    /// Every use of a barrier must come after its `init` in happens-before order (and, for a
    /// re-init, every earlier use before the init).
    pub(super) fn mbar_check_init(
        &mut self,
        t: usize,
        bar: usize,
        event: usize,
    ) -> Result<(), Halt> {
        let name = self.setup.mbarriers[bar].name.clone();
        let who = self.setup.threads[t].name.clone();
        let epoch = self.threads[t].view.clock(0)[t];
        let n = self.setup.threads.len();
        let visible = self.init_visible(t, bar);
        let b = &mut self.mbars[bar];
        b.uses.resize(n, 0);
        b.uses[t] = epoch;
        match b.init {
            None if b.invalidated => Err(self.misuse(
                format!("{who} uses mbarrier {name} after mbarrier.inval, before a new init"),
                vec![
                    format!("#{event} {}", self.describe(event)),
                    "PTX ISA, mbarrier.inval: any mbarrier operation but mbarrier.init on an \
                     invalidated mbarrier object is undefined behaviour"
                        .to_string(),
                ],
            )),
            None => Err(self.misuse(
                format!("{who} uses mbarrier {name} before any init"),
                vec![format!("#{event} {}", self.describe(event))],
            )),
            Some(init) if !visible => {
                let initer = self.setup.threads[init.thread].name.clone();
                let headline = if b.inits > 1 {
                    format!("{who} uses mbarrier {name} while {initer} re-initialises it (the init does not happen before this use)")
                } else {
                    format!("{who} uses mbarrier {name} before its init by {initer} is visible")
                };
                Err(self.misuse(
                    headline,
                    vec![
                        format!("#{event} {}", self.describe(event)),
                        "order the init before every use: syncthreads after init (with \
                         fence.mbarrier_init for cluster peers), and before a re-init"
                            .to_string(),
                    ],
                ))
            }
            Some(_) => Ok(()),
        }
    }

    /// Whether `bar`'s latest init, if any, happens before `t`'s next use of it.
    fn init_visible(&self, t: usize, bar: usize) -> bool {
        match self.mbars[bar].init {
            Some(init) => {
                init.thread == t
                    || init.thread == usize::MAX
                    || self.threads[t].view.knows(0, init.thread, init.epoch)
                    || self.cluster.init_known(t, init.thread, init.epoch)
            }
            None => true,
        }
    }

    /// `mbarrier.init`: phase 0, `count` pending arrivals, tx 0.
    pub fn mbar_init(&mut self, t: usize, bar: usize, count: u32, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        let epoch = Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let name = self.setup.mbarriers[bar].name.clone();
        let event = self.event(
            t,
            site,
            EventKind::Note(format!("mbarrier.init {name}, count {count}")),
        );
        let unordered_use = self.mbars[bar]
            .uses
            .iter()
            .enumerate()
            .find(|&(u, &e)| u != t && e > 0 && !self.threads[t].view.knows(0, u, e));
        if let Some((u, _)) = unordered_use {
            let user = self.setup.threads[u].name.clone();
            return Err(self.misuse(
                format!("mbarrier {name} re-initialised while {user} still uses it"),
                vec![
                    format!("#{event} {}", self.describe(event)),
                    format!(
                        "{user}'s latest operation on the barrier does not happen before this init"
                    ),
                ],
            ));
        }
        let b = &self.mbars[bar];
        if b.init.is_some() {
            let waiting = self
                .threads
                .iter()
                .any(|th| matches!(th.status, Status::MBarWait { bar: w, .. } if w == bar));
            if b.pending != b.count || b.tx != 0 || b.in_flight > 0 || waiting {
                let state = self.mbar_describe(bar);
                return Err(self.misuse(
                    format!("mbarrier {name} re-initialised while in use"),
                    vec![
                        format!("#{event} {}", self.describe(event)),
                        format!("the barrier is mid-phase: {state}, {} bulk copies in flight", b.in_flight),
                        "invalidate it only once every thread is done with it (mbarrier.inval), then init"
                            .to_string(),
                    ],
                ));
            }
        }
        if count == 0 {
            return Err(self.misuse(format!("mbarrier {name} initialised with count 0"), vec![]));
        }
        let inits = self.mbars[bar].inits + 1;
        self.mbars[bar] = MBarState {
            init: Some(InitRec { thread: t, epoch }),
            count,
            pending: count,
            inits,
            ..MBarState::default()
        };
        Ok(())
    }

    /// `mbarrier.arrive[.expect_tx]`: returns the phase arrived on (the token).
    pub fn mbar_arrive(
        &mut self,
        t: usize,
        bar: usize,
        arrive: Arrive,
        site: Site,
    ) -> Result<u32, Halt> {
        self.arrive_on(t, bar, arrive, site, false)
            .map(|(phase, _)| phase)
    }

    /// `mbarrier.arrive[.expect_tx]`: returns the phase arrived on and the arrivals still
    /// pending in it right after this one (the opaque `state`, for `mbarrier.pending_count`).
    pub fn mbar_arrive_state(
        &mut self,
        t: usize,
        bar: usize,
        arrive: Arrive,
        site: Site,
    ) -> Result<(u32, u32), Halt> {
        self.arrive_on(t, bar, arrive, site, true)
    }

    /// Tell the engine what an operation of `t` on `bar`, begun in `phase`, did: what it
    /// changed, and whether it completed the phase ([`MBarrierStep`]). A step that operates
    /// twice (on one or two mbarriers) is told as completing its mbarrier's phase, which
    /// conflicts with every operation on it.
    pub(crate) fn note_mbarrier_step(
        &mut self,
        t: usize,
        bar: usize,
        phase: u32,
        effect: MBarrierEffect,
    ) {
        let completes = self.mbars[bar].phase != phase || self.mbarrier_step.is_some();
        let step = MBarrierStep {
            bar,
            phase,
            effect,
            completes,
        };
        self.mbarrier_step = Some((t, step));
    }

    /// An arrive-on operation; `keeps_state`: the thread keeps the opaque state whole (its
    /// pending count), not only the phase.
    fn arrive_on(
        &mut self,
        t: usize,
        bar: usize,
        arrive: Arrive,
        site: Site,
        keeps_state: bool,
    ) -> Result<(u32, u32), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let name = self.setup.mbarriers[bar].name.clone();
        let phase = self.mbars[bar].phase;
        let op = match (arrive.expect_tx, arrive.release) {
            (0, true) => "mbarrier.arrive".to_string(),
            (0, false) => "mbarrier.arrive.relaxed".to_string(),
            (b, true) => format!("mbarrier.arrive.expect_tx (+{b} bytes)"),
            (b, false) => format!("mbarrier.arrive.expect_tx.relaxed (+{b} bytes)"),
        };
        let cluster_barrier = self.setup.mbarriers[bar].launch_count.is_some();
        let op = match (cluster_barrier, arrive.release) {
            (true, true) => "barrier.cluster.arrive.release".to_string(),
            (true, false) => "barrier.cluster.arrive.relaxed".to_string(),
            (false, _) => op,
        };
        let counted = if arrive.count == 1 {
            String::new()
        } else {
            format!(" x{}", arrive.count)
        };
        let event = self.event(
            t,
            site,
            EventKind::Note(format!("{op}{counted} on {name} (phase {phase})")),
        );
        self.mbar_check_init(t, bar, event)?;
        let b = &mut self.mbars[bar];
        if arrive.count > b.pending {
            let state = self.mbar_describe(bar);
            return Err(self.misuse(
                format!("arrive on mbarrier {name} past its expected count"),
                vec![
                    format!("#{event} {}", self.describe(event)),
                    format!("{state}: the phase already has every arrival it was initialised for"),
                ],
            ));
        }
        b.tx += arrive.expect_tx as i64;
        b.pending -= arrive.count;
        let pending = b.pending;
        if let Some(fence) = self.cluster.init_fence(t) {
            self.mbars[bar].releasing_inits.push((t, fence));
        }
        let home = self.setup.mbarriers[bar].block as usize;
        let reaches = match self.setup.blocks[home].first() {
            Some(&w) => arrive.scope.includes(
                &self.setup.threads[t].placement,
                &self.setup.threads[w].placement,
            ),
            None => true,
        };
        let local = match self.setup.blocks[home].first() {
            Some(&w) => same_cta(
                &self.setup.threads[t].placement,
                &self.setup.threads[w].placement,
            ),
            None => true,
        };
        if arrive.no_complete && self.mbars[bar].pending == 0 && self.mbars[bar].tx == 0 {
            let state = self.mbar_describe(bar);
            return Err(self.misuse(
                format!("mbarrier.arrive.noComplete on {name} completes its phase"),
                vec![
                    format!("#{event} {}", self.describe(event)),
                    format!(
                        "{state}: PTX ISA, mbarrier.arrive: with .noComplete the arrive-on \
                         operation must not cause the mbarrier to complete its current phase"
                    ),
                ],
            ));
        }
        if arrive.release && reaches && (local || cluster_barrier) {
            let view = self.threads[t].view.clone();
            self.mbar_release(bar, view);
        } else if arrive.release && reaches {
            let view = self.threads[t].view.clone();
            let b = &mut self.mbars[bar];
            match &mut b.releasing_remote {
                Some(v) => v.join(&view, ALL_LEVELS),
                None => b.releasing_remote = Some(view),
            }
        } else if arrive.release {
            self.note_remote_cta_arrive(event, home);
        } else if let (true, true, Some(inits)) =
            (cluster_barrier, reaches, &self.threads[t].init_release)
        {
            // A relaxed cluster arrive after `fence.mbarrier_init` carries the inits it released
            // (`ptx-v8.cat`, init-sync; see `Machine::fence_mbarrier_init`).
            let inits = View::clone(inits);
            self.mbar_release(bar, inits);
        }
        self.mbar_settle(bar, Some(event));
        // Only the phase of the result says nothing of the order of the phase's arrivals.
        let effect = match arrive.count > 0 && !keeps_state {
            true => MBarrierEffect::Arrival,
            false => MBarrierEffect::Count,
        };
        self.note_mbarrier_step(t, bar, phase, effect);
        Ok((phase, pending))
    }

    /// `mbarrier.inval`: PTX ISA, *mbarrier.inval*: it "invalidates the mbarrier object", and
    /// "performing any mbarrier operation except mbarrier.init on an invalidated mbarrier
    /// object results in undefined behaviour" (reported as misuse, by the init check). The
    /// invalidation is a use of the barrier like any other: it must follow its init.
    pub fn mbar_inval(&mut self, t: usize, bar: usize, site: Site) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let name = self.setup.mbarriers[bar].name.clone();
        let event = self.event(t, site, EventKind::Note(format!("mbarrier.inval {name}")));
        self.mbar_check_init(t, bar, event)?;
        let b = &mut self.mbars[bar];
        b.init = None;
        b.invalidated = true;
        Ok(())
    }

    /// `mbarrier.expect_tx`: more bytes the current phase must receive.
    pub fn mbar_expect_tx(
        &mut self,
        t: usize,
        bar: usize,
        bytes: u64,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let name = self.setup.mbarriers[bar].name.clone();
        let phase = self.mbars[bar].phase;
        let event = self.event(
            t,
            site,
            EventKind::Note(format!(
                "mbarrier.expect_tx {name} +{bytes} bytes (phase {phase})"
            )),
        );
        self.mbar_check_init(t, bar, event)?;
        self.mbars[bar].tx += bytes as i64;
        self.mbar_settle(bar, Some(event));
        self.note_mbarrier_step(t, bar, phase, MBarrierEffect::Count);
        Ok(())
    }

    /// `complete_tx` by an async agent: the bytes arrived, and with them the copy's writes.
    pub(super) fn mbar_complete_tx(
        &mut self,
        a: usize,
        bar: usize,
        bytes: u64,
        site: Site,
    ) -> Result<(), Halt> {
        self.begin(a)?;
        Arc::make_mut(&mut self.threads[a]).view.tick(a);
        let name = self.setup.mbarriers[bar].name.clone();
        let phase = self.mbars[bar].phase;
        let event = self.event(
            a,
            site,
            EventKind::Note(format!("complete_tx {name} -{bytes} bytes (phase {phase})")),
        );
        let b = &mut self.mbars[bar];
        b.tx -= bytes as i64;
        b.in_flight = b.in_flight.saturating_sub(1);
        let view = self.threads[a].view.clone();
        self.mbar_release(bar, view);
        self.mbar_settle(bar, Some(event));
        self.note_mbarrier_step(a, bar, phase, MBarrierEffect::Count);
        Ok(())
    }

    /// Release `view` into the current phase of `bar`, for every acquiring wait.
    pub(super) fn mbar_release_view(&mut self, bar: usize, view: View) {
        self.mbar_release(bar, view)
    }

    fn mbar_release(&mut self, bar: usize, view: View) {
        let b = &mut self.mbars[bar];
        match &mut b.releasing {
            Some(v) => v.join(&view, ALL_LEVELS),
            None => b.releasing = Some(view),
        }
    }

    /// Complete the current phase if nothing is pending; wake its waiters. The trace says so at
    /// `event`, the operation that completed it (none for a thread's exit).
    pub(super) fn mbar_settle(&mut self, bar: usize, event: Option<usize>) {
        let b = &mut self.mbars[bar];
        if b.pending != 0 || b.tx != 0 {
            return;
        }
        let released = b
            .releasing
            .take()
            .unwrap_or_else(|| View::new(self.setup.threads.len(), self.setup.locs.len()));
        b.completed.push(Arc::new(released));
        let remote = b.releasing_remote.take().map(Arc::new);
        b.completed_remote.push(remote);
        let inits = std::mem::take(&mut b.releasing_inits);
        b.completed_inits.push(Arc::new(inits));
        b.phase += 1;
        b.pending = b.count;
        let done = b.phase - 1;
        let note = event.and_then(|e| self.events.get_mut(e - 1));
        if let Some(EventKind::Note(text)) = note.map(|e| &mut e.what) {
            text.push_str(&format!(" -> phase {done} completes"));
        }
        if !std::mem::take(&mut self.mbars[bar].covered).is_empty() {
            // A spinner's failed iteration turns out not to be needed (`Machine::mbar_spin`).
            self.discard_covered_iteration();
            return;
        }
        for u in 0..self.threads.len() {
            if matches!(self.threads[u].status, Status::MBarWait { bar: w, .. } if w == bar) {
                Arc::make_mut(&mut self.threads[u]).status = Status::Running;
                self.wake.push(u);
            }
        }
    }

    /// The end of a failed iteration of a spin on a wait of `bar` (PTX: `L: mbarrier.try_wait
    /// p, [bar]; @!p bra L`, an iteration whose only observation was the failed wait: the
    /// interpreter's spin recognition): block until the awaited phase completes, as the Rust
    /// API's blocking wait does. Returns [`WaitResult::Blocked`] or, when the phase already
    /// completed, [`WaitResult::Complete`].
    ///
    /// A search that prunes spins (the spin module) keeps such an iteration only when the
    /// spinner then stays blocked for the rest of the execution (a hang, whose lasso it is).
    /// Otherwise the same execution without the iteration covers this one: the iteration's
    /// wait failed and left the thread's own state as it was ("test_wait and try_wait test for
    /// the completion of the current or the immediately preceding phase" and change nothing of
    /// the barrier; PTX ISA, *mbarrier.test_wait/try_wait*), so the thread can start its next
    /// iteration later, after the operation that completes the phase, and reach the same
    /// state. The execution is discarded as soon as the iteration turns out not to be needed:
    /// here when the phase already completed, or at the operation that completes it
    /// (`Machine::mbar_settle`). Either way the discarding operation conflicts with
    /// everything for the DFS, and the failed wait itself conflicts with that completing
    /// operation, so the DFS also runs the completion before the wait: the covering execution.
    pub fn mbar_spin(
        &mut self,
        t: usize,
        bar: usize,
        on: WaitOn,
        sem: WaitSem,
        site: Site,
    ) -> Result<WaitResult, Halt> {
        let result = self.mbar_wait(t, bar, on, sem, true, site)?;
        if !self.prune_spins {
            return Ok(result);
        }
        if result == WaitResult::Complete {
            self.discard_covered_iteration();
            return Err(Halt);
        }
        self.mbars[bar].covered.push(t);
        Ok(result)
    }

    /// Before an awaiting wait of `t` (a spin the PTX interpreter proved to be one blocking
    /// wait; [`super::Ctx::mbar_await`]): `true` when the wait can run now — the awaited phase
    /// completed, or the wait is misuse, which the wait itself reports. Otherwise `t` blocks
    /// until the barrier's phase changes, without an operation: it is not offered to the
    /// scheduler before (a wait that never can succeed is a hang, as for a blocking wait).
    pub fn mbar_await_ready(&mut self, t: usize, bar: usize, on: WaitOn) -> Result<bool, Halt> {
        let b = &self.mbars[bar];
        let current = b.phase;
        // PTX ISA, mbarrier.test_wait/try_wait: `waitComplete` is true when "the phase
        // indicated by the operand phaseParity" (the current phase's parity is the other one)
        // or by the state (a phase before the current one) has completed.
        let ready = b.init.is_none()
            || !self.init_visible(t, bar)
            || match on {
                WaitOn::Parity(p) => current % 2 != p % 2,
                WaitOn::Token(k) => k < current,
            };
        if ready {
            return Ok(true);
        }
        Arc::make_mut(&mut self.threads[t]).status = Status::MBarWait {
            bar,
            phase: current,
        };
        self.check_hang()?;
        Ok(false)
    }

    /// `try_wait`/`test_wait`: is the awaited phase complete? If so, an acquiring wait acquires
    /// what the phase released to a wait of its scope ([`WaitSem`]). With `block`, an incomplete
    /// wait blocks the thread until the phase changes.
    pub fn mbar_wait(
        &mut self,
        t: usize,
        bar: usize,
        on: WaitOn,
        sem: WaitSem,
        block: bool,
        site: Site,
    ) -> Result<WaitResult, Halt> {
        self.begin(t)?;
        Arc::make_mut(&mut self.threads[t]).view.tick(t);
        let name = self.setup.mbarriers[bar].name.clone();
        let current = self.mbars[bar].phase;
        // The completed phase the wait speaks of. In phase 0, parity 1 names the phase "before"
        // the first one, which counts as completed and released nothing (CUTLASS starts its
        // producers on it).
        let awaited = match on {
            WaitOn::Parity(p) if current % 2 != p % 2 => current.checked_sub(1),
            WaitOn::Parity(p) if current == 0 && p % 2 == 1 => None,
            WaitOn::Parity(_) => None,
            WaitOn::Token(k) if k < current => Some(k),
            WaitOn::Token(_) => None,
        };
        let what = match on {
            _ if self.setup.mbarriers[bar].launch_count.is_some() => {
                format!("barrier.cluster.wait on {name}")
            }
            WaitOn::Parity(p) => format!("mbarrier.try_wait.parity {name}, parity {}", p % 2),
            WaitOn::Token(k) => format!("mbarrier.try_wait {name}, token of phase {k}"),
        };
        let before_first = matches!(on, WaitOn::Parity(p) if current == 0 && p % 2 == 1);
        let outcome = match awaited {
            Some(k) => format!("true (phase {k} completed; current phase {current})"),
            None if before_first => {
                "true (the barrier is in its first phase, 0: parity 1 names the phase before it, \
                 which counts as completed)"
                    .to_string()
            }
            None => format!("false (current phase {current} has parity {})", current % 2),
        };
        let what = match (sem.acquire, sem.scope) {
            _ if self.setup.mbarriers[bar].launch_count.is_some() => what,
            (true, Scope::Cta) => what,
            (acquire, scope) => {
                let order = if acquire { "acquire" } else { "relaxed" };
                what.replacen("wait", &format!("wait.{order}.{scope}"), 1)
            }
        };
        let remote_missed = match awaited {
            Some(k) if sem.acquire && sem.scope == Scope::Cta => {
                self.mbars[bar].completed_remote[k as usize].is_some()
            }
            _ => false,
        };
        let outcome = match remote_missed {
            true => format!(
                "{outcome}; acquires nothing from the phase's remote .cluster arrives: a .cta \
                 wait's scope leaves their CTA out (wait with .acquire.cluster)"
            ),
            false => outcome,
        };
        let event = self.event(t, site, EventKind::Note(format!("{what} -> {outcome}")));
        self.mbar_check_init(t, bar, event)?;
        if let WaitOn::Token(k) = on {
            if k + 1 < current {
                let state = self.mbar_describe(bar);
                return Err(self.misuse(
                    format!("wait on mbarrier {name} for phase {k}, two or more phases behind"),
                    vec![
                        format!("#{event} {}", self.describe(event)),
                        format!(
                            "{state}: only the current phase and the one before it are in the valid window"
                        ),
                    ],
                ));
            }
        }
        match awaited {
            None if before_first => Ok(WaitResult::Complete),
            Some(_) if !sem.acquire => Ok(WaitResult::Complete),
            Some(k) => {
                let released = Arc::clone(&self.mbars[bar].completed[k as usize]);
                Arc::make_mut(&mut self.threads[t])
                    .view
                    .join(&released, ALL_LEVELS);
                // PTX ISA, Scope: a `.cluster` wait's scope includes the peer CTAs whose
                // `.cluster` release arrives it synchronizes with.
                if sem.scope != Scope::Cta {
                    if let Some(remote) = self.mbars[bar].completed_remote[k as usize].clone() {
                        Arc::make_mut(&mut self.threads[t])
                            .view
                            .join(&remote, ALL_LEVELS);
                    }
                }
                let inits = Arc::clone(&self.mbars[bar].completed_inits[k as usize]);
                self.cluster.learn_inits(t, &inits);
                Ok(WaitResult::Complete)
            }
            None if block => {
                Arc::make_mut(&mut self.threads[t]).status = Status::MBarWait {
                    bar,
                    phase: current,
                };
                self.check_hang()?;
                Ok(WaitResult::Blocked)
            }
            None => Ok(WaitResult::Incomplete),
        }
    }
}

impl super::Ctx {
    /// `mbarrier.init` of `bar` with `count` expected arrivals ([`Machine::mbar_init`]).
    pub fn mbar_init(&self, bar: usize, count: u32, site: Site) {
        self.sched
            .point(self.thread, super::sched::Point::MBarrier(bar));
        self.step(|m| m.mbar_init(self.thread, bar, count, site))
    }

    /// `mbarrier.arrive` on `bar`: returns the phase arrived on (the first half of what
    /// [`Machine::mbar_arrive_state`] returns, the opaque `state` of PTX).
    pub fn mbar_arrive(&self, bar: usize, arrive: Arrive, site: Site) -> u32 {
        self.sched
            .point(self.thread, super::sched::Point::MBarrier(bar));
        self.step(|m| m.mbar_arrive(self.thread, bar, arrive, site))
    }

    /// An arrive that also returns the arrivals pending right after it.
    pub fn mbar_arrive_state(&self, bar: usize, arrive: Arrive, site: Site) -> (u32, u32) {
        self.sched
            .point(self.thread, super::sched::Point::MBarrier(bar));
        self.step(|m| m.mbar_arrive_state(self.thread, bar, arrive, site))
    }

    /// `mbarrier.expect_tx` on `bar`: `bytes` more the current phase must receive
    /// ([`Machine::mbar_expect_tx`]).
    pub fn mbar_expect_tx(&self, bar: usize, bytes: u64, site: Site) {
        self.sched
            .point(self.thread, super::sched::Point::MBarrier(bar));
        self.step(|m| m.mbar_expect_tx(self.thread, bar, bytes, site))
    }

    /// `mbarrier.inval` (see [`Machine::mbar_inval`]).
    pub fn mbar_inval(&self, bar: usize, site: Site) {
        self.sched
            .point(self.thread, super::sched::Point::MBarrier(bar));
        self.step(|m| m.mbar_inval(self.thread, bar, site))
    }

    /// The end of a failed iteration of a spin on a wait of `bar` ([`Machine::mbar_spin`]):
    /// returns once the awaited phase completed.
    pub fn mbar_spin(&self, bar: usize, on: WaitOn, sem: WaitSem, site: Site) {
        self.sched
            .point(self.thread, super::sched::Point::MBarrierWait(bar));
        if self.step(|m| m.mbar_spin(self.thread, bar, on, sem, site)) == WaitResult::Blocked {
            self.wait();
            self.mbar_wait(bar, on, sem, true, site);
        }
    }

    /// A wait the PTX interpreter proved to be a whole spin loop (its awaits module): a search
    /// that prunes spins waits until the awaited phase completed without offering the thread
    /// to the scheduler ([`Machine::mbar_await_ready`]), then waits once, which succeeds
    /// (returns `true`); any other engine tests the barrier once, a round of the loop.
    pub fn mbar_await(&self, bar: usize, on: WaitOn, sem: WaitSem, site: Site) -> bool {
        if !self.step(|m| Ok(m.prune_spins)) {
            return self.mbar_wait(bar, on, sem, false, site);
        }
        while !self.step(|m| m.mbar_await_ready(self.thread, bar, on)) {
            self.wait();
        }
        self.mbar_wait(bar, on, sem, true, site)
    }

    /// Test the barrier once (`block == false`), or until the awaited phase completes.
    pub fn mbar_wait(&self, bar: usize, on: WaitOn, sem: WaitSem, block: bool, site: Site) -> bool {
        loop {
            self.sched
                .point(self.thread, super::sched::Point::MBarrierWait(bar));
            match self.step(|m| m.mbar_wait(self.thread, bar, on, sem, block, site)) {
                WaitResult::Complete => return true,
                WaitResult::Incomplete => return false,
                WaitResult::Blocked => self.wait(),
            }
        }
    }
}
