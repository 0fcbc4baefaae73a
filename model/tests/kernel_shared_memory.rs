//! The CUDA shared-memory chapter: a block reduction with and without `syncthreads`, barrier
//! divergence, and bank conflicts with the padding fix.

use scopecheck_model::kernel::*;

fn verdict(reports: Vec<Report>) -> Verdict {
    for r in &reports {
        println!("{r}");
        assert!(r.executions > 0, "{r}");
    }
    common_verdict(&reports).unwrap()
}

#[derive(Clone, Copy, PartialEq)]
enum Sync {
    Correct,
    MissingFirstBarrier,
    BarrierInsideBranch,
}

/// Sum `2 * threads` inputs: each thread adds two inputs into `sdata[tid]`, then a tree
/// reduction halves the active threads each step.
fn reduction(checker: Option<Checker>, threads: u32, sync: Sync) -> Vec<Report> {
    let n = 2 * threads as usize;
    let mut k = Kernel::new("reduce", Grid::new(1, threads));
    let input: Vec<i32> = (1..=n as i32).collect();
    let total: i32 = input.iter().sum();
    let input = k.global_from::<i32>("input", &input);
    let out = k.global::<i32>("out", 1);
    let sdata = k.shared::<i32>("sdata", threads as usize);
    k.postcondition("out == sum(input)", move |m| m.get(&out, 0) == total);
    let body = move |t: &ThreadCtx| {
        let tid = t.tid() as usize;
        let v = t.load(&input, tid) + t.load(&input, tid + threads as usize);
        t.store(&sdata, tid, v);
        if sync != Sync::MissingFirstBarrier {
            t.syncthreads();
        }
        let mut s = threads as usize / 2;
        while s > 0 {
            if tid < s {
                let sum = t.load(&sdata, tid) + t.load(&sdata, tid + s);
                t.store(&sdata, tid, sum);
                if sync == Sync::BarrierInsideBranch {
                    t.syncthreads(); // only the active half of the block gets here
                }
            }
            if sync != Sync::BarrierInsideBranch {
                t.syncthreads();
            }
            s /= 2;
        }
        if tid == 0 {
            let sum = t.load(&sdata, 0);
            t.store(&out, 0, sum);
        }
    };
    match checker {
        Some(c) => vec![c.check(&k, body)],
        None => Checker::check_all(&k, body),
    }
}

#[test]
fn reduction_with_syncthreads_passes() {
    assert_eq!(verdict(reduction(None, 2, Sync::Correct)), Verdict::Pass);
}

#[test]
fn reduction_missing_syncthreads_is_a_data_race() {
    assert_eq!(
        verdict(reduction(None, 2, Sync::MissingFirstBarrier)),
        Verdict::Fail(FailureKind::DataRace)
    );
}

#[test]
fn syncthreads_inside_a_divergent_branch_is_barrier_divergence() {
    assert_eq!(
        verdict(reduction(None, 2, Sync::BarrierInsideBranch)),
        Verdict::Fail(FailureKind::BarrierDivergence)
    );
}

#[test]
#[allow(clippy::if_same_then_else)] // the two calls are different barriers: that is the point
fn syncthreads_in_both_branches_of_a_divergent_if_is_barrier_divergence() {
    // The chapter's example: `if (tid % 2 == 0) __syncthreads(); else __syncthreads();`
    let k = Kernel::new("two_barriers", Grid::new(1, 2));
    let v = verdict(Checker::check_all(&k, |t| {
        if t.tid() % 2 == 0 {
            t.syncthreads();
        } else {
            t.syncthreads();
        }
    }));
    assert_eq!(v, Verdict::Fail(FailureKind::BarrierDivergence));
}

#[test]
fn large_reductions_under_shuttle() {
    // 128 threads: far beyond loom, sampled by shuttle's random scheduler and PCT.
    for sync in [
        Sync::Correct,
        Sync::MissingFirstBarrier,
        Sync::BarrierInsideBranch,
    ] {
        for checker in [Checker::random(3, 11), Checker::pct(3, 3, 11)] {
            let r = reduction(Some(checker), 128, sync).pop().unwrap();
            println!("{r}");
            let expected = match sync {
                Sync::Correct => Verdict::Pass,
                Sync::MissingFirstBarrier => Verdict::Fail(FailureKind::DataRace),
                Sync::BarrierInsideBranch => Verdict::Fail(FailureKind::BarrierDivergence),
            };
            assert_eq!(r.verdict(), expected);
        }
    }
}

/// Each thread of a warp writes then reads column 0 of its own row of a `rows × pitch` tile of
/// 4-byte words: with a pitch of 32 words every row starts in bank 0.
fn column_access(checker: Option<Checker>, threads: u32, pitch: usize) -> Vec<Report> {
    let mut k = Kernel::new("column_access", Grid::new(1, threads));
    let tile = k.shared::<f32>("tile", threads as usize * pitch);
    let body = move |t: &ThreadCtx| {
        let i = t.tid() as usize * pitch;
        t.store(&tile, i, t.tid() as f32);
        let _ = t.load(&tile, i);
    };
    match checker {
        Some(c) => vec![c.check(&k, body)],
        None => Checker::check_all(&k, body),
    }
}

#[test]
fn column_access_has_bank_conflicts_and_padding_removes_them() {
    for r in column_access(None, 4, 32) {
        println!("{r}");
        assert!(r.passed());
        assert_eq!(r.worst_bank_conflict(), 4, "{r}");
    }
    for r in column_access(None, 4, 33) {
        println!("{r}");
        assert!(r.passed());
        assert_eq!(r.worst_bank_conflict(), 1, "{r}");
    }
}

#[test]
fn a_full_warp_column_access_is_a_32_way_conflict() {
    let r = column_access(Some(Checker::random(2, 3)), 32, 32)
        .pop()
        .unwrap();
    println!("{r}");
    assert_eq!(r.worst_bank_conflict(), 32);
    assert!(r.bank_conflicts.iter().all(|c| c.degree == 32));
    let padded = column_access(Some(Checker::random(2, 3)), 32, 33)
        .pop()
        .unwrap();
    assert_eq!(padded.worst_bank_conflict(), 1);
}

#[test]
fn a_broadcast_is_not_a_conflict() {
    // Every thread reads the same word: one bank, one word, served once.
    let mut k = Kernel::new("broadcast", Grid::new(1, 4));
    let tile = k.shared::<i32>("tile", 4);
    let r = Checker::dfs().check(&k, move |t| {
        let _ = t.load(&tile, 0);
    });
    assert_eq!(r.worst_bank_conflict(), 1, "{r}");
}
