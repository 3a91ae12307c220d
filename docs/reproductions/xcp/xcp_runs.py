"""Runs of the paper 004 reproduction and what is measured in each: one row of numbers per
run (``measure``), means with Student-t intervals over replications (``summarise``), the
convergence time of Jain's index, and the bottleneck's departures per RTT from a packet trace.
"""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict

import ccsim
import numpy as np
import pandas as pd
from ccsim.stats import t_ppf
from xcp_setup import (
    JAIN_HOLD_S,
    JAIN_LEVEL,
    JAIN_WINDOW_S,
    RATE_BPS,
    RTT_BIN_S,
    SCENARIO,
    STEADY_S,
    TAIL_S,
    Case,
    overrides,
)


def simulate(case: Case) -> ccsim.Result:
    return ccsim.run(SCENARIO, seed=case.rep + 1, overrides=overrides(case))


def bottleneck_row(r: ccsim.Result) -> pd.Series:
    q = r.queues
    return q[(q["link"] == "bottleneck") & (q["from"] == "left")].iloc[0]


def goodput_between(r: ccsim.Result, t0: float, t1: float) -> pd.Series:
    """Each flow's mean goodput (bit/s) over [t0, t1], from the one-RTT bins (labelled by
    their end): the bins that end in (t0, t1]."""
    th = r.trace("throughput")
    sel = th[(th["time_s"] > t0 + 1e-9) & (th["time_s"] <= t1 + 1e-9)]
    names = [str(f) for f in r.flows["flow"]]
    bits = sel.groupby(sel["flow"].astype(str))["value"].sum() * RTT_BIN_S
    span = RTT_BIN_S * len(np.unique(sel["time_s"]))
    return bits.reindex(names, fill_value=0.0) / span


def convergence_time(jain: pd.Series, since: float, end: float) -> float:
    """Seconds after ``since`` until the index reaches JAIN_LEVEL and then stays at or above
    it for JAIN_HOLD_S; NaN if that does not happen with JAIN_HOLD_S left before ``end``."""
    j = jain[jain.index >= since].dropna()
    t = j.index.to_numpy(dtype=float)
    ok = j.to_numpy() >= JAIN_LEVEL
    for i in np.flatnonzero(ok):
        if t[i] + JAIN_HOLD_S > end + 1e-9:
            break
        if ok[(t >= t[i]) & (t <= t[i] + JAIN_HOLD_S)].all():
            return float(t[i] - since)
    return math.nan


def deepest_cut(cwnd: np.ndarray) -> float:
    """The largest share of the window lost from one 100 ms sample to the next."""
    if len(cwnd) < 2:
        return 0.0
    prev, nxt = cwnd[:-1], cwnd[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        cut = np.where(prev > 0, 1.0 - nxt / prev, 0.0)
    return float(max(0.0, np.nanmax(cut)))


def cwnd_at(cw: pd.DataFrame, t: float) -> float:
    """Flow f0's window at the last sample at or before ``t``."""
    f0 = cw[(cw["flow"].astype(str) == "f0") & (cw["time_s"] <= t + 1e-9)]["value"]
    return float(f0.iloc[-1]) if len(f0) else math.nan


def measure(case: Case, r: ccsim.Result) -> dict:
    """One run's numbers. Utilisation: the bottleneck's bytes on the wire over the run's
    capacity; efficiency: the flows' goodput after STEADY_S (one flow) or TAIL_S (several)
    over the most a saturated link carries: the capacity times the payload's share of a
    data packet (1000/1040 B in the ns2 profile, 1448/1500 B in linux's), measured from the
    run (payload bytes per data packet sent, wire bytes per packet through the bottleneck)."""
    f, q = r.flows, r.queues
    end = float(r.meta.get("duration_s", 200.0))
    bn = bottleneck_row(r)
    since = STEADY_S if case.n_flows == 1 else TAIL_S
    per_flow = goodput_between(r, since, end)
    payload = float(f["bytes_sent"].sum()) / float(f["packets_sent"].sum())
    wire = float(bn["bytes_departed"]) / float(bn["departures"])
    max_goodput = RATE_BPS * payload / wire
    first = q[
        q["link"].astype(str).str.startswith("access_s") & q["from"].astype(str).str.startswith("s")
    ]
    cw = r.trace("cwnd")
    cw0 = cw[(cw["flow"].astype(str) == "f0") & (cw["time_s"] >= STEADY_S)]["value"].to_numpy()
    row = {
        **{k: v for k, v in asdict(case).items() if k != "packets"},
        "factors": str(case.factors) if case.factors else "",
        "utilisation": float(bn["utilisation"]),
        "efficiency": float(per_flow.sum()) / max_goodput,
        "drops": int(q["drops_overflow"].sum()),
        "timeouts": int(f["timeouts"].sum()),
        "retransmits": int(f["retransmits"].sum()),
        "queue_bottleneck": float(bn["avg_len_pkts"]),
        "queue_first_hop": float(first["avg_len_pkts"].mean()),
        "packets_sent": int(f["packets_sent"].sum()),
        "cwnd_mean": float(cw0.mean()) if len(cw0) else math.nan,
        "cwnd_min": float(cw0.min()) if len(cw0) else math.nan,
        "cwnd_max": float(cw0.max()) if len(cw0) else math.nan,
        "cwnd_cov": float(cw0.std() / cw0.mean()) if len(cw0) and cw0.mean() > 0 else math.nan,
        "deepest_cut": deepest_cut(cw0),
        # BIC's dwell after its start-up (the report's BIC-against-HighSpeed section)
        "cwnd_20": cwnd_at(cw, 20.0),
        "cwnd_40": cwnd_at(cw, 40.0),
    }
    if case.n_flows > 1:
        last_start = float(f["start_s"].max())
        jain = ccsim.jain_over_time(r, window=JAIN_WINDOW_S)
        share = per_flow / per_flow.sum() if per_flow.sum() > 0 else per_flow
        row.update(
            jain_tail=ccsim.jain_index(per_flow.to_numpy()),
            jain_mean=float(jain[jain.index >= last_start].mean()),
            convergence_s=convergence_time(jain, last_start, end),
            share_min=float(share.min()),
            share_max=float(share.max()),
        )
    return row


def _one(case: Case) -> dict:
    return measure(case, simulate(case))


def run_all(cases: list[Case], workers: int = 1) -> pd.DataFrame:
    """Runs every case (in ``workers`` processes) and returns one row each."""
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            rows = list(pool.map(_one, cases, chunksize=4))
    else:
        rows = [_one(c) for c in cases]
    return pd.DataFrame(rows)


def interval(values) -> tuple[float, float, int]:
    """Mean, the half-width of its 95 % Student-t interval (NaN for fewer than two values,
    0 when all agree), and the count, over the non-NaN values."""
    x = np.asarray([v for v in values if not (isinstance(v, float) and math.isnan(v))], float)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, 0
    if n == 1:
        return float(x[0]), math.nan, 1
    half = t_ppf(0.975, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return float(x.mean()), half, n


def summarise(rows: pd.DataFrame, by: list[str], metrics: list[str]) -> pd.DataFrame:
    """Per group of ``by``: ``m``, ``m_ci`` and ``m_n`` for every metric (see ``interval``),
    and ``reps``, the number of runs."""
    out = []
    for key, g in rows.groupby(by, sort=False, dropna=False):
        rec = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        rec["reps"] = len(g)
        for m in metrics:
            mean, half, n = interval(g[m].tolist())
            rec[m], rec[f"{m}_ci"], rec[f"{m}_n"] = mean, half, n
        out.append(rec)
    return pd.DataFrame(out)


def departures_per_rtt(r: ccsim.Result, by_flow: bool = False) -> pd.DataFrame:
    """The bottleneck's forward departures in windows of one base RTT, as a share of what
    the link can send in one (``utilisation``), per flow if ``by_flow``: ``time_s`` (window
    end), [``flow``], ``utilisation``. A packet counts when its transmission starts, so a window
    holds at most one packet more than the link sends in it: these curves
    are free of the goodput series' spikes (a repaired hole delivers a whole window at once)."""
    p = r.packets
    dep = p[(p["event"] == "-") & (p["from"].astype(str) == "left") & (p["kind"] == "tcp")]
    end = float(r.meta.get("duration_s", 200.0))
    edges = np.arange(0.0, end + RTT_BIN_S, RTT_BIN_S)
    cap = RATE_BPS / 8 * RTT_BIN_S
    keys = [str(f) for f in r.flows["flow"]] if by_flow else [None]
    frames = []
    for k in keys:
        d = dep if k is None else dep[dep["flow"].astype(str) == k]
        sums, _ = np.histogram(
            d["time_s"].to_numpy(float), edges, weights=d["size"].to_numpy(float)
        )
        fr = pd.DataFrame({"time_s": edges[1:], "utilisation": sums / cap})
        if k is not None:
            fr.insert(1, "flow", k)
        frames.append(fr)
    return pd.concat(frames, ignore_index=True)
