//! Getting all the bytes of a small input at once (permutation files): a file, stdin (`-`) or any
//! reader, gunzipped when the bytes start with the gzip magic number (`1f 8b`). `O(file size)` time
//! and memory. Matrices are streamed instead (`stream.rs`).

use crate::error::{MtxError, ParseError};
use crate::options::Progress;
use flate2::read::MultiGzDecoder;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A reader that reports the bytes read so far, of `total`, after every read (and its position
/// after every seek).
pub(crate) struct Counted<'p, R> {
    inner: R,
    done: u64,
    total: u64,
    progress: Progress<'p>,
}

impl<'p, R> Counted<'p, R> {
    pub(crate) fn new(inner: R, total: u64, progress: Progress<'p>) -> Self {
        Counted {
            inner,
            done: 0,
            total,
            progress,
        }
    }
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.done += n as u64;
        (self.progress)(self.done, self.total);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counted<'_, R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let at = self.inner.seek(to)?;
        self.done = at;
        (self.progress)(self.done, self.total);
        Ok(at)
    }
}

/// True for the path that means stdin or stdout.
pub(crate) fn is_dash(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads all of `reader`, decompressing gzip.
///
/// # Errors
/// [`MtxError::Io`] when reading fails; [`MtxError::Parse`] with [`ParseError::Gzip`] and the line
/// reached when the gzip stream is corrupt or truncated.
pub(crate) fn read_all<R: Read>(mut reader: R, size_hint: usize) -> Result<Vec<u8>, MtxError> {
    let mut raw = Vec::with_capacity(size_hint);
    reader
        .read_to_end(&mut raw)
        .map_err(|e| MtxError::io("read", e))?;
    if !raw.starts_with(&GZIP_MAGIC) {
        return Ok(raw);
    }
    let mut text = Vec::with_capacity(raw.len().saturating_mul(4));
    match MultiGzDecoder::new(&raw[..]).read_to_end(&mut text) {
        Ok(_) => Ok(text),
        Err(e) => {
            let line = memchr::memchr_iter(b'\n', &text).count() as u64 + 1;
            Err(MtxError::at(
                line,
                ParseError::Gzip {
                    message: e.to_string(),
                },
            ))
        }
    }
}

/// Reads all of the file at `path` (`-`: stdin), decompressing gzip; errors name the path.
///
/// # Errors
/// As [`read_all`], plus [`MtxError::Io`] when the file cannot be opened.
pub(crate) fn read_path(path: &Path) -> Result<Vec<u8>, MtxError> {
    let named = |e: MtxError| e.with_path(Some(path.to_path_buf()));
    if is_dash(path) {
        return read_all(std::io::stdin().lock(), 1 << 16).map_err(named);
    }
    let file = std::fs::File::open(path).map_err(|e| named(MtxError::io("open", e)))?;
    let size = file.metadata().map_or(0, |m| m.len() as usize);
    read_all(file, size.saturating_add(1)).map_err(named)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_and_gzip_inputs() {
        assert_eq!(read_all(&b"abc"[..], 0).unwrap(), b"abc");
        assert_eq!(read_all(&gzip(b"a\nb\n")[..], 0).unwrap(), b"a\nb\n");
    }

    #[test]
    fn truncated_gzip_names_the_line_reached() {
        let text: Vec<u8> = (0..20000)
            .flat_map(|i| format!("{i} {i} {i}\n").into_bytes())
            .collect();
        let gz = gzip(&text);
        let err = read_all(&gz[..gz.len() / 2], 0).unwrap_err();
        assert_eq!(err.parse_error().unwrap().name(), "gzip");
        assert!(err.line().unwrap() > 1);
    }
}
