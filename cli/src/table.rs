//! Prints any model's result document as a table, from the columns the document itself
//! declares: the envelope's scalars as `key: value` lines, then the `plan` array's objects
//! as rows, one column per key of its first row. A model added to the core needs nothing
//! here.
//!
//! Printed straight from the document as it is read, in passes over it (the widths of a
//! table's columns, then its rows), with no row or cell kept: a plan of 10⁵ workers once
//! took 200 MB of strings here, allocations that abort the process when they fail, after
//! the plan itself had been made within a memory limit. The one allocation is a width per
//! column, reserved fallibly.

use std::fmt::{self, Write as _};
use std::io::{self, Write};

use divload::doc::json::{Kind, Reader, Str};
use divload_host::HostError;

/// Why a result could not be printed.
#[derive(Debug)]
pub enum Failure {
    /// Standard output refused it.
    Write(io::Error),
    /// The document is not a result document the core writes.
    Shape,
    /// A table's column widths could not be allocated.
    Memory(HostError),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Write(e)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Write(e) => write!(f, "writing the result: {e}"),
            Failure::Shape => f.write_str("writing the result: result document: unexpected shape"),
            Failure::Memory(e) => write!(f, "writing the result: {e}"),
        }
    }
}

/// The reader's errors: the core wrote the document, so any is a shape it should not have.
fn shape<T, E>(r: Result<T, E>) -> Result<T, Failure> {
    r.map_err(|_| Failure::Shape)
}

/// One scalar of a result document, as it will be printed.
enum Cell<'a> {
    Text(Str<'a>),
    Number(f64),
    Flag(bool),
    Null,
}

impl fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Names are printed as they read; only control characters are escaped (a
            // string without escapes has none: JSON forbids them raw).
            Cell::Text(s) if s.as_plain().is_some() => f.write_str(s.raw()),
            Cell::Text(s) => s.chars().try_for_each(|c| {
                if c.is_control() {
                    write!(f, "{}", c.escape_default())
                } else {
                    f.write_char(c)
                }
            }),
            // Integers print as integers; times keep the precision a reader can use.
            Cell::Number(x) if x.fract() == 0.0 && x.abs() < 1e15 => write!(f, "{x:.0}"),
            Cell::Number(x) => write!(f, "{}", Precise(*x)),
            Cell::Flag(b) => write!(f, "{b}"),
            Cell::Null => f.write_str("-"),
        }
    }
}

/// Six significant digits, fixed or scientific, whichever is shorter to read.
struct Precise(f64);

impl fmt::Display for Precise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e9) {
            write!(f, "{x:.5e}")
        } else {
            write!(f, "{x:.6}")
        }
    }
}

/// How many characters `x` prints as, counted without writing it anywhere.
fn chars(x: &impl fmt::Display) -> usize {
    struct Count(usize);
    impl fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.chars().count();
            Ok(())
        }
    }
    let mut n = Count(0);
    let _ = write!(n, "{x}");
    n.0
}

/// `x` right-aligned in `width` characters (as `{:>width$}` pads a `String`).
fn right(w: &mut (impl Write + ?Sized), x: &impl fmt::Display, width: usize) -> io::Result<()> {
    spaces(w, width.saturating_sub(chars(x)))?;
    write!(w, "{x}")
}

/// `x` left-aligned in `width` characters, then a space.
fn left(w: &mut (impl Write + ?Sized), x: &impl fmt::Display, width: usize) -> io::Result<()> {
    write!(w, "{x}")?;
    spaces(w, width.saturating_sub(chars(x)))?;
    w.write_all(b" ")
}

fn spaces(w: &mut (impl Write + ?Sized), mut n: usize) -> io::Result<()> {
    const BLANK: &[u8; 64] = &[b' '; 64];
    while n > 0 {
        let k = n.min(BLANK.len());
        w.write_all(&BLANK[..k])?;
        n -= k;
    }
    Ok(())
}

/// The width of a line's label: `key value` lines align their values here.
const LABEL: usize = 22;

/// A value read from the document: a scalar, or `None` for an array or object (left
/// unread).
fn scalar<'a>(r: &mut Reader<'a>) -> Option<Cell<'a>> {
    match r.peek().ok()? {
        Kind::String => r.string().ok().map(Cell::Text),
        Kind::Number => r.f64().ok().map(Cell::Number),
        Kind::Bool => r.bool().ok().map(Cell::Flag),
        Kind::Null => r.skip_value().ok().map(|()| Cell::Null),
        Kind::Object | Kind::Array => None,
    }
}

/// An array of scalars as `(a, b, …)` (a point of a table); the shape error when it holds
/// more than scalars.
fn tuple(w: &mut impl Write, r: &mut Reader<'_>) -> Result<(), Failure> {
    shape(r.begin_array())?;
    w.write_all(b"(")?;
    let mut first = true;
    while shape(r.next_element())? {
        let cell = scalar(r).ok_or(Failure::Shape)?;
        if !first {
            w.write_all(b", ")?;
        }
        first = false;
        write!(w, "{cell}")?;
    }
    w.write_all(b")")?;
    Ok(())
}

/// The items of an array on the rest of a line, separated by spaces: scalars, and points
/// as `(a, b, …)`; objects are left out.
fn items(w: &mut impl Write, r: &mut Reader<'_>) -> Result<(), Failure> {
    shape(r.begin_array())?;
    let mut first = true;
    while shape(r.next_element())? {
        let separate = |w: &mut dyn Write, first: &mut bool| {
            let sep = if *first { &b""[..] } else { &b" "[..] };
            *first = false;
            w.write_all(sep)
        };
        if let Some(cell) = scalar(r) {
            separate(w, &mut first)?;
            write!(w, "{cell}")?;
        } else if shape(r.peek())? == Kind::Array {
            separate(w, &mut first)?;
            tuple(w, r)?;
        } else {
            shape(r.skip_value())?;
        }
    }
    writeln!(w)?;
    Ok(())
}

/// Whether the array `r` is at holds an object: then it is printed as a table, its other
/// elements left out.
fn is_table(mut r: Reader<'_>) -> Result<bool, Failure> {
    shape(r.begin_array())?;
    while shape(r.next_element())? {
        if shape(r.peek())? == Kind::Object {
            return Ok(true);
        }
        shape(r.skip_value())?;
    }
    Ok(false)
}

/// Prints `doc` (a result document the core wrote) for a person: scalars as `key value`
/// lines, lists of scalars on one line, nested objects as `key.sub value`, and every array
/// of objects as a table (the `plan` last).
pub fn print(w: &mut impl Write, source: &str, doc: &[u8]) -> Result<(), Failure> {
    let mut r = Reader::new(doc);
    shape(r.begin_object())?;
    writeln!(w, "divload plan {source}")?;
    while let Some((key, _)) = shape(r.next_key())? {
        if let Some(cell) = scalar(&mut r) {
            left(w, &key.raw(), LABEL)?;
            writeln!(w, "{cell}")?;
            continue;
        }
        match shape(r.peek())? {
            // Tables come after every line, in a pass of their own.
            Kind::Array if is_table(r.clone())? => shape(r.skip_value())?,
            Kind::Array => {
                left(w, &key.raw(), LABEL)?;
                items(w, &mut r)?;
            }
            _ => {
                shape(r.begin_object())?;
                while let Some((k, _)) = shape(r.next_key())? {
                    let name = Dotted(key, k);
                    if let Some(cell) = scalar(&mut r) {
                        left(w, &name, LABEL)?;
                        writeln!(w, "{cell}")?;
                    } else if shape(r.peek())? == Kind::Array {
                        // A list of values or of points (a learned model's `[items,
                        // seconds]`) on one line.
                        left(w, &name, LABEL)?;
                        items(w, &mut r)?;
                    } else {
                        shape(r.skip_value())?;
                    }
                }
            }
        }
    }
    // The tables in document order, the `plan` last.
    for plan in [false, true] {
        let mut r = Reader::new(doc);
        shape(r.begin_object())?;
        while let Some((key, _)) = shape(r.next_key())? {
            if key.eq_str("plan") == plan && shape(r.peek())? == Kind::Array && is_table(r.clone())? {
                print_rows(w, key.raw(), r.clone())?;
            }
            shape(r.skip_value())?;
        }
    }
    Ok(())
}

/// `key.sub`, an object's member named on its line.
struct Dotted<'a>(Str<'a>, Str<'a>);

impl fmt::Display for Dotted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0.raw(), self.1.raw())
    }
}

/// What [`rows`] reads in a table: a scalar of a row (its row, its place among the row's
/// scalars, its key), or the end of a row.
enum Event<'a> {
    Cell { row: usize, j: usize, key: Str<'a>, cell: Cell<'a> },
    End,
}

/// Calls `each` with the first `take` objects of the array `r` is at: each one's scalars
/// in document order, then its end.
fn rows<'a>(
    mut r: Reader<'a>,
    take: usize,
    mut each: impl FnMut(Event<'a>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    shape(r.begin_array())?;
    let mut row = 0;
    while row < take && shape(r.next_element())? {
        if shape(r.peek())? != Kind::Object {
            shape(r.skip_value())?;
            continue;
        }
        shape(r.begin_object())?;
        let mut j = 0;
        while let Some((key, _)) = shape(r.next_key())? {
            match scalar(&mut r) {
                Some(cell) => {
                    each(Event::Cell { row, j, key, cell })?;
                    j += 1;
                }
                None => shape(r.skip_value())?,
            }
        }
        each(Event::End)?;
        row += 1;
    }
    Ok(())
}

/// One table: a column per key of the first row, each as wide as its widest cell; a
/// row's cells beyond the first row's columns are left out.
fn print_rows(w: &mut impl Write, title: &str, r: Reader<'_>) -> Result<(), Failure> {
    let mut columns = 0;
    rows(r.clone(), 1, |e| {
        columns += usize::from(matches!(e, Event::Cell { .. }));
        Ok(())
    })?;
    let mut widths = Vec::new();
    if widths.try_reserve_exact(columns).is_err() {
        let bytes = columns.saturating_mul(size_of::<usize>());
        return Err(Failure::Memory(HostError::OutOfMemory { what: "table columns", bytes }));
    }
    widths.resize(columns, 0);
    rows(r.clone(), usize::MAX, |e| {
        if let Event::Cell { row, j, key, cell } = e {
            if let Some(width) = widths.get_mut(j) {
                *width = (*width).max(chars(&cell));
                if row == 0 {
                    *width = (*width).max(chars(&key.raw()));
                }
            }
        }
        Ok(())
    })?;
    writeln!(w, "\n{title}:")?;
    let column = |w: &mut dyn Write, j: usize, x: &dyn fmt::Display| -> io::Result<()> {
        let Some(&width) = widths.get(j) else { return Ok(()) };
        if j > 0 {
            w.write_all(b"  ")?;
        }
        right(w, &x, width)
    };
    // The header, the first row's keys, then every row's cells.
    rows(r.clone(), 1, |e| {
        match e {
            Event::Cell { j, key, .. } => column(w, j, &key.raw())?,
            Event::End => writeln!(w)?,
        }
        Ok(())
    })?;
    rows(r, usize::MAX, |e| {
        match e {
            Event::Cell { j, cell, .. } => column(w, j, &cell)?,
            Event::End => writeln!(w)?,
        }
        Ok(())
    })
}

/// `rank count displacement` per row of `plan`, for scripts.
pub fn print_counts(w: &mut impl Write, doc: &[u8]) -> Result<(), Failure> {
    let mut r = Reader::new(doc);
    shape(r.begin_object())?;
    writeln!(w, "# rank count displacement (in plan order)")?;
    while let Some((key, _)) = shape(r.next_key())? {
        if !key.eq_str("plan") {
            shape(r.skip_value())?;
            continue;
        }
        shape(r.begin_array())?;
        while shape(r.next_element())? {
            shape(r.begin_object())?;
            let (mut rank, mut count, mut displacement) = (0, 0, 0);
            while let Some((k, _)) = shape(r.next_key())? {
                let slot = match k.raw() {
                    "rank" => &mut rank,
                    "count" => &mut count,
                    "displacement" => &mut displacement,
                    _ => {
                        shape(r.skip_value())?;
                        continue;
                    }
                };
                *slot = shape(r.u64())?;
            }
            writeln!(w, "{rank} {count} {displacement}")?;
        }
    }
    Ok(())
}
