//! A strict, allocation-free JSON (RFC 8259) pull reader and a counting writer.
//! The reader walks a byte slice token by token and hands out borrowed, validated
//! strings, so callers decide what to keep; anything RFC 8259 does not allow is an
//! error carrying the byte offset where it was found, and any cut-off prefix of a
//! valid document reports `Truncated` so callers can say "truncated document"
//! reliably. Nesting is bounded by `MAX_DEPTH` and skipping is iterative, so
//! hostile input cannot exhaust the stack. The writer fills a caller buffer and
//! keeps counting past its end, so a too-small buffer yields the exact size needed.

#![forbid(unsafe_code)]

use core::fmt::{self, Write as _};

/// Deepest nesting of arrays and objects the reader accepts, counted over the
/// whole document (the `u128` bracket stack holds exactly this many levels).
pub const MAX_DEPTH: u32 = 128;

/// What went wrong; `message` gives the text shown to users.
#[allow(missing_docs)] // each variant is described by `ErrorKind::message`
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    Truncated,
    Depth,
    InvalidNumber,
    NotWholeNumber,
    Negative,
    NumberOutOfRange,
    IntegerOutOfRange,
    BareWord,
    SingleQuote,
    ControlCharacter,
    InvalidEscape,
    LoneSurrogate,
    InvalidUtf8,
    ExpectedColon,
    ExpectedCommaOrEnd,
    TrailingComma,
    ExpectedValue,
    ExpectedKey,
    ExpectedString,
    ExpectedObject,
    ExpectedArray,
    ExpectedNumber,
    ExpectedBool,
    TrailingCharacters,
    /// The caller asked for a key outside an object or an element outside an array.
    Misuse,
}

impl ErrorKind {
    /// The text shown to users.
    pub fn message(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated document (unexpected end)",
            ErrorKind::Depth => "nesting deeper than 128",
            ErrorKind::InvalidNumber => {
                "invalid number (RFC 8259: no leading '.', '+', leading zeros or trailing '.', no hex, NaN or Infinity)"
            }
            ErrorKind::NotWholeNumber => "must be a whole number, written in digits (no fraction or exponent)",
            ErrorKind::Negative => "must not be negative",
            ErrorKind::NumberOutOfRange => "number beyond the range of f64 (about 1.8e308)",
            ErrorKind::IntegerOutOfRange => "must be at most 18446744073709551615",
            ErrorKind::BareWord => "bare word (only true, false and null may appear unquoted)",
            ErrorKind::SingleQuote => "single-quoted string (JSON strings use double quotes)",
            ErrorKind::ControlCharacter => "raw control character in a string (escape it)",
            ErrorKind::InvalidEscape => {
                "invalid escape (only \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"
            }
            ErrorKind::LoneSurrogate => "unpaired \\u surrogate in a string",
            ErrorKind::InvalidUtf8 => "invalid UTF-8 in a string",
            ErrorKind::ExpectedColon => "expected ':' after the key",
            ErrorKind::ExpectedCommaOrEnd => "expected ',' or the closing bracket",
            ErrorKind::TrailingComma => "trailing comma",
            ErrorKind::ExpectedValue => "expected a value",
            ErrorKind::ExpectedKey => "expected a key (a double-quoted string)",
            ErrorKind::ExpectedString => "expected a string",
            ErrorKind::ExpectedObject => "expected an object",
            ErrorKind::ExpectedArray => "expected an array",
            ErrorKind::ExpectedNumber => "expected a number",
            ErrorKind::ExpectedBool => "expected true or false",
            ErrorKind::TrailingCharacters => "unexpected characters after the document",
            ErrorKind::Misuse => "reader used out of order (internal error)",
        }
    }
}

/// A JSON error and where it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset in the input.
    pub offset: usize,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.kind.message())
    }
}

impl core::error::Error for JsonError {}

/// The kind of the next value, as decided by its first byte.
#[allow(missing_docs)] // the JSON value kinds
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

const REPLACEMENT: char = '\u{FFFD}';

/// A validated JSON string exactly as it appears in the input, minus the quotes.
/// Keeping the escaped form means no allocation is needed; decoding happens lazily.
#[derive(Clone, Copy, Debug)]
pub struct Str<'a> {
    raw: &'a str,
    escaped: bool,
}

impl Str<'static> {
    /// The empty string.
    pub const EMPTY: Str<'static> = Str { raw: "", escaped: false };
}

impl<'a> Str<'a> {
    /// The escaped form: valid JSON string content, so writing it between quotes
    /// reproduces a valid JSON string.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The decoded characters.
    pub fn chars(&self) -> impl Iterator<Item = char> + 'a {
        Decode { rest: self.raw.chars() }
    }

    /// `true` when the decoded text equals `s`.
    pub fn eq_str(&self, s: &str) -> bool {
        if self.escaped {
            self.chars().eq(s.chars())
        } else {
            self.raw == s
        }
    }

    /// The text when it has no escapes.
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.escaped {
            None
        } else {
            Some(self.raw)
        }
    }

    /// UTF-8 byte length once decoded.
    pub fn decoded_len(&self) -> usize {
        if self.escaped {
            self.chars().map(char::len_utf8).sum()
        } else {
            self.raw.len()
        }
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.escaped {
            return f.write_str(self.raw);
        }
        for c in self.chars() {
            f.write_char(c)?;
        }
        Ok(())
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        if !self.escaped && !other.escaped {
            self.raw == other.raw
        } else {
            self.chars().eq(other.chars())
        }
    }
}

impl Eq for Str<'_> {}

/// Decodes escapes of an already validated string; the replacement character
/// only shows up if that invariant were ever broken, instead of panicking.
struct Decode<'a> {
    rest: core::str::Chars<'a>,
}

fn hex4_chars(it: &mut core::str::Chars<'_>) -> Option<u32> {
    let mut v = 0u32;
    for _ in 0..4 {
        v = (v << 4) | it.next()?.to_digit(16)?;
    }
    Some(v)
}

impl Decode<'_> {
    fn unicode(&mut self) -> char {
        match hex4_chars(&mut self.rest) {
            Some(hi @ 0xD800..=0xDBFF) => {
                let mut look = self.rest.clone();
                if look.next() == Some('\\') && look.next() == Some('u') {
                    if let Some(lo @ 0xDC00..=0xDFFF) = hex4_chars(&mut look) {
                        self.rest = look;
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        return char::from_u32(c).unwrap_or(REPLACEMENT);
                    }
                }
                REPLACEMENT
            }
            Some(c) => char::from_u32(c).unwrap_or(REPLACEMENT),
            None => REPLACEMENT,
        }
    }
}

impl Iterator for Decode<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let c = self.rest.next()?;
        if c != '\\' {
            return Some(c);
        }
        Some(match self.rest.next() {
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('u') => self.unicode(),
            Some(other) => other,
            None => REPLACEMENT,
        })
    }
}

mod read;
mod write;

pub use read::Reader;
pub use write::{NumberText, Writer};

#[cfg(test)]
mod tests;
