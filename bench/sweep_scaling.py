"""How well a sweep uses a machine's cores: wall time and efficiency per worker count.

    python3 bench/sweep_scaling.py [--workers 1 2 4 8 16] [--duration 400s] [--repeat 2]
    python3 bench/sweep_scaling.py --grid uniform                    # points of equal length
    python3 bench/sweep_scaling.py --sweep scenarios/ndca-sweep.toml --duration 60s
    python3 bench/sweep_scaling.py --order longest-first points     # both dispatch orders
    python3 bench/sweep_scaling.py --dask                            # a Dask LocalCluster

The grids are 48 points of the dumbbell-reno scenario with 0.05 % loss, 400 s each by
default: ``mixed`` (the default), 3 bottleneck rates (10, 50, 100 Mb/s) x 2 queue limits x 2
recovery variants x 4 seeds, points whose length differs tenfold; ``uniform``, 0.6.x's grid
at 50 Mb/s, 6 queue limits x 2 recovery variants x 4 seeds, points of about a second each.
``--sweep`` runs a sweep file's points instead (``--duration`` then shortens them, if given).
Each timing runs the whole sweep from scratch (no output directory, so nothing is cached),
pool start-up included. ``--workers`` defaults to 1, 2, 4, ... and the number of cores.

Per worker count and order, the table gives:

- ``wall``: the sweep's wall time; ``speed-up``: the 1-worker wall (best of the repeats; one
  worker runs every point in turn, so it runs with the first order only) over it;
  ``efficiency``: speed-up / workers (100 %: every core fully used);
- ``occupancy``: the points' own time (their simulation's wall time, each point's ``wall_s``)
  over workers x wall: the share of the pool's time spent simulating; the rest is the pool's
  start-up, each point's preparation and transfer, and the idle tail;
- ``per point``: the points' mean own time against the 1-worker run's (what the cores slow
  each other down by: shared caches, memory bandwidth, clock speed under load);
- ``start``: the workers' mean wait before their first point (the pool's start-up: each
  spawned worker imports ccsim, pandas and pyarrow, about a second);
- ``tail``: the workers' mean idle time at the end, waiting for the last points.

Efficiency is about occupancy / per-point slow-down: a low occupancy calls for a better order
or more points per worker; a high per-point slow-down is the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import ccsim
from ccsim.sweep_run import PointDone, execute

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "dumbbell-reno.toml"
GRIDS = {
    # Points of unequal length (the work grows with the rate), as most real sweeps have: the
    # order in which they are handed out decides how long the last workers run alone.
    "mixed": {
        "topology.bottleneck.rate": ["10Mbps", "50Mbps", "100Mbps"],
        "topology.bottleneck.queue.limit": [20, 100],
        "flows[kind=tcp].tcp.recovery": ["newreno", "sack"],
    },
    # Points of about equal length: 0.6.x's grid (docs/performance-history.md).
    "uniform": {
        "topology.bottleneck.queue.limit": [10, 20, 50, 100, 200, 400],
        "flows[kind=tcp].tcp.recovery": ["newreno", "sack"],
    },
}
ORDERS = ("longest-first", "points")


@dataclass
class Timing:
    """One run of the sweep: ``points`` are (arrival time after the start, own time, worker)."""

    workers: int
    order: str
    wall: float
    points: list[tuple[float, float, str]]

    @property
    def busy(self) -> float:
        return sum(own for _, own, _ in self.points)

    @property
    def mean_point(self) -> float:
        return self.busy / len(self.points)

    def occupancy(self) -> float:
        return self.busy / (self.workers * self.wall)

    def start(self) -> float:
        """The workers' mean wait before their first point began: the pool's start-up (a
        spawned worker imports ccsim, pandas and pyarrow) and the points' preparation."""
        first: dict[str, float] = {}
        for done, own, worker in self.points:
            first[worker] = min(first.get(worker, self.wall), done - own)
        waits = [*first.values()] + [self.wall] * (self.workers - len(first))
        return sum(waits) / self.workers

    def tail(self) -> float:
        """The workers' mean idle time after their last point (a worker that ran none idled
        the whole run)."""
        last: dict[str, float] = {}
        for done, _, worker in self.points:
            last[worker] = max(last.get(worker, 0.0), done)
        idle = [self.wall - t for t in last.values()] + [self.wall] * (self.workers - len(last))
        return sum(idle) / self.workers


def default_workers() -> list[int]:
    cores = os.cpu_count() or 1
    counts = [1 << k for k in range(cores.bit_length()) if 1 << k < cores]
    return [*counts, cores]


def run_once(sweep: ccsim.Sweep, overrides: dict, workers: int, order: str, client) -> Timing:
    points: list[tuple[float, float, str]] = []
    t0 = time.perf_counter()

    def arrived(info: PointDone) -> None:
        where = f"{info.worker.get('host', '')}:{info.worker.get('pid', '')}"
        points.append((time.perf_counter() - t0, info.wall_s, where))

    out = execute(
        sweep, overrides=overrides, workers=None if client else workers, client=client,
        progress=False, on_point=arrived, order=order, keep_packets=False,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    if out.failed or out.missing:
        raise SystemExit(out.report())
    return Timing(workers, order, wall, points)


def table(timings: list[Timing]) -> list[str]:
    """One line per worker count and order, against the best 1-worker run."""
    lines = [
        f"{'workers':>7}  {'order':<13}  {'wall s':>7}  {'speed-up':>8}  {'efficiency':>10}  "
        f"{'occupancy':>9}  {'per point':>9}  {'start s':>7}  {'tail s':>6}"
    ]
    ones = [t for t in timings if t.workers == 1]
    base = min(ones, key=lambda t: t.wall) if ones else None
    for order in dict.fromkeys(t.order for t in timings):
        runs = [t for t in timings if t.order == order]
        for workers in sorted({t.workers for t in runs}):
            best = min((t for t in runs if t.workers == workers), key=lambda t: t.wall)
            if base is not None:
                speed = base.wall / best.wall
                rel = best.mean_point / base.mean_point
                eff, occ = speed / workers, best.occupancy()
                cols = f"{speed:7.2f}x  {eff:10.0%}  {occ:9.0%}  {rel:8.2f}x"
            else:
                cols = f"{'':>8}  {'':>10}  {best.occupancy():9.0%}  {'':>9}"
            lines.append(
                f"{workers:7d}  {order:<13}  {best.wall:7.1f}  {cols}  {best.start():7.1f}  "
                f"{best.tail():6.1f}"
            )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, nargs="+", default=None)
    ap.add_argument("--grid", choices=sorted(GRIDS), default="mixed")
    ap.add_argument("--sweep", metavar="FILE.toml", help="a sweep file instead of a grid")
    ap.add_argument(
        "--duration", default=None, help="simulated time per point (grids: 400s, at least 50s)"
    )
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--order", nargs="+", choices=ORDERS, default=["longest-first"])
    ap.add_argument("--dask", action="store_true", help="a Dask LocalCluster per worker count")
    args = ap.parse_args()
    workers = args.workers or default_workers()
    if min(workers) < 1 or args.repeat < 1:
        ap.error("--workers and --repeat must be at least 1")
    if args.sweep:
        sweep = ccsim.load_sweep(args.sweep)
        overrides = {"duration": args.duration} if args.duration else {}
    else:
        sweep = ccsim.Sweep(SCENARIO, GRIDS[args.grid], replications=4)
        overrides = {
            "duration": args.duration or "400s",
            "topology.bottleneck.rate": "50Mbps",
            "topology.bottleneck.loss": {"kind": "bernoulli", "p": 0.0005},
            "trace.series": [],
        }
    n = len(sweep.points(sweep.base_scenario(overrides)))
    what = args.sweep or f"the {args.grid} dumbbell grid"
    print(f"{os.cpu_count()} cores; {n} points of {what}, {overrides.get('duration', 'as given')}")
    timings = []
    for rep in range(args.repeat):
        for count in workers:
            for order in args.order:
                if count == 1 and order != args.order[0]:
                    continue  # one worker runs every point in turn, whatever the order
                if args.dask:
                    import distributed

                    with distributed.LocalCluster(
                        n_workers=count, threads_per_worker=1, dashboard_address=None
                    ) as cluster, distributed.Client(cluster) as client:  # fmt: skip
                        t = run_once(sweep, overrides, count, order, client)
                else:
                    t = run_once(sweep, overrides, count, order, None)
                timings.append(t)
                print(
                    f"run {rep + 1}: {count} worker(s), {order}: {t.wall:6.1f} s wall, "
                    f"{t.busy:6.1f} s in points ({t.mean_point:.2f} s each), "
                    f"occupancy {t.occupancy():.0%}",
                    flush=True,
                )
    print()
    print("\n".join(table(timings)))
    if args.repeat > 1:
        spread = [
            statistics.pstdev([t.wall for t in timings if (t.workers, t.order) == key])
            for key in {(t.workers, t.order) for t in timings}
        ]
        print(f"(best of {args.repeat}; largest spread between repeats {max(spread):.1f} s)")


if __name__ == "__main__":
    main()
