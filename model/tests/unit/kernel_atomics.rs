//! Tests of `kernel::atomics`.

use scopecheck_model::kernel::atomics::*;

#[test]
fn inc_and_dec_wrap_like_ptx() {
    assert_eq!(
        (0..5).map(|o| inc(o, 3)).collect::<Vec<_>>(),
        [1, 2, 3, 0, 0]
    );
    assert_eq!(
        (0..5).map(|o| dec(o, 3)).collect::<Vec<_>>(),
        [3, 0, 1, 2, 3]
    );
}
