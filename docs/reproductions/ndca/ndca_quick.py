"""The quick mode of the paper 003 reproduction (``run.py --quick``, under a minute on one
core): a small piece of each study, whose headline numbers ``tests/repro_quick/ndca.json``
keeps and ``tests/test_repro_ndca.py`` compares with tolerances.

- Fig. 5/6: the grid's first 20 s at loss 1e-4 and 1e-5, both algorithms, seeds 1-3: mean
  goodput, and NDCA-TCP's overflow drops (none: its estimate ends slow start below the BDP).
- Interval D: the hold runs with the CBR burst (``scenarios/ndca-hold.toml``), hold off and
  α = 1.2, under both profiles, seeds 1-3: the four flows' goodput, the average queue, Jain's
  index, the share of time held, the longest hold, and the flows held from the burst's end
  to the run's end."""

from __future__ import annotations

from pathlib import Path

import ccsim
import numpy as np
from ndca_hold import HOLD_BASE, HOLD_CC, PROFILE, per_point
from ndca_setup import BASE, CC, GRID, LOSS, RESULTS
from repro_grid import run_grid

QUICK_SEEDS = [1, 2, 3]
QUICK_LOSSES = [1e-4, 1e-5]
QUICK_S = 20.0
QUICK_ALPHA = 1.2
HOLD_METRICS = ["goodput", "avg_queue", "jain", "held_share", "longest_s", "stuck"]


def quick_sweeps() -> dict[str, ccsim.Sweep]:
    grid = ccsim.load_sweep(GRID)
    fig6 = ccsim.Sweep(
        BASE,
        {LOSS: QUICK_LOSSES},
        zipped=[dict(g) for g in grid.groups if CC in dict(g)],
        seeds=QUICK_SEEDS,
        overrides={"trace.series": [], "duration": f"{QUICK_S:g}s"},
        name="ndca-quick-fig6",
    )
    cc = ccsim.validate(HOLD_BASE)["flows"][0]["tcp"]["cc"]
    hold = ccsim.Sweep(
        HOLD_BASE,
        zipped=[
            {HOLD_CC: [{**cc, "alpha": QUICK_ALPHA, "hold": h} for h in (False, True)]},
            {PROFILE: ["ns2", "linux"], "flows[kind=tcp].tcp.recovery": ["reno", "sack"]},
        ],
        seeds=QUICK_SEEDS,
        overrides={"trace.series": ["cwnd", "cwnd_hold"], "trace.interval": "20ms"},
        name="ndca-quick-hold",
    )
    return {"fig6": fig6, "hold": hold}


def quick(workers: int = 1, force: bool = False, out: Path = RESULTS / "ndca-quick") -> dict:
    """Runs (or resumes) the quick sweeps into ``out``; returns the headline numbers."""
    sw = quick_sweeps()
    f6 = run_grid(sw["fig6"], out, workers, force)
    fl = f6["flows"]
    q = f6["queues"]
    b = q[(q["link"] == "n2-n3") & (q["from"] == "n2")]
    fig6 = {}
    for loss in QUICK_LOSSES:
        at = fl[np.isclose(fl[LOSS], loss)]
        for alg in ("ndca", "highspeed"):
            g = at[at["flow"] == alg]
            fig6[f"{loss:g} {alg} goodput_mbps"] = round(float(g["goodput_bps"].mean()) / 1e6, 2)
    nd_points = fl[fl["flow"] == "ndca"]["point"]
    ndca_overflow = float(b[b["point"].isin(nd_points)]["drops_overflow"].sum())

    h = run_grid(sw["hold"], out, workers, force)
    h["series"] = ccsim.sweep(sw["hold"], output=out, table="series", progress=False)
    pp = per_point(h)
    hold = {}
    for (prof, setting), g in pp.groupby(["profile", "setting"]):
        for m in HOLD_METRICS:
            hold[f"{prof} {setting} {m}"] = round(float(g[m].mean()), 3)
    return {
        "seeds": len(QUICK_SEEDS),
        "fig6_first_20s": fig6,
        "ndca_overflow_first_20s": ndca_overflow,
        "hold": hold,
    }
