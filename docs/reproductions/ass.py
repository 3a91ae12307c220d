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
- ``results/ass-sweep-no-timestamps``: the grid without the RTT-sampling workaround (the
  report explains it), to show what it changes;
- ``results/ass-iw1``: the lossless grid with an initial window of 1 instead of 2.

Then one 250 s run per configuration (seed 1) with cwnd and goodput traces, drawn with ccsim's
own ``ccsim.plot.plot_series`` into ``docs/reproductions/figures/ass-*.png``, and rewrites
``docs/reproductions/ass.md``. Every number in the report comes from these runs; the prose
around them is written here.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import ccsim
import numpy as np
import pandas as pd
from ccsim.plot import plot_series
from ccsim.stats import t_ppf

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "scenarios" / "ass-chain.toml"
SWEEP = ROOT / "scenarios" / "ass-sweep.toml"
RESULTS = ROOT / "results"
DOCS = ROOT / "docs" / "reproductions"
FIGURES = DOCS / "figures"
REPORT = DOCS / "ass.md"

# Axis paths of scenarios/ass-sweep.toml.
RATE = "topology.links[1].rate"
LOSS = "topology.links[1].loss.p"
IW = "flows.*.tcp.initial_window"
LIMIT = "topology.links.*.queue.limit"
ALG = "flows.*.tcp.slow_start.kind"
GRID = [RATE, LOSS, IW, LIMIT, ALG]

RATES = ["0.3Mbps", "10Mbps"]
LOSSES = [0.0, 0.2]
IWS = [2, "rfc3390"]
IFQS = [5, 15, 25, 50, 100, 200]  # the paper's IFQ; ccsim's limit is IFQ - 1
ALGS = ["limited", "ass2", "ass3", "ass4"]
ALG_NO = {"limited": 1, "ass2": 2, "ass3": 3, "ass4": 4}
ALG_LABEL = {"limited": "1: LSS", "ass2": "2: ASS2", "ass3": "3: ASS3", "ass4": "4: ASS4"}
ALG_COLOUR = {"limited": "tab:blue", "ass2": "tab:red", "ass3": "tab:green", "ass4": "tab:orange"}
IW_NAME = {2: "off", "rfc3390": "on"}
STARTUP = "5s"  # the start-up window
THROUGHPUT_BIN = "5s"  # goodput bins of the 250 s figures

# Two algorithms tie ("=") when their means differ by less than this fraction, or when the
# 95 % interval of their per-seed (paired) difference contains zero.
TIE = 0.005

# The paper's throughput rankings, read from its text (sections 4 and 5; the figures are not in
# the text copy): "a > b" better, "a = b" overlapping. ifq None: the paper says the IFQ size
# does not matter. An algorithm the paper does not place is left out.
CLAIMS: list[tuple[str, float, object, int | None, str, str]] = [
    ("0.3Mbps", 0.0, 2, 5, "3 > 2 > 1 = 4", "best 3; 1 and 4 overlap; 2 better than them"),
    ("0.3Mbps", 0.0, 2, 15, "2 > 1 > 3 = 4", "2, then 1, the rest follow"),
    ("0.3Mbps", 0.0, 2, 25, "2 > 4 > 3 > 1", "2, then 4 and 3; definitely worst 1"),
    ("0.3Mbps", 0.0, 2, 50, "2 > 1 > 3 = 4", "2, then 1; the rest similar, last"),
    ("0.3Mbps", 0.0, 2, 100, "2 > 1 > 3 > 4", "2, followed by 1, 3 and 4"),
    ("0.3Mbps", 0.0, 2, 200, "2 > 4 > 1 > 3", "2, then 4, then 1 and 3"),
    ("0.3Mbps", 0.0, "rfc3390", 5, "1 = 3 = 4 > 2", "worst 2; the others overlap"),
    ("0.3Mbps", 0.0, "rfc3390", 15, "2 > 4 > 1 > 3", "cwnd 2, 4, 1, 3; throughput similar"),
    ("0.3Mbps", 0.0, "rfc3390", 25, "2 > 3 > 1 > 4", "2, followed by 3, 1 and 4"),
    ("0.3Mbps", 0.0, "rfc3390", 50, "2 > 1 > 4 > 3", "2 dominates, then 1, 4, 3"),
    ("0.3Mbps", 0.0, "rfc3390", 100, "3 = 4 > 1 = 2", "best 3; (5.) 3 and 4 beat 1 and 2"),
    ("0.3Mbps", 0.0, "rfc3390", 200, "3 = 4 > 1 = 2", "best 3; (5.) 3 and 4 beat 1 and 2"),
    ("0.3Mbps", 0.2, 2, None, "3 = 4 > 2", "IFQ, IW irrelevant; 3 and 4 beat 2 mid-run"),
    ("0.3Mbps", 0.2, "rfc3390", None, "3 = 4 > 2", "IFQ, IW irrelevant; 3 and 4 beat 2 mid-run"),
    ("10Mbps", 0.0, 2, 5, "1 = 2 = 3 = 4", "all the same"),
    ("10Mbps", 0.0, 2, 15, "2 > 1 = 3 = 4", "best 2; minor variation for the rest"),
    ("10Mbps", 0.0, 2, 25, "2 > 4 > 3 > 1", "cwnd 2, then 4, 3 and 1"),
    ("10Mbps", 0.0, 2, 50, "1 > 2 > 4 > 3", "1 best, followed by 2, 4 and 3"),
    ("10Mbps", 0.0, 2, 100, "2 > 1 = 4 > 3", "2; 1 and 4 similar; worst 3"),
    ("10Mbps", 0.0, 2, 200, "2 > 3 > 1 > 4", "2, then 3, followed by 1 and 4"),
    ("10Mbps", 0.0, "rfc3390", 5, "1 = 3 = 4 > 2", "1, 3, 4 overlap; worst 2"),
    ("10Mbps", 0.0, "rfc3390", 15, "3 > 2 > 4 > 1", "3, followed by 2, 4 and 1"),
    ("10Mbps", 0.0, "rfc3390", 25, "4 > 3 > 2 > 1", "rank list 4, 3, 2, 1"),
    ("10Mbps", 0.0, "rfc3390", 50, "1 > 2 = 3 = 4", "1 outperforms 2, 3, 4"),
    ("10Mbps", 0.0, "rfc3390", 100, "2 > 1 = 3 = 4", "best 2"),
    ("10Mbps", 0.0, "rfc3390", 200, "3 = 4 > 1 = 2", "4 and 3 best"),
    ("10Mbps", 0.2, 2, None, "2 > 3 = 4 > 1", "IFQ irrelevant; 2, then 3 = 4; worst 1"),
    ("10Mbps", 0.2, "rfc3390", None, "2 > 3 = 4 > 1", "2, then 3 = 4; worst 1"),
]


# --- running ----------------------------------------------------------------------------------


def run_grid(spec, output: Path, workers: int, force: bool) -> dict:
    """Runs (or resumes) one sweep; returns its tables and timings."""
    done: list[ccsim.PointDone] = []
    t0 = time.perf_counter()
    flows = ccsim.sweep(
        spec, output=output, workers=workers, force=force, on_point=done.append
    )  # fmt: skip
    elapsed = time.perf_counter() - t0
    points = pd.read_csv(output / "points.csv")
    queues = pd.read_parquet(output / "queues.parquet")
    print(f"{output.name}: {len(points)} points, {len(done)} computed, {elapsed:.1f} s")
    return {
        "flows": flows,
        "queues": queues,
        "points": points,
        "computed": len(done),
        "elapsed_s": elapsed,
        "sim_wall_s": float(points["wall_s"].sum()),
        "output": output.relative_to(ROOT),
    }


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
        "nots": run_grid(
            variant({"flows.*.tcp.timestamps": False}, "ass-sweep-no-timestamps"),
            RESULTS / "ass-sweep-no-timestamps",
            workers,
            force,
        ),  # fmt: skip
        "iw1": run_grid(iw1, RESULTS / "ass-iw1", workers, force),
    }


# --- numbers ----------------------------------------------------------------------------------


class Grid:
    """Per-seed goodput (kb/s) of every configuration of one sweep, and its summaries."""

    def __init__(self, flows: pd.DataFrame, axes: list[str]):
        self.axes = axes
        f = flows.copy()
        f["_iw"] = f[IW].astype(str) if IW in f else ""
        keys = [a if a != IW else "_iw" for a in axes]
        self.samples: dict[tuple, np.ndarray] = {}
        for k, g in f.sort_values("seed").groupby(keys, sort=False):
            self.samples[k] = g["goodput_bps"].to_numpy(dtype=float) / 1e3
        self.keys = keys

    def get(self, **cond) -> np.ndarray:
        key = tuple(str(cond[a]) if a == IW else cond[a] for a in self.axes)
        return self.samples[key]

    def cell(self, rate, loss, iw, ifq, alg) -> np.ndarray:
        return self.get(**{RATE: rate, LOSS: loss, IW: iw, LIMIT: ifq - 1, ALG: alg})


def half_width(x: np.ndarray) -> float:
    """Student-t 95 % half-width of the mean of ``x`` (0 for one value or no spread)."""
    n = len(x)
    if n < 2 or float(np.std(x)) == 0.0:
        return 0.0
    return t_ppf(0.975, n - 1) * float(np.std(x, ddof=1)) / math.sqrt(n)


def rank(samples: dict[int, np.ndarray]) -> list[list[int]]:
    """Algorithms grouped best first by mean. An algorithm joins the group of the one above if
    its mean is within TIE (relative) of that group's best, or if the 95 % interval of their
    per-seed differences (common seeds, so paired) contains zero."""
    order = sorted(samples, key=lambda a: -float(np.mean(samples[a])))
    groups: list[list[int]] = []
    for a in order:
        if groups:
            top = samples[groups[-1][0]]
            d = top - samples[a]
            if float(np.mean(d)) <= max(TIE * float(np.mean(top)), half_width(d)):
                groups[-1].append(a)
                continue
        groups.append([a])
    return groups


def parse_rank(text: str) -> list[list[int]]:
    return [[int(x) for x in g.split("=")] for g in text.replace(" ", "").split(">")]


def show_rank(groups: list[list[int]]) -> str:
    return " > ".join(" = ".join(str(a) for a in sorted(g)) for g in groups)


def pairs(paper: list[list[int]], ours: list[list[int]]) -> tuple[int, int, int]:
    """Of the pairs the paper orders strictly: how many ccsim orders the same way, ties, or
    orders the other way."""
    level = {a: i for i, g in enumerate(ours) for a in g}
    same = tie = opposite = 0
    for i, g in enumerate(paper):
        for a in g:
            for h in paper[i + 1 :]:
                for b in h:
                    if a not in level or b not in level:
                        continue
                    if level[a] < level[b]:
                        same += 1
                    elif level[a] == level[b]:
                        tie += 1
                    else:
                        opposite += 1
    return same, tie, opposite


def best_match(paper: list[list[int]], ours: list[list[int]]) -> str:
    """'yes' when ccsim's best group is the paper's, 'tie' when they overlap, 'no' else."""
    p, o = set(paper[0]), set(ours[0])
    return "yes" if p == o else "tie" if p & o else "no"


def ccsim_rank(grid: Grid, rate, loss, iw, ifq, keep: set[int]) -> list[list[int]]:
    vals = {ALG_NO[a]: grid.cell(rate, loss, iw, ifq, a) for a in ALGS}
    groups = [[a for a in g if a in keep] for g in rank(vals)]
    return [g for g in groups if g]


def pretty_rate(rate: str) -> str:
    return rate.replace("Mbps", " Mb/s")


# --- tables -----------------------------------------------------------------------------------


def fmt(x: np.ndarray, bold: bool) -> str:
    m, h = float(np.mean(x)), half_width(x)
    s = f"{m:.1f}" if h < 0.05 else f"{m:.1f} ± {h:.1f}"
    return f"**{s}**" if bold else s


def throughput_table(grid: Grid, rate: str, loss: float) -> str:
    head = ["IFQ"] + [f"IW {IW_NAME[iw]}: {ALG_NO[a]}" for iw in IWS for a in ALGS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for ifq in IFQS:
        row = [str(ifq)]
        for iw in IWS:
            vals = [grid.cell(rate, loss, iw, ifq, a) for a in ALGS]
            best = max(float(np.mean(v)) for v in vals)
            row += [fmt(v, float(np.mean(v)) >= best - 1e-9) for v in vals]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def ranking_table(main: Grid, startup: Grid) -> tuple[str, dict]:
    lines = [
        "| bottleneck | loss | larger IW | IFQ | paper (its words) | paper | ccsim, 250 s "
        "| same/tie/opp. | best | ccsim, first 5 s | same/tie/opp. | best |",
        "|---|---|---|---:|---|---|---|---|---|---|---|---|",
    ]
    score = {m: {"pairs": [0, 0, 0], "best": {"yes": 0, "tie": 0, "no": 0}} for m in ("250", "5")}
    for rate, loss, iw, ifq, text, words in CLAIMS:
        paper = parse_rank(text)
        keep = {a for g in paper for a in g}
        cells = []
        for m, grid in (("250", main), ("5", startup)):
            # where the paper pools every IFQ, rank at IFQ 50 (the spread over IFQ is reported)
            ours = ccsim_rank(grid, rate, loss, iw, 50 if ifq is None else ifq, keep)
            s, t, o = pairs(paper, ours)
            b = best_match(paper, ours)
            for k, x in enumerate((s, t, o)):
                score[m]["pairs"][k] += x
            score[m]["best"][b] += 1
            cells += [show_rank(ours), f"{s}/{t}/{o}", b]
        where = "all" if ifq is None else str(ifq)
        lines.append(
            f"| {pretty_rate(rate)} | {loss:.0%} | {IW_NAME[iw]} | {where} | {words} | {text} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines), score


def loss_claims(main: Grid) -> dict[str, float]:
    """Numbers behind the paper's claims about the 20 % loss runs."""
    out = {}
    for rate in RATES:
        spread = 0.0
        for iw in IWS:
            for a in ALGS:
                v = [float(np.mean(main.cell(rate, 0.2, iw, q, a))) for q in IFQS]
                spread = max(spread, (max(v) - min(v)) / max(v))
        iw_gap = max(
            abs(float(np.mean(main.cell(rate, 0.2, 2, q, a))) / off_on - 1)
            for q in IFQS
            for a in ALGS
            for off_on in [float(np.mean(main.cell(rate, 0.2, "rfc3390", q, a)))]
        )
        d = main.cell(rate, 0.2, 2, 50, "ass2") - main.cell(rate, 0.2, 2, 50, "limited")
        d3 = main.cell(rate, 0.2, 2, 50, "ass3") - main.cell(rate, 0.2, 2, 50, "limited")
        d23 = main.cell(rate, 0.2, 2, 50, "ass2") - main.cell(rate, 0.2, 2, 50, "ass3")
        same34 = all(
            np.array_equal(main.cell(rate, 0.2, iw, q, "ass3"), main.cell(rate, 0.2, iw, q, "ass4"))
            for iw in IWS
            for q in IFQS
        )
        r = "03" if rate == "0.3Mbps" else "10"
        out.update({
            f"spread_{r}": spread * 100, f"iwgap_{r}": float(iw_gap) * 100,
            f"d21_{r}": float(np.mean(d)), f"h21_{r}": half_width(d),
            f"d31_{r}": float(np.mean(d3)), f"h31_{r}": half_width(d3),
            f"d23_{r}": float(np.mean(d23)), f"h23_{r}": half_width(d23),
            f"same34_{r}": "identical, seed for seed," if same34 else "not identical",
        })  # fmt: skip
    return out


def lossless_numbers(main: Grid, startup: Grid) -> dict[str, float]:
    """Numbers behind the narrative about the lossless runs."""
    spread10 = max(
        (max(v) - min(v)) / max(v)
        for iw in IWS
        for q in IFQS
        for v in [[float(np.mean(main.cell("10Mbps", 0.0, iw, q, a))) for a in ALGS]]
    )
    same_big = all(
        len({float(np.mean(main.cell("0.3Mbps", 0.0, iw, q, a))) for a in ALGS}) == 1
        for iw in IWS
        for q in (100, 200)
    )

    def m(g: Grid, rate, ifq, alg, iw=2):
        return float(np.mean(g.cell(rate, 0.0, iw, ifq, alg)))

    return {
        "spread10": spread10 * 100,
        "spread03_big": max(
            (max(v) - min(v)) / max(v)
            for iw in IWS
            for q in (25, 50, 100, 200)
            for v in [[float(np.mean(main.cell("0.3Mbps", 0.0, iw, q, a))) for a in ALGS]]
        )
        * 100,
        "gain03": max(
            max(m(main, "0.3Mbps", q, a, iw) for a in ("ass2", "ass3", "ass4"))
            / m(main, "0.3Mbps", q, "limited", iw)
            - 1
            for q in (5, 15)
            for iw in IWS
        )
        * 100,
        "same_big": "exactly the same" if same_big else "nearly the same",
        "g03_5_lss": m(main, "0.3Mbps", 5, "limited"),
        "g03_5_ass": max(m(main, "0.3Mbps", 5, a) for a in ("ass2", "ass3", "ass4")),
        "g03_15_lss": m(main, "0.3Mbps", 15, "limited"),
        "g03_15_ass2": m(main, "0.3Mbps", 15, "ass2"),
        "s03_15_lss": m(startup, "0.3Mbps", 15, "limited"),
        "s03_15_ass2": m(startup, "0.3Mbps", 15, "ass2"),
        "s03_25_lss": m(startup, "0.3Mbps", 25, "limited"),
        "s03_25_ass2": m(startup, "0.3Mbps", 25, "ass2"),
        "s10_200_lss": m(startup, "10Mbps", 200, "limited"),
        "s10_200_ass2": m(startup, "10Mbps", 200, "ass2"),
        "s10_5_lss": m(startup, "10Mbps", 5, "limited"),
        "s10_5_ass3": m(startup, "10Mbps", 5, "ass3"),
        "ass2_behind": max(
            1 - m(main, r, q, "ass2", iw) / max(m(main, r, q, a, iw) for a in ALGS)
            for r in RATES
            for q in IFQS
            for iw in IWS
        )
        * 100,
    }


def timestamps_table(main: Grid, nots: Grid) -> str:
    lines = [
        "| bottleneck | larger IW | algorithm | timestamps (used) | without (ns2 profile as is) |",
        "|---|---|---|---:|---:|",
    ]
    for rate in RATES:
        for iw in IWS:
            for a in ALGS:
                v, w = main.cell(rate, 0.2, iw, 50, a), nots.cell(rate, 0.2, iw, 50, a)
                lines.append(
                    f"| {pretty_rate(rate)} | {IW_NAME[iw]} | {ALG_NO[a]} | "
                    f"{fmt(v, False)} | {fmt(w, False)} |"
                )
    return "\n".join(lines)


def lossless_changes(main: Grid, nots: Grid) -> str:
    """Lossless configurations whose 250 s ranking differs without timestamps."""
    rows = []
    for rate in RATES:
        for iw in IWS:
            for q in IFQS:
                a = show_rank(ccsim_rank(main, rate, 0.0, iw, q, {1, 2, 3, 4}))
                b = show_rank(ccsim_rank(nots, rate, 0.0, iw, q, {1, 2, 3, 4}))
                if a != b:
                    rows.append(f"| {pretty_rate(rate)} | {IW_NAME[iw]} | {q} | {a} | {b} |")
    if not rows:
        return "No lossless configuration changes its 250 s ranking."
    head = (
        "Lossless configurations whose 250 s ranking changes:\n\n"
        "| bottleneck | larger IW | IFQ | with timestamps | without |\n|---|---|---:|---|---|"
    )
    return head + "\n" + "\n".join(rows)


def iw1_table(iw1: Grid, main: Grid, startup: Grid) -> str:
    lines = [
        "| bottleneck | IFQ | 250 s, IW 2 | 250 s, IW 1 | first 5 s, IW 2 | first 5 s, IW 1 |",
        "|---|---:|---|---|---|---|",
    ]
    for rate in RATES:
        for q in IFQS:
            cells = []
            for dur, ref in (("250s", main), (STARTUP, startup)):
                two = ccsim_rank(ref, rate, 0.0, 2, q, {1, 2, 3, 4})
                one = rank({
                    ALG_NO[a]: iw1.get(**{"duration": dur, RATE: rate, LIMIT: q - 1, ALG: a})
                    for a in ALGS
                })  # fmt: skip
                cells += [show_rank(two), show_rank(one)]
            lines.append(f"| {pretty_rate(rate)} | {q} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def loss_queue(queues: pd.DataFrame) -> dict[str, float]:
    """Overflow and random drops per run at the bottleneck with 20 % loss and IFQ 5."""
    q = queues[(queues["link"] == "n1-n2") & (queues["from"] == "n1")]
    q = q[(q[LOSS] == 0.2) & (q[LIMIT] == 4)]
    return {
        "ovf5": float(q["drops_overflow"].mean()),
        "rnd5": float(q["drops_loss"].mean()),
    }


def iw1_pairs(iw1: Grid, startup: Grid) -> dict[str, str]:
    """same/tie/opposite pairs against the paper's lossless, IW-off claims, first 5 s."""
    tally = {1: [0, 0, 0], 2: [0, 0, 0]}
    for rate, loss, iw, ifq, text, _ in CLAIMS:
        if loss != 0.0 or iw != 2:
            continue
        paper = parse_rank(text)
        two = ccsim_rank(startup, rate, 0.0, 2, ifq, {1, 2, 3, 4})
        one = rank({
            ALG_NO[a]: iw1.get(**{"duration": STARTUP, RATE: rate, LIMIT: ifq - 1, ALG: a})
            for a in ALGS
        })  # fmt: skip
        for k, ours in ((2, two), (1, one)):
            for i, x in enumerate(pairs(paper, ours)):
                tally[k][i] += x
    return {f"iw{k}_pairs": "/".join(map(str, v)) for k, v in tally.items()}


def queue_check(queues: pd.DataFrame) -> str:
    other = queues[queues["link"] != "n1-n2"]
    return (
        f"{int(other['drops_overflow'].sum())} overflow drops and at most "
        f"{float(other['max_len_pkts'].max()):.0f} waiting packets"
    )


# --- figures ----------------------------------------------------------------------------------


def tag(rate: str, loss: float, iw) -> str:
    return f"{rate.replace('Mbps', 'M').replace('.', '')}-loss{round(loss * 100)}-iw{IW_NAME[iw]}"


def describe(rate: str, loss: float, iw) -> str:
    return (
        f"{pretty_rate(rate)} bottleneck, {loss:.0%} loss, larger initial window "
        f"{IW_NAME[iw]} (seed 1)"
    )


def figure_runs(rate: str, loss: float, iw) -> dict[tuple[int, str], ccsim.Result]:
    runs = {}
    for q in IFQS:
        for a in ALGS:
            runs[q, a] = ccsim.run(
                BASE,
                seed=1,
                overrides={
                    RATE: rate,
                    "topology.links[1].loss": {"kind": "bernoulli", "p": loss},
                    IW: iw,
                    LIMIT: q - 1,
                    ALG: a,
                    "flows[0].name": ALG_LABEL[a],  # the legend of plot_series
                    "trace.series": ["cwnd", "throughput"],
                    "trace.throughput_bin": THROUGHPUT_BIN,
                },
            )
    return runs


def draw(runs, series: str, title: str, path: Path, xmax: float | None = None) -> None:
    """Six panels (one per IFQ), the four algorithms overlaid in each."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 7), layout="constrained")
    axes = fig.subplots(2, 3, sharex=True)
    factor = 1e-6 if series == "throughput" else 1.0
    for ax, q in zip(axes.flat, IFQS):
        for a in ALGS:
            plot_series(runs[q, a], series, ax=ax, legend=False, color=ALG_COLOUR[a], lw=1.0)
        ax.set_title(f"IFQ {q}")
        if xmax is not None:  # a zoom: fit the y axis to what is visible
            ax.set_xlim(0, xmax)
            top = 0.0
            for a in ALGS:
                tr = runs[q, a].trace(series)
                v = tr["value"][tr["time_s"] <= xmax].to_numpy(dtype=float)
                v = v[np.isfinite(v)]
                top = max(top, float(v.max()) if len(v) else 0.0)
            ax.set_ylim(0, top * factor * 1.05 or 1.0)
    axes.flat[0].legend(fontsize="small", loc="best")
    fig.suptitle(title)
    fig.savefig(path, dpi=80)


def figure_list() -> list[tuple[str, str, Path]]:
    """(configuration, what, path) of every figure, in report order."""
    out = []
    for rate in RATES:
        for loss in LOSSES:
            for iw in IWS:
                t = tag(rate, loss, iw)
                out.append((describe(rate, loss, iw), "cwnd", FIGURES / f"ass-{t}-cwnd.png"))
                if loss == 0.0:
                    zoom = "3 s" if rate == "10Mbps" else "30 s"
                    path = FIGURES / f"ass-{t}-cwnd-startup.png"
                    out.append((describe(rate, loss, iw), f"cwnd, first {zoom}", path))
                out.append(
                    (describe(rate, loss, iw), "goodput", FIGURES / f"ass-{t}-throughput.png")
                )
    return out


def make_figures() -> None:
    FIGURES.mkdir(parents=True, exist_ok=True)
    for rate in RATES:
        for loss in LOSSES:
            for iw in IWS:
                runs = figure_runs(rate, loss, iw)
                what, t = describe(rate, loss, iw), tag(rate, loss, iw)
                draw(runs, "cwnd", f"cwnd: {what}", FIGURES / f"ass-{t}-cwnd.png")
                draw(
                    runs, "throughput", f"goodput ({THROUGHPUT_BIN} bins): {what}",
                    FIGURES / f"ass-{t}-throughput.png",
                )  # fmt: skip
                if loss == 0.0:
                    xmax = 3.0 if rate == "10Mbps" else 30.0
                    draw(
                        runs, "cwnd", f"cwnd, first {xmax:g} s: {what}",
                        FIGURES / f"ass-{t}-cwnd-startup.png", xmax=xmax,
                    )  # fmt: skip
        print(f"figures for {rate} drawn")


# --- report -----------------------------------------------------------------------------------


def write_report(sw: dict[str, dict]) -> None:
    main = Grid(sw["main"]["flows"], GRID)
    startup = Grid(sw["startup"]["flows"], GRID)
    nots = Grid(sw["nots"]["flows"], GRID)
    iw1 = Grid(sw["iw1"]["flows"], ["duration", RATE, LIMIT, ALG])
    ranking, score = ranking_table(main, startup)
    pts = sw["main"]["points"]
    n_seeds = len(set(pts["seed"]))

    sections = []
    for rate in RATES:
        for loss in LOSSES:
            sections.append(
                f"**{pretty_rate(rate)} bottleneck, {loss:.0%} loss** (goodput, kb/s)\n\n"
                + throughput_table(main, rate, loss)
            )
    startup_tables = "\n\n".join(
        f"**{pretty_rate(rate)} bottleneck, no loss, first {STARTUP[:-1]} s** (goodput, kb/s)\n\n"
        + throughput_table(startup, rate, 0.0)
        for rate in RATES
    )
    figures = []
    last = None
    for what, series, path in figure_list():
        if what != last:
            figures.append(f"### {what[:-9]}")
            last = what
        figures.append(f"![{series}: {what}](figures/{path.name})")

    def timing(k: str) -> str:
        t = sw[k]
        return (
            f"| `{t['output']}` | {len(t['points'])} | {t['computed']} | "
            f"{t['sim_wall_s']:.0f} s | {t['elapsed_s']:.0f} s |"
        )

    s250, s5 = score["250"], score["5"]
    qc = queue_check(sw["main"]["queues"])
    text = TEMPLATE.format(
        setup_table=setup_table(queue_check=qc, tput_bin=THROUGHPUT_BIN, n_seeds=n_seeds),
        version=ccsim.__version__,
        n_seeds=n_seeds,
        n_points=len(pts),
        tables="\n\n".join(sections),
        startup_tables=startup_tables,
        ranking=ranking,
        n_claims=len(CLAIMS),
        p250="/".join(map(str, s250["pairs"])),
        p5="/".join(map(str, s5["pairs"])),
        p5_same=s5["pairs"][0],
        p5_opp=s5["pairs"][2],
        b250="{yes}/{tie}/{no}".format(**s250["best"]),
        b5="{yes}/{tie}/{no}".format(**s5["best"]),
        n_pairs=sum(s250["pairs"]),
        ts_table=timestamps_table(main, nots),
        ts_lossless=lossless_changes(main, nots),
        iw1_table=iw1_table(iw1, main, startup),
        figures="\n\n".join(figures),
        tie=TIE * 100,
        timings="\n".join(timing(k) for k in ("main", "startup", "nots", "iw1")),
        rtt_max_nots=float(sw["nots"]["flows"]["rtt_max_s"].max()),
        **loss_claims(main),
        **loss_queue(sw["main"]["queues"]),
        **iw1_pairs(iw1, startup),
        **lossless_numbers(main, startup),
    )
    REPORT.write_text(text)


# The setup table of the report: (item, the paper, ccsim, why). Placeholders are filled in by
# write_report.
SETUP = [
    (
        "non-bottleneck links", "rate not given, 10 ms", "100 Mb/s, 10 ms",
        "must only exceed the bottleneck; then only the n1→n2 queue fills (checked: the other "
        "queues saw {queue_check} over the whole grid)",
    ),
    (
        '"IFQ"', "5 … 200 packets, DropTail", "DropTail `limit` = IFQ − 1 on every link",
        '"IFQ" on wired ns-2 links is the link queue\'s `limit_`; ccsim\'s `limit` counts '
        "waiting packets, ns-2's `limit_ N` holds N − 1 of them",
    ),
    (
        "receiver window", "not given (ns-2 `window_` 20)",
        "1000 packets (`rwnd` 10⁶ B), initial ssthresh 1000",
        "with `window_` 20 the window could never reach 25, 50, 75 or 100 and the four "
        "algorithms would differ only below 20; the paper's thresholds and its LSS at 100 only "
        "make sense with a large `window_`. ns-2's `reset()` makes the initial ssthresh "
        "`window_`",
    ),
    (
        "LSS", "max_ssthresh 100", "`slow_start = {{kind, max_ssthresh = 100}}`",
        "ns-2 sets ssthresh to min(`window_`, max_ssthresh) and applies LSS in its avoidance "
        "branch until the first loss; ccsim keeps slow-starting above 100 with RFC 3742's +1/K "
        "per ACK: the same growth",
    ),
    (
        "larger IW off", '"cwnd of 1" (section 2.1)', "2 segments (ns-2.35 `windowInit_` 2)",
        "the paper ran ns-2.35, whose default is 2; its text describes textbook slow start. "
        "ns-2's first round trip of one packet (`syn_`, `delay_growth_`) is not modelled. The "
        "[IW 1 check](#initial-window-1-instead-of-2) shows what 1 changes",
    ),
    (
        "larger IW on", "RFC 3390", '`initial_window = "rfc3390"`: 4 segments of 1000 B',
        "RFC 3390's min(4·MSS, max(2·MSS, 4380 B))",
    ),
    (
        "20 % loss", '"20 % traffic losses" between n1 and n2',
        "Bernoulli p = 0.2 on n1→n2 (data); ACKs are not lost",
        "an ns-2 `lossmodel` sits on one direction of a link; the paper does not say which, "
        "and only the data direction matters much",
    ),
    (
        "ASS", "increments per ACK; decrease factors in section 5",
        "per ACK, by the window before the ACK; on any loss (fast retransmit or timeout) with "
        "cwnd < 100, ssthresh = cwnd ÷ 4, 3 or 2 by the window at the loss (as "
        "`../shared/seeds/README.md` fixes it)",
        "the paper does not say whether the factors apply outside slow start; here they apply "
        "to every loss below 100",
    ),
    (
        "throughput", "plotted over time",
        "goodput: unique payload bytes delivered ÷ 250 s (tables); goodput per {tput_bin} bin "
        "(figures)",
        "payload with duplicates (`throughput_bps`) is at most 10 % higher, under 20 % loss",
    ),
    (
        "RTT sampling", "ns-2 (`timestamps_` false)", "`timestamps = true`, headers kept at 40 B",
        "a workaround for a ccsim problem, see [below](#rtt-samples-across-a-timeout)",
    ),
    (
        "runs", "one per configuration",
        "{n_seeds} seeds; the lossless runs are deterministic (every seed gives the same numbers)",
        "the seeds only matter for the random loss",
    ),
]  # fmt: skip


def setup_table(**values) -> str:
    lines = ["| item | paper | ccsim | why |", "| --- | --- | --- | --- |"]
    for row in SETUP:
        lines.append("| " + " | ".join(c.format(**values) for c in row) + " |")
    return "\n".join(lines)


TEMPLATE = """\
# Advanced Slow Start on a 4-node chain (seed paper 001)

Reproduction of I. Petrov and T. Janevski, *Novel Slow Start Algorithm* (2013)
(`../shared/seeds/001_861e5d63db9bc6f0.txt`) with ccsim {version}.

**Regenerate everything** (sweeps, figures, this file) from the repository root:

```sh
python docs/reproductions/ass.py            # --workers N for more processes
```

The sweeps are resumable (`results/ass-*/`, git-ignored): a rerun computes only the points not
on disk, then redraws the figures (about a minute) and rewrites this file. The grid alone is
`ccsim sweep scenarios/ass-sweep.toml --workers 1`.

## Summary

- **Over 250 s the slow-start rule hardly changes mean throughput.** Without loss the four
  algorithms are within {spread10:.2f} % of each other at 10 Mb/s, and within
  {spread03_big:.2f} % at 0.3 Mb/s with IFQ 25 or more. At 10 Mb/s, after the first second
  every loss happens at a window of 50 or more, where all four halve; at 0.3 Mb/s a queue of
  25 or more keeps the 3-packet pipe full whatever the cut.
- **ASS helps only where the window stays small:** at 0.3 Mb/s with IFQ 5 and 15 (up to
  {gain03:.1f} % more than classic slow start), and under 20 % random loss (ASS2 is
  {d21_03:+.1f} and {d21_10:+.1f} kb/s ahead of LSS at 0.3 and 10 Mb/s; the 95 % intervals of
  the per-seed differences exclude zero). ASS2, 3 and 4 cannot be told apart there.
- **The paper's claims about the 20 % loss runs hold:** the IFQ and the initial window do not
  matter, algorithms 3 and 4 coincide, and at 10 Mb/s classic slow start is the slowest.
  **Its rankings for the lossless runs do not hold.** Over 250 s ccsim finds ties where the
  paper ranks. Over the first 5 s ccsim does rank the algorithms, but of the pairs the paper
  orders, ccsim orders {p5_same} the same way and {p5_opp} the other way.
- **A ccsim problem:** without TCP timestamps, ccsim takes RTT samples that span a timeout.
  Under heavy loss that inflates the RTO to 60 s and cuts goodput five- to eightfold. The grid
  uses `timestamps = true` as a workaround ([details](#rtt-samples-across-a-timeout)).

## What the paper did

One TCP SACK flow crosses a chain n0-n1-n2-n3 whose n1-n2 link is the bottleneck: 0.3 Mb/s in
the first scenario, 10 Mb/s in the second. Every link has a 10 ms delay, queues are DropTail
with an "IFQ" of 5, 15, 25, 50, 100 or 200 packets, Limited Slow-Start (RFC 3742) runs with
max_ssthresh 100, the larger initial window (RFC 3390) is off or on, and optionally 20 % of the
packets are lost at random on n1-n2; ns-2.35, 250 s. Four slow-start rules are compared:
algorithm 1, classic slow start (with LSS above 100), and the paper's Advanced Slow Start
algorithms 2-4, which add more than one segment per ACK while the window is small and divide it
by more than 2 on a loss there:

| algorithm | ccsim `slow_start` | +3 per ACK, loss ÷4 | +2, ÷3 | +1, ÷2 | +0.5, ÷2 | ≥ 100 |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | `limited` | | | < 100 | | LSS, ÷2 |
| 2 (ASS) | `ass2` | < 25 | [25, 50) | [50, 75) | [75, 100) | LSS, ÷2 |
| 3 | `ass3` | | < 25 | [25, 100) | | LSS, ÷2 |
| 4 | `ass4` | | < 50 | [50, 100) | | LSS, ÷2 |

The paper reports only cwnd and throughput *figures* (Figures 4-99), which are not in the text
copy; its results are the rankings it states in the text. There is no table of numbers to
compare with, so this report gives ccsim's numbers and sets the paper's stated rankings beside
ccsim's.

## Setup, and where the paper is ambiguous

Scenario files: [`scenarios/ass-chain.toml`](../../scenarios/ass-chain.toml) (one
configuration) and [`scenarios/ass-sweep.toml`](../../scenarios/ass-sweep.toml) (the grid:
2 rates × 2 loss rates × 2 initial windows × 6 IFQs × 4 algorithms = 192 configurations,
{n_seeds} seeds each, {n_points} runs of 250 s). The `ns2` defaults profile supplies what the
paper leaves to ns-2.35: 1000-byte segments with 40 bytes of headers, no delayed ACKs (the
plain `TCPSink/Sack1`), ns-2's ACK counting (one increment per ACK), a 200 ms minimum RTO,
initial RTO 3 s, Limited Transmit.

{setup_table}

## Mean throughput per configuration

Mean goodput over 250 s in kb/s (the most a 0.3 Mb/s link can carry is 288.5 kb/s of payload,
a 10 Mb/s link 9615 kb/s); ± is the 95 % interval over the {n_seeds} seeds, left out where the
seeds agree. Bold: the best of the four algorithms, per initial window.

{tables}

The slow-start rule hardly matters over 250 s. At 10 Mb/s without loss the four algorithms are
within {spread10:.2f} % of each other in every configuration: slow start ends within the first
second, and from then on the window at every loss is 50 segments or more (the path holds about
73 packets plus the queue), where all four halve, so their congestion avoidance is identical.
At 0.3 Mb/s the path holds about 3 packets (89 ms × 0.3 Mb/s), so the window is set by the
queue: with IFQ 100 and 200 the first overshoot passes 100, all four run LSS and then halve
from above 50, and the results are {same_big}. Differences remain only where the window stays
small: at 0.3 Mb/s with IFQ 5 (LSS {g03_5_lss:.1f}, the best ASS {g03_5_ass:.1f} kb/s) and
IFQ 15 (LSS {g03_15_lss:.1f}, ASS2 {g03_15_ass2:.1f} kb/s), where the window keeps collapsing
(about 150-180 timeouts in 250 s at IFQ 5, 40-45 at IFQ 15) and ASS's +2 or +3 per ACK refills
the small pipe after each collapse sooner than classic slow start, which outweighs its ÷3 or
÷4; and under 20 % loss, where the window never leaves the ASS ranges (below).

### Start-up phase

The paper's statements are mostly about the start-up phase of its figures. Goodput over the
first 5 s (the same runs stopped at 5 s; lossless, so one number each):

{startup_tables}

Here the algorithms do differ, by up to a third, in both directions: ASS2's steep start
(+3 per ACK) overshoots a small queue by more and then divides by 3 or 4, which at 0.3 Mb/s
with IFQ 15 and 25 ends in timeouts (first 5 s: LSS {s03_15_lss:.1f} vs ASS2 {s03_15_ass2:.1f} kb/s
at IFQ 15, {s03_25_lss:.1f} vs {s03_25_ass2:.1f} at IFQ 25), while at 10 Mb/s with large queues
the faster ramp pays (IFQ 200: LSS {s10_200_lss:.0f}, ASS2 {s10_200_ass2:.0f} kb/s) and with
IFQ 5 it does not (LSS {s10_5_lss:.0f}, ASS3 {s10_5_ass3:.0f} kb/s).

## The paper's rankings against ccsim's

For each case the paper describes, its ranking (as we read the text; "=" where it says the
curves overlap) next to ccsim's ranking by mean goodput over 250 s and over the first 5 s.
ccsim ranks two algorithms equal when their means differ by less than {tie:.1f} % or, with
random loss, when the 95 % interval of their per-seed difference contains zero (all
algorithms see the same seeds, so the comparison is paired). *same/tie/opp.* counts, among the
pairs the paper orders strictly, those ccsim orders the same way, ties, or orders the other
way; *best* says whether ccsim's best group is the paper's (yes), overlaps it (tie) or not (no).
Where the paper pools all IFQ values (20 % loss), ccsim's ranking is at IFQ 50; the other
IFQ values give the same numbers (next section).

{ranking}

**Totals** over the {n_claims} cases: of the {n_pairs} pairs the paper orders, ccsim orders
{p250} (same/tie/opposite) by the 250 s mean and {p5} by the first 5 s; ccsim's best group
is the paper's / overlaps it / differs in {b250} cases (250 s) and {b5} (5 s).

What ccsim confirms:

- **With 20 % loss the IFQ does not matter** (paper, sections 4.1, 4.2 and 5): each
  algorithm's mean varies by at most {spread_03:.2f} % (0.3 Mb/s) and {spread_10:.2f} %
  (10 Mb/s) across the six IFQ values: at 20 % loss the window stays so small that even the
  5-packet queue hardly ever overflows ({ovf5:.1f} overflow drops per run, against
  {rnd5:.0f} random losses).
  **Nor does the larger initial window** (at most {iwgap_03:.1f} % and {iwgap_10:.1f} %).
- **With 20 % loss algorithms 3 and 4 overlap**: they are {same34_03} at 0.3 Mb/s and
  {same34_10} at 10 Mb/s, because the window never reaches 25, below which both add 2 per ACK
  and divide by 3.
- **With 20 % loss the ASS algorithms beat classic slow start** (paper, 10 Mb/s: "poorest
  throughput ... algorithm 1"): per-seed differences at IFQ 50, IW off: ASS2 − LSS
  {d21_10:+.1f} ± {h21_10:.1f} kb/s and ASS3 − LSS {d31_10:+.1f} ± {h31_10:.1f} kb/s at 10 Mb/s;
  {d21_03:+.1f} ± {h21_03:.1f} and {d31_03:+.1f} ± {h31_03:.1f} kb/s at 0.3 Mb/s. The paper's
  ordering between 2 and 3 = 4 (2 first at 10 Mb/s, 3 = 4 first at 0.3 Mb/s) is not resolved:
  ASS2 − ASS3 = {d23_10:+.1f} ± {h23_10:.1f} kb/s (10 Mb/s), {d23_03:+.1f} ± {h23_03:.1f} kb/s
  (0.3 Mb/s).

What ccsim does not confirm:

- **The lossless rankings.** Over 250 s ccsim finds no difference worth the name at 10 Mb/s
  and at 0.3 Mb/s with IFQ ≥ 25, where the paper ranks all four algorithms, often with ASS2
  first. The paper's rankings there must come from the start-up part of its figures, or from
  differences a figure shows but a mean does not. Over the first 5 s ccsim does rank them, but
  its order agrees with the paper's about as often as it contradicts it (the totals above):
  ASS2 first at 10 Mb/s with IFQ 100 and 200 (IW off) and the order 4 > 3 at 10 Mb/s, IFQ 25
  (IW on) agree; at 0.3 Mb/s, IFQ 15 and 25, ASS2 is the *worst* start in ccsim (its overshoot
  ends in a timeout) where the paper ranks it first.
- **The conclusion that ASS2 is the best overall.** In ccsim it is never more than
  {ass2_behind:.2f} % behind the best over 250 s, ahead only at 0.3 Mb/s with the smallest
  queues and under random loss (tied there with 3 and 4), and its start-up is clearly the best
  of the four mainly at 10 Mb/s with IFQ 50 and more.
- **At 0.3 Mb/s the comparison is nearly empty by construction.** The bandwidth-delay product
  is about 3 packets, so every rule fills the link within two round trips; what a slow-start
  rule changes is only how far it overshoots the queue and how hard it then cuts.

## RTT samples across a timeout

The ns2 profile as it is (no timestamps) takes an RTT sample on every new ACK from the newest
segment the ACK covers, skipping it only if *that* segment was retransmitted
(`crates/ccsim/src/tcp/sender.rs`, `on_new_ack`). After a timeout, the ACK for the retransmitted
hole also covers segments sent before the timeout that had arrived, so the sample is the whole
RTO wait plus the RTT (after the first timeout of a run: 0.26 s for a 61 ms path); the ACK that
ends a SACK recovery likewise gives about two RTTs. Timeout samples inflate SRTT and RTTVAR, the
next RTO is longer, the next such sample longer still: under 20 % loss the samples reach tens of
seconds (the largest in that grid is {rtt_max_nots:.0f} s, above the 60 s maximum RTO), the RTO
sits at 60 s for long stretches, and the flow idles most of the run. ns-2 never takes these
samples: it times one segment per round trip and `reset_rtx_timer()` cancels the measurement
(`rtt_active_ = 0`) at every timeout and fast retransmit; Linux discards the sample of an ACK
that covers any retransmitted segment (`FLAG_RETRANS_DATA_ACKED`). With `timestamps = true`
ccsim's samples are correct (the echoed timestamp is the retransmission's), so the grid uses it;
the headers stay at ns-2's 40 bytes. Mean goodput with 20 % loss at IFQ 50, with and without the
workaround (`results/ass-sweep-no-timestamps`):

{ts_table}

Without the workaround the 20 % loss runs deliver five to eight times less and their
ranking is noise. {ts_lossless}

## Initial window 1 instead of 2

The paper's section 2.1 starts slow start at one segment; ns-2.35's default is 2. The lossless
grid with `initial_window = 1` (`results/ass-iw1`), ranked as above:

{iw1_table}

Over 250 s nothing changes; in the first 5 s the order moves in a few cases (the first loss
comes one round trip later). Against the paper's lossless rankings without the larger initial
window, the first-5 s order agrees / ties / disagrees on {iw2_pairs} pairs with an initial window
of 2 and {iw1_pairs} with 1.

## Figures

One run per configuration (seed 1), the four algorithms overlaid, one panel per IFQ, drawn
with `ccsim.plot.plot_series`. The lossless cwnd figures are repeated zoomed to the start-up
(3 s at 10 Mb/s, 30 s at 0.3 Mb/s).

{figures}

## Runtime

One worker process on a 2-core machine shared with other simulations.

| sweep | points | computed this time | simulation time (sum) | elapsed |
| --- | ---: | ---: | ---: | ---: |
{timings}

A full run from nothing took about 6.5 minutes on this machine: 2.5 minutes for the main grid
(1920 runs of 250 s; the lossless 10 Mb/s runs take 0.25 s each, all others well under 0.02 s),
the same for the comparison grid, half a minute for the rest, and about a minute of figure runs.
"""


# --- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    ap.add_argument("--force", action="store_true", help="rerun points already on disk")
    ap.add_argument("--no-figures", action="store_true", help="keep the figures already drawn")
    args = ap.parse_args(argv)
    sw = run_all(args.workers, args.force)
    if not args.no_figures:
        make_figures()
    write_report(sw)
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
