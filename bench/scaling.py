"""How the cost of a run grows: with packets delivered, with flow count, and with link rate.

    python bench/scaling.py [--repeat 3]

Six sweeps around scenario H's shape (DropTail, NewReno or CUBIC, access links 10x the
bottleneck, flows starting within the first second), each point run in this process with the
tracing off; the table gives wall nanoseconds per delivered data packet (median of
``--repeat``) and events per packet. Linear growth in packets means a constant ns/packet down
the first sweep; flat in flows and rate means the same down the others.

Four sweeps vary the flow count. In "flows" they share one 10 Gb/s link, so the scenario asks
for more work per delivered packet as flows multiply: with 10,000 flows sharing a
10,000-packet queue a fifth of what is sent is dropped, and small windows mean more ACKs. In
"network" they share one network of a fixed size (10 Gb/s, 40 ms and a 25,000-packet queue:
about 60 k packets in flight at every point), so that only the number of flows sharing it
changes. In "share" every flow has the same share (10 Mb/s and 25 packets of queue) at every
point, so each flow's TCP regime stays the same, and the network (its rate, its queue, the
packets in flight) grows with the flows. In "cbr" the flows are constant-rate UDP sources,
together half the link: no TCP work, and no losses.

The table also gives the hops per delivered packet (offers of a packet, data or ACK, to a link
direction: the unit of the engine's work) and the wall nanoseconds per hop, which separates
what the scenario asks from what the engine costs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scenarios import SCENARIOS, Bench, ccsim_scenario  # noqa: E402

H = SCENARIOS["H"]
RATES = [
    ("10Mbps", 10e6, 30.0),
    ("100Mbps", 100e6, 10.0),
    ("1Gbps", 1e9, 3.0),
    ("10Gbps", 10e9, 2.0),
]


def sweeps() -> list[tuple[str, str, Bench]]:
    out = []
    for d in (1.5, 3.0, 6.0):
        out.append(("packets", f"H, {d:g} s", H.scaled(d)))
    for n in (1, 10, 100, 1000, 10_000):
        b = Bench(f"f{n}", n, "cubic", "10Gbps", 10e9, 1e-3, 18e-3, 10_000, 2.0)
        out.append(("flows", f"{n:,} CUBIC, 10 Gb/s, 40 ms, 2 s", b))
    # The same flow counts in one network of a fixed size, its queue deep enough that the
    # packets in flight stay near 60 k (the bandwidth-delay product, 33 k, and most of the
    # queue) from one flow to 1,000.
    for n in (1, 10, 100, 1000, 10_000):
        b = Bench(f"n{n}", n, "cubic", "10Gbps", 10e9, 1e-3, 18e-3, 25_000, 3.0)
        out.append(("network", f"{n:,} CUBIC, 10 Gb/s, 40 ms, 25,000-packet queue, 3 s", b))
    # The same flow counts, each flow with the same share (10 Mb/s and 25 packets of queue,
    # as in b): the bottleneck grows with the flows, so that every point asks the same of
    # each flow (the same windows and losses) and only the number of flows changes. At least
    # 3 s simulated, and about 1.5 million packets delivered.
    for n in (1, 10, 100, 1000, 10_000):
        bps = n * 10e6
        dur = max(3.0, round(1.5e6 / (bps / 12_000)))
        rate = f"{n * 10}Mbps"
        b = Bench(f"s{n}", n, "cubic", rate, bps, 1e-3, 18e-3, 25 * n, dur)
        out.append(("share", f"{n:,} CUBIC, {n * 10:,} Mb/s, 40 ms, {dur:g} s", b))
    # The same flow counts as constant-rate UDP sources, together half of the 10 Gb/s link:
    # the engine's cost without TCP's (one event per packet, its sending).
    for n in (1, 10, 100, 1000, 10_000):
        b = Bench(f"u{n}", n, "cubic", "10Gbps", 10e9, 1e-3, 18e-3, 10_000, 2.0, traffic="cbr")
        out.append(("cbr", f"{n:,} CBR, 5 Gb/s in all over 10 Gb/s, 2 s", b))
    for rate, bps, dur in RATES:
        b = Bench(f"r{rate}", 10, "newreno", rate, bps, 1e-3, 18e-3, 250, dur)
        out.append(("rate", f"10 NewReno, {rate}, 40 ms, {dur:g} s", b))
    return out


def measure(b: Bench, repeat: int) -> tuple[int, float, float, int]:
    from ccsim import _native
    from ccsim.result import Result

    scenario = ccsim_scenario(b)
    walls = []
    for _ in range(repeat):
        sim = _native.simulation(json.dumps(scenario))
        t0 = time.perf_counter()
        sim.run_until(b.duration_s)
        walls.append(time.perf_counter() - t0)
        res = Result.from_core(sim.finish(), scenario)
    delivered = int(res.flows["packets_delivered"].sum())
    events = int(res.meta["events"])
    hops = int(res.queues["arrivals"].sum())
    return delivered, statistics.median(walls), events / max(delivered, 1), hops


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(
        "| sweep | scenario | delivered | wall s | ns/packet | hops/packet | ns/hop "
        "| events/packet |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for sweep, label, b in sweeps():
        delivered, wall, ev, hops = measure(b, args.repeat)
        ns = wall / max(delivered, 1) * 1e9
        per_hop = wall / max(hops, 1) * 1e9
        print(
            f"| {sweep} | {label} | {delivered:,} | {wall:.3f} | {ns:,.0f} "
            f"| {hops / max(delivered, 1):.2f} | {per_hop:.1f} | {ev:.2f} |"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
