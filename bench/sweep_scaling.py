"""Wall time of one sweep grid on 1 and on 2 (or more) local worker processes.

    python3 bench/sweep_scaling.py [--workers 1 2] [--duration 400s] [--repeat 2]

The grid is 6 queue limits x 2 recovery variants x 4 seeds = 48 points of the dumbbell-reno
scenario at 50 Mb/s with 0.05 % loss, about a second of simulation each. Each timing runs the
whole grid from scratch (no output directory, so nothing is cached), pool start-up included.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import ccsim

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "dumbbell-reno.toml"
AXES = {
    "topology.bottleneck.queue.limit": [10, 20, 50, 100, 200, 400],
    "flows[kind=tcp].tcp.recovery": ["newreno", "sack"],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--duration", default="400s")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    overrides = {
        "duration": args.duration,
        "topology.bottleneck.rate": "50Mbps",
        "topology.bottleneck.loss": {"kind": "bernoulli", "p": 0.0005},
        "trace.series": [],
    }
    print(f"{os.cpu_count()} cores; 48 points of {args.duration} simulated each")
    for rep in range(args.repeat):
        for workers in args.workers:
            t0 = time.perf_counter()
            pts = ccsim.sweep(
                SCENARIO, AXES, replications=4, overrides=overrides, workers=workers,
                table="points", progress=False,
            )  # fmt: skip
            wall = time.perf_counter() - t0
            busy = pts.wall_s.sum()
            print(
                f"run {rep + 1}: {workers} worker(s): {wall:6.1f} s wall, "
                f"{busy:6.1f} s in simulations ({busy / len(pts):.2f} s per point)"
            )


if __name__ == "__main__":
    main()
