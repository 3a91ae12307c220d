"""Interval D of the paper 003 reproduction (``run.py``): where NDCA-TCP's hold acts, and what
it does. On the paper's 1 Gb/s path with one flow the queue never reaches the (α − 1)·BaseRTT
the hold needs, so these runs use the paper's motivating case instead (§3.4: a network of
fixed bandwidth): four NDCA-TCP flows on a 100 Mb/s bottleneck, with and without a CBR burst
that raises their RTT (``scenarios/ndca-hold.toml``), the hold off and on at α 1.05 … 1.5
(``scenarios/ndca-hold-sweep.toml``), under the ns2 profile with Reno and the linux profile
with SACK, 10 seeds each. The numbers come from the sweeps' tables and the ``cwnd_hold``
series they keep; one figure run per profile and setting keeps the queue too."""

from __future__ import annotations

import json
from pathlib import Path

import ccsim
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from ndca_setup import FIGURES, RESULTS, ROOT
from repro_grid import run_grid

HOLD_BASE = ROOT / "scenarios" / "ndca-hold.toml"
HOLD_GRID = ROOT / "scenarios" / "ndca-hold-sweep.toml"
HOLD_OUT = RESULTS / "ndca-hold"
HOLD_RUNS_OUT = RESULTS / "ndca-hold-runs"  # seed 1 with the queue, for the figure
HOLD_CC = "flows[kind=tcp].tcp.cc"
PROFILE = "defaults"
BOTTLENECK = ("bottleneck", "left")  # link, from: the forward bottleneck queue
HOLD_QUEUE = "bottleneck:left->right"  # the same, as traces label it
BURST = (20.0, 30.0)  # the CBR burst of ndca-hold.toml, seconds
N_FLOWS = 4
# Cross traffic: the base file's CBR burst, or none (the same sweep with the TCP flows only).
CROSS = {"burst": "CBR burst 20-30 s", "none": "no cross traffic"}
PROFILE_LABEL = {"ns2": "ns2 profile, Reno", "linux": "linux profile, SACK + RACK-TLP + PRR"}
SETTINGS = ["off", "1.05", "1.1", "1.2", "1.5"]  # hold off; hold on at these α


def setting_of(cc) -> str:
    """``off`` for the hold turned off, else α as written in the sweep file."""
    d = json.loads(cc) if isinstance(cc, str) else cc
    return f"{d['alpha']:g}" if d.get("hold", True) else "off"


def setting_label(s: str) -> str:
    return "hold off" if s == "off" else f"hold, α = {s}"


def hold_sweeps() -> dict[str, ccsim.Sweep]:
    """The sweep file as it is (with the CBR burst), and the same without the burst."""
    burst = ccsim.load_sweep(HOLD_GRID)
    none = ccsim.load_sweep(HOLD_GRID)
    tcp_only = [f for f in ccsim.validate(HOLD_BASE)["flows"] if f["kind"] == "tcp"]
    none.overrides = {**none.overrides, "flows": tcp_only}
    none.name = "ndca-hold-nocross"
    return {"burst": burst, "none": none}


def hold_stats(series: pd.DataFrame, starts: dict[str, float]) -> pd.DataFrame:
    """Per point and flow, from the ``cwnd_hold`` and ``cwnd`` series: the share of the
    samples since the flow's start in which it was holding, its longest unbroken hold (s),
    whether it held from the end of the CBR burst to the end of the run, and its mean window
    while holding."""
    s = series[series["series"].isin(["cwnd_hold", "cwnd"])]
    wide = s.pivot_table(
        index=["point", "flow", "time_s"], columns="series", values="value", observed=True
    ).reset_index()
    rows = []
    for (point, flow), g in wide.groupby(["point", "flow"], observed=True, sort=False):
        g = g[g["time_s"] >= starts[flow]].sort_values("time_s")
        held = g["cwnd_hold"].to_numpy() > 0
        t = g["time_s"].to_numpy()
        step = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
        # Longest unbroken run of held samples.
        edges = np.diff(np.concatenate([[0], held.astype(int), [0]]))
        runs = np.nonzero(edges == -1)[0] - np.nonzero(edges == 1)[0]
        after = held[t >= BURST[1]]
        rows.append(
            {
                "point": point,
                "flow": flow,
                "held_share": float(held.mean()) if len(held) else 0.0,
                "longest_s": float(runs.max()) * step if len(runs) else 0.0,
                "held_after_burst": bool(len(after) and after.all()),
                "cwnd_held": float(g["cwnd"].to_numpy()[held].mean()) if held.any() else np.nan,
            }
        )
    return pd.DataFrame(rows)


def per_point(out: dict) -> pd.DataFrame:
    """One row per run: the TCP flows' total goodput and Jain's index, the bottleneck's
    overflow drops, average queue and utilisation, the flows' mean RTT and timeouts, and the
    hold statistics (mean share held over the flows, longest hold of any flow, flows held
    without a break from the end of the burst to the end)."""
    f = out["flows"]
    tcp = f[f["kind"] == "tcp"]
    starts = tcp.groupby("flow")["start_s"].first().to_dict()
    hs = hold_stats(out["series"], starts)
    q = out["queues"]
    b = q[(q["link"] == BOTTLENECK[0]) & (q["from"] == BOTTLENECK[1])].set_index("point")
    rows = []
    for point, g in tcp.groupby("point"):
        gp = g["goodput_bps"].to_numpy(dtype=float)
        h = hs[hs["point"] == point]
        rows.append(
            {
                "point": point,
                "setting": setting_of(g[HOLD_CC].iloc[0]),
                "profile": g[PROFILE].iloc[0],
                "seed": int(g["seed"].iloc[0]),
                "goodput": gp.sum() / 1e6,
                "jain": ccsim.jain_index(gp),
                "overflow": float(b.loc[point, "drops_overflow"]),
                "avg_queue": float(b.loc[point, "avg_len_pkts"]),
                "util": float(b.loc[point, "utilisation"]),
                "rtt_ms": float(g["rtt_mean_s"].mean()) * 1e3,
                "timeouts": float(g["timeouts"].sum()),
                "held_share": float(h["held_share"].mean()) if len(h) else 0.0,
                "longest_s": float(h["longest_s"].max()) if len(h) else 0.0,
                "stuck": float(h["held_after_burst"].sum()) if len(h) else 0.0,
                "cwnd_held": float(h["cwnd_held"].mean()) if len(h) else np.nan,
            }
        )
    return pd.DataFrame(rows)


METRICS = [
    "goodput", "jain", "overflow", "avg_queue", "util", "rtt_ms", "timeouts", "held_share",
    "longest_s", "stuck", "cwnd_held",
]  # fmt: skip
DIFF_METRICS = ["goodput", "jain", "overflow", "avg_queue", "rtt_ms", "timeouts"]


def summarise_hold(pp: pd.DataFrame) -> pd.DataFrame:
    """Means and 95 % Student-t half-widths by cross traffic, profile and setting."""
    s = ccsim.aggregate(pp, by=["cross", "profile", "setting"], metrics=METRICS)
    return s.set_index(["cross", "profile", "setting"])


def paired_differences(pp: pd.DataFrame) -> pd.DataFrame:
    """Each hold setting minus the hold off, seed by seed (the same seed draws the same send
    jitter until the runs part), with means and 95 % Student-t half-widths."""
    keys = ["cross", "profile", "seed"]
    off = pp[pp["setting"] == "off"].set_index(keys)[DIFF_METRICS]
    rows = []
    for _, r in pp[pp["setting"] != "off"].iterrows():
        base = off.loc[tuple(r[k] for k in keys)]
        rows.append(
            {**{k: r[k] for k in keys}, "setting": r["setting"],
             **{m: r[m] - base[m] for m in DIFF_METRICS}}
        )  # fmt: skip
    d = pd.DataFrame(rows)
    s = ccsim.aggregate(d, by=["cross", "profile", "setting"], metrics=DIFF_METRICS)
    return s.set_index(["cross", "profile", "setting"])


def run_hold(workers: int, force: bool) -> dict:
    """Both sweeps into HOLD_OUT; per-run rows, summaries, paired differences and timings."""
    parts, timings = [], []
    for cross, sw in hold_sweeps().items():
        out = run_grid(sw, HOLD_OUT, workers, force)
        out["series"] = ccsim.sweep(sw, output=HOLD_OUT, table="series", progress=False)
        pp = per_point(out)
        pp["cross"] = cross
        parts.append(pp)
        timings.append(out["timing"])
    pp = pd.concat(parts, ignore_index=True)
    return {
        "runs": pp,
        "summary": summarise_hold(pp),
        "diff": paired_differences(pp),
        "timings": timings,
    }


def figure_scenarios() -> list[dict]:
    """Seed 1 with the CBR burst, hold off and α 1.2, under both profiles, with the queue."""
    base = ccsim.validate(HOLD_BASE)
    out = []
    for profile, recovery in (("ns2", "reno"), ("linux", "sack")):
        for hold in (False, True):
            s = json.loads(json.dumps(base))
            s["defaults"] = profile
            for f in s["flows"]:
                if f["kind"] == "tcp":
                    f["tcp"]["recovery"] = recovery
                    f["tcp"]["cc"] = {**f["tcp"]["cc"], "hold": hold}
            out.append(s)
    return out


def hold_figure(scenarios: list[dict], results: list[ccsim.Result]) -> Path:
    """cwnd of the four flows (shaded while held) and the bottleneck queue, seed 1."""
    fig = Figure(figsize=(12, 7), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True, sharey=True)
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for ax, s, r in zip(axes.flat, scenarios, results):
        cw, hold, q = r.trace("cwnd"), r.trace("cwnd_hold"), r.trace("queue")
        q = q[q["queue"] == HOLD_QUEUE]
        ax.plot(q["time_s"], q["value"], color="0.6", lw=0.6, label="bottleneck queue")
        names = [f["name"] for f in s["flows"] if f["kind"] == "tcp"]
        for name, c in zip(names, colours):
            w = cw[cw["flow"] == name]
            ax.plot(w["time_s"], w["value"], color=c, lw=0.8, label=name)
            if len(hold):
                h = (
                    hold[hold["flow"] == name]
                    .set_index("time_s")["value"]
                    .reindex(w["time_s"], method="ffill")
                )
                ax.fill_between(w["time_s"], 0, w["value"], where=h.to_numpy() > 0,
                                color=c, alpha=0.15, step="post", lw=0)  # fmt: skip
        ax.axvspan(*BURST, color="k", alpha=0.06)
        cc = s["flows"][0]["tcp"]["cc"]
        ax.set_title(
            f"{PROFILE_LABEL[s['defaults']]}: "
            + (f"hold, α = {cc['alpha']:g}" if cc["hold"] else "hold off"),
            fontsize=9,
        )
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    for ax in axes[:, 0]:
        ax.set_ylabel("cwnd / queue (packets)")
    axes[0, 0].legend(fontsize=7, loc="upper right")
    fig.suptitle(
        "Four NDCA-TCP flows, 100 Mb/s, CBR burst 20-30 s (grey band), seed 1; "
        "shaded: the flow is holding (cwnd_hold = 1)",
        fontsize=10,
    )
    path = FIGURES / "ndca-hold.png"
    fig.savefig(path, dpi=90)
    return path
