//! A comparison sort with no panic path: insertion sort for a few elements, heapsort
//! beyond, in place, constant stack.
//!
//! Why not `sort_unstable_by`: since Rust 1.81 the standard sorts may panic when a
//! comparison is not a total order, and that panic path stays in every caller, which
//! the `nopanic` link proof (issue 15) cannot allow. The slices sorted here are the
//! multi-cluster model's classes, the ring's candidate insertions and the like: short, so
//! O(n log n) with small constants is plenty.

/// Sorts `v` so that no element is `less` than the one before it. Not stable.
pub(crate) fn sort_by<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    sort(&mut One { v, less });
}

/// Sorts the pairs `(a[i], b[i])` of two parallel slices (as long as the shorter) so that
/// no pair is `less` than the one before it. Not stable. For keys and indices kept in two
/// scratch pools of different types, which a slice of tuples could not borrow.
pub(crate) fn sort_pairs_by<A, B>(a: &mut [A], b: &mut [B], less: impl Fn((&A, &B), (&A, &B)) -> bool) {
    let n = a.len().min(b.len());
    let (Some(a), Some(b)) = (a.get_mut(..n), b.get_mut(..n)) else { return };
    sort(&mut Two { a, b, less });
}

/// What the sort reorders: elements compared and swapped by position.
trait Items {
    fn len(&self) -> usize;
    /// `false` when either position is out of range.
    fn less(&self, i: usize, j: usize) -> bool;
    fn swap(&mut self, i: usize, j: usize);
}

struct One<'a, T, F> {
    v: &'a mut [T],
    less: F,
}

impl<T, F: Fn(&T, &T) -> bool> Items for One<'_, T, F> {
    fn len(&self) -> usize {
        self.v.len()
    }

    fn less(&self, i: usize, j: usize) -> bool {
        matches!((self.v.get(i), self.v.get(j)), (Some(a), Some(b)) if (self.less)(a, b))
    }

    fn swap(&mut self, i: usize, j: usize) {
        swap(self.v, i, j);
    }
}

struct Two<'a, A, B, F> {
    a: &'a mut [A],
    b: &'a mut [B],
    less: F,
}

impl<A, B, F: Fn((&A, &B), (&A, &B)) -> bool> Items for Two<'_, A, B, F> {
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    fn less(&self, i: usize, j: usize) -> bool {
        match (self.a.get(i), self.b.get(i), self.a.get(j), self.b.get(j)) {
            (Some(ai), Some(bi), Some(aj), Some(bj)) => (self.less)((ai, bi), (aj, bj)),
            _ => false,
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        swap(self.a, i, j);
        swap(self.b, i, j);
    }
}

fn sort(v: &mut impl Items) {
    let n = v.len();
    if n <= 16 {
        for i in 1..n {
            let mut j = i;
            while j > 0 && v.less(j, j - 1) {
                v.swap(j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    for i in (0..n / 2).rev() {
        sift_down(v, i, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// Swaps `v[i]` and `v[j]`; nothing when either is out of range.
pub(crate) fn swap<T>(v: &mut [T], i: usize, j: usize) {
    let (i, j) = if i < j { (i, j) } else { (j, i) };
    if let Some((low, high)) = v.split_at_mut_checked(j) {
        if let (Some(a), Some(b)) = (low.get_mut(i), high.first_mut()) {
            core::mem::swap(a, b);
        }
    }
}

fn sift_down(v: &mut impl Items, mut i: usize, n: usize) {
    loop {
        let mut child = 2 * i + 1;
        if child >= n {
            return;
        }
        if child + 1 < n && v.less(child, child + 1) {
            child += 1;
        }
        if !v.less(i, child) {
            return;
        }
        v.swap(i, child);
        i = child;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_standard_sort() {
        let mut seed = 99u64;
        for n in 0..200usize {
            let mut v = [0u64; 200];
            for x in v.iter_mut().take(n) {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *x = (seed >> 33) % (n as u64 / 3 + 1);
            }
            let mut want = v;
            want[..n].sort_unstable();
            sort_by(&mut v[..n], |a, b| a < b);
            assert_eq!(v[..n], want[..n], "n = {n}");
        }
    }

    /// Pairs sort as a slice of tuples would, the second slice following the first.
    #[test]
    fn sorts_pairs_like_tuples() {
        let mut seed = 7u64;
        for n in 0..100usize {
            let mut keys = [0u64; 100];
            let mut idx = [0usize; 100];
            for (k, (x, i)) in keys.iter_mut().zip(idx.iter_mut()).enumerate().take(n) {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *x = (seed >> 33) % (n as u64 / 4 + 1);
                *i = (k * 37) % 101;
            }
            let mut want: [(u64, usize); 100] = core::array::from_fn(|k| (keys[k], idx[k]));
            want[..n].sort_unstable();
            sort_pairs_by(&mut keys[..n], &mut idx[..n], |(ka, ia), (kb, ib)| {
                ka < kb || (ka == kb && ia < ib)
            });
            for k in 0..n {
                assert_eq!((keys[k], idx[k]), want[k], "n = {n}, k = {k}");
            }
        }
    }
}
