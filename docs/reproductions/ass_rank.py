"""Ranking rules of the paper 001 reproduction (``ass.py``): per-seed goodput of a grid, the
95 % intervals, and the ranking of the four algorithms against the paper's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from ass_setup import ALG, ALG_NO, ALGS, IW, LIMIT, LOSS, RATE, TIE
from ccsim.stats import t_ppf


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
