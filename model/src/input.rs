//! Reading input files with bounds: every file scopecheck reads (litmus programs, cat models,
//! manifests, expected-verdict tables) goes through [`read_text`], which refuses what is not a
//! regular file (a FIFO would block the reader forever, `/dev/zero` never ends) and what is
//! larger than [`MAX_INPUT_BYTES`], before reading a byte of it; every directory given on the
//! command line is walked by [`walk`], which never loops.

use std::collections::HashSet;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest input file read: 64 MiB, far above any litmus test or model (the largest in
/// the shared suites is under 20 KiB), and small enough that parsing it stays within memory.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Why an input file was not read.
#[derive(Debug)]
pub enum InputError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// It is a directory, a FIFO, a device or a socket, not a regular file.
    NotRegular(&'static str),
    /// It is larger than [`MAX_INPUT_BYTES`].
    TooLarge(u64),
    /// It is not UTF-8.
    NotUtf8 {
        /// The file's bytes, as read.
        bytes: Vec<u8>,
        /// The byte offset of the first bad byte (everything before it is valid UTF-8).
        valid_up_to: usize,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Io(e) => write!(f, "cannot read file: {e}"),
            InputError::NotRegular(kind) => write!(f, "not a regular file ({kind})"),
            InputError::TooLarge(size) => write!(
                f,
                "file too large ({size} bytes; inputs are at most {MAX_INPUT_BYTES} bytes)"
            ),
            InputError::NotUtf8 { bytes, valid_up_to } => write!(
                f,
                "invalid UTF-8 (byte 0x{:02X})",
                bytes.get(*valid_up_to).copied().unwrap_or(0)
            ),
        }
    }
}

impl std::error::Error for InputError {}

/// What kind of file a non-regular file is, in words.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else {
        "not a plain file"
    }
}

/// Reads a regular file of at most [`MAX_INPUT_BYTES`] bytes. The file's type and size are
/// looked at (following symbolic links) before it is opened, so a FIFO is never opened; the
/// read itself stops one byte past the bound, in case the file grew in between.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    let meta = std::fs::metadata(path).map_err(InputError::Io)?;
    if !meta.file_type().is_file() {
        return Err(InputError::NotRegular(kind_of(meta.file_type())));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(InputError::Io)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(InputError::Io)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Reads a regular UTF-8 text file of at most [`MAX_INPUT_BYTES`] bytes (see [`read_bytes`]).
pub fn read_text(path: &Path) -> Result<String, InputError> {
    let bytes = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let valid_up_to = e.utf8_error().valid_up_to();
        InputError::NotUtf8 {
            bytes: e.into_bytes(),
            valid_up_to,
        }
    })
}

/// Every entry under `root` (`root` itself first), walked with `walkdir`: each directory's
/// entries sorted by name, symbolic links followed, but never around a cycle (a link back to a
/// directory being walked is skipped) and each file or directory yielded once however many links
/// lead to it, by its canonical path in `seen` (shared across the roots of one command). An
/// entry that cannot be read is an error naming its path; the walk goes on past it.
pub fn walk<'a>(
    root: &'a Path,
    seen: &'a mut HashSet<PathBuf>,
) -> impl Iterator<Item = std::io::Result<walkdir::DirEntry>> + 'a {
    walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_map(move |entry| match entry {
            Ok(entry) => first_visit(seen, entry.path()).then_some(Ok(entry)),
            // A cycle through a link: its directory is being walked already.
            Err(e) if e.loop_ancestor().is_some() => None,
            Err(e) => {
                let at = e.path().unwrap_or(root).display().to_string();
                let io = e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("cannot walk this directory"));
                Some(Err(std::io::Error::new(io.kind(), format!("{at}: {io}"))))
            }
        })
}

/// Whether `path` (by its canonical path, or as given when it has none) is not in `seen` yet;
/// it is then.
pub fn first_visit(seen: &mut HashSet<PathBuf>, path: &Path) -> bool {
    seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
}
