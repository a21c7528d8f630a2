//! Parsing and formatting the numbers of one line: indices and the values of each field.
//!
//! [`Tokens`] walks one line (no line break) left to right, `O(line length)`, without allocating;
//! errors are built only on the failure path. [`MtxValue`] extends the sparse crate's `Value` with
//! the Matrix Market text form of each field: reals in shortest round-trip form (`ryu`), integers
//! with `itoa`, complex numbers as two reals, patterns as nothing.

use crate::error::{excerpt, ParseError};
use spmv_reorder_sparse::{Complex64, Field, Value};

/// True for the bytes that separate numbers on a line.
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// A cursor over the numbers of one line.
pub(crate) struct Tokens<'a> {
    line: &'a [u8],
    pos: usize,
    /// How many numbers the line must hold (for [`ParseError::WrongTokenCount`]).
    expected: usize,
}

impl<'a> Tokens<'a> {
    /// A cursor at the start of `line`, which must hold `expected` numbers.
    pub(crate) fn new(line: &'a [u8], expected: usize) -> Self {
        Tokens {
            line,
            pos: 0,
            expected,
        }
    }

    #[inline]
    fn skip_space(&mut self) {
        while self.pos < self.line.len() && is_space(self.line[self.pos]) {
            self.pos += 1;
        }
    }

    /// True when the cursor is at the end of the line: the end of the bytes, or a line break
    /// (the fast path of `body.rs` hands a whole chunk, whose first line is the one parsed).
    #[inline]
    fn at_end(&self) -> bool {
        self.pos == self.line.len() || self.line[self.pos] == b'\n'
    }

    /// Where the cursor is: after [`Self::finish`], the end of the line (its line break, if any).
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Moves to the next number; the wrong-count error when the line has no more.
    #[inline]
    fn start(&mut self) -> Result<(), ParseError> {
        self.skip_space();
        if self.at_end() {
            return Err(self.wrong_count());
        }
        Ok(())
    }

    /// Checks that nothing but spaces follows the last number.
    #[inline]
    pub(crate) fn finish(&mut self) -> Result<(), ParseError> {
        self.skip_space();
        if !self.at_end() {
            return Err(self.wrong_count());
        }
        Ok(())
    }

    #[cold]
    fn wrong_count(&self) -> ParseError {
        let line = self.line.split(|&b| b == b'\n').next().unwrap_or_default();
        let found = line
            .split(|&b| is_space(b))
            .filter(|w| !w.is_empty())
            .count();
        ParseError::WrongTokenCount {
            expected: self.expected,
            found,
        }
    }

    /// True when the number that ended at `end` is followed by a space or the end of the line.
    #[inline]
    fn ends_at(&self, end: usize) -> bool {
        end == self.line.len() || is_space(self.line[end]) || self.line[end] == b'\n'
    }

    /// The whole token starting at the cursor, for error messages.
    #[cold]
    fn token(&self) -> String {
        let rest = &self.line[self.pos..];
        let len = rest
            .iter()
            .position(|&b| is_space(b) || b == b'\n')
            .unwrap_or(rest.len());
        excerpt(&rest[..len])
    }

    /// A 1-based index in `1..=dim`, returned 0-based.
    #[inline(always)]
    pub(crate) fn index(&mut self, axis: &'static str, dim: usize) -> Result<u32, ParseError> {
        self.start()?;
        let rest = &self.line[self.pos..];
        let (value, len) = leading_digits(rest);
        if len == 0 || len > 19 || !self.ends_at(self.pos + len) {
            return Err(ParseError::BadIndex {
                axis,
                found: self.token(),
            });
        }
        if value == 0 || value > dim as u64 {
            return Err(ParseError::IndexOutOfRange {
                axis,
                index: value,
                dim: dim as u64,
            });
        }
        self.pos += len;
        Ok((value - 1) as u32)
    }

    /// A real number (also `inf`, `nan`, exponents), for a file of `field`.
    #[inline(always)]
    fn real(&mut self, field: Field) -> Result<f64, ParseError> {
        self.start()?;
        match fast_float2::parse_partial::<f64, _>(&self.line[self.pos..]) {
            Ok((v, n)) if self.ends_at(self.pos + n) => {
                self.pos += n;
                Ok(v)
            }
            _ => Err(ParseError::BadValue {
                field,
                found: self.token(),
            }),
        }
    }

    /// A signed 64-bit integer. Its digits are read as indices are, eight at a time
    /// ([`leading_digits`]): a loop with an overflow check per digit made integer files read
    /// barely faster than fast_matrix_market where real files read 1.5x as fast.
    #[inline(always)]
    fn integer(&mut self) -> Result<i64, ParseError> {
        self.start()?;
        let rest = &self.line[self.pos..];
        let (negative, digits_start) = match rest[0] {
            b'-' => (true, 1),
            b'+' => (false, 1),
            _ => (false, 0),
        };
        let (magnitude, len) = leading_digits(&rest[digits_start..]);
        // Up to 19 digits the magnitude is exact in a u64; more (leading zeros) take the slow way.
        let magnitude = match len {
            1..=19 => Some(magnitude),
            0 => None,
            _ => long_magnitude(&rest[digits_start..digits_start + len]),
        };
        let end = digits_start + len;
        let value = magnitude.and_then(|m| match negative {
            true => 0i64.checked_sub_unsigned(m),
            false => i64::try_from(m).ok(),
        });
        match value {
            Some(v) if self.ends_at(self.pos + end) => {
                self.pos += end;
                Ok(v)
            }
            _ => Err(ParseError::BadValue {
                field: Field::Integer,
                found: self.token(),
            }),
        }
    }
}

/// The value of a run of more than 19 ASCII digits, `None` when it overflows a u64.
#[cold]
fn long_magnitude(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |m, &d| {
        m.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// The value of the run of ASCII digits at the start of `bytes`, and its length. The value is
/// exact for up to 19 digits (it wraps beyond; callers reject such lengths).
#[inline]
pub(crate) fn leading_digits(bytes: &[u8]) -> (u64, usize) {
    // Indices have fewer than 8 digits almost always: one word answers.
    if let Some(word) = bytes.first_chunk::<8>() {
        let (value, len) = eight_digits(u64::from_le_bytes(*word));
        if len < 8 {
            return (value, len);
        }
    }
    let mut value: u64 = 0;
    let mut len = 0;
    for &b in bytes {
        let digit = b.wrapping_sub(b'0');
        if digit >= 10 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        len += 1;
    }
    (value, len)
}

/// The value of the leading digits among 8 bytes (little-endian: the first byte is the lowest),
/// and their count, without a loop (SWAR: each byte is a lane). A count of 8 means the run may go
/// on past these bytes.
#[inline]
fn eight_digits(word: u64) -> (u64, usize) {
    const LANES: u64 = 0x0101_0101_0101_0101;
    // Digits become 0..=9 in their lane, and only digits do.
    let values = word ^ (0x30 * LANES);
    // The high bit of a lane is set when its value is 10 or more (no carry between lanes).
    let non_digit = (((values & (0x7f * LANES)) + (0x76 * LANES)) | values) & (0x80 * LANES);
    let len = (non_digit.trailing_zeros() / 8) as usize;
    if len == 0 {
        return (0, 0);
    }
    // Keep the `len` digits and move them to the top lanes, so that zeros lead.
    let digits = values << (8 * (8 - len));
    // Combine pairs of lanes, then pairs of pairs, then the two halves.
    let pairs = (digits.wrapping_mul(10) + (digits >> 8)) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs.wrapping_mul(100) + (pairs >> 16)) & 0x0000_ffff_0000_ffff;
    let value = (quads.wrapping_mul(10_000) + (quads >> 32)) & 0xffff_ffff;
    (value, len)
}

/// A value type with a Matrix Market text form.
pub(crate) trait MtxValue: Value {
    /// Numbers per value on a line (0 for patterns, 2 for complex).
    const NUMBERS: usize;
    /// Parses one value at the cursor.
    fn parse(tokens: &mut Tokens<'_>) -> Result<Self, ParseError>;
    /// Appends the value's numbers, separated by single spaces, with no leading space.
    fn format(self, out: &mut Vec<u8>);
    /// Equality for symmetry checks: `==`, but NaN equals NaN (a NaN mirrored stays a NaN).
    fn same(self, other: Self) -> bool;
    /// The value of an entry not stored (written in `array` format).
    fn zero() -> Self;
    /// True when the imaginary part is zero (always, except for complex).
    fn is_real(self) -> bool {
        true
    }
    /// True when `-self` is a value of the type (not for the most negative integer): the mirror
    /// of a skew-symmetric entry.
    fn has_negation(self) -> bool {
        true
    }
    /// `self + other` (duplicates are summed), `None` when the sum does not fit (integers).
    fn checked_accumulate(self, other: Self) -> Option<Self> {
        Some(self.accumulate(other))
    }
}

fn same_f64(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn format_f64(v: f64, out: &mut Vec<u8>) {
    let mut buf = ryu::Buffer::new();
    out.extend_from_slice(buf.format(v).as_bytes());
}

impl MtxValue for f64 {
    const NUMBERS: usize = 1;
    #[inline]
    fn parse(tokens: &mut Tokens<'_>) -> Result<Self, ParseError> {
        tokens.real(Field::Real)
    }
    #[inline]
    fn format(self, out: &mut Vec<u8>) {
        format_f64(self, out);
    }
    fn same(self, other: Self) -> bool {
        same_f64(self, other)
    }
    fn zero() -> Self {
        0.0
    }
}

impl MtxValue for i64 {
    const NUMBERS: usize = 1;
    #[inline(always)]
    fn parse(tokens: &mut Tokens<'_>) -> Result<Self, ParseError> {
        tokens.integer()
    }
    #[inline]
    fn format(self, out: &mut Vec<u8>) {
        let mut buf = itoa::Buffer::new();
        out.extend_from_slice(buf.format(self).as_bytes());
    }
    fn same(self, other: Self) -> bool {
        self == other
    }
    fn zero() -> Self {
        0
    }
    fn has_negation(self) -> bool {
        self != i64::MIN
    }
    fn checked_accumulate(self, other: Self) -> Option<Self> {
        self.checked_add(other)
    }
}

impl MtxValue for Complex64 {
    const NUMBERS: usize = 2;
    #[inline]
    fn parse(tokens: &mut Tokens<'_>) -> Result<Self, ParseError> {
        let re = tokens.real(Field::Complex)?;
        let im = tokens.real(Field::Complex)?;
        Ok(Complex64::new(re, im))
    }
    #[inline]
    fn format(self, out: &mut Vec<u8>) {
        format_f64(self.re, out);
        out.push(b' ');
        format_f64(self.im, out);
    }
    fn same(self, other: Self) -> bool {
        same_f64(self.re, other.re) && same_f64(self.im, other.im)
    }
    fn zero() -> Self {
        Complex64::new(0.0, 0.0)
    }
    fn is_real(self) -> bool {
        self.im == 0.0
    }
}

impl MtxValue for () {
    const NUMBERS: usize = 0;
    #[inline]
    fn parse(_tokens: &mut Tokens<'_>) -> Result<Self, ParseError> {
        Ok(())
    }
    fn format(self, _out: &mut Vec<u8>) {}
    fn same(self, _other: Self) -> bool {
        true
    }
    fn zero() -> Self {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one<T: MtxValue>(line: &str) -> Result<T, ParseError> {
        let mut t = Tokens::new(line.as_bytes(), T::NUMBERS);
        let v = T::parse(&mut t)?;
        t.finish()?;
        Ok(v)
    }

    #[test]
    fn reals_in_every_notation() {
        assert_eq!(one::<f64>(" 1.5e-3\r").unwrap(), 1.5e-3);
        assert_eq!(one::<f64>("-2").unwrap(), -2.0);
        assert_eq!(one::<f64>("+.5E+2").unwrap(), 50.0);
        assert_eq!(one::<f64>("inf").unwrap(), f64::INFINITY);
        assert_eq!(one::<f64>("-Infinity").unwrap(), f64::NEG_INFINITY);
        assert!(one::<f64>("NaN").unwrap().is_nan());
        assert!(one::<f64>("nan").unwrap().is_nan());
        assert_eq!(one::<f64>("1.0x").unwrap_err().name(), "bad_value");
        assert_eq!(one::<f64>("1 2").unwrap_err().name(), "wrong_token_count");
        assert_eq!(one::<f64>("").unwrap_err().name(), "wrong_token_count");
    }

    #[test]
    fn integers_are_exact_and_checked() {
        assert_eq!(one::<i64>("-9223372036854775808").unwrap(), i64::MIN);
        assert_eq!(one::<i64>("+9223372036854775807").unwrap(), i64::MAX);
        assert_eq!(
            one::<i64>("9223372036854775808").unwrap_err().name(),
            "bad_value"
        );
        assert_eq!(one::<i64>("1.0").unwrap_err().name(), "bad_value");
        assert_eq!(one::<i64>("-").unwrap_err().name(), "bad_value");
        assert_eq!(one::<i64>("-+1").unwrap_err().name(), "bad_value");
        assert_eq!(one::<i64>("12a").unwrap_err().name(), "bad_value");
    }

    /// Every length of digits around the eight read at a time and the 19 exact in a u64, with
    /// leading zeros, and overflow past them.
    #[test]
    fn integers_of_every_length() {
        for len in 1..=19 {
            let digits: String = (0..len).map(|k| char::from(b'1' + (k % 9) as u8)).collect();
            let expected: i128 = digits.parse().unwrap();
            for sign in ["", "+", "-"] {
                let parsed = one::<i64>(&format!("{sign}{digits}"));
                let expected = if sign == "-" { -expected } else { expected };
                match i64::try_from(expected) {
                    Ok(v) => assert_eq!(parsed.unwrap(), v, "{sign}{digits}"),
                    Err(_) => assert_eq!(parsed.unwrap_err().name(), "bad_value"),
                }
            }
        }
        assert_eq!(one::<i64>("00000000000000000000000042").unwrap(), 42);
        assert_eq!(
            one::<i64>("-0000000000000000000009223372036854775808").unwrap(),
            i64::MIN
        );
        assert_eq!(
            one::<i64>("99999999999999999999").unwrap_err().name(),
            "bad_value"
        );
        assert_eq!(one::<i64>("-0").unwrap(), 0);
    }

    #[test]
    fn complex_needs_two_numbers() {
        assert_eq!(one::<Complex64>("1 -2").unwrap(), Complex64::new(1.0, -2.0));
        let e = one::<Complex64>("1").unwrap_err();
        assert_eq!(
            e,
            ParseError::WrongTokenCount {
                expected: 2,
                found: 1
            }
        );
    }

    #[test]
    fn indices_are_one_based_and_bounded() {
        let mut t = Tokens::new(b"3 1", 2);
        assert_eq!(t.index("row", 3), Ok(2));
        assert_eq!(t.index("column", 3), Ok(0));
        let e = Tokens::new(b"0", 1).index("row", 3).unwrap_err();
        assert_eq!(e.name(), "index_out_of_range");
        let e = Tokens::new(b"4", 1).index("row", 3).unwrap_err();
        assert_eq!(e.name(), "index_out_of_range");
        let e = Tokens::new(b"2.0", 1).index("row", 3).unwrap_err();
        assert_eq!(e.name(), "bad_index");
        let e = Tokens::new(b"99999999999999999999999", 1)
            .index("row", 3)
            .unwrap_err();
        assert_eq!(e.name(), "bad_index");
    }

    /// Parses `text` as a whole real token, as a body line's value is.
    fn real_token(text: &str) -> Option<f64> {
        Tokens::new(text.as_bytes(), 1).real(Field::Real).ok()
    }

    #[test]
    fn reals_parse_exactly_as_the_standard_library_does() {
        // Shortest round-trip forms, fixed and scientific ones of every precision, and decimal
        // strings near the limits of exact arithmetic (2^53, 19 digits, 10^±22).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "+0.0",
            "1.",
            ".5",
            "-.25",
            "9007199254740992",
            "9007199254740993",
            "9007199254740991e22",
            "1e22",
            "1e23",
            "1e-22",
            "1e-23",
            "123456789012345678.9",
            "1234567890123456789",
            "12345678901234567890",
            "0.0000000000000000000001",
            "4.9e-324",
            "1.7976931348623157e308",
            "1E+5",
            "2e-0005",
            "1e00022",
            "3.14159e0",
            "00000000000000000000000000001.5",
            "0.30000000000000004",
        ]
        .map(String::from)
        .to_vec();
        for k in 0..200_000 {
            let bits = next();
            let v = match k % 4 {
                0 => f64::from_bits(bits >> 2),
                1 => (bits >> 11) as f64 / (1u64 << 53) as f64,
                2 => (bits % 1_000_000_007) as f64 / 1024.0,
                _ => -((bits >> 20) as f64) * 1e-9,
            };
            if !v.is_finite() {
                continue;
            }
            let precision = (bits % 20) as usize;
            texts.push(format!("{v}"));
            texts.push(format!("{v:e}"));
            texts.push(format!("{v:.precision$}"));
            texts.push(format!("{v:.precision$e}"));
            texts.push(format!(
                "{}e{}",
                bits % 100_000_000_000,
                (bits >> 40) as i64 % 30 - 15
            ));
        }
        for text in &texts {
            let expected: f64 = text.parse().unwrap();
            let got = real_token(text).unwrap_or_else(|| panic!("{text:?} did not parse"));
            assert_eq!(got.to_bits(), expected.to_bits(), "{text:?}");
        }
        for bad in [
            "", "-", ".", "1e", "1e+", "1.5.3", "--1", "1x", "e5", "0x10",
        ] {
            assert_eq!(real_token(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn leading_digits_of_every_length() {
        for text in [
            "",
            "x",
            "7",
            "12 ",
            "1234567",
            "12345678",
            "123456789 1",
            "00000000001",
            "4294967295\n",
        ] {
            let expected_len = text.bytes().take_while(u8::is_ascii_digit).count();
            let expected: u64 = text[..expected_len].parse().unwrap_or(0);
            assert_eq!(
                leading_digits(text.as_bytes()),
                (expected, expected_len),
                "{text:?}"
            );
            let padded = format!("{text}        ");
            let (v, n) = leading_digits(padded.as_bytes());
            assert_eq!((v, n), (expected, expected_len), "{padded:?}");
        }
        for b in 0..=255u8 {
            let bytes = [b'4', b, b' ', b' ', b' ', b' ', b' ', b' ', b' '];
            let digit = b.is_ascii_digit();
            let want = if digit {
                (40 + u64::from(b - b'0'), 2)
            } else {
                (4, 1)
            };
            assert_eq!(leading_digits(&bytes), want, "byte {b}");
        }
    }

    #[test]
    fn formatting_round_trips() {
        for v in [
            0.1,
            -1e-300,
            1e300,
            5e-324,
            f64::INFINITY,
            123456789.0,
            -0.0,
        ] {
            let mut out = Vec::new();
            v.format(&mut out);
            let back = one::<f64>(std::str::from_utf8(&out).unwrap()).unwrap();
            assert_eq!(back.to_bits(), v.to_bits());
        }
        let mut out = Vec::new();
        f64::NAN.format(&mut out);
        assert!(one::<f64>(std::str::from_utf8(&out).unwrap())
            .unwrap()
            .is_nan());
    }
}
