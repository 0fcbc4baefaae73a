//! Hang diagnosis: every live thread of the kernel blocked for good, with the lasso that repeats
//! forever.

use super::machine::{Halt, Machine, Status};
use super::report::{CycleStep, FailureKind, Lasso};

impl Machine {
    /// Every live thread of the kernel blocked, and no async agent at work: a proven hang. (An
    /// idle agent cannot unblock anyone: it only acts on copies threads issue.)
    ///
    /// Each blocked thread stays blocked, since only another thread's action releases it and
    /// none can act: a barrier completes only when its count arrives, an mbarrier phase only on
    /// arrivals or completed copies, a block becomes resident only when a resident one finishes,
    /// and a spinner (the spin module) was blocked because every store it may still read holds
    /// the value it read, so its next iteration reads the same values, writes nothing, and
    /// leaves the state as it was. The lasso is the trace so far, then one round of those
    /// iterations and waits.
    pub(super) fn check_hang(&mut self) -> Result<(), Halt> {
        if self.threads.iter().any(|th| th.status == Status::Running) {
            return Ok(());
        }
        let live: Vec<usize> = (0..self.threads.len())
            .filter(|&u| self.threads[u].status != Status::Done && !self.setup.threads[u].agent)
            .collect();
        if live.is_empty() {
            return Ok(());
        }
        let mut details = Vec::new();
        let mut cycle = Vec::new();
        for &u in &live {
            let name = &self.setup.threads[u].name;
            let status = &self.threads[u].status;
            // The core's wording, unless the feature that blocked the thread says more (its
            // `describe_wait` hook: which barrier, how many arrived).
            let (why, again) = match status {
                Status::AtBarrier => (
                    format!("{name} waits at a barrier"),
                    format!("{name} waits at its barrier again"),
                ),
                Status::Spinning(watch) => {
                    let mut locs: Vec<&str> = watch
                        .iter()
                        .map(|&(l, _)| self.setup.locs[l].name.as_str())
                        .collect();
                    locs.dedup();
                    let locs = locs.join(", ");
                    cycle.extend(
                        self.threads[u]
                            .blocked_iteration
                            .iter()
                            .map(|&event| CycleStep::Again { event }),
                    );
                    (
                        format!(
                            "{name} spins forever: every store to {locs} it may still read holds \
                             the value it read"
                        ),
                        format!("{name}: spin_loop, the same iteration again"),
                    )
                }
                Status::MBarWait { bar, phase } => (
                    format!(
                        "{name} waits on {} until its phase {phase} completes",
                        self.setup.mbarriers[*bar].name
                    ),
                    format!("{name} waits on the mbarrier's phase {phase} again"),
                ),
                Status::BulkWait { pending, read } => {
                    let what = if *read { ".read" } else { "" };
                    (
                        format!(
                            "{name} waits in cp.async.bulk.wait_group{what} {pending} for its bulk \
                             copies to complete"
                        ),
                        format!("{name} waits for its bulk copies again"),
                    )
                }
                Status::CpAsyncWait(n) => (
                    format!(
                        "{name} waits in cp.async.wait_group {n} for its cp.async groups to \
                         complete"
                    ),
                    format!("{name} waits in cp.async.wait_group {n} again"),
                ),
                Status::NotResident => (
                    format!(
                        "{name} has not started: its block waits for a resident block to finish"
                    ),
                    format!("{name} is still not resident"),
                ),
                Status::NotStarted => (
                    format!(
                        "{name} has not started: its block waits for a lower symmetric block to start"
                    ),
                    format!("{name} has still not started"),
                ),
                _ => unreachable!("only blocked threads remain"),
            };
            details.push(self.describe_wait(u, status).unwrap_or(why));
            cycle.push(CycleStep::Waits(again));
        }
        self.fail(
            FailureKind::Hang,
            "no thread can ever proceed: every live thread is blocked for good".to_string(),
            details,
        );
        if let Some(failure) = &mut self.failure {
            if failure.kind == FailureKind::Hang && failure.lasso.is_none() {
                failure.lasso = Some(Lasso {
                    prefix: self.event_count,
                    cycle,
                });
            }
        }
        Err(Halt)
    }
}
