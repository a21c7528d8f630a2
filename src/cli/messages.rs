//! What the binary prints about errors: control characters from inputs, paths or options shown
//! as escapes (an ESC or OSC sequence in a file must not retitle or clear the user's terminal),
//! and writes to stderr that never panic.

use std::io::Write;

/// `text` with every control character but the line break and tab, and every bidirectional
/// override, written as a Rust escape (`\u{1b}`).
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if (c.is_control() && c != '\n' && c != '\t') || bidi {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Prints `spmv-reorder: LEVEL: message` on stderr, escaped; a closed stderr is ignored.
pub fn report(level: &str, message: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "spmv-reorder: {level}: {}",
        printable(message)
    );
}

/// Prints a line of progress on stderr, escaped; a closed stderr is ignored.
pub fn progress(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", printable(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bytes_are_escaped_and_text_kept() {
        assert_eq!(
            printable("bad value `\u{1b}]0;pwned\u{7}\u{1b}[2J\0`"),
            "bad value `\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{0}`"
        );
        assert_eq!(printable("a\tb\nc é ∑"), "a\tb\nc é ∑");
        assert_eq!(printable("x\u{202e}y\r"), "x\\u{202e}y\\u{d}");
    }
}
