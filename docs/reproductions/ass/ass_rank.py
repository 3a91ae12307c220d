"""Ranking rules of the paper 001 reproduction (``run.py``): per-seed goodput of a grid, the
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


def compare(x: np.ndarray, y: np.ndarray) -> int:
    """+1 if ``x`` is ahead of ``y``, -1 if behind, 0 if neither: ahead means the mean of the
    per-seed differences (common seeds, so paired) exceeds both TIE of the larger mean and the
    half-width of its 95 % Student-t interval (the interval excludes zero)."""
    d = x - y
    m = float(np.mean(d))
    top = max(float(np.mean(x)), float(np.mean(y)))
    if abs(m) <= max(TIE * top, half_width(d)):
        return 0
    return 1 if m > 0 else -1


def relation(samples: dict[int, np.ndarray]) -> dict[tuple[int, int], int]:
    """Every ordered pair of algorithms, each tested on its own (``compare``)."""
    return {(a, b): compare(samples[a], samples[b]) for a in samples for b in samples if a != b}


def rank(samples: dict[int, np.ndarray]) -> list[list[int]]:
    """Algorithms grouped best first by mean, conservatively: a ">" between two groups only
    where every algorithm above is ahead of every one below in its own pairwise test; so a
    shown ">" is never a chain of ties (2 > 3 = 1 with 2 and 1 indistinguishable is shown
    as one group)."""
    order = sorted(samples, key=lambda a: -float(np.mean(samples[a])))
    rel = relation(samples)
    groups: list[list[int]] = [[order[0]]] if order else []
    for i in range(1, len(order)):
        above, below = order[:i], order[i:]
        if all(rel[a, b] == 1 for a in above for b in below):
            groups.append([order[i]])
        else:
            groups[-1].append(order[i])
    return groups


def best(samples: dict[int, np.ndarray]) -> set[int]:
    """The algorithms no other is ahead of."""
    rel = relation(samples)
    return {a for a in samples if not any(rel[b, a] == 1 for b in samples if b != a)}


def parse_rank(text: str) -> list[list[int]]:
    return [[int(x) for x in g.split("=")] for g in text.replace(" ", "").split(">")]


def show_rank(groups: list[list[int]]) -> str:
    return " > ".join(" = ".join(str(a) for a in sorted(g)) for g in groups)


def pairs(paper: list[list[int]], rel: dict[tuple[int, int], int]) -> tuple[int, int, int]:
    """Of the pairs the paper orders strictly: how many ccsim's pairwise tests (``relation``)
    order the same way, leave tied, or order the other way."""
    same = tie = opposite = 0
    for i, g in enumerate(paper):
        for a in g:
            for h in paper[i + 1 :]:
                for b in h:
                    if (a, b) not in rel:
                        continue
                    c = rel[a, b]
                    same += c == 1
                    tie += c == 0
                    opposite += c == -1
    return same, tie, opposite


def best_match(paper: list[list[int]], ours: set[int]) -> str:
    """'yes' when ccsim's best set (``best``) is the paper's best group, 'tie' when they
    overlap, 'no' else."""
    p = set(paper[0])
    return "yes" if p == ours else "tie" if p & ours else "no"


def cell_samples(grid: Grid, rate, loss, iw, ifq, keep: set[int]) -> dict[int, np.ndarray]:
    return {ALG_NO[a]: grid.cell(rate, loss, iw, ifq, a) for a in ALGS if ALG_NO[a] in keep}


def ccsim_rank(grid: Grid, rate, loss, iw, ifq, keep: set[int]) -> list[list[int]]:
    return rank(cell_samples(grid, rate, loss, iw, ifq, keep))


def ccsim_relation(grid: Grid, rate, loss, iw, ifq, keep: set[int]) -> dict:
    return relation(cell_samples(grid, rate, loss, iw, ifq, keep))


def ccsim_best(grid: Grid, rate, loss, iw, ifq, keep: set[int]) -> set[int]:
    return best(cell_samples(grid, rate, loss, iw, ifq, keep))


def per_seed_pairs(grid: Grid, cases: list[tuple], keep_all: bool = False) -> np.ndarray:
    """same/tie/opposite totals over ``cases`` ((rate, loss, iw, ifq, paper text) each),
    computed seed by seed (one value per algorithm, so only TIE separates a tie): one row per
    seed. Their spread is the error bar of a split that one trajectory per case would give."""
    n = len(next(iter(grid.samples.values())))
    out = np.zeros((n, 3))
    for rate, loss, iw, ifq, text in cases:
        paper = parse_rank(text)
        keep = {1, 2, 3, 4} if keep_all else {a for g in paper for a in g}
        full = cell_samples(grid, rate, loss, iw, ifq, keep)
        for s in range(n):
            one = {a: v[s : s + 1] for a, v in full.items()}
            out[s] += pairs(paper, relation(one))
    return out
