//! Tests of `ptx::layout`.

use scopecheck_model::ptx::decode::Space;
use scopecheck_model::ptx::layout::*;

#[test]
fn windows_round_trip() {
    for space in [Space::Shared, Space::Local, Space::Const] {
        let g = to_generic(space, 0x40);
        assert_eq!(from_generic(g), (space, 0x40));
    }
    assert_eq!(
        from_generic(GLOBAL_BASE + 8),
        (Space::Global, GLOBAL_BASE + 8)
    );
    assert_eq!(to_generic(Space::Global, GLOBAL_BASE), GLOBAL_BASE);
}
