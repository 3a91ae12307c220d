"""Figures of the paper 004 reproduction: utilisation per RTT from the bottleneck's packet
trace, cwnd over time, per-flow rates and Jain's index for the four-flow cases, and the
sensitivity curves. The time series come from replication 0 of each variant, run again with
the bottleneck's packets traced."""

from __future__ import annotations

from pathlib import Path

import ccsim
import matplotlib
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from xcp_runs import departures_per_rtt, simulate, summarise  # noqa: E402
from xcp_setup import (  # noqa: E402
    BUFFER,
    CASES,
    COLOUR,
    FIGURES,
    JAIN_LEVEL,
    JAIN_WINDOW_S,
    LABEL,
    SHORT,
    VARIANTS,
    Case,
)


def _save(fig, name: str) -> Path:
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / name
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def utilisation_figure(runs: dict) -> Path:
    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(9, 9), sharex=True, sharey=True)
    for ax, v in zip(axes, VARIANTS):
        d = departures_per_rtt(runs["single", v])
        ax.plot(d["time_s"], 100 * d["utilisation"], lw=0.8, color=COLOUR[v])
        ax.set_title(LABEL[v], fontsize=9)
        ax.set_ylabel("% of link")
        ax.set_ylim(0, 105)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("One flow: bottleneck departures per RTT (540 ms windows), % of 10 Mb/s")
    fig.tight_layout()
    return _save(fig, "xcp-utilisation.png")


def cwnd_figure(runs: dict) -> Path:
    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(9, 9), sharex=True)
    for ax, v in zip(axes, VARIANTS):
        c = runs["single", v].trace("cwnd")
        ax.plot(c["time_s"], c["value"], lw=0.8, color=COLOUR[v])
        ax.set_title(LABEL[v], fontsize=9)
        ax.set_ylabel("cwnd (segments)")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"One flow: congestion window (buffers of {BUFFER} packets)")
    fig.tight_layout()
    return _save(fig, "xcp-cwnd.png")


def flows_figure(runs: dict, case: str) -> Path:
    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(9, 10), sharex=True, sharey=True)
    for ax, v in zip(axes, VARIANTS):
        d = departures_per_rtt(runs[case, v], by_flow=True)
        for flow, g in d.groupby("flow", sort=True):
            ax.plot(g["time_s"], 10 * g["utilisation"], lw=0.7, label=flow)
        ax.set_title(LABEL[v], fontsize=9)
        ax.set_ylabel("Mb/s")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=4, loc="upper right")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"{CASES[case]}: each flow's bottleneck departures per RTT")
    fig.tight_layout()
    return _save(fig, f"xcp-flows-{case}.png")


def jain_figure(runs: dict) -> Path:
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, case in zip(axes, ("same", "rtt")):
        for v in VARIANTS:
            j = ccsim.jain_over_time(runs[case, v], window=JAIN_WINDOW_S)
            ax.plot(j.index, j.to_numpy(), lw=0.8, color=COLOUR[v], label=SHORT[v])
        ax.axhline(JAIN_LEVEL, color="grey", ls=":", lw=0.8)
        ax.set_title(CASES[case], fontsize=9)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("Jain's index (5-RTT trailing mean)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, "xcp-jain.png")


def sensitivity_figure(head: pd.DataFrame, sens: pd.DataFrame) -> Path:
    rows = pd.concat([head, sens], ignore_index=True)
    ns2 = rows[(rows["profile"] == "ns2") & (rows["recovery"] == "sack")]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    # buffer
    own = ns2[(ns2["qth"].isna()) & (ns2["factors"] == "")]
    s = summarise(own, ["case", "variant", "buffer"], ["efficiency"])
    for case, ls in (("single", "-"), ("same", "--")):
        for v in VARIANTS:
            g = s[(s["case"] == case) & (s["variant"] == v)].sort_values("buffer")
            axes[0].plot(
                g["buffer"],
                100 * g["efficiency"],
                ls,
                marker="o",
                ms=3,
                color=COLOUR[v],
                label=SHORT[v] if case == "single" else None,
            )
    axes[0].set_xscale("log")
    axes[0].set_xlabel("buffer (packets; 649 = 1 BDP)")
    axes[0].set_ylabel("efficiency (% of max. goodput)")
    axes[0].set_title("buffer (solid: one flow; dashed: four)", fontsize=9)
    axes[0].legend(fontsize=7)
    # factor (high = low)
    fac = ns2[ns2["factors"] != ""].copy()
    fac["f"] = [float(x.strip("()").split(",")[0]) for x in fac["factors"]]
    s = summarise(fac, ["case", "f"], ["efficiency"])
    for case, ls in (("single", "-"), ("same", "--")):
        g = s[s["case"] == case].sort_values("f")
        axes[1].errorbar(
            g["f"],
            100 * g["efficiency"],
            yerr=100 * g["efficiency_ci"].fillna(0),
            fmt=ls + "o",
            ms=3,
            color="tab:red",
            label=CASES[case],
        )
    axes[1].axhline(98, color="grey", ls=":", lw=0.8)
    axes[1].set_xlabel("WA factor (high = low): new cwnd = factor · AR · RTT")
    axes[1].set_title("WA factor (dotted: the paper's 98 %)", fontsize=9)
    axes[1].legend(fontsize=7)
    # Q_th
    wa = ns2[ns2["variant"].isin(["wa-printed", "wa-cut"]) & (ns2["factors"] == "")]
    wa = wa[wa["buffer"] == BUFFER].copy()
    wa["qth_share"] = wa["qth"].fillna(BUFFER // 2) / BUFFER
    s = summarise(wa, ["case", "variant", "qth_share"], ["efficiency"])
    for case, ls in (("single", "-"), ("same", "--")):
        for v in ("wa-printed", "wa-cut"):
            g = s[(s["case"] == case) & (s["variant"] == v)].sort_values("qth_share")
            axes[2].plot(
                g["qth_share"],
                100 * g["efficiency"],
                ls,
                marker="o",
                ms=3,
                color=COLOUR[v],
                label=f"{SHORT[v]}, {'one flow' if case == 'single' else '4 flows'}",
            )
    axes[2].set_xlabel("Q_th / buffer")
    axes[2].set_title(f"Q_th (buffer {BUFFER})", fontsize=9)
    axes[2].legend(fontsize=7)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, "xcp-sensitivity.png")


def draw_all(head: pd.DataFrame, sens: pd.DataFrame) -> list[Path]:
    runs = {
        (c, v): simulate(Case(case=c, variant=v, rep=0, packets=True))
        for c in ("single", "same", "rtt")
        for v in VARIANTS
    }
    return [
        utilisation_figure(runs),
        cwnd_figure(runs),
        flows_figure(runs, "same"),
        flows_figure(runs, "rtt"),
        jain_figure(runs),
        sensitivity_figure(head, sens),
    ]
