//! The document layer (feature `json`): platform documents in, result documents out, for
//! every model, without allocation.

pub mod json;
pub mod names;
pub mod scatter;

use crate::error::{Detail, Error};
use json::{JsonError, Reader, Str};

/// The keys one kind of JSON object may hold, and how an error lists them.
#[derive(Debug)]
pub(crate) struct Keys {
    pub names: &'static [&'static str],
    /// `"unknown key (expected …)"`, written out once per kind of object.
    pub unknown: &'static str,
}

/// A document being read: the strict reader and the key being read, so that every error
/// names where it happened.
pub(crate) struct Doc<'a> {
    r: Reader<'a>,
    list: &'static str,
    index: usize,
    field: &'static str,
}

impl<'a> Doc<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Doc { r: Reader::new(bytes), list: "", index: usize::MAX, field: "" }
    }

    /// From now on errors are reported at `list[index].field` (`index` `usize::MAX`: none).
    pub fn at(&mut self, list: &'static str, index: usize, field: &'static str) {
        (self.list, self.index, self.field) = (list, index, field);
    }

    pub fn field(&mut self, field: &'static str) {
        self.field = field;
    }

    /// An error at the current key and byte offset.
    pub fn error(&self, message: &'static str, offset: usize) -> Error {
        Error::json(message, Detail::Syntax { offset, list: self.list, index: self.index, field: self.field })
    }

    fn json(&self, e: JsonError) -> Error {
        self.error(e.kind.message(), e.offset)
    }

    pub fn offset(&self) -> usize {
        self.r.offset()
    }

    pub fn object(&mut self) -> Result<(), Error> {
        self.r.begin_object().map_err(|e| self.json(e))
    }

    pub fn array(&mut self) -> Result<(), Error> {
        self.r.begin_array().map_err(|e| self.json(e))
    }

    pub fn element(&mut self) -> Result<bool, Error> {
        self.r.next_element().map_err(|e| self.json(e))
    }

    /// The next key of the current object, one of `keys`; `None` at its end. Unknown and
    /// repeated keys are errors (`seen` has one bit per entry of `keys`).
    pub fn key(&mut self, keys: &Keys, seen: &mut u64) -> Result<Option<&'static str>, Error> {
        let Some((k, offset)) = self.r.next_key().map_err(|e| self.json(e))? else { return Ok(None) };
        let Some(i) = keys.names.iter().position(|n| k.eq_str(n)) else {
            self.field("");
            return Err(self.error(keys.unknown, offset));
        };
        let name = keys.names[i];
        self.field(name);
        let bit = 1u64 << (i % 64);
        if *seen & bit != 0 {
            return Err(self.error("duplicate key", offset));
        }
        *seen |= bit;
        Ok(Some(name))
    }

    pub fn string(&mut self) -> Result<Str<'a>, Error> {
        self.r.string().map_err(|e| self.json(e))
    }

    pub fn f64(&mut self) -> Result<f64, Error> {
        self.r.f64().map_err(|e| self.json(e))
    }

    pub fn u64(&mut self) -> Result<u64, Error> {
        self.r.u64().map_err(|e| self.json(e))
    }

    pub fn bool(&mut self) -> Result<bool, Error> {
        self.r.bool().map_err(|e| self.json(e))
    }

    /// Skips any value (comments), checking it strictly.
    pub fn skip(&mut self) -> Result<(), Error> {
        self.r.skip_value().map_err(|e| self.json(e))
    }

    /// Only whitespace may follow the document.
    pub fn end(&mut self) -> Result<(), Error> {
        self.at("", usize::MAX, "");
        self.r.end().map_err(|e| self.json(e))
    }

    /// A string naming one of `names`' values.
    pub fn name<T: Copy + PartialEq>(&mut self, names: &names::Names<T>) -> Result<T, Error> {
        let offset = self.offset();
        let s = self.string()?;
        names.parse(&s).ok_or_else(|| self.error(names.expected, offset))
    }
}
