"""Derived measures: fairness, link utilisation and transfer completion times."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from .result import Result


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index (Jain, Chiu & Hawe, 1984): ``(Σx)² / (n·Σx²)``.

    1.0 when all ``n`` values are equal, ``1/n`` when one takes everything.
    Raises ``ValueError`` for no values, or a negative or non-finite value (an allocation is
    a non-negative amount). All zeros gives NaN: the index is 0/0 there, and no flow getting
    anything is neither fair nor unfair, so it must not read as either 1 or 0.
    """
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    if x.size == 0:
        raise ValueError("jain_index needs at least one value")
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError("jain_index needs finite, non-negative values")
    sq = float(np.sum(x * x))
    if sq == 0.0:
        return math.nan
    return float(np.sum(x)) ** 2 / (x.size * sq)


def utilisation(result: Result, link: str, src: str | None = None) -> float:
    """Busy fraction of one direction of ``link`` (its name in the queues table).

    ``src`` names the transmitting node of the direction; by default the direction that
    departed more bytes, which is the data direction of one-way traffic (the other carries
    ACKs).
    """
    q = result.queues
    rows = q[q["link"] == link]
    if rows.empty:
        known = ", ".join(dict.fromkeys(map(str, q["link"])))
        raise KeyError(f"no link named {link!r} (links: {known})")
    if src is not None:
        sel = rows[rows["from"] == src]
        if sel.empty:
            ends = ", ".join(map(str, rows["from"]))
            raise KeyError(f"link {link!r} has no direction from {src!r} (from: {ends})")
        return float(sel["utilisation"].iloc[0])
    busiest = rows["bytes_departed"].to_numpy().argmax()
    return float(rows["utilisation"].iloc[busiest])


def jain_over_time(
    result: Result, flows: Sequence[str] | None = None, window: float | None = None
) -> pd.Series:
    """Jain's index of the flows' throughput in each bin of the ``throughput`` series.

    ``flows``: the flow names to compare (default: every flow in the series). Only flows active
    in a bin (``start_s <= t < end_s`` from the flows table) count there, so a flow that has
    not started does not read as starved; a bin with no active flow, or where the active ones
    all got nothing, is NaN. ``window`` (seconds) first averages each flow's throughput over a
    trailing window of that length, the usual way to look at fairness at a time scale longer
    than the bin. Returns a Series indexed by ``time_s``, named ``"jain"``.
    """
    frame = result.trace("throughput")
    wide = frame.pivot_table(index="time_s", columns="flow", values="value", observed=True)
    wide.columns = [str(c) for c in wide.columns]
    if flows is not None:
        missing = [f for f in flows if f not in wide.columns]
        if missing:
            raise KeyError(f"no throughput samples for {missing} (flows: {list(wide.columns)})")
        wide = wide[list(flows)]
    # A bin the core did not emit for a flow delivered nothing in it.
    wide = wide.sort_index().fillna(0.0)
    if window is not None:
        times = wide.index.to_numpy(dtype=float)
        step = float(np.min(np.diff(times))) if len(times) > 1 else float(window)
        bins = max(1, int(round(window / step)))
        wide = wide.rolling(bins, min_periods=1).mean()
    table = result.flows.set_index(result.flows["flow"].astype(str))
    t = wide.index.to_numpy(dtype=float)[:, None]
    start = table.loc[wide.columns, "start_s"].to_numpy(dtype=float)[None, :]
    end = table.loc[wide.columns, "end_s"].to_numpy(dtype=float)[None, :]
    x = np.where((t >= start) & (t < end), wide.to_numpy(dtype=float), np.nan)
    n = np.sum(~np.isnan(x), axis=1)
    s1 = np.nansum(x, axis=1)
    s2 = np.nansum(x * x, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        jain = np.where((n > 0) & (s2 > 0), s1 * s1 / (n * s2), np.nan)
    return pd.Series(jain, index=pd.Index(wide.index, name="time_s"), name="jain")


def completion_times(
    result: Result,
    group: str | None = None,
    size_bins: Sequence[float] | None = None,
    quantiles: Sequence[float] = (0.5, 0.99),
) -> pd.DataFrame:
    """Completion-time statistics of the transfers of ``tcp_arrivals`` entries, one row per
    entry (``group``: just that one), seconds.

    Columns: ``transfers`` (started), ``completed``, ``mean_s``, ``p50_s``, ``p99_s`` (one
    per quantile asked for) and ``max_s`` over the completed ones. An entry whose draws
    started no transfer has a row of zeros and NaNs. Transfers still running at the end of
    the run are in ``transfers`` only: with the default ``stop`` (the end of the run) the last
    and largest ones are missing from the statistics, so leave them time to finish.

    With ``size_bins`` (byte edges, e.g. ``[0, 100e3, 1e6, float("inf")]``) there is a row per
    entry and size range ``[low, high)`` (``size``), by each transfer's ``size_bytes``, with the
    same columns over the transfers of that size.
    """
    groups = result.transfer_groups()
    names = [
        f["name"]
        for f in result.scenario.get("flows", [])
        if isinstance(f, dict) and f.get("kind") == "tcp_arrivals"
    ]
    if group is not None:
        if group not in names:
            known = ", ".join(names) or "none"
            raise KeyError(f"no tcp_arrivals entry named {group!r} (entries: {known})")
        names = [group]
    for q in quantiles:
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile {q} is outside 0..1")
    edges = None if size_bins is None else list(size_bins)
    if edges is not None and (len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:]))):
        raise ValueError("size_bins must be at least two increasing byte edges")
    f = result.flows.assign(_group=groups)
    rows = []
    for name in names:
        sel = f[f["_group"] == name]
        done = sel[np.isfinite(sel["completion_s"].to_numpy(dtype=float))]
        if edges is None:
            rows.append({"group": name, "transfers": len(sel), **_stats(done, quantiles)})
            continue
        size = sel["size_bytes"].to_numpy(dtype=float)
        outside = int(((size < edges[0]) | (size >= edges[-1])).sum())
        if outside:
            raise ValueError(
                f"{outside} of {name!r}'s transfers are outside size_bins "
                f"[{edges[0]:g}, {edges[-1]:g}) (a capped size equals its max): "
                "widen the last edge, e.g. to float('inf')"
            )
        for lo, hi in zip(edges, edges[1:]):
            part = sel[(size >= lo) & (size < hi)]
            done = part[np.isfinite(part["completion_s"].to_numpy(dtype=float))]
            label = f"[{lo:g}, {hi:g})"
            rows.append(
                {"group": name, "size": label, "transfers": len(part), **_stats(done, quantiles)}
            )
    return pd.DataFrame(rows)


def _stats(done: pd.DataFrame, quantiles: Sequence[float]) -> dict:
    t = done["completion_s"].to_numpy(dtype=float)
    out: dict = {"completed": len(t), "mean_s": float(t.mean()) if len(t) else math.nan}
    for q in quantiles:
        out[f"p{q * 100:g}_s"] = float(np.quantile(t, q)) if len(t) else math.nan
    out["max_s"] = float(t.max()) if len(t) else math.nan
    return out
