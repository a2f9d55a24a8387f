"""Plays a divload timeline in SimGrid (S4U, Python): one actor per timeline actor, each
doing its sends, receives, computations and fixed delays in order (and declaring itself
the permanent receiver of a mailbox, where messages then arrive before it asks). Written by
`divload simulate`; run as

    /usr/bin/python3 play.py platform.xml timeline.json [--unreserved] [SimGrid --cfg options]

and prints {"clock": t, "actors": [{"id": i, "end": t}]}: when each actor's last action
ended in the simulation. Hosts compute one unit per second, so a computation lasts what
divload predicted for it; transfers take what the network model makes of their bytes.
Nothing here knows a model: the timeline says who does what.
"""
import json
import sys

from simgrid import Actor, Comm, Engine, Host, Mailbox, this_actor

# Whether a send's "rate" (the bandwidth its model reserves) caps it; `--unreserved`
# lets the network model share the links among the transfers in flight instead.
RESERVED = True


def play(actions, ends, ident):
    for action in actions:
        if "send" in action and "rate" in action and RESERVED:
            # The bandwidth the model reserves for this transfer: never more.
            comm = Mailbox.by_name("m%d" % action["send"]).put_init(ident, round(action["bytes"]))
            comm.set_rate(action["rate"])
            comm.start()
            comm.wait()
        elif "send" in action:
            # SimGrid moves whole bytes, whether written as 12, 1.2e1 or 12.3.
            Mailbox.by_name("m%d" % action["send"]).put(ident, round(action["bytes"]))
        elif "recv" in action:
            box = Mailbox.by_name("m%d" % action["recv"])
            # Every receive is posted before any is waited for, so that senders to this
            # mailbox start as soon as they send, none waiting for another's message.
            pending = [box.get_async() for _ in range(action.get("count", 1))]
            Comm.wait_all([comm for comm, _ in pending])
        elif "receiver" in action:
            # Messages to this mailbox flow to this actor's host as soon as they are sent
            # (a receive posted in advance), not when it asks for them.
            Mailbox.by_name("m%d" % action["receiver"]).set_receiver(Actor.self())
        elif "sleep" in action:
            this_actor.sleep_for(action["sleep"])
        else:
            this_actor.execute(action["compute"])
    ends[ident] = Engine.clock


def main():
    global RESERVED
    platform, timeline = sys.argv[1], sys.argv[2]
    RESERVED = "--unreserved" not in sys.argv[3:]
    engine = Engine([sys.argv[0]] + [a for a in sys.argv[3:] if a != "--unreserved"])
    engine.load_platform(platform)
    with open(timeline) as f:
        plan = json.load(f)
    ends = {}
    for actor in plan["actors"]:
        Actor.create("a%d" % actor["id"], Host.by_name("h%d" % actor["host"]), play,
                     actor["do"], ends, actor["id"])
    engine.run()
    print(json.dumps({"clock": Engine.clock,
                      "actors": [{"id": i, "end": t} for i, t in sorted(ends.items())]}))


if __name__ == "__main__":
    main()
