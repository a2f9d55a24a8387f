#!/usr/bin/env python3
"""A bound on the stack a no_std binary needs from its entry point, from its Thumb
disassembly (llvm-objdump -d on stdin): each function's frame (registers pushed, `sub sp`)
plus the deepest frame it calls. Self-recursive functions count RECURSION frames: the only
one in divload is the bucket sort's `Columns::split`, whose depth is bounded by its
MAX_DEPTH (10) plus the first call. Prints the bound in bytes below the entry point, then
the entry point's own frame (the caller's buffers), then (on stderr) the deepest chain."""
import re
import sys

RECURSION = 11
ENTRY = "_start"

funcs, order, cur = {}, [], None
for line in sys.stdin:
    m = re.match(r"^[0-9a-f]+ <(.+)>:$", line.strip())
    if m and m.group(1).startswith("$"):
        continue  # a mapping symbol ($t: Thumb code, $d: data) inside the current function
    if m:
        cur = m.group(1)
        funcs[cur] = {"frame": 0, "calls": set()}
        order.append(cur)
        continue
    if cur is None:
        continue
    ins = line.split("\t")
    if len(ins) < 3:
        continue
    op, args = ins[-2].strip(), ins[-1].strip()
    if op in ("push", "push.w", "stmdb") or (op.startswith("vpush")):
        regs = re.search(r"\{(.*)\}", args)
        if regs:
            n = 0
            for r in regs.group(1).split(","):
                r = r.strip()
                if "-" in r:
                    a, b = r.split("-")
                    n += int(b[1:]) - int(a[1:]) + 1
                else:
                    n += 1
            funcs[cur]["frame"] += n * (8 if r.startswith("d") else 4)
    elif op in ("sub", "sub.w", "subw") and args.startswith("sp"):
        imm = re.search(r"#(0x[0-9a-f]+|\d+)", args)
        if imm:
            funcs[cur]["frame"] += int(imm.group(1), 0)
    elif op in ("bl", "blx", "b", "b.w"):
        # A branch to another function's start is a call (or a tail call).
        t = re.search(r"<([^>+]+)>", args)
        if t and not t.group(1).startswith("$") and (op.startswith("bl") or t.group(1) != cur):
            funcs[cur]["calls"].add(t.group(1))

memo = {}


def depth(f, path):
    if f in memo:
        return memo[f]
    if f not in funcs or f in path:
        return (0, [])
    info = funcs[f]
    frame = info["frame"] * (RECURSION if f in info["calls"] else 1)
    best = (0, [])
    for c in info["calls"]:
        if c != f:
            d = depth(c, path | {f})
            if d[0] > best[0]:
                best = d
    memo[f] = (frame + best[0], [f] + best[1])
    return memo[f]


if ENTRY not in funcs:
    sys.exit("no _start in the disassembly")
total, chain = depth(ENTRY, frozenset())
# The entry's own frame holds the caller's buffers (workers, plans, scratch: the harness's
# arrays, inlined); what the library itself needs is the rest of the chain.
print(total - funcs[ENTRY]["frame"], funcs[ENTRY]["frame"])
print(" > ".join(re.sub(r"17h[0-9a-f]{16}E$", "", c)[-60:] for c in chain), file=sys.stderr)
