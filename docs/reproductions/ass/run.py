"""Reproduction of seed paper 001: Petrov & Janevski, "Novel Slow Start Algorithm" (2013):
Advanced Slow Start (ASS) algorithms 2-4 against classic slow start with Limited Slow-Start on
a 4-node chain.

    python docs/reproductions/ass/run.py               # everything: sweeps, figures, report
    python docs/reproductions/ass/run.py --workers 2   # more local worker processes
    python docs/reproductions/ass/run.py --dask tcp://host:8786  # the grids on a Dask cluster
    python docs/reproductions/ass/run.py --no-figures  # keep the figures already drawn

Runs, with ccsim's sweep facility (one file per finished point under ``results/``, so a rerun
or an interrupted run computes only what is missing):

- ``results/ass-sweep``: the grid ``scenarios/ass-sweep.toml``, 192 configurations x 10 seeds
  of 250 s, for the mean throughput of each configuration;
- ``results/ass-startup``: the same grid cut at 5 s, for the start-up phase;
- ``results/ass-sweep-timestamps``: the grid with TCP timestamps on (the grid runs without
  them, as ns-2 did), to show what RTT sampling changes;
- ``results/ass-iw1``: the lossless grid with an initial window of 1 instead of 2;
- ``results/ass-jitter``: the lossless grid, 250 s and cut at 5 s, with 1 ms of send jitter
  (ns-2's ``overhead_``) and the grid's seeds, so that the lossless comparisons, one
  deterministic trajectory each in the grid, get replications and Student-t intervals.

Then a few short runs with the RTO traced (20 % loss, with and without timestamps), one 250 s
run per configuration (seed 1) with cwnd and goodput traces, drawn with ccsim's own
``ccsim.plot.plot_series`` into ``docs/reproductions/figures/ass-*.png``, and rewrites
``docs/reproductions/ass.md``. Every number in the report comes from these runs. The script is
split by concept: ``ass_setup`` (paths, axes, the paper's rankings), ``ass_rank`` (ranking
rules), ``ass_figures``, ``ass_report`` (tables and numbers), ``ass_claims`` (the claims table
and its verdicts), ``ass_verdicts`` (sentences chosen by the numbers) and ``template.md``
(the prose with ``string.Template`` placeholders).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import ccsim
import numpy as np

# The setup and the report live next to this script (run as a script, or loaded by the tests).
# This paper's modules beside it, and the helpers the five share (repro_grid,
# repro_provenance) one folder up.
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from ass_figures import make_figures  # noqa: E402
from ass_rank import (  # noqa: E402, F401  (the tests use them)
    Grid,
    best,
    ccsim_relation,
    compare,
    half_width,
    pairs,
    parse_rank,
    per_seed_pairs,
    rank,
    relation,
    show_rank,
)
from ass_report import write_report  # noqa: E402
from ass_setup import (  # noqa: E402, F401  (the tests use CLAIMS and the axis values)
    ALG,
    ALGS,
    BASE,
    CLAIMS,
    GRID,
    IFQS,
    IW,
    IWS,
    JITTER,
    LIMIT,
    LOSS,
    LOSSES,
    RATE,
    RATES,
    REPORT,
    RESULTS,
    ROOT,
    SEND_JITTER,
    STARTUP,
    SWEEP,
)
from repro_grid import dask_client, headline, parse, parser, run_grid  # noqa: E402
from repro_provenance import provenance  # noqa: E402


def variant(overrides: dict, name: str) -> ccsim.Sweep:
    """The grid of scenarios/ass-sweep.toml with more fixed overrides."""
    sw = ccsim.load_sweep(SWEEP)
    sw.overrides = {**sw.overrides, **overrides}
    sw.name = name
    return sw


def jitter_sweep(
    replications: int, rates=RATES, ifqs=IFQS, iws=IWS, name="ass-jitter", durations=None
):
    """The lossless grid, 250 s and first 5 s, with send jitter and ``replications`` seeds."""
    return ccsim.Sweep(
        BASE,
        {"duration": durations or [STARTUP, "250s"], RATE: rates, IW: iws,
         LIMIT: [q - 1 for q in ifqs], ALG: ALGS},
        replications=replications,
        overrides={"trace.series": [], SEND_JITTER: JITTER},
        name=name,
    )  # fmt: skip


def run_all(workers: int, force: bool, client: Any = None) -> dict[str, dict]:
    seeds = ccsim.load_sweep(SWEEP).replications
    iw1 = ccsim.Sweep(
        BASE,
        {"duration": [STARTUP, "250s"], RATE: RATES, LIMIT: [q - 1 for q in IFQS], ALG: ALGS},
        overrides={"trace.series": [], IW: 1},
        name="ass-iw1",
    )
    return {
        "main": run_grid(SWEEP, RESULTS / "ass-sweep", workers, force, client=client),
        "startup": run_grid(
            variant({"duration": STARTUP}, "ass-startup"),
            RESULTS / "ass-startup",
            workers,
            force,
            client=client,
        ),
        "ts": run_grid(
            variant({"flows.*.tcp.timestamps": True}, "ass-sweep-timestamps"),
            RESULTS / "ass-sweep-timestamps",
            workers,
            force,
            client=client,
        ),  # fmt: skip
        "iw1": run_grid(iw1, RESULTS / "ass-iw1", workers, force, client=client),
        "jitter": run_grid(
            jitter_sweep(seeds), RESULTS / "ass-jitter", workers, force, client=client
        ),
    }


def start_offsets(seeds: int) -> dict[str, float]:
    """Why the replications jitter the sends and do not shift the start: the lone flow started
    ``seeds`` times at offsets drawn uniformly from [0, 100 ms) (``numpy`` generator seeded with
    the replication's seed), each algorithm, IW off, two configurations; the largest relative
    spread (max − min over max) of the goodput, over 250 s and over the first 5 s."""
    out = {}
    for dur, key in (("250s", "off250"), (STARTUP, "off5")):
        worst = 0.0
        for rate, q in (("0.3Mbps", 15), ("10Mbps", 50)):
            for alg in ALGS:
                vals = []
                for seed in range(1, seeds + 1):
                    start = float(np.random.default_rng(seed).uniform(0.0, 0.1))
                    r = ccsim.run(
                        BASE,
                        seed=seed,
                        overrides={
                            RATE: rate, IW: 2, LIMIT: q - 1, ALG: alg, "duration": dur,
                            "flows[0].start": f"{start:.6f}s", "trace.series": [],
                        },
                    )  # fmt: skip
                    vals.append(float(r.flows["goodput_bps"].iloc[0]))
                worst = max(worst, (max(vals) - min(vals)) / max(vals))
        out[key] = worst * 100
    return out


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


# --- quick mode --------------------------------------------------------------------------------

QUICK_SEEDS = 3
QUICK_IFQS = [15, 50]


def quick(
    workers: int = 1, force: bool = False, out: Path = RESULTS / "ass-quick", client: Any = None
) -> dict:
    """A reduced reproduction for CI (seconds): the first 5 s without loss, IW off, IFQ 15 and
    50, with send jitter; and 250 s with 20 % loss at IFQ 50, IW off; QUICK_SEEDS seeds. Returns
    the headline numbers: the first-5 s split of the paper's pairs (pairwise tests, and seed by
    seed), and the per-seed differences ASS2 − LSS and ASS2 − ASS3 with 20 % loss."""
    jit = jitter_sweep(
        QUICK_SEEDS, ifqs=QUICK_IFQS, iws=[2], name="ass-quick-jitter", durations=[STARTUP]
    )
    lossy = ccsim.Sweep(
        BASE,
        {RATE: RATES, ALG: ALGS},
        replications=QUICK_SEEDS,
        overrides={
            "trace.series": [], "topology.links[1].loss": {"kind": "bernoulli", "p": 0.2},
            IW: 2, LIMIT: 49,
        },
        name="ass-quick-loss",
    )  # fmt: skip
    f = run_grid(jit, out / "jitter", workers, force, client=client)["flows"].copy()
    f[LOSS] = 0.0
    startup = Grid(f, GRID)
    cases = [
        (r, lo, iw, q, t)
        for r, lo, iw, q, t, _ in CLAIMS
        if lo == 0.0 and iw == 2 and q in QUICK_IFQS
    ]
    tested = [0, 0, 0]
    for rate, _, iw, q, text in cases:
        paper = parse_rank(text)
        rel = ccsim_relation(startup, rate, 0.0, iw, q, {a for g in paper for a in g})
        tested = [a + b for a, b in zip(tested, pairs(paper, rel))]
    seeds = per_seed_pairs(startup, cases)
    g = run_grid(lossy, out / "loss", workers, force, client=client)["flows"]
    diffs = {}
    for rate in RATES:
        x = {a: g[(g[RATE] == rate) & (g[ALG] == a)].sort_values("seed")["goodput_bps"].to_numpy()
             / 1e3 for a in ALGS}  # fmt: skip
        for name, a, b in (("ass2-lss", "ass2", "limited"), ("ass2-ass3", "ass2", "ass3")):
            d = x[a] - x[b]
            diffs[f"{rate} {name}"] = {
                "mean": round(float(np.mean(d)), 3), "half_width": round(half_width(d), 3),
                "sign": compare(x[a], x[b]),
            }  # fmt: skip
    return {
        "seeds": QUICK_SEEDS,
        "startup_split_tested": tested,
        "startup_split_per_seed_mean": [round(float(v), 3) for v in seeds.mean(axis=0)],
        "loss_differences": diffs,
    }


# --- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__, f"a reduced grid ({QUICK_SEEDS} seeds, seconds)", dask=True)
    ap.add_argument("--no-figures", action="store_true", help="keep the figures already drawn")
    args = parse(ap, argv)
    with dask_client(ap, args.dask) as client:
        reproduce(args, argv, client)


def reproduce(args: argparse.Namespace, argv: list[str] | None, client: Any) -> None:
    """What ``main`` does with its options; ``client``: the grids' Dask client, or None."""
    if client is not None:  # the timings record how many ran the grids: the cluster's threads
        args.workers = max(1, sum(client.nthreads().values()))
    if args.quick:
        headline(quick(args.workers, args.force, client=client), args.headline)
        return
    t0 = time.perf_counter()
    sw = run_all(args.workers, args.force, client)
    rto = rto_check(int(sw["main"]["points"]["seed"].nunique()))
    rto.update(start_offsets(int(sw["main"]["points"]["seed"].nunique())))
    figures_s = None
    if not args.no_figures:
        t1 = time.perf_counter()
        make_figures()
        figures_s = time.perf_counter() - t1
    run = whole_run(sw, args.workers, time.perf_counter() - t0, figures_s)
    write_report(sw, run, rto, provenance(None if argv is None else [__file__, *argv]))
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
