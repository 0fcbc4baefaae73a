//! Tests of `input`.

use scopecheck_model::input::*;
use std::path::Path;

#[test]
fn refuses_what_is_not_a_regular_file() {
    let dir = std::env::temp_dir();
    assert!(matches!(
        read_text(&dir),
        Err(InputError::NotRegular("a directory"))
    ));
    #[cfg(unix)]
    assert!(matches!(
        read_text(Path::new("/dev/zero")),
        Err(InputError::NotRegular("a character device"))
    ));
    assert!(matches!(
        read_text(Path::new("/no/such/file")),
        Err(InputError::Io(_))
    ));
}

#[test]
fn reads_text_and_refuses_bad_utf8_and_large_files() {
    let dir = std::env::temp_dir().join(format!("scopecheck-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.txt");
    std::fs::write(&ok, "héllo\n").unwrap();
    assert_eq!(read_text(&ok).unwrap(), "héllo\n");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, b"ab\xffc").unwrap();
    match read_text(&bad) {
        Err(e @ InputError::NotUtf8 { valid_up_to: 2, .. }) => {
            assert_eq!(e.to_string(), "invalid UTF-8 (byte 0xFF)")
        }
        other => panic!("{other:?}"),
    }
    let big = dir.join("big.txt");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_INPUT_BYTES + 1).unwrap();
    assert!(matches!(read_text(&big), Err(InputError::TooLarge(_))));
    std::fs::remove_dir_all(&dir).unwrap();
}
