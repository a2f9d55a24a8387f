"""pytest on the installed `divload` package (tests/python/run builds and installs the
wheel first): every model's example against the command line, the typed paths against
the documents, bad inputs of each kind, numpy and list inputs, 10^6 ranks."""

import doctest
import json
import math
import os
import pickle
import pydoc
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import divload
from divload import DivloadError

REPO = Path(__file__).resolve().parents[2]
CLI = Path(os.environ.get("DIVLOAD_CLI", REPO / "target" / "release" / "divload"))
MODELS = ["scatter", "returns", "multicluster", "partition", "ring"]


def cli(*args):
    if not CLI.exists():
        pytest.skip(f"the command line is not built at {CLI} (tests/python/run builds it)")
    return subprocess.run([str(CLI), *args], check=True, capture_output=True, text=True).stdout


def status_numbers():
    """The C library's status numbers, read from the generated header."""
    text = (REPO / "include" / "divload.h").read_text()
    return {name: int(n) for name, n in re.findall(r"\bDIVLOAD_([A-Z_]+) = (\d+),", text)}


def raises(code, pattern, call, *args, **kwargs):
    with pytest.raises(DivloadError) as info:
        call(*args, **kwargs)
    e = info.value
    assert e.code == code, (e.code, e.message)
    assert re.search(pattern, e.message), e.message
    assert str(e) == e.message
    return e


# --- documents -----------------------------------------------------------------------


def test_models_are_the_command_lines():
    names = [m["name"] for m in divload.models()]
    assert names == MODELS
    assert all(m["title"] and m["paper"] for m in divload.models())
    listed = cli("models")
    for m in divload.models():
        assert m["name"] in listed and m["title"] in listed


@pytest.mark.parametrize("model", MODELS)
def test_every_example_plans_as_the_command_line_does(model, tmp_path):
    document = divload.example(model)
    assert document == json.loads(cli("example", model))
    path = tmp_path / f"{model}.json"
    path.write_text(cli("example", model))
    expected = json.loads(cli("plan", str(path), "--json"))
    # A dict, its JSON text and the bytes of that text give the same result document.
    for given in (document, json.dumps(document), json.dumps(document).encode()):
        assert divload.plan(given) == expected
    result = expected
    assert result["model"] == model
    for key in ("method", "makespan", "lower_bound", "gap", "exact", "plan"):
        assert key in result
    assert result["lower_bound"] <= result["makespan"] + 1e-9 * result["makespan"]


@pytest.mark.parametrize("model", ["scatter", "returns", "partition"])
def test_every_item_is_planned_once(model):
    result = divload.plan(divload.example(model))
    rows = sorted(result["plan"], key=lambda row: row["displacement"])
    assert sum(row["count"] for row in rows) == result["items"]
    at = 0
    for row in rows:
        assert row["displacement"] == at and row["count"] >= 0
        at += row["count"]


@pytest.mark.parametrize("model", MODELS)
def test_shares_are_the_plans_rows_by_worker(model):
    document = divload.example(model)
    result = divload.plan(document)
    s = divload.shares(document)
    assert s.counts.dtype == s.displacements.dtype == s.positions.dtype == np.int64
    assert len(s.counts) == len(s.displacements) == len(s.positions)
    for key in ("method", "makespan", "lower_bound", "gap", "exact"):
        assert s.summary[key] == result[key]
    items = result.get("items", result.get("work"))
    if items is not None:
        assert int(s.counts.sum()) == items
    # Blocks follow the plan's order, contiguous from 0; a worker left out has nothing.
    taking = sorted((p, c, d) for p, c, d in zip(s.positions, s.counts, s.displacements) if p >= 0)
    at = 0
    for _, count, displacement in taking:
        assert displacement == at
        at += count
    assert all(c == 0 for p, c in zip(s.positions, s.counts) if p < 0)
    # The same counts as the result's rows, in the plan's order.
    assert sorted(int(c) for c in s.counts if c > 0) == sorted(r["count"] for r in result["plan"] if r["count"] > 0)


def test_installment_documents_plan_and_share():
    """A document with installments, caps and a late node: whole chunks within the caps,
    each worker's total at its block, as the command line plans it."""
    path = REPO / "examples" / "scatter_installments.json"
    result = divload.plan(path.read_text())
    assert result == json.loads(cli("plan", str(path), "--json"))
    assert result["method"] == "installments_lp" and result["rounds"] > 1
    chunks = result["chunks"]
    assert sum(c["count"] for c in chunks) == result["items"] == 20000
    assert all(c["count"] <= 2500 for c in chunks)
    s = divload.shares(path.read_text())
    for row in result["plan"]:
        assert s.counts[row["rank"]] == row["count"] and s.displacements[row["rank"]] == row["displacement"]
    assert s.positions[0] == -1 and s.counts[0] == 0


def test_chunks_are_the_documents_chunks():
    """divload.chunks gives the result document's chunks in send order, each worker's
    chunks consecutive in its block; a one-message plan is refused with the call to use."""
    path = REPO / "examples" / "scatter_installments.json"
    result = divload.plan(path.read_text())
    c = divload.chunks(path.read_text())
    assert c.ranks.dtype == c.counts.dtype == c.displacements.dtype == np.int64
    assert c.times.shape == (len(c.counts), 4)
    rows = result["chunks"]
    assert [r["rank"] for r in rows] == c.ranks.tolist()
    assert [r["count"] for r in rows] == c.counts.tolist()
    assert [r["displacement"] for r in rows] == c.displacements.tolist()
    assert c.times[:, 0].tolist() == pytest.approx([r["send_start"] for r in rows], rel=1e-12)
    assert c.times[:, 3].tolist() == pytest.approx([r["compute_end"] for r in rows], rel=1e-12)
    assert int(c.counts.sum()) == result["items"]
    for key in ("method", "makespan", "lower_bound", "gap", "exact"):
        assert c.summary[key] == result[key]
    following = {}
    for rank, count, first in zip(c.ranks, c.counts, c.displacements):
        assert following.get(rank, first) == first
        following[rank] = first + count
    one_round = divload.example("scatter")
    with pytest.raises(divload.DivloadError) as e:
        divload.chunks(one_round)
    assert e.value.code == 2 and "shares()" in e.value.message
    several = divload.chunks(dict(one_round, installments="auto"))
    assert int(several.counts.sum()) == one_round["items"]


def test_shares_errors_are_plans_errors():
    with pytest.raises(divload.DivloadError) as e:
        divload.shares('{"version": 1, "model": "ring"')
    assert e.value.code == 5


def test_the_paper_instance():
    result = divload.plan((REPO / "examples" / "table1.json").read_text())
    assert result["makespan"] == pytest.approx(403.975, abs=1e-3)
    assert len(result["plan"]) == 16


@pytest.mark.parametrize(
    "document, code, pattern",
    [
        ('{"version": 1, "items": .5}', 5, r"byte \d+: invalid number"),
        ('{"version": 1,', 5, r"byte"),
        ("", 5, r""),
        ('{"version": 1, "items": 10, "workers": [{"name": "a", "comm_per_item": 0, "comp_per_item": -1}]}',
         2, r"workers\[0\]\.comp_per_item must be finite and > 0, got -1"),
        ('{"version": 1, "model": "returns", "items": 10, "workers": [{"name": "a", "comm_per_item": 1, '
         '"comp_per_item": -1, "return_per_item": 1}]}', 5, r"workers\[0\]\.comp_per_item: must be finite and > 0"),
        ('{"version": 1, "model": "teleport"}', 5, r"model"),
        ('{"version": 1, "items": 10, "workers": [], "workers": []}', 5, r"workers"),
        ("[]", 5, r"byte 0: expected an object"),
    ],
)
def test_bad_documents(document, code, pattern):
    raises(code, pattern, divload.plan, document)


def test_bad_document_arguments():
    raises(5, r"must be a dict or JSON text, got int", divload.plan, 42)
    raises(5, r"must be a dict or JSON text, got NoneType", divload.plan, None)
    raises(5, r"cannot be written as JSON", divload.plan, {"items": {1, 2}})
    # NaN in a dict reaches the strict reader, which names it.
    doc = divload.example("scatter")
    doc["workers"][1]["comp_per_item"] = float("nan")
    raises(5, r"NaN", divload.plan, doc)
    raises(5, r"UTF-8", divload.plan, '{"comment": "\ud800"}')
    raises(5, r"", divload.plan, b"\xff\xfe")


def test_unknown_example():
    raises(2, r'unknown model "teleport" \(known: scatter, returns, multicluster, partition, ring\)',
           divload.example, "teleport")
    raises(2, r"model: must be a string", divload.example, 3)


def test_too_many_workers_in_a_document():
    doc = {"version": 1, "items": 10, "root": "a",
           "workers": [{"name": "a", "count": 2**21, "comm_per_item": 0, "comp_per_item": 1}]}
    raises(4, r"workers: at most 1048576, got 2097152", divload.plan, doc)


# --- scatter_counts ------------------------------------------------------------------

COMM = [0.0, 1.12e-5, 3.53e-5, 2e-6, 8e-6]
COMP = [0.009288, 0.009365, 0.009677, 0.02, 0.004]


def as_document(comm, comp, items, root=0, **options):
    return {"version": 1, "items": items, "root": f"w{root}", **options,
            "workers": [{"name": f"w{r}", "comm_per_item": c, "comp_per_item": w}
                        for r, (c, w) in enumerate(zip(comm, comp))]}


@pytest.mark.parametrize("root", [0, 2, 4])
@pytest.mark.parametrize("options", [
    {},
    {"order": "given"},
    {"rounding": "largest_remainder"},
    {"rounding": "paper", "root_mode": "overlap"},
])
def test_scatter_counts_is_the_documents_plan(root, options):
    counts, displs, s = divload.scatter_counts(COMM, COMP, 817101, root=root, **options)
    result = divload.plan(as_document(COMM, COMP, 817101, root, **options))
    assert counts.dtype == np.int64 and displs.dtype == np.int64
    by_rank = {row["rank"]: row for row in result["plan"]}
    assert counts.tolist() == [by_rank[r]["count"] for r in range(5)]
    assert displs.tolist() == [by_rank[r]["displacement"] for r in range(5)]
    assert s["order"].tolist() == [row["rank"] for row in result["plan"]]
    assert s["finish"].tolist() == [by_rank[r]["finish"] for r in range(5)]
    for key in ("makespan", "lower_bound", "gap", "exact", "method", "rational_makespan", "bound", "speedup"):
        assert s[key] == result[key], key
    assert s["order"][-1] == root or options.get("root_mode") == "overlap"


def test_order_search_under_startup_costs():
    # Startup costs make the fastest link first a poor order: "search" finds the best one,
    # as the document does, and proves it.
    comm, comp, lat = [0.0, 0.01, 0.02], [1.0, 1.0, 1.0], [0.0, 5.0, 0.0]
    counts, _, s = divload.scatter_counts(comm, comp, 100, comm_latency=lat, order="search")
    _, _, b = divload.scatter_counts(comm, comp, 100, comm_latency=lat)
    doc = as_document(comm, comp, 100, order="search")
    for w, a in zip(doc["workers"], lat):
        w["comm_latency"] = a
    result = divload.plan(doc)
    assert s["method"] == "order_search" == result["method"] and s["rational_exact"]
    assert counts.sum() == 100 and s["makespan"] == result["makespan"]
    assert s["rational_makespan"] < b["rational_makespan"] and s["lower_bound"] <= b["makespan"]


def test_numpy_and_sequences_agree():
    base = divload.scatter_counts(np.array(COMM), np.array(COMP), 10**6)
    strided = np.zeros((5, 3))
    strided[:, 1] = COMP
    for comm, comp in [
        (COMM, COMP),
        (tuple(COMM), tuple(COMP)),
        (np.array(COMM, dtype=object), np.array(COMP, dtype=np.longdouble)),
        (np.array(COMM), strided[:, 1]),  # a strided view
        (np.array(COMM)[::-1][::-1], np.array(COMP)),
    ]:
        counts, displs, s = divload.scatter_counts(comm, comp, 10**6)
        assert np.array_equal(counts, base.counts) and np.array_equal(displs, base.displacements)
        assert s["makespan"] == base.summary["makespan"]
    # Integer costs and numpy integer arguments are numbers too.
    counts, _, _ = divload.scatter_counts([0, 1, 2], [3, 4, 5], np.int64(100), root=np.int32(0))
    assert counts.sum() == 100


def test_out_arrays_hold_the_same_plan():
    """``out=`` writes the plan a fresh call returns into the caller's arrays, again and
    again; with the finish times' array too, or without (then none are computed)."""
    rng = np.random.default_rng(45)
    p = 2_000
    comm, comp = rng.uniform(1e-7, 1e-5, p), rng.uniform(1e-4, 1e-2, p)
    counts, displs = np.full(p, -1, np.int64), np.full(p, -1, np.int64)
    finish = np.full(p, np.nan)
    for rounding in ("greedy", "largest_remainder", "paper"):
        for items in (10**9, 7_777, 3):
            want = divload.scatter_counts(comm, comp, items, root=5, rounding=rounding)
            got = divload.scatter_counts(comm, comp, items, root=5, rounding=rounding, out=(counts, displs, finish))
            assert got.counts is counts and got.displacements is displs and got.summary["finish"] is finish
            assert np.array_equal(counts, want.counts) and np.array_equal(displs, want.displacements)
            assert np.array_equal(finish, want.summary["finish"])
            assert np.array_equal(got.summary["order"], want.summary["order"])
            assert got.summary["makespan"] == want.summary["makespan"]
            counts[:] = -1
            c, d, s = divload.scatter_counts(comm, comp, items, root=5, rounding=rounding, out=[counts, displs])
            assert c is counts and d is displs and s["finish"] is None
            assert np.array_equal(counts, want.counts) and np.array_equal(displs, want.displacements)
            assert s["makespan"] == want.summary["makespan"] and s["gap"] == want.summary["gap"]


@pytest.mark.parametrize("make, pattern", [
    (lambda p: (np.zeros(p, np.int64),), r"out: must be a tuple"),
    (lambda p: np.zeros(p, np.int64), r"out: must be a tuple"),
    (lambda p: (np.zeros(p, np.int32), np.zeros(p, np.int64)), r"out counts: must be a numpy int64 array, got int32"),
    (lambda p: ([0] * p, np.zeros(p, np.int64)), r"out counts: must be a numpy int64 array, got list"),
    (lambda p: (np.zeros(p, np.int64), np.zeros(p - 1, np.int64)), r"out displacements: must hold one value per rank \(5\)"),
    (lambda p: (np.zeros(p, np.int64), np.zeros(p, np.int64), np.zeros(p, np.float32)),
     r"out finish times: must be a numpy float64 array"),
    (lambda p: (np.zeros((p, 1), np.int64), np.zeros(p, np.int64)), r"out counts: must hold one value per rank"),
    (lambda p: (np.zeros(2 * p, np.int64)[::2], np.zeros(p, np.int64)), r"out counts: must be contiguous and writeable"),
    (lambda p: (np.zeros(p, np.int64), np.zeros(p, np.int64).view(np.int64)), None),
])
def test_out_arrays_unfit(make, pattern):
    out = make(5)
    if pattern is None:
        assert divload.scatter_counts(COMM, COMP, 1000, out=out).counts.sum() == 1000
        return
    raises(2, pattern, divload.scatter_counts, COMM, COMP, 1000, out=out)


def test_out_arrays_must_not_overlap():
    both = np.zeros(10, np.int64)
    raises(2, r"out displacements: overlaps out counts", divload.scatter_counts, COMM, COMP, 1000,
           out=(both[:5], both[3:8]))
    frozen = np.zeros(5, np.int64)
    frozen.flags.writeable = False
    raises(2, r"out counts: must be contiguous and writeable", divload.scatter_counts, COMM, COMP, 1000,
           out=(frozen, np.zeros(5, np.int64)))
    costs = np.array(COMP)
    raises(2, r"out finish times: overlaps the costs", divload.scatter_counts, COMM, costs, 1000,
           out=(np.zeros(5, np.int64), np.zeros(5, np.int64), costs))
    # A bad cost is named as without out=, and nothing else is promised of the arrays.
    raises(2, r"worker 2: comp_per_item", divload.scatter_counts, COMM, [1e-3, 1e-3, -1.0, 1e-3, 1e-3], 1000,
           out=(np.zeros(5, np.int64), np.zeros(5, np.int64)))


def test_latencies():
    lat = [0.0, 0.5, 0.5, 0.5, 0.5]
    counts, displs, s = divload.scatter_counts(COMM, COMP, 1000, comm_latency=lat, comp_latency=lat)
    result = divload.plan({**as_document(COMM, COMP, 1000), "workers": [
        {"name": f"w{r}", "comm_per_item": c, "comp_per_item": w, "comm_latency": l, "comp_latency": l}
        for r, (c, w, l) in enumerate(zip(COMM, COMP, lat))]})
    assert s["makespan"] == result["makespan"]
    assert counts.sum() == 1000


def test_the_roots_link_is_ignored():
    comm = [float("nan"), 1e-5, 2e-5]
    counts, _, _ = divload.scatter_counts(comm, [1e-3, 1e-3, 2e-3], 1000, comm_latency=[math.inf, 0, 0])
    assert counts.sum() == 1000


def test_fewer_items_than_ranks():
    counts, displs, s = divload.scatter_counts([0.0] + [1e-6] * 9, [1e-3] * 10, 3)
    assert counts.sum() == 3 and (counts == 0).sum() == 7
    assert s["participating"] == 3


@pytest.mark.parametrize(
    "kwargs, code, pattern",
    [
        ({"comp_per_item": [1e-3, float("nan")]}, 2, r"worker 1: comp_per_item must be finite and > 0, got NaN"),
        ({"comp_per_item": [1e-3, math.inf]}, 2, r"worker 1: comp_per_item must be finite and > 0, got inf"),
        ({"comp_per_item": [1e-3, -1.0]}, 2, r"worker 1: comp_per_item must be finite and > 0, got -1"),
        ({"comp_per_item": [1e-3, 0.0]}, 2, r"worker 1: comp_per_item must be finite and > 0, got 0"),
        ({"comm_per_item": [0.0, -1e-6]}, 2, r"worker 1: comm_per_item must be finite and >= 0"),
        ({"comm_per_item": [0.0, float("nan")]}, 2, r"worker 1: comm_per_item must be finite and >= 0, got NaN"),
        ({"comm_latency": [0.0, -1.0]}, 2, r"worker 1: comm_latency must be finite and >= 0"),
        ({"comp_latency": [0.0, math.inf]}, 2, r"worker 1: comp_latency must be finite and >= 0"),
        ({"comm_per_item": [], "comp_per_item": []}, 2, r"workers: at least one worker is needed, got 0"),
        ({"comp_per_item": [1e-3]}, 2, r"comp_per_item: 1 values, but comm_per_item has 2"),
        ({"comm_latency": [0.0]}, 2, r"comm_latency: 1 values, but comm_per_item has 2"),
        ({"comp_latency": [0.0, 0.0, 0.0]}, 2, r"comp_latency: 3 values, but comm_per_item has 2"),
        ({"items": 0}, 2, r"items: must be at least 1, got 0"),
        ({"items": -5}, 2, r"items: must be at least 1, got -5"),
        ({"items": 2**53 + 1}, 4, r"items: at most 9007199254740992 can be planned with f64 arithmetic"),
        ({"items": 2**64}, 4, r"items: at most 9007199254740992"),
        ({"items": 10.5}, 2, r"items: must be an integer, got float"),
        ({"items": "10"}, 2, r"items: must be an integer, got str"),
        ({"items": True}, 2, r"items: must be an integer, got True"),
        ({"items": None}, 2, r"items: must be an integer, got NoneType"),
        ({"root": 2}, 2, r"root: must be a worker index in 0..2, got 2"),
        ({"root": -1}, 2, r"root: must be a worker index in 0..2, got -1"),
        ({"root": 2**70}, 2, r"root: must be a worker index in 0..2"),
        ({"root": 1.0}, 2, r"root: must be an integer"),
        ({"comm_per_item": "fast"}, 2, r"comm_per_item: must be a sequence of numbers"),
        ({"comm_per_item": None}, 2, r"comm_per_item: must be one-dimensional"),
        ({"comp_per_item": [1e-3, "x"]}, 2, r"comp_per_item: must be a sequence of numbers"),
        # numpy reads None as NaN, which the core then names.
        ({"comp_per_item": [1e-3, None]}, 2, r"worker 1: comp_per_item must be finite and > 0, got NaN"),
        ({"comp_per_item": [1e-3, 1j]}, 2, r"comp_per_item: must be a sequence of numbers"),
        ({"comp_per_item": {"a": 1}}, 2, r"comp_per_item: must be"),
        ({"comp_per_item": [[1e-3, 1e-3]]}, 2, r"comp_per_item: must be one-dimensional \(one value per rank\), got 2"),
        ({"comm_per_item": 0.5}, 2, r"comm_per_item: must be one-dimensional"),
        ({"order": "fastest"}, 2, r'order: must be "bandwidth", "given" or "search", got "fastest"'),
        ({"rounding": "up"}, 2, r'rounding: must be "greedy", "largest_remainder" or "paper", got "up"'),
        ({"root_mode": "never"}, 2, r'root_mode: must be "after_send", "overlap" or "distribute_only", got "never"'),
        ({"root_mode": "distribute_only"}, 2, r'root_mode: "distribute_only" is planned with installments'),
        ({"order": 1}, 2, r"order: must be a string, got int"),
    ],
)
def test_scatter_counts_bad_inputs(kwargs, code, pattern):
    args = {"comm_per_item": [0.0, 1e-5], "comp_per_item": [1e-3, 2e-3], "items": 100, **kwargs}
    raises(code, pattern, divload.scatter_counts, **args)


def test_huge_p_is_an_error_not_a_crash():
    # 2^40 ranks as zero-stride views: nothing is allocated until divload asks for its
    # working memory, which cannot be had.
    huge = np.broadcast_to(np.float64(1e-3), (2**40,))
    raises(6, r"cannot allocate .* MiB of working memory", divload.scatter_counts, huge, huge, 10)
    raises(6, r"cannot allocate", divload.returns_counts, huge, huge, huge, 10)


def test_options_accept_dashes():
    a = divload.scatter_counts(COMM, COMP, 1000, rounding="largest-remainder", root_mode="after-send")
    b = divload.scatter_counts(COMM, COMP, 1000, rounding="largest_remainder", root_mode="after_send")
    assert np.array_equal(a.counts, b.counts)


def test_a_million_ranks():
    p = 10**6
    rng = np.random.default_rng(34)
    comm, comp = rng.uniform(1e-7, 1e-5, p), rng.uniform(1e-4, 1e-2, p)
    items = 10**9
    counts, displs, s = divload.scatter_counts(comm, comp, items, root=p // 2)
    assert counts.shape == (p,) and counts.sum() == items and (counts >= 0).all()
    order = s["order"]
    assert sorted(order.tolist()) == list(range(p)) and order[-1] == p // 2
    # Contiguous in send order: each rank starts where the one served before it ends.
    assert displs[order[0]] == 0
    assert np.array_equal(displs[order[1:]], (displs + counts)[order[:-1]])
    assert s["lower_bound"] <= s["makespan"] <= s["bound"]
    assert s["finish"].max() == s["makespan"]


def test_the_plan_runs_without_the_gil():
    # While another thread plans 10^6 ranks, this one keeps running Python. Holding the
    # GIL through the plan would stop it for about the whole call; without it, the
    # longest pause is the short phases that convert the arrays (and the scheduler's).
    p = 10**6
    rng = np.random.default_rng(1)
    comm, comp = rng.uniform(1e-7, 1e-5, p), rng.uniform(1e-4, 1e-2, p)
    t0 = time.perf_counter()
    divload.scatter_counts(comm, comp, 10**9)
    alone = time.perf_counter() - t0
    worker = threading.Thread(target=divload.scatter_counts, args=(comm, comp, 10**9))
    worker.start()
    last = time.perf_counter()
    longest = 0.0
    while worker.is_alive():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    assert longest < alone / 3, (longest, alone)


# --- returns_counts ------------------------------------------------------------------


def test_returns_counts_is_the_documents_plan():
    doc = divload.example("returns")
    workers = doc["workers"]
    c = [w["comm_per_item"] for w in workers]
    w_ = [w["comp_per_item"] for w in workers]
    d = [w["return_per_item"] for w in workers]
    for schedule in ("best", "lifo", "fifo"):
        for port in ("full_duplex", "half_duplex"):
            result = divload.plan({**doc, "schedule": schedule, "port": port})
            counts, displs, s = divload.returns_counts(c, w_, d, doc["items"], schedule=schedule, port=port)
            by_rank = {row["rank"]: row for row in result["plan"]}
            assert counts.tolist() == [by_rank[r]["count"] for r in range(3)]
            assert displs.tolist() == [by_rank[r]["displacement"] for r in range(3)]
            assert s["makespan"] == result["makespan"] and s["lower_bound"] == result["lower_bound"]
            names = [workers[r]["name"] for r in s["return_order"]]
            assert names == result["return_order"]
            assert [workers[r]["name"] for r in s["send_order"][: s["members"]]] == result["send_order"]
            assert s["return_end"].tolist() == [by_rank[r]["return_end"] for r in range(3)]


def test_returns_counts_bad_inputs():
    args = ([7, 8], [6, 5], [7, 8], 100)
    raises(2, r"worker 1: return_per_item must be finite and >= 0, got NaN",
           divload.returns_counts, [7, 8], [6, 5], [7, float("nan")], 100)
    raises(2, r"worker 0: comp_per_item must be finite and > 0, got 0", divload.returns_counts, [7, 8], [0, 5], [7, 8], 100)
    raises(2, r"return_per_item: 1 values, but comm_per_item has 2", divload.returns_counts, [7, 8], [6, 5], [7], 100)
    raises(2, r'schedule: must be "best", "lifo", "fifo"', divload.returns_counts, *args, schedule="random")
    raises(2, r'port: must be "full_duplex" or "half_duplex"', divload.returns_counts, *args, port="simplex")
    raises(2, r"items: must be at least 1, got 0", divload.returns_counts, *args[:3], 0)
    raises(2, r"workers: at least one worker is needed", divload.returns_counts, [], [], [], 10)


def test_returns_counts_large_p():
    p = 10**5
    rng = np.random.default_rng(7)
    c = rng.uniform(1e-6, 1e-5, p)
    counts, displs, s = divload.returns_counts(c, rng.uniform(1e-4, 1e-3, p), 2 * c, 10**8, schedule="lifo")
    assert counts.sum() == 10**8 and s["lower_bound"] <= s["makespan"]
    assert s["return_order"].tolist() == s["send_order"][: s["members"]][::-1].tolist()


# --- the exception, the codes, the documentation --------------------------------------


def test_codes_are_the_c_librarys():
    numbers = status_numbers()
    from divload import _divload

    assert _divload.INVALID_INPUT == numbers["INVALID_INPUT"]
    assert _divload.OUT_OF_MEMORY == numbers["OUT_OF_MEMORY"]
    assert _divload.PANIC == numbers["PANIC"]
    assert _divload.OVERFLOW == numbers["OVERFLOW"] and _divload.JSON == numbers["JSON"]
    assert raises(4, "", divload.scatter_counts, [0.0], [1.0], 2**60).code == numbers["OVERFLOW"]
    assert raises(5, "", divload.plan, "{").code == numbers["JSON"]


def test_divload_error():
    e = raises(2, "", divload.scatter_counts, [0.0], [float("nan")], 1)
    assert isinstance(e, ValueError)
    again = pickle.loads(pickle.dumps(e))
    assert (again.message, again.code, type(again)) == (e.message, e.code, DivloadError)
    assert "code=2" in repr(e)


def test_docstrings_and_stubs():
    failures, attempted = doctest.testmod(divload, verbose=False)
    assert attempted >= 5 and failures == 0
    text = pydoc.render_doc(divload, renderer=pydoc.plaintext)
    for name in ("scatter_counts", "returns_counts", "plan", "models", "example", "DivloadError"):
        assert name in text
    assert "Raises ``DivloadError``" in divload.scatter_counts.__doc__
    package = Path(divload.__file__).parent
    assert (package / "py.typed").exists()
    stub = (package / "__init__.pyi").read_text()
    for name in divload.__all__:
        assert re.search(rf"\b(def|class) {name}\b", stub), name
    assert (package / "mpi.pyi").exists()


def test_divload_without_mpi4py():
    # As where mpi4py is not installed: divload imports, divload.mpi says what it needs.
    code = (
        "import sys; sys.modules['mpi4py'] = None\n"
        "import divload; assert divload.scatter_counts([0.0], [1.0], 3).counts.tolist() == [3]\n"
        "try:\n    import divload.mpi\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.startswith("divload.mpi needs mpi4py"), out
