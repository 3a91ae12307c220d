"""Reproduction of seed paper 003: Park et al., "Design of Network Dependent Congestion
Avoidance TCP (NDCA-TCP) for Performance Improvement in Broadband Networks": NDCA-TCP against
HighSpeed TCP on the 2.5 Gb/s / 2.5 Gb/s / 1 Gb/s chain, and NDCA-TCP's hold (interval D).

    python docs/reproductions/ndca/run.py                 # all: sweeps, runs, figures, report
    python docs/reproductions/ndca/run.py --workers 2     # more processes
    python docs/reproductions/ndca/run.py --full-seeds 3  # Fig. 6 at 30 min with seeds 1-3 only
    python docs/reproductions/ndca/run.py --quick         # < 1 min; --headline FILE keeps it

Runs, with ccsim's sweep facility (one file per finished point, so a rerun or an interrupted
run computes only what is missing):

- ``results/ndca-full``: Fig. 6 as the paper ran it, the grid ``scenarios/ndca-sweep.toml`` at
  30 simulated minutes, seeds 1 ... 10, one seed after the other, each seed's points over the
  ``--workers`` processes (``--full-seeds`` stops earlier; the report says how many seeds it
  has);
- ``results/ndca``: the same grid at 120 s (10 seeds) and the sensitivity grid
  ``scenarios/ndca-sensitivity-sweep.toml`` (buffer x loss recovery, 5 seeds), which share
  points;
- ``results/ndca-startup``: the 120 s grid cut at 20 s, for the start-up and what comes after;
- ``results/ndca-hold``: interval D's hold off and on at several α, where it acts
  (``scenarios/ndca-hold-sweep.toml``, see ``ndca_hold.py``).

Runs that need time series (Fig. 5, the per-loss cwnd figure, the hold figure and the 40
two-flow runs of ``scenarios/ndca-fairness-sweep.toml`` behind Fig. 7) are run with their
traces and saved under ``results/ndca-runs/``, ``results/ndca-hold-runs/`` and
``results/ndca-fairness/``, one directory per scenario (named by the same hash the sweeps use),
so they resume too. Figures go to ``docs/reproductions/figures/ndca-*.png`` and the report
``docs/reproductions/ndca.md`` is rewritten. Every number in it comes from these runs.
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import ccsim
import numpy as np
import pandas as pd
from ccsim._native import core_id
from ccsim.sweep_spec import resolve
from ccsim.sweep_store import canonical_json, point_key

# The setup and the report live next to this script (run as a script, or loaded by the tests).
# This paper's modules beside it, and the helpers the five share (repro_grid,
# repro_provenance) one folder up.
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from ndca_figures import (  # noqa: E402
    cwnd_by_loss,
    fairness_throughput,
    fig5,
    fig6,
    fig7,
    sensitivity_figure,
)
from ndca_hold import HOLD_RUNS_OUT, hold_figure, run_hold  # noqa: E402
from ndca_hold import figure_scenarios as hold_figure_scenarios  # noqa: E402
from ndca_quick import quick  # noqa: E402
from ndca_report import write_report  # noqa: E402
from ndca_setup import (  # noqa: E402
    ALGS,
    BASE,
    BASE_RTT_S,
    BDP_PKTS,
    CC,
    DOCS,
    DURATION_S,
    FAIR_CC,
    FAIR_GRID,
    FAIR_OUT,
    FIG5_LOSS,
    FIG5_S,
    FIGURES,
    FULL_OUT,
    FULL_SEEDS,
    GRID,
    GRID_OUT,
    JAIN_LEVEL,
    JAIN_WINDOW_S,
    LIMIT,
    LINK_BPS,
    LOSS,
    LOSSES,
    MAIN_BUFFER,
    MAX_GOODPUT_BPS,
    PAPER_DURATION_S,
    RECOVERY,
    REPORT,
    RESULTS,
    ROOT,
    SENSITIVITY,
    START2,
    STARTUP_S,
    WIRE,
    alg_of,
)
from repro_grid import headline, keep_timing, parse, parser, run_grid, shown  # noqa: E402

RUNS_OUT = RESULTS / "ndca-runs"  # the single runs behind the time-series figures

# --- sweeps -----------------------------------------------------------------------------------


def startup_sweep() -> ccsim.Sweep:
    """The grid of ndca-sweep.toml cut at STARTUP_S (the first seconds of the same runs)."""
    sw = ccsim.load_sweep(GRID)
    sw.overrides = {**sw.overrides, "duration": f"{STARTUP_S:g}s"}
    sw.name = "ndca-startup"
    return sw


def full_sweep(seed: int) -> ccsim.Sweep:
    """Fig. 6 as the paper ran it: the grid of ndca-sweep.toml at PAPER_DURATION_S (30
    simulated minutes), one seed (each seed is its own sweep, so seeds finish whole)."""
    grid = ccsim.load_sweep(GRID)
    return ccsim.Sweep(
        BASE,
        {LOSS: LOSSES},
        zipped=[dict(g) for g in grid.groups if CC in dict(g)],
        seeds=[seed],
        overrides={"trace.series": [], "duration": f"{PAPER_DURATION_S:g}s"},
        name=f"ndca-full-seed{seed}",
    )


def run_full(seeds: int, workers: int, force: bool) -> dict:
    """The 30-minute grid, seeds 1 ... ``seeds`` in order, each seed's 8 points over
    ``workers`` processes (a seed finishes before the next starts, so an interrupted run
    keeps whole seeds). Returns the flows and queues of all of them and one timing row for
    the lot."""
    parts = [run_grid(full_sweep(s), FULL_OUT, workers, force) for s in range(1, seeds + 1)]
    timing = {
        "name": f"ndca-full (seeds 1-{seeds})",
        "output": parts[0]["timing"]["output"],
        **{
            k: sum(p["timing"][k] for p in parts)
            for k in ("points", "own", "computed", "elapsed_s", "sim_wall_s", "sim_s")
        },
        "workers": workers,
    }
    fulls = [p["timing"]["full"] for p in parts]
    timing["full"] = (
        None
        if any(f is None for f in fulls)
        else {"elapsed_s": sum(f["elapsed_s"] for f in fulls), "workers": workers}
    )
    return {
        "flows": pd.concat([p["flows"] for p in parts], ignore_index=True),
        "queues": pd.concat([p["queues"] for p in parts], ignore_index=True),
        "points": pd.concat([p["points"] for p in parts], ignore_index=True),
        "timing": timing,
    }


def run_sweeps(workers: int, force: bool, full_seeds: int) -> dict[str, dict]:
    out = {"main": run_grid(GRID, GRID_OUT, workers, force)}
    out["startup"] = run_grid(startup_sweep(), RESULTS / "ndca-startup", workers, force)
    main_keys = frozenset(out["main"]["points"]["key"])
    out["sensitivity"] = run_grid(SENSITIVITY, GRID_OUT, workers, force, shared=main_keys)
    if full_seeds > 0:
        out["full"] = run_full(full_seeds, workers, force)
    return out


# --- single runs with time series, saved and resumed ------------------------------------------


def _run_and_save(text: str, directory: str) -> float:
    """Runs one scenario (JSON text) and saves it with its traces; returns the wall time.
    Written under a temporary name and renamed, so a killed run leaves no half directory."""
    t0 = time.perf_counter()
    result = ccsim.run(json.loads(text))
    target = Path(directory)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    result.save(tmp, figures=False)
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    return time.perf_counter() - t0


def saved_runs(scenarios: list[dict], out: Path, workers: int, force: bool) -> dict:
    """Runs the scenarios not yet saved under ``out`` (``workers`` processes); returns their
    results in order and the timings."""
    out.mkdir(parents=True, exist_ok=True)
    # Keyed like sweep points: a core rebuilt from changed source runs them again.
    dirs = [out / point_key(canonical_json(s), core_id())[:16] for s in scenarios]
    todo = [(canonical_json(s), str(d)) for s, d in zip(scenarios, dirs)]
    todo = [t for t, d in zip(todo, dirs) if force or not (d / "flows.parquet").is_file()]
    t0 = time.perf_counter()
    walls: list[float] = []
    if todo and workers > 1:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            walls = list(pool.map(_run_and_save, *zip(*todo)))
    else:
        walls = [_run_and_save(text, d) for text, d in todo]
    elapsed = time.perf_counter() - t0
    results = [ccsim.Result.load(d) for d in dirs]
    timing = {
        "output": shown(out),
        "points": len(scenarios),
        "computed": len(todo),
        "elapsed_s": elapsed,
        "workers": workers,
        "sim_wall_s": float(sum(r.meta.get("wall_s", 0.0) for r in results)),
        "sim_s": float(sum(r.meta.get("duration_s", 0.0) for r in results)),
    }
    timing = keep_timing(timing, out / "timing.json", len(todo) == len(scenarios))
    print(f"{out.name}: {len(scenarios)} runs, {len(todo)} computed, {elapsed:.1f} s")
    return {"results": results, "timing": timing, "walls": walls}


def figure_scenarios() -> list[dict]:
    """Seed 1 of the grid at every loss rate, for both algorithms, with their traces (the
    1e-5 runs also give Fig. 5, which shows their first 50 s)."""
    sw = ccsim.load_sweep(GRID)
    base = ccsim.load_sweep(GRID).base_scenario({"trace.series": []})
    base["trace"] = ccsim.validate(BASE)["trace"]  # the base file's series
    return [resolve(base, p) for p in sw.points(base) if p.replication == 0]


def fairness_scenarios() -> tuple[list[dict], list]:
    sw = ccsim.load_sweep(FAIR_GRID)
    base = sw.base_scenario()
    points = sw.points(base)
    return [resolve(base, p) for p in points], points


# --- Jain's index over time -------------------------------------------------------------------


def jain_runs(results: list[ccsim.Result], points: list) -> pd.DataFrame:
    """One row per fairness run and time bin (while both flows run): the index of the 1 s
    throughputs (``jain``) and of their trailing JAIN_WINDOW_S means (``jain_w``), with the
    time since the second flow started."""
    rows = []
    for r, p in zip(results, points):
        start2 = float(str(p.axes[START2]).rstrip("s"))
        per_bin = ccsim.jain_over_time(r)
        t = per_bin.index.to_numpy(dtype=float)
        keep = t > start2 + 1e-9  # bins that end after the second flow began
        windowed = windowed_jain(r, start2).reindex(t[keep])
        rows.append(
            pd.DataFrame(
                {
                    "alg": alg_of(p.axes[FAIR_CC]),
                    "start2": p.axes[START2],
                    "seed": p.seed,
                    "time_s": t[keep],
                    "since_s": t[keep] - start2,
                    "jain": per_bin.to_numpy()[keep],
                    "jain_w": windowed.to_numpy(),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def windowed_jain(r: ccsim.Result, start2: float) -> pd.Series:
    """Jain's index of the flows' mean goodput over a trailing JAIN_WINDOW_S, counting only
    the bins after the second flow's start (so its absence before does not read as
    unfairness after)."""
    tp = r.trace("throughput")
    tp = tp[tp["time_s"] > start2 + 1e-9]
    wide = tp.pivot_table(index="time_s", columns="flow", values="value", observed=True)
    wide = wide.sort_index().fillna(0.0)
    step = float(np.min(np.diff(wide.index.to_numpy()))) if len(wide) > 1 else 1.0
    mean = wide.rolling(max(1, round(JAIN_WINDOW_S / step)), min_periods=1).mean().to_numpy()
    s1, s2 = mean.sum(axis=1), (mean * mean).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        jain = np.where(s2 > 0, s1 * s1 / (mean.shape[1] * s2), np.nan)
    return pd.Series(jain, index=wide.index)


def fairness_summary(jr: pd.DataFrame, results: list, points: list) -> pd.DataFrame:
    """Per run: the first second (after the second flow's start) in which the 1 s index
    reaches JAIN_LEVEL, the mean index over the first 20 s and over the whole shared period,
    the index of the two flows' mean throughputs over the shared period, and the
    bottleneck's overflow drops and largest queue."""
    rows = []
    for r, p in zip(results, points):
        alg, start2 = alg_of(p.axes[FAIR_CC]), p.axes[START2]
        g = jr[(jr["alg"] == alg) & (jr["start2"] == start2) & (jr["seed"] == p.seed)]
        hit = g[g["jain"] >= JAIN_LEVEL]
        s = float(str(start2).rstrip("s"))
        tp = r.trace("throughput")
        shared = tp[tp["time_s"] > s + 1e-9].groupby("flow", observed=True)["value"].mean()
        q = r.queues
        b = q[(q["link"] == "n2-n3") & (q["from"] == "n2")] if len(q) else q
        rows.append(
            {
                "alg": alg,
                "start2": start2,
                "seed": p.seed,
                "first_s": float(hit["since_s"].iloc[0]) if len(hit) else float("nan"),
                "mean20": float(g[g["since_s"] <= 20.0]["jain"].mean()),
                "mean_all": float(g["jain"].mean()),
                "frac_level": float((g["jain"] >= JAIN_LEVEL).mean()),
                "jain_total": ccsim.jain_index(shared.to_numpy()),
                "total_mbps": float(shared.sum()) / 1e6,
                "drops": int(r.flows["packets_dropped"].sum()),
                "overflow": float(b["drops_overflow"].sum()) if len(b) else float("nan"),
                "max_queue": float(b["max_len_pkts"].max()) if len(b) else float("nan"),
            }
        )
    return pd.DataFrame(rows)


# --- numbers ----------------------------------------------------------------------------------


def per_run(grid: dict, startup: dict | None = None) -> pd.DataFrame:
    """One row per point: goodput and the counters behind it, the bottleneck's drops, and
    (with the start-up grid) the goodput after the first STARTUP_S seconds."""
    f = grid["flows"].copy()
    q = grid["queues"]
    b = q[(q["link"] == "n2-n3") & (q["from"] == "n2")].set_index("point")
    f = f.set_index("point")
    f["overflow"] = b["drops_overflow"]
    f["random"] = b["drops_loss"]
    f["util"] = b["utilisation"]
    f["max_queue"] = b["max_len_pkts"]
    f["avg_queue"] = b["avg_len_pkts"]
    f["alg"] = f["flow"]
    if startup is not None:
        s = startup["flows"]
        cols = [c for c in s.columns if c in (LOSS, "seed", "flow")]
        early = s.set_index(cols)["bytes_delivered"]
        sb = startup["queues"]
        sb = sb[(sb["link"] == "n2-n3") & (sb["from"] == "n2")].set_index("point")
        s = s.set_index("point")
        s["overflow"] = sb["drops_overflow"]
        s = s.set_index(cols)
        key = pd.MultiIndex.from_frame(f[cols])
        eb = early.reindex(key).to_numpy(dtype=float)
        f["early_goodput"] = eb * 8 / STARTUP_S
        f["early_overflow"] = s["overflow"].reindex(key).to_numpy(dtype=float)
        f["early_timeouts"] = s["timeouts"].reindex(key).to_numpy(dtype=float)
        late = (f["bytes_delivered"].to_numpy(dtype=float) - eb) * 8
        f["late_goodput"] = late / (f["end_s"].to_numpy(dtype=float) - STARTUP_S)
    return f.reset_index()


def summarise(pp: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    metrics = [
        m
        for m in (
            "goodput_bps", "late_goodput", "early_goodput", "early_overflow", "early_timeouts",
            "overflow",
            "random", "timeouts", "fast_retransmits", "retransmits", "util", "max_queue",
            "avg_queue", "rtt_mean_s",
        )
        if m in pp.columns
    ]  # fmt: skip
    s = ccsim.aggregate(pp, by=by, metrics=metrics)
    s = s.rename(columns=lambda c: c.replace("goodput_bps", "goodput").replace("_goodput", ""))
    return s.set_index(by)


def startup_trace(runs: dict[tuple[str, float], ccsim.Result]) -> dict[str, dict]:
    """Start-up facts of the seed-1 runs at FIG5_LOSS, from their traces: the largest window
    before the first loss, when it came, and when goodput first reached 90 % of the link."""
    out = {}
    for alg in ALGS:
        r = runs[(alg, FIG5_LOSS)]
        cw = r.trace("cwnd")
        cw = cw[cw["flow"] == alg]
        rec = r.trace("ssthresh")
        rec = rec[rec["flow"] == alg]
        tp = r.trace("throughput")
        tp = tp[tp["flow"] == alg]
        # The first loss: cwnd falls by more than a quarter between samples.
        v = cw["value"].to_numpy(dtype=float)
        t = cw["time_s"].to_numpy(dtype=float)
        drop = np.nonzero(v[1:] < 0.75 * v[:-1])[0]
        i = int(drop[0]) if len(drop) else len(v) - 1
        fast = tp[tp["value"] >= 0.9 * MAX_GOODPUT_BPS]
        out[alg] = {
            "peak_cwnd": float(v[: i + 1].max()),
            "peak_t": float(t[int(np.argmax(v[: i + 1]))]),
            "first_cut_t": float(t[i + 1]) if len(drop) else float("nan"),
            "t90": float(fast["time_s"].iloc[0]) if len(fast) else float("nan"),
        }
    return out


def cwnd_stats(runs: dict[tuple[str, float], ccsim.Result], since: float = 10.0) -> dict:
    """Mean and coefficient of variation of the seed-1 windows from ``since`` (the start-up
    left out): at FIG5_LOSS to the end of Fig. 5, and at the lowest loss rate to the end of
    the run."""
    out: dict = {"from": since}
    for loss, until in ((FIG5_LOSS, FIG5_S), (min(LOSSES), DURATION_S)):
        out[loss] = {"until": until}
        for alg in ALGS:
            cw = runs[(alg, loss)].trace("cwnd")
            v = cw[(cw["flow"] == alg) & cw["time_s"].between(since, until)]["value"]
            v = v.to_numpy(dtype=float)
            out[loss][alg] = {"mean": float(v.mean()), "cv": float(v.std() / v.mean())}
    return out


def extra_numbers(sw: dict[str, dict], main_pp: pd.DataFrame) -> dict:
    """Numbers the fixed prose quotes: the simulator's cost, the expected random losses, and
    how close NDCA-TCP's queue came to the hold threshold of interval D."""
    pts, fl = sw["main"]["points"], sw["main"]["flows"]
    top = fl[fl[LOSS] == min(LOSSES)]["point"]
    events = pts.set_index("point").loc[top, "events"].sum() / (len(top) * DURATION_S)
    pkts = LINK_BPS / (8 * WIRE) * DURATION_S
    alpha = float(ccsim.validate(BASE)["flows"][0]["tcp"]["cc"]["alpha"])
    nd = main_pp[main_pp["alg"] == "ndca"]
    # The paper's grid (10 seeds x 8 points x 30 minutes) on one core: the measured wall time
    # of the 30-minute runs done, per seed, times 10 (else the 120 s grid's, scaled).
    if "full" in sw:
        full = sw["full"]["points"]
        per_seed = full["wall_s"].sum() / full["seed"].nunique()
    else:
        t = sw["main"]["timing"]
        per_seed = t["sim_wall_s"] / t["sim_s"] * t["points"] / 10 * PAPER_DURATION_S
    return {
        "paper_grid_h": per_seed * 10 / 3600,
        "path_holds": f"{BDP_PKTS + MAIN_BUFFER:,}",
        "events_m": float(events) / 1e6,
        "pkts_m": pkts / 1e6,
        "loss4": pkts * 1e-4,
        "loss7": pkts * 1e-7,
        "loss7_paper": pkts / DURATION_S * PAPER_DURATION_S * 1e-7,
        "hold_threshold": (alpha - 1) * BASE_RTT_S * LINK_BPS / (8 * WIRE),
        "hold_max_queue": float(nd["max_queue"].max()),
    }


# --- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__, "reduced grids (under a minute)")
    ap.add_argument(
        "--full-seeds", type=int, default=FULL_SEEDS,
        help=f"seeds of the 30-minute Fig. 6 grid, 1 ... N (default {FULL_SEEDS}; 0 skips it)",
    )  # fmt: skip
    args = parse(ap, argv)
    if not 0 <= args.full_seeds <= FULL_SEEDS:
        ap.error(f"--full-seeds: {args.full_seeds} is not between 0 and {FULL_SEEDS}")
    if args.quick:
        headline(quick(args.workers, args.force), args.headline)
        return
    t_start = time.perf_counter()
    FIGURES.mkdir(parents=True, exist_ok=True)

    sw = run_sweeps(args.workers, args.force, args.full_seeds)
    fig_scen = figure_scenarios()
    figs = saved_runs(fig_scen, RUNS_OUT, args.workers, args.force)
    runs = {
        (alg_of(s["flows"][0]["tcp"]["cc"]), float(s["topology"]["links"][2]["loss"]["p"])): r
        for s, r in zip(fig_scen, figs["results"])
    }
    fair_scen, fair_points = fairness_scenarios()
    fair = saved_runs(fair_scen, FAIR_OUT, args.workers, args.force)
    hold = run_hold(args.workers, args.force)
    hold_scen = hold_figure_scenarios()
    hold_runs = saved_runs(hold_scen, HOLD_RUNS_OUT, args.workers, args.force)

    main_pp = per_run(sw["main"], sw["startup"])
    summary = summarise(main_pp, ["alg", LOSS])
    sens_pp = per_run(sw["sensitivity"])
    sens = summarise(sens_pp, [LIMIT, RECOVERY, "alg", LOSS]).sort_index()
    full = summarise(per_run(sw["full"]), ["alg", LOSS]) if "full" in sw else None
    jr = jain_runs(fair["results"], fair_points)
    fs = fairness_summary(jr, fair["results"], fair_points)

    rel = lambda p: Path(p).relative_to(DOCS).as_posix()  # noqa: E731
    sens_buffers = sorted({int(b) for b in sens_pp[LIMIT]})
    sens_recs = list(dict.fromkeys(sens_pp[RECOVERY]))
    figures = {
        "fig5": rel(fig5(runs)),
        "cwnd": rel(cwnd_by_loss(runs)),
        "fig6": rel(fig6(summary, full)),
        "sensitivity": rel(sensitivity_figure(sens, sens_buffers, sens_recs)),
        "fig7": rel(fig7(jr)),
        "fair_tp": rel(fairness_throughput(fair["results"], fair_points)),
        "hold": rel(hold_figure(hold_scen, hold_runs["results"])),
    }
    timings = [sw[k]["timing"] for k in sw] + [
        {**figs["timing"], "name": "figure runs"},
        {**fair["timing"], "name": "fairness runs"},
        *hold["timings"],
        {**hold_runs["timing"], "name": "hold figure runs"},
    ]
    write_report(
        summary=summary,
        sens=sens,
        sens_axes=(sens_buffers, sens_recs),
        full=full,
        startup=startup_trace(runs),
        cw_stats=cwnd_stats(runs),
        extra=extra_numbers(sw, main_pp),
        fair=fs,
        hold=hold,
        timings=timings,
        figures=figures,
        total_s=time.perf_counter() - t_start,
    )
    print(f"wrote {REPORT.relative_to(ROOT)} in {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
