"""How the cost of a run grows: with packets delivered, with flow count, and with link rate.

    python bench/scaling.py [SWEEP ...] [--repeat 3]
    python bench/scaling.py --vs-ns3 [SWEEP ...]   # ns-3 too, on shortened points (share)

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

With ``--vs-ns3`` (the ``ns3`` package, `pip install ns3`) each point of the sweeps named (the
share sweep if none is) is also built in ns-3 (`ns3_peer.py`), and both simulators run it
shortened to what ns-3 can run in minutes: one second for the flows to start and then about
``NS3_PACKETS`` packets' worth of the bottleneck's time (at least a second more). Each ns-3
run is a fresh process. Points of more than ``--ns3-max-flows`` flows (default 100) are run by
ccsim alone: ns-3 took 3 minutes for the share sweep's 100-flow point (200 k packets) and did
not finish its 1,000-flow point (1.2 M packets) in 15.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report import child_json  # noqa: E402

from scenarios import SCENARIOS, Bench, ccsim_scenario  # noqa: E402

H = SCENARIOS["H"]
# Delivered packets' worth of bottleneck time per point that --vs-ns3 runs (ns-3 runs about
# 15,000 packets per wall second here, and slower with more flows).
NS3_PACKETS = 150_000
# TCP sweeps only: ns-3 has no peer for the constant-rate sources here.
NS3_SWEEPS = ("packets", "flows", "network", "share", "rate")
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


def shortened(b: Bench) -> Bench:
    """``b`` over what --vs-ns3 runs: a second for the flows to start (flow i of n starts at
    i/n s), then ``NS3_PACKETS`` packets' worth of the bottleneck (at least one second), and
    never longer than the sweep's own point."""
    span = max(1.0, NS3_PACKETS * 12_000 / b.rate_bps)
    return b.scaled(min(b.duration_s, round(1.0 + span, 3)))


def ns3_point(b: Bench) -> dict:
    """One ns-3 run of ``b`` in a fresh process (ns-3's simulator is one per process)."""
    return child_json(Path(__file__), [b.id, str(b.duration_s)], f"ns-3 run of {b.id}")


def vs_ns3(points: list[tuple[str, str, Bench]], repeat: int, max_flows: int) -> None:
    """ccsim and ns-3 on the same shortened points: ns per delivered packet, each one's growth
    from the sweep's first point, and the speed ratio."""
    print(
        "| sweep | flows | simulated s | ccsim delivered | ccsim ns/packet | growth "
        "| ns-3 delivered | ns-3 ns/packet | growth | ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    # Each sweep's first point: ccsim's and ns-3's ns per packet (None: ns-3 did not run it).
    first: dict[str, tuple[float, float | None]] = {}
    for sweep, _, full in points:
        b = shortened(full)
        delivered, wall, _, _ = measure(b, repeat)
        ns = wall / max(delivered, 1) * 1e9
        ns3 = None
        if b.flows <= max_flows:
            runs = [ns3_point(b) for _ in range(repeat)]
            n_deliv = runs[0]["delivered"]
            ns3 = statistics.median(r["wall_s"] for r in runs) / max(n_deliv, 1) * 1e9
        base, base3 = first.setdefault(sweep, (ns, ns3))
        if ns3 is None:
            row_ns3 = "— | — | —"
        else:
            grow3 = f"{ns3 / base3:.2f}×" if base3 else "—"
            row_ns3 = f"{n_deliv:,} | {ns3:,.0f} | {grow3}"
        ratio = f"**{ns3 / ns:,.0f}×**" if ns3 else "—"
        print(
            f"| {sweep} | {b.flows:,} | {b.duration_s:g} | {delivered:,} | {ns:,.0f} "
            f"| {ns / base:.2f}× | {row_ns3} | {ratio} |"
        )
        sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    names = list(dict.fromkeys(s for s, _, _ in sweeps()))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweeps", nargs="*", help=f"sweeps to run (default: all of {', '.join(names)})")
    ap.add_argument("--repeat", type=int, default=3, help="runs per point (median)")
    ap.add_argument("--vs-ns3", action="store_true", help="ns-3 too, on shortened points")
    ap.add_argument(
        "--ns3-max-flows",
        type=int,
        default=100,
        help="with --vs-ns3, points of more flows run in ccsim alone (default 100)",
    )
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        from ns3_peer import child_ns3

        bench_id, duration = args.child
        b = next(b for _, _, b in sweeps() if b.id == bench_id)
        print(json.dumps(child_ns3(b.scaled(float(duration)))))
        return
    unknown = [s for s in args.sweeps if s not in names]
    if unknown:
        ap.error(f"unknown sweep {unknown}; the sweeps are {', '.join(names)}")
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.ns3_max_flows < 1:
        ap.error("--ns3-max-flows must be at least 1 (ns-3 runs points of up to that many flows)")
    chosen = args.sweeps or (["share"] if args.vs_ns3 else names)
    if args.vs_ns3:
        no_peer = [s for s in chosen if s not in NS3_SWEEPS]
        if no_peer:
            peers = ", ".join(NS3_SWEEPS)
            ap.error(f"--vs-ns3 has no ns-3 peer for {', '.join(no_peer)}; it runs {peers}")
        try:
            import ns3_peer

            ns3_peer.import_ns()
        except ImportError as e:
            raise SystemExit(f"--vs-ns3 needs the ns3 package (pip install ns3): {e}") from e
    points = [p for p in sweeps() if p[0] in chosen]
    if args.vs_ns3:
        vs_ns3(points, args.repeat, args.ns3_max_flows)
        return
    print(
        "| sweep | scenario | delivered | wall s | ns/packet | hops/packet | ns/hop "
        "| events/packet |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for sweep, label, b in points:
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
