"""The MPI helpers under a real mpirun (tests/python/run starts it with 2, 4 and 8 ranks).

Not collected by pytest (no test_ functions): every rank runs this file as a program.
It checks what tests/mpi/test_scatter.c and test_returns.c check for C: every item
arrives exactly once, at its place, from the plan's counts; the counts are the library's
plan; ranks with no items; the results come back in the planned return order; a bad cost
or option on one rank fails on every rank with the same message and code. Rank 0 prints
"python mpi test on N ranks: all checks passed" only when every rank passed.
"""

import sys

import numpy as np
from mpi4py import MPI

import divload
import divload.mpi

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"rank {rank}: FAILED: {what}", file=sys.stderr, flush=True)


def costs_of(r):
    """Heterogeneous ranks: links and speeds that differ, so the plan is not even."""
    return {"comm_per_item": 1e-6 * (1 + (r * 7) % 5), "comp_per_item": 1e-4 * (1 + (r * 3) % 4)}


def every_item_once(plan, items, root):
    """The root's items go out with the plan; each rank checks its block, and the root
    gathers them all back and checks that each arrived once."""
    data = np.arange(items, dtype=np.int64) if rank == root else None
    mine = np.full(plan.my_count, -1, dtype=np.int64)
    plan.scatterv(data, mine)
    expect = np.arange(plan.my_displacement, plan.my_displacement + plan.my_count)
    check(np.array_equal(mine, expect), f"root {root}: rank {rank} received its block")
    back = np.full(items, -1, dtype=np.int64) if rank == root else None
    plan.gatherv(mine, back)
    if rank == root:
        check(np.array_equal(np.sort(back), np.arange(items)), f"root {root}: every item once")
        check(np.array_equal(back, np.arange(items)), f"root {root}: every item back at its place")


def scatter(root, items, options):
    me = costs_of(rank)
    with divload.mpi.scatter_plan(comm, items, root=root, **me, **options) as plan:
        # The same plan as the library's on the same costs, computed on every rank.
        everyone = [costs_of(r) for r in range(size)]
        comm_costs = [0.0 if r == root else c["comm_per_item"] for r, c in enumerate(everyone)]
        counts, displs, summary = divload.scatter_counts(
            comm_costs, [c["comp_per_item"] for c in everyone], items, root=root, **options)
        check(np.array_equal(plan.counts, counts), f"root {root}: counts are the library's plan")
        check(np.array_equal(plan.displs, displs), f"root {root}: displacements are the library's")
        check(int(plan.counts.sum()) == items, f"root {root}: counts add up to the items")
        check(plan.summary["makespan"] == summary["makespan"], f"root {root}: same makespan")
        check(plan.send_comm.Get_rank() == plan.my_position, "send_comm is ranked by send position")
        check(np.array_equal(np.argsort(plan.positions), summary["order"]), "positions follow the send order")
        check(plan.positions[root] == size - 1, "the root is served last")
        check(plan.my_count == counts[rank] and plan.my_displacement == displs[rank], "my_count and my_displacement")
        every_item_once(plan, items, root)


for root in sorted({0, size - 1}):
    scatter(root, 10007, {})
    scatter(root, 10007, {"order": "given", "rounding": "largest_remainder"})
    # Fewer items than ranks: some ranks get none and still take part in every call.
    scatter(root, size // 2 + 1, {})


def records_of_a_datatype(root, items):
    """Items of two doubles each, named by an MPI datatype rather than numpy's dtype."""
    pair = MPI.DOUBLE.Create_contiguous(2).Commit()
    try:
        with divload.mpi.scatter_plan(comm, items, root=root, **costs_of(rank)) as plan:
            data = np.stack([np.arange(items), -np.arange(items)], axis=1).astype(np.float64) if rank == root else None
            mine = np.zeros((plan.my_count, 2))
            plan.scatterv(data, mine, datatype=pair)
            first = np.arange(plan.my_displacement, plan.my_displacement + plan.my_count)
            check(np.array_equal(mine[:, 0], first) and np.array_equal(mine[:, 1], -first),
                  f"datatype: rank {rank} received its records")
            back = np.zeros((items, 2)) if rank == root else None
            plan.gatherv(mine, back, datatype=pair)
            if rank == root:
                check(np.array_equal(back, data), "datatype: every record back at its place")
    finally:
        pair.Free()


records_of_a_datatype(0, 3001)
records_of_a_datatype(size - 1, 3001)


def same_error_everywhere(call, code, what):
    try:
        call()
    except divload.DivloadError as e:
        got = (e.code, e.message)
    else:
        got = None
    everyone = comm.allgather(got)
    check(got is not None and got[0] == code, f"{what}: DivloadError with code {code} (got {got})")
    check(all(g == everyone[0] for g in everyone), f"{what}: the same error on every rank")
    return got


# A bad cost on one rank fails every rank; the core's message names it as `worker r`.
bad = size - 1
got = same_error_everywhere(
    lambda: divload.mpi.scatter_plan(comm, 100, comm_per_item=1e-6,
                                     comp_per_item=float("nan") if rank == bad else 1e-4),
    2, "NaN on one rank")
check(got is not None and f"worker {bad}" in got[1], f"the message names worker {bad}: {got}")
same_error_everywhere(
    lambda: divload.mpi.scatter_plan(comm, 100, comm_per_item="fast" if rank == bad else 1e-6, comp_per_item=1e-4),
    2, "a string for a cost on one rank")
same_error_everywhere(lambda: divload.mpi.scatter_plan(comm, 2**31, comm_per_item=1e-6, comp_per_item=1e-4),
                      4, "items beyond INT_MAX")
same_error_everywhere(lambda: divload.mpi.scatter_plan(comm, 100, comm_per_item=1e-6, comp_per_item=1e-4,
                                                       root=size), 2, "root out of range")
same_error_everywhere(lambda: divload.mpi.scatter_plan(comm, 100, comm_per_item=1e-6, comp_per_item=1e-4,
                                                       order="fastest"), 2, "an unknown order")



def installment_costs(r):
    """Startup costs that make several installments pay off, as tests/mpi/test_installments.c."""
    return {"comm_latency": 2e-3 * (1 + r % 2), "comm_per_item": 1e-5 * (1 + (r * 7) % 5), "comp_latency": 1e-3,
            "comp_per_item": 1e-4 * (1 + (r * 3) % 4)}


def pipelined(root, items, capped=False, late=False, **options):
    """The pipelined scatter: the helper's chunks are divload.chunks of the same platform,
    each rank computes exactly its chunks in send order as they arrive, every planned item
    arrives once, and the receive buffer holds the rank's block in order."""
    cap_of = lambda r: items // (2 * size) + 1 if capped and r % 2 == 1 else None
    start_of = lambda r: 0.05 if late and r == size - 1 and r != root else 0.0
    what = f"installments root {root}, {items} items, {options}, caps {capped}, late {late}"
    with divload.mpi.installments_plan(comm, items, root=root, max_items=cap_of(rank), available_at=start_of(rank),
                                       **installment_costs(rank), **options) as plan:
        workers = []
        for r in range(size):
            w = dict(installment_costs(r), name=f"r{r}", available_at=start_of(r))
            if r == root:
                w["comm_latency"] = w["comm_per_item"] = 0.0
            if cap_of(r) is not None:
                w["max_items"] = cap_of(r)
            workers.append(w)
        doc = {"items": items, "root": f"r{root}", "installments": options.get("installments", "auto"),
               "root_mode": options.get("root_mode", "after_send"), "workers": workers}
        if "deadline" in options:
            doc["deadline"] = options["deadline"]
        c = divload.chunks(doc)
        check(np.array_equal(plan.chunk_ranks, c.ranks) and np.array_equal(plan.chunk_counts, c.counts)
              and np.array_equal(plan.chunk_displs, c.displacements), f"{what}: the library's chunks")
        planned = plan.summary["items"]
        check(planned == items if "deadline" not in options else 0 < planned <= items, f"{what}: items planned")
        data = np.arange(items, dtype=np.int64) if rank == root else None
        mine = np.full(plan.my_count, -1, dtype=np.int64)
        seen = []

        def compute(chunk, first):
            seen.append((first, len(chunk)))
            check(np.array_equal(chunk, np.arange(first, first + len(chunk))), f"{what}: chunk intact")
            check(cap_of(rank) is None or len(chunk) <= cap_of(rank), f"{what}: chunk within the cap")

        plan.scatter(data, mine, compute)
        expect = [(int(plan.chunk_displs[k]), int(plan.chunk_counts[k])) for k in plan.my_chunks]
        check(seen == expect, f"{what}: rank {rank} computed its chunks in send order")
        check(np.array_equal(mine, np.arange(plan.my_displacement, plan.my_displacement + plan.my_count)),
              f"{what}: rank {rank} holds its block")
        total = comm.reduce(int(mine.sum()), root=root)
        if rank == root:
            check(total == planned * (planned - 1) // 2, f"{what}: every planned item arrived once")
        if items == 20000 and not options and size > 1:
            check(len(plan.chunk_ranks) > size, f"{what}: several installments")


for n in (1, 1000, 20000):
    pipelined(0, n)
    pipelined(size - 1, n, installments=3)
    pipelined(0, n, root_mode="overlap")
    if size > 1:
        pipelined(0, n, capped=True, late=True, root_mode="distribute_only")
    pipelined(0, n, late=True, deadline=0.2)
same_error_everywhere(lambda: divload.mpi.installments_plan(
    comm, 100, **dict(installment_costs(rank), comp_per_item=float("nan") if rank == bad else 1e-4)),
    2, "installments: NaN on one rank")
same_error_everywhere(lambda: divload.mpi.installments_plan(
    comm, 100, **installment_costs(rank), max_items=-1 if rank == bad else None), 2, "installments: a negative cap")
same_error_everywhere(lambda: divload.mpi.installments_plan(
    comm, 1000, **installment_costs(rank), max_items=2, installments=1), 2, "installments: caps below the items")
same_error_everywhere(lambda: divload.mpi.installments_plan(comm, 2**31, **installment_costs(rank)),
                      4, "installments: items beyond INT_MAX")

def returns(schedule, root, items):
    c, w = costs_of(rank)["comm_per_item"], costs_of(rank)["comp_per_item"]
    with divload.mpi.returns_plan(comm, items, c, w, 2 * c, root=root, schedule=schedule) as plan:
        data = np.arange(items, dtype=np.int64) if rank == root else None
        mine = np.empty(plan.my_count, dtype=np.int64)
        plan.scatterv(data, mine)
        check(np.array_equal(mine, np.arange(plan.my_displacement, plan.my_displacement + plan.my_count)),
              f"{schedule}: rank {rank} received its block")
        # Each result carries the rank that computed it, to check where it lands.
        results = np.stack([mine * 3, np.full(plan.my_count, rank, dtype=np.int64)], axis=1)
        gathered = np.full((items, 2), -1, dtype=np.int64) if rank == root else None
        arrivals = []

        def arrived(r, count, displacement):
            # Exactly the blocks of the ranks returned before this one are in place.
            done = set(arrivals) | {r}
            for q in range(size):
                placed = np.all(gathered[plan.displs[q]:plan.displs[q] + plan.counts[q], 1] == q)
                if plan.counts[q] > 0:
                    check(placed == (q in done), f"{schedule}: when rank {r} lands, rank {q} placed = {q in done}")
            arrivals.append(r)

        plan.gatherv_ordered(results, gathered, on_arrival=arrived if rank == root else None)
        if rank == root:
            check(arrivals == plan.return_order, f"{schedule}: arrivals in the planned return order")
            check(np.array_equal(gathered[:, 0], 3 * np.arange(items)), f"{schedule}: every result once at its place")
            owner = np.repeat(np.arange(size), plan.counts[np.arange(size)])
            check(sorted(gathered[:, 1].tolist()) == sorted(owner.tolist()), f"{schedule}: from the rank that computed it")
        check(int(plan.counts.sum()) == items, f"{schedule}: counts add up")
        check(plan.send_comm.Get_rank() == plan.my_position, f"{schedule}: send_comm ranked by send position")
        check(plan.summary["schedule"] == schedule, f"{schedule}: the summary names the schedule")
        # The same plan as the library's, computed on every rank from the same costs.
        everyone = [costs_of(r) for r in range(size)]
        c_all = [0.0 if r == root else e["comm_per_item"] for r, e in enumerate(everyone)]
        counts, displs, summary = divload.returns_counts(
            c_all, [e["comp_per_item"] for e in everyone], [2 * x for x in c_all], items, schedule=schedule)
        check(np.array_equal(plan.counts, counts) and np.array_equal(plan.displs, displs),
              f"{schedule}: counts are the library's plan")


for schedule in ("best", "lifo", "fifo"):
    returns(schedule, 0, 5003)
    returns(schedule, size - 1, 5003)
same_error_everywhere(lambda: divload.mpi.returns_plan(comm, 100, 1e-6, 1e-4, 1e-6, schedule="random"),
                      2, "an unknown schedule")
same_error_everywhere(lambda: divload.mpi.returns_plan(comm, 100, 1e-6, -1.0 if rank == bad else 1e-4, 1e-6),
                      2, "a negative cost on one rank")


# Calibration: a compute function with a cost per item, and the root's links.
sample = np.random.default_rng(rank).random(4000)


def work(k):
    np.sort(np.repeat(sample[:k], 1 + rank % 3))


costs = divload.mpi.calibrate(comm, work, 4000)
check(all(np.isfinite(v) and v >= 0 for v in costs.values()), f"calibrated costs finite, >= 0: {costs}")
check(costs["comp_per_item"] > 0, "calibrated comp_per_item > 0")
if rank == 0:
    check(costs["comm_latency"] == 0 and costs["comm_per_item"] == 0, "the root's link is 0")
with divload.mpi.scatter_plan(comm, 20000, **costs) as plan:
    every_item_once(plan, 20000, 0)
same_error_everywhere(lambda: divload.mpi.calibrate(comm, work, 1), 2, "sample_items < 2")
same_error_everywhere(lambda: divload.mpi.calibrate(comm, None if rank == bad else work, 100), 2,
                      "compute not callable on one rank")


def raises_on_one_rank(k):
    if rank == bad:
        raise RuntimeError("boom")


try:
    divload.mpi.calibrate(comm, raises_on_one_rank, 100)
    outcome = "returned"
except RuntimeError:
    outcome = "own" if rank == bad else "wrong"
except divload.DivloadError as e:
    outcome = "agreed" if rank != bad and e.code == 2 and f"rank {bad}" in e.message else "wrong"
check(outcome in ("own", "agreed"), f"a compute that raises on one rank fails every rank: {outcome}")


# The ring: a Jacobi sweep on the planned ring equals the serial sweep bit for bit.
H, ITERATIONS = 8, 5


def initial(columns):
    c = np.arange(columns, dtype=np.int64)[:, None]
    y = np.arange(H, dtype=np.int64)[None, :]
    return ((c * 7919 + y * 104729) % 1000).astype(np.float64) / 1024.0


def sweep(u):
    """One sweep of the columns u[1:-1] (ghost columns u[0], u[-1]); zeros above and below."""
    mid = u[1:-1]
    up = np.concatenate([np.zeros((len(mid), 1)), mid[:, :-1]], axis=1)
    down = np.concatenate([mid[:, 1:], np.zeros((len(mid), 1))], axis=1)
    return 0.25 * ((u[:-2] + u[2:]) + (up + down))


def jacobi_on(plan, columns):
    check(int(plan.counts.sum()) == columns, "ring: counts sum to W")
    check(all(plan.counts[r] == 0 for r in range(size) if plan.positions[r] < 0), "ring: left out, no columns")
    nxt = 0
    for r in plan.ring_ranks:
        check(plan.displs[r] == nxt, "ring: blocks follow each other along the ring")
        nxt += plan.counts[r]
    mine = np.zeros((plan.my_count, H))
    if plan.my_member:
        check(plan.ring_comm.Get_rank() == plan.my_position and plan.ring_comm.Get_size() == plan.members,
              "ring: ring_comm ranked by position")
        u = np.zeros((plan.my_count + 2, H))
        u[1:-1] = initial(columns)[plan.my_displacement:plan.my_displacement + plan.my_count]
        for _ in range(ITERATIONS):
            plan.ring_comm.Sendrecv(np.ascontiguousarray(u[1]), plan.my_left, 1, u[-1], plan.my_right, 1)
            plan.ring_comm.Sendrecv(np.ascontiguousarray(u[-2]), plan.my_right, 2, u[0], plan.my_left, 2)
            u[1:-1] = sweep(u)
        mine = np.ascontiguousarray(u[1:-1])
    else:
        check(plan.ring_comm is None and plan.my_count == 0, "ring: a rank left out has no ring_comm")
    gathered = np.zeros((columns, H)) if rank == 0 else None
    comm.Gatherv(mine, [gathered, (plan.counts * H, plan.displs * H)] if rank == 0 else None, root=0)
    if rank == 0:
        u = np.zeros((columns + 2, H))
        u[1:-1] = initial(columns)
        for _ in range(ITERATIONS):
            u[0], u[-1] = u[-2], u[1]
            u[1:-1] = sweep(u)
        check(np.array_equal(gathered, u[1:-1]), "ring: the columns equal the serial sweep bit for bit")


def ring_kernel(columns):
    x = 0.0
    for i in range(2000 * columns * (rank % 3 + 1)):
        x += i
    return x


cal = divload.mpi.ring_calibrate(comm, ring_kernel, sample_columns=4, boundary=H, repetitions=3)
check(cal.costs.shape == (size, size) and np.all(cal.cycle_times > 0), "ring: a calibration of every rank")
check(comm.allgather(cal.costs.tobytes()) == [cal.costs.tobytes()] * size, "ring: the same costs on every rank")
with divload.mpi.ring_plan(comm, divload.mpi.ring_document(cal, 97)) as plan:
    jacobi_on(plan, 97)
# A far rank is left out (4 ranks or more: alone it would only slow the ring).
far = np.full((size, size), 1e-4)
far[size - 1, :] = far[:, size - 1] = 1.0
np.fill_diagonal(far, 0.0)
given = divload.mpi.ring_calibrate(comm, cycle_time=1e-3 * (rank + 1), boundary=2, repetitions=1)
given.costs = far
for solver in ("heuristic", "exact"):
    with divload.mpi.ring_plan(comm, divload.mpi.ring_document(given, 200, solver=solver), root=size - 1) as plan:
        check(plan.summary["method"] == ("exhaustive" if solver == "exact" else "local_search"), f"ring: {solver}")
        if size >= 4:
            check(plan.positions[size - 1] == -1, "ring: the far rank is left out")
        jacobi_on(plan, 200)
same_error_everywhere(lambda: divload.mpi.ring_plan(comm, {"model": "ring", "processors": []}), 2,
                      "ring: processors that are not the ranks")
same_error_everywhere(lambda: divload.mpi.ring_plan(comm, divload.mpi.ring_document(given, 0)), 5,
                      "ring: no columns")
same_error_everywhere(lambda: divload.mpi.ring_calibrate(comm, cycle_time=-1.0 if rank == bad else 1e-3), 2,
                      "ring: a bad cycle time on one rank")

all_failures = comm.allreduce(len(failures))
if rank == 0:
    if all_failures:
        print(f"python mpi test on {size} ranks: {all_failures} checks FAILED", flush=True)
    else:
        print(f"python mpi test on {size} ranks: all checks passed", flush=True)
sys.exit(1 if all_failures else 0)
