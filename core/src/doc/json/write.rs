//! The counting writer: fills a caller buffer and keeps counting past its end, so a
//! too-small buffer yields the exact size needed; numbers in their shortest round-trip
//! text.

use super::Str;
use crate::num::{Plain, Sci};
use crate::Error;
use core::fmt::{self, Write as _};

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
