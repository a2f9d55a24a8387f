//! The one error type of the crate, its kinds kept by domain.
//!
//! Small and `Copy`, with a private kind: callers match on [`Error::code`] (stable
//! numbers, used by the C library's status enum) and show the [`Display`](core::fmt::Display)
//! message, which names the input and its valid range. The kinds live with their domain:
//! [`input`] (a platform's values: costs, counts, parameters), [`limit`] (capacities, work
//! budgets, number ranges), [`document`] (reading JSON documents), and a model's own
//! errors, which each model declares in its folder as a `Template` (`scatter::errors`,
//! `returns::errors`), so a new model adds its errors without touching this layer.

mod document;
mod input;
mod limit;

use crate::num::Plain;
use core::fmt;

#[cfg_attr(not(feature = "doc"), allow(unused_imports))]
pub(crate) use document::Detail;
pub use input::Field;

/// Stable error categories. The numbers are the C library's status codes and are never
/// reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u32)]
pub enum ErrorCode {
    /// A cost, count or option is outside its valid range.
    InvalidInput = 2,
    /// A caller-provided buffer is too small; the message says how large it must be.
    BufferTooSmall = 3,
    /// A number is too large for the requested type (item count, fixed-point overflow,
    /// C `int`).
    Overflow = 4,
    /// A platform document is not valid JSON or does not follow the schema.
    Json = 5,
}

/// An error from planning, rounding, or reading a platform file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Error {
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Input(input::Input),
    Limit(limit::Limit),
    #[cfg_attr(not(feature = "doc"), allow(dead_code))]
    Document(document::Document),
    Model(Template),
}

/// A model's own error: its code and a message with up to three integers, a real and a
/// word, written where the template says `{0}`, `{1}`, `{2}`, `{r}` and `{w}` (a model's
/// folder declares its templates, next to the checks that raise them). Data rather than a
/// formatting function, so that an error stays `Copy` and comparable and the messages
/// share one writer; no larger than a document error, so that `Result`s do not grow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Template {
    code: ErrorCode,
    text: &'static str,
    word: &'static str,
    ints: [u64; 3],
    real: f64,
}

impl Template {
    /// A message with no values.
    pub(crate) const fn new(code: ErrorCode, text: &'static str) -> Template {
        Template { code, text, word: "", ints: [0; 3], real: 0.0 }
    }
    /// `{0}`, `{1}`, `{2}`: indexes, counts, items.
    pub(crate) const fn ints(self, ints: [u64; 3]) -> Template {
        Template { ints, ..self }
    }
    /// `{r}`: a value as given.
    pub(crate) const fn real(self, real: f64) -> Template {
        Template { real, ..self }
    }
    /// `{w}`: a word (which list, which part).
    pub(crate) const fn word(self, word: &'static str) -> Template {
        Template { word, ..self }
    }
    pub(crate) const fn error(self) -> Error {
        Error { kind: Kind::Model(self) }
    }
}

impl Error {
    /// The stable category of this error.
    pub fn code(&self) -> ErrorCode {
        match self.kind {
            Kind::Input(_) => ErrorCode::InvalidInput,
            Kind::Limit(l) => l.code(),
            Kind::Document(_) => ErrorCode::Json,
            Kind::Model(t) => t.code,
        }
    }

    /// For [`ErrorCode::BufferTooSmall`]: how many elements (or bytes) the buffer needs.
    pub fn needed(&self) -> Option<usize> {
        match self.kind {
            Kind::Limit(l) => l.needed(),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Input(e) => e.fmt(f),
            Kind::Limit(e) => e.fmt(f),
            Kind::Document(e) => e.fmt(f),
            Kind::Model(t) => t.fmt(f),
        }
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.text;
        // A byte search rather than `str::find`/`split_once`, which link `memchr` into the
        // wasm module.
        while let Some(open) = rest.bytes().position(|b| b == b'{') {
            let (text, tail) = rest.split_at_checked(open).unwrap_or((rest, ""));
            f.write_str(text)?;
            let closed = tail.as_bytes().get(2) == Some(&b'}');
            match tail.as_bytes().get(1) {
                Some(&d @ b'0'..=b'2') if closed => {
                    write!(f, "{}", self.ints.get(usize::from(d - b'0')).copied().unwrap_or(0))?
                }
                Some(b'r') if closed => write!(f, "{}", Plain(self.real))?,
                Some(b'w') if closed => f.write_str(self.word)?,
                _ => {
                    f.write_str("{")?;
                    rest = tail.get(1..).unwrap_or("");
                    continue;
                }
            }
            rest = tail.get(3..).unwrap_or("");
        }
        f.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Buf {
        b: [u8; 200],
        n: usize,
    }
    impl fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.n + s.len();
            self.b.get_mut(self.n..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
            self.n = end;
            Ok(())
        }
    }
    fn text(e: Error) -> Buf {
        let mut b = Buf { b: [0; 200], n: 0 };
        let _ = fmt::write(&mut b, format_args!("{e}"));
        b
    }

    #[test]
    fn messages_name_the_input_and_the_range() {
        let b = text(Error::cost(3, Field::COMP_PER_ITEM, f64::NAN));
        assert_eq!(&b.b[..b.n], b"worker 3: comp_per_item must be finite and > 0, got NaN");
        let b = text(Error::cost(0, Field::COMM_LATENCY, -1.0));
        assert_eq!(&b.b[..b.n], b"worker 0: comm_latency must be finite and >= 0, got -1");
        assert_eq!(Error::buffer("plan", 16, 4).needed(), Some(16));
        assert_eq!(Error::buffer("plan", 16, 4).code(), ErrorCode::BufferTooSmall);
        assert_eq!(Error::too_many_items(1 << 30, 1 << 24, "f32").code(), ErrorCode::Overflow);
    }

    #[test]
    fn templates_write_their_values() {
        let e =
            Template::new(ErrorCode::InvalidInput, "{w}[{0}]: worker {1} of {2}, got {r}; {x} and {9} stay")
                .ints([4, 7, 9])
                .real(0.5)
                .word("send")
                .error();
        let b = text(e);
        assert_eq!(&b.b[..b.n], b"send[4]: worker 7 of 9, got 0.5; {x} and {9} stay");
        assert_eq!(e.code(), ErrorCode::InvalidInput);
        let b = text(Template::new(ErrorCode::Overflow, "ends {").error());
        assert_eq!(&b.b[..b.n], b"ends {");
        assert!(core::mem::size_of::<Template>() <= core::mem::size_of::<document::Document>());
    }
}
