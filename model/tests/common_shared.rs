//! Where the shared oracle lives: `$SCOPECHECK_SHARED`, else `../shared` beside the repository.

use std::path::PathBuf;

pub fn shared_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("SCOPECHECK_SHARED") {
        return Some(PathBuf::from(dir)).filter(|d| d.is_dir());
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [repo.join("../shared"), PathBuf::from("/work/shared")]
        .into_iter()
        .find(|d| d.join("oracle/ptx").is_dir())
}
