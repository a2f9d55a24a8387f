//! The pull reader: tokens, strings (validated, borrowed) and numbers, with the byte
//! offset of anything RFC 8259 does not allow.

use super::{ErrorKind, JsonError, Kind, Str, MAX_DEPTH};
#[cfg(any(target_arch = "wasm32", target_os = "none", fuzzing))]
use crate::num::parse;

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
