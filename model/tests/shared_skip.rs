//! `SCOPECHECK_SHARED` naming a folder without the oracle (an empty one, say) makes the oracle
//! tests skip, not fail: the folder is taken as the shared data only when it holds
//! `oracle/ptx/expected.csv`.

use crate::common_shared;

#[test]
fn a_folder_without_the_oracle_is_no_shared_data() {
    let dir = std::env::temp_dir().join(format!("scopecheck-shared-skip-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(
        common_shared::oracle_in(dir.clone()),
        None,
        "an empty folder"
    );
    std::fs::create_dir_all(dir.join("oracle/ptx")).unwrap();
    assert_eq!(
        common_shared::oracle_in(dir.clone()),
        None,
        "no expected.csv"
    );
    std::fs::write(dir.join("oracle/ptx/expected.csv"), "name,verdict\n").unwrap();
    assert_eq!(common_shared::oracle_in(dir.clone()), Some(dir.clone()));
    std::fs::remove_dir_all(&dir).unwrap();
}
