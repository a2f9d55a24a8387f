"""divload's C workspace call against DLT-Studio's single-round solver, same platform,
alternating runs (issue 45's comparison).

    target/python-venv/bin/python python/bench/vs_dlt.py --dls /work/dlt/B/bin/dls --p 100000 1000000

DLT-Studio (github.com/HiPERACT-Scheduling/DLT-Studio) is built outside the repository
(BENCHMARKS.md, §Tools, says how). The platform is the `scale` bench's distribution: p
workers, comm_per_item uniform in [1e-9, 1.1e-8] s, comp_per_item in [1e-3, 1.1e-2] s, no
latencies, 2^40 items (seed 45). divload plans it through divload_workspace_plan_counts64
(the second call in one workspace, timed inside the C program, python/bench/plan_c.c);
DLT-Studio through `dls solve --solver=single-round --json`, its own `wallTimeSec`, which
covers its solver alone (not reading the instance) and rounds nothing to integers. Its
master does not compute; divload's rank 0 is the root, which does. Prints each side's
median, fastest and slowest and the ratio of the medians. A benchmark: nothing is
asserted about the times.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from scatter import ROUNDING_NUMBER, build_c


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dls", required=True, help="DLT-Studio's dls binary")
    parser.add_argument("--p", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounding", nargs="+", default=["largest_remainder", "greedy"])
    args = parser.parse_args()
    program = build_c()
    items = 2**40
    with tempfile.TemporaryDirectory() as tmp:
        for p in args.p:
            rng = np.random.default_rng(45)
            workers = np.zeros((p, 4))
            workers[:, 1] = 1e-9 + rng.random(p) * 1e-8
            workers[:, 3] = 1e-3 + rng.random(p) * 1e-2
            binary, text = Path(tmp) / "workers.bin", Path(tmp) / "instance.txt"
            workers.tofile(binary)
            with open(text, "w") as f:
                f.write(f"V {items}\n")  # then `S C A B` per worker: B 0 is no buffer limit
                np.savetxt(f, np.column_stack([workers[:, 0], workers[:, 1], workers[:, 3], np.zeros(p)]), fmt="%.17g")
            times, makespan = {r: [] for r in args.rounding}, {}
            peer = []
            for _ in range(args.runs):
                out = json.loads(subprocess.run([args.dls, "solve", "--solver=single-round", "--json", str(text)],
                                                check=True, capture_output=True, text=True).stdout)
                peer.append(out["solution"]["wallTimeSec"])
                for r in args.rounding:
                    line = subprocess.run([str(program), str(binary), str(items), str(ROUNDING_NUMBER[r]), "counts64-ws"],
                                          check=True, capture_output=True, text=True).stdout.split()
                    times[r].append(float(line[0]))
                    makespan[r] = float(line[1])
            d = statistics.median(peer)
            print(f"p = {p}: DLT-Studio single-round {d * 1e3:.3f} ms (min {min(peer) * 1e3:.3f}, "
                  f"max {max(peer) * 1e3:.3f}), makespan {out['solution']['makespan']:.6f}")
            for r in args.rounding:
                m = statistics.median(times[r])
                print(f"  divload {r:>17} {m * 1e3:8.3f} ms (min {min(times[r]) * 1e3:.3f}, "
                      f"max {max(times[r]) * 1e3:.3f}), makespan {makespan[r]:.6f}: peer / divload = {d / m:.2f}")


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
