//! Where a path written to really leads, and which file a path names: symbolic links followed,
//! files compared by identity (device and inode), not by spelling. `O(links followed)` system
//! calls. Used by the output writer (`output.rs`) and by [`crate::OutputPlan`].

use crate::error::MtxError;
use crate::input::is_dash;
use std::ffi::OsString;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

/// Symbolic links followed at most before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// What writing to a path does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// `-`: standard output.
    Stdout,
    /// A regular file, existing or new, reached through any symbolic links: written to a
    /// temporary file beside it, then renamed over it (the links stay links).
    File(PathBuf),
    /// A character device or a FIFO (`/dev/null`, a terminal, a named pipe): written in place,
    /// never replaced.
    WriteThrough(PathBuf),
}

/// Which file a path names, for telling whether two paths are one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileId {
    /// An existing file: its device and inode.
    Existing { dev: u64, ino: u64 },
    /// A file not yet created: its directory's device and inode, and its name.
    New { dev: u64, ino: u64, name: OsString },
    /// Standard output when it is not a regular file: it takes one output of a run.
    StandardOutput,
}

/// Resolves `path` for writing.
///
/// # Errors
/// [`MtxError::NotWritable`] for a directory, a block device or a socket;
/// [`MtxError::Io`] (`"create"`) when the directory of a new file does not exist or a link
/// cannot be followed.
pub(crate) fn resolve(path: &Path) -> Result<Target, MtxError> {
    if is_dash(path) {
        return Ok(Target::Stdout);
    }
    let named = |e: MtxError| e.with_path(Some(path.to_path_buf()));
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => std::fs::canonicalize(path)
            .map(Target::File)
            .map_err(|e| named(MtxError::io("create", e))),
        Ok(m) => match special_kind(&m) {
            None => Ok(Target::WriteThrough(path.to_path_buf())),
            Some(kind) => Err(named(MtxError::NotWritable { path: None, kind })),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => new_file(path).map_err(named),
        Err(e) => Err(named(MtxError::io("create", e))),
    }
}

/// The identity of the file `target` writes to; `None` for what is written in place (a device or
/// FIFO takes several writers without losing anything). Standard output is the file it is
/// redirected to, or else itself.
pub(crate) fn output_id(target: &Target) -> Option<FileId> {
    match target {
        Target::Stdout => stdio_id(Stdio::Out).or(Some(FileId::StandardOutput)),
        Target::WriteThrough(_) => None,
        Target::File(path) => match std::fs::metadata(path) {
            Ok(m) => Some(existing(&m)),
            Err(_) => new_id(path),
        },
    }
}

/// The identity of an input: the file it names after links (`-`: standard input, when it is a
/// regular file); `None` when it cannot be read (reading it will say why) or is not a regular file.
pub(crate) fn input_id(path: &Path) -> Option<FileId> {
    if is_dash(path) {
        return stdio_id(Stdio::In);
    }
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file() || m.is_dir())
        .map(|m| existing(&m))
}

/// What `m` is when it cannot be written to: `None` for a character device or FIFO.
fn special_kind(m: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_char_device() || t.is_fifo() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

/// A path that does not exist, or a symbolic link to one: the file it would create.
fn new_file(path: &Path) -> Result<Target, MtxError> {
    let end = follow_links(path)?;
    let name = end.file_name().ok_or_else(|| {
        MtxError::io(
            "create",
            io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"),
        )
    })?;
    let dir = std::fs::canonicalize(parent(&end)).map_err(|e| MtxError::io("create", e))?;
    Ok(Target::File(dir.join(name)))
}

/// Follows the symbolic links from `path` to a path that is not one.
fn follow_links(path: &Path) -> Result<PathBuf, MtxError> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&at).map_err(|e| MtxError::io("create", e))?;
                at = parent(&at).join(link);
            }
            _ => return Ok(at),
        }
    }
    Err(MtxError::io(
        "create",
        io::Error::other(format!("more than {MAX_LINKS} symbolic links")),
    ))
}

/// The directory of `path` (`.` for a bare name).
pub(crate) fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn existing(m: &Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId::Existing {
        dev: m.dev(),
        ino: m.ino(),
    }
}

/// The identity of the new file `path` (its directory exists: [`resolve`] checked).
fn new_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    let dir = std::fs::metadata(parent(path)).ok()?;
    Some(FileId::New {
        dev: dir.dev(),
        ino: dir.ino(),
        name: path.file_name()?.to_os_string(),
    })
}

enum Stdio {
    In,
    Out,
}

/// The identity of standard input or output when it is a regular file (redirected with `<` or
/// `>`).
fn stdio_id(which: Stdio) -> Option<FileId> {
    use std::os::fd::AsFd;
    let fd = match which {
        Stdio::In => std::io::stdin().as_fd().try_clone_to_owned(),
        Stdio::Out => std::io::stdout().as_fd().try_clone_to_owned(),
    }
    .ok()?;
    let m = std::fs::File::from(fd).metadata().ok()?;
    m.is_file().then(|| existing(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_lead_to_their_target_and_spellings_to_one_identity() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.mtx"), "x").unwrap();
        std::os::unix::fs::symlink("a.mtx", d.join("link")).unwrap();
        std::os::unix::fs::symlink("missing/../new.mtx", d.join("dangling")).unwrap();
        std::fs::create_dir(d.join("missing")).unwrap();
        let real = std::fs::canonicalize(d).unwrap();
        assert_eq!(
            resolve(&d.join("link")).unwrap(),
            Target::File(real.join("a.mtx"))
        );
        // Created through the dangling link: `missing/..` is the directory itself.
        assert_eq!(
            resolve(&d.join("dangling")).unwrap(),
            Target::File(real.join("new.mtx"))
        );
        let id = |p: &str| output_id(&resolve(&d.join(p)).unwrap());
        assert_eq!(id("link"), input_id(&d.join("a.mtx")));
        assert_eq!(id("./missing/../b.mtx"), id("b.mtx"));
        assert_ne!(id("b.mtx"), id("c.mtx"));
    }

    #[test]
    fn devices_are_written_through_and_the_rest_refused() {
        assert_eq!(
            resolve(Path::new("/dev/null")).unwrap(),
            Target::WriteThrough(PathBuf::from("/dev/null"))
        );
        assert_eq!(output_id(&Target::WriteThrough("/dev/null".into())), None);
        let err = resolve(Path::new("/")).unwrap_err();
        assert!(matches!(
            err,
            MtxError::NotWritable {
                kind: "a directory",
                ..
            }
        ));
        assert_eq!(err.to_string(), "/: cannot write to a directory");
        let err = resolve(Path::new("/nonexistent-dir/x.mtx")).unwrap_err();
        assert!(matches!(
            err,
            MtxError::Io {
                operation: "create",
                ..
            }
        ));
        assert_eq!(resolve(Path::new("-")).unwrap(), Target::Stdout);
    }
}
