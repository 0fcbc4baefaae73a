//! A fuzzing campaign (`scopecheck fuzz`): worker threads check the generated programs of
//! consecutive seeds with [`check`], save every finding before shrinking it, and tell the caller
//! what they found through a channel; the caller prints and decides when to stop.

use super::{check, finding_file, shrink, uses_bulk_copies, uses_cluster_barriers, uses_hopper};
use super::{Finding, Options};
use crate::litmus::arbitrary::{from_seed_with, Limits};
use crate::litmus::Program;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc};

/// What the workers count as they go (read by the caller when it likes: waking it for every
/// program would cost more than some programs take).
#[derive(Default, Debug)]
pub struct Counts {
    /// Programs the engines agreed on.
    pub checked: AtomicU64,
    /// Of those, programs the runtime did not explore completely (cut by its budget).
    pub incomplete: AtomicU64,
    /// Agreed programs with Hopper features ([`uses_hopper`]).
    pub hopper: AtomicU64,
    /// Agreed programs with bulk copies.
    pub bulk_copies: AtomicU64,
    /// Agreed programs with cluster barriers.
    pub cluster_barriers: AtomicU64,
}

/// A finding, shrunk.
#[derive(Debug)]
pub struct Report {
    /// The seed whose program it is.
    pub seed: u64,
    /// The program as generated.
    pub generated: Program,
    /// The program shrunk to what still shows the same kind of finding.
    pub shrunk: Program,
    /// The finding on the shrunk program.
    pub finding: Finding,
}

/// What a worker tells the caller.
#[derive(Debug)]
pub enum Message {
    /// A finding, already saved (as generated) at `path`; shrinking follows.
    Found {
        /// The seed.
        seed: u64,
        /// The finding in one line.
        summary: String,
        /// Where it was saved.
        path: PathBuf,
    },
    /// The finding shrunk (and saved again, shrunk).
    Shrunk(Box<Report>),
    /// A finding could not be saved.
    Unsaved(String),
}

/// What a campaign checks and where it saves.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The first seed.
    pub first: u64,
    /// Worker threads.
    pub jobs: u64,
    /// At most this many programs in all (`None`: until the caller stops listening).
    pub programs: Option<u64>,
    /// The generator's limits.
    pub limits: Limits,
    /// The differential's options.
    pub options: Options,
    /// Where findings are saved.
    pub save: PathBuf,
    /// The command that checks one seed's program again (`SEED` stands for the seed), written
    /// into each finding's file.
    pub reproduce: String,
}

/// The running campaign: its messages, and what it has counted.
pub struct Running {
    /// Findings, in the order found; disconnected once every worker has finished.
    pub messages: mpsc::Receiver<Message>,
    /// What the workers counted.
    pub counts: Arc<Counts>,
    /// Programs each worker finished.
    pub per_worker: Arc<Vec<AtomicU64>>,
}

/// Starts the workers: worker `k` checks the seeds `first + k`, `first + k + jobs`, … (all of
/// them below `programs` programs together). They are detached: a caller that stops at a deadline
/// ends the process with them still inside a program; a worker ends when the receiver is dropped.
pub fn start(c: &Campaign) -> Running {
    let (tx, rx) = mpsc::channel::<Message>();
    let counts = Arc::new(Counts::default());
    let per_worker: Arc<Vec<AtomicU64>> =
        Arc::new((0..c.jobs).map(|_| AtomicU64::new(0)).collect());
    for k in 0..c.jobs {
        let (tx, counts, per_worker) = (tx.clone(), Arc::clone(&counts), Arc::clone(&per_worker));
        let c = c.clone();
        std::thread::spawn(move || {
            let mut i = k;
            while c.programs.is_none_or(|n| i < n) {
                let found = |seed: u64, generated: &Program, finding: &Finding| {
                    let message =
                        match save_finding(&c.save, seed, generated, finding, &c.reproduce) {
                            Ok(path) => Message::Found {
                                seed,
                                summary: finding.to_string(),
                                path,
                            },
                            Err(e) => Message::Unsaved(e),
                        };
                    tx.send(message).is_ok()
                };
                match check_seed(c.first.wrapping_add(i), &c.limits, &c.options, found) {
                    Ok(checked) => {
                        let count = |n: &AtomicU64, yes: bool| n.fetch_add(u64::from(yes), Relaxed);
                        count(&counts.incomplete, !checked.complete);
                        count(&counts.hopper, checked.hopper);
                        count(&counts.bulk_copies, checked.bulk_copies);
                        count(&counts.cluster_barriers, checked.cluster_barriers);
                        count(&counts.checked, true);
                    }
                    Err(None) => return,
                    Err(Some(report)) => {
                        let saved = save_finding(
                            &c.save,
                            report.seed,
                            &report.shrunk,
                            &report.finding,
                            &c.reproduce,
                        );
                        let message = match saved {
                            Ok(_) => Message::Shrunk(report),
                            Err(e) => Message::Unsaved(e),
                        };
                        if tx.send(message).is_err() {
                            return;
                        }
                    }
                }
                per_worker[k as usize].fetch_add(1, Relaxed);
                i += c.jobs;
            }
        });
    }
    Running {
        messages: rx,
        counts,
        per_worker,
    }
}

/// A program the engines agreed on.
#[derive(Debug)]
pub struct Checked {
    /// The runtime explored it completely.
    pub complete: bool,
    /// It uses Hopper features.
    pub hopper: bool,
    /// It uses bulk copies.
    pub bulk_copies: bool,
    /// It uses cluster barriers.
    pub cluster_barriers: bool,
}

/// Checks the program of one seed: what it was, or the finding, shrunk (`Err(None)`: `found`,
/// told of the finding before the shrinking, asked to stop).
pub fn check_seed(
    seed: u64,
    limits: &Limits,
    opts: &Options,
    found: impl Fn(u64, &Program, &Finding) -> bool,
) -> Result<Checked, Option<Box<Report>>> {
    let generated = from_seed_with(seed, limits);
    match check(&generated, opts) {
        Ok(agreement) => Ok(Checked {
            complete: agreement.runtime_complete,
            hopper: uses_hopper(&generated),
            bulk_copies: uses_bulk_copies(&generated),
            cluster_barriers: uses_cluster_barriers(&generated),
        }),
        Err(finding) => {
            if !found(seed, &generated, &finding) {
                return Err(None);
            }
            let kind = std::mem::discriminant(&finding);
            let shrunk = shrink(&generated, |c| {
                check(c, opts).is_err_and(|f| std::mem::discriminant(&f) == kind)
            });
            let finding = check(&shrunk, opts).err().unwrap_or(finding);
            Err(Some(Box::new(Report {
                seed,
                generated,
                shrunk,
                finding,
            })))
        }
    }
}

/// Writes a finding as `DIR/fuzz-seed-SEED.litmus` (the record `corpus/fuzz-findings` keeps).
pub fn save_finding(
    dir: &Path,
    seed: u64,
    p: &Program,
    finding: &Finding,
    reproduce: &str,
) -> Result<PathBuf, String> {
    let name = format!("fuzz-seed-{seed}");
    let origin = reproduce.replace("SEED", &seed.to_string());
    let text = finding_file(p, &name, finding, &origin);
    let path = dir.join(format!("{name}.litmus"));
    std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(&path, text))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
