//! Tests of `outcome`.

use scopecheck_gpu::codegen::{TAG_STATE, TAG_TIMEOUT, TAG_WIDE};
use scopecheck_gpu::outcome::*;
use scopecheck_model::litmus::Value;

#[test]
fn keys_round_trip_including_negative_values() {
    let v = vec![0, 1, -1, 127, -128];
    assert_eq!(decode(encode(&v), v.len()), Outcome::State(v));
    assert_eq!(decode(TAG_TIMEOUT << 56, 2), Outcome::Timeout);
    assert_eq!(decode(TAG_WIDE << 56, 2), Outcome::Wide);
    assert_eq!(decode(9 << 56, 2), Outcome::Unknown(9 << 56));
}

#[test]
fn wider_conditions_pack_narrower_values() {
    let twelve: Vec<Value> = (0..12).map(|i| i % 16 - 8).collect();
    assert_eq!(decode(encode(&twelve), 12), Outcome::State(twelve.clone()));
    let sixteen: Vec<Value> = (0..16).map(|i| i % 8 - 4).collect();
    let key = encode(&sixteen);
    assert_eq!(
        key >> 56,
        TAG_STATE,
        "16 values of 3 bits stay below the tag byte"
    );
    assert_eq!(decode(key, 16), Outcome::State(sixteen));
}
