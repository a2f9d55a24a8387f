//! Rational shares for a fixed send order: equal finish times among the participants.
//!
//! genaud2003 Thm 1 gives the shares when every worker takes part and costs are linear,
//! as a sum of products of `μⱼ/(λⱼ+μⱼ)`. With 10⁶ workers those products underflow (in
//! `f32` far sooner), so this module never forms them. It composes *suffix lines* backwards:
//! the workers from position `k` on, sharing `m` items with equal finish times, finish
//! `c + m/r` seconds after the root starts sending to position `k`. For a worker with
//! latencies `a, b` and rates `λ, μ` in front of a suffix `(c, r)`:
//!
//! * it keeps `x = (r·(c − b) + m) / (μ·r + 1)` items (equal finish times),
//! * and the longer suffix has `r' = (μ·r + 1)/(λ + μ)`, `c' = a + b + r·(c − b)/r'`.
//!
//! With `a = b = 0` this is Thm 1 written as a recursion on `1/D`, and the choice "take
//! part iff `λ·r < 1`" is Thm 2 with `D` taken over the *retained* suffix. The paper's
//! statement takes `D(P_{i+1}, …, P_p)` over all later workers, which is wrong as soon as
//! one of them drops out. For linear costs the result is the exact optimum of LP (3).
//!
//! With latencies, a worker given nothing pays nothing, so which workers take part depends
//! on how many items reach them. The solver alternates a backward choice (given the items
//! reaching each position) with a forward pass (giving the items reaching each position),
//! keeping the best plan, until it stops improving. The result is feasible but not always
//! optimal; [`lower_bound`] gives a certified lower bound for any plan in the same order.

use crate::kernel::chain::Chain;
use crate::kernel::columns::Columns;
use crate::kernel::fp;
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::rows::Rows;
use crate::scatter::types::{col, Costs, Scratch};

/// `col::LINK` value: the participant has no successor.
pub(crate) const END: usize = usize::MAX;
/// `col::LINK` value: the worker does not take part.
pub(crate) const SKIP: usize = usize::MAX - 1;

/// Upper limit on backward/forward rounds when latencies make participation depend on the
/// load; each round is O(p) and the loop stops as soon as a round does not improve.
const MAX_ROUNDS: usize = 16;

/// What the rational solver found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rational<N> {
    /// Makespan of the rational plan (latencies charged to participants only).
    pub makespan: N,
    /// `true` when the plan is the proven optimum for this order (all costs linear).
    pub exact: bool,
    /// With linear costs, the throughput behind [`lower_bound`] for this order (which then
    /// depends on neither `upper` nor the order's freedom; [`bound_of`] gives the bound),
    /// computed by the backward pass alongside its own chain: the two recursions' divisions
    /// overlap instead of taking a pass each (issue 45).
    pub linear_r: Option<f64>,
}

type Cols<'a, 'b, N> = &'a mut Columns<'b, Scratch<N>>;

/// Solves for rational shares of `items` over the send order in the scratch columns
/// (`order::send_order`). When `out` is given, writes each position's worker and share
/// there; choosing a root needs only the makespan. O(p) per round.
pub(crate) fn solve<N: Real, R: Rows<N> + ?Sized>(
    costs: &Costs<'_, N>,
    items: N,
    cols: Cols<'_, '_, N>,
    mut out: Option<&mut R>,
) -> Rational<N> {
    let linear = costs.linear;
    if !linear {
        // Linear costs read `items` for every position instead (`choose_backward`).
        for k in 0..cols.len() {
            cols.set_real(col::REACHING, k, items);
        }
    }
    let mut best: Option<N> = None;
    let mut linear_r = None;
    for _ in 0..MAX_ROUNDS {
        let (head, bound_r) = choose_backward(costs, items, cols);
        // Linear costs: every participant finishes at `T = items / r` of the head's suffix
        // line, a quotient of sums and products of positive terms (relative error γ₄ₚ₊₁).
        // Walking the chain over the shares instead adds up shares that were themselves
        // derived from `T`, and loses the digits the issue 11 reproducers lost.
        let head_r = if head < cols.len() { cols.real(col::LINE_R, head) } else { N::ZERO };
        if linear && head_r > N::ZERO {
            // One round, whose shares are the plan: the forward pass places them straight
            // into `out` (none needed to choose a root), with no columns of its own.
            if let Some(out) = out.as_deref_mut() {
                place_forward(costs, items, head, cols, out);
            }
            return Rational { makespan: items / head_r, exact: true, linear_r: Some(bound_r) };
        }
        if linear {
            linear_r = Some(bound_r);
        }
        distribute_forward(costs, items, head, cols);
        let t = makespan_of_shares(costs, cols);
        match best {
            Some(b) if t >= b => break,
            _ => {
                best = Some(t);
                if let Some(out) = out.as_deref_mut() {
                    for k in 0..out.len() {
                        out.place(k, cols.index(col::WORKER, k), cols.real(col::SHARE, k));
                    }
                }
            }
        }
        if linear {
            break;
        }
    }
    Rational { makespan: best.unwrap_or(N::ZERO), exact: linear, linear_r }
}

/// Backward pass: decides who takes part, given the items reaching each position
/// (`REACHING`; with linear costs, whose one round has all `items` reach every position,
/// `items`), and stores each participant's suffix line. Returns the first participant
/// and, with linear costs, the throughput [`lower_bound`] would find (0 otherwise).
fn choose_backward<N: Real>(costs: &Costs<'_, N>, items: N, cols: Cols<'_, '_, N>) -> (usize, f64) {
    let mut head = END;
    let (mut c, mut r) = (N::ZERO, N::ZERO);
    let mut bound_r = 0.0f64;
    for k in (0..cols.len()).rev() {
        let w = costs.at(cols, k, || cols.index(col::WORKER, k));
        if costs.linear {
            let m = items;
            bound_r = bound_step(bound_r, w.comm_per_item.to_f64(), w.comp_per_item.to_f64());
            // The general step below with both latencies and `c` zero, written without the
            // operations that are exact no-ops there (`0 + x`, `r·(0 − 0)`) and without
            // the divisions whose result is then 0 or unused: the same values bit for bit,
            // two divisions fewer per worker on the chain's critical path.
            let rate = w.comm_per_item + w.comp_per_item;
            let mut best = rate * m;
            let mut joined = None;
            if head != END {
                let denominator = w.comp_per_item * r + N::ONE;
                let x = m / denominator;
                if x > N::ZERO && x < m && rate * x <= best {
                    best = rate * x;
                    joined = Some(denominator / rate);
                }
                if m / r <= best {
                    cols.set(col::LINK, k, SKIP as u64);
                    continue;
                }
            }
            let (link, r_new) = match joined {
                Some(r2) => (head, r2),
                None => (END, N::ONE / rate),
            };
            cols.set(col::LINK, k, link as u64);
            cols.set_real(col::LINE_C, k, N::ZERO);
            cols.set_real(col::LINE_R, k, r_new);
            (c, r, head) = (N::ZERO, r_new, k);
            continue;
        }
        let m = cols.real::<N>(col::REACHING, k);
        let rate = w.comm_per_item + w.comp_per_item;
        let fixed = w.comm_latency + w.comp_latency;

        let alone = fixed + rate * m;
        let skip = if head == END { None } else { Some(c + m / r) };
        let with = if head == END {
            None
        } else {
            let x = (r * (c - w.comp_latency) + m) / (w.comp_per_item * r + N::ONE);
            (x > N::ZERO && x < m).then(|| {
                let r2 = (w.comp_per_item * r + N::ONE) / rate;
                let c2 = fixed + r * (c - w.comp_latency) / r2;
                (fixed + rate * x, c2, r2)
            })
        };

        // Ties go to fewer participants: for linear costs `with == skip` exactly when
        // λ·r = 1, where taking part gains nothing (Thm 2).
        let mut choice = (alone, fixed, N::ONE / rate, END);
        if let Some((t, c2, r2)) = with {
            if t <= choice.0 {
                choice = (t, c2, r2, head);
            }
        }
        match skip {
            Some(t) if t <= choice.0 => cols.set(col::LINK, k, SKIP as u64),
            _ => {
                cols.set(col::LINK, k, choice.3 as u64);
                cols.set_real(col::LINE_C, k, choice.1);
                cols.set_real(col::LINE_R, k, choice.2);
                (c, r, head) = (choice.1, choice.2, k);
            }
        }
    }
    (head, bound_r)
}

/// Forward pass: gives each participant its equal-finish share of what reaches it, and
/// records the items reaching every position in `REACHING`.
///
/// With linear costs what is left for the suffix is not computed as `remaining − x`: when
/// one worker takes almost everything (a fast root next to a slow link) that difference
/// cancels all but a few digits. From `x = m/(μ·r + 1)`, the rest is `m·μ·r/(μ·r + 1)`,
/// a product and quotient of positive terms, accurate to a few ulps whatever the ratio of
/// the costs. With latencies the rest `r·(μ·m + b − c)/(μ·r + 1)` subtracts anyway, and
/// `remaining − x` keeps the shares adding up to the items in every number type.
fn distribute_forward<N: Real>(costs: &Costs<'_, N>, items: N, head: usize, cols: Cols<'_, '_, N>) {
    let mut remaining = items;
    let mut next = head;
    let p = cols.len();
    for k in 0..p {
        cols.set_real(col::REACHING, k, remaining);
        if k != next {
            cols.set_real(col::SHARE, k, N::ZERO);
            continue;
        }
        let (x, rest, after) = forward_step(costs, cols, k, remaining);
        cols.set_real(col::SHARE, k, x);
        remaining = rest;
        next = after;
    }
}

/// [`distribute_forward`] for one round of linear costs, into the plan's rows: each
/// position's worker and share, the same values, without the columns of the items reaching
/// each position and of the shares, which nothing reads after that round.
fn place_forward<N: Real, R: Rows<N> + ?Sized>(
    costs: &Costs<'_, N>,
    items: N,
    head: usize,
    cols: &Columns<'_, Scratch<N>>,
    out: &mut R,
) {
    let mut remaining = items;
    let mut next = head;
    for k in 0..out.len() {
        let worker = cols.index(col::WORKER, k);
        if k != next {
            out.place(k, worker, N::ZERO);
            continue;
        }
        let (x, rest, after) = forward_step(costs, cols, k, remaining);
        out.place(k, worker, x);
        remaining = rest;
        next = after;
    }
}

/// The participant at position `k`, reached by `remaining` items: its share, the items
/// left for the rest of its line, and the next participant.
#[inline]
fn forward_step<N: Real>(
    costs: &Costs<'_, N>,
    cols: &Columns<'_, Scratch<N>>,
    k: usize,
    remaining: N,
) -> (N, N, usize) {
    let p = cols.len();
    let after = cols.index(col::LINK, k);
    let (x, rest) = if after == END || after >= p {
        (remaining, N::ZERO)
    } else {
        let w = costs.at(cols, k, || cols.index(col::WORKER, k));
        let (c, r) = (cols.real::<N>(col::LINE_C, after), cols.real::<N>(col::LINE_R, after));
        let denominator = w.comp_per_item * r + N::ONE;
        let x = (r * (c - w.comp_latency) + remaining) / denominator;
        let rest = if c == N::ZERO && w.comp_latency == N::ZERO {
            r * (w.comp_per_item * remaining) / denominator
        } else {
            remaining - x
        };
        (x.max_of(N::ZERO).min_of(remaining), rest.max_of(N::ZERO).min_of(remaining))
    };
    (x, rest, after)
}

/// Makespan of the rational shares in the `SHARE` column (latencies charged to
/// participants only).
fn makespan_of_shares<N: Real>(costs: &Costs<'_, N>, cols: &Columns<'_, Scratch<N>>) -> N {
    let mut chain = Chain::new();
    for k in 0..cols.len() {
        let w = costs.at(cols, k, || cols.index(col::WORKER, k));
        let share = cols.real(col::SHARE, k);
        chain.serve(w.comm_time(share), w.comp_time(share));
    }
    chain.makespan()
}

/// A certified lower bound on the makespan of *any* plan, rational or integer, that serves
/// the workers in the order `order(0..len)` (or in any order, below) and whose exact makespan is at most `upper`
/// (an upper bound on the exact makespan of a plan we have, see [`fp::exact_at_most`]).
///
/// Relaxing `a + λx` (for `x > 0`, 0 at 0) to its convex envelope on `[0, u]`, the line
/// `(λ + a/u)·x`, only lowers every finish time, and a plan with makespan `≤ upper` gives a
/// participant at most `u = (upper − a − b)/(λ + μ)` items. The relaxed problem has linear
/// costs, so the exact backward recursion solves it: the suffix throughput is
/// `max(r, (μ·r + 1)/(λ + μ))`, which is Thm 2's choice (`λ·r < 1`) written without a test
/// that rounding could tip. With no latencies the bound is the rational optimum.
///
/// With `any_order` the bound holds for every order of the same workers (the root where
/// its mode puts it), taken in the bandwidth order: both latencies are spread over the
/// worker's own items, `(μ + (a + b)/u)·x`, and the port is left at `λ·x`. Every finish
/// time only drops again (the port frees earlier, and `(a + b)·x/u ≤ a + b`), and for the
/// linear relaxation the bandwidth order is optimal (Thm 3), so its value bounds the
/// relaxation, hence the problem, in any order.
///
/// Computed in `f64` whatever `N` is, and safe in floating point: `u` is rounded up and the
/// relaxed rates down (a weaker relaxation is still a relaxation), the recursion uses only
/// sums, products and quotients of positive terms (4 roundings per worker, whose relative
/// errors do not grow along the chain because `μ·r/(μ·r + 1) < 1`), and the result is
/// lowered by that error bound ([`fp::below`]). The returned value is at most the exact
/// optimum of the relaxation.
pub(crate) fn lower_bound<N: Real>(
    len: usize,
    at: impl Fn(usize) -> Worker<N>,
    items: u64,
    upper: f64,
    any_order: bool,
) -> f64 {
    let items = items as f64;
    let mut r = 0.0f64;
    for k in (0..len).rev() {
        let w: Worker<N> = at(k);
        let (lambda, mu) = (w.comm_per_item.to_f64(), w.comp_per_item.to_f64());
        let (a, b) = (w.comm_latency.to_f64(), w.comp_latency.to_f64());
        let (lambda, mu) = if a == 0.0 && b == 0.0 {
            (lambda, mu)
        } else {
            // One rounding in the subtraction of two exact values, one in the quotient.
            let room = upper - fp::below(a + b, 1);
            if room <= 0.0 {
                continue; // cannot take part in a plan that finishes by `upper`
            }
            let u = fp::above(room / fp::below(lambda + mu, 1), 2).min(items);
            if any_order {
                // Over every order: both latencies spread over the worker's own items, the
                // port left linear, so that the bandwidth order is the relaxation's best
                // (Thm 3) and the recursion in it bounds every order.
                (lambda, fp::below(mu + fp::below(a + b, 1) / u, 3))
            } else {
                (fp::below(lambda + a / u, 2), fp::below(mu + b / u, 2))
            }
        };
        r = bound_step(r, lambda, mu);
    }
    bound_of(r, items, len)
}

/// One worker in front of the relaxed suffix of throughput `r` ([`lower_bound`]).
#[inline]
fn bound_step(r: f64, lambda: f64, mu: f64) -> f64 {
    r.max((mu * r + 1.0) / (lambda + mu))
}

/// [`lower_bound`]'s value from the throughput of all `len` workers.
pub(crate) fn bound_of(r: f64, items: f64, len: usize) -> f64 {
    if r > 0.0 {
        // γ for 4 roundings per worker and the quotient, doubled to cover the first-order
        // terms of both directions of the comparison.
        fp::below(items / r, 8 * len as u64 + 8)
    } else {
        0.0
    }
}
