"""Statistics of the seed paper 000 reproduction (``run.py``): what each run measures (the
paper's Tables 6-9 per flow, their totals as Table 10 sums them), means with Student-t 95 %
intervals over the replications, the paired ACNS − no ACNS differences on the same
replication, and the rules that turn them into verdicts."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from acns_setup import ALL_RUNNING_S, TCP
from ccsim.stats import t_ppf

TRENDS = ("trend_keep", "trend_fallback", "trend_decrease")


def per_run(flows: pd.DataFrame, series: pd.DataFrame) -> pd.DataFrame:
    """One row per replication (indexed by it): per flow ``<metric><i>`` (i = 1..3) and the
    totals. ``avg``: goodput over the flow's life (Mb/s); ``max``: the largest 5-second mean of
    its 1-second throughput bins (a bin counts in-order delivery, so a repaired hole releases
    more than a second's data into one bin); ``steady``: the mean from ALL_RUNNING_S on;
    ``rtt``/``rtt_max``: over every sample (s); ``mb``: payload delivered (MB); ``loss``: packets
    of the flow dropped anywhere. Totals: TCP throughput and data summed, ``rtt`` the mean of
    the three flows' means (Table 10's "total average RTT"), ``rtt_max`` the largest."""
    rows = {}
    thr = series[series["series"] == "throughput"]
    for rep, f in flows.groupby("point"):
        t = f.set_index("flow").loc[list(TCP)]
        s = thr[thr["point"] == rep]
        row: dict[str, float] = {}
        for i, name in enumerate(TCP, start=1):
            b = s[s["flow"] == name].sort_values("time_s")
            v = b["value"].to_numpy(dtype=float) / 1e6
            row[f"avg{i}"] = float(t.loc[name, "goodput_bps"]) / 1e6
            row[f"max{i}"] = float(pd.Series(v).rolling(5).mean().max()) if len(v) >= 5 else 0.0
            row[f"steady{i}"] = float(v[b["time_s"].to_numpy() > ALL_RUNNING_S].mean())
            row[f"rtt{i}"] = float(t.loc[name, "rtt_mean_s"])
            row[f"rtt_max{i}"] = float(t.loc[name, "rtt_max_s"])
            row[f"mb{i}"] = float(t.loc[name, "bytes_delivered"]) / 1e6
            row[f"loss{i}"] = float(t.loc[name, "packets_dropped"])
            row[f"freezes{i}"] = float(t.loc[name, "acns_freezes"])
            row[f"fallbacks{i}"] = float(t.loc[name, "acns_fallbacks"])
        row["thr"] = sum(row[f"avg{i}"] for i in (1, 2, 3))
        row["rtt"] = sum(row[f"rtt{i}"] for i in (1, 2, 3)) / 3
        row["rtt_max"] = max(row[f"rtt_max{i}"] for i in (1, 2, 3))
        row["mb"] = sum(row[f"mb{i}"] for i in (1, 2, 3))
        row["loss"] = sum(row[f"loss{i}"] for i in (1, 2, 3))
        row["freezes"] = float(t["acns_freezes"].sum())
        row["fallbacks"] = float(t["acns_fallbacks"].sum())
        row["timeouts"] = float(t["timeouts"].sum())
        for k in TRENDS:
            row[k] = float(t[f"acns_{k}"].sum())
        row["udp"] = float(f[f["kind"] == "cbr"]["goodput_bps"].sum()) / 1e6
        rows[int(rep)] = row
    return pd.DataFrame.from_dict(rows, orient="index").sort_index()


def half_width(x) -> float:
    """Student-t 95 % half-width of the mean of ``x`` (0 for one value or no spread)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n < 2 or float(np.std(x)) == 0.0:
        return 0.0
    return t_ppf(0.975, n - 1) * float(np.std(x, ddof=1)) / math.sqrt(n)


@dataclass(frozen=True)
class Est:
    """A mean and its 95 % half-width."""

    mean: float
    hw: float

    @property
    def lo(self) -> float:
        return self.mean - self.hw

    @property
    def hi(self) -> float:
        return self.mean + self.hw

    def sign(self) -> int:
        """+1 or −1 when the interval excludes zero, 0 when it contains it."""
        return 0 if self.lo <= 0.0 <= self.hi else (1 if self.mean > 0 else -1)

    def covers(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def fmt(self, spec: str = ".2f", unit: str = "", signed: bool = False) -> str:
        """As "0.33 ± 0.01 s", or with ``signed`` "+2.9 ± 1.1 %" (a minus sign as in the text)."""
        m = format(self.mean, ("+" if signed else "") + spec)
        text = f"{m} ± {format(self.hw, spec)}{unit}"
        return text.replace("-", "−")


def est(x) -> Est:
    return Est(float(np.mean(x)), half_width(x))


def paired(on: pd.DataFrame, off: pd.DataFrame, key: str, relative: bool = False) -> Est:
    """ACNS − no ACNS of ``key`` on the same replications; with ``relative`` in per cent of
    the no-ACNS value of each replication."""
    a, b = on[key].align(off[key], join="inner")
    d = (a - b) / b * 100 if relative else a - b
    return est(d.to_numpy(dtype=float))


def diff(df: pd.DataFrame, a: str, b: str) -> Est:
    """``a`` − ``b`` within each replication of one configuration (e.g. avg3 − avg2)."""
    return est((df[a] - df[b]).to_numpy(dtype=float))


# --- verdicts ----------------------------------------------------------------------------------

NEGLIGIBLE = 0.1  # a change under a tenth of the paper's counts as none


def effect_verdict(d: Est, paper: float) -> str:
    """A change the paper reports (``paper``, same units as ``d``): "holds" if the paired
    interval excludes zero on the paper's side and contains the paper's value; "partly" if it
    excludes zero on the paper's side but not the paper's value (direction, not size); "does
    not hold" if it contains zero, lies on the other side, or its mean is under NEGLIGIBLE of
    the paper's (a 2 ms fall against the paper's 746 ms is no agreement)."""
    want = 1 if paper > 0 else -1
    if d.sign() != want or abs(d.mean) < NEGLIGIBLE * abs(paper):
        return "does not hold"
    return "holds" if d.covers(paper) else "partly"


def order_verdict(df: pd.DataFrame, order: tuple[int, int, int]) -> tuple[str, list[int]]:
    """Whether flows rank as ``order`` (best first, by lifetime throughput): each adjacent pair
    on its own paired test. "holds" if both leads are beyond the noise; "partly" if the first
    flow leads both others beyond the noise but the other pair does not order as the paper
    does; "does not hold" otherwise. Also returns the signs of the two adjacent differences."""
    a, b, c = order
    s1 = diff(df, f"avg{a}", f"avg{b}").sign()
    s2 = diff(df, f"avg{b}", f"avg{c}").sign()
    s13 = diff(df, f"avg{a}", f"avg{c}").sign()
    if s1 == 1 and s2 == 1:
        return "holds", [s1, s2]
    if s1 == 1 and s13 == 1:
        return "partly", [s1, s2]
    return "does not hold", [s1, s2]


def ranking(df: pd.DataFrame) -> str:
    """ccsim's order of the three flows by lifetime throughput: ">" where the paired
    difference is beyond the noise, "≈" where its interval contains zero (e.g. "#3 > #1 > #2")."""
    means = {i: float(df[f"avg{i}"].mean()) for i in (1, 2, 3)}
    idx = sorted(means, key=means.get, reverse=True)
    out = f"#{idx[0]}"
    for x, y in zip(idx, idx[1:]):
        out += (" > " if diff(df, f"avg{x}", f"avg{y}").sign() == 1 else " ≈ ") + f"#{y}"
    return out


def loss_verdict(on: pd.DataFrame, off: pd.DataFrame, share: float) -> str:
    """The paper's "nearly none losses" (236 → 2): "holds" if ACNS's total losses stay below
    ``share`` of the baseline's (upper end of their interval against the baseline's mean);
    "partly" if they fall beyond the noise but not that far; "does not hold" otherwise."""
    d = paired(on, off, "loss")
    if d.sign() != -1:
        return "does not hold"
    return "holds" if est(on["loss"]).hi <= share * float(off["loss"].mean()) else "partly"
