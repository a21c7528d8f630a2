//! Output files: written to a temporary file in the target directory, then renamed over the
//! target, so a reader never sees a half-written file and a failed write leaves nothing behind.
//! `-` means stdout; a path ending in `.gz` gets gzip compression (matrices only). `O(output)`.

use crate::error::MtxError;
use crate::input::is_dash;
use crate::options::WriteOptions;
use crate::MatrixMarket;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes `m` to `path` atomically (temporary file, then rename); `.gz` paths are compressed and
/// `-` writes to stdout.
///
/// # Errors
/// As [`crate::write()`], with the path in the error; [`MtxError::Io`] when the temporary file
/// cannot be created or renamed. On error the target is left as it was.
pub fn write_path(path: &Path, m: &MatrixMarket, opts: &WriteOptions) -> Result<(), MtxError> {
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
        && !is_dash(path);
    write_output(path, |w| {
        if gz {
            let mut encoder = flate2::write::GzEncoder::new(w, flate2::Compression::default());
            crate::write(&mut encoder, m, opts)?;
            encoder.finish().map_err(|e| MtxError::io("write", e))?;
            Ok(())
        } else {
            crate::write(w, m, opts)
        }
    })
}

/// Writes whatever `body` produces to `path` atomically: into a temporary file in the same
/// directory, renamed over `path` only when `body` succeeded. `-` writes to stdout. No
/// compression is applied. On Unix the file keeps the permissions of the file it replaces
/// (`0644` when new). Atomic against failures of this process and concurrent readers, not against power loss
/// (no `fsync`).
///
/// # Errors
/// [`MtxError::Io`] naming `path` when `body` fails or the file cannot be created or renamed.
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
    if is_dash(path) {
        let mut w = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        body(&mut w).map_err(named)?;
        return w.flush().map_err(io("write"));
    }
    let Some(name) = path.file_name() else {
        return Err(io("create")(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the output path names no file",
        )));
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(permissions_for(path));
    let mut tmp = builder.tempfile_in(dir).map_err(io("create"))?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        body(&mut w).map_err(named)?;
        w.flush().map_err(io("write"))?;
    }
    tmp.persist(path).map_err(|e| io("rename")(e.error))?;
    Ok(())
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
