//! A strict, allocation-free JSON (RFC 8259) pull reader and a counting writer.
//! The reader walks a byte slice token by token and hands out borrowed, validated
//! strings, so callers decide what to keep; anything RFC 8259 does not allow is an
//! error carrying the byte offset where it was found, and any cut-off prefix of a
//! valid document reports `Truncated` so callers can say "truncated document"
//! reliably. Nesting is bounded by `MAX_DEPTH` and skipping is iterative, so
//! hostile input cannot exhaust the stack. The writer fills a caller buffer and
//! keeps counting past its end, so a too-small buffer yields the exact size needed.

#![forbid(unsafe_code)]

#[cfg(any(target_arch = "wasm32", target_os = "none", fuzzing))]
use crate::num::parse;
use crate::num::{Plain, Sci};
use crate::Error;
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    True,
    False,
    Null,
}

struct Number<'a> {
    start: usize,
    text: &'a [u8],
    negative: bool,
    integer: bool,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn hex_value(b: u8) -> Option<u32> {
    char::from(b).to_digit(16)
}

/// Pull reader over one JSON document.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
    /// Bit `i` set means nesting level `i` is an object, so closers can be matched
    /// without recursion or allocation.
    stack: u128,
    /// True right after `[` or `{`: the container may still close without a comma.
    first: bool,
}

impl<'a> Reader<'a> {
    /// A reader (or writer) over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0, depth: 0, stack: 0, first: false }
    }

    /// The current byte offset.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The bytes from offset `start` to the current one (empty if `start` is past it).
    pub fn since(&self, start: usize) -> &'a [u8] {
        self.bytes.get(start..self.pos).unwrap_or(&[])
    }

    fn err(offset: usize, kind: ErrorKind) -> JsonError {
        JsonError { offset, kind }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek_byte(&mut self) -> Result<u8, JsonError> {
        self.skip_ws();
        self.bytes.get(self.pos).copied().ok_or(Self::err(self.pos, ErrorKind::Truncated))
    }

    fn in_object(&self) -> Option<bool> {
        let top = self.depth.checked_sub(1)?;
        let bit = 1u128.checked_shl(top).unwrap_or(0);
        Some(self.stack & bit != 0)
    }

    fn push(&mut self, object: bool) -> Result<(), JsonError> {
        if self.depth >= MAX_DEPTH {
            return Err(Self::err(self.pos, ErrorKind::Depth));
        }
        let bit = 1u128.checked_shl(self.depth).unwrap_or(0);
        if object {
            self.stack |= bit;
        } else {
            self.stack &= !bit;
        }
        self.depth += 1;
        self.pos += 1;
        self.first = true;
        Ok(())
    }

    fn pop(&mut self) {
        self.pos += 1;
        self.depth = self.depth.saturating_sub(1);
        // The closed container was itself a value of its parent, so the parent
        // now needs a comma before anything else.
        self.first = false;
    }

    /// Expects `{` (after whitespace) and enters the object.
    pub fn begin_object(&mut self) -> Result<(), JsonError> {
        match self.peek_byte()? {
            b'{' => self.push(true),
            _ => Err(Self::err(self.pos, ErrorKind::ExpectedObject)),
        }
    }

    /// Expects `[` and enters the array.
    pub fn begin_array(&mut self) -> Result<(), JsonError> {
        match self.peek_byte()? {
            b'[' => self.push(false),
            _ => Err(Self::err(self.pos, ErrorKind::ExpectedArray)),
        }
    }

    /// Consumes the separator (or the closing `}`) and the key with its colon.
    /// Returns the key and the offset of its opening quote.
    pub fn next_key(&mut self) -> Result<Option<(Str<'a>, usize)>, JsonError> {
        if self.in_object() != Some(true) {
            return Err(Self::err(self.pos, ErrorKind::Misuse));
        }
        let mut b = self.peek_byte()?;
        if b == b'}' {
            self.pop();
            return Ok(None);
        }
        if !self.first {
            if b != b',' {
                return Err(Self::err(self.pos, ErrorKind::ExpectedCommaOrEnd));
            }
            let comma = self.pos;
            self.pos += 1;
            b = self.peek_byte()?;
            if b == b'}' {
                return Err(Self::err(comma, ErrorKind::TrailingComma));
            }
        }
        self.first = false;
        let at = self.pos;
        let key = match b {
            b'"' => self.scan_string()?,
            b'\'' => return Err(Self::err(at, ErrorKind::SingleQuote)),
            _ => return Err(Self::err(at, ErrorKind::ExpectedKey)),
        };
        if self.peek_byte()? != b':' {
            return Err(Self::err(self.pos, ErrorKind::ExpectedColon));
        }
        self.pos += 1;
        Ok(Some((key, at)))
    }

    /// True when a value follows (the caller must then read or skip it).
    pub fn next_element(&mut self) -> Result<bool, JsonError> {
        if self.in_object() != Some(false) {
            return Err(Self::err(self.pos, ErrorKind::Misuse));
        }
        let b = self.peek_byte()?;
        if b == b']' {
            self.pop();
            return Ok(false);
        }
        if !self.first {
            if b != b',' {
                return Err(Self::err(self.pos, ErrorKind::ExpectedCommaOrEnd));
            }
            let comma = self.pos;
            self.pos += 1;
            if self.peek_byte()? == b']' {
                return Err(Self::err(comma, ErrorKind::TrailingComma));
            }
        }
        self.first = false;
        Ok(true)
    }

    /// Reads a string value.
    pub fn string(&mut self) -> Result<Str<'a>, JsonError> {
        match self.peek_byte()? {
            b'"' => self.scan_string(),
            b'\'' => Err(Self::err(self.pos, ErrorKind::SingleQuote)),
            _ => Err(Self::err(self.pos, ErrorKind::ExpectedString)),
        }
    }

    /// Reads a number (strict grammar, finite).
    pub fn f64(&mut self) -> Result<f64, JsonError> {
        let n = self.number_token()?;
        let x = number_value(n.text).ok_or(Self::err(n.start, ErrorKind::InvalidNumber))?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(Self::err(n.start, ErrorKind::NumberOutOfRange))
        }
    }

    /// Reads a whole, non-negative number that fits `u64`.
    pub fn u64(&mut self) -> Result<u64, JsonError> {
        let n = self.number_token()?;
        if n.negative {
            return Err(Self::err(n.start, ErrorKind::Negative));
        }
        if !n.integer {
            return Err(Self::err(n.start, ErrorKind::NotWholeNumber));
        }
        let mut v = 0u64;
        for &d in n.text {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(d.wrapping_sub(b'0'))))
                .ok_or(Self::err(n.start, ErrorKind::IntegerOutOfRange))?;
        }
        Ok(v)
    }

    /// Reads `true` or `false`.
    pub fn bool(&mut self) -> Result<bool, JsonError> {
        let b = self.peek_byte()?;
        if !b.is_ascii_alphabetic() {
            return Err(Self::err(self.pos, ErrorKind::ExpectedBool));
        }
        let (word, end) = self.scan_word()?;
        let v = match word {
            Word::True => true,
            Word::False => false,
            Word::Null => return Err(Self::err(self.pos, ErrorKind::ExpectedBool)),
        };
        self.pos = end;
        Ok(v)
    }

    /// The kind of the next value.
    pub fn peek(&mut self) -> Result<Kind, JsonError> {
        let b = self.peek_byte()?;
        match b {
            b'{' => Ok(Kind::Object),
            b'[' => Ok(Kind::Array),
            b'"' => Ok(Kind::String),
            b'-' | b'0'..=b'9' => Ok(Kind::Number),
            b't' | b'f' => Ok(Kind::Bool),
            b'n' => Ok(Kind::Null),
            b'.' | b'+' => Err(Self::err(self.pos, ErrorKind::InvalidNumber)),
            b'\'' => Err(Self::err(self.pos, ErrorKind::SingleQuote)),
            _ if b.is_ascii_alphabetic() => match self.scan_word() {
                Err(e) => Err(e),
                Ok(_) => Err(Self::err(self.pos, ErrorKind::ExpectedValue)),
            },
            _ => Err(Self::err(self.pos, ErrorKind::ExpectedValue)),
        }
    }

    /// Validates and skips one value of any kind. Iterative: containers are
    /// tracked on the same bracket stack as the caller's, so the depth limit
    /// applies to the whole document.
    pub fn skip_value(&mut self) -> Result<(), JsonError> {
        let base = self.depth;
        loop {
            match self.peek()? {
                Kind::Object => self.begin_object()?,
                Kind::Array => self.begin_array()?,
                Kind::String => {
                    self.scan_string()?;
                }
                Kind::Number => {
                    self.scan_number()?;
                }
                Kind::Bool | Kind::Null => {
                    let (_, end) = self.scan_word()?;
                    self.pos = end;
                }
            }
            loop {
                if self.depth <= base {
                    return Ok(());
                }
                let more = if self.in_object() == Some(true) {
                    self.next_key()?.is_some()
                } else {
                    self.next_element()?
                };
                if more {
                    break;
                }
            }
        }
    }

    /// Only whitespace may follow the document.
    pub fn end(&mut self) -> Result<(), JsonError> {
        self.skip_ws();
        let at_end = self.pos >= self.bytes.len();
        if self.depth > 0 {
            let kind = if at_end { ErrorKind::Truncated } else { ErrorKind::Misuse };
            return Err(Self::err(self.pos, kind));
        }
        if at_end {
            Ok(())
        } else {
            Err(Self::err(self.pos, ErrorKind::TrailingCharacters))
        }
    }

    /// Reads a bare word at `pos` without consuming it; returns the literal and
    /// where it ends. A cut-off literal at the end of input counts as truncation.
    fn scan_word(&self) -> Result<(Word, usize), JsonError> {
        let start = self.pos;
        let mut end = start;
        while self.bytes.get(end).copied().is_some_and(is_word_byte) {
            end += 1;
        }
        let word = self.bytes.get(start..end).unwrap_or(&[]);
        match word {
            b"true" => return Ok((Word::True, end)),
            b"false" => return Ok((Word::False, end)),
            b"null" => return Ok((Word::Null, end)),
            _ => {}
        }
        let literals: [&[u8]; 3] = [b"true", b"false", b"null"];
        if end >= self.bytes.len() && !word.is_empty() && literals.iter().any(|l| l.starts_with(word)) {
            return Err(Self::err(end, ErrorKind::Truncated));
        }
        let numberish = [&b"nan"[..], b"inf", b"infinity"].iter().any(|w| w.eq_ignore_ascii_case(word));
        let kind = if numberish { ErrorKind::InvalidNumber } else { ErrorKind::BareWord };
        Err(Self::err(start, kind))
    }

    fn number_token(&mut self) -> Result<Number<'a>, JsonError> {
        let b = self.peek_byte()?;
        match b {
            b'-' | b'0'..=b'9' => self.scan_number(),
            b'.' | b'+' => Err(Self::err(self.pos, ErrorKind::InvalidNumber)),
            _ if b.is_ascii_alphabetic() => match self.scan_word() {
                Err(e) => Err(e),
                Ok(_) => Err(Self::err(self.pos, ErrorKind::ExpectedNumber)),
            },
            _ => Err(Self::err(self.pos, ErrorKind::ExpectedNumber)),
        }
    }

    fn digits(&self, mut i: usize) -> usize {
        while self.bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    }

    /// At least one digit must be at `i`; end of input there is truncation.
    fn required_digits(&self, i: usize, start: usize) -> Result<usize, JsonError> {
        match self.bytes.get(i) {
            None => Err(Self::err(i, ErrorKind::Truncated)),
            Some(b) if b.is_ascii_digit() => Ok(self.digits(i + 1)),
            Some(_) => Err(Self::err(start, ErrorKind::InvalidNumber)),
        }
    }

    fn scan_number(&mut self) -> Result<Number<'a>, JsonError> {
        let start = self.pos;
        let mut i = start;
        let negative = self.bytes.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        i = match self.bytes.get(i) {
            None => return Err(Self::err(i, ErrorKind::Truncated)),
            Some(b'0') => i + 1,
            Some(b'1'..=b'9') => self.digits(i + 1),
            Some(_) => return Err(Self::err(start, ErrorKind::InvalidNumber)),
        };
        let int_end = i;
        if self.bytes.get(i) == Some(&b'.') {
            i = self.required_digits(i + 1, start)?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = self.bytes.get(i) {
                i += 1;
            }
            i = self.required_digits(i, start)?;
        }
        match self.bytes.get(i) {
            // More digits may have followed in the full document, and the value
            // cannot be complete anyway while a container is still open.
            None if self.depth > 0 => return Err(Self::err(i, ErrorKind::Truncated)),
            // Catches "05", "0x1", "1.2.3", "1e5e": RFC 8259 numbers are always
            // followed by whitespace or structure.
            Some(&b) if is_word_byte(b) || matches!(b, b'.' | b'+' | b'-') => {
                return Err(Self::err(start, ErrorKind::InvalidNumber));
            }
            _ => {}
        }
        self.pos = i;
        Ok(Number { start, text: self.bytes.get(start..i).unwrap_or(&[]), negative, integer: int_end == i })
    }

    fn hex4(&self, at: usize, escape: usize) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for i in at..at + 4 {
            let b = self.bytes.get(i).ok_or(Self::err(i, ErrorKind::Truncated))?;
            let d = hex_value(*b).ok_or(Self::err(escape, ErrorKind::InvalidEscape))?;
            v = (v << 4) | d;
        }
        Ok(v)
    }

    /// Validates the escape whose backslash is at `i`; returns the index after it.
    fn escape(&self, i: usize) -> Result<usize, JsonError> {
        match self.bytes.get(i + 1) {
            None => Err(Self::err(i + 1, ErrorKind::Truncated)),
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(i + 2),
            Some(b'u') => match self.hex4(i + 2, i)? {
                0xD800..=0xDBFF => {
                    // Truncation must win over "lone surrogate" so that a cut
                    // inside a pair still reads as a cut.
                    let low = i + 6;
                    match self.bytes.get(low) {
                        None => return Err(Self::err(low, ErrorKind::Truncated)),
                        Some(b'\\') => {}
                        Some(_) => return Err(Self::err(i, ErrorKind::LoneSurrogate)),
                    }
                    match self.bytes.get(low + 1) {
                        None => return Err(Self::err(low + 1, ErrorKind::Truncated)),
                        Some(b'u') => {}
                        Some(_) => return Err(Self::err(i, ErrorKind::LoneSurrogate)),
                    }
                    match self.hex4(low + 2, low)? {
                        0xDC00..=0xDFFF => Ok(low + 6),
                        _ => Err(Self::err(i, ErrorKind::LoneSurrogate)),
                    }
                }
                0xDC00..=0xDFFF => Err(Self::err(i, ErrorKind::LoneSurrogate)),
                _ => Ok(i + 6),
            },
            Some(_) => Err(Self::err(i, ErrorKind::InvalidEscape)),
        }
    }

    /// `pos` is at the opening quote.
    fn scan_string(&mut self) -> Result<Str<'a>, JsonError> {
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            match self.bytes.get(i) {
                None => return Err(Self::err(i, ErrorKind::Truncated)),
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    i = self.escape(i)?;
                }
                Some(0..=0x1F) => return Err(Self::err(i, ErrorKind::ControlCharacter)),
                Some(_) => i += 1,
            }
        }
        // UTF-8 is checked only once the closing quote is found: a multi-byte
        // character cut by the end of input must report truncation. A quote byte
        // never occurs inside a multi-byte sequence, so the scan above is sound.
        let content = self.bytes.get(start..i).unwrap_or(&[]);
        let raw = core::str::from_utf8(content)
            .map_err(|e| Self::err(start + e.valid_up_to(), ErrorKind::InvalidUtf8))?;
        self.pos = i + 1;
        Ok(Str { raw, escaped })
    }
}

/// The `f64` nearest to a number's text. In wasm and on bare metal through
/// [`crate::num::parse`], which leaves out `core`'s Eisel–Lemire path and its 10 KB table
/// (issue 14); elsewhere through `str::parse`, the same bits (the unit test
/// `parse_is_that_of_core` holds the two to it) and faster on 17-digit numbers, whose
/// exact comparisons cost the small parser about 200 ns each. Fuzzing builds take the
/// small parser, so that the fuzzers run what the page runs.
fn number_value(text: &[u8]) -> Option<f64> {
    #[cfg(any(target_arch = "wasm32", target_os = "none", fuzzing))]
    return parse(text);
    #[cfg(not(any(target_arch = "wasm32", target_os = "none", fuzzing)))]
    return core::str::from_utf8(text).ok()?.parse().ok();
}

/// A number as the [`Writer`] writes it: the shortest text that reads back to the same
/// `f64`, in plain notation from 1e-5 to 1e16 (and for zero), in exponent notation
/// (`2.5e-7`, `1e16`) outside, `null` for NaN and infinities. For front ends that build
/// JSON text of their own.
///
/// ```
/// use divload::doc::json::NumberText;
/// assert_eq!(format!("{}", NumberText(0.1 + 0.2)), "0.30000000000000004");
/// assert_eq!(format!("{}", NumberText(2.5e-7)), "2.5e-7");
/// assert_eq!(format!("{}", NumberText(f64::NAN)), "null");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NumberText(pub f64);

impl fmt::Display for NumberText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if !x.is_finite() {
            f.write_str("null")
        } else if x == 0.0 || (1e-5..1e16).contains(&x.abs()) {
            fmt::Display::fmt(&Plain(x), f)
        } else {
            fmt::Display::fmt(&Sci(x), f)
        }
    }
}

/// Writes JSON into a fixed buffer and keeps counting once it is full, so the
/// caller learns the exact size to retry with.
#[derive(Debug)]
pub struct Writer<'b> {
    buf: &'b mut [u8],
    len: usize,
    depth: u32,
    /// Bit `i` set means level `i` already holds an item, so the next one needs a
    /// comma. Levels beyond 64 are not tracked (callers never nest that deep).
    commas: u64,
    after_key: bool,
    /// The last key written: what a number that follows it is called.
    key: &'static str,
    /// The key of the first number that was not finite (NaN or an infinity), which
    /// [`Writer::end`] turns into an error rather than a `null` in the document.
    beyond: Option<&'static str>,
}

/// Lets `core::fmt` format numbers straight into the counting buffer.
struct Sink<'w, 'b>(&'w mut Writer<'b>);

impl fmt::Write for Sink<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.put(s.as_bytes());
        Ok(())
    }
}

fn hex_digit(n: u8) -> u8 {
    b"0123456789abcdef".get(usize::from(n & 15)).copied().unwrap_or(b'0')
}

impl<'b> Writer<'b> {
    /// A writer into `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        Writer { buf, len: 0, depth: 0, commas: 0, after_key: false, key: "", beyond: None }
    }

    fn put(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        // Once one piece does not fit, no later piece can, so the buffer holds
        // a clean prefix and `len` alone carries the count.
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            dst.copy_from_slice(bytes);
        }
        self.len = end;
    }

    fn top_bit(&self) -> u64 {
        self.depth.checked_sub(1).and_then(|top| 1u64.checked_shl(top)).unwrap_or(0)
    }

    fn separate(&mut self) {
        let bit = self.top_bit();
        if self.commas & bit != 0 {
            self.put(b",");
        }
        self.commas |= bit;
    }

    fn before_value(&mut self) {
        if self.after_key {
            self.after_key = false;
        } else {
            self.separate();
        }
    }

    fn open(&mut self, bracket: &[u8]) {
        self.before_value();
        self.put(bracket);
        self.depth = self.depth.saturating_add(1);
        self.commas &= !self.top_bit();
    }

    fn close(&mut self, bracket: &[u8]) {
        self.put(bracket);
        self.depth = self.depth.saturating_sub(1);
        self.after_key = false;
    }

    /// Writes `{`.
    pub fn begin_object(&mut self) {
        self.open(b"{");
    }

    /// Writes `}`.
    pub fn end_object(&mut self) {
        self.close(b"}");
    }

    /// Writes `[`.
    pub fn begin_array(&mut self) {
        self.open(b"[");
    }

    /// Writes `]`.
    pub fn end_array(&mut self) {
        self.close(b"]");
    }

    /// Writes an escaped key and `:`, after a comma when needed.
    pub fn key(&mut self, k: &'static str) {
        self.key = k;
        self.separate();
        self.put_quoted(k);
        self.put(b":");
        self.after_key = true;
    }

    /// Writes an escaped string.
    pub fn str(&mut self, s: &str) {
        self.before_value();
        self.put_quoted(s);
    }

    /// Writes a key read from a document, as it was spelt, and `:`.
    pub fn raw_key(&mut self, k: Str<'_>) {
        self.separate();
        self.put(b"\"");
        self.put(k.raw().as_bytes());
        self.put(b"\":");
        self.after_key = true;
    }

    /// Writes a value that is already JSON text (a value read from a document, checked by
    /// the caller), as it is.
    pub fn raw_value(&mut self, json: &[u8]) {
        self.before_value();
        self.put(json);
    }

    /// Writes a string read from a document, as it was spelt.
    pub fn raw_str(&mut self, s: Str<'_>) {
        self.before_value();
        self.put(b"\"");
        self.put(s.raw().as_bytes());
        self.put(b"\"");
    }

    /// Writes `"key": number` for each pair, in order.
    pub fn numbers(&mut self, fields: &[(&'static str, f64)]) {
        for &(k, x) in fields {
            self.key(k);
            self.f64(x);
        }
    }

    /// Shortest round-trip text; plain notation only where it stays short ([`NumberText`]).
    /// NaN and the infinities are written as `null`, and [`Writer::end`] reports the
    /// first of them as an error naming its key.
    pub fn f64(&mut self, x: f64) {
        if !x.is_finite() && self.beyond.is_none() {
            self.beyond = Some(self.key);
        }
        self.before_value();
        let _ = write!(Sink(self), "{}", NumberText(x));
    }

    /// Writes a whole number.
    pub fn u64(&mut self, x: u64) {
        self.before_value();
        let _ = write!(Sink(self), "{x}");
    }

    /// Writes `true` or `false`.
    pub fn bool(&mut self, b: bool) {
        self.before_value();
        self.put(if b { b"true" } else { b"false" });
    }

    /// Writes `null`.
    pub fn null(&mut self) {
        self.before_value();
        self.put(b"null");
    }

    /// Bytes the document needs so far, including any past the buffer's end.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` before anything is written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The length of a document `what` (a result, a timeline) that keeps the promise of
    /// every result: no number is `null`. A time or ratio beyond `f64` is
    /// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) naming its key; a buffer too
    /// small is [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) with the
    /// exact length needed.
    ///
    /// # Errors
    ///
    /// As above.
    pub fn end(self, what: &'static str) -> Result<usize, Error> {
        if let Some(key) = self.beyond {
            return Err(Error::time_overflow(key, "give smaller costs or times in a larger unit"));
        }
        let got = self.buf.len();
        self.finish().map_err(|needed| Error::buffer(what, needed, got))
    }

    /// `Ok(len)` if everything fit, otherwise `Err(exact size needed)`.
    pub fn finish(self) -> Result<usize, usize> {
        if self.len <= self.buf.len() {
            Ok(self.len)
        } else {
            Err(self.len)
        }
    }

    fn put_quoted(&mut self, s: &str) {
        self.put(b"\"");
        let bytes = s.as_bytes();
        let mut run = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let short: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0C => b"\\f",
                0..=0x1F => b"",
                _ => continue,
            };
            self.put(bytes.get(run..i).unwrap_or(&[]));
            if short.is_empty() {
                self.put(&[b'\\', b'u', b'0', b'0', hex_digit(b >> 4), hex_digit(b)]);
            } else {
                self.put(short);
            }
            run = i + 1;
        }
        self.put(bytes.get(run..).unwrap_or(&[]));
        self.put(b"\"");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::{String, ToString};
    use std::vec::Vec;
    use std::{format, vec};

    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn skip_doc(doc: &[u8]) -> Result<(), JsonError> {
        let mut r = Reader::new(doc);
        r.skip_value()?;
        r.end()
    }

    fn fail(doc: &[u8]) -> (ErrorKind, usize) {
        let e = skip_doc(doc).expect_err(&String::from_utf8_lossy(doc));
        (e.kind, e.offset)
    }

    fn fails(doc: &str, kind: ErrorKind, offset: usize) {
        assert_eq!(fail(doc.as_bytes()), (kind, offset), "document {doc:?}");
    }

    /// Reads every value through the typed API, the way callers do.
    fn walk(r: &mut Reader<'_>) -> Result<(), JsonError> {
        match r.peek()? {
            Kind::Object => {
                r.begin_object()?;
                while let Some((k, _)) = r.next_key()? {
                    let _ = k.decoded_len();
                    walk(r)?;
                }
            }
            Kind::Array => {
                r.begin_array()?;
                while r.next_element()? {
                    walk(r)?;
                }
            }
            Kind::String => {
                r.string()?;
            }
            Kind::Number => {
                r.f64()?;
            }
            Kind::Bool => {
                r.bool()?;
            }
            Kind::Null => r.skip_value()?,
        }
        Ok(())
    }

    fn walk_doc(doc: &[u8]) -> Result<(), JsonError> {
        let mut r = Reader::new(doc);
        walk(&mut r)?;
        r.end()
    }

    /// Reads objects field by field with begin_object/next_key, skipping values.
    fn object_fields(doc: &[u8]) -> Result<usize, JsonError> {
        let mut r = Reader::new(doc);
        r.begin_object()?;
        let mut n = 0;
        while r.next_key()?.is_some() {
            r.skip_value()?;
            n += 1;
        }
        r.end()?;
        Ok(n)
    }

    const DOCS: [&str; 4] = [
        r#"{"name":"caf\u00e9 \ud83d\ude00 ☕ é","n":[0.0096,-1.5e-3,12,0,-0,1E+2,3.25e10],"o":{"a":true,"b":false,"c":null,"d":{},"e":[[],[{}]]},"s":"\"\\\/\b\f\n\r\t"}"#,
        "\n {\n  \"a\" : 0.0096 ,\n\t\"b\": [ 1 , 2.5 , -3e-2 ] ,\r\n  \"c\" : { \"x\" : [ null , true , false , \"\u{10348}x\" ] } \n}\n  ",
        r#"{"k":123,"deep":[[[[{"z":[1,{"y":"\uD834\uDD1E"}]}]]]],"u":"\u0000\u001f\u007F\u20AC"}"#,
        "{}",
    ];

    #[test]
    fn valid_documents_read() {
        for doc in DOCS {
            skip_doc(doc.as_bytes()).unwrap();
            walk_doc(doc.as_bytes()).unwrap();
            object_fields(doc.as_bytes()).unwrap();
        }
        assert_eq!(object_fields(DOCS[0].as_bytes()), Ok(4));
        skip_doc(b"[1,[2,{\"a\":[]}],\"x\"] \t\r\n").unwrap();
        skip_doc(b"-0.5e+7").unwrap();
        skip_doc(b"\"top\"").unwrap();
        skip_doc(b"null").unwrap();
    }

    #[test]
    fn every_prefix_is_truncated() {
        for doc in DOCS {
            let bytes = doc.as_bytes();
            let content_end = doc.trim_end().len();
            for cut in 0..=bytes.len() {
                let p = &bytes[..cut];
                let results = [skip_doc(p), walk_doc(p), object_fields(p).map(|_| ())];
                for res in results {
                    if cut < content_end {
                        let e = res.expect_err("prefix accepted");
                        assert_eq!(e.kind, ErrorKind::Truncated, "cut {cut} of {doc:?}: {e}");
                        assert!(e.offset <= cut);
                    } else {
                        res.unwrap();
                    }
                }
            }
        }
    }

    #[test]
    fn truncation_cases() {
        let t = ErrorKind::Truncated;
        fails("[0", t, 2);
        fails("[0.", t, 3);
        fails("[-", t, 2);
        fails("[1e", t, 3);
        fails("[1e-", t, 4);
        fails("[tru", t, 4);
        fails("[\"\\ud83d", t, 8);
        fails("[\"\\ud83d\\", t, 9);
        fails("[\"\\ud83d\\u", t, 10);
        fails("[\"\\ud83d\\ude0", t, 13);
        fails("[\"\\", t, 3);
        fails("[\"\\u00", t, 6);
        fails("{\"a\"", t, 4);
        fails("{\"a\":", t, 5);
        fails("{\"a\":1,", t, 7);
        fails("", t, 0);
        fails("  ", t, 2);
        assert_eq!(fail(b"[\"\xE2\x82"), (t, 4));
        // A cut-off number whose prefix would overflow is still a cut.
        let big = format!("[1{}", "0".repeat(400));
        assert_eq!(walk_doc(big.as_bytes()).unwrap_err().kind, t);
    }

    #[test]
    fn number_rejections() {
        let n = ErrorKind::InvalidNumber;
        for bad in [
            ".5",
            "+0.5",
            "5.",
            "05",
            "-",
            "1e",
            "1e+",
            "0x1",
            "Infinity",
            "-Infinity",
            "NaN",
            "nan",
            "1.5.2",
            "1e5e",
            "-.5",
            "00",
            "-01",
            "1.e3",
            "1_0",
            "0-1",
        ] {
            fails(&format!("[{bad}]"), n, 1);
            fails(&format!("{{\"k\": {bad}}}"), n, 6);
        }
        fails("[1, 2, 03]", n, 7);
    }

    #[test]
    fn word_and_quote_rejections() {
        fails("[hello]", ErrorKind::BareWord, 1);
        fails("[True]", ErrorKind::BareWord, 1);
        fails("[nul]", ErrorKind::BareWord, 1);
        fails("{\"a\":nul}", ErrorKind::BareWord, 5);
        fails("[truex]", ErrorKind::BareWord, 1);
        fails("[nulls", ErrorKind::BareWord, 1);
        fails("['a']", ErrorKind::SingleQuote, 1);
        fails("{'a':1}", ErrorKind::SingleQuote, 1);
        fails("{\"a\":'b'}", ErrorKind::SingleQuote, 5);
    }

    #[test]
    fn string_rejections() {
        fails("[\"a\u{1}b\"]", ErrorKind::ControlCharacter, 3);
        fails("[\"a\nb\"]", ErrorKind::ControlCharacter, 3);
        fails("[\"\t\"]", ErrorKind::ControlCharacter, 2);
        fails("{\"k\u{0}\":1}", ErrorKind::ControlCharacter, 3);
        for esc in ["\\x", "\\'", "\\U0041", "\\u12G4", "\\a", "\\0", "\\ ", "\\u-123"] {
            fails(&format!("[\"ab{esc}\"]"), ErrorKind::InvalidEscape, 4);
        }
        fails("[\"\\ud800\\u12x4\"]", ErrorKind::InvalidEscape, 8);
        fails("[\"\\ud800\"]", ErrorKind::LoneSurrogate, 2);
        fails("[\"\\udc00\"]", ErrorKind::LoneSurrogate, 2);
        fails("[\"\\uDFFF\\ud800\"]", ErrorKind::LoneSurrogate, 2);
        fails("[\"\\ud800\\u0041\"]", ErrorKind::LoneSurrogate, 2);
        fails("[\"\\ud800\\ud800\"]", ErrorKind::LoneSurrogate, 2);
        fails("[\"x\\ud800x\"]", ErrorKind::LoneSurrogate, 3);
        fails("[\"\\ud800\\n\"]", ErrorKind::LoneSurrogate, 2);
        assert_eq!(fail(b"[\"a\xFF\"]"), (ErrorKind::InvalidUtf8, 3));
        assert_eq!(fail(b"[\"ab\xC0\x80\"]"), (ErrorKind::InvalidUtf8, 4));
        assert_eq!(fail(b"[\"\xED\xA0\x80\"]"), (ErrorKind::InvalidUtf8, 2));
        assert_eq!(fail(b"[\"\xE2\x82\"]"), (ErrorKind::InvalidUtf8, 2));
        assert_eq!(fail(b"{\"\x80\":1}"), (ErrorKind::InvalidUtf8, 2));
    }

    #[test]
    fn structure_rejections() {
        fails("[1,]", ErrorKind::TrailingComma, 2);
        fails("[1 , ]", ErrorKind::TrailingComma, 3);
        fails("{\"a\":1,}", ErrorKind::TrailingComma, 6);
        fails("{\"a\":1,\n}", ErrorKind::TrailingComma, 6);
        fails("[1 2]", ErrorKind::ExpectedCommaOrEnd, 3);
        fails("{\"a\":1 \"b\":2}", ErrorKind::ExpectedCommaOrEnd, 7);
        fails("{\"a\" 1}", ErrorKind::ExpectedColon, 5);
        fails("{\"a\",1}", ErrorKind::ExpectedColon, 4);
        fails("{1:2}", ErrorKind::ExpectedKey, 1);
        fails("{\"a\":1,2:3}", ErrorKind::ExpectedKey, 7);
        fails("{,}", ErrorKind::ExpectedKey, 1);
        fails("[}", ErrorKind::ExpectedValue, 1);
        fails("[,1]", ErrorKind::ExpectedValue, 1);
        fails("{\"a\":}", ErrorKind::ExpectedValue, 5);
        fails("[1}", ErrorKind::ExpectedCommaOrEnd, 2);
        fails("[{\"a\":1]]", ErrorKind::ExpectedCommaOrEnd, 7);
        fails("[[{]]", ErrorKind::ExpectedKey, 3);
        fails("{} x", ErrorKind::TrailingCharacters, 3);
        fails("{}{}", ErrorKind::TrailingCharacters, 2);
        fails("{}]", ErrorKind::TrailingCharacters, 2);
        // Only space, tab, LF and CR are whitespace.
        fails("[\u{c}1]", ErrorKind::ExpectedValue, 1);
        fails("[1\u{b}]", ErrorKind::ExpectedCommaOrEnd, 2);
        fails("\u{feff}{}", ErrorKind::ExpectedValue, 0);
        fails("{\u{a0}}", ErrorKind::ExpectedKey, 1);
    }

    #[test]
    fn typed_reads() {
        let mut r = Reader::new(b" [ 18446744073709551615, 1.5, 1e3, -1, 18446744073709551616, 1e400, -1e400, 1e-400, \"1\", null, 7 ]");
        r.begin_array().unwrap();
        let next = |r: &mut Reader<'_>| assert!(r.next_element().unwrap());
        next(&mut r);
        assert_eq!(r.u64(), Ok(u64::MAX));
        next(&mut r);
        assert_eq!(r.u64().unwrap_err(), JsonError { offset: 25, kind: ErrorKind::NotWholeNumber });
        next(&mut r);
        assert_eq!(r.u64().unwrap_err().kind, ErrorKind::NotWholeNumber);
        next(&mut r);
        assert_eq!(r.u64().unwrap_err(), JsonError { offset: 35, kind: ErrorKind::Negative });
        next(&mut r);
        assert_eq!(r.u64().unwrap_err(), JsonError { offset: 39, kind: ErrorKind::IntegerOutOfRange });
        next(&mut r);
        assert_eq!(r.f64().unwrap_err(), JsonError { offset: 61, kind: ErrorKind::NumberOutOfRange });
        next(&mut r);
        assert_eq!(r.f64().unwrap_err().kind, ErrorKind::NumberOutOfRange);
        next(&mut r);
        assert_eq!(r.f64(), Ok(0.0));
        next(&mut r);
        assert_eq!(r.f64().unwrap_err().kind, ErrorKind::ExpectedNumber);
        assert_eq!(r.u64().unwrap_err().kind, ErrorKind::ExpectedNumber);
        assert_eq!(r.bool().unwrap_err().kind, ErrorKind::ExpectedBool);
        assert_eq!(r.begin_object().unwrap_err().kind, ErrorKind::ExpectedObject);
        assert_eq!(r.begin_array().unwrap_err().kind, ErrorKind::ExpectedArray);
        assert_eq!(r.peek(), Ok(Kind::String));
        assert!(r.string().unwrap().eq_str("1"));
        next(&mut r);
        assert_eq!(r.peek(), Ok(Kind::Null));
        assert_eq!(r.bool().unwrap_err(), JsonError { offset: 89, kind: ErrorKind::ExpectedBool });
        assert_eq!(r.f64().unwrap_err().kind, ErrorKind::ExpectedNumber);
        assert_eq!(r.string().unwrap_err().kind, ErrorKind::ExpectedString);
        r.skip_value().unwrap();
        next(&mut r);
        assert_eq!(r.f64(), Ok(7.0));
        assert!(!r.next_element().unwrap());
        r.end().unwrap();

        let mut r = Reader::new(b"{\"t\":true,\"f\":false,\"x\":[]}");
        r.begin_object().unwrap();
        let (k, at) = r.next_key().unwrap().unwrap();
        assert_eq!((k.raw(), at), ("t", 1));
        assert_eq!(r.next_element().unwrap_err().kind, ErrorKind::Misuse);
        assert_eq!(r.bool(), Ok(true));
        assert_eq!(r.next_key().unwrap().unwrap().1, 10);
        assert_eq!(r.bool(), Ok(false));
        r.next_key().unwrap().unwrap();
        r.begin_array().unwrap();
        assert_eq!(r.next_key().unwrap_err().kind, ErrorKind::Misuse);
        assert!(!r.next_element().unwrap());
        assert_eq!(r.end().unwrap_err().kind, ErrorKind::Misuse);
        assert_eq!(r.next_key(), Ok(None));
        assert_eq!(r.offset(), 27);
        r.end().unwrap();
        assert_eq!(r.peek().unwrap_err().kind, ErrorKind::Truncated);
        assert_eq!(r.next_key().unwrap_err().kind, ErrorKind::Misuse);

        let mut r = Reader::new(b"[NaN, Infinity, nul, tru");
        r.begin_array().unwrap();
        r.next_element().unwrap();
        assert_eq!(r.f64().unwrap_err().kind, ErrorKind::InvalidNumber);
        assert_eq!(r.peek().unwrap_err().kind, ErrorKind::InvalidNumber);
    }

    #[test]
    fn messages() {
        let e = JsonError { offset: 17, kind: ErrorKind::Depth };
        assert_eq!(e.to_string(), "byte 17: nesting deeper than 128");
        assert!(ErrorKind::Depth.message().ends_with(&MAX_DEPTH.to_string()));
        assert_eq!(
            JsonError { offset: 0, kind: ErrorKind::Truncated }.to_string(),
            "byte 0: truncated document (unexpected end)"
        );
    }

    #[test]
    fn depth_limit() {
        let n = 200_000;
        fails(&"[".repeat(n), ErrorKind::Depth, 128);
        fails(&"{\"a\":".repeat(n), ErrorKind::Depth, 128 * 5);
        fails(&"[{\"a\":".repeat(n), ErrorKind::Depth, 64 * 6);
        fails(&"{".repeat(n), ErrorKind::ExpectedKey, 1);
        let deep = "[".repeat(n);
        assert_eq!(walk_doc(deep.as_bytes()).unwrap_err().kind, ErrorKind::Depth);

        let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
        skip_doc(ok.as_bytes()).unwrap();
        let over = format!("{}{}", "[".repeat(129), "]".repeat(129));
        fails(&over, ErrorKind::Depth, 128);

        // The caller's own levels count against the same limit.
        let inner = |levels: usize| format!("{{\"a\":{}{}}}", "[".repeat(levels), "]".repeat(levels));
        for (levels, good) in [(127, true), (128, false)] {
            let doc = inner(levels);
            let mut r = Reader::new(doc.as_bytes());
            r.begin_object().unwrap();
            r.next_key().unwrap().unwrap();
            assert_eq!(r.skip_value().is_ok(), good);
        }

        // Brackets deep in the stack (past bit 64) are still matched.
        let mut doc = String::new();
        for i in 0..126 {
            doc.push_str(if i % 3 == 0 { "{\"k\":" } else { "[" });
        }
        let mut closers = String::new();
        for i in (0..126).rev() {
            closers.push(if i % 3 == 0 { '}' } else { ']' });
        }
        skip_doc(format!("{doc}1{closers}").as_bytes()).unwrap();
        for level in [99usize, 100] {
            let flip = 125 - level;
            let wrong: String = closers
                .char_indices()
                .map(|(i, c)| match (i == flip, c) {
                    (true, '}') => ']',
                    (true, _) => '}',
                    (false, c) => c,
                })
                .collect();
            let doc = format!("{doc}1{wrong}");
            let (kind, at) = fail(doc.as_bytes());
            assert_eq!(kind, ErrorKind::ExpectedCommaOrEnd);
            assert_eq!(at, doc.len() - 126 + flip);
        }
    }

    #[test]
    fn str_api() {
        let doc = r#"["caf\u00e9\n\ud83d\ude00\/", "plain é", "café\n😀/"]"#.as_bytes();
        let mut r = Reader::new(doc);
        r.begin_array().unwrap();
        r.next_element().unwrap();
        let a = r.string().unwrap();
        r.next_element().unwrap();
        let b = r.string().unwrap();
        r.next_element().unwrap();
        let c = r.string().unwrap();
        assert!(!r.next_element().unwrap());
        r.end().unwrap();

        assert_eq!(a.raw(), r"caf\u00e9\n\ud83d\ude00\/");
        assert_eq!(a.as_plain(), None);
        assert!(a.eq_str("café\n😀/"));
        assert!(!a.eq_str("café\n😀"));
        assert_eq!(a.chars().collect::<String>(), "café\n😀/");
        assert_eq!(a.decoded_len(), "café\n😀/".len());
        assert_eq!(format!("{a}"), "café\n😀/");
        assert_eq!(a, c);
        assert_ne!(a, b);
        assert_eq!(b.as_plain(), Some("plain é"));
        assert_eq!(b.decoded_len(), "plain é".len());
        assert_eq!(format!("{b}"), "plain é");
        assert!(b.eq_str("plain é"));

        let esc = br#""\"\\\/\b\f\n\r\t\u0000\u001F\uFFFF\uD834\uDD1E""#;
        let s = Reader::new(esc).string().unwrap();
        assert_eq!(s.chars().collect::<String>(), "\"\\/\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{ffff}\u{1d11e}");
    }

    /// Keys and strings chosen to exercise every escaping rule.
    const NAMES: [&str; 7] = [
        "plain",
        "quote\"inside",
        "back\\slash",
        "ctl\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}",
        "non-ascii é ☕ 😀",
        "",
        "/slash</script>",
    ];

    fn build(w: &mut Writer<'_>, raw: Str<'_>) {
        w.begin_object();
        for (i, name) in NAMES.iter().enumerate() {
            w.key(name);
            w.str(name);
            w.key("n");
            w.u64(i as u64 * 1_000_000_007);
        }
        w.key("list");
        w.begin_array();
        w.f64(0.0096);
        w.f64(-1.3e-8);
        w.f64(2.5e20);
        w.f64(f64::NAN);
        w.bool(true);
        w.bool(false);
        w.null();
        w.begin_object();
        w.end_object();
        w.begin_array();
        w.end_array();
        w.raw_str(raw);
        w.begin_array();
        w.u64(u64::MAX);
        w.begin_object();
        w.key("x");
        w.begin_array();
        w.end_array();
        w.key("y");
        w.f64(-0.0);
        w.end_object();
        w.end_array();
        w.end_array();
        w.key("tail");
        w.str("end");
        w.end_object();
    }

    #[test]
    fn writer_round_trip() {
        let src = br#""a\u00e9\"\ud83d\ude00""#;
        let raw = Reader::new(src).string().unwrap();
        let mut big = [0u8; 4096];
        let mut w = Writer::new(&mut big);
        build(&mut w, raw);
        let n = w.finish().unwrap();
        let out = &big[..n];
        skip_doc(out).unwrap();
        walk_doc(out).unwrap();

        let mut r = Reader::new(out);
        r.begin_object().unwrap();
        for (i, name) in NAMES.iter().enumerate() {
            let (k, _) = r.next_key().unwrap().unwrap();
            assert!(k.eq_str(name), "{k} vs {name:?}");
            assert_eq!(format!("{k}"), *name);
            assert!(r.string().unwrap().eq_str(name));
            assert!(r.next_key().unwrap().unwrap().0.eq_str("n"));
            assert_eq!(r.u64(), Ok(i as u64 * 1_000_000_007));
        }
        assert!(r.next_key().unwrap().unwrap().0.eq_str("list"));
        r.begin_array().unwrap();
        let mut vals = [0.0; 3];
        for v in &mut vals {
            assert!(r.next_element().unwrap());
            *v = r.f64().unwrap();
        }
        assert_eq!(vals, [0.0096, -1.3e-8, 2.5e20]);
        r.next_element().unwrap();
        assert_eq!(r.peek(), Ok(Kind::Null));
        r.skip_value().unwrap();
        for _ in 0..5 {
            r.next_element().unwrap();
            r.skip_value().unwrap();
        }
        r.next_element().unwrap();
        assert_eq!(r.string().unwrap(), raw);
        r.next_element().unwrap();
        r.skip_value().unwrap();
        assert!(!r.next_element().unwrap());
        assert!(r.next_key().unwrap().unwrap().0.eq_str("tail"));
        r.skip_value().unwrap();
        assert_eq!(r.next_key(), Ok(None));
        r.end().unwrap();

        let text = core::str::from_utf8(out).unwrap();
        assert!(text.contains(r#""ctl\n\r\t\b\f\u0000\u001f"#));
        assert!(text.contains(r#"[0.0096,-1.3e-8,2.5e20,null,true,false,null,{},[],"a\u00e9\"\ud83d\ude00",[18446744073709551615,{"x":[],"y":-0}]]"#));
    }

    #[test]
    fn writer_counts_exactly() {
        let src = br#""\u00e9x""#;
        let raw = Reader::new(src).string().unwrap();
        let mut big = [0u8; 4096];
        let mut w = Writer::new(&mut big);
        build(&mut w, raw);
        let full = w.len();
        assert_eq!(w.finish(), Ok(full));

        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let numbers: Vec<f64> =
            (0..40).map(|_| f64::from_bits(rng.next())).filter(|x| x.is_finite()).collect();
        let write_numbers = |w: &mut Writer<'_>| {
            w.begin_array();
            for &x in &numbers {
                w.f64(x);
                w.u64(x.to_bits());
            }
            w.end_array();
        };
        let mut nbig = [0u8; 4096];
        let mut w = Writer::new(&mut nbig);
        write_numbers(&mut w);
        let nfull = w.finish().unwrap();
        skip_doc(&nbig[..nfull]).unwrap();

        for size in 0..=full + 2 {
            let mut buf = vec![0u8; size];
            let mut w = Writer::new(&mut buf);
            build(&mut w, raw);
            let res = w.finish();
            if size >= full {
                assert_eq!(res, Ok(full));
                assert_eq!(&buf[..full], &big[..full]);
            } else {
                assert_eq!(res, Err(full));
            }
        }
        for size in 0..=nfull + 2 {
            let mut buf = vec![0u8; size];
            let mut w = Writer::new(&mut buf);
            write_numbers(&mut w);
            assert!(!w.is_empty());
            let expect = if size >= nfull { Ok(nfull) } else { Err(nfull) };
            assert_eq!(w.finish(), expect, "size {size}");
        }
    }

    fn write_one(x: f64) -> String {
        let mut buf = [0u8; 64];
        let mut w = Writer::new(&mut buf);
        w.f64(x);
        let n = w.finish().unwrap();
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn f64_round_trip() {
        let mut values = vec![
            1e-300,
            5e-324,
            -5e-324,
            1.7976931348623157e308,
            -1.7976931348623157e308,
            0.1,
            403.97523,
            0.0,
            -0.0,
            1e-5,
            9.999999999999999e-6,
            1e16,
            9999999999999998.0,
            2.2250738585072014e-308,
            123456789.0,
        ];
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        while values.len() < 20_000 {
            let x = f64::from_bits(rng.next());
            if x.is_finite() {
                values.push(x);
            }
        }
        for x in values {
            let text = write_one(x);
            let back: f64 = text.parse().unwrap();
            let mut r = Reader::new(text.as_bytes());
            let strict = r.f64().unwrap_or_else(|e| panic!("{text}: {e}"));
            r.end().unwrap();
            assert_eq!(strict.to_bits(), back.to_bits(), "{text}");
            if x == 0.0 {
                assert_eq!(back, 0.0, "{text}");
            } else {
                assert_eq!(back.to_bits(), x.to_bits(), "{x:e} written as {text}");
            }
        }
        assert_eq!(write_one(1.3e-8), "1.3e-8");
        assert_eq!(write_one(2.5e20), "2.5e20");
        assert_eq!(write_one(0.0096), "0.0096");
        assert_eq!(write_one(f64::INFINITY), "null");
        assert_eq!(write_one(f64::NAN), "null");
    }

    #[test]
    fn writer_random_strings_round_trip() {
        let mut rng = XorShift(7);
        let pool = ['a', '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', 'é', '☕', '😀', '/', ' ', '\u{2028}'];
        for _ in 0..2000 {
            let len = rng.below(12);
            // Keys are `'static` (an overflow error names its key): 2 000 small leaks.
            let s: &'static str = String::leak((0..len).map(|_| pool[rng.below(pool.len())]).collect());
            let mut buf = [0u8; 256];
            let mut w = Writer::new(&mut buf);
            w.begin_object();
            w.key(s);
            w.begin_array();
            w.str(s);
            w.str(s);
            w.end_array();
            w.end_object();
            let n = w.finish().unwrap();
            let mut r = Reader::new(&buf[..n]);
            r.begin_object().unwrap();
            let (k, _) = r.next_key().unwrap().unwrap();
            assert!(k.eq_str(s));
            assert_eq!(k.decoded_len(), s.len());
            r.begin_array().unwrap();
            r.next_element().unwrap();
            let v = r.string().unwrap();
            assert_eq!(v, k);
            r.next_element().unwrap();
            r.skip_value().unwrap();
            assert!(!r.next_element().unwrap());
            assert_eq!(r.next_key(), Ok(None));
            r.end().unwrap();
        }
    }

    #[test]
    fn mutations_never_panic() {
        let mut rng = XorShift(0xDEAD_BEEF_CAFE_F00D);
        let interesting =
            b"{}[]\",:\\u0123456789abcdefABCDEF.eE+-tfn \t\n\r\x00\x1f\x7f\x80\xbf\xc0\xe2\xed\xf0\xff'x";
        let mut errors = 0usize;
        for _ in 0..100_000 {
            let mut doc = DOCS[rng.below(DOCS.len())].as_bytes().to_vec();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(doc.len() + 1);
                let byte = if rng.below(4) == 0 {
                    rng.next() as u8
                } else {
                    interesting[rng.below(interesting.len())]
                };
                match rng.below(4) {
                    0 if at < doc.len() => doc[at] = byte,
                    1 => doc.insert(at, byte),
                    2 if at < doc.len() => {
                        doc.remove(at);
                    }
                    _ => doc.truncate(at),
                }
            }
            for res in [skip_doc(&doc), walk_doc(&doc), object_fields(&doc).map(|_| ())] {
                if let Err(e) = res {
                    assert!(e.offset <= doc.len());
                    errors += 1;
                }
            }
        }
        assert!(errors > 100_000);
    }
}
