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
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::Costs;
use crate::scatter::types::Scratch;

/// `Scratch::link` value: the participant has no successor.
pub(crate) const END: usize = usize::MAX;
/// `Scratch::link` value: the worker does not take part.
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
}

/// Solves for rational shares of `items` over the send order in `slots[..].worker`.
///
/// Writes `slots[k].share`. Uses every other field of `slots[k]`. O(p) per round.
pub(crate) fn solve<N: Real>(costs: &Costs<'_, N>, items: N, slots: &mut [Scratch<N>]) -> Rational<N> {
    let linear = slots.iter().all(|s| costs.of(s.worker).is_linear());
    for s in slots.iter_mut() {
        s.reaching = items;
    }
    let mut best: Option<N> = None;
    for _ in 0..MAX_ROUNDS {
        let head = choose_backward(costs, slots);
        distribute_forward(costs, items, head, slots);
        let t = makespan_of_shares(costs, slots);
        match best {
            Some(b) if t >= b => break,
            _ => {
                best = Some(t);
                for s in slots.iter_mut() {
                    s.best = s.share;
                }
            }
        }
        if linear {
            break;
        }
    }
    for s in slots.iter_mut() {
        s.share = s.best;
    }
    Rational { makespan: best.unwrap_or(N::ZERO), exact: linear }
}

/// Backward pass: decides who takes part, given the items reaching each position
/// (`reaching`), and stores each participant's suffix line. Returns the first participant.
fn choose_backward<N: Real>(costs: &Costs<'_, N>, slots: &mut [Scratch<N>]) -> usize {
    let mut head = END;
    let (mut c, mut r) = (N::ZERO, N::ZERO);
    for k in (0..slots.len()).rev() {
        let w = costs.of(slots[k].worker);
        let m = slots[k].reaching;
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
            Some(t) if t <= choice.0 => slots[k].link = SKIP,
            _ => {
                slots[k].link = choice.3;
                slots[k].line_c = choice.1;
                slots[k].line_r = choice.2;
                (c, r, head) = (choice.1, choice.2, k);
            }
        }
    }
    head
}

/// Forward pass: gives each participant its equal-finish share of what reaches it, and
/// records the items reaching every position in `reaching`.
fn distribute_forward<N: Real>(costs: &Costs<'_, N>, items: N, head: usize, slots: &mut [Scratch<N>]) {
    let mut remaining = items;
    let mut next = head;
    for k in 0..slots.len() {
        slots[k].reaching = remaining;
        if k != next {
            slots[k].share = N::ZERO;
            continue;
        }
        let w = costs.of(slots[k].worker);
        let after = slots[k].link;
        let x = if after == END || after >= slots.len() {
            remaining
        } else {
            let (c, r) = (slots[after].line_c, slots[after].line_r);
            let x = (r * (c - w.comp_latency) + remaining) / (w.comp_per_item * r + N::ONE);
            x.max_of(N::ZERO).min_of(remaining)
        };
        slots[k].share = x;
        remaining = remaining - x;
        next = after;
    }
}

/// Makespan of the rational shares in `slots` (latencies charged to participants only).
pub(crate) fn makespan_of_shares<N: Real>(costs: &Costs<'_, N>, slots: &[Scratch<N>]) -> N {
    let mut chain = Chain::new();
    for s in slots {
        let w = costs.of(s.worker);
        chain.serve(w.comm_time(s.share), w.comp_time(s.share));
    }
    chain.makespan()
}

/// A certified lower bound on the makespan of *any* plan, rational or integer, that serves
/// the workers in the order `order(0..len)` and whose makespan is at most `upper`.
///
/// Relaxing `a + λx` (for `x > 0`, 0 at 0) to its convex envelope on `[0, u]`, the line
/// `(λ + a/u)·x`, only lowers every finish time, and a plan with makespan `≤ upper` gives a
/// participant at most `u = (upper − a − b)/(λ + μ)` items. The relaxed problem has linear
/// costs, so the exact backward recursion solves it. With no latencies the bound equals
/// the rational optimum.
pub(crate) fn lower_bound<N: Real>(
    costs: &Costs<'_, N>,
    len: usize,
    order: impl Fn(usize) -> usize,
    items: N,
    upper: N,
) -> N {
    let mut r = N::ZERO;
    for k in (0..len).rev() {
        let w: Worker<N> = costs.of(order(k));
        let rate = w.comm_per_item + w.comp_per_item;
        let fixed = w.comm_latency + w.comp_latency;
        let (lambda, mu) = if fixed == N::ZERO {
            (w.comm_per_item, w.comp_per_item)
        } else {
            let u = ((upper - fixed) / rate).min_of(items);
            if u <= N::ZERO {
                continue; // cannot take part in a plan that finishes by `upper`
            }
            (w.comm_per_item + w.comm_latency / u, w.comp_per_item + w.comp_latency / u)
        };
        if r == N::ZERO {
            r = N::ONE / (lambda + mu);
        } else if lambda * r < N::ONE {
            r = (mu * r + N::ONE) / (lambda + mu);
        }
    }
    if r > N::ZERO {
        items / r
    } else {
        upper
    }
}
