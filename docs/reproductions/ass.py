"""Reproduction of seed paper 001: Petrov & Janevski, "Novel Slow Start Algorithm" (2013):
Advanced Slow Start (ASS) algorithms 2-4 against classic slow start with Limited Slow-Start on
a 4-node chain.

    python docs/reproductions/ass.py               # everything: sweeps, figures, report
    python docs/reproductions/ass.py --workers 2   # more local worker processes
    python docs/reproductions/ass.py --no-figures  # keep the figures already drawn

Runs, with ccsim's sweep facility (one file per finished point under ``results/``, so a rerun
or an interrupted run computes only what is missing):

- ``results/ass-sweep``: the grid ``scenarios/ass-sweep.toml``, 192 configurations x 10 seeds
  of 250 s, for the mean throughput of each configuration;
- ``results/ass-startup``: the same grid cut at 5 s, for the start-up phase;
- ``results/ass-sweep-timestamps``: the grid with TCP timestamps on (the grid runs without
  them, as ns-2 did), to show what RTT sampling changes;
- ``results/ass-iw1``: the lossless grid with an initial window of 1 instead of 2.

Then a few short runs with the RTO traced (20 % loss, with and without timestamps), one 250 s
run per configuration (seed 1) with cwnd and goodput traces, drawn with ccsim's own
``ccsim.plot.plot_series`` into ``docs/reproductions/figures/ass-*.png``, and rewrites
``docs/reproductions/ass.md``. Every number in the report comes from these runs. The script is
split by concept: ``ass_setup`` (paths, axes, the paper's rankings), ``ass_rank`` (ranking
rules), ``ass_figures``, ``ass_report`` (tables and numbers), ``ass_verdicts`` (sentences
chosen by the numbers) and ``ass_text`` (the prose with placeholders).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from pathlib import Path

import ccsim
import numpy as np

# The setup and the report live next to this script (run as a script, or loaded by the tests).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from ass_figures import make_figures  # noqa: E402
from ass_rank import pairs, parse_rank, rank, show_rank  # noqa: E402, F401  (the tests use them)
from ass_report import write_report  # noqa: E402
from ass_setup import (  # noqa: E402, F401  (the tests use CLAIMS and the axis values)
    ALG,
    ALGS,
    BASE,
    CLAIMS,
    IFQS,
    IW,
    IWS,
    LIMIT,
    LOSSES,
    RATE,
    RATES,
    REPORT,
    RESULTS,
    ROOT,
    STARTUP,
    SWEEP,
)
from repro_grid import parser, run_grid  # noqa: E402


def variant(overrides: dict, name: str) -> ccsim.Sweep:
    """The grid of scenarios/ass-sweep.toml with more fixed overrides."""
    sw = ccsim.load_sweep(SWEEP)
    sw.overrides = {**sw.overrides, **overrides}
    sw.name = name
    return sw


def run_all(workers: int, force: bool) -> dict[str, dict]:
    iw1 = ccsim.Sweep(
        BASE,
        {"duration": [STARTUP, "250s"], RATE: RATES, LIMIT: [q - 1 for q in IFQS], ALG: ALGS},
        overrides={"trace.series": [], IW: 1},
        name="ass-iw1",
    )
    return {
        "main": run_grid(SWEEP, RESULTS / "ass-sweep", workers, force),
        "startup": run_grid(
            variant({"duration": STARTUP}, "ass-startup"), RESULTS / "ass-startup", workers, force
        ),
        "ts": run_grid(
            variant({"flows.*.tcp.timestamps": True}, "ass-sweep-timestamps"),
            RESULTS / "ass-sweep-timestamps",
            workers,
            force,
        ),  # fmt: skip
        "iw1": run_grid(iw1, RESULTS / "ass-iw1", workers, force),
    }


def rto_check(seeds: int) -> dict[str, float]:
    """The RTO in force (back-off included) with 20 % loss, with and without timestamps: each
    algorithm, IW off, IFQ 50, every seed of the grid. Its time-weighted mean over a run (the
    mean over the runs) and the largest it reaches."""
    out = {}
    for rate in RATES:
        for ts in (False, True):
            means, top = [], 0.0
            for seed, alg in itertools.product(range(1, seeds + 1), ALGS):
                r = ccsim.run(
                    BASE,
                    seed=seed,
                    overrides={
                        RATE: rate,
                        "topology.links[1].loss": {"kind": "bernoulli", "p": 0.2},
                        IW: 2,
                        LIMIT: 49,
                        ALG: alg,
                        "flows.*.tcp.timestamps": ts,
                        "trace.series": ["rto"],
                    },
                )
                tr = r.trace("rto")
                t, v = tr["time_s"].to_numpy(dtype=float), tr["value"].to_numpy(dtype=float)
                dt = np.diff(np.append(t, float(r.meta["duration_s"])))
                means.append(float((v * dt).sum() / dt.sum()))
                top = max(top, float(v.max()))
            k = f"{'ts' if ts else 'nots'}_{'03' if rate == '0.3Mbps' else '10'}"
            out[f"rto_{k}"] = float(np.mean(means))
            out[f"rtomax_{k}"] = top
    return out


def whole_run(sw: dict[str, dict], workers: int, total_s: float, figures_s: float | None) -> dict:
    """The last invocation that computed everything from nothing (every point and the
    figures), recorded in ``results/ass-sweep``; None if there never was one."""
    record = RESULTS / "ass-sweep" / "ass_run.json"
    complete = all(t["timing"]["computed"] == t["timing"]["points"] for t in sw.values())
    if figures_s is not None and complete:
        record.write_text(
            json.dumps({
                "total_s": total_s, "figures_s": figures_s, "workers": workers,
                "cpus": os.cpu_count(),
            })
        )  # fmt: skip
    return json.loads(record.read_text()) if record.exists() else None


# --- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__)
    ap.add_argument("--no-figures", action="store_true", help="keep the figures already drawn")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    sw = run_all(args.workers, args.force)
    rto = rto_check(int(sw["main"]["points"]["seed"].nunique()))
    figures_s = None
    if not args.no_figures:
        t1 = time.perf_counter()
        make_figures()
        figures_s = time.perf_counter() - t1
    run = whole_run(sw, args.workers, time.perf_counter() - t0, figures_s)
    write_report(sw, run, rto)
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
