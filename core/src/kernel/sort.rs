//! A comparison sort with no panic path: insertion sort for a few elements, heapsort
//! beyond, in place, constant stack.
//!
//! Why not `sort_unstable_by`: since Rust 1.81 the standard sorts may panic when a
//! comparison is not a total order, and that panic path stays in every caller, which
//! the `nopanic` link proof (issue 15) cannot allow. The slices sorted here are the
//! multi-cluster model's classes and the like: short, so O(n log n) with small constants
//! is plenty.

/// Sorts `v` so that no element is `less` than the one before it. Not stable.
pub(crate) fn sort_by<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = v.len();
    if n <= 16 {
        for i in 1..n {
            let mut j = i;
            while j > 0 && is_less(v, j, j - 1, &less) {
                swap(v, j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    for i in (0..n / 2).rev() {
        sift_down(v, i, n, &less);
    }
    for end in (1..n).rev() {
        swap(v, 0, end);
        sift_down(v, 0, end, &less);
    }
}

fn is_less<T>(v: &[T], i: usize, j: usize, less: &impl Fn(&T, &T) -> bool) -> bool {
    matches!((v.get(i), v.get(j)), (Some(a), Some(b)) if less(a, b))
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

fn sift_down<T>(v: &mut [T], mut i: usize, n: usize, less: &impl Fn(&T, &T) -> bool) {
    loop {
        let mut child = 2 * i + 1;
        if child >= n {
            return;
        }
        if child + 1 < n && is_less(v, child, child + 1, less) {
            child += 1;
        }
        if !is_less(v, i, child, less) {
            return;
        }
        swap(v, i, child);
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
}
