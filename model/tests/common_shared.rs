//! Where the shared oracle lives: `$SCOPECHECK_SHARED` when set, else `shared/` beside the
//! repository (`<repo>/../shared`). `None` when that folder has no `oracle/ptx/expected.csv`:
//! the caller reports its tests as skipped.

use std::path::PathBuf;

pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SCOPECHECK_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    oracle_in(dir)
}

/// `dir` when it holds the PTX oracle; an empty or unrelated folder holds none, and the tests
/// that need it are skipped rather than failed.
pub fn oracle_in(dir: PathBuf) -> Option<PathBuf> {
    Some(dir).filter(|d| d.join("oracle/ptx/expected.csv").is_file())
}
