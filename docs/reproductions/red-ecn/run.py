"""Reproduction of seed paper 002: Mateen & Anwar, "Performance Analysis of TCP Variants using
AQM and ECN" (IIBC 2016): Reno, NewReno, SACK and Vegas through DropTail, RED and RED + ECN on
a three-pair dumbbell.

    python docs/reproductions/red-ecn/run.py              # everything: sweeps, figures, report
    python docs/reproductions/red-ecn/run.py --workers 2  # more local worker processes
    python docs/reproductions/red-ecn/run.py --dask tcp://host:8786  # the grids on Dask
    python docs/reproductions/red-ecn/run.py --no-readings  # skip the sensitivity grid (≈ 4 min)
    python docs/reproductions/red-ecn/run.py --quick    # both grids, 3 seeds: headline numbers only

Runs the grid ``scenarios/red-ecn-sweep.toml`` (results in ``results/red-ecn/``), the same
grid with RED in ns-2.35's default byte mode ``scenarios/red-ecn-bytes-sweep.toml``
(``results/red-ecn-bytes/``) and the
sensitivity grid ``scenarios/red-ecn-readings-sweep.toml`` (``results/red-ecn-readings/``),
both resumable: a rerun computes only the points not on disk. Then runs the twelve single
scenarios of the time-series figures (``results/red-ecn-runs/``), writes the PNGs into
``docs/reproductions/figures/`` and regenerates ``docs/reproductions/red-ecn.md`` from
``template.md`` (``red_ecn_report``). Every number in the report comes from these runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import pandas as pd

# The setup and the report live next to this script (run as a script, or loaded by the tests).
# This paper's modules beside it, and the helpers the five share (repro_grid,
# repro_provenance) one folder up.
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from red_ecn_mapping import headline as mapping_headline  # noqa: E402
from red_ecn_mapping import score  # noqa: E402
from red_ecn_report import write_report  # noqa: E402
from red_ecn_setup import (  # noqa: E402
    BASE,
    BOTTLENECK,
    BYTES,
    CC,
    DOCS,
    EARLY_S,
    FIGURES,
    GRID,
    METRICS,
    MSS,
    QUEUE,
    QUEUES,
    QUICK_SEEDS,
    RATE,
    READINGS,
    RECOVERY,
    REPORT,
    RESULTS,
    ROOT,
    RWND,
    START,
    VARIANT_ORDER,
    VARIANTS,
)
from repro_grid import dask_client, headline, parse, parser, run_grid  # noqa: E402
from repro_provenance import provenance  # noqa: E402


def queue_label(value: str | dict) -> str:
    q = json.loads(value) if isinstance(value, str) else value
    if q["kind"] == "droptail":
        return "DropTail"
    return "RED + ECN" if q.get("ecn") else "RED"


def per_point(flows: pd.DataFrame, queues: pd.DataFrame) -> pd.DataFrame:
    """One row per sweep point: the paper's columns and the counters behind them."""
    g = flows.groupby("point", sort=True)
    pp = pd.DataFrame(
        {
            "received": g["packets_delivered"].sum(),
            "dropped": g["packets_dropped"].sum(),
            "overall_bps": g["goodput_bps"].sum(),
            "retransmits": g["retransmits"].sum(),
            "timeouts": g["timeouts"].sum(),
            "ecn_reductions": g["ecn_reductions"].sum(),
            "n_flows": g.size(),
            "jain": g["goodput_bps"].apply(lambda x: ccsim.jain_index(x.to_numpy())),
        }
    )
    pp["avg_mbps"] = pp["overall_bps"] / pp["n_flows"] / 1e6
    b = queues[(queues["link"] == "bottleneck") & (queues["from"] == "left")].set_index("point")
    pp["avg_queue"] = b["avg_len_pkts"]
    for c in ("arrivals", "drops_overflow", "drops_early", "drops_forced", "marks", "utilisation"):
        pp[c] = b[c]
    first = flows.drop_duplicates("point").set_index("point")
    pp["variant"] = [VARIANTS[(c, r)] for c, r in zip(first[CC], first[RECOVERY])]
    pp["queue"] = [queue_label(q) for q in first[QUEUE]]
    pp["seed"] = first["seed"]
    for axis in (RATE, MSS, RWND, START):
        if axis in first.columns:
            pp[axis] = first[axis]
    return pp.reset_index()


def summarise(pp: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    metrics = [m for m in METRICS if m in pp.columns]
    return ccsim.aggregate(pp, by=by, metrics=metrics).set_index(by)


def reading_label(row: pd.Series) -> str:
    rate = str(row[RATE]).replace("Mbps", " Mb/s")
    window = int(row[RWND]) // int(row[MSS])
    text = f"{rate}, {int(row[MSS])} B, window {window}"
    return text + (", starts 0/0.5/1 s" if float(row.get(START, 0) or 0) > 0 else "")


# --- single runs for the time-series figures -------------------------------------------------


def figure_runs() -> tuple[dict[tuple[str, str], ccsim.Result], dict[tuple[str, str], int]]:
    """The grid's twelve combinations at the base seed, with their time series recorded, and
    the drops of each in its first 15 s (the same run stopped at 15 s: runs are deterministic
    given the seed, so its first 15 s are those of the full run)."""
    sw = ccsim.load_sweep(GRID)
    base = sw.base_scenario()
    runs, early = {}, {}
    seen = set()
    for pt in sw.points(base):
        if pt.replication:
            continue
        variant = VARIANTS[(pt.axes[CC], pt.axes[RECOVERY])]
        queue = queue_label(pt.axes[QUEUE])
        if (variant, queue) in seen:
            continue
        seen.add((variant, queue))
        overrides = dict(pt.axes)
        overrides["name"] = f"red-ecn {variant} {queue}"
        r = ccsim.run(BASE, overrides=overrides)
        slug = f"{variant}-{queue}".lower().replace(" + ", "-").replace(" ", "-")
        r.save(RESULTS / "red-ecn-runs" / slug, figures=False, overwrite=True)
        runs[(variant, queue)] = r
        short = ccsim.run(BASE, overrides={**overrides, "duration": EARLY_S, "trace.series": []})
        early[(variant, queue)] = int(short.flows["packets_dropped"].sum())
    return runs, early


def _figure(rows: int, height: float = 2.4):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, height * rows + 0.6), layout="constrained")
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    return fig, axes


def queue_figure(runs: dict, variant: str) -> Path:
    fig, axes = _figure(len(QUEUES))
    for ax, queue in zip(axes, QUEUES):
        r = runs[(variant, queue)]
        r.plot("queue", ax=ax, select=[BOTTLENECK], legend=False, color="tab:blue", lw=0.6)
        if queue != "DropTail":
            r.plot("avg_queue", ax=ax, select=[BOTTLENECK], legend=False, color="tab:red", lw=1.5)
        for y, style in ((5, ":"), (15, ":"), (20, "--")):
            ax.axhline(y, color="grey", ls=style, lw=0.8)
        ax.set_ylim(0, 21)
        ax.set_ylabel("packets")
        what = "bottleneck queue" if queue == "DropTail" else "queue (blue), RED average (red)"
        ax.set_title(f"{variant}, {queue}: {what}")
        if ax is not axes[-1]:
            ax.set_xlabel("")
    fig.suptitle("dotted: min_th 5, max_th 15; dashed: limit 20")
    path = FIGURES / f"red-ecn-queue-{variant.lower()}.png"
    fig.savefig(path, dpi=110)
    return path


def throughput_figure(runs: dict, variant: str) -> Path:
    fig, axes = _figure(len(QUEUES))
    for ax, queue in zip(axes, QUEUES):
        runs[(variant, queue)].plot("throughput", ax=ax)
        ax.set_title(f"{variant}, {queue}: goodput per flow (1 s bins)")
        ax.set_ylim(bottom=0)
        if ax is not axes[-1]:
            ax.set_xlabel("")
    path = FIGURES / f"red-ecn-throughput-{variant.lower()}.png"
    fig.savefig(path, dpi=110)
    return path


def bar_figure(summary: pd.DataFrame) -> Path:
    """The paper's Figs. 8-10 (drops, average queue, average throughput) from the grid."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 3.8), layout="constrained")
    panels = [
        ("dropped", "packets dropped", 1.0),
        ("avg_queue", "average queue (packets)", 1.0),
        ("avg_mbps", "average throughput per flow (kb/s)", 1e3),
    ]
    x = np.arange(len(VARIANT_ORDER))
    width = 0.27
    for i, (metric, label, factor) in enumerate(panels):
        ax = fig.add_subplot(1, 3, i + 1)
        for j, queue in enumerate(QUEUES):
            rows = summary.loc[[(v, queue) for v in VARIANT_ORDER]]
            mean = rows[f"{metric}_mean"].to_numpy() * factor
            ci = np.nan_to_num(rows[f"{metric}_ci95"].to_numpy() * factor)
            ax.bar(x + (j - 1) * width, mean, width, yerr=ci, capsize=2, label=queue)
        ax.set_xticks(x, VARIANT_ORDER)
        ax.set_ylabel(label)
        ax.grid(True, axis="y", alpha=0.3)
        if metric == "avg_mbps":
            lo = float(summary[f"{metric}_mean"].min()) * factor
            ax.set_ylim(lo * 0.98, lo * 1.015)
        if i == 0:
            ax.legend(fontsize="small")
    fig.suptitle("ccsim, 10 seeds, 95 % intervals (cf. the paper's Figs. 8-10)")
    path = FIGURES / "red-ecn-bars.png"
    fig.savefig(path, dpi=110)
    return path


# --- report -----------------------------------------------------------------------------------


def red_queue(path: Path) -> dict:
    """The RED queue of a grid (the point with RED and without ECN) and the data packet's size
    on the wire (segment + 40 bytes of headers), for the report's unit conversions."""
    sw = ccsim.load_sweep(path)
    pt = next(p for p in sw.points(sw.base_scenario()) if p.axes[QUEUE]["kind"] == "red")
    mss = int(ccsim.validate(BASE)["flows"][0]["tcp"]["mss"])
    return {"queue": pt.axes[QUEUE], "wire_bytes": mss + 40}


def both_grids(workers: int, force: bool, seeds: int | None, out: Path, client: Any = None) -> dict:
    """The packet-mode and the byte-mode grid (``seeds`` of each, all where None) with their
    summaries by (variant, queue); ``client``: a Dask client to run them on."""
    res = {}
    for mode, path in (("packets", GRID), ("bytes", BYTES)):
        sw = ccsim.load_sweep(path)
        if seeds is not None:
            sw.replications = seeds
        g = run_grid(sw, out / sw.name, workers, force, client=client)
        g["summary"] = summarise(per_point(g["flows"], g["queues"]), ["variant", "queue"])
        res[mode] = g
    return res


def quick(
    workers: int = 1,
    force: bool = False,
    out: Path = RESULTS / "red-ecn-quick",
    client: Any = None,
) -> dict:
    """The quick mode: both grids with QUICK_SEEDS seeds, scored for the two readings of the
    paper's tables; returns the headline numbers (CI compares them with committed ones)."""
    g = both_grids(workers, force, QUICK_SEEDS, out, client)
    return {
        "seeds": QUICK_SEEDS,
        **mapping_headline(score({k: v["summary"] for k, v in g.items()})),
    }


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__, f"both grids with {QUICK_SEEDS} seeds (seconds)", dask=True)
    ap.add_argument("--no-readings", action="store_true", help="skip the sensitivity grid")
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

    FIGURES.mkdir(parents=True, exist_ok=True)

    def grid(path: Path) -> dict:
        name = ccsim.load_sweep(path).name
        return run_grid(path, RESULTS / name, args.workers, args.force, client=client)

    grids = both_grids(args.workers, args.force, None, RESULTS, client)
    main_grid = grids["packets"]
    timing = main_grid["timing"]
    summary = main_grid["summary"]

    readings = None
    if not args.no_readings:
        r = grid(READINGS)
        rpp = per_point(r["flows"], r["queues"])
        rpp["reading"] = [reading_label(row) for _, row in rpp.iterrows()]
        order = list(dict.fromkeys(rpp["reading"]))
        rsum = summarise(rpp, ["reading", "variant", "queue"])
        readings = (rsum, order, r["timing"])

    runs, early = figure_runs()
    # RED's own average (the EWMA), from the figure runs' seed, for the details table.
    red_avg = {
        k: float(r.trace("avg_queue").query("queue == @BOTTLENECK and time_s > 20")["value"].mean())
        if k[1] != "DropTail"
        else float("nan")
        for k, r in runs.items()
    }
    summary["red_avg_mean"] = [red_avg[k] for k in summary.index]
    rel = lambda p: p.relative_to(DOCS).as_posix()  # noqa: E731
    figures = {
        "bars": rel(bar_figure(summary)),
        "queue": {v: rel(queue_figure(runs, v)) for v in VARIANT_ORDER},
        "throughput": {v: rel(throughput_figure(runs, v)) for v in VARIANT_ORDER},
    }
    write_report(
        summary,
        timing,
        readings,
        figures,
        runs,
        early,
        bytes_grid=(grids["bytes"]["summary"], grids["bytes"]["timing"], red_queue(BYTES)),
        provenance=provenance(None if argv is None else [__file__, *argv]),
    )
    print(f"wrote {REPORT.relative_to(ROOT)} and {len(figures['queue']) * 2 + 1} figures")


if __name__ == "__main__":
    main()
