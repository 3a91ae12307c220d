"""Figures of the seed paper 000 reproduction (``run.py``): the three TCP flows' throughput and
RTT over time at the paper's start times (the paper's Figs. 15-18), in both profiles; the
maximum RTT and the losses against the buffer (the report's explanation of the maximum RTT,
tested); the model verification (``acns_model``)."""

from __future__ import annotations

from pathlib import Path

import acns_model
import matplotlib
from acns_setup import ACNS, BUFFERS, FIGURES, NONE, PROFILES, TCP, Config
from acns_stats import est

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def series(traces: dict, name: str, ylabel: str, scale: float) -> Path:
    """One row per profile, no ACNS on the left, ACNS on the right."""
    fig, axes = plt.subplots(len(PROFILES), 2, figsize=(11, 3.4 * len(PROFILES)), sharey=True)
    for row, profile in zip(axes, PROFILES):
        for ax, variant in zip(row, (NONE, ACNS)):
            t = traces[profile][variant].trace(name)
            for flow in TCP:
                d = t[t["flow"] == flow]
                ax.plot(d["time_s"], d["value"] / scale, lw=0.7, label=flow)
            ax.set_title(f"{profile} profile, {variant}", fontsize=10)
            ax.grid(alpha=0.3)
        row[0].set_ylabel(ylabel)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    path = FIGURES / f"acns-{name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def buffers(runs: dict) -> Path:
    """Maximum RTT and TCP losses (mean and 95 % interval over the replications) against the
    buffer, without and with ACNS, in both profiles."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for profile, marker in zip(PROFILES, ("o", "s")):
        for variant, style in ((NONE, "--"), (ACNS, "-")):
            for ax, key in zip(axes, ("rtt_max", "loss")):
                e = [est(runs[Config(profile, variant, buffer=b)][key]) for b in BUFFERS]
                ax.errorbar(
                    BUFFERS, [x.mean for x in e], yerr=[x.hw for x in e], ls=style,
                    marker=marker, capsize=3, label=f"{profile}, {variant}",
                )  # fmt: skip
    axes[0].set_ylabel("largest RTT of the three flows (s)")
    axes[1].set_ylabel("TCP packets lost")
    for ax in axes:
        ax.set_xscale("log")
        ax.minorticks_off()  # the log axis's minor labels would overprint the buffers
        ax.set_xticks(BUFFERS, [str(b) for b in BUFFERS])
        ax.set_xlabel("buffer per router port (packets)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    path = FIGURES / "acns-buffers.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def make_figures(sw: dict, traces: dict, model_first: dict) -> dict[str, Path]:
    FIGURES.mkdir(parents=True, exist_ok=True)
    return {
        "throughput": series(traces, "throughput", "throughput (Mb/s)", 1e6),
        "rtt": series(traces, "rtt", "RTT (s)", 1.0),
        "buffers": buffers(sw["runs"]),
        "model": acns_model.figure(model_first, FIGURES),
    }
