//! Where `include` finds the files it names.

use std::path::{Path, PathBuf};

/// Where `include` finds files: the built-in models first, then beside the including file.
pub trait Source {
    /// The text of `name` included from `from` (a path or a built-in name), and the name to
    /// report it under.
    fn include(&self, from: &str, name: &str) -> Option<(String, String)>;
}

/// Reads includes from the built-in models, then from the disk beside the including file.
pub struct Files;

impl Source for Files {
    fn include(&self, from: &str, name: &str) -> Option<(String, String)> {
        if let Some(text) = crate::cat::builtin_text(name) {
            return Some((text.to_string(), name.to_string()));
        }
        let dir = Path::new(from).parent().unwrap_or(Path::new("."));
        let path: PathBuf = dir.join(name);
        let text = crate::input::read_text(&path).ok()?;
        Some((text, path.display().to_string()))
    }
}
