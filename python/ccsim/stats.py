"""Replications → mean and confidence interval, with Student's t computed here.

The t quantile comes from the regularised incomplete beta function (a continued fraction,
Numerical Recipes §6.4), inverted by bisection: exact to ~1e-10, and no scipy dependency for
one number per group.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

# Columns that identify a run rather than measure it; never averaged.
_BOOKKEEPING = ("point", "key", "replication", "seed")
# What tells the rows of one point apart in each sweep table, after the axes.
_ROW_IDS = (("flow",), ("link", "from", "to"))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    # The fraction converges fast only below (a+1)/(a+b+2); use the symmetry above it.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=1024)
def t_ppf(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (e.g. ``t_ppf(0.975, 4)`` = 2.7764)."""
    if not 0.0 < p < 1.0 or not df > 0:
        raise ValueError(f"t_ppf needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -t_ppf(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def _default_by(df: pd.DataFrame) -> list[str]:
    axes = df.attrs.get("axes")
    if axes is None:
        raise ValueError(
            "aggregate needs `by` (the columns that define a group, e.g. the axis paths and "
            "'flow'): this DataFrame does not say which columns are a sweep's axes"
        )
    by = list(axes)
    for ids in _ROW_IDS:
        if all(c in df.columns for c in ids):
            by += list(ids)
            break
    return by


def aggregate(
    df: pd.DataFrame,
    by: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Mean, standard deviation, count and confidence-interval half-width over replications.

    ``df``: a table from :func:`ccsim.sweep`. ``by``: the grouping columns; by default the
    sweep's axes and the row's identity (``flow`` for the flows table; ``link``, ``from``,
    ``to`` for queues). ``metrics``: the columns to summarise; by default every numeric
    column except ``by`` and the bookkeeping ``point``/``replication``/``seed``.

    For each metric ``m`` the result has ``m_mean``, ``m_std`` (sample, n − 1), ``m_n``
    (non-missing values) and ``m_ci95`` (for ``confidence=0.95``): the half-width
    ``t(1 − α/2, n − 1) · std / √n`` of Student's t interval around the mean, NaN when n < 2.
    Groups keep the order in which they first appear.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    by = list(by) if by is not None else _default_by(df)
    unknown = [c for c in by if c not in df.columns]
    if unknown:
        raise KeyError(f"no column {', '.join(map(repr, unknown))} to group by")
    if metrics is None:
        metrics = [
            c
            for c in df.columns
            if c not in by
            and c not in _BOOKKEEPING
            and pd.api.types.is_numeric_dtype(df[c])
            and not pd.api.types.is_bool_dtype(df[c])
        ]
    else:
        metrics = list(metrics)
        bad = [m for m in metrics if m not in df.columns]
        if bad:
            raise KeyError(f"no column {', '.join(map(repr, bad))} to aggregate")
    label = f"ci{confidence * 100:g}"
    # No `by`: the whole table is one group.
    keys = [df[c] for c in by] if by else [pd.Series(0, index=df.index, name="_all")]
    parts = {}
    for m in metrics:
        g = (
            pd.to_numeric(df[m], errors="raise")
            .astype(float)
            .groupby(keys, sort=False, dropna=False)
        )
        mean, std, n = g.mean(), g.std(ddof=1), g.count()
        t = np.array([t_ppf(0.5 + confidence / 2, k - 1) if k >= 2 else np.nan for k in n])
        parts[f"{m}_mean"] = mean
        parts[f"{m}_std"] = std
        parts[f"{m}_n"] = n
        parts[f"{m}_{label}"] = pd.Series(t * std.to_numpy() / np.sqrt(n.to_numpy()), std.index)
    if not parts:
        return df[by].drop_duplicates().reset_index(drop=True)
    return pd.DataFrame(parts).reset_index(drop=not by)
