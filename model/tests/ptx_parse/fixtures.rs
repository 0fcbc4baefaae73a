//! The round trip over every `.ptx` fixture.

use super::common::*;

#[test]
fn every_fixture_round_trips() {
    let files = ptx_files();
    assert!(files.len() >= 12, "fixtures missing: {files:?}");
    for path in &files {
        let src = std::fs::read_to_string(path).expect("readable fixture");
        let m = round_trip(&src, &path.display().to_string());
        assert!(!m.items.is_empty(), "{}: no items", path.display());
    }
}
