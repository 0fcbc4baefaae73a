//! Tile IR token order in tile kernels: inside a tile block only tokens order the token-ordered
//! operations; two of them touching one element, one writing, unordered by tokens, race.

use scopecheck_model::check;
use scopecheck_model::kernel::*;

fn every_engine(k: &Kernel, body: impl Fn(&TileCtx) + Send + Sync + Copy + 'static) -> Vec<Report> {
    let reports = Checker::check_all_tiles(k, body);
    for r in &reports {
        println!("{r}");
        assert!(r.executions > 0);
    }
    reports
}

fn assert_verdict(reports: &[Report], verdict: Verdict) {
    for r in reports {
        assert_eq!(r.verdict(), verdict, "{r}");
    }
}

#[test]
fn reading_back_a_write_without_its_token_races() {
    let mut k = Kernel::new("own_write", Grid::tiles(1));
    let x = k.global::<i32>("x", 2);
    let reports = every_engine(&k, move |ct| {
        ct.store_tko(&x, 0, &[1, 2], &[]);
        ct.load_tko(&x, 0, 2, &[]);
    });
    assert_verdict(&reports, Verdict::Fail(FailureKind::DataRace));
    let text = reports[0].to_string();
    assert!(text.contains("not ordered by tokens"), "{text}");
    assert!(text.contains("replay token: sc1-"), "{text}");
}

#[test]
fn reading_back_a_write_after_its_token_is_ordered() {
    let mut k = Kernel::new("own_write_token", Grid::tiles(1));
    let x = k.global::<i32>("x", 2);
    let reports = every_engine(&k, move |ct| {
        let stored = ct.store_tko(&x, 0, &[1, 2], &[]);
        let (tile, _) = ct.load_tko(&x, 0, 2, &[stored]);
        check!(tile == [1, 2]);
    });
    assert_verdict(&reports, Verdict::Pass);
}

#[test]
fn overwriting_a_loaded_tile_without_the_loads_token_races() {
    let build = |ordered: bool| {
        let mut k = Kernel::new("war", Grid::tiles(1));
        let x = k.global_from::<i32>("x", &[4, 5]);
        let body = move |ct: &TileCtx| {
            let (_, loaded) = ct.load_tko(&x, 0, 2, &[]);
            let after = if ordered { vec![loaded] } else { vec![] };
            ct.store_tko(&x, 0, &[0, 0], &after);
        };
        (k, body)
    };
    let (k, body) = build(false);
    assert_verdict(
        &every_engine(&k, body),
        Verdict::Fail(FailureKind::DataRace),
    );
    let (k, body) = build(true);
    assert_verdict(&every_engine(&k, body), Verdict::Pass);
}

#[test]
fn token_order_is_transitive_and_joins_combine_tokens() {
    let build = |load_token_kept: bool| {
        let mut k = Kernel::new("chains", Grid::tiles(1));
        let x = k.global::<i32>("x", 1);
        let y = k.global::<i32>("y", 1);
        let body = move |ct: &TileCtx| {
            let tx = ct.store_tko(&x, 0, &[1], &[]);
            let ty = ct.store_tko(&y, 0, &[2], &[tx]);
            // Ordered after the store to x through the store to y.
            let (vx, tl) = ct.load_tko(&x, 0, 1, &[ty]);
            check!(vx == [1]);
            // Overwriting x must wait for that load, not only for `ty`.
            let before = if load_token_kept { tl } else { ty };
            let tz = ct.store_tko(&x, 0, &[3], &[before]);
            let both = ct.join_tokens(&[tz, ty]);
            let (vx, _) = ct.load_tko(&x, 0, 1, &[both]);
            let (vy, _) = ct.load_tko(&y, 0, 1, &[both]);
            check!(vx == [3] && vy == [2]);
        };
        (k, body)
    };
    let (k, body) = build(true);
    assert_verdict(&every_engine(&k, body), Verdict::Pass);
    let (k, body) = build(false);
    let reports = every_engine(&k, body);
    assert_verdict(&reports, Verdict::Fail(FailureKind::DataRace));
    let text = reports[0].to_string();
    assert!(text.contains("data race on x[0]"), "{text}");
}

#[test]
fn a_fresh_token_orders_nothing_and_disjoint_tiles_need_no_tokens() {
    let mut k = Kernel::new("fresh", Grid::tiles(1));
    let x = k.global::<i32>("x", 4);
    let disjoint = every_engine(&k, move |ct| {
        ct.store_tko(&x, 0, &[1, 2], &[]);
        ct.store_tko(&x, 1, &[3, 4], &[]);
        ct.load_tko(&x, 1, 2, &[]);
    });
    // The second store and the load touch the same elements.
    assert_verdict(&disjoint, Verdict::Fail(FailureKind::DataRace));
    let fine = every_engine(&k, move |ct| {
        ct.store_tko(&x, 0, &[1, 2], &[]);
        let fresh = ct.make_token();
        let t = ct.store_tko(&x, 1, &[3, 4], &[fresh]);
        let (tile, _) = ct.load_tko(&x, 1, 2, &[t]);
        check!(tile == [3, 4]);
    });
    assert_verdict(&fine, Verdict::Pass);
    let unordered = every_engine(&k, move |ct| {
        ct.store_tko(&x, 0, &[1, 2], &[]);
        let fresh = ct.make_token();
        ct.load_tko(&x, 0, 2, &[fresh]);
    });
    assert_verdict(&unordered, Verdict::Fail(FailureKind::DataRace));
}

#[test]
fn plain_tile_operations_keep_program_order() {
    let mut k = Kernel::new("plain", Grid::tiles(1));
    let x = k.global::<i32>("x", 2);
    let reports = every_engine(&k, move |ct| {
        ct.store(&x, 0, &[1, 2]);
        check!(ct.load(&x, 0, 2) == [1, 2]);
    });
    assert_verdict(&reports, Verdict::Pass);
}

#[test]
fn token_ordered_release_and_acquire_publish_across_blocks() {
    let build = |scope: MemoryScope| {
        let mut k = Kernel::new("publish", Grid::tiles(2));
        let data = k.global::<i32>("data", 2);
        let flag = k.global::<i32>("flag", 1);
        let body = move |ct: &TileCtx| {
            if ct.bid() == 0 {
                let stored = ct.store_tko(&data, 0, &[3, 4], &[]);
                ct.atomic_store_tko(&flag, 0, 1, MemoryOrder::Release, scope, &[stored]);
            } else {
                let (f, acquired) = ct.atomic_load_tko(&flag, 0, MemoryOrder::Acquire, scope, &[]);
                if f == 1 {
                    let (tile, _) = ct.load_tko(&data, 0, 2, &[acquired]);
                    check!(tile == [3, 4]);
                }
            }
        };
        (k, body)
    };
    let (k, body) = build(MemoryScope::Device);
    assert_verdict(&every_engine(&k, body), Verdict::Pass);
    let (k, body) = build(MemoryScope::Block);
    assert_verdict(
        &every_engine(&k, body),
        Verdict::Fail(FailureKind::ScopedRace {
            fix: scopecheck_model::scope::Scope::Gpu,
        }),
    );
}
