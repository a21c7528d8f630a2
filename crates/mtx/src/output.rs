//! Output files: written to a temporary file in the target directory, then renamed over the
//! target, so a reader never sees a half-written file and a failed write leaves nothing behind;
//! devices and FIFOs are written in place (`target.rs`). `-` means stdout; a path ending in `.gz`
//! gets gzip compression (matrices only). `O(output)`.

use crate::binary_error::BinaryFormat;
use crate::error::MtxError;
use crate::input::is_dash;
use crate::options::{no_progress, Progress, WriteOptions};
use crate::target::{self, Target};
use crate::MatrixMarket;
use std::fs::OpenOptions;
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Writes `m` to `path` atomically (temporary file, then rename) in the format of its extension:
/// scipy's `.npz` (CSR) or PETSc's binary `.petsc` ([`binary_format_of`](crate::binary_format_of)),
/// both storing the expanded matrix whatever `opts` asks; otherwise Matrix Market as `opts` says,
/// compressed when the path ends in `.gz`. `-` writes Matrix Market to stdout.
///
/// # Errors
/// As [`crate::write()`], with the path in the error; [`MtxError::Io`] when the temporary file
/// cannot be created or renamed; [`MtxError::Unsupported`] for an integer beyond 2^53 in a PETSc
/// file (its scalars are doubles). On error the target is left as it was.
pub fn write_path(path: &Path, m: &MatrixMarket, opts: &WriteOptions) -> Result<(), MtxError> {
    write_path_with_progress(path, m, opts, &no_progress)
}

/// [`write_path`], telling `progress` how far it has come: rows written of the rows (Matrix
/// Market), or bytes written of the file's size (npz, PETSc).
///
/// # Errors
/// As [`write_path`].
pub fn write_path_with_progress(
    path: &Path,
    m: &MatrixMarket,
    opts: &WriteOptions,
    progress: Progress<'_>,
) -> Result<(), MtxError> {
    match crate::binary_format_of(path) {
        Some(BinaryFormat::Npz) => return crate::npz::write_npz(path, m, progress),
        Some(BinaryFormat::Petsc) => return crate::petsc::write_petsc(path, m, progress),
        None => {}
    }
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
        && !is_dash(path);
    write_output(path, |w| {
        if gz {
            let mut encoder = flate2::write::GzEncoder::new(w, flate2::Compression::default());
            crate::write::write_with_progress(&mut encoder, m, opts, progress)?;
            encoder.finish().map_err(|e| MtxError::io("write", e))?;
            Ok(())
        } else {
            crate::write::write_with_progress(w, m, opts, progress)
        }
    })
}

/// Writes whatever `body` produces to `path` atomically: into a temporary file in the same
/// directory (`.NAME.XXXXXX` + [`TEMPORARY_SUFFIX`]), renamed over `path` only when `body`
/// succeeded. A symbolic link is followed: the file it leads to is replaced and the link stays.
/// A character device or FIFO (`/dev/null`, a terminal, a named pipe) is written in place, not
/// replaced. `-` writes to stdout. No compression is applied. On Unix the file keeps the
/// permissions of the file it replaces (`0644` when new). Atomic against failures of this process
/// and concurrent readers, not against power loss (no `fsync`); on `SIGINT` or `SIGTERM` the
/// binary removes the temporary file ([`remove_temporary_files`]).
///
/// # Errors
/// [`MtxError::Io`] naming `path` when `body` fails or the file cannot be created or renamed;
/// [`MtxError::NotWritable`] for a directory, block device or socket.
pub fn write_atomically(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), MtxError> {
    write_output(path, |w| body(w).map_err(|e| MtxError::io("write", e)))
}

/// [`write_atomically`] for bodies that fail with an [`MtxError`].
pub(crate) fn write_output(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> Result<(), MtxError>,
) -> Result<(), MtxError> {
    let named = |e: MtxError| e.with_path(Some(path.to_path_buf()));
    let io = |operation| move |e| named(MtxError::io(operation, e));
    let target = match target::resolve(path)? {
        Target::Stdout => {
            let mut w = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            body(&mut w).map_err(named)?;
            return w.flush().map_err(io("write"));
        }
        Target::WriteThrough(device) => {
            let file = OpenOptions::new()
                .write(true)
                .open(&device)
                .map_err(io("open"))?;
            let mut w = BufWriter::with_capacity(1 << 16, file);
            body(&mut w).map_err(named)?;
            return w.flush().map_err(io("write"));
        }
        Target::File(file) => file,
    };
    let mut tmp = TemporaryFile::create(&target).map_err(io("create"))?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.writer());
        body(&mut w).map_err(named)?;
        w.flush().map_err(io("write"))?;
    }
    finish(tmp, target).map_err(io("rename"))
}

/// Writes whatever `body` writes into a seekable file (zip archives need one) to `path`
/// atomically, as [`write_output`] does for a regular file. Errors name `path`.
///
/// # Errors
/// As [`write_output`], and [`MtxError::Io`] when `path` is stdout, a device or a FIFO (they
/// cannot seek).
pub(crate) fn write_file_output(
    path: &Path,
    body: impl FnOnce(&mut std::fs::File) -> Result<(), MtxError>,
) -> Result<(), MtxError> {
    let named = |e: MtxError| e.with_path(Some(path.to_path_buf()));
    let io = |operation| move |e| named(MtxError::io(operation, e));
    let Target::File(target) = target::resolve(path)? else {
        return Err(io("create")(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "this format needs a regular file, which can seek",
        )));
    };
    let mut tmp = TemporaryFile::create(&target).map_err(io("create"))?;
    body(tmp.writer()).map_err(named)?;
    finish(tmp, target).map_err(io("rename"))
}

/// A writer that reports the bytes written so far, of `total`, after every write.
pub(crate) struct CountedWriter<'p, W> {
    inner: W,
    done: u64,
    total: u64,
    progress: Progress<'p>,
}

impl<'p, W> CountedWriter<'p, W> {
    pub(crate) fn new(inner: W, total: u64, progress: Progress<'p>) -> Self {
        CountedWriter {
            inner,
            done: 0,
            total,
            progress,
        }
    }
}

impl<W: Write> Write for CountedWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.done += n as u64;
        (self.progress)(self.done.min(self.total), self.total);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Seek> Seek for CountedWriter<'_, W> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

/// Every name a temporary output file of this process ends with.
pub const TEMPORARY_SUFFIX: &str = ".spmv-reorder.tmp";

/// The temporary files being written now, for [`remove_temporary_files`].
static LIVE_TEMPORARY_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temporary_files() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMPORARY_FILES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Removes the temporary files of the outputs being written, leaving every target as it was;
/// returns how many were removed. For a signal handler (`SIGINT`, `SIGTERM`) that ends the
/// process next: writes still running fail, so call it only on the way out.
pub fn remove_temporary_files() -> usize {
    live_temporary_files()
        .drain(..)
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// The written temporary files held back by a [`StagedOutputs`], with their targets; `None` when
/// none is open.
type Staged = Option<Vec<(TemporaryFile, PathBuf)>>;
static STAGED: Mutex<Staged> = Mutex::new(None);

fn staged() -> MutexGuard<'static, Staged> {
    STAGED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Renames a written temporary file over its target, or holds it back while outputs are staged.
fn finish(tmp: TemporaryFile, target: PathBuf) -> std::io::Result<()> {
    match staged().as_mut() {
        Some(held) => {
            held.push((tmp, target));
            Ok(())
        }
        None => tmp.persist(&target),
    }
}

/// All of a run's outputs or none: while it is open, every file this process writes atomically
/// ([`write_path`], [`write_atomically`]) is written in full to its temporary file and held back;
/// [`StagedOutputs::commit`] renames them over their targets, in the order written, and dropping
/// it uncommitted removes them, leaving every target as it was. So a run that fails after its
/// first output (a folder it cannot write, a failed benchmark) leaves no matrix beside a
/// permutation of another run. Standard output, devices and FIFOs are written at once.
///
/// Process-wide: open one at a time (a second, opened while one is open, stages nothing of its
/// own and commits nothing).
///
/// ```
/// use spmv_reorder_mtx::{write_atomically, StagedOutputs};
/// use std::io::Write;
///
/// let dir = tempfile::tempdir()?;
/// let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
/// let staged = StagedOutputs::open();
/// write_atomically(&a, |w| w.write_all(b"a"))?;
/// write_atomically(&b, |w| w.write_all(b"b"))?;
/// assert!(!a.exists() && !b.exists());
/// staged.commit()?;
/// assert!(a.exists() && b.exists());
///
/// let staged = StagedOutputs::open();
/// write_atomically(&a, |w| w.write_all(b"not kept"))?;
/// drop(staged); // a failed run
/// assert_eq!(std::fs::read(&a)?, b"a");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[must_use = "dropping it removes the staged outputs; call `commit`"]
pub struct StagedOutputs {
    /// Whether this one opened the staging (not a nested one).
    owner: bool,
}

impl StagedOutputs {
    /// Starts holding back this process's atomic writes.
    pub fn open() -> Self {
        let mut held = staged();
        let owner = held.is_none();
        if owner {
            *held = Some(Vec::new());
        }
        StagedOutputs { owner }
    }

    /// Renames every held-back file over its target, in the order written.
    ///
    /// # Errors
    /// [`MtxError::Io`] naming the target whose rename failed; the files after it are removed
    /// (those before it are in place).
    pub fn commit(mut self) -> Result<(), MtxError> {
        let held = self.take();
        for (tmp, target) in held {
            tmp.persist(&target)
                .map_err(|e| MtxError::io("rename", e).with_path(Some(target.clone())))?;
        }
        Ok(())
    }

    /// The held-back files, ending the staging (none for a nested one).
    fn take(&mut self) -> Vec<(TemporaryFile, PathBuf)> {
        if !std::mem::take(&mut self.owner) {
            return Vec::new();
        }
        staged().take().unwrap_or_default()
    }
}

impl Drop for StagedOutputs {
    fn drop(&mut self) {
        // Taken out of the lock first: each temporary file takes the list's lock as it goes.
        drop(self.take());
    }
}

/// A temporary file beside its target, `.NAME.XXXXXX.spmv-reorder.tmp`, known to
/// [`remove_temporary_files`] while it lives; removed on drop unless renamed over its target.
/// Created, renamed and removed under the lock of that list, so a signal never misses one.
struct TemporaryFile {
    file: Option<tempfile::NamedTempFile>,
}

impl TemporaryFile {
    fn create(target: &Path) -> std::io::Result<Self> {
        // Short enough that the temporary name stays within the 255 bytes of a file name.
        let name: String = target
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .chars()
            .take(100)
            .collect();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(TEMPORARY_SUFFIX);
        #[cfg(unix)]
        builder.permissions(permissions_for(target));
        let mut live = live_temporary_files();
        let file = builder.tempfile_in(target::parent(target))?;
        live.push(file.path().to_path_buf());
        Ok(TemporaryFile { file: Some(file) })
    }

    fn writer(&mut self) -> &mut std::fs::File {
        self.file
            .as_mut()
            .expect("present until renamed or dropped")
            .as_file_mut()
    }

    /// Renames the file over `target`.
    fn persist(mut self, target: &Path) -> std::io::Result<()> {
        let mut live = live_temporary_files();
        let file = self.file.take().expect("present until renamed or dropped");
        let path = file.path().to_path_buf();
        let renamed = file.persist(target).map(drop).map_err(|e| e.error);
        live.retain(|p| *p != path);
        renamed
    }
}

impl Drop for TemporaryFile {
    fn drop(&mut self) {
        let mut live = live_temporary_files();
        if let Some(file) = self.file.take() {
            let path = file.path().to_path_buf();
            drop(file);
            live.retain(|p| *p != path);
        }
    }
}

/// The permissions of the file `path` replaces, or `0644` for a new file.
#[cfg(unix)]
fn permissions_for(path: &Path) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map_or_else(
        |_| std::fs::Permissions::from_mode(0o644),
        |m| m.permissions(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn failed_body_leaves_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.json");
        std::fs::write(&target, "old").unwrap();
        let err = write_atomically(&target, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("disk on fire"))
        })
        .unwrap_err();
        assert!(matches!(
            err,
            MtxError::Io {
                operation: "write",
                ..
            }
        ));
        assert_eq!(err.path(), Some(target.as_path()));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(entries(dir.path()), vec!["out.json"]);
    }

    #[test]
    fn success_replaces_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("r.txt");
        write_atomically(&target, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&target).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o644);
        }
        assert_eq!(entries(dir.path()), vec!["r.txt"]);
    }

    #[test]
    fn missing_directory_is_an_error() {
        let err = write_atomically(Path::new("/nonexistent-dir/x"), |_| Ok(())).unwrap_err();
        assert!(matches!(
            err,
            MtxError::Io {
                operation: "create",
                ..
            }
        ));
    }
}
