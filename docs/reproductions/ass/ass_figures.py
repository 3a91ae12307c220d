"""Figures of the paper 001 reproduction (``run.py``): one 250 s run per configuration
(seed 1) with cwnd and goodput traces, drawn with ``ccsim.plot.plot_series``."""

from __future__ import annotations

from pathlib import Path

import ccsim
import numpy as np
from ass_setup import (
    ALG,
    ALG_COLOUR,
    ALG_LABEL,
    ALGS,
    BASE,
    FIGURES,
    IFQS,
    IW,
    IW_NAME,
    IWS,
    LIMIT,
    LOSSES,
    RATE,
    RATES,
    THROUGHPUT_BIN,
    pretty_rate,
)
from ccsim.plot import plot_series


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
