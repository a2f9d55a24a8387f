"""Balanced ``Scatterv`` for mpi4py codes: the Python counterpart of ``divload_mpi.h``.

Importable only where mpi4py is (``pip install divload[mpi]``). Every function here is
collective over the communicator it is given: every rank calls it, with the same
``root``, and every rank returns the same outcome (a plan, or the same ``DivloadError``).

    from mpi4py import MPI
    import numpy as np
    import divload.mpi

    comm = MPI.COMM_WORLD
    costs = divload.mpi.calibrate(comm, lambda k: work(sample[:k]), sample_items=1000)
    plan = divload.mpi.scatter_plan(comm, items=n, **costs)    # n: read on the root
    mine = np.empty(plan.my_count)
    plan.scatterv(records, mine)                                # was comm.Scatter
    work(mine)                  # items [plan.my_displacement, + plan.my_count)

What happens: every rank contributes its costs (one allgather), the root plans with
``divload.scatter_counts`` and broadcasts the counts, displacements and send positions,
and every rank joins ``send_comm``, a communicator of the same processes ranked by their
position in the send order (``comm.Split`` with the position as key). The scatter runs on
``send_comm``, so an MPI whose ``Scatterv`` serves ranks in order serves them in the
planned order (decreasing bandwidth, the root last; genaud2003 Thm 3).

With results sent back to the root (the return-message model), ``returns_plan`` plans
the best, LIFO or FIFO schedule and ``ReturnsPlan.gatherv_ordered`` receives the results
on the root in the planned return order.

A pipelined scatter (the star with several installments, startup costs, memory caps,
release times): ``installments_plan`` plans the chunks on the root, and
``InstallmentsPlan.scatter`` sends them in the planned sequence with nonblocking sends
while every rank computes each of its chunks as it arrives, as
``divload_mpi_installments_scatter`` does in C.

Iterative codes on a ring of ranks (legrand2003): ``ring_calibrate`` measures each
rank's cycle time and the cost between every pair of ranks, ``ring_document`` writes the
ring document, and ``ring_plan`` plans it on the root and gives every rank its columns
and ``ring_comm``, a periodic 1-D Cartesian communicator in ring order (``None`` on the
ranks the plan leaves out), as ``divload_mpi_ring_create`` does in C.
"""

import json as _json
from typing import Any, Callable, Dict, List, Optional

import numpy as _np

try:
    from mpi4py import MPI
except ImportError as e:  # the rest of divload works without MPI
    raise ImportError(f"divload.mpi needs mpi4py (pip install mpi4py, or divload[mpi]): {e}") from e

from . import _INVALID_INPUT, _JSON, _OVERFLOW, DivloadError, chunks as _chunks, plan as _plan
from . import returns_counts as _returns_counts, scatter_counts

__all__ = [
    "InstallmentsPlan", "ReturnsPlan", "RingCalibration", "RingPlan", "ScatterPlan", "calibrate",
    "installments_plan", "returns_plan", "ring_calibrate", "ring_document", "ring_plan", "scatter_plan",
]

#: MPI's ``int`` counts: the scatter refuses more items, as ``divload_mpi_plan_create`` does.
INT_MAX = 2**31 - 1
#: The tag of the result messages on a returns plan's own ``send_comm``
#: (``DIVLOAD_MPI_RETURN_TAG``).
RETURN_TAG = 0x6476



def _check_root(comm: "MPI.Comm", root: Any) -> int:
    """The same answer on every rank, so no rank is left waiting in a collective."""
    size = comm.Get_size()
    if isinstance(root, bool) or not isinstance(root, (int, _np.integer)) or not 0 <= int(root) < size:
        raise DivloadError(f"root: must be a rank in 0..{size}, got {root!r}", _INVALID_INPUT)
    return int(root)


def _agree(comm: "MPI.Comm", error: Optional[DivloadError]) -> None:
    """Raises on every rank the first rank's error, if any rank has one."""
    errors = comm.allgather(None if error is None else (error.message, error.code))
    for rank, e in enumerate(errors):
        if e is not None:
            message, code = e
            raise DivloadError(message if errors.count(e) == len(errors) else f"rank {rank}: {message}", code)


def _numbers(values: Dict[str, Any]) -> "tuple[Optional[List[float]], Optional[DivloadError]]":
    try:
        return [float(v) for v in values.values()], None
    except (TypeError, ValueError, OverflowError):
        bad = next(k for k, v in values.items() if not _is_number(v))
        return None, DivloadError(f"{bad}: must be a number, got {values[bad]!r}", _INVALID_INPUT)


def _is_number(v: Any) -> bool:
    try:
        float(v)
        return True
    except (TypeError, ValueError, OverflowError):
        return False


def _items(items: Any) -> int:
    if isinstance(items, bool) or not isinstance(items, (int, _np.integer)):
        raise DivloadError(f"items: must be an integer, got {items!r}", _INVALID_INPUT)
    n = int(items)
    if n > INT_MAX:
        raise DivloadError(
            f"items: at most INT_MAX = {INT_MAX} fit MPI_Scatterv's int counts, got {n}", _OVERFLOW)
    return n


class ScatterPlan:
    """A balanced scatter, known on every rank of ``comm``.

    By rank of ``comm`` (numpy arrays): ``counts``, ``displs`` (for ``comm.Scatterv`` on
    ``comm`` itself), ``positions`` (send position of each rank), ``predicted_finish``
    (seconds after the scatter starts), ``costs`` (the costs planned with, one row
    ``comm_latency, comm_per_item, comp_latency, comp_per_item`` per rank; the root's link
    zeroed). By rank of ``send_comm`` (= send position): ``send_counts``, ``send_displs``.
    This rank: ``my_position``, ``my_count``, ``my_displacement``,
    ``my_predicted_finish``. ``summary``: as ``divload.scatter_counts`` gives it.
    ``send_comm`` is owned by the plan: ``free()`` it (or use the plan as a context
    manager), collectively.
    """

    def __init__(self, comm, root, costs, counts, displs, positions, finish, summary):
        self.comm = comm
        self.root = root
        self.size = comm.Get_size()
        self.costs = costs
        self.counts = counts
        self.displs = displs
        self.positions = positions
        self.predicted_finish = finish
        self.summary = summary
        by_position = _np.argsort(positions, kind="stable")
        self.send_counts = counts[by_position]
        self.send_displs = displs[by_position]
        rank = comm.Get_rank()
        self.my_position = int(positions[rank])
        self.my_count = int(counts[rank])
        self.my_displacement = int(displs[rank])
        self.my_predicted_finish = float(finish[rank])
        self.send_root = int(positions[root])
        self.send_comm = comm.Split(0, self.my_position)

    def scatterv(self, sendbuf: Any, recvbuf: Any, datatype: Optional["MPI.Datatype"] = None) -> Any:
        """``Scatterv`` of the plan on ``send_comm``: the root sends ``sendbuf`` (all the
        items in their original order; ignored elsewhere), every rank receives its
        ``my_count`` items into ``recvbuf``, which it returns. ``datatype`` is the MPI type
        of one item when numpy's dtype does not give it. Collective."""
        counts, displs = self.send_counts, self.send_displs
        spec = [sendbuf, (counts, displs)] if datatype is None else [sendbuf, (counts, displs), datatype]
        recv = recvbuf if datatype is None else [recvbuf, self.my_count, datatype]
        self.send_comm.Scatterv(spec if self.comm.Get_rank() == self.root else None, recv, root=self.send_root)
        return recvbuf

    def gatherv(self, sendbuf: Any, recvbuf: Any, datatype: Optional["MPI.Datatype"] = None) -> Any:
        """The reverse of ``scatterv``: every rank sends its ``my_count`` results, the root
        receives each rank's at its displacement of ``recvbuf`` (ignored elsewhere) and
        returns it. Collective."""
        counts, displs = self.send_counts, self.send_displs
        spec = [recvbuf, (counts, displs)] if datatype is None else [recvbuf, (counts, displs), datatype]
        send = sendbuf if datatype is None else [sendbuf, self.my_count, datatype]
        self.send_comm.Gatherv(send, spec if self.comm.Get_rank() == self.root else None, root=self.send_root)
        return recvbuf

    def free(self) -> None:
        """Frees ``send_comm``. Collective."""
        if self.send_comm != MPI.COMM_NULL:
            self.send_comm.Free()

    def __enter__(self) -> "ScatterPlan":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()


def scatter_plan(
    comm: "MPI.Comm",
    items: int,
    comm_per_item: float,
    comp_per_item: float,
    comm_latency: float = 0.0,
    comp_latency: float = 0.0,
    root: int = 0,
    order: str = "bandwidth",
    rounding: str = "greedy",
    root_mode: str = "after_send",
) -> ScatterPlan:
    """Plans the scatter of ``items`` items held by ``root`` over all ranks of ``comm``.

    Each rank gives its own costs (seconds: receiving ``x`` items takes
    ``comm_latency + comm_per_item·x``, processing them ``comp_latency + comp_per_item·x``;
    ``calibrate`` measures them). The root's link is never used, so its ``comm_*`` values
    are ignored. ``items`` and the options are read on the root (see ``scatter_counts``).

    Raises ``DivloadError`` on every rank, with the same message and code: a bad cost on
    any rank (the core's message names the rank as ``worker r``), a root out of range,
    ``items`` beyond ``INT_MAX`` (code 4: MPI counts are ``int``). Collective.
    """
    root = _check_root(comm, root)
    rank, size = comm.Get_rank(), comm.Get_size()
    mine, error = _numbers({"comm_latency": comm_latency, "comm_per_item": comm_per_item,
                            "comp_latency": comp_latency, "comp_per_item": comp_per_item})
    _agree(comm, error)
    if rank == root:
        mine[0] = mine[1] = 0.0
    costs = _np.empty((size, 4), dtype=_np.float64)
    comm.Allgather(_np.asarray(mine, dtype=_np.float64), costs)

    failure, summary = None, None
    table = _np.zeros((3, size), dtype=_np.int64)
    finish = _np.zeros(size, dtype=_np.float64)
    if rank == root:
        try:
            counts, displs, summary = scatter_counts(
                costs[:, 1], costs[:, 3], _items(items), root=root, order=order, rounding=rounding,
                root_mode=root_mode, comm_latency=costs[:, 0], comp_latency=costs[:, 2])
            table[0], table[1] = counts, displs
            table[2][summary["order"]] = _np.arange(size)
            finish[:] = summary["finish"]
            summary = {k: v for k, v in summary.items() if k not in ("order", "finish")}
        except DivloadError as e:
            failure = (e.message, e.code)
    failure, summary = comm.bcast((failure, summary), root=root)
    if failure is not None:
        raise DivloadError(*failure)
    comm.Bcast(table, root=root)
    comm.Bcast(finish, root=root)
    summary["order"] = _np.argsort(table[2], kind="stable").astype(_np.int64)
    summary["finish"] = finish
    return ScatterPlan(comm, root, costs, table[0], table[1], table[2], finish, summary)


class InstallmentsPlan:
    """A scatter sent in installments, known on every rank of ``comm``.

    The chunks in send order (numpy arrays): ``chunk_ranks``, ``chunk_counts``,
    ``chunk_displs``, ``chunk_times`` (send start, send end, compute start, compute end).
    By rank of ``comm``: ``counts``, ``displs`` (each rank's total and block, for a
    ``Gatherv`` of the results). This rank: ``my_count``, ``my_displacement``,
    ``my_chunks`` (indices of its chunks), ``my_predicted_finish``. ``summary``: method,
    makespan, lower_bound, gap, exact, items. ``chunk_comm``, a duplicate of ``comm`` for
    the chunks' messages, is owned by the plan: ``free()`` it (or use the plan as a context
    manager), collectively.
    """

    def __init__(self, comm, root, ranks, counts, displs, times, summary):
        self.comm = comm
        self.root = root
        self.size = comm.Get_size()
        self.chunk_ranks, self.chunk_counts, self.chunk_displs, self.chunk_times = ranks, counts, displs, times
        self.summary = summary
        self.counts = _np.bincount(ranks, weights=counts, minlength=self.size).astype(_np.int64)
        self.displs = _np.zeros(self.size, dtype=_np.int64)
        firsts = _np.unique(ranks, return_index=True)
        self.displs[firsts[0]] = displs[firsts[1]]
        rank = comm.Get_rank()
        self.my_chunks = _np.flatnonzero(ranks == rank)
        self.my_count = int(self.counts[rank])
        self.my_displacement = int(self.displs[rank])
        self.my_predicted_finish = float(times[self.my_chunks, 3].max()) if len(self.my_chunks) else 0.0
        self.chunk_comm = comm.Dup()

    def scatter(self, sendbuf: Any, recvbuf: Any, compute: Optional[Callable[[Any, int], Any]] = None,
                datatype: Optional["MPI.Datatype"] = None) -> Any:
        """Runs the plan: the root sends ``sendbuf`` (all the items in their original
        order, one item per element of its first axis; ignored elsewhere) chunk by chunk in
        the planned sequence, at most two sends in flight (the root's single port); every
        rank receives its ``my_count`` items into ``recvbuf`` (indexed the same way) and
        calls ``compute(items, first)`` on each of its chunks as soon as it has arrived,
        where ``items`` is the chunk's view of ``recvbuf`` and ``first`` its first item in
        the root's buffer. The root computes its own chunk after its sends, or while they
        are in flight when the plan has it start earlier (``root_mode="overlap"``).
        ``datatype`` is the MPI type of one item when numpy's dtype does not give it.
        Returns ``recvbuf``. Collective."""
        rank, base = self.comm.Get_rank(), self.my_displacement
        spec = (lambda b, n: b) if datatype is None else (lambda b, n: [b, n, datatype])
        mine = lambda k: recvbuf[int(self.chunk_displs[k]) - base:int(self.chunk_displs[k] + self.chunk_counts[k]) - base]
        if rank == self.root:
            others = [k for k in range(len(self.chunk_ranks)) if self.chunk_ranks[k] != rank]
            own = [k for k in self.my_chunks]
            last_send = max((self.chunk_times[k, 1] for k in others), default=0.0)
            during = bool(own) and self.chunk_times[own[0], 2] < last_send
            outgoing = lambda k: spec(sendbuf[int(self.chunk_displs[k]):int(self.chunk_displs[k] + self.chunk_counts[k])],
                                      int(self.chunk_counts[k]))
            if during:
                requests = [self.chunk_comm.Isend(outgoing(k), dest=int(self.chunk_ranks[k]), tag=1) for k in others]
            else:
                flight: List[Any] = []
                for k in others:
                    if len(flight) == 2:
                        flight.pop(0).Wait()
                    flight.append(self.chunk_comm.Isend(outgoing(k), dest=int(self.chunk_ranks[k]), tag=1))
                MPI.Request.Waitall(flight)
                requests = []
            for k in own:
                lo = int(self.chunk_displs[k])
                mine(k)[...] = sendbuf[lo:lo + int(self.chunk_counts[k])]
                if compute is not None:
                    compute(mine(k), lo)
            MPI.Request.Waitall(requests)
            return recvbuf
        # Every receive posted at once, in send order: MPI's non-overtaking rule matches
        # the root's k-th message to this rank with the k-th receive.
        requests = [self.chunk_comm.Irecv(spec(mine(k), int(self.chunk_counts[k])), source=self.root, tag=1)
                    for k in self.my_chunks]
        for k, request in zip(self.my_chunks, requests):
            request.Wait()
            if compute is not None:
                compute(mine(k), int(self.chunk_displs[k]))
        return recvbuf

    def free(self) -> None:
        """Frees ``chunk_comm``. Collective."""
        if self.chunk_comm != MPI.COMM_NULL:
            self.chunk_comm.Free()

    def __enter__(self) -> "InstallmentsPlan":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()


def installments_plan(
    comm: "MPI.Comm",
    items: int,
    comm_per_item: float,
    comp_per_item: float,
    comm_latency: float = 0.0,
    comp_latency: float = 0.0,
    root: int = 0,
    max_items: Optional[int] = None,
    available_at: float = 0.0,
    installments: Any = "auto",
    root_mode: str = "after_send",
    deadline: Optional[float] = None,
) -> InstallmentsPlan:
    """Plans the scatter of ``items`` items held by ``root`` over all ranks of ``comm``,
    sent in installments.

    Each rank gives its own costs (as ``scatter_plan``), ``max_items``, the most items it
    can hold in one installment (``None``: no cap), and ``available_at``, when it can start
    computing (seconds after the scatter starts). ``items``, ``installments`` (a number of
    installments per worker, 1 to 64, or ``"auto"``), ``root_mode`` (``"after_send"``,
    ``"overlap"`` or ``"distribute_only"``) and ``deadline`` (plan the most whole items
    finished by then; ``summary["items"]`` says how many) are read on the root. The plan is
    ``divload.chunks`` of the platform written as a document, as C's
    ``divload_plan_installments`` plans it.

    Raises ``DivloadError`` on every rank, with the same message and code: a bad cost,
    cap or release time on any rank, caps that cannot hold the items, a root out of range,
    ``items`` beyond ``INT_MAX``. Collective.
    """
    root = _check_root(comm, root)
    rank, size = comm.Get_rank(), comm.Get_size()
    mine, error = _numbers({"comm_latency": comm_latency, "comm_per_item": comm_per_item,
                            "comp_latency": comp_latency, "comp_per_item": comp_per_item,
                            "available_at": available_at})
    if error is None and max_items is not None and (
            isinstance(max_items, bool) or not isinstance(max_items, (int, _np.integer)) or max_items < 0):
        error = DivloadError(f"max_items: must be an integer >= 0 or None, got {max_items!r}", _INVALID_INPUT)
    _agree(comm, error)
    if rank == root:
        mine[0] = mine[1] = 0.0
    every = comm.allgather((mine, None if max_items is None else int(max_items)))

    failure, planned = None, None
    if rank == root:
        try:
            workers = []
            for r, (c, cap) in enumerate(every):
                # JSON has no NaN or infinity; the core checks every other range.
                names = ("comm_latency", "comm_per_item", "comp_latency", "comp_per_item", "available_at")
                for key, v in zip(names, c):
                    if not _np.isfinite(v):
                        raise DivloadError(f"worker {r}: {key} must be finite, got {v}", _INVALID_INPUT)
                w = {"name": f"r{r}", "comm_latency": c[0], "comm_per_item": c[1], "comp_latency": c[2],
                     "comp_per_item": c[3], "available_at": c[4]}
                if cap is not None:
                    w["max_items"] = cap
                workers.append(w)
            document = {"items": _items(items), "root": f"r{root}", "root_mode": root_mode,
                        "installments": installments, "workers": workers}
            if deadline is not None:
                document["deadline"] = deadline
            c = _chunks(document)
            summary = dict(c.summary, items=int(c.counts.sum()))
            planned = (c.ranks, c.counts, c.displacements, c.times, summary)
        except DivloadError as e:
            failure = (e.message, e.code)
        except (TypeError, ValueError) as e:
            failure = (f"installments_plan: {e}", _INVALID_INPUT)
    failure, planned = comm.bcast((failure, planned), root=root)
    if failure is not None:
        raise DivloadError(*failure)
    return InstallmentsPlan(comm, root, *planned)


class ReturnsPlan:
    """A scatter whose results come back to the root, known on every rank of ``comm``.

    ``counts``, ``displs`` (by rank of ``comm``), ``send_counts``, ``send_displs`` (by
    send position = rank of ``send_comm``), ``positions`` (send position of each rank),
    ``return_order`` (the ranks with items, in the order their results reach the root),
    ``summary`` (as ``divload.returns_counts`` gives it: the orders and each rank's
    predicted ``send_start``, ``received``, ``computed``, ``return_start``,
    ``return_end``), and this rank's ``my_position``, ``my_return_position`` (``None``
    for a rank with no items), ``my_count``, ``my_displacement``,
    ``my_predicted_computed``, ``my_predicted_return_end``. ``free()`` it collectively
    (or use it as a context manager).

    The model assumes the root sends and receives while it computes its own part; a
    single-threaded root computes between the scatter and the gather, so its predicted
    times are optimistic there.
    """

    def __init__(self, comm, root, counts, displs, summary):
        self.comm = comm
        self.root = root
        self.size = comm.Get_size()
        self.counts = counts
        self.displs = displs
        self.summary = summary
        send_order = summary["send_order"]
        self.positions = _np.empty(self.size, dtype=_np.int64)
        self.positions[send_order] = _np.arange(self.size)
        self.send_counts = counts[send_order]
        self.send_displs = displs[send_order]
        self.return_order = [int(r) for r in summary["return_order"] if counts[r] > 0]
        rank = comm.Get_rank()
        self.my_position = int(self.positions[rank])
        self.my_count = int(counts[rank])
        self.my_displacement = int(displs[rank])
        self.my_return_position = self.return_order.index(rank) if rank in self.return_order else None
        self.my_predicted_computed = float(summary["computed"][rank])
        self.my_predicted_return_end = float(summary["return_end"][rank])
        self.send_root = int(self.positions[root])
        self.send_comm = comm.Split(0, self.my_position)

    def scatterv(self, sendbuf: Any, recvbuf: Any, datatype: Optional["MPI.Datatype"] = None) -> Any:
        """``Scatterv`` in the planned send order, as ``ScatterPlan.scatterv``. Collective."""
        return ScatterPlan.scatterv(self, sendbuf, recvbuf, datatype)

    def gatherv_ordered(
        self,
        sendbuf: Optional["_np.ndarray"],
        recvbuf: Optional["_np.ndarray"],
        on_arrival: Optional[Callable[[int, int, int], None]] = None,
    ) -> Optional["_np.ndarray"]:
        """Collects every rank's results on the root, in the planned return order.

        Each rank passes its ``my_count`` results (a numpy array whose first axis is the
        item); the root receives rank r's into ``recvbuf[displs[r]:displs[r] + counts[r]]``
        (``recvbuf`` matters only on the root: a C-contiguous array with room for every
        item), one rank after the other in ``return_order`` (a blocking receive each on
        ``send_comm``; ranks with no items send nothing), and calls
        ``on_arrival(rank, count, displacement)`` after each, so it can use the first
        results while the rest are still coming. The root may pass ``sendbuf=None`` when
        its results are already in place. Returns ``recvbuf``. Collective.
        """
        if self.send_comm.Get_rank() != self.send_root:
            if self.my_count > 0:
                self.send_comm.Send(_np.ascontiguousarray(sendbuf), dest=self.send_root, tag=RETURN_TAG)
            return recvbuf
        for r in self.return_order:
            count, at = int(self.counts[r]), int(self.displs[r])
            target = recvbuf[at:at + count]
            if r == self.root:
                if sendbuf is not None:
                    target[...] = sendbuf[:count]
            else:
                self.send_comm.Recv(target, source=int(self.positions[r]), tag=RETURN_TAG)
            if on_arrival is not None:
                on_arrival(r, count, at)
        return recvbuf

    free = ScatterPlan.free
    __enter__ = ScatterPlan.__enter__
    __exit__ = ScatterPlan.__exit__


def returns_plan(
    comm: "MPI.Comm",
    items: int,
    comm_per_item: float,
    comp_per_item: float,
    return_per_item: float,
    root: int = 0,
    schedule: str = "best",
    port: str = "full_duplex",
) -> ReturnsPlan:
    """Plans a scatter of ``items`` items from ``root`` whose results come back to it.

    Each rank gives its costs c, w, d (seconds per item to receive, to process, to send
    its results back; the root's c and d are taken as 0: its part is copied locally).
    ``schedule`` is ``"best"``, ``"lifo"`` or ``"fifo"``, ``port`` ``"full_duplex"`` or
    ``"half_duplex"`` (read on the root, with ``items``). The root plans with
    ``divload.returns_counts`` and broadcasts the plan.

    Raises ``DivloadError`` on every rank with the same message and code: a bad cost on
    any rank (named as ``worker r``), an unknown schedule or port, a root out of range,
    ``items`` beyond ``INT_MAX`` (code 4). Collective.
    """
    root = _check_root(comm, root)
    rank, size = comm.Get_rank(), comm.Get_size()
    mine, error = _numbers({"comm_per_item": comm_per_item, "comp_per_item": comp_per_item,
                            "return_per_item": return_per_item})
    _agree(comm, error)
    if rank == root:
        mine[0] = mine[2] = 0.0
    costs = _np.empty((size, 3), dtype=_np.float64)
    comm.Allgather(_np.asarray(mine, dtype=_np.float64), costs)
    failure, planned = None, None
    if rank == root:
        try:
            planned = tuple(_returns_counts(costs[:, 0], costs[:, 1], costs[:, 2], _items(items),
                                            schedule=schedule, port=port))
        except DivloadError as e:
            failure = (e.message, e.code)
    failure, planned = comm.bcast((failure, planned), root=root)
    if failure is not None:
        raise DivloadError(*failure)
    counts, displs, summary = planned
    return ReturnsPlan(comm, root, counts, displs, summary)


def calibrate(
    comm: "MPI.Comm",
    compute: Callable[[int], Any],
    sample_items: int,
    root: int = 0,
    item_bytes: int = 8,
) -> Dict[str, float]:
    """Measures this rank's costs, for ``scatter_plan(comm, items, **costs)``.

    Computation: every rank times ``compute(k)`` (your code processing ``k`` items of a
    sample) for ``k = sample_items // 2`` and ``sample_items``, best of 3 each, and fits
    ``comp_latency + comp_per_item·k``. Communication: the root sends ``k·item_bytes``
    bytes to each rank in turn, which answers with an empty message, and fits
    ``comm_latency + comm_per_item·k`` to the best of 3 round trips; the root's own is 0.
    The messages go over a duplicate of ``comm``, so they never match the caller's. A
    line that noise makes fall is taken through the origin instead.

    Returns ``{"comm_latency", "comm_per_item", "comp_latency", "comp_per_item"}``. Raises
    ``DivloadError`` (code 2) on every rank for ``sample_items < 2`` or a ``compute`` that
    is not callable on any rank, or that raised on any rank (that rank re-raises its own
    exception). Collective: every rank passes the same ``root`` and ``sample_items``.
    """
    root = _check_root(comm, root)
    rank, size = comm.Get_rank(), comm.Get_size()
    error = None
    if isinstance(sample_items, bool) or not isinstance(sample_items, (int, _np.integer)) or sample_items < 2:
        error = DivloadError(f"sample_items: must be an integer >= 2, got {sample_items!r}", _INVALID_INPUT)
    elif not callable(compute):
        error = DivloadError(f"compute: must be callable, got {type(compute).__name__}", _INVALID_INPUT)
    elif isinstance(item_bytes, bool) or not isinstance(item_bytes, (int, _np.integer)) or item_bytes < 1:
        error = DivloadError(f"item_bytes: must be an integer >= 1, got {item_bytes!r}", _INVALID_INPUT)
    _agree(comm, error)
    dup = comm.Dup()
    try:
        k = (int(sample_items) // 2, int(sample_items))
        t = [0.0, 0.0]
        raised = None
        for s in range(2):
            best = None
            for _ in range(3):
                t0 = MPI.Wtime()
                try:
                    compute(k[s])
                except Exception as e:  # noqa: BLE001 (re-raised below, after every rank agrees)
                    raised = raised or e
                dt = MPI.Wtime() - t0
                best = dt if best is None or dt < best else best
            t[s] = best
        flags = dup.allgather(None if raised is None else f"{type(raised).__name__}: {raised}")
        failed = [(r, f) for r, f in enumerate(flags) if f is not None]
        if failed:
            if raised is not None:
                raise raised
            r, what = failed[0]
            raise DivloadError(f"compute: raised on rank {r} ({what})", _INVALID_INPUT)
        comp_latency, comp_per_item = _fit(k, t, through_first=False)
        if not comp_per_item > 0.0:
            comp_per_item = 1e-12  # a compute function too fast to time

        sample = _np.zeros(k[1] * int(item_bytes), dtype=_np.uint8)
        links = _np.zeros((size, 2), dtype=_np.float64)
        for r in range(size):
            if r == root:
                continue
            for s in range(2):
                best = None
                part = sample[:k[s] * int(item_bytes)]
                for _ in range(3):
                    if rank == root:
                        t0 = MPI.Wtime()
                        dup.Send(part, dest=r, tag=0)
                        dup.Recv(_np.empty(0, dtype=_np.uint8), source=r, tag=1)
                        dt = MPI.Wtime() - t0
                        best = dt if best is None or dt < best else best
                    elif rank == r:
                        dup.Recv(part, source=root, tag=0)
                        dup.Send(_np.empty(0, dtype=_np.uint8), dest=root, tag=1)
                t[s] = best or 0.0
            if rank == root:
                latency, per_item = _fit(k, t, through_first=True)
                links[r] = latency, max(per_item, 0.0)
        mine = _np.zeros(2, dtype=_np.float64)
        dup.Scatter(links, mine, root=root)
    finally:
        dup.Free()
    return {
        "comm_latency": 0.0 if rank == root else float(mine[0]),
        "comm_per_item": 0.0 if rank == root else float(mine[1]),
        "comp_latency": comp_latency,
        "comp_per_item": comp_per_item,
    }


def _fit(k, t, through_first):
    """``latency + per_item·k`` through the two timings; through the origin when noise
    makes the line fall or the latency negative (as ``divload_mpi_calibrate``)."""
    slope = (t[1] - t[0]) / (k[1] - k[0])
    intercept = (t[0] - slope * k[0]) if through_first else (t[1] - slope * k[1])
    if not slope > 0.0 or intercept < 0.0:
        slope, intercept = t[1] / k[1], 0.0
    return intercept, slope



class RingCalibration:
    """Cycle times and link costs of every rank of ``comm``, the same on every rank.

    ``cycle_times[r]``: seconds per column of rank r; ``costs[i, j]``: seconds per
    boundary value sent from rank i to rank j (symmetric, diagonal 0), measured for a
    message of ``boundary`` values of ``value_bytes`` bytes.
    """

    def __init__(self, comm, cycle_times, costs, boundary, value_bytes):
        self.comm = comm
        self.size = comm.Get_size()
        self.cycle_times = cycle_times
        self.costs = costs
        self.boundary = boundary
        self.value_bytes = value_bytes


def ring_calibrate(
    comm: "MPI.Comm",
    compute: Optional[Callable[[int], Any]] = None,
    sample_columns: int = 16,
    cycle_time: Optional[float] = None,
    boundary: int = 1,
    value_bytes: int = 8,
    repetitions: int = 11,
) -> RingCalibration:
    """Measures what a ring plan needs, as ``divload_mpi_ring_calibrate`` does in C.

    Each rank's cycle time is the best of 3 timings of ``compute(sample_columns)`` (your
    kernel on that many columns) divided by ``sample_columns``, or ``cycle_time`` as given
    (then ``compute`` is None). The cost between every pair of ranks is the best of
    ``repetitions`` round trips of the boundary message (``boundary`` values of
    ``value_bytes`` bytes: the message a ring code sends) halved and divided by
    ``boundary``, so that the ring model's ``boundary·cost`` is the message's time,
    latency included; one pair at a time, on a duplicate of ``comm``.

    Raises ``DivloadError`` (code 2) on every rank for arguments out of range on any
    rank (no kernel and no positive cycle time, ``boundary`` or ``value_bytes`` below 1).
    Collective.
    """
    rank, size = comm.Get_rank(), comm.Get_size()
    error = None
    integer = lambda v: not isinstance(v, bool) and isinstance(v, (int, _np.integer))  # noqa: E731
    if compute is None and not (_is_number(cycle_time) and 0.0 < float(cycle_time) < float("inf")):
        error = DivloadError(f"cycle_time: must be finite and > 0 without a compute function, got {cycle_time!r}",
                             _INVALID_INPUT)
    elif compute is not None and not callable(compute):
        error = DivloadError(f"compute: must be callable, got {type(compute).__name__}", _INVALID_INPUT)
    elif compute is not None and (not integer(sample_columns) or sample_columns < 1):
        error = DivloadError(f"sample_columns: must be an integer >= 1, got {sample_columns!r}", _INVALID_INPUT)
    elif not integer(boundary) or boundary < 1 or not integer(value_bytes) or value_bytes < 1:
        error = DivloadError(f"boundary and value_bytes: must be integers >= 1, got {boundary!r}, {value_bytes!r}",
                             _INVALID_INPUT)
    elif not integer(repetitions) or repetitions < 1:
        error = DivloadError(f"repetitions: must be an integer >= 1, got {repetitions!r}", _INVALID_INPUT)
    _agree(comm, error)
    if compute is None:
        mine = float(cycle_time)
    else:
        best = None
        for _ in range(3):
            t0 = MPI.Wtime()
            compute(int(sample_columns))
            dt = MPI.Wtime() - t0
            best = dt if best is None or dt < best else best
        mine = best / int(sample_columns)
        if not mine > 0.0:
            mine = 1e-12  # a kernel too fast to time
    cycle_times = _np.array(comm.allgather(mine), dtype=_np.float64)
    message = _np.zeros(int(boundary) * int(value_bytes), dtype=_np.uint8)
    trips = _np.zeros((size, size), dtype=_np.float64)
    dup = comm.Dup()
    try:
        for a in range(size):
            for b in range(a + 1, size):
                dup.Barrier()
                best = None
                for k in range(-1, int(repetitions)):  # one round trip untimed
                    if rank == a:
                        t0 = MPI.Wtime()
                        dup.Send(message, dest=b, tag=0)
                        dup.Recv(message, source=b, tag=0)
                        dt = MPI.Wtime() - t0
                        if k >= 0:
                            best = dt if best is None or dt < best else best
                    elif rank == b:
                        dup.Recv(message, source=a, tag=0)
                        dup.Send(message, dest=a, tag=0)
                if rank == a:
                    trips[a, b] = best
        dup.Allreduce(MPI.IN_PLACE, trips, op=MPI.SUM)
    finally:
        dup.Free()
    costs = 0.5 * (trips + trips.T) / int(boundary)
    # The model takes costs > 0: a pair too fast to time costs a picosecond per value.
    costs[(costs <= 0.0) & ~_np.eye(size, dtype=bool)] = 1e-12
    _np.fill_diagonal(costs, 0.0)
    return RingCalibration(comm, cycle_times, costs, int(boundary), int(value_bytes))


def ring_document(cal: RingCalibration, work: int, boundary: Optional[float] = None,
                  solver: str = "heuristic") -> Dict[str, Any]:
    """The ring document of a calibration: processors ``r0`` .. ``r<size-1>`` (rank r is
    processor r), their cycle times, the cost matrix, ``work`` columns, ``boundary``
    values (default: the calibration's) and ``solver`` (``"heuristic"``, or ``"exact"``
    up to 8 ranks). Checked when it is planned. Local."""
    return {
        "version": 1,
        "model": "ring",
        "comment": f"measured by divload.mpi.ring_calibrate on {cal.size} ranks",
        "work": work,
        "boundary": cal.boundary if boundary is None else boundary,
        "solver": solver,
        "processors": [{"name": f"r{r}", "cycle_time": float(w)} for r, w in enumerate(cal.cycle_times)],
        "cost_matrix": cal.costs.tolist(),
    }


class RingPlan:
    """A ring plan, known on every rank of ``comm``.

    By rank of ``comm`` (numpy arrays): ``counts`` (columns), ``displs`` (first column),
    ``positions`` (place on the ring, -1 when left out); ``ring_ranks`` (the rank of
    ``comm`` at each place on the ring). This rank: ``my_member``, ``my_position``,
    ``my_count``, ``my_displacement``, ``my_left`` and ``my_right`` (its neighbours'
    ranks in ``ring_comm``; ``MPI.PROC_NULL`` when left out). ``ring_comm``: the members,
    a periodic 1-D Cartesian communicator whose rank is the place on the ring (blocks of
    columns follow each other along it); ``None`` on ranks left out. ``summary``: the
    result document without its ``plan`` rows (``makespan`` is T_step, ``method``,
    ``lower_bound``, ``even_makespan``, ...). ``free()`` it collectively (or use it as a
    context manager).
    """

    def __init__(self, comm, root, counts, displs, positions, summary):
        self.comm = comm
        self.root = root
        self.size = comm.Get_size()
        self.counts = counts
        self.displs = displs
        self.positions = positions
        self.summary = summary
        members = positions >= 0
        self.members = int(members.sum())
        self.ring_ranks = _np.argsort(_np.where(members, positions, self.size), kind="stable")[:self.members]
        rank = comm.Get_rank()
        self.my_position = int(positions[rank])
        self.my_member = self.my_position >= 0
        self.my_count = int(counts[rank])
        self.my_displacement = int(displs[rank])
        self.my_left = self.my_right = MPI.PROC_NULL
        self.ring_comm = None
        split = comm.Split(0 if self.my_member else MPI.UNDEFINED, max(self.my_position, 0))
        if split != MPI.COMM_NULL:
            self.ring_comm = split.Create_cart([self.members], periods=[True], reorder=False)
            split.Free()
            self.my_left, self.my_right = self.ring_comm.Shift(0, 1)

    def free(self) -> None:
        """Frees ``ring_comm``. Collective over the members."""
        if self.ring_comm is not None:
            self.ring_comm.Free()
            self.ring_comm = None

    def __enter__(self) -> "RingPlan":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()


def ring_plan(comm: "MPI.Comm", document: Any, root: int = 0) -> RingPlan:
    """Plans a ring document on ``root`` (``divload.plan``; read there only) and gives
    every rank its columns and the ring communicator (see ``RingPlan``). The document's
    processors must be the ranks of ``comm`` in rank order (``ring_document`` writes them
    so; a cost matrix of your own is fine).

    Raises ``DivloadError`` on every rank with the same message and code: the planner's
    (code 5 for a malformed document, ...), code 2 for a root out of range or a document
    whose processors are not the ranks, code 4 for more than ``INT_MAX`` columns.
    Collective.
    """
    root = _check_root(comm, root)
    rank, size = comm.Get_rank(), comm.Get_size()
    failure, planned = None, None
    if rank == root:
        try:
            doc = _json.loads(document) if isinstance(document, (str, bytes, bytearray)) else document
            processors = doc.get("processors") if isinstance(doc, dict) else None
            if not isinstance(processors, list) or len(processors) != size:
                got = len(processors) if isinstance(processors, list) else "none"
                raise DivloadError(f"processors: must be the {size} ranks of the communicator, got {got}",
                                   _INVALID_INPUT)
            result = _plan(doc)
            if result["work"] > INT_MAX:
                raise DivloadError(f"work: at most INT_MAX = {INT_MAX} fit MPI's int counts", _OVERFLOW)
            table = _np.zeros((3, size), dtype=_np.int64)
            table[2] = -1
            for k, row in enumerate(result["plan"]):
                table[:, row["rank"]] = row["count"], row["displacement"], k
            planned = (table, {k: v for k, v in result.items() if k != "plan"})
        except DivloadError as e:
            failure = (e.message, e.code)
        except ValueError as e:
            failure = (f"document: not JSON ({e})", _JSON)
    failure, planned = comm.bcast((failure, planned), root=root)
    if failure is not None:
        raise DivloadError(*failure)
    table, summary = planned
    return RingPlan(comm, root, table[0], table[1], table[2], summary)
