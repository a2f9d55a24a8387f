"""divload.scatter_counts against the C ABI on the same workers (issue 34's benchmark).

    target/python-venv/bin/python python/bench/scatter.py            # p = 10^6, 7 runs
    target/python-venv/bin/python python/bench/scatter.py --p 100000 --runs 11

Installs libdivload into target/c-prefix (scripts/install-c), builds python/bench/plan_c.c
against it (static), writes p random workers (seed 34: comm_per_item uniform in
[1e-7, 1e-5] s, comp_per_item in [1e-4, 1e-2] s, no latencies; root 0, 2^40 items,
bandwidth order) and times, alternately so that the machine's load hits both alike:
the C ABI's divload_plan_counts64 (counts and displacements by rank, the same output;
timed inside the C program around the call alone), the same call in a workspace planned
once before (divload_workspace_plan_counts64, the second call timed), and
divload.scatter_counts (its thread's workspace filled by one call before; timed
around the Python call: the arrays' conversion, the plan without the GIL, the numpy
results and the summary dict), and divload.scatter_counts writing into the caller's arrays
(out=(counts, displs), reused from call to call as the C caller reuses its own; no finish
times, as the C call computes none). Prints the median, fastest and slowest of each, and
their ratios; the plans' makespans must agree to the bit. A benchmark, not a test: nothing is
asserted about the times.
"""

import argparse
import os

# numpy's OpenBLAS keeps threads spinning after its calls, which take a core from the plan
# on a 2-core machine (7 % of a profile of this bench); none of its work is timed here.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import divload

REPO = Path(__file__).resolve().parents[2]
ROUNDING_NUMBER = {"greedy": 0, "largest_remainder": 1, "paper": 2}  # DIVLOAD_ROUNDING_*


def build_c():
    prefix = REPO / "target" / "c-prefix"
    subprocess.run([str(REPO / "scripts" / "install-c"), str(prefix)], check=True, stdout=subprocess.DEVNULL)
    env = {**os.environ, "PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig")}
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "divload-static"], check=True,
                           capture_output=True, text=True, env=env).stdout.split()
    program = REPO / "target" / "bench-plan_c"
    subprocess.run(["cc", "-std=c11", "-O2", "-Wall", "-Werror", str(Path(__file__).with_name("plan_c.c")),
                    "-o", str(program), *flags], check=True)
    return program


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, default=10**6)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--items", type=int, default=2**40)
    parser.add_argument("--rounding", nargs="+", default=["greedy", "largest_remainder"])
    args = parser.parse_args()

    program = build_c()
    rng = np.random.default_rng(34)
    workers = np.zeros((args.p, 4), dtype=np.float64)  # divload_worker: four doubles
    workers[:, 1] = rng.uniform(1e-7, 1e-5, args.p)
    workers[:, 3] = rng.uniform(1e-4, 1e-2, args.p)
    comm, comp = np.ascontiguousarray(workers[:, 1]), np.ascontiguousarray(workers[:, 3])
    cpu = next((line.split(":", 1)[1].strip() for line in subprocess.run(
        ["lscpu"], capture_output=True, text=True).stdout.splitlines() if line.startswith("Model name")), "?")
    print(f"p = {args.p}, items = {args.items}, {args.runs} runs each, alternating; {cpu}; "
          f"Python {sys.version.split()[0]}, numpy {np.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "workers.bin"
        workers.tofile(path)
        for rounding in args.rounding:
            c_times, ws_times, py_times, out_times = [], [], [], []
            mine = (np.zeros(args.p, np.int64), np.zeros(args.p, np.int64))
            # The first call fills this thread's workspace; the timed ones reuse it.
            divload.scatter_counts(comm, comp, args.items, rounding=rounding)
            for _ in range(args.runs):
                out = subprocess.run([str(program), str(path), str(args.items), str(ROUNDING_NUMBER[rounding]),
                                      "counts64"], check=True, capture_output=True, text=True).stdout.split()
                c_times.append(float(out[0]))
                c_makespan = float(out[1])
                out = subprocess.run([str(program), str(path), str(args.items), str(ROUNDING_NUMBER[rounding]),
                                      "counts64-ws"], check=True, capture_output=True, text=True).stdout.split()
                ws_times.append(float(out[0]))
                if float(out[1]) != c_makespan:
                    sys.exit(f"{rounding}: the workspace's makespan differs: {out[1]} against {c_makespan!r}")
                t0 = time.perf_counter()
                _, _, summary = divload.scatter_counts(comm, comp, args.items, rounding=rounding)
                py_times.append(time.perf_counter() - t0)
                if summary["makespan"] != c_makespan:
                    sys.exit(f"{rounding}: the makespans differ: C {c_makespan!r}, Python {summary['makespan']!r}")
                t0 = time.perf_counter()
                _, _, summary = divload.scatter_counts(comm, comp, args.items, rounding=rounding, out=mine)
                out_times.append(time.perf_counter() - t0)
                if summary["makespan"] != c_makespan:
                    sys.exit(f"{rounding}: out=: the makespans differ: C {c_makespan!r}, Python {summary['makespan']!r}")
            c, ws, py = statistics.median(c_times), statistics.median(ws_times), statistics.median(py_times)
            po = statistics.median(out_times)
            print(f"{rounding:>17}: C divload_plan_counts64 {c * 1e3:8.1f} ms (min {min(c_times) * 1e3:.1f}, "
                  f"max {max(c_times) * 1e3:.1f}); in a workspace {ws * 1e3:8.1f} ms (min {min(ws_times) * 1e3:.1f}, "
                  f"max {max(ws_times) * 1e3:.1f}); scatter_counts {py * 1e3:8.1f} ms (min {min(py_times) * 1e3:.1f}, "
                  f"max {max(py_times) * 1e3:.1f}); Python / C workspace = {py / ws:.3f}; "
                  f"scatter_counts(out=) {po * 1e3:8.1f} ms (min {min(out_times) * 1e3:.1f}, "
                  f"max {max(out_times) * 1e3:.1f}), / C workspace = {po / ws:.3f}")


if __name__ == "__main__":
    main()
