//! Reading from a stream (file, stdin, any reader): the calling thread reads blocks of whole
//! lines (gunzipping when the stream starts with the gzip magic bytes `1f 8b`) and hands each to
//! the pool to parse while it reads the next, so reading overlaps parsing; it reads at most two
//! blocks per thread ahead of the parsing, so that parsed blocks' memory is reused. Coordinate
//! entries are parsed straight into the final arrays ([`EntryArrays`]), each block at an offset
//! known from the lines before it. With a pool of one thread, blocks are parsed on the calling
//! thread between reads: one thread in all. `O(bytes)`; a block is kept while an error could
//! still have to be located in it. A corrupt or truncated gzip stream is
//! reported (with the line decompression reached) before any error in what it decoded, since
//! that text cannot be trusted. Called by `read` and `read_path`.

use crate::body::Layout;
use crate::body::{self, Chunk};
use crate::entry_arrays::{EntryArrays, Filled, Region};
use crate::error::{MtxError, ParseError};
use crate::input::Counted;
use crate::options::{no_progress, Pool, Progress, ReadOptions};
use crate::read::{default_chunk_bytes, finish_body, Assembled, Assembly, Preamble};
use crate::recycler::Recycler;
use crate::value::MtxValue;
use crate::MatrixMarket;
use flate2::read::MultiGzDecoder;
use spmv_reorder_sparse::{AnyCsr, Complex64, Field, Occupancy};
use std::io::{self, Read};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The longest line read (a Matrix Market line holds two indices and at most two numbers;
/// comments are rarely longer than a few hundred bytes): longer means the input is not one.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most bytes before the size line (banner, comments, blank lines), so that a stream of
/// comments (or of zeros) ends in an error instead of filling the memory.
pub const MAX_HEADER_BYTES: usize = 64 << 20;

/// The failure that stops reading a line longer than [`MAX_LINE_BYTES`].
#[derive(Debug)]
struct LineTooLong;

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a line longer than {MAX_LINE_BYTES} bytes")
    }
}

impl std::error::Error for LineTooLong {}

/// Reads a Matrix Market text from `reader`; `size` (bytes, when known) sizes the blocks.
///
/// # Errors
/// As [`crate::read()`].
pub(crate) fn read_stream<R: Read>(
    reader: R,
    size: Option<u64>,
    opts: &ReadOptions,
) -> Result<MatrixMarket, MtxError> {
    read_stream_as(reader, size, opts, Assembly::Whole, &no_progress).map(|(m, _)| m)
}

/// [`read_stream`], building the matrix as `assembly` says: with [`Assembly::Occupied`], the
/// matrix returned is the occupied part and the occupancy comes second. `progress` is told the
/// bytes read of the stream, of `size` (0 when not known).
///
/// # Errors
/// As [`crate::read()`].
pub(crate) fn read_stream_as<R: Read>(
    reader: R,
    size: Option<u64>,
    opts: &ReadOptions,
    assembly: Assembly,
    progress: Progress<'_>,
) -> Result<(MatrixMarket, Option<Occupancy>), MtxError> {
    let mut source = Source::open(reader, size.unwrap_or(0), progress)?;
    let pool = Pool::new(opts.threads)?;
    let block = opts.chunk_bytes.unwrap_or_else(|| {
        let guess = size.map_or(64 << 20, |s| s as usize * if source.gzip { 4 } else { 1 });
        default_chunk_bytes(guess, pool.threads())
    });
    let (pre, rest) = source.preamble(block)?;
    if assembly == Assembly::Whole {
        pre.admit(opts.footprint)?;
    }
    let size_hint = size.map(|s| if source.gzip { s.saturating_mul(4) } else { s });
    let mut body = BodyReader {
        source: &mut source,
        pool: &pool,
        pre: &pre,
        block,
        size_hint,
        assembly,
    };
    let (matrix, occupancy) = match pre.header.field {
        Field::Real => body.read::<f64>(rest).map(|(a, o)| (AnyCsr::Real(a), o)),
        Field::Integer => body.read::<i64>(rest).map(|(a, o)| (AnyCsr::Integer(a), o)),
        Field::Complex => body
            .read::<Complex64>(rest)
            .map(|(a, o)| (AnyCsr::Complex(a), o)),
        Field::Pattern => body.read::<()>(rest).map(|(a, o)| (AnyCsr::Pattern(a), o)),
    }?;
    let file = MatrixMarket {
        header: pre.header,
        comments: pre.comments,
        matrix,
    };
    Ok((file, occupancy))
}

/// The decompressed text of a stream, read in pieces.
struct Source<'a> {
    reader: Box<dyn Read + 'a>,
    gzip: bool,
    /// No more bytes will come (the end of the stream, or a failure).
    eof: bool,
    /// The read error that ended the stream early, reported after the lines read before it.
    failed: Option<io::Error>,
    /// Told the bytes read of a plain stream, of its size, after every read (a gzip stream's
    /// compressed bytes are counted under the decoder instead). Not a wrapper of the reader: a
    /// file read through one has each buffer zeroed before it is read into.
    progress: Option<(Progress<'a>, u64)>,
    /// Bytes read so far of a plain stream.
    done: u64,
}

impl<'a> Source<'a> {
    /// Wraps `reader`, gunzipping when it starts with the gzip magic bytes.
    fn open<R: Read + 'a>(
        mut reader: R,
        size: u64,
        progress: Progress<'a>,
    ) -> Result<Self, MtxError> {
        let mut magic = Vec::with_capacity(2);
        (&mut reader)
            .take(2)
            .read_to_end(&mut magic)
            .map_err(|e| MtxError::io("read", e))?;
        let gzip = magic == GZIP_MAGIC;
        let chained = io::Cursor::new(magic).chain(reader);
        let reader: Box<dyn Read + 'a> = if gzip {
            Box::new(MultiGzDecoder::new(Counted::new(chained, size, progress)))
        } else {
            Box::new(chained)
        };
        Ok(Source {
            reader,
            gzip,
            eof: false,
            failed: None,
            progress: (!gzip).then_some((progress, size)),
            done: 0,
        })
    }

    /// Appends up to `n` more bytes to `buf`, noting the end of the stream or a failure.
    fn fill(&mut self, buf: &mut Vec<u8>, n: usize) {
        if let Err(e) = buf.try_reserve(n) {
            self.eof = true;
            self.failed = Some(io::Error::new(io::ErrorKind::OutOfMemory, e));
            return;
        }
        let before = buf.len();
        let read = self.reader.by_ref().take(n as u64).read_to_end(buf);
        if let Some((progress, size)) = self.progress {
            self.done += (buf.len() - before) as u64;
            progress(self.done, size);
        }
        match read {
            Ok(got) if got == n => {}
            Ok(_) => self.eof = true,
            Err(e) => {
                self.eof = true;
                self.failed = Some(e);
            }
        }
    }

    /// How much of `buf` is whole lines: all of it at the end of the stream, else up to the last
    /// line break (after a failure, the last line may be cut short).
    fn whole_lines(&self, buf: &[u8]) -> usize {
        if self.eof && self.failed.is_none() {
            buf.len()
        } else {
            memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1)
        }
    }

    /// Reads the rest of the stream (to find a failure); returns its line breaks.
    fn drain(&mut self) -> u64 {
        let mut lines = 0;
        let mut buf = Vec::new();
        while !self.eof {
            buf.clear();
            self.fill(&mut buf, 1 << 20);
            lines += newlines(&buf);
        }
        lines
    }

    /// The error for the failed read, after `lines_read` complete lines.
    fn error(&self, e: io::Error, lines_read: u64) -> MtxError {
        if e.get_ref().is_some_and(|inner| inner.is::<LineTooLong>()) {
            return MtxError::at(
                lines_read + 1,
                ParseError::TooLong {
                    what: "the line",
                    max: MAX_LINE_BYTES as u64,
                },
            );
        }
        let corrupt = matches!(
            e.kind(),
            io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof
        );
        if self.gzip && corrupt {
            MtxError::at(
                lines_read + 1,
                ParseError::Gzip {
                    message: e.to_string(),
                },
            )
        } else {
            MtxError::io("read", e)
        }
    }

    /// The next block of whole lines of about `block` bytes, read on from `buf`, or `None` at
    /// the end (then `buf` holds what is left after the last whole line: nothing unless the
    /// stream failed). The part of a line after the block stays in `buf`, now a buffer from
    /// `recycler`.
    fn next_block<T>(
        &mut self,
        buf: &mut Vec<u8>,
        block: usize,
        recycler: &mut Recycler<T>,
    ) -> Option<Vec<u8>> {
        loop {
            let missing = block.saturating_sub(buf.len());
            if !self.eof && missing > 0 {
                self.fill(buf, missing);
            }
            let cut = self.whole_lines(buf);
            if cut > 0 {
                let mut next = recycler.buffer();
                next.extend_from_slice(&buf[cut..]);
                buf.truncate(cut);
                return Some(std::mem::replace(buf, next));
            }
            if self.eof {
                return None;
            }
            if buf.len() > MAX_LINE_BYTES {
                self.eof = true;
                self.failed = Some(io::Error::new(io::ErrorKind::InvalidData, LineTooLong));
                return None;
            }
            // A line longer than the block: read on to its end.
            let more = block.max(buf.len());
            self.fill(buf, more);
        }
    }

    /// Reads until the banner, comments and size line are complete; returns them and the bytes
    /// read past the size line.
    fn preamble(&mut self, block: usize) -> Result<(Preamble, Vec<u8>), MtxError> {
        let mut buf = Vec::new();
        // A header is short: reading a whole block before parsing could start would delay it.
        let mut want = block.min(64 << 10);
        loop {
            self.fill(&mut buf, want);
            let complete = self.whole_lines(&buf);
            match Preamble::parse(&buf[..complete]) {
                Ok(pre) => {
                    let rest = buf.split_off(pre.body_offset);
                    return Ok((pre, rest));
                }
                Err(e) if !self.eof && (complete == 0 || is_missing_size_line(&e)) => {
                    let long_line = buf.len() - complete > MAX_LINE_BYTES;
                    if long_line || buf.len() > MAX_HEADER_BYTES {
                        let (what, max) = if long_line {
                            ("the line", MAX_LINE_BYTES)
                        } else {
                            ("the header before the size line", MAX_HEADER_BYTES)
                        };
                        return Err(MtxError::at(
                            newlines(&buf[..complete]) + 1,
                            ParseError::TooLong {
                                what,
                                max: max as u64,
                            },
                        ));
                    }
                    want = buf.len();
                }
                Err(e) => {
                    // A broken gzip stream comes first: what it decoded cannot be trusted.
                    let mut lines = newlines(&buf);
                    if self.gzip && !self.eof {
                        lines += self.drain();
                    }
                    return Err(match self.failed.take() {
                        Some(failure) => self.error(failure, lines),
                        None => e,
                    });
                }
            }
        }
    }
}

fn is_missing_size_line(e: &MtxError) -> bool {
    e.parse_error() == Some(&ParseError::MissingSizeLine)
}

fn newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Reads the body block by block, parsing on the pool.
struct BodyReader<'s, 'a> {
    source: &'s mut Source<'a>,
    pool: &'s Pool,
    pre: &'s Preamble,
    /// Bytes per block (blocks end at a line break, so they may be longer).
    block: usize,
    /// Bytes of the input (decompressed estimate), when known.
    size_hint: Option<u64>,
    /// The whole matrix or its occupied part.
    assembly: Assembly,
}

impl BodyReader<'_, '_> {
    /// Reads and parses the body, starting with `rest` (the bytes read past the size line).
    fn read<T: MtxValue>(&mut self, rest: Vec<u8>) -> Result<Assembled<T>, MtxError> {
        let (mut blocks, gathered, tail) = self.parse_blocks::<T>(rest);
        blocks.sort_by_key(|b| b.0);
        let (bytes, parsed): (Vec<Vec<u8>>, Vec<Chunk<T>>) =
            blocks.into_iter().map(|(_, b, c)| (b, c)).unzip();
        // Checks use summaries; the entries are in the gathered chunk (of the first blocks)
        // and in the chunks of the blocks after them.
        let summaries: Vec<Chunk<T>> = parsed.iter().map(Chunk::summary).collect();
        let data: Vec<Chunk<T>> = match gathered {
            Some(Gathered { entries, blocks }) => std::iter::once(entries)
                .chain(parsed.into_iter().skip(blocks))
                .collect(),
            None => parsed,
        };
        let chunks: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
        if let Some(failure) = self.source.failed.take() {
            // A broken stream comes first: what it decoded cannot be trusted.
            let pre = self.pre;
            let lines = pre.body_line - 1
                + chunks
                    .iter()
                    .zip(&summaries)
                    .map(|(bytes, chunk)| chunk.line_breaks(bytes))
                    .sum::<u64>();
            return Err(self.source.error(failure, lines + newlines(&tail)));
        }
        self.pool
            .install(|| finish_body(&chunks, &summaries, data, self.pre, self.assembly))
    }

    /// Reads blocks of whole lines and parses each on the pool while reading the next. Returns
    /// `(index, bytes, parsed)` per block, in any order. The entries of the first blocks may
    /// be gathered in one chunk, returned second: with one thread, every block's (parsed on
    /// this thread into one growing chunk); with more, those of the blocks that parsed straight
    /// into [`EntryArrays`] sized by the size line. The `parsed` of those blocks are summaries.
    /// Last, the bytes left after the last whole line (not empty only after a read failure). The
    /// bytes of a block that can no longer matter for an error (see [`Recycler`]) come back
    /// empty: their memory was reused for later blocks.
    #[allow(clippy::type_complexity)]
    fn parse_blocks<T: MtxValue>(
        &mut self,
        mut buf: Vec<u8>,
    ) -> (
        Vec<(usize, Vec<u8>, Chunk<T>)>,
        Option<Gathered<T>>,
        Vec<u8>,
    ) {
        let layout = self.pre.layout();
        let (tx, rx) = std::sync::mpsc::channel();
        let block = self.block.max(1);
        let mut recycler = Recycler::new(self.pre);
        // One thread means one: parse each block on this thread, between reads.
        let sequential = self.pool.threads() == 1;
        let entries = expected_entries(self.pre, self.size_hint);
        let mut shared = sequential.then(|| shared_chunk(self.pre, entries));
        let direct = !sequential && layout.format == crate::Format::Coordinate;
        let mut arrays = direct
            .then(|| EntryArrays::with_capacity(entries))
            .flatten();
        let mut regions = arrays.as_mut().map(EntryArrays::regions);
        let mut filled = Vec::new();
        let source = &mut *self.source;
        let ahead = 2 * self.pool.threads();
        let tail = self.pool.in_place_scope(|scope| {
            let mut in_flight = 0;
            for index in 0.. {
                let Some(bytes) = source.next_block(&mut buf, block, &mut recycler) else {
                    break;
                };
                if let Some(shared) = shared.as_mut() {
                    let summary = body::parse_chunk_into::<T, _>(&bytes, &layout, shared);
                    recycler.absorb((index, bytes, summary));
                    continue;
                }
                let region = regions
                    .as_mut()
                    .and_then(|r| r.claim(body::line_count(&bytes)));
                let tx = tx.clone();
                in_flight += 1;
                scope.spawn(move |_| {
                    let (parsed, filled) = parse_block(&bytes, &layout, region);
                    // The receiver outlives the scope, so sending cannot fail.
                    let _ = tx.send(((index, bytes, parsed), filled));
                });
                // Takes the parsed blocks, waiting while `ahead` are in flight: reading no
                // further ahead lets later blocks reuse the memory of parsed ones.
                loop {
                    let next = if in_flight >= ahead {
                        rx.recv().ok()
                    } else {
                        rx.try_recv().ok()
                    };
                    let Some((done, region)) = next else {
                        break;
                    };
                    filled.extend(region);
                    recycler.absorb(done);
                    in_flight -= 1;
                }
            }
            buf
        });
        drop(tx);
        let mut blocks = recycler.into_blocks();
        for (done, region) in rx {
            filled.extend(region);
            blocks.push(done);
        }
        let gathered = Gathered::of(shared, arrays, filled, blocks.len());
        (blocks, gathered, tail)
    }
}

/// Parses one block into `region` when it has one (then the chunk returned is a summary), or
/// into its own vectors.
fn parse_block<'a, T: MtxValue>(
    bytes: &[u8],
    layout: &Layout,
    region: Option<Region<'a, T>>,
) -> (Chunk<T>, Option<Filled>) {
    match region {
        Some(mut region) => {
            let summary = body::parse_chunk_into(bytes, layout, &mut region);
            (summary, Some(region.filled()))
        }
        None => (body::parse_chunk::<T>(bytes, layout), None),
    }
}

/// The entries of the first `blocks` blocks, in one chunk.
struct Gathered<T> {
    entries: Chunk<T>,
    blocks: usize,
}

impl<T: MtxValue> Gathered<T> {
    /// The entries of all `blocks` blocks when they were `shared`, or of the blocks parsed into
    /// `arrays` (with what each `filled`).
    fn of(
        shared: Option<Chunk<T>>,
        arrays: Option<EntryArrays<T>>,
        filled: Vec<Filled>,
        blocks: usize,
    ) -> Option<Self> {
        match (shared, arrays) {
            (Some(shared), _) => Some(Gathered {
                entries: shared.seal(),
                blocks,
            }),
            (None, Some(arrays)) => Some(Gathered {
                blocks: arrays.claimed(),
                entries: arrays.into_chunk(filled),
            }),
            (None, None) => None,
        }
    }
}

/// The entries the size line announces, when that is plausible for the input's size (at least
/// 4 bytes a line; 1M entries when the size is not known): enough to reserve room for.
fn expected_entries(pre: &Preamble, size_hint: Option<u64>) -> usize {
    let plausible = size_hint.map_or(1 << 20, |bytes| bytes / 4);
    pre.size.entries.min(plausible) as usize
}

/// The chunk that collects the entries of every block when parsing on one thread, with room
/// for `entries`.
fn shared_chunk<T>(pre: &Preamble, entries: usize) -> Chunk<T> {
    let mut shared = Chunk::empty();
    // Only a hint: without the memory, the vectors grow as needed.
    let _ = shared.vals.try_reserve_exact(entries);
    if pre.header.format == crate::Format::Coordinate {
        let _ = shared.rows.try_reserve_exact(entries);
        let _ = shared.cols.try_reserve_exact(entries);
    }
    shared
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

    fn text(n: usize) -> String {
        let mut t = format!("%%MatrixMarket matrix coordinate integer general\n% c\n{n} {n} {n}\n");
        for i in 1..=n {
            t.push_str(&format!("{i} {} {i}\n", n + 1 - i));
        }
        t
    }

    #[test]
    fn same_matrix_for_any_block_size_plain_or_gzip() {
        let t = text(500);
        let expected = crate::read_bytes(t.as_bytes(), &ReadOptions::default()).unwrap();
        for chunk in [1, 5, 64, 1000, 1 << 20] {
            for threads in [1, 2] {
                let opts = ReadOptions {
                    threads: Some(threads),
                    chunk_bytes: Some(chunk),
                    ..Default::default()
                };
                assert_eq!(read_stream(t.as_bytes(), None, &opts).unwrap(), expected);
                let gz = gzip(t.as_bytes());
                assert_eq!(read_stream(&gz[..], None, &opts).unwrap(), expected);
            }
        }
    }

    #[test]
    fn comments_disorder_and_duplicates_read_alike_on_any_thread_count() {
        // Comment and blank lines take room in the arrays sized by the size line, so later
        // blocks find none left and keep their own vectors: both kinds are gathered in order.
        let mut t = String::from("%%MatrixMarket matrix coordinate real general\n7 7 12\n");
        for k in 0..12u32 {
            if k % 3 == 0 {
                t.push_str("% a comment line in the body\n\n");
            }
            let (row, col) = ((k * 5) % 7 + 1, (k * 3) % 7 + 1);
            t.push_str(&format!("{row} {col} {k}.5\n"));
        }
        t.push_str("1 1 1.0\n% a last comment\n");
        let t = t.replacen("7 7 12", "7 7 13", 1);
        let expected = crate::read_bytes(t.as_bytes(), &ReadOptions::default()).unwrap();
        assert_eq!(
            expected.nnz(),
            7,
            "entries k and k + 7 (and the last) are summed"
        );
        for chunk in [1, 7, 40, 1 << 20] {
            for threads in [1, 2] {
                let opts = ReadOptions {
                    threads: Some(threads),
                    chunk_bytes: Some(chunk),
                    ..Default::default()
                };
                let got = read_stream(t.as_bytes(), Some(t.len() as u64), &opts).unwrap();
                assert_eq!(got, expected, "blocks of {chunk} bytes, {threads} threads");
            }
        }
    }

    #[test]
    fn broken_gzip_reports_the_line_reached_even_after_a_bad_line() {
        let t = text(3000);
        let gz = gzip(t.as_bytes());
        let opts = ReadOptions {
            threads: Some(2),
            chunk_bytes: Some(100),
            ..Default::default()
        };
        let e = read_stream(&gz[..gz.len() / 2], None, &opts).unwrap_err();
        assert_eq!(e.parse_error().unwrap().name(), "gzip");
        assert!(e.line().unwrap() > 10);
        let bad = t.replacen("1 3000 1\n", "1 3000 x\n", 1);
        let gz = gzip(bad.as_bytes());
        let e = read_stream(&gz[..gz.len() / 2], None, &opts).unwrap_err();
        assert_eq!(e.parse_error().unwrap().name(), "gzip");
        let banner = format!(
            "%%MatrixMarket matrix coordinate integer generalx{}",
            &t[48..]
        );
        let gz = gzip(banner.as_bytes());
        let e = read_stream(&gz[..gz.len() / 2], None, &opts).unwrap_err();
        assert_eq!(e.parse_error().unwrap().name(), "gzip");
        assert!(e.line().unwrap() > 10);
    }

    #[test]
    fn entry_count_errors_are_located_although_blocks_are_recycled() {
        let t = text(3000);
        for (announced, line, kind) in [
            (2000, 2004, "too_many_entries"),
            (3001, 3004, "too_few_entries"),
        ] {
            let changed = t.replacen("3000 3000 3000", &format!("3000 3000 {announced}"), 1);
            for threads in [1, 2] {
                let opts = ReadOptions {
                    threads: Some(threads),
                    chunk_bytes: Some(50),
                    ..Default::default()
                };
                let e = read_stream(changed.as_bytes(), None, &opts).unwrap_err();
                assert_eq!(
                    (e.parse_error().unwrap().name(), e.line()),
                    (kind, Some(line))
                );
            }
        }
    }

    #[test]
    fn endless_lines_and_headers_end_in_an_error_naming_the_line() {
        let zeros = std::io::repeat(0).take(2 * MAX_HEADER_BYTES as u64);
        let e = read_stream(zeros, None, &ReadOptions::default()).unwrap_err();
        assert_eq!(
            (e.parse_error().unwrap().name(), e.line()),
            ("too_long", Some(1))
        );
        let comments = b"%%MatrixMarket matrix coordinate real general\n"
            .iter()
            .copied()
            .chain(
                b"% again\n"
                    .iter()
                    .copied()
                    .cycle()
                    .take(2 * MAX_HEADER_BYTES),
            );
        let comments: Vec<u8> = comments.collect();
        let e = read_stream(&comments[..], None, &ReadOptions::default()).unwrap_err();
        assert_eq!(e.parse_error().unwrap().name(), "too_long");
        assert!(e.to_string().contains("header"), "{e}");
        for threads in [1, 2] {
            let mut body =
                b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n".to_vec();
            body.extend(std::iter::repeat_n(b'7', 3 * MAX_LINE_BYTES));
            // Blocks smaller than the line: the reader must read on to find its end.
            let opts = ReadOptions {
                threads: Some(threads),
                chunk_bytes: Some(1 << 16),
                ..Default::default()
            };
            let e = read_stream(&body[..], None, &opts).unwrap_err();
            assert_eq!(
                (e.parse_error().unwrap().name(), e.line()),
                ("too_long", Some(4))
            );
        }
    }

    #[test]
    fn long_header_spans_blocks() {
        let mut t = String::from("%%MatrixMarket matrix coordinate real general\n");
        for i in 0..5000 {
            t.push_str(&format!("% comment line {i}\n"));
        }
        t.push_str("1 1 1\n1 1 2.5\n");
        let m = read_stream(t.as_bytes(), None, &ReadOptions::default()).unwrap();
        assert_eq!(m.comments.len(), 5000);
        assert_eq!(m.nnz(), 1);
    }
}
