"""Figures of recorded time series, one line per flow or queue.

Files are drawn on ``matplotlib.figure.Figure`` objects, not through pyplot: that renders with
Agg whatever the display, keeps no global figure registry (so thousands of sweep points do not
leak figures) and does not touch the backend a notebook has chosen. Only interactive use
without an ``ax`` goes through pyplot, where matplotlib itself falls back to Agg when there is
no display.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from .result import Result

# name → (title, y-axis label, factor from the series' unit to the axis unit)
SERIES_AXES: dict[str, tuple[str, str, float]] = {
    "cwnd": ("congestion window", "cwnd (segments)", 1.0),
    "ssthresh": ("slow-start threshold", "ssthresh (segments)", 1.0),
    "srtt": ("smoothed RTT", "SRTT (ms)", 1e3),
    "rto": ("retransmission timeout", "RTO (ms)", 1e3),
    "rtt": ("RTT samples", "RTT (ms)", 1e3),
    "throughput": ("goodput", "goodput (Mb/s)", 1e-6),
    "recovery": ("loss-recovery state", "0 open, 1 fast recovery, 2 timeout", 1.0),
    "queue": ("queue length", "queue (packets)", 1.0),
    "queue_bytes": ("queue length", "queue (KB)", 1e-3),
    "avg_queue": ("average queue (AQM)", "average queue (packets)", 1.0),
    "sojourn": ("sojourn time", "sojourn (ms)", 1e3),
    "bw_estimate": ("bandwidth estimate", "estimate (Mb/s)", 1e-6),
    "acns_command": ("ACNS command", "1 normal, 2 freeze, 3 fallback", 1.0),
    "cwnd_hold": ("window hold (NDCA)", "1 holding, 0 not", 1.0),
    "delivery_rate": ("delivery-rate samples", "delivery rate (Mb/s)", 1e-6),
    "pacing_rate": ("pacing rate", "pacing rate (Mb/s)", 1e-6),
    "cc_mode": ("congestion-control state", "BBR: 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT", 1.0),
    "inflight_lo": ("flight lower bound (BBRv3)", "inflight_lo (segments)", 1.0),
    "inflight_hi": ("flight upper bound (BBRv3)", "inflight_hi (segments)", 1.0),
    "min_rtt": ("min-RTT estimate", "min RTT (ms)", 1e3),
    "ecn_alpha": ("marked fraction estimate (α)", "α", 1.0),
}
# Series that hold their value until the next sample (recorded on change or sampled).
_STEPPED = {
    "cwnd", "ssthresh", "srtt", "rto", "recovery", "queue", "queue_bytes", "avg_queue", "sojourn",
    "bw_estimate", "acns_command", "cwnd_hold", "pacing_rate", "cc_mode", "min_rtt", "ecn_alpha",
    "inflight_lo", "inflight_hi",
}  # fmt: skip
# A dumbbell has a queue per direction of every access link, mostly idle: by default draw the
# queues that ever held something, busiest first, at most this many.
MAX_QUEUES = 8
FIGURES = ("cwnd", "throughput", "queue")
# The formats matplotlib writes without extra packages.
FIGURE_FORMATS = ("png", "svg", "pdf")


def _default_selection(name: str, frame, key: str) -> list:
    labels = list(dict.fromkeys(frame[key]))  # order of first appearance
    if name not in ("queue", "queue_bytes", "avg_queue", "sojourn"):
        return labels
    peak = frame.groupby(key, observed=True, sort=False)["value"].max()
    busy = peak[peak > 0].sort_values(ascending=False)
    return list(busy.index[:MAX_QUEUES])


def plot_series(
    result: Result,
    name: str,
    ax: Axes | None = None,
    *,
    select: Sequence[str] | None = None,
    labels: Mapping[str, str] | None = None,
    legend: bool = True,
    **line_kwargs: Any,
) -> Axes:
    """Draws the series ``name`` of ``result`` on ``ax`` (a new figure if ``None``).

    ``select`` lists the flows (or ``"link:from->to"`` queues) to draw; by default every flow,
    and for queue series the busiest queues that were ever non-empty. ``labels`` maps a flow
    (or queue) to its legend text; by default the legend shows the names. Values are converted
    to readable units (ms, Mb/s, KB); non-finite values (an unlimited ssthresh) are not drawn.
    Other keyword arguments go to matplotlib for every line. Returns the axes.
    """
    if "label" in line_kwargs:
        raise TypeError(
            "plot_series draws one line per flow: give legend texts as labels={flow: text}, "
            "not label="
        )
    frame = result.trace(name)
    key = frame.columns[1]
    title, ylabel, factor = SERIES_AXES.get(name, (name, name, 1.0))
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4.5))
    chosen = list(select) if select is not None else _default_selection(name, frame, key)
    groups = dict(tuple(frame.groupby(key, observed=True, sort=False)))
    for label in chosen:
        if label not in groups:
            known = ", ".join(map(str, groups)) or "none"
            raise KeyError(f"{label!r} has no samples in series {name!r} (present: {known})")
        g = groups[label]
        text = str(labels.get(label, label)) if labels is not None else str(label)
        t = g["time_s"].to_numpy()
        v = g["value"].to_numpy(dtype=float) * factor
        ok = np.isfinite(v)
        if name == "rtt":
            ax.plot(t[ok], v[ok], ".", markersize=2, label=text, **line_kwargs)
        elif name in _STEPPED:
            ax.step(t[ok], v[ok], where="post", label=text, **line_kwargs)
        else:
            ax.plot(t[ok], v[ok], label=text, **line_kwargs)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{result.name}: {title}")
    ax.grid(True, alpha=0.3)
    if legend and chosen:
        ax.legend(fontsize="small", loc="best")
    return ax


def figure_of(result: Result, name: str, **kwargs: Any):
    """A standalone ``matplotlib.figure.Figure`` of one series (no pyplot involved)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5), layout="constrained")
    plot_series(result, name, ax=fig.add_subplot(), **kwargs)
    return fig


def save_figures(
    result: Result,
    directory: str | os.PathLike,
    names: Sequence[str] = FIGURES,
    fmt: str = "png",
    dpi: int = 120,
) -> list[Path]:
    """Writes ``<name>.<fmt>`` for each series in ``names`` that was recorded; returns the
    paths written. ``fmt``: one of ``FIGURE_FORMATS``."""
    if fmt not in FIGURE_FORMATS:
        raise ValueError(f"figure format {fmt!r}: expected one of {', '.join(FIGURE_FORMATS)}")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        if name not in result.series_names or len(result.trace(name)) == 0:
            continue
        path = out / f"{name}.{fmt}"
        figure_of(result, name).savefig(path, dpi=dpi)
        written.append(path)
    return written


def plot_sequence(
    result: Result, flow: str, link: str | None = None, ax: Axes | None = None
) -> Axes:
    """A time-sequence graph of TCP flow ``flow`` at ``link`` (as tcptrace draws one), from
    the packet trace (``trace.packets``): the sequence number of every data segment as it
    joins the link's queue (retransmissions too), the segments the link dropped, and the
    cumulative acknowledgement as each ACK comes through the link the other way. ``link``: a
    traced link that carried the flow's data; by default the first in the trace. Sequence
    numbers are relative to the connection's initial sequence number (as Wireshark and
    tcptrace show them: the first payload byte is 1), unwrapped past 2^32, in kB. Returns the
    axes."""
    p = result.packets
    if p.empty:
        raise ValueError("no packet trace: run with trace.packets = [link names] (or ['*'])")
    mine = p[p["flow"] == flow]
    data = mine[mine["kind"] == "tcp"]
    if data.empty:
        known = ", ".join(sorted(set(p.loc[p["kind"] == "tcp", "flow"]))) or "none"
        raise KeyError(f"no TCP data of flow {flow!r} in the packet trace (flows: {known})")
    links = list(dict.fromkeys(data["link"]))
    link = links[0] if link is None else link
    if link not in links:
        raise KeyError(f"flow {flow!r} has no data in the trace of {link!r} (links: {links})")
    here = mine[mine["link"] == link]
    data = here[here["kind"] == "tcp"]
    forward = data["from"].iloc[0]  # the direction the data takes
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4.5))
    sent = data[(data["event"] == "+") & (data["from"] == forward)]
    lost = data[(data["event"] == "d") & (data["from"] == forward)]
    acks = here[(here["kind"] == "ack") & (here["event"] == "r") & (here["from"] != forward)]
    # The initial sequence number: the SYN's; without a handshake, one before the first byte.
    syn = data[data["flags"].str.contains("SYN")]
    isn = int(syn["seq"].iloc[0]) if len(syn) else int(data["seq"].iloc[0]) - 1
    kb = 1e-3
    seq = _unwrap(sent["seq"], isn) * kb
    ax.plot(sent["time_s"], seq, ".", markersize=2, label="segment sent")
    if len(lost):
        ax.plot(lost["time_s"], _unwrap(lost["seq"], isn) * kb, "x", color="red", label="dropped")
    if len(acks):
        ack = _unwrap(acks["ack"], isn) * kb
        ax.step(acks["time_s"], ack, where="post", label="acknowledged")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence number (kB)")
    ax.set_title(f"{result.name}: {flow} at {link}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    return ax


def _unwrap(seq, base: int = 0) -> np.ndarray:
    """32-bit sequence numbers as a running count from ``base``: the first is its distance
    past ``base`` modulo 2^32, each step the nearest one modulo 2^32."""
    s = np.asarray(seq, dtype=np.int64)
    if len(s) == 0:
        return s.astype(float)
    first = (s[0] - base) % 2**32
    step = (np.diff(s) + 2**31) % 2**32 - 2**31
    return np.concatenate([[first], first + np.cumsum(step)]).astype(float)
