//! Working memory as columns: the caller's scratch records, `W` 64-bit words each (eight
//! for the scatter model, five for the return-message model), seen as `W` contiguous
//! arrays of `len` words (struct of arrays) for `len` records.
//!
//! Why: at a million workers a plan is bound by memory traffic, not arithmetic. A pass that
//! needs two numbers per worker reads 16 bytes per worker from two columns instead of two
//! 64-byte records, and a sort moves compact (key, value) words instead of whole records
//! (issue 14). The records stay an opaque caller-allocated type, so nothing is allocated
//! and no `unsafe` reinterprets memory: word `w` of the arena is word `w % W` of record
//! `w / W`, which is where it would be in a flat array anyway.
//!
//! [`Columns::sort`] is a bucket sort on integer keys: one pass counting the top bits of
//! each key (relative to the smallest), one pass placing the items, then each bucket split
//! again on the next bits, down to sub-buckets of a few items sorted by comparisons (while
//! the items fit in the caches the first pass has a bucket per item, and most hold one). The
//! recursion is at most [`MAX_DEPTH`] passes deep (a few hundred bytes of stack each);
//! keys bunched closer than that fall back to a heapsort, so the worst case stays
//! O(n log n) with a bounded stack.

use core::cmp::Ordering;

use crate::num::Real;

/// Words per scratch record unless a model says otherwise (the scatter model's).
pub(crate) const WORDS: usize = 8;

/// A scratch record of `W` words (`W > 0`).
pub(crate) trait Words<const W: usize = WORDS> {
    fn words(&self) -> &[u64; W];
    fn words_mut(&mut self) -> &mut [u64; W];
}

/// Buckets below this size are sorted by insertion.
const SMALL: usize = 16;
/// At most 2^TOP_BITS buckets in the first pass beyond [`CACHED`] items: each is a write
/// stream into three columns, and more streams than the caches and TLB hold make every
/// write a miss.
const TOP_BITS: u32 = 9;
/// Up to this many items the columns a first pass writes (three words an item) stay in
/// the caches, and a bucket per item ([`SortColumns::spread`]) costs its write streams
/// nothing; at 10⁶ items, where they miss, it was no faster.
const CACHED: usize = 1 << 17;
/// Sub-buckets of each bucket in the later passes, counted on the stack (260 bytes a pass).
const SUB_BITS: u32 = 6;
/// Passes after the first at most: keys bunched closer than that (a run of equal keys, or
/// floats whose exponents differ) fall back to heapsort, which bounds stack and time.
const MAX_DEPTH: u32 = 10;

/// The columns a [`Columns::sort`] writes: keys, values, optionally a third word carried
/// along; a column of bucket counts; and as many spare columns again, which the later
/// passes place into and back from by turns (the third only with `extra`). The result is
/// in the main columns; the spare ones hold nothing afterwards.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortColumns {
    pub key: usize,
    pub value: usize,
    pub extra: Option<usize>,
    pub counts: usize,
    pub spare: [usize; 3],
    /// Keys spread about evenly over their range, as the sort keys of costs within a few
    /// powers of two are: while the items fit in the caches, the first pass takes a
    /// bucket per item and most hold one (the closed form 14–17 % faster at 10³–10⁵
    /// workers). Not for keys over many powers of two, as fractions in [0, 1) are: half of
    /// them share the top power's buckets, a few dozen to each, and the deeper passes of
    /// the narrower first pass sort them faster. Either way the order is the same; only
    /// the time differs.
    pub spread: bool,
}

/// One set of the columns a sort moves together: the main ones of a [`SortColumns`], or its
/// spare ones.
#[derive(Clone, Copy)]
struct Set {
    key: usize,
    value: usize,
    extra: Option<usize>,
}

/// `W` columns of `len` words over `len` records.
pub(crate) struct Columns<'a, R, const W: usize = WORDS> {
    records: &'a mut [R],
    len: usize,
}

impl<'a, R: Words<W>, const W: usize> Columns<'a, R, W> {
    /// Columns of `len` words; `records` must hold at least `len` records (callers check
    /// buffer sizes first and pass the slice cut to `len`).
    pub fn new(records: &'a mut [R]) -> Self {
        let len = records.len();
        Columns { records, len }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Word `i` of column `col`. Outside the arena (a bug) it reads 0 and [`Columns::set`]
    /// writes nothing: no index here can panic, which the `nopanic` link proof relies on.
    #[inline]
    pub fn get(&self, col: usize, i: usize) -> u64 {
        let w = col * self.len + i;
        self.records.get(w / W).map_or(0, |r| r.words()[w % W])
    }

    #[inline]
    pub fn set(&mut self, col: usize, i: usize, v: u64) {
        let w = col * self.len + i;
        if let Some(r) = self.records.get_mut(w / W) {
            r.words_mut()[w % W] = v;
        }
    }

    /// Word `i` counted from the start of column `col`, running on into the next
    /// columns: several columns as one array, for records of a few words kept together
    /// in a cache line (the root choice's tree of maps; [`Columns::quad`] for four).
    #[inline]
    pub fn wide(&self, col: usize, i: usize) -> u64 {
        self.get(col, i)
    }

    #[inline]
    pub fn set_wide(&mut self, col: usize, i: usize, v: u64) {
        self.set(col, i, v);
    }

    /// Words `i .. i + 4` counted as by [`Columns::wide`], read from one record: callers
    /// align them so (`W` is a multiple of four). Words across two records or outside the
    /// arena (a bug) read as 0, as [`Columns::get`] does outside it.
    #[inline]
    pub fn quad(&self, col: usize, i: usize) -> [u64; 4] {
        let w = col * self.len + i;
        match self.records.get(w / W).and_then(|r| r.words().get(w % W..w % W + 4)) {
            Some(&[a, b, c, d]) => [a, b, c, d],
            _ => [0; 4],
        }
    }

    /// Writes what [`Columns::quad`] reads; nothing where it reads 0.
    #[inline]
    pub fn set_quad(&mut self, col: usize, i: usize, v: [u64; 4]) {
        let w = col * self.len + i;
        if let Some([a, b, c, d]) =
            self.records.get_mut(w / W).and_then(|r| r.words_mut().get_mut(w % W..w % W + 4))
        {
            [*a, *b, *c, *d] = v;
        }
    }

    #[inline]
    pub fn real<N: Real>(&self, col: usize, i: usize) -> N {
        N::from_word(self.get(col, i))
    }

    #[inline]
    pub fn set_real<N: Real>(&mut self, col: usize, i: usize, v: N) {
        self.set(col, i, v.to_word());
    }

    #[inline]
    pub fn index(&self, col: usize, i: usize) -> usize {
        // Indices are stored from `usize` values, so the conversion back is exact.
        self.get(col, i) as usize
    }

    #[inline]
    fn swap_items(&mut self, c: SortColumns, i: usize, j: usize) {
        for col in [Some(c.key), Some(c.value), c.extra].into_iter().flatten() {
            let (a, b) = (self.get(col, i), self.get(col, j));
            self.set(col, i, b);
            self.set(col, j, a);
        }
    }

    /// Sorts `n` items into positions `base..base + n` of the columns `c`: item `j` is
    /// `item(self, j) = [key, value, extra]`, ordered by key, equal keys by
    /// `tie(self, x, y)` on their positions, which reads the main columns of `c` only.
    /// `item` is called in the first pass alone, before anything is written but `c.key`,
    /// `c.value`, `c.extra` and `c.counts`, which it must not read. `base + n ≤ len`.
    ///
    /// The first pass buckets the top bits of `key − min`: a bucket per item up to
    /// [`CACHED`] items when the keys are [`SortColumns::spread`], otherwise up to 2^9
    /// buckets, whose write positions stay in cache; then each bucket of more than a few
    /// items, in cache, is split into 2^6 sub-buckets on the next bits, again and again;
    /// sub-buckets of a few items are sorted by insertion, those whose keys are all equal
    /// (or too deep) by heapsort.
    pub fn sort(
        &mut self,
        n: usize,
        base: usize,
        c: SortColumns,
        item: impl Fn(&Self, usize) -> [u64; 3],
        tie: impl Fn(&Self, usize, usize) -> Ordering,
    ) {
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for j in 0..n {
            let k = item(self, j)[0];
            lo = lo.min(k);
            hi = hi.max(k);
        }
        let span_bits = u64::BITS - hi.saturating_sub(lo).leading_zeros();
        // In the caches, a bucket per item: about one item lands in each, and most need no
        // later pass. Beyond, at least 2^6 items per bucket, so that the later passes have
        // something to split. Either way the counts fit in a column of `n` words.
        let log_n = usize::BITS - 1 - n.max(1).leading_zeros();
        let bits = if c.spread && n <= CACHED {
            log_n.min(span_bits)
        } else {
            log_n.saturating_sub(SUB_BITS).clamp(u32::from(n >= 4), TOP_BITS).min(span_bits)
        };
        let shift = span_bits - bits;
        let buckets = 1usize << bits;
        let bucket = |k: u64| if bits == 0 { 0 } else { ((k - lo) >> shift) as usize };

        for b in 0..buckets {
            self.set(c.counts, b, 0);
        }
        for j in 0..n {
            let b = bucket(item(self, j)[0]);
            let v = self.get(c.counts, b);
            self.set(c.counts, b, v + 1);
        }
        let mut start = base as u64;
        for b in 0..buckets {
            let v = self.get(c.counts, b);
            self.set(c.counts, b, start);
            start += v;
        }
        for j in 0..n {
            let [k, v, x] = item(self, j);
            let b = bucket(k);
            let at = self.get(c.counts, b) as usize;
            self.set(c.counts, b, at as u64 + 1);
            self.set(c.key, at, k);
            self.set(c.value, at, v);
            if let Some(e) = c.extra {
                self.set(e, at, x);
            }
        }
        // Each count now holds its bucket's end, which is the next bucket's start.
        let mut from = base;
        for b in 0..buckets {
            let to = self.index(c.counts, b);
            if to - from > SMALL {
                self.split(c, from, to, &tie, 1, false);
            } else if to - from > 1 {
                self.sort_range(c, from, to, &tie);
            }
            from = to;
        }
    }

    /// A later pass: sorts positions `from..to` through 2^6 sub-buckets on the bits below
    /// the previous pass's, and splits large sub-buckets again. The items are in the main
    /// columns `c`, or with `in_spare` in `c.spare`; each pass places them into the other
    /// set, so no pass copies back (the two sets take turns), and the result always ends in
    /// the main columns: a small sub-bucket placed in the spare set is copied back and
    /// sorted there.
    fn split(
        &mut self,
        c: SortColumns,
        from: usize,
        to: usize,
        tie: &impl Fn(&Self, usize, usize) -> Ordering,
        depth: u32,
        in_spare: bool,
    ) {
        let main = Set { key: c.key, value: c.value, extra: c.extra };
        let [sk, sv, sx] = c.spare;
        let spare = Set { key: sk, value: sv, extra: c.extra.map(|_| sx) };
        let (src, dst) = if in_spare { (spare, main) } else { (main, spare) };
        let key = src.key;
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for i in from..to {
            let k = self.get(key, i);
            lo = lo.min(k);
            hi = hi.max(k);
        }
        let span_bits = u64::BITS - (hi - lo).leading_zeros();
        if span_bits == 0 || depth > MAX_DEPTH || u32::try_from(to - from).is_err() {
            // All keys equal (the order is the tie-break's alone), or too deep.
            if in_spare {
                self.move_range(spare, main, from, to);
            }
            self.sort_range(c, from, to, tie);
            return;
        }
        let bits = span_bits.min(SUB_BITS);
        let shift = span_bits - bits;
        // Offsets from `from`, which fit in u32 (checked above): half the stack.
        let mut counts = [0u32; (1 << SUB_BITS) + 1];
        for i in from..to {
            // Below 2^bits + 1 by construction; `get` keeps the proof free of a panic path.
            if let Some(n) = counts.get_mut(((self.get(key, i) - lo) >> shift) as usize + 1) {
                *n += 1;
            }
        }
        let mut start = 0u32;
        for count in counts.iter_mut() {
            start += *count;
            *count = start;
        }
        // counts[b] is now the end of sub-bucket b − 1, i.e. the start of sub-bucket b.
        for i in from..to {
            let k = self.get(key, i);
            let Some(n) = counts.get_mut(((k - lo) >> shift) as usize) else { continue };
            let at = from + *n as usize;
            *n += 1;
            self.set(dst.key, at, k);
            self.carry(src, i, dst, at);
        }
        // counts[b] now holds the end of sub-bucket b; the items are in `dst`.
        let mut start = from;
        for &end in counts.iter().take(1 << bits) {
            let end = from + end as usize;
            if end - start > SMALL {
                self.split(c, start, end, tie, depth + 1, !in_spare);
            } else {
                if !in_spare {
                    self.move_range(spare, main, start, end);
                }
                if end - start > 1 {
                    self.sort_range(c, start, end, tie);
                }
            }
            start = end;
        }
    }

    /// Copies positions `from..to` of the columns `src` to the same positions of `dst`.
    fn move_range(&mut self, src: Set, dst: Set, from: usize, to: usize) {
        for i in from..to {
            let k = self.get(src.key, i);
            self.set(dst.key, i, k);
            self.carry(src, i, dst, i);
        }
    }

    /// Copies the value (and extra word) of position `i` of `src` to position `at` of `dst`.
    #[inline]
    fn carry(&mut self, src: Set, i: usize, dst: Set, at: usize) {
        let v = self.get(src.value, i);
        self.set(dst.value, at, v);
        if let (Some(s), Some(d)) = (src.extra, dst.extra) {
            let x = self.get(s, i);
            self.set(d, at, x);
        }
    }

    fn less(
        &self,
        c: SortColumns,
        x: usize,
        y: usize,
        tie: &impl Fn(&Self, usize, usize) -> Ordering,
    ) -> bool {
        self.get(c.key, x).cmp(&self.get(c.key, y)).then_with(|| tie(self, x, y)) == Ordering::Less
    }

    fn sort_range(
        &mut self,
        c: SortColumns,
        from: usize,
        to: usize,
        tie: &impl Fn(&Self, usize, usize) -> Ordering,
    ) {
        if to - from <= SMALL {
            for i in from + 1..to {
                let mut j = i;
                while j > from && self.less(c, j, j - 1, tie) {
                    self.swap_items(c, j, j - 1);
                    j -= 1;
                }
            }
            return;
        }
        // A run of equal keys arrives here in placement order, which every pass keeps
        // (stable): for ties by input position it is sorted already, and a platform of a
        // few kinds of identical workers is such runs of 10⁵ items, which the heapsort
        // took seconds over.
        if (from + 1..to).all(|i| !self.less(c, i, i - 1, tie)) {
            return;
        }
        let n = to - from;
        for i in (0..n / 2).rev() {
            self.sift_down(c, from, i, n, tie);
        }
        for end in (1..n).rev() {
            self.swap_items(c, from, from + end);
            self.sift_down(c, from, 0, end, tie);
        }
    }

    fn sift_down(
        &mut self,
        c: SortColumns,
        from: usize,
        mut i: usize,
        n: usize,
        tie: &impl Fn(&Self, usize, usize) -> Ordering,
    ) {
        loop {
            let mut child = 2 * i + 1;
            if child >= n {
                return;
            }
            if child + 1 < n && self.less(c, from + child, from + child + 1, tie) {
                child += 1;
            }
            if !self.less(c, from + i, from + child, tie) {
                return;
            }
            self.swap_items(c, from + i, from + child);
            i = child;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    struct Rec([u64; WORDS]);

    impl Words for Rec {
        fn words(&self) -> &[u64; WORDS] {
            &self.0
        }
        fn words_mut(&mut self) -> &mut [u64; WORDS] {
            &mut self.0
        }
    }

    const C: SortColumns =
        SortColumns { key: 1, value: 2, extra: Some(3), counts: 4, spare: [5, 6, 7], spread: false };

    /// Sorts `keys` (column 0) and checks the order against a comparison sort, for key
    /// sets that are spread, bunched, equal, and tiny, clustered so that the passes recurse
    /// from the spare columns (runs of equal keys among them), and keys that peel one
    /// power of two a pass (2⁶³, 2⁵⁷, …, 2⁹, 2⁸) and leave 0 and 1 past the depth limit.
    #[test]
    fn sorts_like_a_comparison_sort() {
        let mut rnd = crate::num::xorshift(7);
        for n in [1usize, 2, 3, 4, 5, 17, 100, 1000, 5000] {
            for shape in 0..7 {
                let keys: [u64; 5000] = core::array::from_fn(|_| match shape {
                    0 => rnd(),
                    1 => rnd() % 7,
                    2 => 42,
                    3 => (1 << 40) + (rnd() % 1000) * (1 << 20),
                    6 if rnd() % 2 == 0 => rnd() % 2,
                    6 => 1 << [63, 57, 51, 45, 39, 33, 27, 21, 15, 9, 8][(rnd() % 11) as usize],
                    4 => ((rnd() % 4) << 50) | (rnd() % 300),
                    _ => ((rnd() % 4) << 50) | ((rnd() % 3) << 20),
                });
                // Ties by input position, which the passes keep (equal keys need no sort),
                // and by its reverse (the heapsort's); a first pass of a few buckets, and
                // one of a bucket per item.
                for (reversed, spread) in [(false, false), (true, false), (false, true), (true, true)] {
                    let c = SortColumns { spread, ..C };
                    let mut recs = [Rec([0; WORDS]); 5000];
                    let mut cols = Columns::new(&mut recs[..n]);
                    for (j, &k) in keys[..n].iter().enumerate() {
                        cols.set(0, j, k);
                    }
                    cols.sort(
                        n - 1,
                        1,
                        c,
                        |c, j| [c.get(0, j), j as u64, !(j as u64)],
                        |c, x, y| {
                            let order = c.get(C.value, x).cmp(&c.get(C.value, y));
                            if reversed {
                                order.reverse()
                            } else {
                                order
                            }
                        },
                    );
                    let mut want: [(u64, u64); 5000] =
                        core::array::from_fn(|j| (keys[j], if reversed { !(j as u64) } else { j as u64 }));
                    want[..n - 1].sort_unstable();
                    for (i, &(k, j)) in want[..n - 1].iter().enumerate() {
                        let j = if reversed { !j } else { j };
                        assert_eq!(
                            (cols.get(C.key, i + 1), cols.get(C.value, i + 1)),
                            (k, j),
                            "n={n} shape={shape} reversed={reversed} spread={spread} at {i}"
                        );
                        assert_eq!(cols.get(3, i + 1), !j);
                    }
                }
            }
        }
    }
}
