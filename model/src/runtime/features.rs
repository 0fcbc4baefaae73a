//! Where every feature registers its hooks: the one table of what each feature hears of from the
//! core (see the hooks module and [`Hooks`]), handed to every machine the running floor builds.
//!
//! A new feature that must act on an access, a read, a store, an exit or a hang report adds its
//! functions to the lists here, at the place its order among the others requires; it never adds
//! a call to the core.

use super::machine::{Access, Halt, Hooks, Machine, Status};

/// Every feature's hooks, in the order they run.
///
/// - Accesses: Tile IR token order first, then distributed shared memory of an exited block,
///   then a write to data read through the non-coherent cache (the first failure is reported).
/// - Reads and stores: spin loops note what an iteration reads and wake spinners a store may
///   release.
/// - Exits: an idle copy agent of a finished block wakes to exit, pending warp operations stop
///   waiting for the thread (this may fail the execution, which ends the exit's handling), and
///   the cluster barrier stops expecting it; after the block's admission and the divergence
///   check, CTA barrier instances settle.
/// - Hang reports: CTA and warp barriers, then mbarriers, say what a blocked thread waits on.
pub static FEATURES: Hooks = Hooks {
    on_access: &[tokens_access, dsmem_access, noncoherent_access],
    on_read: &[Machine::watch],
    on_store: &[Machine::wake_spinners],
    on_exit: &[async_copy_exit, Machine::warp_exit, cluster_exit],
    on_barrier_settle: &[Machine::settle_barriers],
    describe_wait: &[barrier_wait, mbarrier_wait],
};

/// Tile IR tokens: a token-ordered access must be token-ordered after every conflicting one.
fn tokens_access(m: &mut Machine, a: &Access) -> Result<(), Halt> {
    m.token_check(a.thread, a.loc, a.write, a.event)
}

/// Clusters: an access to the shared memory of a block that has exited.
fn dsmem_access(m: &mut Machine, a: &Access) -> Result<(), Halt> {
    m.dsmem_check(a.thread, a.loc, a.event)
}

/// `ld.global.nc`: a write to data some thread read through the non-coherent cache.
fn noncoherent_access(m: &mut Machine, a: &Access) -> Result<(), Halt> {
    if a.write && !m.nc_reads.is_empty() {
        m.nc_check_write(a.thread, a.loc)?;
    }
    Ok(())
}

/// Bulk copies: the thread's block may have finished, so its idle copy agent wakes to exit.
fn async_copy_exit(m: &mut Machine, t: usize) -> Result<(), Halt> {
    m.wake_idle_agent(m.setup.threads[t].block as usize);
    Ok(())
}

/// Clusters: the cluster barrier stops expecting the exited thread.
fn cluster_exit(m: &mut Machine, t: usize) -> Result<(), Halt> {
    m.cluster_exit(t);
    Ok(())
}

/// CTA barriers (and warp operations, which block the same way): which barrier, how many came.
fn barrier_wait(m: &Machine, u: usize, status: &Status) -> Option<String> {
    (*status == Status::AtBarrier).then(|| m.describe_barrier_wait(u))
}

/// mbarriers: the barrier's phase, pending arrivals and transaction count.
fn mbarrier_wait(m: &Machine, u: usize, status: &Status) -> Option<String> {
    let Status::MBarWait { bar, phase } = *status else {
        return None;
    };
    let name = &m.setup.threads[u].name;
    Some(format!(
        "{name} waits on {} until its phase {phase} completes",
        m.mbar_describe(bar)
    ))
}
