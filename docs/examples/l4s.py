"""Prague and DCTCP against CUBIC through DualPI2, FQ-CoDel and a step queue: an example study of
L4S (RFC 9330–9332), not a paper's reproduction.

    python docs/examples/l4s.py           # 160 runs (a few minutes on 2 cores), figure, report
    python docs/examples/l4s.py --quick   # a small grid, for the tests

Two flows share a 50 Mb/s bottleneck for 40 s: a scalable one (TCP Prague; DCTCP sending ECT(1)
as L4S experiments run it; DCTCP sending ECT(0) as Linux's module does) or a second CUBIC flow,
and a CUBIC flow (Not-ECT). Base RTTs are 10 and 40 ms. The queue is DualPI2 with Linux's
defaults, FQ-CoDel with Linux's defaults (ECN on), the same with Linux's L4S ``ce_threshold``
(1 ms, ECT(1) only), or a step-marking queue at K = 12 packets
(DCTCP's rule K > C·RTT/7 at 50 Mb/s and 20 ms). Each point is replicated five times: CUBIC
starts 0.5 to 2.5 s after the first flow, each with its own seed. Writes
``docs/examples/figures/l4s.png`` and regenerates ``docs/examples/l4s.md``; every number in the
report comes from these runs.
"""

from __future__ import annotations

import argparse
import math
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import ccsim
import matplotlib
import numpy as np
import pandas as pd
from ccsim.stats import t_ppf

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs" / "examples"
FIGURE = DOCS / "figures" / "l4s.png"
REPORT = DOCS / "l4s.md"

RATE = "50Mbps"
DURATION_S = 40.0
WARMUP_S = 10.0  # delay percentiles are taken after this
STEP_K = 12  # packets: 50 Mb/s × 20 ms / 1500 B / 7, rounded up
QUEUES = {
    "dualpi2": {"kind": "dualpi2"},
    "fq_codel": {"kind": "fq_codel"},
    # Linux's L4S setting of FQ-CoDel: CE at once above 1 ms of sojourn, for ECT(1) only.
    "fq_codel_ce": {
        "kind": "fq_codel",
        "ce_threshold": "1ms",
        "ce_threshold_selector": 1,
        "ce_threshold_mask": 1,
    },
    "step": {"kind": "step", "threshold": STEP_K, "limit": 1000},
}
# The first flow of each mix; the second is always CUBIC.
MIXES = {
    "prague": "prague",
    "dctcp-ect1": {"kind": "dctcp", "ect1": True},
    "dctcp-ect0": "dctcp",
    "cubic": "cubic",
}
RTTS_MS = (10, 40)
STARTS_S = (0.5, 1.0, 1.5, 2.0, 2.5)  # when CUBIC starts, one per replication
PERCENTILES = (50, 90, 99)


def scenario(queue: str, mix: str, rtt_ms: int, start_s: float, seed: int) -> dict:
    """The bottleneck carries all but 4 ms of the base RTT (1 ms access links each way)."""
    return {
        "name": f"l4s-{queue}-{mix}-{rtt_ms}ms",
        "duration": DURATION_S,
        "seed": seed,
        "defaults": "linux",
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "bottleneck": {
                "rate": RATE,
                "delay": f"{(rtt_ms - 4) / 2:g}ms",
                "queue": QUEUES[queue],
            },
            "access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "flows": [
            {"kind": "tcp", "name": "first", "src": "s0", "dst": "d0", "tcp": {"cc": MIXES[mix]}},
            {
                "kind": "tcp",
                "name": "cubic",
                "src": "s1",
                "dst": "d1",
                "start": start_s,
                "tcp": {"cc": "cubic"},
            },
        ],
        "trace": {"packets": ["bottleneck"]},
    }


def queueing_delays(packets: pd.DataFrame) -> pd.DataFrame:
    """Each data packet's wait in the bottleneck queue (from its arrival, ``+``, to the start
    of its transmission, ``-``), with its flow and arrival time, from a packet trace."""
    p = packets[(packets["from"] == "left") & (packets["kind"] == "tcp")]
    p = p[p["event"].isin(["+", "-"])]
    t = p.pivot_table(index="uid", columns="event", values="time_s", aggfunc="first")
    t = t.dropna()  # dropped packets never start transmission
    flow = p.drop_duplicates("uid").set_index("uid")["flow"].astype(str)
    return pd.DataFrame(
        {"flow": flow.loc[t.index], "time_s": t["+"], "wait_ms": (t["-"] - t["+"]) * 1e3}
    )


def one_run(point: tuple) -> list[dict]:
    """Runs one point and reduces it to a row per flow: goodput, retransmissions, and the
    percentiles of its packets' queueing delay at the bottleneck after the warm-up."""
    queue, mix, rtt_ms, rep = point
    r = ccsim.run(scenario(queue, mix, rtt_ms, STARTS_S[rep], seed=1 + rep))
    waits = queueing_delays(r.packets)
    waits = waits[waits["time_s"] >= WARMUP_S]
    rows = []
    for _, f in r.flows.iterrows():
        w = waits[waits["flow"] == f["flow"]]["wait_ms"].to_numpy()
        row = {
            "queue": queue,
            "mix": mix,
            "rtt_ms": rtt_ms,
            "rep": rep,
            "flow": f["flow"],
            "mbps": f["goodput_bps"] / 1e6,
            "retx": int(f["retransmits"]),
            "packets": len(w),
        }
        for q in PERCENTILES:
            row[f"p{q}_ms"] = float(np.percentile(w, q)) if len(w) else math.nan
        rows.append(row)
    return rows


def study(queues=None, mixes=None, rtts=RTTS_MS, reps=None, workers=None):
    """One row per run and flow; the queues, mixes and replications default to all."""
    queues, mixes = queues or tuple(QUEUES), mixes or tuple(MIXES)
    reps = reps or len(STARTS_S)
    points = [(q, m, r, k) for q in queues for m in mixes for r in rtts for k in range(reps)]
    if workers == 0:
        out = [one_run(p) for p in points]
    else:
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
            out = list(pool.map(one_run, points))
    return pd.DataFrame([row for rows in out for row in rows])


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    n = len(x)
    half = t_ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
    return float(x.mean()), float(half)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per queue, mix and RTT: the first flow's share of the goodput (mean and 95 %
    t-interval over the replications), each flow's mean delay percentiles and
    retransmissions, and the link's utilisation."""
    out = []
    for (q, m, r), g in runs.groupby(["queue", "mix", "rtt_ms"], sort=False):
        first = g[g["flow"] == "first"].set_index("rep")
        cubic = g[g["flow"] == "cubic"].set_index("rep")
        total = first["mbps"] + cubic["mbps"]
        share, ci = _mean_ci((first["mbps"] / total).to_numpy())
        row = {"queue": q, "mix": m, "rtt_ms": r, "n": len(first), "share": share, "ci95": ci}
        for who, d in (("first", first), ("cubic", cubic)):
            for p in PERCENTILES:
                row[f"{who}_p{p}_ms"] = d[f"p{p}_ms"].mean()
            row[f"{who}_retx"] = d["retx"].mean()
        row["utilisation"] = (total / 50.0).mean()
        out.append(row)
    return pd.DataFrame(out)


def figure(s: pd.DataFrame) -> None:
    rtts = sorted(s["rtt_ms"].unique())
    fig, axes = plt.subplots(len(rtts), 2, figsize=(13, 4 * len(rtts)), layout="constrained")
    axes = np.atleast_2d(axes)
    mixes = list(dict.fromkeys(s["mix"]))
    queues = list(dict.fromkeys(s["queue"]))
    width = 0.8 / len(mixes)
    for i, r in enumerate(rtts):
        ax_d, ax_s = axes[i]
        for j, m in enumerate(mixes):
            g = s[(s["rtt_ms"] == r) & (s["mix"] == m)].set_index("queue").reindex(queues)
            x = np.arange(len(queues)) + (j - (len(mixes) - 1) / 2) * width
            bars = ax_d.bar(x - width / 4, g["first_p99_ms"], width / 2, label=f"{m}: p99")
            ax_d.scatter(
                x - width / 4, g["first_p50_ms"], color="black", marker="_", s=80, zorder=3
            )
            ax_d.bar(x + width / 4, g["cubic_p99_ms"], width / 2, color=bars[0].get_facecolor(),
                     alpha=0.35, hatch="//", label=f"CUBIC beside {m}: p99")  # fmt: skip
            ax_d.scatter(
                x + width / 4, g["cubic_p50_ms"], color="black", marker="_", s=80, zorder=3
            )
            ax_s.bar(x, g["share"], width, yerr=g["ci95"], label=m, color=bars[0].get_facecolor())
        for ax in (ax_d, ax_s):
            ax.set_xticks(np.arange(len(queues)), queues)
            ax.grid(axis="y", alpha=0.3)
        ax_d.set_ylabel(f"queueing delay (ms), base RTT {r} ms")
        ax_d.set_title("p99 bars (solid: first flow, hatched: CUBIC); black ticks: p50")
        ax_s.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax_s.set_ylim(0, 1)
        ax_s.set_ylabel("first flow's share of the goodput")
    below = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.08), "fontsize": 8}
    axes[-1][0].legend(ncol=2, **below)
    axes[-1][1].legend(ncol=4, **below)
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURE, dpi=100)
    plt.close(fig)


def _row(s: pd.DataFrame, queue: str, mix: str, rtt: int) -> pd.Series:
    return s[(s["queue"] == queue) & (s["mix"] == mix) & (s["rtt_ms"] == rtt)].iloc[0]


def _range(s: pd.DataFrame, queue: str, mix: str, col: str, fmt: str = ".2f") -> str:
    """A column's values over the base RTTs, as "a / b" in RTT order."""
    g = s[(s["queue"] == queue) & (s["mix"] == mix)].sort_values("rtt_ms")
    return " / ".join(format(v, fmt) for v in g[col])


def findings(s: pd.DataFrame) -> list[str]:
    """The report's reading of the runs; each number is taken from ``s``, and each sentence
    that states a direction checks it first."""
    rtts = sorted(s["rtt_ms"].unique())
    at = " / ".join(f"{r} ms" for r in rtts)
    have = set(zip(s["queue"], s["mix"]))
    out = []
    if ("dualpi2", "prague") in have:
        l99 = s[(s["queue"] == "dualpi2") & (s["mix"] == "prague")]["first_p99_ms"].max()
        c50 = _range(s, "dualpi2", "prague", "cubic_p50_ms", ".1f")
        out.append(
            f"- **DualPI2 separates the delays.** Prague's packets wait at most {l99:.2f} ms at "
            f"the 99th percentile (base RTT {at}), below the L queue's 1 ms step, while the "
            f"CUBIC flow beside it waits {c50} ms at the median, around the classic queue's "
            "15 ms target. That is the separation the L4S architecture (RFC 9330) and the "
            "DualQ Coupled AQM (RFC 9332) are built for, and what the Linux `sch_dualpi2` "
            "submission describes: scalable traffic kept at a very shallow marking threshold "
            "(its 1 ms step), classic traffic at the PI2 controller's 15 ms target."
        )
    if {("dualpi2", "prague"), ("dualpi2", "cubic")} <= have:
        share = _range(s, "dualpi2", "prague", "share")
        both = _range(s, "dualpi2", "cubic", "share")
        out.append(
            f"- **The coupling roughly balances rates.** Prague's share beside CUBIC is {share} "
            f"(two CUBIC flows in the same queue: {both} for the first). The coupling "
            "(p_C = (p_CL/k)², k = 2) is meant to make a flow run at about the same rate "
            "whether it uses DCTCP or Reno/CUBIC (De Schepper et al., "
            "draft-briscoe-aqm-dualq-coupled, which became RFC 9332); it balances windows at "
            "equal RTTs, and here the classic flow's RTT carries the extra 15 ms of its queue "
            "while Prague behaves as if its RTT were at least 25 ms (its RTT independence, "
            "draft-briscoe-iccrg-prague-congestion-control), so the balance is approximate."
        )
    if ("dualpi2", "dctcp-ect1") in have:
        p99 = _range(s, "dualpi2", "dctcp-ect1", "first_p99_ms")
        share = _range(s, "dualpi2", "dctcp-ect1", "share")
        out.append(
            f"- **DCTCP in the L queue** (ECT(1)) keeps {p99} ms at the 99th percentile and "
            f"takes {share} of the rate: more than Prague, since it has neither Prague's "
            "RTT-independence nor pacing."
        )
    if ("dualpi2", "dctcp-ect0") in have:
        r = _range(s, "dualpi2", "dctcp-ect0", "share")
        out.append(
            f"- **DCTCP as Linux sends it (ECT(0)) lands in the classic queue** and takes {r} "
            "of the link: the classic queue marks ECN-capable packets with p'², a probability "
            "meant for a flow that halves on each mark, and DCTCP cuts only by α/2. That is why "
            "RFC 9331 has scalable senders identify themselves with ECT(1), and why RFC 8257 "
            "confines DCTCP to controlled environments: in the draft's words, DCTCP does not "
            "co-exist with existing TCP traffic."
        )
    if {("fq_codel", "prague"), ("fq_codel", "cubic")} <= have:
        out.append(
            f"- **FQ-CoDel shares fairly but does not give scalable flows low delay.** Shares "
            f"are {_range(s, 'fq_codel', 'prague', 'share')} (Prague) and "
            f"{_range(s, 'fq_codel', 'dctcp-ect1', 'share')} (DCTCP) thanks to flow queueing, "
            f"but Prague's packets wait {_range(s, 'fq_codel', 'prague', 'first_p99_ms', '.1f')}"
            f" ms at the 99th percentile and DCTCP's "
            f"{_range(s, 'fq_codel', 'dctcp-ect1', 'first_p99_ms', '.1f')}, against "
            f"{_range(s, 'fq_codel', 'cubic', 'first_p99_ms', '.1f')} ms for a CUBIC flow: CoDel "
            "marks as RFC 3168 prescribes (one mark, then marks ever closer while the sojourn "
            "stays above 5 ms, RFC 8289), a signal a flow that halves answers at once and a "
            "scalable flow, which cuts by α/2 per marked round, answers slowly. This is the "
            "classic-ECN bottleneck that RFC 9331 asks L4S senders to detect (Linux's "
            "Prague has that detection off by default, and so has ccsim's)."
        )
    if {("fq_codel", "prague"), ("fq_codel_ce", "prague")} <= have:
        out.append(fq_codel_ce_finding(s))
    if {("step", "prague"), ("step", "cubic")} <= have:
        out.append(
            f"- **A step queue starves Not-ECT traffic.** At K = {STEP_K} packets the scalable "
            f"flow takes {_range(s, 'step', 'prague', 'share')} (Prague) and "
            f"{_range(s, 'step', 'dctcp-ect1', 'share')} (DCTCP) of the goodput, with "
            f"{_range(s, 'step', 'prague', 'first_p99_ms', '.1f')} ms at the 99th percentile: "
            "an ECN-capable packet above K is marked, a Not-ECT one dropped (Linux `sch_red`'s "
            "hard mark), so CUBIC loses a packet wherever the scalable flow is merely told to "
            "slow down. DCTCP's step marking was designed for data centres where every flow is "
            "DCTCP (Alizadeh et al., SIGCOMM 2010); two CUBIC flows through the same queue "
            f"share it evenly ({_range(s, 'step', 'cubic', 'share')} for the first) at "
            f"{_range(s, 'step', 'cubic', 'first_p99_ms', '.1f')} ms."
        )
    return out


def fq_codel_ce_finding(s: pd.DataFrame) -> str:
    """What Linux's `ce_threshold` for ECT(1) changes in FQ-CoDel, each direction checked."""

    def moved(mix: str, col: str) -> str:
        a = s[(s["queue"] == "fq_codel") & (s["mix"] == mix)].sort_values("rtt_ms")[col]
        b = s[(s["queue"] == "fq_codel_ce") & (s["mix"] == mix)].sort_values("rtt_ms")[col]
        way = "falls" if (b.to_numpy() < a.to_numpy()).all() else "does not fall at every RTT"
        return f"{way} from {_range(s, 'fq_codel', mix, col, '.1f')} to " + _range(
            s, "fq_codel_ce", mix, col, ".1f"
        )

    text = (
        "- **Linux's `ce_threshold` gives FQ-CoDel the shallow marking.** With CE at once "
        'above 1 ms of sojourn for ECT(1) packets (`fq_codel_ce`: `ce_threshold = "1ms"`, '
        "selector and mask 1, as Linux's L4S setups configure `sch_fq_codel`), Prague's "
        f"99th-percentile wait {moved('prague', 'first_p99_ms')} ms"
    )
    if ("fq_codel_ce", "dctcp-ect1") in set(zip(s["queue"], s["mix"])):
        text += (
            f" and DCTCP-ECT(1)'s {moved('dctcp-ect1', 'first_p99_ms')} ms, while DCTCP "
            "sending ECT(0) is not selected and waits "
            f"{_range(s, 'fq_codel_ce', 'dctcp-ect0', 'first_p99_ms', '.1f')} ms as under "
            "plain FQ-CoDel"
        )
    share = _range(s, "fq_codel_ce", "prague", "share")
    return (
        text + f"; flow queueing still shares the link ({share} for Prague), and the CUBIC "
        "flow is untouched (its own queue, Not-ECT)."
    )


def report(runs: pd.DataFrame, s: pd.DataFrame) -> str:
    reps = int(s["n"].iloc[0])
    starts = ", ".join(f"{x:g}" for x in STARTS_S[:reps])
    lines = [
        "# L4S: Prague and DCTCP against CUBIC through DualPI2, FQ-CoDel and a step queue",
        "",
        "*Generated by `python docs/examples/l4s.py`; every number below comes from its runs.*",
        "",
        "An example study, not a paper's reproduction. Two flows share a 50 Mb/s bottleneck "
        f"for {DURATION_S:g} s (Linux profile): a scalable flow — TCP Prague (ECT(1), "
        'Accurate ECN, paced), DCTCP sending ECT(1) (`cc = { kind = "dctcp", ect1 = true }`'
        ") or DCTCP sending ECT(0) as Linux's module does — or, as a baseline, a first CUBIC "
        "flow; and a CUBIC flow without ECN. Base RTTs are "
        + " and ".join(f"{r} ms" for r in sorted(s["rtt_ms"].unique()))
        + " (1 ms access links each way, the rest on the bottleneck). The bottleneck queue is "
        "DualPI2 with Linux's defaults (15 ms target, 1 ms L step, k = 2), FQ-CoDel with "
        "Linux's defaults (ECN on, 5 ms target), FQ-CoDel with Linux's L4S `ce_threshold` "
        "(`fq_codel_ce`: CE above 1 ms of sojourn for ECT(1) packets), or a step-marking "
        f"queue at K = {STEP_K} "
        "packets (DCTCP's rule K > C·RTT/7 at 50 Mb/s and 20 ms) holding 1,000 packets. "
        f"Each point has {reps} replications: CUBIC starts {starts} s after the first flow, "
        "each with its own seed. **Queueing delay** is each data packet's wait in the "
        "bottleneck queue (arrival to start of transmission, from a packet trace), over the "
        f"packets arriving after {WARMUP_S:g} s; the percentiles are per run and averaged over "
        "the replications. **Share** is the first flow's part of the two flows' goodput over "
        "their lifetimes, with a 95 % Student-t interval over the replications.",
        "",
        "![L4S study](figures/l4s.png)",
        "",
        "| queue | first flow | base RTT (ms) | share | ±95 % | first p50 / p90 / p99 (ms) "
        "| CUBIC p50 / p90 / p99 (ms) | first retx | CUBIC retx | utilisation |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for _, r in s.iterrows():
        first = " / ".join(f"{r[f'first_p{p}_ms']:.2f}" for p in PERCENTILES)
        cubic = " / ".join(f"{r[f'cubic_p{p}_ms']:.2f}" for p in PERCENTILES)
        lines.append(
            f"| {r['queue']} | {r['mix']} | {r['rtt_ms']} | {r['share']:.2f} | {r['ci95']:.2f} "
            f"| {first} | {cubic} | {r['first_retx']:.0f} | {r['cubic_retx']:.0f} "
            f"| {r['utilisation']:.1%} |"
        )
    lines += ["", "What the runs show, and how it compares with the L4S RFCs:", ""]
    lines += findings(s)
    lines += [
        "",
        "Under FQ-CoDel and the step queue the two DCTCP rows are the same runs in effect: "
        "neither queue tells ECT(1) from ECT(0).",
        "",
        "Limits: one scalable and one classic flow, long-running, on one bottleneck; no "
        "short flows or web traffic; Linux's defaults for every queue; goodput over each "
        "flow's lifetime, so CUBIC's later start weighs a little on its share. DualPI2 here "
        "uses Linux's scheduler (WRR with 10 % classic protection) rather than the RFC's "
        "time-shifted FIFO, and Bernoulli marking rather than the RFC's `recur()` (see "
        "`docs/l4s.md`). Measurements in the literature come from real hosts with TSO, "
        "interrupt coalescing and other sources of burstiness that widen the L queue's tail.",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small grid (for the tests)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: one per core)")
    a = ap.parse_args(argv)
    if a.quick:
        runs = study(queues=("dualpi2", "step"), mixes=("prague", "cubic"), rtts=(10,), reps=2,
                     workers=a.workers)  # fmt: skip
    else:
        runs = study(workers=a.workers)
    s = summary(runs)
    figure(s)
    REPORT.write_text(report(runs, s))
    print(s.round(2).to_string(index=False))


if __name__ == "__main__":
    main()
