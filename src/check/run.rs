//! Running a corpus: every litmus row, bug model and CUDA kernel as one job on a pool of worker
//! threads, the finished rows gathered in table order.

use super::manifest::{Corpus, LitmusRow};
use super::outcome::Outcome;
use super::{bugs, cuda, litmus};
use rayon::prelude::*;
use scopecheck_model::axiomatic::Options;
use std::convert::Infallible;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

/// How a corpus runs.
pub struct Settings {
    /// The axiomatic engine's options for litmus rows.
    pub litmus: Options,
    /// Each bug model under every engine that fits it, one row per engine.
    pub every_engine: bool,
    /// Bug models explored past their first failure.
    pub all_failures: bool,
    /// Worker threads (`None`: one per core).
    pub jobs: Option<usize>,
}

/// One unit of work: a litmus row, a bug model, or a CUDA kernel.
enum Job<'a> {
    Litmus(&'a LitmusRow),
    Bug(&'a bugs::BugCase),
    Cuda(&'a crate::cuda_corpus::Row),
}

/// The compiled-in bug models, when the corpus has a `bugs/` directory.
pub fn bug_cases(corpus: &Corpus) -> Vec<bugs::BugCase> {
    if corpus.bug_dirs.is_empty() {
        Vec::new()
    } else {
        bugs::all()
    }
}

/// The rows the table will have: one per litmus row, CUDA row and manifest error, and per bug
/// model one, or one per engine under `every_engine` (what a progress bar counts).
pub fn row_count(corpus: &Corpus, bugs: &[bugs::BugCase], every_engine: bool) -> u64 {
    let models: u64 = bugs
        .iter()
        .map(|b| {
            if every_engine {
                b.every_engine().len() as u64
            } else {
                1
            }
        })
        .sum();
    (corpus.outcomes.len() + corpus.rows.len() + corpus.cuda.len()) as u64 + models
}

/// Runs every job of `corpus` (and `bugs`) on a worker pool. `done` is called with each job's
/// rows as it finishes. Every 100 ms, and whenever a job finishes, `stop()` is asked: once it
/// says true, `interrupted` is called with the rows finished so far (manifest errors first, then
/// in table order) and cannot return (it returns `Infallible`: it exits the process) — the jobs still running are abandoned, not waited for.
/// Otherwise the result is every row in table order.
pub fn run_jobs(
    corpus: &Corpus,
    bugs: &[bugs::BugCase],
    settings: &Settings,
    done: &(dyn Fn(&[Outcome]) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    interrupted: &dyn Fn(Vec<Outcome>) -> Infallible,
) -> Result<Vec<Outcome>, String> {
    let jobs: Vec<Job> = corpus
        .rows
        .iter()
        .map(Job::Litmus)
        .chain(bugs.iter().map(Job::Bug))
        .chain(corpus.cuda.iter().map(Job::Cuda))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.jobs.unwrap_or(0))
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;
    let (tx, rx) = channel::<(usize, Vec<Outcome>)>();
    let mut finished: Vec<Option<Vec<Outcome>>> = (0..jobs.len()).map(|_| None).collect();
    let gathered = |finished: &mut Vec<Option<Vec<Outcome>>>| {
        let mut all: Vec<Outcome> = corpus.outcomes.clone();
        all.extend(finished.iter_mut().filter_map(Option::take).flatten());
        all
    };
    std::thread::scope(|scope| {
        let jobs = &jobs;
        scope.spawn(move || {
            pool.install(|| {
                jobs.par_iter()
                    .enumerate()
                    .for_each_with(tx, |tx, (i, job)| {
                        if stop() {
                            return;
                        }
                        let rows = match job {
                            Job::Litmus(row) => vec![litmus::check_litmus(row, &settings.litmus)],
                            Job::Bug(bug) => {
                                bugs::check(bug, settings.every_engine, settings.all_failures)
                            }
                            Job::Cuda(row) => vec![cuda::check(row)],
                        };
                        done(&rows);
                        let _ = tx.send((i, rows));
                    })
            })
        });
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok((i, rows)) => finished[i] = Some(rows),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if stop() {
                // The rows that arrived meanwhile are reported too.
                while let Ok((i, rows)) = rx.try_recv() {
                    finished[i] = Some(rows);
                }
                match interrupted(gathered(&mut finished)) {}
            }
        }
    });
    Ok(gathered(&mut finished))
}
