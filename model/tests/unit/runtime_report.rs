//! Tests of `runtime::report`.

use scopecheck_model::runtime::report::*;

#[test]
fn tokens_round_trip() {
    let token = Token {
        fingerprint: 0xdead_beef,
        decisions: vec![
            Decision::Run(0),
            Decision::Pick(1),
            Decision::Run(27),
            Decision::Pick(12),
            Decision::Run(3),
        ],
    };
    let text = token.to_string();
    assert_eq!(text, "sc1-deadbeef-a1(27)[12]d");
    assert_eq!(text.parse::<Token>().unwrap(), token);
    assert!("sc2-00-a".parse::<Token>().is_err());
    assert!("sc1-00-a!".parse::<Token>().is_err());
}
