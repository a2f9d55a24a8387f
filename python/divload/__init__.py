"""How much data each processor should get so that all of them finish together.

divload computes the split of a divisible load (items any worker can process, such as
records, rays or rows) that balances the work from each worker's communication and
computation costs, for a root that sends to one worker at a time: the counts and
displacements for ``MPI_Scatterv``, the order in which the root should serve the workers,
and when each one will finish (Genaud, Giersch and Vivien 2003, and the divisible-load
models of the return messages, multi-cluster and computation-only cases).

* ``scatter_counts(comm_per_item, comp_per_item, items)``: counts and displacements by
  rank from numpy arrays of costs, the fast path for MPI codes.
* ``plan(document)``: any model's document (a dict or JSON text) to its result document,
  the same as ``divload plan --json`` prints.
* ``models()`` and ``example(model)``: the models a document can name, and a ready-to-edit
  document of each.
* ``chunks(document)``: a plan sent in installments (several chunks per worker, memory
  caps, release times, deadlines) as arrays of chunks in send order.
* ``divload.mpi`` (with mpi4py): gather every rank's costs, plan on the root, broadcast,
  scatter in the planned order, or in installments computed as they arrive.

Every failure raises ``DivloadError`` with divload's message and its stable code.
"""

import json as _json
import operator as _operator
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

import numpy as _np

from . import _divload
from ._errors import DivloadError

__all__ = [
    "DivloadError",
    "Returns",
    "Scatter",
    "Chunks",
    "Shares",
    "chunks",
    "example",
    "models",
    "plan",
    "returns_counts",
    "scatter_counts",
    "shares",
]

# The C status numbers of the checks made here before the core, from the compiled half.
_INVALID_INPUT = _divload.INVALID_INPUT
_OVERFLOW = _divload.OVERFLOW
_JSON = _divload.JSON


class Scatter(NamedTuple):
    """The result of ``scatter_counts``: unpack it as ``counts, displs, summary``.

    ``counts[r]`` items go to rank ``r``, starting at item ``displacements[r]`` of the
    root's buffer (numpy ``int64``, indexed by rank: ready for ``comm.Scatterv``). The
    displacements are contiguous in the send order, so they need not increase with the rank.

    ``summary`` is a dict: ``makespan`` (seconds, the integer plan), ``lower_bound``
    (certified: no plan in this send order is faster), ``gap`` (makespan − lower bound),
    ``method`` (``"closed_form"``), ``exact`` (the plan is proven optimal), ``order`` (the
    ranks in send order, numpy ``int64``: the root serves them in this order, itself last),
    ``finish`` (each rank's predicted finish time, by rank), ``rational_makespan``,
    ``rational_exact``, ``bound`` (eq. 4's guarantee), ``uniform_makespan`` (the even
    split's makespan), ``speedup``, ``participating``, ``items`` and ``root``.
    """

    counts: "_np.ndarray"
    displacements: "_np.ndarray"
    summary: Dict[str, Any]


def _fail(code: int, message: str) -> DivloadError:
    return DivloadError(message, code)


def _costs(name: str, values: Any) -> "_np.ndarray":
    """A 1-D float64 view (no copy when it already is one, strides allowed)."""
    try:
        array = _np.asarray(values, dtype=_np.float64)
    except (TypeError, ValueError, OverflowError) as e:
        raise _fail(_INVALID_INPUT, f"{name}: must be a sequence of numbers, one per rank ({e})") from None
    if array.ndim != 1:
        raise _fail(_INVALID_INPUT, f"{name}: must be one-dimensional (one value per rank), got {array.ndim} dimensions")
    return array


def _integer(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise _fail(_INVALID_INPUT, f"{name}: must be an integer, got {value!r}")
    try:
        return _operator.index(value)
    except TypeError:
        raise _fail(_INVALID_INPUT, f"{name}: must be an integer, got {type(value).__name__} {value!r}") from None


def _name(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _fail(_INVALID_INPUT, f"{name}: must be a string, got {type(value).__name__} {value!r}")
    return value


def scatter_counts(
    comm_per_item: Any,
    comp_per_item: Any,
    items: int,
    root: int = 0,
    order: str = "bandwidth",
    rounding: str = "greedy",
    root_mode: str = "after_send",
    comm_latency: Optional[Any] = None,
    comp_latency: Optional[Any] = None,
    out: Optional[Tuple[Any, ...]] = None,
) -> Scatter:
    """Balanced ``MPI_Scatterv`` counts and displacements for ``items`` items.

    Each argument of costs has one value per rank (a numpy array or any sequence of
    numbers): receiving ``x`` items from the root takes ``comm_latency + comm_per_item·x``
    seconds, processing them ``comp_latency + comp_per_item·x`` (latencies default to 0; a
    rank given nothing costs nothing). The root's own link is never used (its part is not
    sent), so its ``comm_*`` values are ignored, NaN included.

    Options, as in documents: ``order`` ``"bandwidth"`` (decreasing bandwidth, root last;
    optimal for linear costs), ``"given"`` (rank order, root last) or ``"search"`` (with
    startup costs, the best order and set of ranks over every order, up to 12 ranks besides
    the root); ``rounding``
    ``"greedy"``, ``"largest_remainder"`` or ``"paper"``; ``root_mode`` ``"after_send"``
    (the root computes after sending everything, as ``MPI_Scatterv`` does) or
    ``"overlap"``.

    Returns ``Scatter(counts, displacements, summary)``: numpy ``int64`` arrays by rank and
    a dict (see ``Scatter``). The plan is computed by divload's closed form without the
    GIL; 10⁶ ranks take about half a second.

    ``out=(counts, displs)`` or ``out=(counts, displs, finish)`` writes the plan into
    your arrays instead of new ones (``int64``, and ``float64`` for the finish times;
    one-dimensional, contiguous, writeable, one value per rank, no two overlapping): a
    code that re-plans every iteration then allocates only the send order. The result
    holds those arrays; ``summary["finish"]`` is your ``finish`` array, or ``None``
    without one (the finish times are then not computed). After an error their contents
    are unspecified.

    Raises ``DivloadError`` (code 2) for a bad cost (NaN, infinite, negative, a zero
    ``comp_per_item``), arrays of different lengths, no ranks, zero or negative items, a
    root out of range, an unknown option or unfit ``out`` arrays; code 4 for more items than ``float64`` counts
    exactly (2⁵³); code 6 when the working memory cannot be allocated.

    >>> counts, displs, summary = scatter_counts([0.0, 1e-5, 2e-5], [1e-3, 1e-3, 2e-3], 1000)
    >>> int(counts.sum()), summary["method"]
    (1000, 'closed_form')
    """
    comm = _costs("comm_per_item", comm_per_item)
    comp = _costs("comp_per_item", comp_per_item)
    comm_lat = None if comm_latency is None else _costs("comm_latency", comm_latency)
    comp_lat = None if comp_latency is None else _costs("comp_latency", comp_latency)
    n = _items(items)
    r = _integer("root", root)
    if r < 0 or r >= 1 << 63:
        raise _fail(_INVALID_INPUT, f"root: must be a worker index in 0..{len(comm)}, got {r}")
    given = _out(out, len(comm), [a for a in (comm, comp, comm_lat, comp_lat) if a is not None])
    counts, displs, summary = _divload.scatter_counts(
        comm, comp, comm_lat, comp_lat, n, r,
        _name("order", order), _name("rounding", rounding), _name("root_mode", root_mode),
        *(a.view(_np.uint64) if a.dtype == _np.int64 else a for a in given),
    )
    if given:
        counts, displs = given[0], given[1]
        summary["finish"] = given[2] if len(given) == 3 else None
    return Scatter(counts, displs, summary)


def _out(out: Any, ranks: int, inputs: List["_np.ndarray"]) -> List["_np.ndarray"]:
    """``scatter_counts``'s ``out`` arrays, checked: ``[]`` when there are none."""
    if out is None:
        return []
    if not isinstance(out, (tuple, list)) or len(out) not in (2, 3):
        raise _fail(_INVALID_INPUT, "out: must be a tuple (counts, displs) or (counts, displs, finish) of numpy arrays, "
                    f"got {type(out).__name__}")
    names = ("out counts", "out displacements", "out finish times")
    dtypes = (_np.int64, _np.int64, _np.float64)
    arrays = []
    for name, dtype, a in zip(names, dtypes, out):
        if not isinstance(a, _np.ndarray) or a.dtype != dtype:
            got = a.dtype if isinstance(a, _np.ndarray) else type(a).__name__
            raise _fail(_INVALID_INPUT, f"{name}: must be a numpy {_np.dtype(dtype).name} array, got {got}")
        if a.ndim != 1 or a.shape[0] != ranks:
            raise _fail(_INVALID_INPUT, f"{name}: must hold one value per rank ({ranks}), got shape {a.shape}")
        if not a.flags.c_contiguous or not a.flags.writeable:
            raise _fail(_INVALID_INPUT, f"{name}: must be contiguous and writeable")
        for other, b in list(zip(names, arrays)) + [("the costs", c) for c in inputs]:
            if _np.may_share_memory(a, b):
                raise _fail(_INVALID_INPUT, f"{name}: overlaps {other}")
        arrays.append(a)
    return arrays


class Returns(NamedTuple):
    """The result of ``returns_counts``: unpack it as ``counts, displs, summary``.

    ``counts[r]`` items go to rank ``r`` from item ``displacements[r]`` (numpy ``int64``
    by rank; contiguous in send order), and rank ``r`` sends ``counts[r]`` results back.

    ``summary`` is a dict: ``makespan``, ``lower_bound`` (certified over every scenario),
    ``gap``, ``method`` (``"lifo"``, ``"fifo"``, ``"best_scenario"``, …), ``exact``,
    ``send_order`` (every rank, members of the scenario first), ``return_order`` (the
    members, in the order their results reach the root), ``return_position`` (by rank,
    -1 for a rank outside the scenario), the predicted times by rank ``send_start``,
    ``received``, ``computed``, ``return_start``, ``return_end``, ``idle`` (numpy arrays),
    and ``rational_makespan``, ``bound``, ``throughput``, ``throughput_bound``,
    ``rational_optimal``, ``even_split_makespan``, ``speedup``, ``participating``,
    ``members``, ``items``, ``schedule``, ``port``.
    """

    counts: "_np.ndarray"
    displacements: "_np.ndarray"
    summary: Dict[str, Any]


def returns_counts(
    comm_per_item: Any,
    comp_per_item: Any,
    return_per_item: Any,
    items: int,
    schedule: str = "best",
    port: str = "full_duplex",
) -> Returns:
    """Counts and displacements by rank when the workers send their results back.

    The master sends each worker its items (``comm_per_item``, c, seconds per item), the
    worker computes them (``comp_per_item``, w) and sends the results back
    (``return_per_item``, d); one value per rank, numpy arrays or sequences. For an MPI
    root that is one of the workers, give it c = d = 0 (its part is copied locally).
    ``schedule``: ``"best"``, ``"lifo"`` or ``"fifo"``; ``port``: ``"full_duplex"``
    (one send and one receive at a time) or ``"half_duplex"``.

    Returns ``Returns(counts, displacements, summary)`` (see ``Returns``). Raises
    ``DivloadError`` as ``scatter_counts`` does (code 2 for a bad cost, naming
    ``worker r``, or an unknown schedule or port).

    >>> counts, displs, s = returns_counts([7, 8, 12], [6, 5, 5], [7, 8, 12], 1000)
    >>> counts.tolist(), s["makespan"], s["return_order"].tolist()
    ([496, 401, 103], 13139.0, [1, 2, 0])
    """
    c = _costs("comm_per_item", comm_per_item)
    w = _costs("comp_per_item", comp_per_item)
    d = _costs("return_per_item", return_per_item)
    n = _items(items)
    counts, displs, summary = _divload.returns_counts(c, w, d, n, _name("schedule", schedule), _name("port", port))
    return Returns(counts, displs, summary)


def _items(items: Any) -> int:
    n = _integer("items", items)
    if n < 0:
        raise _fail(_INVALID_INPUT, f"items: must be at least 1, got {n}")
    if n >= 1 << 64:
        raise _fail(_OVERFLOW, f"items: at most {2**53} can be planned with f64 arithmetic, got {n}")
    return n


def _document_text(document: Union[Dict[str, Any], str, bytes]) -> bytes:
    """A document given as a dict or JSON text, as the bytes the core reads."""
    if isinstance(document, dict):
        try:
            # NaN and infinities are written as the bare words JSON forbids, so that the
            # reader rejects them with its own message and offset.
            text = _json.dumps(document).encode()
        except (TypeError, ValueError, RecursionError) as e:
            raise _fail(_JSON, f"document: cannot be written as JSON ({e})") from None
    elif isinstance(document, str):
        try:
            text = document.encode()
        except UnicodeEncodeError as e:
            raise _fail(_JSON, f"document: not valid UTF-8 text ({e.reason} at character {e.start})") from None
    elif isinstance(document, (bytes, bytearray, memoryview)):
        text = bytes(document)
    else:
        raise _fail(_JSON, f"document: must be a dict or JSON text, got {type(document).__name__}")
    return text


def plan(document: Union[Dict[str, Any], str, bytes]) -> Dict[str, Any]:
    """Plans any model's document and returns its result document as a dict.

    ``document`` is a dict (written as JSON here) or the JSON text of a platform document
    of any model (``"model"``: ``"scatter"``, the default, ``"returns"``,
    ``"multicluster"``, ``"partition"`` or ``"ring"``; see ``models()`` and ``example()``). The result
    is what ``divload plan --json`` prints for the same document: every model's result has
    ``model``, ``method``, ``makespan``, ``lower_bound``, ``gap`` and ``exact``, and a
    ``plan`` list with one row per worker (``name``, ``rank``, ``count``,
    ``displacement``, predicted times). Planning runs without the GIL.

    Raises ``DivloadError`` with the code the C library's ``divload_plan_json`` returns
    for the same document: 5 for text that is not strict JSON or a document that does
    not follow its schema (the message gives the byte offset or the key); 2 for a value
    out of range (the message names ``workers[3].comp_per_item`` and its range; 5 where
    the model's reader checks the range itself, as the returns model's does); 4 for
    numbers too large (more than 2^20 workers); 6 when the working memory cannot be
    allocated.

    >>> result = plan(example("returns"))
    >>> result["model"], sum(row["count"] for row in result["plan"]) == result["items"]
    ('returns', True)
    """
    return _json.loads(_divload.plan_json(_document_text(document)))


class Shares(NamedTuple):
    """Each worker's share of a plan, in the document's order (an entry with ``count: k``
    is ``k`` workers), as numpy ``int64`` arrays, and the plan's summary."""

    counts: "_np.ndarray"
    """Items of each worker (0 for a worker the plan leaves out)."""
    displacements: "_np.ndarray"
    """First item of each worker's block (blocks follow ``positions``)."""
    positions: "_np.ndarray"
    """Where each worker comes in the plan's order (send order, ring order), -1 when left out."""
    summary: Dict[str, Any]
    """``method``, ``makespan``, ``lower_bound``, ``gap``, ``exact``."""


def shares(document: Union[Dict[str, Any], str, bytes]) -> Shares:
    """Plans any model's document into arrays by worker, for ``Scatterv``/``Gatherv``.

    The same plan as ``plan(document)`` (and C's ``divload_plan_shares``), without the
    result document: ``counts`` and ``displacements`` index the document's workers in
    their order, ``positions`` says where each comes in the plan's order (-1 for a worker
    left out, as the ring leaves out processors that would slow it down). Raises
    ``DivloadError`` as ``plan`` does.

    >>> s = shares(example("ring"))
    >>> int(s.counts.sum()) == example("ring")["work"], s.summary["method"]
    (True, 'local_search')
    """
    counts, displs, positions, summary = _divload.plan_shares(_document_text(document))
    return Shares(counts, displs, positions, summary)


class Chunks(NamedTuple):
    """The chunks of a plan sent in installments, in the order the root sends them, as
    numpy arrays, and the plan's summary."""

    ranks: "_np.ndarray"
    """The worker (its place in the document, from 0) that receives and computes each chunk."""
    counts: "_np.ndarray"
    """Items in each chunk (> 0)."""
    displacements: "_np.ndarray"
    """First item of each chunk in the root's buffer; a worker's chunks are consecutive parts of one block."""
    times: "_np.ndarray"
    """One row per chunk: send start, send end, compute start, compute end (seconds)."""
    summary: Dict[str, Any]
    """``method``, ``makespan``, ``lower_bound``, ``gap``, ``exact``."""


def chunks(document: Union[Dict[str, Any], str, bytes]) -> Chunks:
    """Plans a document sent in installments into its chunks, in send order.

    The document is a scatter document with ``"installments"`` (a number, or ``"auto"``),
    ``"deadline"``, a worker's ``"max_items"`` or ``"available_at"``, or ``"root_mode":
    "distribute_only"``: the same plan as ``plan(document)`` and C's
    ``divload_plan_chunks``. A plan that sends each worker its share in one message
    raises ``DivloadError`` (use ``shares``), as do bad documents.

    >>> c = chunks(dict(example("scatter"), installments="auto"))
    >>> int(c.counts.sum()) == example("scatter")["items"]
    True
    """
    ranks, counts, displs, times, summary = _divload.plan_chunks(_document_text(document))
    return Chunks(ranks, counts, displs, times.reshape(-1, 4), summary)


def models() -> List[Dict[str, str]]:
    """The models a document can name in ``"model"``: ``[{"name", "title", "paper"}, …]``.

    >>> [m["name"] for m in models()]
    ['scatter', 'returns', 'multicluster', 'partition', 'ring']
    """
    return _json.loads(_divload.models_json())


def example(model: str) -> Dict[str, Any]:
    """A ready-to-edit document of ``model`` (as ``divload example MODEL``), as a dict.

    ``plan(example(name))`` plans it. Raises ``DivloadError`` (code 2) for a model that
    ``models()`` does not list.

    >>> example("scatter")["version"]
    1
    """
    return _json.loads(_divload.example(_name("model", model)))
