//! Tests of `ptx::decode::operand`.

use scopecheck_model::ptx::decode::*;

#[test]
fn special_registers_parse() {
    assert_eq!(Special::parse("%tid.y"), Some(Special::Tid(1)));
    assert_eq!(Special::parse("%ctaid.z"), Some(Special::Ctaid(2)));
    assert_eq!(Special::parse("%tid"), None);
    assert_eq!(Special::parse("%laneid.x"), None);
    assert_eq!(
        Special::parse("%lanemask_lt"),
        Some(Special::Lanemask(LaneCmp::Lt))
    );
    assert_eq!(Special::parse("%envreg3"), Some(Special::Envreg));
    assert_eq!(Special::parse("%envregx"), None);
    assert_eq!(Special::parse("%clock64"), Some(Special::Timer));
    assert_eq!(Special::parse("%r1"), None);
}
