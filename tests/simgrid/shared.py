"""The shared-link ring against SimGrid's own bandwidth sharing (issues 31 and 33).

    /usr/bin/python3 shared.py rates|reservation DIR [SimGrid --cfg options]

DIR holds what `divload simulate FILE --export DIR` wrote (platform.xml: the document's
graph as it is, its links shared by both directions or fatpipes for backbones, and the
plan's 2q routes; timeline.json: host ids by name) and plan.json (`divload plan FILE
--json`). Two runs on that platform, both under CM02 with TCP-gamma 0 and no
cross-traffic (passed by the caller), where a flow's rate is SimGrid's max-min share
(one run per process: SimGrid's engine is made once). SimGrid's transfers are whole
bytes, so times are scaled until a byte is far below the tolerance:

1. rates: every path of the plan carries one long transfer of bandwidth·T bytes (T such
   that the smallest is 10⁹ bytes), all
   starting at 0. If SimGrid's max-min rates equal the bandwidths divload reports, every
   transfer ends at T and no rate changes before then; if any differs, the first to end
   does so before T and at least one measured rate bytes/end differs. Each path's
   measured rate must equal divload's within 1e-6 relative: a max_min plan reports the
   max-min fair shares of its routes (ring.md §6.1), never the greedy's own.

2. reservation: divload's T_step (legrand2003 eq. 1, ring.md §1.2) holds every route's
   share x for the whole iteration, idle or not: member i computes, then sends H to its
   successor in H/x_S, then H to its predecessor in H/x_P. A simulator reproduces that
   when every route stays busy at its share from 0 to T_step; here each route carries
   x·(its idle time) bytes of padding before and after its one real message, so all 2q
   routes are busy throughout and (by run 1) run at their shares. Every real message must
   then end when divload predicts, within 1e-6 relative, and each member's exchange at
   compute_time + comm_time. (The unpadded iteration, where an idle route's bandwidth is
   shared out again, is `divload simulate`'s own comparison; the caller reports its
   deviation.)

Prints one line per run.
"""
import json
import sys

from simgrid import Actor, Engine, Host, Mailbox

TOLERANCE = 1e-6
# Bytes of the smallest long transfer, and seconds of the iteration as one second (with
# the timeline's bytes per value, 10⁶): a rounded byte is then below 1e-9 of a
# transfer, far under the tolerance.
BYTES = 1e9
SCALE = 1e3


def load(directory):
    with open(directory + "/timeline.json") as f:
        timeline = json.load(f)
    with open(directory + "/plan.json") as f:
        plan = json.load(f)
    host = {h["name"]: "h%d" % h["id"] for h in timeline["hosts"]}
    # The timeline's bytes per boundary value: its first send's rate over its path's share.
    rate = next(a["rate"] for actor in timeline["actors"] for a in actor["do"] if "rate" in a)
    plan["bytes_per_value"] = rate / plan["paths"][0]["bandwidth"]
    return plan, host


def sender(mailbox, sizes):
    for size in sizes:
        if size > 0:
            Mailbox.by_name(mailbox).put(size, size)


def receiver(mailbox, sizes, ends, key):
    for n, size in enumerate(sizes):
        if size > 0:
            Mailbox.by_name(mailbox).get()
        ends[(key, n)] = Engine.clock


def simulate(platform, options, flows):
    """flows: [(from host, to host, [bytes, ...])]; returns {(flow, n): end of its n-th}."""
    engine = Engine([sys.argv[0]] + options)
    engine.load_platform(platform)
    ends = {}
    for k, (src, dst, sizes) in enumerate(flows):
        Actor.create("s%d" % k, Host.by_name(src), sender, "f%d" % k, sizes)
        Actor.create("r%d" % k, Host.by_name(dst), receiver, "f%d" % k, sizes, ends, k)
    engine.run()
    return ends


def rates(platform, options, plan, host):
    paths = plan["paths"]
    value = plan["bytes_per_value"]
    long = BYTES / min(p["bandwidth"] * value for p in paths)
    flows = [(host[p["from"]], host[p["to"]], [round(p["bandwidth"] * value * long)]) for p in paths]
    ends = simulate(platform, options, flows)
    worst = 0.0
    for k, p in enumerate(paths):
        rate = flows[k][2][0] / ends[(k, 0)] / value
        err = abs(rate - p["bandwidth"]) / p["bandwidth"]
        worst = max(worst, err)
        assert err <= TOLERANCE, (
            f"{p['from']}->{p['to']} ({p['role']}, links {p['links']}): divload's max-min share "
            f"{p['bandwidth']!r}, SimGrid's {rate!r} (relative {err:.3e})")
    print(f"  max-min rates: {len(paths)} paths at once, each path's SimGrid rate equals divload's "
          f"bandwidth (worst {worst:.2e} relative)")


def reservation(platform, options, plan, host):
    # Paths come in ring order, successor then predecessor; times scaled by SCALE.
    paths, h, value = plan["paths"], plan["boundary"], plan["bytes_per_value"] * SCALE
    rows = {r["name"]: r for r in plan["plan"]}
    t_step = max(r["compute_time"] + r["comm_time"] for r in rows.values())
    flows, predicted = [], []
    for k in range(0, len(paths), 2):
        succ, pred = paths[k], paths[k + 1]
        member = rows[succ["from"]]
        start = member["compute_time"]
        for p, begin in ((succ, start), (pred, start + h / succ["bandwidth"])):
            x = p["bandwidth"]
            end = begin + h / x
            sizes = [round(x * begin * value), round(h * value), round(x * (t_step - end) * value)]
            flows.append((host[p["from"]], host[p["to"]], sizes))
            predicted.append(end)
        exchange = member["compute_time"] + member["comm_time"]
        assert abs(predicted[-1] - exchange) <= TOLERANCE * exchange, (
            f"{succ['from']}: compute_time + comm_time = {exchange!r}, its two sends end at {predicted[-1]!r}")
    ends = simulate(platform, options, flows)
    worst = 0.0
    for k, end in enumerate(predicted):
        got = ends[(k, 1)] / SCALE
        err = abs(got - end) / end
        worst = max(worst, err)
        p = paths[k]
        assert err <= TOLERANCE, (
            f"{p['from']}->{p['to']} ({p['role']}): the message ends at {got!r} simulated, "
            f"{end!r} predicted (relative {err:.3e})")
    print(f"  reserved shares: T_step {t_step:.6f} s, all {len(predicted)} messages end when predicted "
          f"(worst {worst:.2e} relative)")


def main():
    mode, directory, options = sys.argv[1], sys.argv[2], sys.argv[3:]
    plan, host = load(directory)
    assert len(plan["paths"]) >= 6, "the check needs a ring of three members or more (one route per pair)"
    assert plan["sharing"] == "max_min", "SimGrid's rates are max-min shares"
    {"rates": rates, "reservation": reservation}[mode](directory + "/platform.xml", options, plan, host)


if __name__ == "__main__":
    main()
