//! The Matrix Market header: the banner line (`%%MatrixMarket matrix <format> <field> <symmetry>`)
//! and the size line. Parsing is case-insensitive and `O(line length)`.

use crate::error::{excerpt, ParseError};
use spmv_reorder_sparse::{Field, MAX_DIM};
use std::fmt;

/// How the entries are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `coordinate`: one `row column value` line per stored entry (sparse).
    Coordinate,
    /// `array`: every value, column by column (dense).
    Array,
}

/// Which part of the matrix is stored, and how the rest follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// Every entry is stored.
    General,
    /// `A = Aᵀ`: the lower triangle (with the diagonal) is stored.
    Symmetric,
    /// `A = -Aᵀ`: the strictly lower triangle is stored; the diagonal is zero.
    SkewSymmetric,
    /// `A = conj(Aᵀ)`: the lower triangle (with the real diagonal) is stored.
    Hermitian,
}

/// The banner of a Matrix Market file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    /// `coordinate` or `array`.
    pub format: Format,
    /// The value field.
    pub field: Field,
    /// The stored part.
    pub symmetry: Symmetry,
}

impl Format {
    /// The Matrix Market spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Coordinate => "coordinate",
            Format::Array => "array",
        }
    }
}

impl Symmetry {
    /// The Matrix Market spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
            Symmetry::Hermitian => "hermitian",
        }
    }

    /// True when only a triangle is stored (anything but `general`).
    pub fn is_triangular(self) -> bool {
        self != Symmetry::General
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Header {
    /// The banner line, without a line break.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{BANNER} matrix {} {} {}",
            self.format, self.field, self.symmetry
        )
    }
}

/// The first word of every Matrix Market file.
pub(crate) const BANNER: &str = "%%MatrixMarket";

impl Header {
    /// The header of a general coordinate matrix of `field`.
    pub fn general(field: Field) -> Self {
        Header {
            format: Format::Coordinate,
            field,
            symmetry: Symmetry::General,
        }
    }

    /// Parses a banner line (without its line break).
    ///
    /// # Errors
    /// [`ParseError::MissingBanner`] when the line does not start with `%%MatrixMarket`,
    /// [`ParseError::BadBanner`] for a wrong number of words, `Unknown*` for unknown words, and
    /// [`ParseError::ArrayPattern`] for the invalid `array pattern` combination.
    pub fn parse(line: &[u8]) -> Result<Self, ParseError> {
        let text = std::str::from_utf8(line).map_err(|_| ParseError::NotUtf8)?;
        let words: Vec<String> = text
            .split_ascii_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        if words.first().map(String::as_str) != Some(&BANNER.to_ascii_lowercase()) {
            return Err(ParseError::MissingBanner {
                found: excerpt(line),
            });
        }
        if words.len() != 5 {
            return Err(ParseError::BadBanner { found: words.len() });
        }
        if words[1] != "matrix" {
            return Err(ParseError::UnknownObject {
                found: words[1].clone(),
            });
        }
        let format = match words[2].as_str() {
            "coordinate" => Format::Coordinate,
            "array" => Format::Array,
            other => {
                return Err(ParseError::UnknownFormat {
                    found: other.into(),
                })
            }
        };
        let field = match words[3].as_str() {
            "real" | "double" => Field::Real,
            "integer" => Field::Integer,
            "complex" => Field::Complex,
            "pattern" => Field::Pattern,
            other => {
                return Err(ParseError::UnknownField {
                    found: other.into(),
                })
            }
        };
        let symmetry = match words[4].as_str() {
            "general" => Symmetry::General,
            "symmetric" => Symmetry::Symmetric,
            "skew-symmetric" => Symmetry::SkewSymmetric,
            "hermitian" => Symmetry::Hermitian,
            other => {
                return Err(ParseError::UnknownSymmetry {
                    found: other.into(),
                })
            }
        };
        let header = Header {
            format,
            field,
            symmetry,
        };
        header.validate()?;
        Ok(header)
    }

    /// Checks the combination of format, field and symmetry.
    ///
    /// # Errors
    /// [`ParseError::ArrayPattern`] for `array` + `pattern`.
    pub fn validate(&self) -> Result<(), ParseError> {
        if self.format == Format::Array && self.field == Field::Pattern {
            return Err(ParseError::ArrayPattern);
        }
        Ok(())
    }
}

/// The size line: dimensions, and for coordinate files the number of stored entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Size {
    pub nrows: usize,
    pub ncols: usize,
    /// Entries (coordinate) or values (array) the body must hold.
    pub entries: u64,
}

impl Size {
    /// Parses the size line of a file with `header`.
    pub(crate) fn parse(line: &[u8], header: &Header) -> Result<Self, ParseError> {
        let expected = match header.format {
            Format::Coordinate => "3 integers `rows columns entries`",
            Format::Array => "2 integers `rows columns`",
        };
        let bad = || ParseError::BadSizeLine {
            expected,
            found: excerpt(line),
        };
        std::str::from_utf8(line).map_err(|_| ParseError::NotUtf8)?;
        let words: Vec<&[u8]> = line
            .split(|b| matches!(b, b' ' | b'\t' | b'\r'))
            .filter(|w| !w.is_empty())
            .collect();
        let want = if header.format == Format::Coordinate {
            3
        } else {
            2
        };
        if words.len() != want {
            return Err(bad());
        }
        let mut numbers = [0u64; 3];
        for (n, w) in numbers.iter_mut().zip(&words) {
            *n = parse_u64(w).ok_or_else(bad)?;
        }
        let nrows = dimension("rows", numbers[0])?;
        let ncols = dimension("columns", numbers[1])?;
        if header.symmetry.is_triangular() && nrows != ncols {
            return Err(ParseError::NotSquare {
                symmetry: header.symmetry,
                nrows: numbers[0],
                ncols: numbers[1],
            });
        }
        let entries = match header.format {
            Format::Coordinate => numbers[2],
            Format::Array => array_values(nrows as u64, ncols as u64, header.symmetry).ok_or(
                ParseError::TooLarge {
                    what: "array values",
                    value: u64::MAX,
                    max: u64::MAX,
                },
            )?,
        };
        if usize::try_from(entries).is_err() {
            return Err(ParseError::TooLarge {
                what: "entries",
                value: entries,
                max: usize::MAX as u64,
            });
        }
        Ok(Size {
            nrows,
            ncols,
            entries,
        })
    }
}

/// Values an `array` file stores: all of them, the lower triangle, or the strictly lower one.
pub(crate) fn array_values(nrows: u64, ncols: u64, symmetry: Symmetry) -> Option<u64> {
    match symmetry {
        Symmetry::General => nrows.checked_mul(ncols),
        Symmetry::Symmetric | Symmetry::Hermitian => nrows.checked_mul(nrows + 1).map(|v| v / 2),
        Symmetry::SkewSymmetric => nrows.checked_mul(nrows.saturating_sub(1)).map(|v| v / 2),
    }
}

fn dimension(what: &'static str, value: u64) -> Result<usize, ParseError> {
    usize::try_from(value)
        .ok()
        .filter(|&v| v <= MAX_DIM)
        .ok_or(ParseError::TooLarge {
            what,
            value,
            max: MAX_DIM as u64,
        })
}

/// Parses a non-empty run of ASCII digits; `None` on anything else or overflow.
pub(crate) fn parse_u64(word: &[u8]) -> Option<u64> {
    if word.is_empty() {
        return None;
    }
    word.iter().try_fold(0u64, |acc, &b| {
        let digit = b.wrapping_sub(b'0');
        (digit < 10).then_some(())?;
        acc.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banner_is_case_insensitive() {
        let h = Header::parse(b"%%matrixmarket MATRIX Coordinate Double Skew-Symmetric\r").unwrap();
        assert_eq!(h.format, Format::Coordinate);
        assert_eq!(h.field, Field::Real);
        assert_eq!(h.symmetry, Symmetry::SkewSymmetric);
        assert_eq!(
            h.to_string(),
            "%%MatrixMarket matrix coordinate real skew-symmetric"
        );
    }

    #[test]
    fn banner_errors() {
        let name = |l: &[u8]| Header::parse(l).unwrap_err().name();
        assert_eq!(name(b"% hello"), "missing_banner");
        assert_eq!(name(b"%%MatrixMarket matrix array real"), "bad_banner");
        assert_eq!(
            name(b"%%MatrixMarket vector array real general"),
            "unknown_object"
        );
        assert_eq!(
            name(b"%%MatrixMarket matrix dense real general"),
            "unknown_format"
        );
        assert_eq!(
            name(b"%%MatrixMarket matrix array float general"),
            "unknown_field"
        );
        assert_eq!(
            name(b"%%MatrixMarket matrix array real upper"),
            "unknown_symmetry"
        );
        assert_eq!(
            name(b"%%MatrixMarket matrix array pattern general"),
            "array_pattern"
        );
    }

    #[test]
    fn size_line() {
        let h = Header::general(Field::Real);
        let s = Size::parse(b" 3\t4  5 \r", &h).unwrap();
        assert_eq!((s.nrows, s.ncols, s.entries), (3, 4, 5));
        assert_eq!(Size::parse(b"3 4", &h).unwrap_err().name(), "bad_size_line");
        assert_eq!(
            Size::parse(b"3 -4 5", &h).unwrap_err().name(),
            "bad_size_line"
        );
        assert_eq!(
            Size::parse(b"4294967296 1 0", &h).unwrap_err().name(),
            "too_large"
        );
        let sym = Header {
            symmetry: Symmetry::Symmetric,
            ..h
        };
        assert_eq!(
            Size::parse(b"3 4 1", &sym).unwrap_err().name(),
            "not_square"
        );
        let arr = Header {
            format: Format::Array,
            symmetry: Symmetry::SkewSymmetric,
            ..h
        };
        assert_eq!(Size::parse(b"4 4", &arr).unwrap().entries, 6);
    }

    #[test]
    fn parses_digits_only() {
        assert_eq!(parse_u64(b"0042"), Some(42));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"1e3"), None);
        assert_eq!(parse_u64(b""), None);
    }
}
