//! Tests of `record`.

use scopecheck_gpu::record::*;

#[test]
fn dates_convert() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(20_414), (2025, 11, 22));
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    assert_eq!(civil_from_days(11_017), (2000, 3, 1));
}

#[test]
fn write_new_never_overwrites() {
    let dir = std::env::temp_dir().join(format!("scopecheck-gpu-record-{}", std::process::id()));
    let a = write_new(&dir, "t", "one").unwrap();
    let b = write_new(&dir, "t", "two").unwrap();
    assert_ne!(a, b);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "two");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .collect();
    assert_eq!(leftovers.len(), 2, "temp files are removed");
    std::fs::remove_dir_all(&dir).unwrap();
}
