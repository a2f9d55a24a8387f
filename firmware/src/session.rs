//! The controller's line protocol: the nodes' measurements arrive as short text lines (on a
//! UART, a socket, a test's string), [`Session`] plans the scatter with the closed form
//! (genaud2003 §3, [`divload::plan`]) in memory fixed at compile time and answers each line
//! with text. The board support (`firmware/qemu/`) only moves bytes.
//!
//! # Protocol
//!
//! One command per line, at most [`LINE`] bytes of printable ASCII, ended by `\n` (`\r\n`
//! and `\r` also end a line). Words are separated by spaces or tabs; empty lines and lines
//! starting with `#` are ignored. Every command gets exactly one final line that starts with `ok` or
//! `error`, so a driver reads until it sees one.
//!
//! | command | meaning | reply |
//! |---|---|---|
//! | `items N` | items to split, `1 ..= MAX_ITEMS` of the number type | `ok items N` |
//! | `node COMM COMP [COMM_LATENCY COMP_LATENCY]` | the next node: seconds per item to receive (λ) and to compute (μ), and the fixed parts (default 0); the first node is the root, which holds the data and computes after sending | `ok node I` (its index) |
//! | `plan` | plans the nodes given so far | `share I COUNT` per node in input order, then `ok plan makespan T lower_bound L gap G participating P solve_ns S` |
//! | `clear` | forgets the items and the nodes | `ok clear` |
//! | `quit` | ends the session ([`Step::Quit`]; the caller replies) | — |
//!
//! `makespan` is the plan's predicted finish time, `lower_bound` the core's certified
//! bound below any plan in the bandwidth order, `gap = makespan − lower_bound`, all in
//! seconds as the core computed them in the number type `N` (printed through `f64`,
//! which holds `f32` and `Q32` exactly). `solve_ns` is the caller's clock around the solver
//! call alone (under QEMU's `-icount shift=0`, one nanosecond per instruction).
//!
//! A malformed line is answered by `error WHAT: ...` naming the input and its valid range,
//! and changes nothing: `error items: must be an integer from 1 to 2147483647, got "abc"`,
//! `error nodes: at most 16, got 17`, `error line: at most 128 bytes, got more (dropped)`.
//!
//! ```
//! use divload_controller::session::{Session, Step};
//! use divload::Q32;
//!
//! let mut s: Session<Q32, 4> = Session::new();
//! let mut out = String::new();
//! for line in "items 1000\nnode 0 0.009\nnode 1e-5 0.004\nplan\n".bytes() {
//!     s.feed(line, &mut out, || 0).unwrap();
//! }
//! assert!(out.contains("share 1 "));
//! assert!(out.lines().last().unwrap().starts_with("ok plan makespan "));
//! ```
//!
//! # Memory
//!
//! `size_of::<Session<N, NODES>>()`: for each node a [`Worker`], an [`Assignment`] and a
//! [`Scratch`] (with `Q32` on a 32-bit core: 32 + 56 + 64 bytes), plus the line buffer:
//! 2 592 bytes for 16 nodes in `Q32` on a Cortex-M. The closed form needs no other memory
//! than the stack.

use core::fmt::{self, Write};

use divload::{plan, Assignment, Error, Options, Problem, Real, Root, Scratch, Worker};

/// Longest line accepted, in bytes (without its end).
///
/// A node with four numbers at `f64`'s full precision (`repr`-style, up to 24 characters
/// each) takes 104 bytes.
pub const LINE: usize = 128;

/// What [`Session::feed`] did with a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The byte was kept; no line is complete.
    Pending,
    /// A line was answered (or was empty).
    Replied,
    /// The line was `quit`: the caller ends the session and writes the final line.
    Quit,
}

/// One controller's state: the line being read, the item count and the nodes given so far,
/// and the memory the closed form plans in. `NODES` is the most nodes it accepts.
#[derive(Debug)]
pub struct Session<N, const NODES: usize> {
    line: [u8; LINE],
    len: usize,
    /// The current line passed [`LINE`] bytes: the rest of it is dropped.
    overlong: bool,
    items: Option<u64>,
    nodes: heapless::Vec<Worker<N>, NODES>,
    plan: [Assignment<N>; NODES],
    scratch: [Scratch<N>; NODES],
}

impl<N: Real, const NODES: usize> Session<N, NODES> {
    /// A session with no items and no nodes, for a `static`.
    pub const fn new() -> Self {
        Session {
            line: [0; LINE],
            len: 0,
            overlong: false,
            items: None,
            nodes: heapless::Vec::new(),
            plan: [Assignment::EMPTY; NODES],
            scratch: [Scratch::EMPTY; NODES],
        }
    }

    /// Takes one byte of input; at the end of a line, answers it on `out`. `clock` returns
    /// nanoseconds on any monotonic clock; it is read just before and after the solver.
    ///
    /// # Errors
    ///
    /// Only those of `out`. Bad input is answered with an `error` line, never an `Err`.
    pub fn feed<W: Write>(
        &mut self,
        byte: u8,
        out: &mut W,
        clock: impl FnMut() -> u64,
    ) -> Result<Step, fmt::Error> {
        if byte != b'\n' && byte != b'\r' {
            match self.line.get_mut(self.len) {
                Some(slot) => {
                    *slot = byte;
                    self.len += 1;
                }
                None => self.overlong = true,
            }
            return Ok(Step::Pending);
        }
        let (len, overlong) = (self.len, self.overlong);
        self.len = 0;
        self.overlong = false;
        if overlong {
            writeln!(out, "error line: at most {LINE} bytes, got more (dropped)")?;
            return Ok(Step::Replied);
        }
        // Copied out so that the line can be read while the session changes.
        let line = self.line;
        let bytes = line.get(..len).unwrap_or_default();
        // Control characters would be echoed into error lines and confuse a terminal.
        let printable = |b: &u8| b.is_ascii_graphic() || *b == b' ' || *b == b'\t';
        match core::str::from_utf8(bytes) {
            Ok(text) if bytes.iter().all(printable) => self.command(text, out, clock),
            _ => {
                writeln!(out, "error line: must be printable ASCII text (dropped)")?;
                Ok(Step::Replied)
            }
        }
    }

    /// Answers one complete line (without its end).
    fn command<W: Write>(
        &mut self,
        text: &str,
        out: &mut W,
        clock: impl FnMut() -> u64,
    ) -> Result<Step, fmt::Error> {
        let mut words = text.split_ascii_whitespace();
        let Some(verb) = words.next() else { return Ok(Step::Replied) };
        if verb.starts_with('#') {
            return Ok(Step::Replied);
        }
        match verb {
            "items" => self.items(words, out)?,
            "node" => self.node(words, out)?,
            "plan" if words.next().is_none() => self.plan(out, clock)?,
            "clear" if words.next().is_none() => {
                self.items = None;
                self.nodes.clear();
                writeln!(out, "ok clear")?;
            }
            "quit" if words.next().is_none() => return Ok(Step::Quit),
            "plan" | "clear" | "quit" => writeln!(out, "error {verb}: takes no arguments")?,
            _ => writeln!(
                out,
                "error line: unknown command {:?} (expected items, node, plan, clear or quit)",
                Clip(verb)
            )?,
        }
        Ok(Step::Replied)
    }

    fn items<'a, W: Write>(&mut self, mut words: impl Iterator<Item = &'a str>, out: &mut W) -> fmt::Result {
        let range = |out: &mut W, got: &str| {
            writeln!(out, "error items: must be an integer from 1 to {}, got {:?}", N::MAX_ITEMS, Clip(got))
        };
        match (words.next(), words.next()) {
            (Some(word), None) => match word.parse::<u64>() {
                Ok(n) if (1..=N::MAX_ITEMS).contains(&n) => {
                    self.items = Some(n);
                    writeln!(out, "ok items {n}")
                }
                _ => range(out, word),
            },
            (None, _) => range(out, ""),
            (Some(_), Some(extra)) => {
                writeln!(out, "error items: expected one number, got also {:?}", Clip(extra))
            }
        }
    }

    fn node<'a, W: Write>(&mut self, words: impl Iterator<Item = &'a str>, out: &mut W) -> fmt::Result {
        const NAMES: [&str; 4] = ["comm_per_item", "comp_per_item", "comm_latency", "comp_latency"];
        let index = self.nodes.len();
        let mut values = [0.0f64; 4];
        let mut given = 0;
        for word in words {
            let (Some(slot), Some(name)) = (values.get_mut(given), NAMES.get(given)) else {
                return writeln!(out, "error worker {index}: expected 2 or 4 numbers, got more");
            };
            match word.parse::<f64>() {
                Ok(v) => *slot = v,
                Err(_) => {
                    return writeln!(
                        out,
                        "error worker {index}: {name} must be a number, got {:?}",
                        Clip(word)
                    )
                }
            }
            given += 1;
        }
        if given != 2 && given != 4 {
            return writeln!(
                out,
                "error worker {index}: expected 2 or 4 numbers (comm_per_item comp_per_item \
                 [comm_latency comp_latency]), got {given}"
            );
        }
        let [comm, comp, comm_latency, comp_latency] = values;
        // The core's check names the field, its range and the number type it must fit; the
        // parser's own messages say "worker" as it does, as the platform documents do.
        let worker = match Worker::try_from_f64(index, comm_latency, comm, comp_latency, comp) {
            Ok(w) => w,
            Err(e) => return writeln!(out, "error {e}"),
        };
        match self.nodes.push(worker) {
            Ok(()) => writeln!(out, "ok node {index}"),
            Err(_) => writeln!(out, "error {}", Error::limit("nodes", NODES as u64, index as u64 + 1)),
        }
    }

    fn plan<W: Write>(&mut self, out: &mut W, mut clock: impl FnMut() -> u64) -> fmt::Result {
        let Some(items) = self.items else {
            return writeln!(
                out,
                "error plan: no items yet (send \"items N\", N from 1 to {})",
                N::MAX_ITEMS
            );
        };
        let count = self.nodes.len();
        if count == 0 {
            return writeln!(out, "error plan: no nodes yet (send \"node COMM COMP\", 1 to {NODES} nodes)");
        }
        let problem =
            Problem { workers: &self.nodes, root: Root::Fixed(0), items, options: Options::default() };
        let start = clock();
        // Whole arrays: the core uses the first `count` of each, and checks that many exist.
        let result = plan(&problem, &mut self.plan, &mut self.scratch);
        let solve_ns = clock().wrapping_sub(start);
        let summary = match result {
            Ok(s) => s,
            Err(e) => return writeln!(out, "error plan: {e}"),
        };
        // The plan lists nodes in send order; the reply lists them as they were given.
        for node in 0..count {
            let share = self.plan.iter().take(count).find(|a| a.worker == node).map_or(0, |a| a.count);
            writeln!(out, "share {node} {share}")?;
        }
        let report = summary.report();
        writeln!(
            out,
            "ok plan makespan {} lower_bound {} gap {} participating {} solve_ns {solve_ns}",
            report.makespan.to_f64(),
            report.lower_bound.to_f64(),
            report.gap().to_f64(),
            summary.participating,
        )
    }
}

impl<N: Real, const NODES: usize> Default for Session<N, NODES> {
    fn default() -> Self {
        Self::new()
    }
}

/// Input echoed in an error, cut short so that the reply stays one short line.
struct Clip<'a>(&'a str);

impl fmt::Debug for Clip<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KEEP: usize = 24;
        match self.0.get(..KEEP) {
            Some(head) if self.0.len() > KEEP => write!(f, "{head:?}..."),
            _ => write!(f, "{:?}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use divload::Q32;
    use std::string::{String, ToString};
    use std::vec::Vec;

    /// Feeds `input` and returns the replies, one string per line.
    fn run<N: Real, const P: usize>(s: &mut Session<N, P>, input: &str) -> Vec<String> {
        let mut out = String::new();
        for b in input.bytes() {
            s.feed(b, &mut out, || 0).unwrap();
        }
        out.lines().map(String::from).collect()
    }

    /// genaud2003 Table 1's first three machines, planned by the core directly.
    fn direct<N: Real>(items: u64) -> ([u64; 3], f64) {
        let w = [(0.0, 0.009288), (1.12e-5, 0.009365), (8.15e-5, 0.003976)];
        let workers: [Worker<N>; 3] =
            core::array::from_fn(|i| Worker::try_from_f64(i, 0.0, w[i].0, 0.0, w[i].1).unwrap());
        let problem = Problem { workers: &workers, root: Root::Fixed(0), items, options: Options::default() };
        let mut out = [Assignment::EMPTY; 3];
        let mut scratch = [Scratch::EMPTY; 3];
        let s = plan(&problem, &mut out, &mut scratch).unwrap();
        let mut counts = [0; 3];
        for a in &out {
            counts[a.worker] = a.count;
        }
        (counts, s.makespan.to_f64())
    }

    fn shares(replies: &[String]) -> Vec<u64> {
        replies
            .iter()
            .filter_map(|l| l.strip_prefix("share "))
            .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
            .collect()
    }

    #[test]
    fn a_session_answers_the_cores_plan() {
        let mut s: Session<Q32, 4> = Session::new();
        let r = run(&mut s, "items 817101\r\nnode 0 0.009288\n# a comment\n\nnode 1.12e-5 0.009365\nnode 8.15e-5\t0.003976\nplan\n");
        assert_eq!(&r[..4], ["ok items 817101", "ok node 0", "ok node 1", "ok node 2"]);
        let (counts, makespan) = direct::<Q32>(817_101);
        assert_eq!(shares(&r), counts);
        let last: Vec<&str> = r.last().unwrap().split(' ').collect();
        assert_eq!(&last[..3], ["ok", "plan", "makespan"]);
        assert_eq!(last[3].parse::<f64>().unwrap(), makespan);
        let (lower, gap): (f64, f64) = (last[5].parse().unwrap(), last[7].parse().unwrap());
        assert!(lower <= makespan && (makespan - lower - gap).abs() < 1e-9, "{last:?}");
        assert_eq!(last[8..], ["participating", "3", "solve_ns", "0"]);

        // Four numbers at full precision fit in a line.
        let r = run(
            &mut s,
            "node 1.2345678901234567e-05 0.0012345678901234567 0.012345678901234567 0.012345678901234567\n",
        );
        assert_eq!(r, ["ok node 3"]);
        run(&mut s, "clear\nitems 817101\nnode 0 0.009288\nnode 1.12e-5 0.009365\nnode 8.15e-5 0.003976\n");

        // The nodes stay: a new item count plans again, `clear` forgets them.
        let r = run(&mut s, "items 1000\nplan\nclear\nplan\n");
        assert_eq!(shares(&r), direct::<Q32>(1000).0);
        assert_eq!(r[r.len() - 2], "ok clear");
        assert!(r.last().unwrap().starts_with("error plan: no items yet"));
    }

    #[test]
    fn the_solver_alone_is_timed() {
        let mut s: Session<f32, 2> = Session::new();
        let mut out = String::new();
        let mut now = 0;
        for b in "items 10\nnode 0 1\nnode 0 1\nplan\n".bytes() {
            s.feed(b, &mut out, || {
                now += 7;
                now
            })
            .unwrap();
        }
        assert!(out.ends_with(" solve_ns 7\n"), "{out}");
        assert_eq!(shares(&out.lines().map(String::from).collect::<Vec<_>>()), [5, 5]);
    }

    #[test]
    fn malformed_lines_are_answered_and_change_nothing() {
        let mut s: Session<Q32, 2> = Session::new();
        let long = "node ".to_string() + &"1".repeat(10_000) + "\n";
        let cases: &[(&str, &str)] = &[
            ("items abc\n", "error items: must be an integer from 1 to 2147483647, got \"abc\""),
            ("items 0\n", "error items: must be an integer from 1 to 2147483647, got \"0\""),
            ("items -1\n", "error items: must be an integer from 1 to 2147483647, got \"-1\""),
            ("items 2147483648\n", "error items: must be an integer from 1 to 2147483647, got \"2147483648\""),
            ("items\n", "error items: must be an integer from 1 to 2147483647, got \"\""),
            ("items 5 6\n", "error items: expected one number, got also \"6\""),
            ("node 1e 0.1\n", "error worker 0: comm_per_item must be a number, got \"1e\""),
            ("node 0 NaN\n", "error worker 0: comp_per_item must be finite and > 0, got NaN"),
            ("node 0 1e400\n", "error worker 0: comp_per_item must be finite and > 0, got inf"),
            ("node -1 1\n", "error worker 0: comm_per_item must be finite and >= 0, got -1"),
            ("node 0 0\n", "error worker 0: comp_per_item must be finite and > 0, got 0"),
            ("node 0 1e300\n", "error worker 0: comp_per_item = 1e300 does not fit the Q32 number type"),
            ("node 0\n", "error worker 0: expected 2 or 4 numbers (comm_per_item comp_per_item [comm_latency comp_latency]), got 1"),
            ("node 0 1 0 0 0\n", "error worker 0: expected 2 or 4 numbers, got more"),
            (&long, "error line: at most 128 bytes, got more (dropped)"),
            ("items \u{e9}\n", "error line: must be printable ASCII text (dropped)"),
            ("items \u{1b}[2J\n", "error line: must be printable ASCII text (dropped)"),
            ("scatter\n", "error line: unknown command \"scatter\" (expected items, node, plan, clear or quit)"),
            ("plan now\n", "error plan: takes no arguments"),
            ("plan\n", "error plan: no items yet (send \"items N\", N from 1 to 2147483647)"),
            ("items 10\nplan\n", "ok items 10\nerror plan: no nodes yet (send \"node COMM COMP\", 1 to 2 nodes)"),
            ("node 0 1\nnode 0 1\nnode 0 1\n", "ok node 0\nok node 1\nerror nodes: at most 2, got 3"),
        ];
        for (input, want) in cases {
            assert_eq!(run(&mut s, input).join("\n"), *want, "input {input:?}");
        }
        assert_eq!(run(&mut s, "plan\n")[..2], ["share 0 5", "share 1 5"]);
        assert_eq!(run(&mut s, "quit\n"), Vec::<String>::new());
        let mut out = String::new();
        assert_eq!(s.feed(b'\n', &mut out, || 0), Ok(Step::Replied));
        for b in "quit".bytes() {
            assert_eq!(s.feed(b, &mut out, || 0), Ok(Step::Pending));
        }
        assert_eq!(s.feed(b'\n', &mut out, || 0), Ok(Step::Quit));
    }

    #[test]
    fn overflow_in_the_number_type_is_an_error_line() {
        // Times beyond Q32's range (about 2.1e9 s) fail in the solver, not in the parser.
        let mut s: Session<Q32, 2> = Session::new();
        let r = run(&mut s, "items 2000000000\nnode 0 100\nnode 0 100\nplan\n");
        assert!(r.last().unwrap().starts_with("error plan: "), "{r:?}");
    }
}
