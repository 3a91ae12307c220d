"""The figures of the paper 003 reproduction (``run.py``), drawn with ccsim's own
``ccsim.plot.plot_series`` where they show a run's time series."""

from __future__ import annotations

from pathlib import Path

import ccsim
import numpy as np
import pandas as pd
from ccsim.plot import plot_series
from ccsim.stats import t_ppf
from ndca_setup import (
    ALG_COLOUR,
    ALG_LABEL,
    ALGS,
    BDP_PKTS,
    BOTTLENECK,
    DURATION_LABEL,
    DURATION_S,
    FAIR_CC,
    FAIR_LOSS,
    FIG5_LOSS,
    FIG5_S,
    FIGURES,
    JAIN_WINDOW_S,
    LOSSES,
    MAIN_BUFFER,
    MAX_GOODPUT_BPS,
    START2,
    STARTS,
    alg_of,
    hs_response_bps,
    loss_label,
)

# --- figures ----------------------------------------------------------------------------------


def _figure(rows: int, cols: int = 1, width: float = 10, height: float = 3.0):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height * rows + 0.5), layout="constrained")
    return fig, fig.subplots(rows, cols, squeeze=False)


def fig5(runs: dict[tuple[str, float], ccsim.Result]) -> Path:
    """The paper's Fig. 5: cwnd of both algorithms over the first FIG5_S at FIG5_LOSS; a zoom on
    the start-up with NDCA's estimated threshold; the bottleneck queue."""
    fig, axes = _figure(3)
    a, b, c = axes[:, 0]
    for alg in ALGS:
        r = runs[(alg, FIG5_LOSS)]
        plot_series(r, "cwnd", ax=a, legend=False, color=ALG_COLOUR[alg], lw=1.0)
        plot_series(r, "cwnd", ax=b, legend=False, color=ALG_COLOUR[alg], lw=1.2)
        plot_series(r, "queue", ax=c, select=[BOTTLENECK], legend=False, color=ALG_COLOUR[alg])
    nd = runs[("ndca", FIG5_LOSS)]
    plot_series(nd, "ssthresh", ax=b, legend=False, color="tab:green", lw=0.8, ls="--")
    zoom = 4.0
    for ax, xmax in ((a, FIG5_S), (b, zoom), (c, FIG5_S)):
        ax.set_xlim(0, xmax)
        ax.axhline(BDP_PKTS, color="grey", ls=":", lw=0.8)
        ax.set_ylabel("cwnd (segments)")
    c.set_ylabel("queue (packets)")
    b.set_ylim(0, 2.2 * BDP_PKTS)
    c.set_ylim(0, MAIN_BUFFER * 1.05)
    lbl = loss_label(FIG5_LOSS)
    a.set_title(f"cwnd, loss {lbl}, first {FIG5_S:g} s (dotted: the path's BDP)")
    b.set_title(f"the first {zoom:g} s, with NDCA-TCP's ssthresh: its bandwidth estimate (eq. 5)")
    c.set_title("bottleneck queue n2 -> n3 (dotted: the BDP, which is also the buffer)")
    names = [ALG_LABEL[x] for x in ALGS]
    a.legend(a.get_lines()[:2], names, fontsize="small")
    b.legend(b.get_lines()[:3], [*names, "NDCA-TCP ssthresh"], fontsize="small")
    c.legend(c.get_lines()[:2], names, fontsize="small")
    fig.suptitle("ccsim, seed 1 (cf. the paper's Fig. 5)")
    path = FIGURES / "ndca-startup-cwnd.png"
    fig.savefig(path, dpi=90)
    return path


def cwnd_by_loss(runs: dict[tuple[str, float], ccsim.Result]) -> Path:
    fig, axes = _figure(len(LOSSES), height=2.3)
    for ax, loss in zip(axes[:, 0], LOSSES):
        for alg in ALGS:
            plot_series(runs[(alg, loss)], "cwnd", ax=ax, color=ALG_COLOUR[alg], lw=0.8)
        ax.set_title(f"loss {loss_label(loss)}")
        ax.axhline(BDP_PKTS, color="grey", ls=":", lw=0.8)
        ax.get_legend().remove()
        if ax is not axes[-1, 0]:
            ax.set_xlabel("")
    axes[0, 0].legend(
        axes[0, 0].get_lines()[:2], [ALG_LABEL[a] for a in ALGS], fontsize="small", loc="best"
    )
    fig.suptitle(f"cwnd over {DURATION_LABEL}, seed 1 (dotted: the path's BDP)")
    path = FIGURES / "ndca-cwnd-by-loss.png"
    fig.savefig(path, dpi=80)
    return path


def fig6(summary: pd.DataFrame, full: pd.DataFrame | None) -> Path:
    """The paper's Fig. 6: mean goodput against the loss rate, 95 % intervals over the seeds:
    the paper's 30 minutes (``full``, summarised like ``summary``) and the 120 s grid, with the
    RFC 3649 response function of HS-TCP for reference."""
    fig, axes = _figure(1, height=4.2, width=8)
    ax = axes[0, 0]
    for alg in ALGS:
        if full is not None:
            f = full.loc[alg].reindex(LOSSES)
            ax.errorbar(
                LOSSES, f["goodput_mean"] / 1e6, yerr=np.nan_to_num(f["goodput_ci95"]) / 1e6,
                marker="s", capsize=4, lw=2, color=ALG_COLOUR[alg],
                label=f"{ALG_LABEL[alg]}, 30 min ({int(f['goodput_n'].min())} seeds)",
            )  # fmt: skip
        s = summary.loc[alg].reindex(LOSSES)
        ax.errorbar(
            LOSSES, s["goodput_mean"] / 1e6, yerr=s["goodput_ci95"] / 1e6, marker="o", ms=3,
            capsize=2, ls="--", lw=0.9, color=ALG_COLOUR[alg],
            label=f"{ALG_LABEL[alg]}, {DURATION_LABEL} ({int(s['goodput_n'].min())} seeds)",
        )  # fmt: skip
    p = np.logspace(-7.2, -3.8, 50)
    hs = np.minimum(hs_response_bps(p), MAX_GOODPUT_BPS) / 1e6
    ax.plot(p, hs, color="grey", ls=":", label="RFC 3649 response function (base RTT)")
    ax.axhline(MAX_GOODPUT_BPS / 1e6, color="black", lw=0.6)
    ax.set_xscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("packet loss probability")
    ax.set_ylabel("mean goodput (Mb/s)")
    ax.set_ylim(0, 1000)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small", loc="lower right")
    ax.set_title("ccsim, means and 95 % intervals over the seeds (cf. the paper's Fig. 6)")
    path = FIGURES / "ndca-throughput-vs-loss.png"
    fig.savefig(path, dpi=90)
    return path


def sensitivity_figure(sens: pd.DataFrame, buffers: list[int], recoveries: list[str]) -> Path:
    fig, axes = _figure(1, len(recoveries), width=11, height=3.8)
    styles = {b: s for b, s in zip(buffers, (":", "--", "-"))}
    n_seeds = int(sens["goodput_n"].min())
    for ax, rec in zip(axes[0], recoveries):
        for alg in ALGS:
            for b in buffers:
                s = sens.loc[(b, rec, alg)].reindex(LOSSES)
                ax.errorbar(
                    LOSSES, s["goodput_mean"] / 1e6,
                    yerr=s["goodput_ci95"] / 1e6 if n_seeds > 1 else None,
                    ls=styles[b], marker="o", ms=3, capsize=2, color=ALG_COLOUR[alg],
                    label=f"{ALG_LABEL[alg]}, buffer {b}",
                )  # fmt: skip
        ax.set_xscale("log")
        ax.invert_xaxis()
        ax.set_ylim(0, 1000)
        ax.grid(True, alpha=0.3)
        ax.set_xlabel("packet loss probability")
        ax.set_ylabel("mean goodput (Mb/s)")
        ax.set_title(f"{rec.capitalize() if rec != 'sack' else 'SACK'} recovery")
    axes[0, 0].legend(fontsize="x-small", loc="lower right")
    seeds = f"{n_seeds} seeds" if n_seeds > 1 else "seed 1"
    fig.suptitle(f"buffer (packets) and loss recovery, {DURATION_LABEL}, {seeds}")
    path = FIGURES / "ndca-sensitivity.png"
    fig.savefig(path, dpi=85)
    return path


def fig7(jr: pd.DataFrame) -> Path:
    """The paper's Fig. 7: Jain's index of the two flows over time, mean over the seeds with
    its 95 % band, per start mode."""

    fig, axes = _figure(len(STARTS), height=3.0)
    for ax, start in zip(axes[:, 0], STARTS):
        for alg in ALGS:
            g = jr[(jr["alg"] == alg) & (jr["start2"] == start)]
            by = g.groupby("time_s")["jain_w"]
            m, sd, n = by.mean(), by.std(), by.count()
            half = sd / np.sqrt(n) * np.array([t_ppf(0.975, k - 1) if k > 1 else 0 for k in n])
            t = m.index.to_numpy()
            ax.plot(t, m.to_numpy(), color=ALG_COLOUR[alg], label=ALG_LABEL[alg])
            ax.fill_between(t, (m - half).to_numpy(), np.minimum(m + half, 1).to_numpy(),
                            color=ALG_COLOUR[alg], alpha=0.2, lw=0)  # fmt: skip
        when = "together" if float(start.rstrip("s")) == 0 else f"at 0 and {start[:-1]} s"
        ax.set_title(f"two flows starting {when}, loss {loss_label(FAIR_LOSS)}")
        ax.set_ylabel("Jain's index")
        ax.set_ylim(0.45, 1.02)
        ax.set_xlim(0, DURATION_S)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(
        f"Jain's index of the {JAIN_WINDOW_S:g} s mean throughputs (1 s bins), mean of 10 seeds "
        "and its 95 % interval (cf. the paper's Fig. 7)"
    )
    path = FIGURES / "ndca-fairness.png"
    fig.savefig(path, dpi=90)
    return path


def fairness_throughput(results: list, points: list) -> Path:
    """Seed 1 of each fairness case: the two flows' goodput per 1 s bin."""
    fig, axes = _figure(len(STARTS), len(ALGS), width=12, height=2.8)
    for r, p in zip(results, points):
        if p.replication:
            continue
        alg = alg_of(p.axes[FAIR_CC])
        ax = axes[STARTS.index(p.axes[START2]), ALGS.index(alg)]
        plot_series(r, "throughput", ax=ax, lw=0.9)
        ax.set_title(f"{ALG_LABEL[alg]}, second flow from {p.axes[START2]}")
        ax.set_ylim(0, 1000)
    fig.suptitle("goodput of the two flows, seed 1")
    path = FIGURES / "ndca-fairness-throughput.png"
    fig.savefig(path, dpi=80)
    return path
