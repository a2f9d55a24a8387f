//! How a document's options are named: a [`Names`] table gives each value of an option its
//! word in documents, and the message listing them. Each model declares its own tables in
//! its document module (`doc::scatter::ROUNDING`, ...), next to its reader; front ends list
//! them from the models' schemas and never spell them.

use crate::doc::json::Str;

/// The names of one option's values, in the order they are offered.
#[derive(Debug)]
pub struct Names<T: 'static> {
    /// The document key holding the option.
    pub key: &'static str,
    /// Every value with its name.
    pub table: &'static [(&'static str, T)],
    /// The valid names in words, for error messages: `"given" or "bandwidth"`.
    pub expected: &'static str,
}

impl<T: Copy + PartialEq> Names<T> {
    /// The value called `s`.
    pub fn parse(&self, s: &Str<'_>) -> Option<T> {
        self.table.iter().find(|(n, _)| s.eq_str(n)).map(|&(_, v)| v)
    }

    /// The value called `s` (a plain string).
    pub fn parse_str(&self, s: &str) -> Option<T> {
        self.table.iter().find(|(n, _)| *n == s).map(|&(_, v)| v)
    }

    /// The name of `v` (empty if the table misses it, which the tests rule out).
    pub fn name(&self, v: T) -> &'static str {
        self.table.iter().find(|(_, x)| *x == v).map_or("", |&(n, _)| n)
    }
}
/// Every value of `all` has one name, parses back, and is listed in the message (the
/// models' tests call it on their tables).
#[cfg(test)]
pub(crate) fn complete<T: Copy + PartialEq + core::fmt::Debug>(names: &Names<T>, all: &[T]) {
    for &v in all {
        let n = names.name(v);
        assert!(!n.is_empty(), "{}: {v:?} has no name", names.key);
        assert_eq!(names.parse_str(n), Some(v));
        assert!(
            names.expected.contains(&["\"", n, "\""].concat()),
            "{}: {n} missing from expected",
            names.key
        );
    }
    assert_eq!(names.table.len(), all.len());
}
