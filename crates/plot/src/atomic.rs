//! Atomic file output: write into a temporary file in the target's directory, then rename it over
//! the target, so a reader never sees a half-written picture. Called by [`crate::spy_png`] and
//! [`crate::bar_chart_svg`].

use crate::PlotError;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Creates `path` atomically with the bytes `write` produces.
///
/// # Errors
/// [`PlotError::Io`] for a failure to create, write or rename; whatever `write` returns.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut std::fs::File>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let io = |source| PlotError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".spmv-reorder-plot")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    {
        let mut out = BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush().map_err(io)?;
    }
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, |w| {
            w.write_all(b"hello").map_err(|source| PlotError::Io {
                path: path.clone(),
                source,
            })
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn missing_directory_is_an_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/out.txt");
        let e = write_atomically(&path, |_| Ok(())).unwrap_err();
        assert!(matches!(e, PlotError::Io { .. }));
    }
}
