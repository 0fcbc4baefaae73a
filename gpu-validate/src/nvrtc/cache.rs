//! A content-addressed cache of the PTX NVRTC produced, so that compiling an unchanged `.cu`
//! again costs a file read instead of an NVRTC run (issue 30: a `.cu` that includes
//! `<cuda/atomic>` takes 8–10 s to compile, nearly all of it in the CCCL headers).
//!
//! An entry's key is the MD5 digest of everything the PTX is a function of:
//! - the NVRTC version (`nvrtcVersion`), and the library file's path, size and modification
//!   time (another build of the same version is another compiler);
//! - every option ([`Toolkit::options`]: the architecture, `-lineinfo`, `-default-device` and the
//!   `-I` include directories) and the modification time of each include directory (a reinstall
//!   of the headers replaces the directories);
//! - the program's name, which NVRTC writes into the PTX's `.file` directive and its messages;
//! - the source bytes.
//!
//! Only successful compilations are stored (with NVRTC's log, so that warnings are shown again),
//! and only of sources whose includes are all `<...>`: a `#include "..."` may name a file beside
//! the source, whose content the key cannot see, so such a source always goes to NVRTC.
//! Entries live in `$XDG_CACHE_HOME/scopecheck/ptx`, else `$HOME/.cache/scopecheck/ptx`, one
//! JSON file per key, written to a temporary name and renamed into place, so concurrent
//! compilations never see half an entry. A missing, unreadable or corrupt entry is a miss; a
//! cache that cannot be written is skipped. `scopecheck kernel --no-cache` bypasses it.

use super::{compile_with, CompileError, Compiled, Toolkit};
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// A directory of cached PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    dir: PathBuf,
}

/// One stored compilation.
#[derive(Serialize, Deserialize)]
struct Entry {
    ptx: String,
    log: String,
}

impl Cache {
    /// A cache kept in `dir` (created on the first store).
    pub fn at(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The user's cache: `$XDG_CACHE_HOME/scopecheck/ptx`, else `$HOME/.cache/scopecheck/ptx`
    /// (XDG base directory specification: `$XDG_CACHE_HOME` defaults to `$HOME/.cache`, and a
    /// relative value is ignored). `None` when neither names an absolute directory.
    pub fn from_env() -> Option<Cache> {
        let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
        let base = std::env::var_os("XDG_CACHE_HOME")
            .and_then(absolute)
            .or_else(|| {
                std::env::var_os("HOME")
                    .and_then(absolute)
                    .map(|h| h.join(".cache"))
            })?;
        Some(Cache::at(base.join("scopecheck").join("ptx")))
    }

    /// The directory the entries live in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file holding the compile of `key`.
    pub fn entry(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The compile stored under `key`, if it is there and readable.
    pub fn load(&self, key: &str) -> Option<Compiled> {
        let text = std::fs::read_to_string(self.entry(key)).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        Some(Compiled {
            ptx: entry.ptx,
            log: entry.log,
            cached: true,
        })
    }

    /// Keeps `compiled` under `key` (best effort: a cache that cannot be written is no cache).
    pub fn store(&self, key: &str, compiled: &Compiled) {
        let entry = Entry {
            ptx: compiled.ptx.clone(),
            log: compiled.log.clone(),
        };
        let Ok(text) = serde_json::to_string(&entry) else {
            return;
        };
        let tmp = self.dir.join(format!(".{key}.{}.tmp", std::process::id()));
        let stored = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&tmp, text))
            .and_then(|()| std::fs::rename(&tmp, self.entry(key)));
        if stored.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// Whether the PTX of `source` is a function of the key alone: every `#include` names a header
/// in angle brackets, found in the toolkit's include directories.
pub fn cacheable(source: &str) -> bool {
    !source.lines().any(|line| {
        let line = line.trim_start();
        line.strip_prefix('#')
            .map(str::trim_start)
            .and_then(|l| l.strip_prefix("include"))
            .is_some_and(|rest| rest.trim_start().starts_with('"'))
    })
}

/// The key of compiling `source`, named `path`, with `toolkit` whose NVRTC reports `version`.
pub fn key(toolkit: &Toolkit, version: (i32, i32), path: &Path, source: &str) -> String {
    let mut hash = Md5::new();
    let mut field = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    field(b"scopecheck ptx cache 1");
    field(format!("nvrtc {}.{}", version.0, version.1).as_bytes());
    if let Some(library) = &toolkit.library {
        field(library.display().to_string().as_bytes());
        field(stamp(library).as_bytes());
    }
    for option in toolkit.options() {
        field(option.as_bytes());
    }
    for dir in &toolkit.include {
        field(stamp(dir).as_bytes());
    }
    field(path.display().to_string().as_bytes());
    field(source.as_bytes());
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A file's or directory's size and modification time, as text (empty when unreadable).
fn stamp(path: &Path) -> String {
    let Ok(meta) = std::fs::metadata(path) else {
        return String::new();
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{} {modified}", meta.len())
}

/// [`compile_with`], answered from `cache` when it holds the same compilation, and stored there
/// when it succeeds. `cache: None` always compiles.
pub fn compile_cached(
    toolkit: &Toolkit,
    path: &Path,
    source: &str,
    cache: Option<&Cache>,
) -> Result<Compiled, CompileError> {
    let Some(cache) = cache.filter(|_| cacheable(source)) else {
        return compile_with(toolkit, path, source);
    };
    toolkit.load()?;
    let version = super::version()?;
    let key = key(toolkit, version, path, source);
    if let Some(hit) = cache.load(&key) {
        return Ok(hit);
    }
    let compiled = compile_with(toolkit, path, source)?;
    cache.store(&key, &compiled);
    Ok(compiled)
}
