#!/usr/bin/env python3
"""Exact-rational reference for divisible loads with return messages (star, one-port master).

Model (see NOTES.md): master P0 does not compute; worker i: receive c_i*a, compute w_i*a, return d_i*a.
Scenario = (participants in send order sigma1, return order sigma2). Horizon T = 1, maximise sum a_i.
  full duplex ('FD'): master may send and receive simultaneously.
  half duplex ('HD'): it may not  ->  one extra row  sum_j (c_j + d_j) a_j <= 1.
Run:  python3 ref.py            (reproduction of the slides + random self-checks)
"""
from fractions import Fraction as F
from itertools import permutations, combinations
import random, sys


# ---------------------------------------------------------------- exact simplex
def simplex_max(A, b, cobj):
    """max cobj.x  s.t. A x <= b, x >= 0, with b >= 0 (origin feasible). Exact, Bland's rule.
    Dense tableau: m rows, n structural + m slack columns. Returns (value, x)."""
    m, n = len(A), len(cobj)
    assert all(bi >= 0 for bi in b)
    T = [[F(v) for v in A[i]] + [F(int(i == k)) for k in range(m)] + [F(b[i])] for i in range(m)]
    z = [F(-v) for v in cobj] + [F(0)] * m + [F(0)]          # reduced-cost row (minimise -c.x)
    basis = [n + i for i in range(m)]
    while True:
        enter = next((j for j in range(n + m) if z[j] < 0), None)   # Bland: lowest index
        if enter is None:
            break
        best = None
        for i in range(m):
            if T[i][enter] > 0:
                r = T[i][-1] / T[i][enter]
                if best is None or r < best[0] or (r == best[0] and basis[i] < basis[best[1]]):
                    best = (r, i)
        if best is None:
            raise ValueError("unbounded")
        _, piv = best
        pv = T[piv][enter]
        T[piv] = [v / pv for v in T[piv]]
        for i in range(m):
            if i != piv and T[i][enter] != 0:
                f = T[i][enter]
                T[i] = [a - f * p for a, p in zip(T[i], T[piv])]
        f = z[enter]
        z = [a - f * p for a, p in zip(z, T[piv])]
        basis[piv] = enter
    x = [F(0)] * n
    for i, bj in enumerate(basis):
        if bj < n:
            x[bj] = T[i][-1]
    return z[-1], x


# ---------------------------------------------------------------- scenario LP
def scenario_rows(c, w, d, send, ret, duplex="FD"):
    """Rows of  A a <= 1  for scenario (send order, return order) over the same participant set.
    Column k <-> worker send[k].  Row for worker i:
        sum_{j sent <= i} c_j a_j + w_i a_i + sum_{j returned >= i} d_j a_j <= 1
    HD adds  sum_j (c_j + d_j) a_j <= 1."""
    k = len(send)
    col = {wk: t for t, wk in enumerate(send)}
    rpos = {wk: t for t, wk in enumerate(ret)}
    A = []
    for t, i in enumerate(send):
        row = [F(0)] * k
        for j in send[: t + 1]:
            row[col[j]] += c[j]
        row[col[i]] += w[i]
        for j in ret[rpos[i]:]:
            row[col[j]] += d[j]
        A.append(row)
    if duplex == "HD":
        A.append([F(c[j] + d[j]) for j in send])
    return A


def scenario_lp(c, w, d, send, ret, duplex="FD"):
    A = scenario_rows(c, w, d, send, ret, duplex)
    val, x = simplex_max(A, [F(1)] * len(A), [F(1)] * len(send))
    return val, {wk: x[t] for t, wk in enumerate(send)}


# ---------------------------------------------------------------- exhaustive searches
def subsets(p):
    for k in range(1, p + 1):
        yield from combinations(range(p), k)


def best(c, w, d, duplex="FD", kind="ANY"):
    """Max over all subsets and orders; kind in ANY (all sigma1, sigma2), LIFO, FIFO."""
    p = len(c)
    top = (F(-1), None)
    for S in subsets(p):
        for s1 in permutations(S):
            rets = {"LIFO": [s1[::-1]], "FIFO": [s1], "ANY": permutations(S)}[kind]
            for s2 in rets:
                v, x = scenario_lp(c, w, d, list(s1), list(s2), duplex)
                if v > top[0]:
                    top = (v, (s1, tuple(s2), x))
    return top


# ---------------------------------------------------------------- closed forms
def lifo_closed(c, w, d):
    """Best LIFO (FD == HD): all workers, send by increasing c+d, return reversed, no idle.
    a_1 = 1/(c1+d1+w1),  a_i = a_{i-1} * w_{i-1} / (c_i+d_i+w_i)."""
    order = sorted(range(len(c)), key=lambda i: (c[i] + d[i], i))
    a, prev, sh = F(0), None, {}
    for i in order:
        ai = F(1, 1) / (c[i] + d[i] + w[i]) if prev is None else sh[prev] * w[prev] / (c[i] + d[i] + w[i])
        sh[i] = ai
        prev = i
    return sum(sh.values()), order, sh


def fifo_prefix(c, w, d, order):
    """No-idle FIFO (full duplex) on workers `order` (send = return order).
    pi_1 = 1, pi_{k+1} = pi_k (w_k + d_k)/(c_{k+1} + w_{k+1});  a_1 = 1/(c_1 + w_1 + sum d_j pi_j);
    a_k = a_1 pi_k;  rho = sum pi / (c_1 + w_1 + sum d pi)."""
    pi, prev = [], None
    for i in order:
        pi.append(F(1) if prev is None else pi[-1] * (w[prev] + d[prev]) / (c[i] + w[i]))
        prev = i
    i1 = order[0]
    a1 = F(1) / (c[i1] + w[i1] + sum(d[j] * q for j, q in zip(order, pi)))
    return a1 * sum(pi), {j: a1 * q for j, q in zip(order, pi)}


def fifo_closed(c, w, d):
    """Best FIFO (full duplex) for d = z c.  z <= 1: increasing c; z > 1: time-reverse (swap c<->d,
    solve, reverse order).  Grow prefix while d_{next} <= 1/rho_q (then rho is unimodal) -> q.
    Incremental: keep S = sum pi, D = c1 + w1 + sum d pi, last pi: O(1) per step."""
    p = len(c)
    zs = {F(d[i]) / F(c[i]) for i in range(p)}
    assert len(zs) == 1, "closed form needs d_i = z c_i"
    z = zs.pop()
    if z > 1:
        rho, ordr, sh = fifo_closed(d, w, c)
        return rho, ordr[::-1], sh
    order = sorted(range(p), key=lambda i: (c[i], i))
    i1 = order[0]
    S, D, pi = F(1), F(c[i1] + w[i1] + d[i1]), F(1)
    q = 1
    for t in range(1, p):
        j, jp = order[t], order[t - 1]
        if d[j] * S > D:            # d_j > 1/rho_q : adding j (and all later) lowers rho
            break
        pi = pi * (w[jp] + d[jp]) / (c[j] + w[j])
        S, D, q = S + pi, D + d[j] * pi, q + 1
    rho, sh = fifo_prefix(c, w, d, order[:q])
    assert rho == S / D
    return rho, order[:q], sh


# ---------------------------------------------------------------- upper bounds
def knap(cost, cap):
    """max sum a  s.t. 0 <= a_i <= cap_i, sum cost_i a_i <= 1   (fractional knapsack, greedy)."""
    tot, room = F(0), F(1)
    for i in sorted(range(len(cost)), key=lambda i: cost[i]):
        take = min(cap[i], room / cost[i]) if cost[i] > 0 else cap[i]
        tot += take
        room -= take * cost[i]
        if room <= 0:
            break
    return tot


def upper_bound(c, w, d, duplex="FD"):
    """Valid for every scenario: a_i <= u_i = 1/(c_i+w_i+d_i) (worker's own timeline);
    FD: sum c a <= 1 and sum d a <= 1 (send / receive port) -> any convex combination is valid;
    HD: sum (c+d) a <= 1.  Returns min over the used aggregated knapsacks (all O(p log p))."""
    u = [F(1) / (c[i] + w[i] + d[i]) for i in range(len(c))]
    if duplex == "HD":
        return knap([c[i] + d[i] for i in range(len(c))], u)
    half = [F(c[i] + d[i], 2) for i in range(len(c))]
    return min(knap(c, u), knap(d, u), knap(half, u))


def upper_bound_refined(c, w, d, duplex="FD"):
    """Tighter valid bound, p^2 tiny LPs (optional): guess s = last sent, r = first returned.
    Row_s >= sum c a + (w_s + d_s) a_s ; row_r >= sum d a + (c_r + w_r) a_r ; if s == r: row_s >=
    sum (c+d) a + w_s a_s.  Plus box a_i <= u_i (and HD port row).  rho <= max over (s, r)."""
    p = len(c)
    top = F(0)
    for s in range(p):
        for r in range(p):
            if s == r:
                A = [[F(c[i] + d[i] + (w[i] if i == s else 0)) for i in range(p)]]
            else:
                A = [[F(c[i] + (w[i] + d[i] if i == s else 0)) for i in range(p)],
                     [F(d[i] + (w[i] + c[i] if i == r else 0)) for i in range(p)]]
                if duplex == "HD":
                    A.append([F(c[i] + d[i]) for i in range(p)])
            A += [[F(c[i] + w[i] + d[i]) if j == i else F(0) for j in range(p)] for i in range(p)]
            top = max(top, simplex_max(A, [F(1)] * len(A), [F(1)] * p)[0])
    return top


def two_port_lp(c, w, d):
    """Exact value of the FD relaxation  {0<=a<=u, c.a<=1, d.a<=1} (for comparison only)."""
    p = len(c)
    A = [list(map(F, c)), list(map(F, d))] + [[F(c[i] + w[i] + d[i]) if j == i else F(0) for j in range(p)] for i in range(p)]
    return simplex_max(A, [F(1)] * len(A), [F(1)] * p)[0]


# ---------------------------------------------------------------- independent check of the compact LP
def general_lp(c, w, d, send, ret, duplex="FD", port_seq=None):
    """Time-indexed LP, no 'back to back / as late as possible' assumption.
    Vars: a_i, s_i (send start), r_i (return start), all >= 0.
    FD: sends sequential in `send`, returns sequential in `ret`; HD: all 2k ops sequential in
    `port_seq` (list of ('s',i)/('r',i)).  r_i >= s_i + (c_i + w_i) a_i; last end <= 1."""
    k = len(send)
    ix = {wk: t for t, wk in enumerate(send)}
    n = 3 * k
    A_, S_, R_ = (lambda i: ix[i]), (lambda i: k + ix[i]), (lambda i: 2 * k + ix[i])
    dur = lambda op: (c if op[0] == "s" else d)[op[1]]
    var = lambda op: (S_ if op[0] == "s" else R_)(op[1])
    rows, rhs = [], []
    def chain(seq):
        for o1, o2 in zip(seq, seq[1:]):
            r = [F(0)] * n; r[var(o1)] += 1; r[A_(o1[1])] += dur(o1); r[var(o2)] -= 1
            rows.append(r); rhs.append(F(0))
        r = [F(0)] * n; r[var(seq[-1])] += 1; r[A_(seq[-1][1])] += dur(seq[-1])
        rows.append(r); rhs.append(F(1))
    if duplex == "FD":
        chain([("s", i) for i in send]); chain([("r", i) for i in ret])
    else:
        chain(port_seq)
    for i in send:
        r = [F(0)] * n; r[S_(i)] += 1; r[A_(i)] += c[i] + w[i]; r[R_(i)] -= 1
        rows.append(r); rhs.append(F(0))
    return simplex_max(rows, rhs, [F(1)] * k + [F(0)] * (2 * k))[0]


def interleavings(send, ret):
    """All port sequences merging send and ret orders with send_i before return_i."""
    def rec(a, b, done, acc):
        if not a and not b:
            yield list(acc); return
        if a:
            yield from rec(a[1:], b, done | {a[0]}, acc + [("s", a[0])])
        if b and b[0] in done:
            yield from rec(a, b[1:], done, acc + [("r", b[0])])
    yield from rec(list(send), list(ret), frozenset(), [])


def check_general(trials=40, seed=5):
    rnd = random.Random(seed)
    for _ in range(trials):
        p = rnd.choice([2, 3])
        c = [rnd.randint(1, 9) for _ in range(p)]; w = [rnd.randint(1, 9) for _ in range(p)]
        d = [rnd.randint(1, 9) for _ in range(p)]
        for s1 in permutations(range(p)):
            for s2 in permutations(range(p)):
                fd = scenario_lp(c, w, d, list(s1), list(s2), "FD")[0]
                assert fd == general_lp(c, w, d, s1, s2, "FD"), (c, w, d, s1, s2)
                hd = scenario_lp(c, w, d, list(s1), list(s2), "HD")[0]
                gen = [general_lp(c, w, d, s1, s2, "HD", q) for q in interleavings(s1, s2)]
                assert max(gen) == hd, (c, w, d, s1, s2, hd, max(gen))
    print(f"check_general: compact LP == time-indexed LP (FD); HD: sends-first == best over all "
          f"interleavings ({trials} instances, all orders)")


# ---------------------------------------------------------------- reproduction
def show(name, c, w, d, printed):
    print(f"== platform {name}: c={c} w={w} d={d}")
    for dx in ("FD", "HD"):
        for kind in ("LIFO", "FIFO", "ANY"):
            v, (s1, s2, x) = best(c, w, d, dx, kind)
            pr = printed.get(kind)
            tag = "" if pr is None else ("  == printed" if v == pr else f"  != printed {pr}")
            print(f"  {dx} best {kind:4s}: {str(v):>9s} ~ {float(v):.5f}  send={[i+1 for i in s1]} "
                  f"ret={[i+1 for i in s2]} a={[str(x[i]) for i in s1]}{tag}")
        print(f"  {dx} upper bounds: simple {upper_bound(c, w, d, dx)}, refined {upper_bound_refined(c, w, d, dx)}")
    v, o, sh = lifo_closed(c, w, d)
    print(f"  LIFO closed form: {v}  order={[i+1 for i in o]}  a={[str(sh[i]) for i in o]}")
    v, o, sh = fifo_closed(c, w, d)
    print(f"  FIFO closed form (FD): {v}  order={[i+1 for i in o]}  a={[str(sh[i]) for i in o]}")


def selfcheck(trials=150, seed=1):
    rnd = random.Random(seed)
    for t in range(trials):
        p = rnd.choice([2, 3, 3, 4])
        c = [rnd.randint(1, 12) for _ in range(p)]
        w = [rnd.randint(1, 12) for _ in range(p)]
        if t % 2:
            d = [rnd.randint(1, 12) for _ in range(p)]
        else:
            z = F(rnd.randint(1, 8), rnd.randint(1, 8))
            d = [z * ci for ci in c]
        for dx in ("FD", "HD"):
            lifo = best(c, w, d, dx, "LIFO")[0]
            assert lifo == lifo_closed(c, w, d)[0], (c, w, d, dx)
            if p <= 3:
                opt = best(c, w, d, dx, "ANY")[0]
                ub = upper_bound(c, w, d, dx)
                assert opt <= upper_bound_refined(c, w, d, dx) and opt <= ub, (c, w, d, dx, opt, ub)
        if t % 2 == 0:
            assert best(c, w, d, "FD", "FIFO")[0] == fifo_closed(c, w, d)[0], (c, w, d)
    print(f"selfcheck: {trials} random instances OK (LIFO closed form == LIFO LP brute force, FD & HD; "
          f"FIFO closed form == FIFO LP brute force (FD, d=zc); exhaustive opt <= upper bound)")


if __name__ == "__main__":
    # slides lines 491-507 and 510-528
    A_ = ([1, 1, 5], [1, 1, 5], [1, 1, 5])
    B_ = ([7, 8, 12], [6, 5, 5], [7, 8, 12])
    show("A", *A_, {"LIFO": F(61, 135), "FIFO": F(1, 2)})
    show("B", *B_, {"ANY": F(38, 499), "FIFO": F(47, 632), "LIFO": F(43, 580)})
    # misprint: 43/580 is no LP value of ANY scenario (FD or HD); it equals 1/20 + 1/70 + 2/203,
    # i.e. the true LIFO shares with a_3 = 2/203 = 4 * (1/406).
    assert F(1, 20) + F(1, 70) + F(2, 203) == F(43, 580)
    allv = {scenario_lp(*B_, list(s1), list(s2), dx)[0] for dx in ("FD", "HD") for S in subsets(3)
            for s1 in permutations(S) for s2 in permutations(S)}
    print(f"  43/580 among the {len(allv)} distinct scenario LP values (all subsets/orders, FD+HD)? "
          f"{F(43, 580) in allv}")
    if "--nocheck" not in sys.argv:
        selfcheck()
        check_general()
