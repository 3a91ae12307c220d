"""Flow completion times against offered load, DropTail against CoDel: an example study with
ccsim's traffic sources (not a paper's reproduction).

    python docs/examples/web_fct.py      # 48 runs (about ten seconds), figure, report

Web-like transfers arrive as a Poisson process (`tcp_arrivals`) from one sender to one
receiver over a 20 Mb/s, 10 ms dumbbell, with Pareto sizes of shape 1.2 and mean 60 kB capped
at 5 MB (a mean of 45.6 kB once capped), CUBIC, for 60 s of arrivals and 20 s more to finish.
The arrival rate sets the offered load, from 10 % to 90 % of the link; the bottleneck is
DropTail or CoDel, each with a 100-packet buffer; three seeds per point. Writes
``docs/examples/figures/web-fct.png`` and regenerates ``docs/examples/web-fct.md``; every
number in the report comes from these runs.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import ccsim
import matplotlib
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs" / "examples"
FIGURE = DOCS / "figures" / "web-fct.png"
REPORT = DOCS / "web-fct.md"

RATE_BPS = 20e6
MEAN, SHAPE, CAP = 60e3, 1.2, 5e6
SHORT = 100e3  # bytes: a "short" transfer is below this
LOADS = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9)
QUEUES = {
    "DropTail": {"kind": "droptail", "limit": 100},
    "CoDel": {"kind": "codel", "limit": 100},
}


def capped_mean(mean: float = MEAN, shape: float = SHAPE, cap: float = CAP) -> float:
    """E[min(X, cap)] for a Pareto X of this mean and shape: the mean less
    β^α·cap^(1−α)/(α−1), β = mean·(α−1)/α."""
    scale = mean * (shape - 1) / shape
    return mean - scale**shape * cap ** (1 - shape) / (shape - 1)


def arrival_rate(load: float) -> float:
    """Transfers per second that offer `load` of the link."""
    return load * RATE_BPS / (8 * capped_mean())


def base(arrivals_s: float) -> dict:
    return {
        "name": "web-fct",
        "duration": arrivals_s + 20,
        "seed": 1,
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "bottleneck": {"rate": RATE_BPS, "delay": "10ms", "queue": QUEUES["DropTail"]},
            "access": {"rate": 10 * RATE_BPS, "delay": "1ms"},
        },
        "flows": [
            {
                "kind": "tcp_arrivals",
                "name": "web",
                "src": "s0",
                "dst": "d0",
                "arrival_rate": arrival_rate(LOADS[0]),
                "size": {"distribution": "pareto", "mean": MEAN, "shape": SHAPE, "max": CAP},
                "stop": arrivals_s,
                "tcp": {"cc": "cubic"},
            }
        ],
    }


def study(loads=LOADS, seeds: int = 3, arrivals_s: float = 60.0, workers: int = 0):
    """One row per nominal load, queue and size class (short, long, all): the load the drawn
    sizes offered (pooled over the seeds), transfers, completed, mean and 99th-percentile
    completion time (s), over every seed's transfers. The grid is kept in ``attrs``."""
    df = ccsim.sweep(
        base(arrivals_s),
        axes={
            "flows.web.arrival_rate": [arrival_rate(x) for x in loads],
            "topology.bottleneck.queue": list(QUEUES.values()),
        },
        replications=seeds,
        workers=workers,
        progress=False,
    )
    rate_to_load = {arrival_rate(x): x for x in loads}
    df["load"] = df["flows.web.arrival_rate"].map(rate_to_load)
    # A table on an axis is JSON text in the sweep's tables.
    kinds = {q["kind"]: name for name, q in QUEUES.items()}
    df["queue"] = df["topology.bottleneck.queue"].map(lambda q: kinds[json.loads(q)["kind"]])
    rows = []
    for (load, queue), g in df.groupby(["load", "queue"], sort=True):
        # The sizes drawn, not their mean: a shape of 1.2 leaves the load a run offers far
        # from the nominal one (payload bytes; headers add about 3 %).
        offered = g["size_bytes"].sum() * 8 / (RATE_BPS * arrivals_s * seeds)
        for cls, part in (
            ("short", g[g["size_bytes"] < SHORT]),
            ("long", g[g["size_bytes"] >= SHORT]),
            ("all", g),
        ):
            done = part["completion_s"].dropna()
            rows.append(
                {
                    "load": load,
                    "offered": offered,
                    "queue": queue,
                    "class": cls,
                    "transfers": len(part),
                    "completed": len(done),
                    "mean_s": done.mean() if len(done) else math.nan,
                    "p99_s": done.quantile(0.99) if len(done) else math.nan,
                }
            )
    t = pd.DataFrame(rows)
    t.attrs.update(seeds=seeds, arrivals_s=arrivals_s)
    return t


def figure(t: pd.DataFrame) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), layout="constrained")
    panels = [
        ("short", "mean_s", "short transfers (< 100 kB): mean"),
        ("short", "p99_s", "short transfers: 99th percentile"),
        ("long", "mean_s", "long transfers (≥ 100 kB): mean"),
    ]
    for ax, (cls, col, title) in zip(axes, panels):
        for queue, g in t[t["class"] == cls].groupby("queue"):
            ax.plot(g["load"] * 100, g[col], marker="o", label=queue)
        ax.set_title(title)
        ax.set_xlabel("offered load (% of 20 Mb/s)")
        ax.set_ylabel("completion time (s)")
        ax.grid(alpha=0.3)
        ax.legend()
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURE, dpi=110)


def report(t: pd.DataFrame) -> str:
    def cell(load, queue, cls, col):
        sel = t[(t["load"] == load) & (t["queue"] == queue) & (t["class"] == cls)]
        return float(sel[col].iloc[0])

    lines = [
        "# Flow completion times against load: DropTail and CoDel",
        "",
        "*Generated by `python docs/examples/web_fct.py`; every number below comes from its runs.*",
        "",
        "An example study with ccsim's traffic sources (not a paper's reproduction). Transfers "
        "arrive as a Poisson process (`tcp_arrivals`) over a 20 Mb/s, 10 ms dumbbell (access "
        "links 200 Mb/s, 1 ms), with Pareto sizes of shape 1.2 and mean 60 kB capped at 5 MB "
        f"(a mean of {capped_mean() / 1e3:.1f} kB once capped), CUBIC, "
        f"{t.attrs['arrivals_s']:g} s of arrivals and 20 s more to finish; the bottleneck holds "
        f"100 packets, DropTail or CoDel; {t.attrs['seeds']} seed(s) per point, their transfers "
        "pooled. Short transfers are those under 100 kB. The load is nominal — the arrival rate "
        "times the mean size; with sizes this heavy-tailed, what the drawn sizes offered "
        "differs (the `offered` column, payload only; headers add about 3 %).",
        "",
        "![completion times](figures/web-fct.png)",
        "",
        "| load | offered | queue | short: transfers | short: mean (s) | short: p99 (s) "
        "| long: transfers | long: mean (s) | unfinished |",
        "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for load in sorted(t["load"].unique()):
        for queue in QUEUES:
            sel = t[(t["load"] == load) & (t["queue"] == queue)]
            short = sel[sel["class"] == "short"].iloc[0]
            long = sel[sel["class"] == "long"].iloc[0]
            alls = sel[sel["class"] == "all"].iloc[0]
            lines.append(
                f"| {load:.0%} | {alls['offered']:.1%} | {queue} | {short['transfers']:,} "
                f"| {short['mean_s']:.3f} "
                f"| {short['p99_s']:.3f} | {long['transfers']:,} | {long['mean_s']:.3f} "
                f"| {alls['transfers'] - alls['completed']} |"
            )
    hi = max(t["load"])
    lo = min(t["load"])
    lines += [
        "",
        "What the runs show:",
        "",
        f"- At {lo:.0%} load a short transfer takes "
        f"{cell(lo, 'DropTail', 'short', 'mean_s') * 1e3:.0f} ms on average with DropTail "
        f"({cell(lo, 'CoDel', 'short', 'mean_s') * 1e3:.0f} ms with CoDel): a few round trips "
        "of slow start, as little queue as there is.",
        f"- At {hi:.0%} load the mean short transfer takes "
        f"{cell(hi, 'DropTail', 'short', 'mean_s'):.3f} s with DropTail and "
        f"{cell(hi, 'CoDel', 'short', 'mean_s'):.3f} s with CoDel; the 99th percentile "
        f"{cell(hi, 'DropTail', 'short', 'p99_s'):.3f} s and "
        f"{cell(hi, 'CoDel', 'short', 'p99_s'):.3f} s. Long transfers take "
        f"{cell(hi, 'DropTail', 'long', 'mean_s'):.3f} s and "
        f"{cell(hi, 'CoDel', 'long', 'mean_s'):.3f} s.",
        "",
        "Run it again with `python docs/examples/web_fct.py`. A smaller sweep of the same kind, "
        "for the command line, is `scenarios/sweeps/web-fct-load.toml`.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    t = study()
    figure(t)
    REPORT.write_text(report(t))
    print(f"wrote {REPORT.relative_to(ROOT)} and {FIGURE.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
