"""Drives one firmware image in QEMU and checks its answers against the command line.

Usage: check.py MACHINE ELF DIVLOAD   (called by tests/firmware/run)

Sends, in one session on the emulated UART: seeded random platforms of 4, 8 and 16 nodes
(with and without startup costs), genaud2003's Table 1 (16 nodes), and malformed lines.
Every share must equal the command line's count for the same platform, the makespan must
agree within the number type's budget, and each malformed line must get its exact error
line, after which the session still plans correctly. Prints the instructions per plan
(QEMU -icount shift=0 makes one virtual nanosecond one instruction) and the stack peak.
"""

import json
import random
import subprocess
import sys
import tempfile

MACHINE, ELF, DIVLOAD = sys.argv[1:4]
NODES = 16
# Relative makespan budgets from tests/tests/numeric.rs (f32: 1e-4, Q32: 2e-5).
BUDGET = {"Q32": 2e-5, "f32": 1e-4, "f64": 1e-12}
MAX_ITEMS = {"Q32": 2**31 - 1, "f32": 2**24, "f64": 2**53}
TIMEOUT_S = 120

failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL {MACHINE}: {message}", file=sys.stderr)


def platform(rng, nodes, latencies):
    """Node 0 holds the data; the others' links and speeds span a decade each."""
    workers = []
    for i in range(nodes):
        w = {
            "name": f"n{i}",
            "comm_per_item": 0.0 if i == 0 else 10 ** rng.uniform(-5, -4),
            "comp_per_item": 10 ** rng.uniform(-3, -2),
        }
        if latencies:
            w["comm_latency"] = 0.0 if i == 0 else rng.uniform(0, 0.01)
            w["comp_latency"] = rng.uniform(0, 0.05)
        workers.append(w)
    return {"items": 100_000, "workers": workers}


def table1():
    with open("examples/table1.json") as f:
        doc = json.load(f)
    workers = []
    for w in doc["workers"]:
        for _ in range(w.get("count", 1)):
            workers.append({"name": f"n{len(workers)}", "comm_per_item": w["comm_per_item"],
                            "comp_per_item": w["comp_per_item"]})
    # The root first, as the firmware's protocol wants it.
    root = next(i for i, w in enumerate(doc["workers"]) if w["name"] == doc["root"])
    assert root == 0
    return {"items": doc["items"], "workers": workers}


def lines_for(p):
    out = ["clear", f"items {p['items']}"]
    for w in p["workers"]:
        nums = [w["comm_per_item"], w["comp_per_item"]]
        if "comm_latency" in w:
            nums += [w["comm_latency"], w["comp_latency"]]
        out.append("node " + " ".join(repr(float(x)) for x in nums))
    return out


def cli_plan(p):
    doc = {"version": 1, "items": p["items"], "root": "n0", "workers": p["workers"]}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(doc, f)
        f.flush()
        res = json.loads(subprocess.run([DIVLOAD, "plan", "--json", f.name], check=True,
                                        capture_output=True, text=True).stdout)
    counts = [0] * len(p["workers"])
    for a in res["plan"]:
        counts[a["rank"]] = a["count"]
    return counts, res["makespan"], res["lower_bound"]


rng = random.Random(44)
cases = []  # (label, platform, expect an answer)
for nodes in (4, 8, 16):
    for lat in (False, True):
        cases.append((f"{nodes} nodes" + (", startup costs" if lat else ""), platform(rng, nodes, lat)))
cases.append(("Table 1, 16 nodes", table1()))

# Malformed input, each with the exact reply. The number type's limits come from the
# banner, so the expected lines are filled in once it is known.
def bad_input(numeric):
    m = MAX_ITEMS[numeric]
    rng_err = f"error items: must be an integer from 1 to {m}, got"
    return [
        (b"clear", "ok clear"),
        (b"plan", f'error plan: no items yet (send "items N", N from 1 to {m})'),
        (b"items abc", f'{rng_err} "abc"'),
        (b"items 0", f'{rng_err} "0"'),
        (f"items {m + 1}".encode(), f'{rng_err} "{m + 1}"'),
        (b"items 1e3", f'{rng_err} "1e3"'),
        (b"items 100", "ok items 100"),
        (b"plan", f'error plan: no nodes yet (send "node COMM COMP", 1 to {NODES} nodes)'),
        (b"node 0 NaN", "error worker 0: comp_per_item must be finite and > 0, got NaN"),
        (b"node 0 inf", "error worker 0: comp_per_item must be finite and > 0, got inf"),
        (b"node 1e 0.1", 'error worker 0: comm_per_item must be a number, got "1e"'),
        (b"node -1 0.1", "error worker 0: comm_per_item must be finite and >= 0, got -1"),
        (b"node 0 0.1 0", "error worker 0: expected 2 or 4 numbers (comm_per_item comp_per_item "
                          "[comm_latency comp_latency]), got 3"),
        (b"node " + b"1" * 10_000, "error line: at most 128 bytes, got more (dropped)"),
        (b"node \xff\xfe 1", "error line: must be printable ASCII text (dropped)"),
        (b"\x00\x01\x02", "error line: must be printable ASCII text (dropped)"),
        (b"scatter 10", 'error line: unknown command "scatter" (expected items, node, plan, clear or quit)'),
        (b"plan now", "error plan: takes no arguments"),
    ] + ([] if numeric == "f64" else [
        # Finite in f64, beyond Q32 (about 2.1e9) and f32 (about 3.4e38).
        (b"node 0 1e300", f"error worker 0: comp_per_item = 1e300 does not fit the {numeric} number type"),
    ])


def run(numeric):
    """One QEMU run; returns the output lines after the banner."""
    script = []  # (bytes sent, what to check): ("case", i) | ("bad", reply) | ("overflow",)
    for i, (_, p) in enumerate(cases):
        for line in lines_for(p):
            script.append((line.encode(), None))
        script.append((b"plan", ("case", i)))
    for line, want in bad_input(numeric):
        script.append((line, ("bad", want)))
    # Table 1's 16 nodes and a 17th: refused, and the 16 still plan as the CLI does.
    t1 = len(cases) - 1
    for line in lines_for(cases[t1][1]):
        script.append((line.encode(), None))
    script.append((b"node 1e-5 0.01", ("bad", f"error nodes: at most {NODES}, got {NODES + 1}")))
    script.append((b"plan", ("case", t1)))
    script.append((b"quit", ("quit",)))
    data = b"".join(line + b"\n" for line, _ in script)
    proc = subprocess.run(
        ["qemu-system-arm", "-M", MACHINE, "-nographic", "-monitor", "none", "-serial", "stdio",
         "-semihosting-config", "enable=on,target=native", "-icount", "shift=0", "-kernel", ELF],
        input=data, capture_output=True, timeout=TIMEOUT_S)
    if proc.returncode != 0:
        fail(f"QEMU exited with {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}")
    return script, proc.stdout.decode("ascii", errors="replace").splitlines()


def main():
    # The banner names the number type: a first run learns it, so the expected error lines
    # can be exact (e.g. the item limit, 2^31 - 1 in Q32, 2^24 in f32).
    banner = subprocess.run(
        ["qemu-system-arm", "-M", MACHINE, "-nographic", "-monitor", "none", "-serial", "stdio",
         "-semihosting-config", "enable=on,target=native", "-kernel", ELF],
        input=b"quit\n", capture_output=True, timeout=TIMEOUT_S).stdout.decode().splitlines()
    if not banner or not banner[0].startswith("ok divload-controller "):
        fail(f"no banner: {banner!r}")
        return
    numeric = banner[0].split()[3]
    script, out = run(numeric)
    out = out[1:]  # the banner
    expected = {i: cli_plan(p) for i, (_, p) in enumerate(cases)}
    timings = []
    stack = None
    pos = 0
    for line, check in script:
        # Collect this command's reply: every line up to the one starting "ok" or "error".
        reply = []
        while pos < len(out):
            reply.append(out[pos])
            pos += 1
            if reply[-1].startswith(("ok", "error")):
                break
        shown = line[:40]
        if not reply or not reply[-1].startswith(("ok", "error")):
            fail(f"no reply to {shown!r} (output ended)")
            return
        final = reply[-1]
        if check is None:
            if not final.startswith("ok"):
                fail(f"{shown!r}: {final}")
        elif check[0] == "bad":
            if final != check[1] or len(reply) != 1:
                fail(f"{shown!r}: got {reply!r}, want {check[1]!r}")
        elif check[0] == "quit":
            if not final.startswith("ok quit stack_peak_bytes "):
                fail(f"quit: {final}")
            else:
                stack = int(final.split()[-1])
        else:
            label, p = cases[check[1]]
            counts, makespan, lower = expected[check[1]]
            words = final.split()
            if words[:3] != ["ok", "plan", "makespan"]:
                fail(f"{label}: {final}")
                continue
            got = dict(zip(words[2::2], words[3::2]))
            shares = [int(r.split()[2]) for r in reply[:-1] if r.startswith("share ")]
            fw_makespan, fw_lower = float(got["makespan"]), float(got["lower_bound"])
            if shares != counts:
                diff = [(i, s, c) for i, (s, c) in enumerate(zip(shares, counts)) if s != c]
                fail(f"{label}: shares differ from the command line's (node, firmware, cli): {diff}")
            if sum(shares) != p["items"]:
                fail(f"{label}: shares add up to {sum(shares)}, not {p['items']}")
            if abs(fw_makespan - makespan) > BUDGET[numeric] * makespan:
                fail(f"{label}: makespan {fw_makespan}, command line {makespan}")
            if not fw_lower <= fw_makespan or abs(float(got["gap"]) - (fw_makespan - fw_lower)) > 1e-9 * makespan:
                fail(f"{label}: lower_bound {fw_lower}, gap {got['gap']} for makespan {fw_makespan}")
            timings.append((label, int(got["solve_ns"]), float(got["gap"]) / fw_makespan))
    if failures:
        return
    print(f"{MACHINE} ({numeric}): {len(cases) + 1} plans equal to the command line's, "
          f"{sum(1 for _, c in script if c and c[0] == 'bad')} malformed lines answered")
    for label, ns, rel in timings[:len(cases)]:
        print(f"  {label:<26} {ns:>9} instructions per plan, gap {rel:.1e} of the makespan")
    print(f"  stack peak {stack} bytes")


try:
    main()
except subprocess.TimeoutExpired:
    fail(f"QEMU did not finish within {TIMEOUT_S} s")
sys.exit(1 if failures else 0)
