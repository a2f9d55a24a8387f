//! Prints any model's result document as a table, from the columns the document itself
//! declares: the envelope's scalars as `key: value` lines, then the `plan` array's objects
//! as rows, one column per key of its first row. A model added to the core needs nothing
//! here.

use std::io::{self, Write};

use divload::doc::json::{Kind, Reader, Str};

/// One scalar of a result document, as it will be printed.
enum Cell<'a> {
    Text(Str<'a>),
    Number(f64),
    Flag(bool),
    Null,
}

impl std::fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Names are printed as they read; only control characters are escaped.
            Cell::Text(s) => s.chars().try_for_each(|c| {
                if c.is_control() {
                    write!(f, "{}", c.escape_default())
                } else {
                    write!(f, "{c}")
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

impl std::fmt::Display for Precise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e9) {
            write!(f, "{x:.5e}")
        } else {
            write!(f, "{x:.6}")
        }
    }
}

/// A value read from the document: a scalar, or an array or object (shown by its size or
/// kept aside for the rows).
fn scalar<'a>(r: &mut Reader<'a>) -> Option<Cell<'a>> {
    match r.peek().ok()? {
        Kind::String => r.string().ok().map(Cell::Text),
        Kind::Number => r.f64().ok().map(Cell::Number),
        Kind::Bool => r.bool().ok().map(Cell::Flag),
        Kind::Null => r.skip_value().ok().map(|()| Cell::Null),
        Kind::Object | Kind::Array => None,
    }
}

/// An array of scalars as `(a, b, …)` (a point of a table); `None` when it holds more
/// than scalars.
fn tuple(r: &mut Reader<'_>) -> Option<String> {
    r.begin_array().ok()?;
    let mut parts = Vec::new();
    while r.next_element().ok()? {
        parts.push(scalar(r)?.to_string());
    }
    Some(format!("({})", parts.join(", ")))
}

/// Rows of one array of objects: each row its scalars in document order.
type Rows<'a> = Vec<Vec<(Str<'a>, Cell<'a>)>>;

/// Prints `doc` (a result document the core wrote) for a person: scalars as `key value`
/// lines, lists of scalars on one line, nested objects as `key.sub value`, and every array
/// of objects as a table (the `plan` last).
pub fn print(w: &mut impl Write, source: &str, doc: &[u8]) -> io::Result<()> {
    let broken = || io::Error::new(io::ErrorKind::InvalidData, "result document: unexpected shape");
    let mut r = Reader::new(doc);
    r.begin_object().map_err(|_| broken())?;
    writeln!(w, "divload plan {source}")?;
    let mut tables: Vec<(Str<'_>, Rows<'_>)> = Vec::new();
    while let Some((key, _)) = r.next_key().map_err(|_| broken())? {
        if let Some(cell) = scalar(&mut r) {
            writeln!(w, "{:<22} {cell}", key.raw())?;
            continue;
        }
        match r.peek().map_err(|_| broken())? {
            Kind::Array => {
                r.begin_array().map_err(|_| broken())?;
                let (mut items, mut rows) = (Vec::new(), Rows::new());
                while r.next_element().map_err(|_| broken())? {
                    if let Some(cell) = scalar(&mut r) {
                        items.push(cell.to_string());
                        continue;
                    }
                    if r.peek().map_err(|_| broken())? == Kind::Array {
                        items.push(tuple(&mut r).ok_or_else(broken)?);
                        continue;
                    }
                    if r.peek().map_err(|_| broken())? != Kind::Object {
                        r.skip_value().map_err(|_| broken())?;
                        continue;
                    }
                    r.begin_object().map_err(|_| broken())?;
                    let mut row = Vec::new();
                    while let Some((k, _)) = r.next_key().map_err(|_| broken())? {
                        match scalar(&mut r) {
                            Some(cell) => row.push((k, cell)),
                            None => r.skip_value().map_err(|_| broken())?,
                        }
                    }
                    rows.push(row);
                }
                if rows.is_empty() {
                    writeln!(w, "{:<22} {}", key.raw(), items.join(" "))?;
                } else {
                    tables.push((key, rows));
                }
            }
            _ => {
                r.begin_object().map_err(|_| broken())?;
                while let Some((k, _)) = r.next_key().map_err(|_| broken())? {
                    let name = format!("{}.{}", key.raw(), k.raw());
                    match scalar(&mut r) {
                        Some(cell) => writeln!(w, "{name:<22} {cell}")?,
                        None if r.peek().map_err(|_| broken())? == Kind::Array => {
                            // A list of values or of points (a learned model's `[items,
                            // seconds]`) on one line.
                            r.begin_array().map_err(|_| broken())?;
                            let mut items = Vec::new();
                            while r.next_element().map_err(|_| broken())? {
                                match scalar(&mut r) {
                                    Some(cell) => items.push(cell.to_string()),
                                    None if r.peek().map_err(|_| broken())? == Kind::Array => {
                                        items.push(tuple(&mut r).ok_or_else(broken)?)
                                    }
                                    None => r.skip_value().map_err(|_| broken())?,
                                }
                            }
                            writeln!(w, "{name:<22} {}", items.join(" "))?;
                        }
                        None => r.skip_value().map_err(|_| broken())?,
                    }
                }
            }
        }
    }
    tables.sort_by_key(|(k, _)| k.eq_str("plan"));
    for (key, rows) in &tables {
        print_rows(w, key.raw(), rows)?;
    }
    Ok(())
}

/// One table: a column per key of the first row.
fn print_rows(w: &mut impl Write, title: &str, rows: &Rows<'_>) -> io::Result<()> {
    let Some(first) = rows.first() else { return Ok(()) };
    let header: Vec<String> = first.iter().map(|(k, _)| k.raw().to_string()).collect();
    let cells: Vec<Vec<String>> =
        rows.iter().map(|row| row.iter().map(|(_, c)| c.to_string()).collect()).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|j| {
            cells
                .iter()
                .filter_map(|r| r.get(j))
                .chain([&header[j]])
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(1)
        })
        .collect();
    writeln!(w, "\n{title}:")?;
    let line = |w: &mut dyn Write, row: &[String]| -> io::Result<()> {
        let parts: Vec<String> = row.iter().zip(&widths).map(|(s, &n)| format!("{s:>n$}")).collect();
        writeln!(w, "{}", parts.join("  "))
    };
    line(w, &header)?;
    for row in &cells {
        line(w, row)?;
    }
    Ok(())
}

/// `rank count displacement` per row of `plan`, for scripts.
pub fn print_counts(w: &mut impl Write, doc: &[u8]) -> io::Result<()> {
    let broken = || io::Error::new(io::ErrorKind::InvalidData, "result document: unexpected shape");
    let mut r = Reader::new(doc);
    r.begin_object().map_err(|_| broken())?;
    writeln!(w, "# rank count displacement (in plan order)")?;
    while let Some((key, _)) = r.next_key().map_err(|_| broken())? {
        if !key.eq_str("plan") {
            r.skip_value().map_err(|_| broken())?;
            continue;
        }
        r.begin_array().map_err(|_| broken())?;
        while r.next_element().map_err(|_| broken())? {
            r.begin_object().map_err(|_| broken())?;
            let (mut rank, mut count, mut displacement) = (0, 0, 0);
            while let Some((k, _)) = r.next_key().map_err(|_| broken())? {
                let slot = match k.raw() {
                    "rank" => &mut rank,
                    "count" => &mut count,
                    "displacement" => &mut displacement,
                    _ => {
                        r.skip_value().map_err(|_| broken())?;
                        continue;
                    }
                };
                *slot = r.u64().map_err(|_| broken())?;
            }
            writeln!(w, "{rank} {count} {displacement}")?;
        }
    }
    Ok(())
}
