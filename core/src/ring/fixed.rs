//! One ring with fixed communication times (legrand2003 eq. 1, 3, 4; `ring.md` §2–3): its
//! rational value `V = max(T₄, max d)` (eq. (4) is the optimum only while no member's
//! communication alone exceeds it) and the optimal integer counts with every member
//! holding one column at least (water-filling, then the cheapest increments).

use super::Member;

/// `V = max(T₄, max d)` of the members `ring` (processor indices) whose communication
/// times are `d` (same positions), over `work` columns of cycle times `w` (§2.1).
pub(crate) fn value(w: &[f64], ring: &[usize], d: &[f64], work: u64) -> f64 {
    if ring.len() == 1 {
        return ring.first().and_then(|&i| w.get(i)).map_or(f64::INFINITY, |&wi| wi * work as f64);
    }
    let (mut inv, mut weighted, mut most) = (0.0, 0.0, 0.0f64);
    for (&i, &di) in ring.iter().zip(d) {
        let wi = w.get(i).copied().unwrap_or(f64::INFINITY);
        inv += 1.0 / wi;
        weighted += di / wi;
        most = most.max(di);
    }
    ((work as f64 + weighted) / inv).max(most)
}

/// The water level of the relaxation with `n_i ≥ 1`: `W − q` free columns over
/// `d'_i = d_i + w_i` (§3 step 1); `members` hold `d` in `comm_time` and `w` in
/// `compute_time`.
fn level(members: &[Member], sorted: &mut [usize], free: f64) -> f64 {
    let dd = |k: usize| members.get(k).map_or(f64::INFINITY, |m| m.comm_time + m.compute_time);
    for (k, s) in sorted.iter_mut().enumerate() {
        *s = k;
    }
    crate::kernel::sort::sort_by(sorted, |&a, &b| dd(a) < dd(b));
    let (mut inv, mut weighted, mut level) = (0.0, 0.0, 0.0);
    for (j, &k) in sorted.iter().enumerate() {
        let wk = members.get(k).map_or(f64::INFINITY, |m| m.compute_time);
        inv += 1.0 / wk;
        weighted += dd(k) / wk;
        level = (free + weighted) / inv;
        if sorted.get(j + 1).is_none_or(|&n| level <= dd(n)) {
            break;
        }
    }
    level
}

/// The optimal integer counts of a ring, every member at least one column (§3), into
/// `members`, whose `comm_time` holds each member's `d` on entry; returns `T_int`, or
/// `None` when the ring has more members than columns or a buffer is short. `sorted`
/// holds `q` indices of working memory. O(q log q + q²), whatever `work` is.
pub(crate) fn counts(
    w: &[f64],
    ring: &[usize],
    work: u64,
    members: &mut [Member],
    sorted: &mut [usize],
) -> Option<f64> {
    let q = ring.len();
    if (work as u128) < q as u128 || q == 0 {
        return None;
    }
    let members = members.get_mut(..q)?;
    let sorted = sorted.get_mut(..q)?;
    // `compute_time` holds w_i until the counts are known.
    for (m, &i) in members.iter_mut().zip(ring) {
        m.processor = i;
        m.compute_time = *w.get(i)?;
    }
    let free = work - q as u64;
    let level = level(members, sorted, free as f64);
    let mut total = 0u64;
    for m in members.iter_mut() {
        let y = ((level - m.comm_time - m.compute_time) / m.compute_time).max(0.0);
        m.share = 1.0 + y;
        m.count = 1 + (y as u64).min(free);
        total = total.saturating_add(m.count);
    }
    // In exact arithmetic the floors of the level miss fewer than q columns. Where the
    // level is lost in rounding (a cycle time of 10⁻³⁰⁰ beside communications of 1 s,
    // 2⁵³ columns) they can miss nearly all of them, and one column a step would take
    // `work` steps: then the least time that holds them all, by bisection.
    if total.abs_diff(work) > q as u64 {
        return filled(members, work);
    }
    let finish = |m: &Member, extra: u64| m.count.saturating_add(extra) as f64 * m.compute_time + m.comm_time;
    // Rounding may overshoot by a column or two: take them from the latest finishers.
    while total > work {
        let (k, _) = members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.count > 1)
            .max_by(|(a, x), (b, y)| finish(x, 0).total_cmp(&finish(y, 0)).then(b.cmp(a)))?;
        members.get_mut(k)?.count -= 1;
        total -= 1;
    }
    // The missing columns, each where it finishes earliest (ties to the earlier member).
    while total < work {
        let (k, _) =
            members.iter().enumerate().min_by(|(_, x), (_, y)| finish(x, 1).total_cmp(&finish(y, 1)))?;
        members.get_mut(k)?.count += 1;
        total += 1;
    }
    Some(finished(members))
}

/// The members' compute times from their counts, and the ring's integer makespan.
fn finished(members: &mut [Member]) -> f64 {
    let mut makespan = 0.0f64;
    for m in members.iter_mut() {
        m.compute_time *= m.count as f64;
        makespan = makespan.max(m.compute_time + m.comm_time);
    }
    makespan
}

/// The optimal counts (each member's `w` in `compute_time`, `d` in `comm_time`) as the
/// least `T` at which `Σ min(work, ⌊(T − dᵢ)/wᵢ⌋) ≥ work` with every member one column
/// at least (`kernel::search`, 65 passes of q), each member then filled up to its
/// columns by `T` in ring order; returns `T_int` (infinite when it is beyond `f64`).
fn filled(members: &mut [Member], work: u64) -> Option<f64> {
    let columns = |m: &Member, t: f64| -> u64 {
        let n = (t - m.comm_time) / m.compute_time;
        if n >= work as f64 {
            work
        } else if n >= 1.0 {
            n as u64
        } else {
            0
        }
    };
    let fit = |t: f64| {
        let mut sum = 0u64;
        for m in members.iter() {
            match columns(m, t) {
                0 => return 0,
                n => sum = sum.saturating_add(n),
            }
        }
        sum
    };
    // Any member alone holds everything by `d + work·w` (at most the largest `f64`).
    let hi = members.iter().map(|m| m.comm_time + work as f64 * m.compute_time).fold(0.0, f64::max);
    let t = crate::kernel::search::smallest_reaching(work, hi.min(f64::MAX), fit);
    let mut left = work.checked_sub(members.len() as u64)?;
    for m in members.iter_mut() {
        let more = columns(m, t).saturating_sub(1).min(left);
        m.count = 1 + more;
        left -= more;
    }
    // Columns left over mean the ring's time leaves `f64`: the caller's overflow error.
    Some(if left == 0 { finished(members) } else { f64::INFINITY })
}
