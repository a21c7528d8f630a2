//! One NumPy `.npy` array (format versions 1.0, 2.0 and 3.0): the header (`descr`,
//! `fortran_order`, `shape`) and the raw data, little- or big-endian, read in blocks straight into
//! typed vectors and written little-endian. `O(array bytes)` time; reading holds the typed vector
//! and one block of raw bytes, never the whole raw array. Called by `npz.rs`.

use crate::binary_error::BinaryError;
use std::io::{Read, Write};

/// The magic string every `.npy` array starts with.
const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Raw bytes converted per block while reading.
const BLOCK_BYTES: usize = 1 << 20;

/// The kind of an element (`descr`'s letter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `b`: `numpy.bool_`, one byte.
    Bool,
    /// `i`: signed integer of 1, 2, 4 or 8 bytes.
    Int,
    /// `u`: unsigned integer of 1, 2, 4 or 8 bytes.
    Uint,
    /// `f`: IEEE float of 4 or 8 bytes.
    Float,
    /// `c`: complex of two floats, 8 or 16 bytes.
    Complex,
    /// `S`: bytes, `U`: UTF-32 characters (strings such as scipy's `format`).
    Text { utf32: bool },
}

/// An element type: kind, bytes per element, byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dtype {
    pub kind: Kind,
    pub size: usize,
    pub big_endian: bool,
}

/// The header of one array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    /// The `descr` as written (for messages).
    pub descr: String,
    pub dtype: Dtype,
    pub shape: Vec<u64>,
}

impl Header {
    /// Elements of the array.
    pub(crate) fn len(&self) -> u64 {
        self.shape.iter().product()
    }
}

/// Reads the header of the array named `array` from `r`, which must be at its start.
///
/// # Errors
/// [`BinaryError::BadNpy`] when it is not an `.npy` header, [`BinaryError::UnsupportedDtype`] for
/// an element type other than bool, integer, float, complex or text, and for Fortran order of a
/// multi-dimensional array.
pub(crate) fn read_header<R: Read>(r: &mut R, array: &'static str) -> Result<Header, BinaryError> {
    let bad = |problem: &'static str| BinaryError::BadNpy { array, problem };
    let mut start = [0u8; 8];
    r.read_exact(&mut start)
        .map_err(|_| bad("shorter than an .npy header"))?;
    if &start[..6] != MAGIC {
        return Err(bad("does not start with the .npy magic string"));
    }
    let len = match start[6] {
        1 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b).map_err(|_| bad("truncated header"))?;
            usize::from(u16::from_le_bytes(b))
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            r.read_exact(&mut b).map_err(|_| bad("truncated header"))?;
            u32::from_le_bytes(b) as usize
        }
        _ => return Err(bad("unknown .npy format version")),
    };
    if len > 1 << 20 {
        return Err(bad("header longer than 1 MiB"));
    }
    let mut text = vec![0u8; len];
    r.read_exact(&mut text)
        .map_err(|_| bad("truncated header"))?;
    let text = std::str::from_utf8(&text).map_err(|_| bad("header is not text"))?;
    parse_header(text, array)
}

/// Parses the header dictionary, e.g. `{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }`.
fn parse_header(text: &str, array: &'static str) -> Result<Header, BinaryError> {
    let bad = |problem: &'static str| BinaryError::BadNpy { array, problem };
    let descr = dict_value(text, "descr")
        .and_then(|v| v.strip_prefix('\'').or_else(|| v.strip_prefix('"')))
        .and_then(|v| v.split(['\'', '"']).next())
        .ok_or(bad("header has no 'descr' string"))?;
    let dtype = parse_descr(descr).ok_or_else(|| BinaryError::UnsupportedDtype {
        array,
        dtype: descr.to_string(),
    })?;
    let fortran = dict_value(text, "fortran_order")
        .ok_or(bad("header has no 'fortran_order'"))?
        .starts_with("True");
    let shape_text = dict_value(text, "shape")
        .and_then(|v| v.strip_prefix('('))
        .and_then(|v| v.split(')').next())
        .ok_or(bad("header has no 'shape' tuple"))?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse::<u64>())
        .collect::<Result<Vec<u64>, _>>()
        .map_err(|_| bad("'shape' holds something other than sizes"))?;
    if shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .is_none()
    {
        return Err(bad("'shape' overflows 64 bits"));
    }
    if fortran && shape.len() > 1 {
        return Err(BinaryError::UnsupportedDtype {
            array,
            dtype: format!("{descr} in Fortran order"),
        });
    }
    Ok(Header {
        descr: descr.to_string(),
        dtype,
        shape,
    })
}

/// The text after `'key':` in a header dictionary.
fn dict_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text
        .find(&format!("'{key}'"))
        .or_else(|| text.find(&format!("\"{key}\"")))?;
    let rest = &text[at + key.len() + 2..];
    Some(rest.trim_start().strip_prefix(':')?.trim_start())
}

/// The element type of a `descr` such as `<f8`, `|b1`, `>i4` or `|S3`.
fn parse_descr(descr: &str) -> Option<Dtype> {
    let (order, rest) = match descr.as_bytes().first()? {
        b'<' | b'|' | b'=' => (false, &descr[1..]),
        b'>' => (true, &descr[1..]),
        _ => (false, descr),
    };
    let letter = rest.chars().next()?;
    let size: usize = rest[letter.len_utf8()..].parse().ok()?;
    let kind = match letter {
        'b' | '?' => Kind::Bool,
        'i' => Kind::Int,
        'u' => Kind::Uint,
        'f' => Kind::Float,
        'c' => Kind::Complex,
        'S' | 'a' => Kind::Text { utf32: false },
        'U' => Kind::Text { utf32: true },
        _ => return None,
    };
    let valid = match kind {
        Kind::Bool => size == 1,
        Kind::Int | Kind::Uint => matches!(size, 1 | 2 | 4 | 8),
        Kind::Float => matches!(size, 4 | 8),
        Kind::Complex => matches!(size, 8 | 16),
        Kind::Text { .. } => (1..=64).contains(&size),
    };
    let (size, big_endian) = match kind {
        Kind::Text { utf32: true } => (size * 4, order),
        _ => (size, order),
    };
    valid.then_some(Dtype {
        kind,
        size,
        big_endian,
    })
}

/// Reads the `header.len()` elements that follow `header`, converting each (its index and raw
/// bytes) with `convert`.
///
/// # Errors
/// [`BinaryError::Truncated`] when the data ends early, [`BinaryError::OutOfMemory`] when the
/// vector cannot grow (it grows with the data read, never ahead of it by more than a block),
/// and whatever `convert` returns.
pub(crate) fn read_data<R: Read, T>(
    r: &mut R,
    header: &Header,
    array: &'static str,
    mut convert: impl FnMut(u64, &[u8]) -> Result<T, BinaryError>,
) -> Result<Vec<T>, BinaryError> {
    let count = header.len();
    let size = header.dtype.size;
    let mut out = Vec::new();
    let per_block = (BLOCK_BYTES / size.max(1)).max(1);
    let mut raw = vec![0u8; per_block * size];
    let mut done = 0u64;
    while done < count {
        let n = per_block.min((count - done) as usize);
        // Room for what was read, not for what the header says: a header may claim more than
        // the file holds, and memory follows the bytes that are there.
        out.try_reserve(n).map_err(|_| BinaryError::OutOfMemory {
            what: array,
            bytes: count.saturating_mul(std::mem::size_of::<T>() as u64),
        })?;
        let bytes = &mut raw[..n * size];
        r.read_exact(bytes).map_err(|_| BinaryError::Truncated {
            what: array,
            needed: count.saturating_mul(size as u64),
        })?;
        for element in bytes.chunks_exact(size) {
            out.push(convert(done, element)?);
            done += 1;
        }
    }
    Ok(out)
}

/// The integer in `bytes` (1, 2, 4 or 8 bytes, signed or not, in `dtype`'s byte order), widened.
#[inline]
pub(crate) fn integer(bytes: &[u8], dtype: Dtype) -> i128 {
    let mut word = [0u8; 8];
    let n = bytes.len();
    if dtype.big_endian {
        word[8 - n..].copy_from_slice(bytes);
        word.reverse();
    } else {
        word[..n].copy_from_slice(bytes);
    }
    let unsigned = u64::from_le_bytes(word);
    if dtype.kind == Kind::Int && n < 8 {
        let shift = 64 - 8 * n as u32;
        i128::from(((unsigned << shift) as i64) >> shift)
    } else if dtype.kind == Kind::Int {
        i128::from(unsigned as i64)
    } else {
        i128::from(unsigned)
    }
}

/// The float in `bytes` (4 or 8 bytes, in `dtype`'s byte order), as `f64`.
#[inline]
pub(crate) fn float(bytes: &[u8], big_endian: bool) -> f64 {
    match (bytes.len(), big_endian) {
        (4, false) => f64::from(f32::from_le_bytes(bytes.try_into().expect("4 bytes"))),
        (4, true) => f64::from(f32::from_be_bytes(bytes.try_into().expect("4 bytes"))),
        (_, false) => f64::from_le_bytes(bytes.try_into().expect("8 bytes")),
        (_, true) => f64::from_be_bytes(bytes.try_into().expect("8 bytes")),
    }
}

/// Writes an `.npy` version 1.0 header for `descr` and `shape`, padded with spaces so that the
/// data starts on a 64-byte boundary, as NumPy does.
pub(crate) fn write_header<W: Write + ?Sized>(
    w: &mut W,
    descr: &str,
    shape: &[u64],
) -> std::io::Result<()> {
    let dims: String = match shape {
        [] => String::new(),
        [n] => format!("{n},"),
        many => many
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}");
    let unpadded = MAGIC.len() + 2 + 2 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    w.write_all(MAGIC)?;
    w.write_all(&[1, 0])?;
    w.write_all(&(dict.len() as u16).to_le_bytes())?;
    w.write_all(dict.as_bytes())
}

/// Bytes of an `.npy` version 1.0 header for `descr` and `shape` ([`write_header`]).
pub(crate) fn header_len(descr: &str, shape: &[u64]) -> u64 {
    let mut v = Vec::new();
    write_header(&mut v, descr, shape).expect("writing to a vector");
    v.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(descr: &str, shape: &[u64]) -> Vec<u8> {
        let mut v = Vec::new();
        write_header(&mut v, descr, shape).unwrap();
        v
    }

    #[test]
    fn headers_round_trip_and_align() {
        for (descr, shape) in [("<f8", vec![5]), ("|S3", vec![]), ("<i8", vec![2, 3])] {
            let bytes = header(descr, &shape);
            assert_eq!(bytes.len() % 64, 0);
            assert_eq!(header_len(descr, &shape), bytes.len() as u64);
            let h = read_header(&mut &bytes[..], "x").unwrap();
            assert_eq!((h.descr.as_str(), h.shape), (descr, shape));
        }
    }

    #[test]
    fn numpy_header_text_parses() {
        // As NumPy 1.x and 2.x write them (a trailing comma, `L` suffixes of old Python 2 files).
        let h = parse_header(
            "{'descr': '>i4', 'fortran_order': False, 'shape': (3L,), }",
            "indices",
        )
        .unwrap();
        assert_eq!(
            h.dtype,
            Dtype {
                kind: Kind::Int,
                size: 4,
                big_endian: true
            }
        );
        assert_eq!(h.shape, vec![3]);
        let u = parse_header(
            "{'descr': '<U3', 'fortran_order': False, 'shape': (), }",
            "format",
        )
        .unwrap();
        assert_eq!((u.dtype.size, u.len()), (12, 1));
        let e = parse_header(
            "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }",
            "data",
        );
        assert!(matches!(e, Err(BinaryError::UnsupportedDtype { .. })));
        let e = parse_header("{'descr': '<f8', 'shape': (1,), }", "data");
        assert!(matches!(e, Err(BinaryError::BadNpy { .. })));
        // Found by fuzzing: a type letter of several bytes, and text of no bytes per element.
        for descr in ["é<i4", "<é4", "|S0", "<U0"] {
            let text = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,), }}");
            let e = parse_header(&text, "data");
            assert!(
                matches!(e, Err(BinaryError::UnsupportedDtype { .. })),
                "{descr}"
            );
        }
    }

    #[test]
    fn integers_of_every_width_and_order() {
        let d = |kind, size, big_endian| Dtype {
            kind,
            size,
            big_endian,
        };
        assert_eq!(integer(&[0xff], d(Kind::Int, 1, false)), -1);
        assert_eq!(integer(&[0xff], d(Kind::Uint, 1, false)), 255);
        assert_eq!(integer(&[0xff, 0xfe], d(Kind::Int, 2, true)), -2);
        assert_eq!(integer(&(-7i32).to_le_bytes(), d(Kind::Int, 4, false)), -7);
        assert_eq!(
            integer(&u64::MAX.to_be_bytes(), d(Kind::Uint, 8, true)),
            i128::from(u64::MAX)
        );
        assert_eq!(float(&1.5f32.to_be_bytes(), true), 1.5);
    }

    #[test]
    fn data_in_blocks_and_truncation() {
        let h = Header {
            descr: "<i4".into(),
            dtype: parse_descr("<i4").unwrap(),
            shape: vec![300_000],
        };
        let raw: Vec<u8> = (0..300_000i32).flat_map(i32::to_le_bytes).collect();
        let v = read_data(&mut &raw[..], &h, "indices", |_, b| {
            Ok(integer(b, h.dtype) as i64)
        })
        .unwrap();
        assert_eq!(v.len(), 300_000);
        assert_eq!(v[299_999], 299_999);
        let e = read_data(&mut &raw[..1000], &h, "indices", |_, b| Ok(b[0]));
        assert!(matches!(e, Err(BinaryError::Truncated { .. })));
    }
}
