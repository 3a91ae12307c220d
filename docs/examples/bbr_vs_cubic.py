"""BBR v1 and BBRv3 against CUBIC across buffer sizes and RTT ratios: an example study (not a
paper's reproduction).

    python docs/examples/bbr_vs_cubic.py           # 210 runs (a few minutes), figure, report
    python docs/examples/bbr_vs_cubic.py --quick   # a small grid, for the tests

One BBR flow (v1 or v3, in separate runs) and one CUBIC flow share a 20 Mb/s DropTail
bottleneck for 40 s. The base RTT is 40 ms; one flow may have a longer RTT (the ratio BBR's
RTT / CUBIC's RTT is 1/2, 1 or 2, by 20 ms more one-way delay on its access link). The
buffer is 0.1 to 10 BDP of the 40 ms path (100 kB, 67 packets of 1,500 bytes). Each point is
replicated five times: CUBIC starts 0.5, 1, 1.5, 2 or 2.5 s after BBR, which moves where the
two flows' cycles meet. Writes ``docs/examples/figures/bbr-vs-cubic.png`` and regenerates
``docs/examples/bbr-vs-cubic.md``; every number in the report comes from these runs.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import ccsim
import matplotlib
import pandas as pd
from ccsim.stats import t_ppf

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs" / "examples"
FIGURE = DOCS / "figures" / "bbr-vs-cubic.png"
REPORT = DOCS / "bbr-vs-cubic.md"

RATE_BPS = 20e6
BASE_RTT_S = 0.040
PACKET_BYTES = 1500
BDP_PACKETS = RATE_BPS * BASE_RTT_S / 8 / PACKET_BYTES  # 66.7
BUFFERS_BDP = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 10.0)
RTT_RATIOS = (0.5, 1.0, 2.0)  # BBR's RTT / CUBIC's RTT
STARTS_S = (0.5, 1.0, 1.5, 2.0, 2.5)  # when CUBIC starts, one per replication
VERSIONS = ("bbr", "bbr3")  # the BBR flow's algorithm: v1, v3
LABEL = {"bbr": "v1", "bbr3": "v3"}
DURATION_S = 40.0


def buffer_packets(bdp: float) -> int:
    return max(2, round(bdp * BDP_PACKETS))


def base() -> dict:
    # Bottleneck 18 ms and two 1 ms access links each way: a 40 ms base RTT.
    return {
        "name": "bbr-vs-cubic-study",
        "duration": DURATION_S,
        "seed": 1,
        "defaults": "linux",
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "bottleneck": {
                "rate": RATE_BPS,
                "delay": "18ms",
                "queue": {"kind": "droptail", "limit": buffer_packets(1.0)},
            },
            "access": {"rate": "1Gbps", "delay": "1ms"},
            "left": [{}, {}],
        },
        "flows": [
            {"kind": "tcp", "name": "bbr", "src": "s0", "dst": "d0", "tcp": {"cc": "bbr"}},
            {
                "kind": "tcp",
                "name": "cubic",
                "src": "s1",
                "dst": "d1",
                "start": STARTS_S[0],
                "tcp": {"cc": "cubic"},
            },
        ],
    }


def left_for(ratio: float) -> list[dict]:
    """Per-pair sender access links for an RTT ratio: the longer flow's link has 20 ms more
    one-way delay, doubling its 40 ms RTT."""
    longer = {"delay": "21ms"}
    if ratio > 1:
        return [longer, {}]
    if ratio < 1:
        return [{}, longer]
    return [{}, {}]


def study(
    buffers=BUFFERS_BDP,
    ratios=RTT_RATIOS,
    starts=STARTS_S,
    versions=VERSIONS,
    workers: int | None = None,
):
    """One row per run: BBR's version, the buffer (BDP and packets), the RTT ratio, the
    replication, BBR's share of the goodput, each flow's goodput and retransmissions, the
    link's utilisation and BBR's mean RTT (its base RTT plus the queueing it sees)."""
    # The replications are CUBIC's start times (the runs are otherwise deterministic).
    df = ccsim.sweep(
        base(),
        axes={
            "topology.bottleneck.queue.limit": [buffer_packets(b) for b in buffers],
            "topology.left": [left_for(r) for r in ratios],
            "flows.cubic.start": list(starts),
            "flows.bbr.tcp.cc": list(versions),
        },
        workers=workers,
        progress=False,
    )
    limit_to_bdp = {buffer_packets(b): b for b in buffers}
    ratio_of = {str(left_for(r)): r for r in ratios}
    rows = []
    keys = [
        "flows.bbr.tcp.cc",
        "topology.bottleneck.queue.limit",
        "topology.left",
        "flows.cubic.start",
    ]
    for (version, limit, left, start), g in df.groupby(keys, sort=True):
        f = g.set_index("flow")
        bbr, cubic = f.loc["bbr"], f.loc["cubic"]
        total = bbr["goodput_bps"] + cubic["goodput_bps"]
        rows.append(
            {
                "version": LABEL[version],
                "buffer_bdp": limit_to_bdp[limit],
                "buffer_pkts": limit,
                "rtt_ratio": ratio_of[str(_as_list(left))],
                "cubic_start_s": start,
                "bbr_share": bbr["goodput_bps"] / total,
                "bbr_mbps": bbr["goodput_bps"] / 1e6,
                "cubic_mbps": cubic["goodput_bps"] / 1e6,
                "bbr_retx": int(bbr["retransmits"]),
                "cubic_retx": int(cubic["retransmits"]),
                "utilisation": total / RATE_BPS,
                "bbr_rtt_ms": bbr["rtt_mean_s"] * 1e3,
            }
        )
    return pd.DataFrame(rows)


def _as_list(left) -> list:
    """A table on an axis comes back as JSON text."""
    return json.loads(left) if isinstance(left, str) else left


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95 % t-interval of BBR's share per version, buffer and RTT ratio, with the
    means of the other columns."""
    out = []
    for (v, b, r), g in runs.groupby(["version", "buffer_bdp", "rtt_ratio"], sort=True):
        x = g["bbr_share"].to_numpy()
        n = len(x)
        half = t_ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
        out.append(
            {
                "version": v,
                "buffer_bdp": b,
                "rtt_ratio": r,
                "n": n,
                "bbr_share": x.mean(),
                "ci95": half,
                "bbr_retx": g["bbr_retx"].mean(),
                "cubic_retx": g["cubic_retx"].mean(),
                "utilisation": g["utilisation"].mean(),
                "bbr_rtt_ms": g["bbr_rtt_ms"].mean(),
            }
        )
    return pd.DataFrame(out)


def figure(s: pd.DataFrame) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.5), layout="constrained")
    for (v, r), g in s.groupby(["version", "rtt_ratio"]):
        label = f"BBR {v}, RTT BBR/CUBIC = {r:g}"
        style = {"marker": "o" if v == "v1" else "s", "ls": "-" if v == "v1" else "--"}
        axes[0].errorbar(g["buffer_bdp"], g["bbr_share"], yerr=g["ci95"], label=label, **style)
        axes[1].plot(g["buffer_bdp"], g["bbr_rtt_ms"], label=label, **style)
        axes[2].plot(g["buffer_bdp"], g["bbr_retx"], label=label, **style)
    axes[0].axhline(0.5, color="grey", lw=0.8, ls="--")
    axes[0].set_ylabel("BBR's share of the goodput")
    axes[1].set_ylabel("BBR's mean RTT (ms)")
    axes[2].set_ylabel("BBR's retransmissions")
    axes[2].set_yscale("symlog", linthresh=10)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("buffer (BDP of the 40 ms path)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURE, dpi=110)


def report(runs: pd.DataFrame, s: pd.DataFrame) -> str:
    def row_of(b, r, v="v1"):
        return s[(s["buffer_bdp"] == b) & (s["rtt_ratio"] == r) & (s["version"] == v)].iloc[0]

    def share(b, r, v="v1"):
        row = row_of(b, r, v)
        return row["bbr_share"], row["ci95"]

    lo, hi = min(s["buffer_bdp"]), max(s["buffer_bdp"])
    lines = [
        "# BBR v1 and BBRv3 against CUBIC: buffer size and RTT ratio",
        "",
        "*Generated by `python docs/examples/bbr_vs_cubic.py`; every number below comes from "
        "its runs.*",
        "",
        "An example study, not a paper's reproduction. One BBR flow (v1, or v3 in runs of its "
        "own) and one CUBIC flow "
        "(Linux profile: SACK, delayed ACKs, HyStart; BBR paced as Linux paces it) share a "
        f"20 Mb/s DropTail bottleneck for {DURATION_S:g} s. The base RTT is 40 ms; the RTT "
        "ratio BBR/CUBIC is 1/2, 1 or 2, by 20 ms more one-way delay on one flow's access link. "
        "The buffer is sized in BDP of the 40 ms path (67 packets of 1,500 bytes). Each point "
        f"has {int(s['n'].iloc[0])} replications: CUBIC starts "
        + ", ".join(f"{x:g}" for x in sorted(runs["cubic_start_s"].unique()))
        + " s after BBR (the runs are otherwise deterministic: one seed). Goodput is over "
        "each flow's lifetime; intervals are 95 % Student-t intervals over the replications.",
        "",
        "![BBR against CUBIC](figures/bbr-vs-cubic.png)",
        "",
        "| BBR | buffer (BDP) | packets | RTT BBR/CUBIC | BBR's share | ±95 % | BBR retx "
        "| CUBIC retx | utilisation | BBR's mean RTT (ms) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for _, row in s.iterrows():
        lines.append(
            f"| {row['version']} | {row['buffer_bdp']:g} | {buffer_packets(row['buffer_bdp'])} "
            f"| {row['rtt_ratio']:g} | {row['bbr_share']:.2f} | {row['ci95']:.2f} "
            f"| {row['bbr_retx']:.0f} | {row['cubic_retx']:.0f} | {row['utilisation']:.1%} "
            f"| {row['bbr_rtt_ms']:.0f} |"
        )
    s_lo, c_lo = share(lo, 1.0)
    s_hi, c_hi = share(hi, 1.0)
    lines += [
        "",
        "What the runs show, and how it compares with published measurements:",
        "",
        f"- With equal RTTs, BBR takes {s_lo:.0%} (±{c_lo:.0%}) of the goodput with a "
        f"{lo:g}-BDP buffer and {s_hi:.0%} (±{c_hi:.0%}) with a {hi:g}-BDP one. Its share "
        f"{'falls' if s_hi < s_lo else 'does not fall'} as the buffer deepens: in a shallow "
        "buffer CUBIC's losses keep it small while BBR, which does not back off on loss, keeps "
        "pacing at its estimate; in a deep one CUBIC fills the buffer while BBR's flight is "
        "capped near twice its estimated BDP. Hock, Bless & Zitterbart (ICNP 2017) and Cao et "
        "al. (IMC 2019) measured the same direction on Linux hosts, and Ware et al. (IMC 2019) "
        "explain BBR's deep-buffer share by that in-flight cap.",
    ]
    v1 = s[s["version"] == "v1"]
    piv = v1.pivot(index="buffer_bdp", columns="rtt_ratio", values="bbr_share")
    if {0.5, 1.0, 2.0} <= set(piv.columns):
        helps = [b for b in piv.index if piv.loc[b, 2.0] > piv.loc[b, 1.0] > piv.loc[b, 0.5]]
        cells = ", ".join(
            f"{b:g} BDP: {piv.loc[b, 0.5]:.0%} / {piv.loc[b, 1.0]:.0%} / {piv.loc[b, 2.0]:.0%}"
            for b in piv.index
        )
        lines.append(
            "- BBR's share with its RTT half, equal to and double CUBIC's — "
            + cells
            + ". "
            + (
                "At "
                + ", ".join(f"{b:g}" for b in helps)
                + " BDP a longer RTT helps BBR (its in-flight cap, "
                "2 × bw × min RTT, grows with its RTT), the opposite of loss-based TCP's RTT "
                "unfairness and the direction Hock et al. observed; in shallower buffers, where "
                "BBR takes nearly everything, the RTT matters little."
                if helps
                else "Here the RTT ratio moves BBR's share in no consistent direction, unlike "
                "Hock et al.'s observation that BBR flows with longer RTTs take more; this "
                "deserves a closer look."
            )
        )
    retx_lo = v1[(v1["buffer_bdp"] == lo)]["bbr_retx"].mean()
    retx_hi = v1[(v1["buffer_bdp"] == hi)]["bbr_retx"].mean()
    lines += [
        f"- BBR v1 retransmits {retx_lo:.0f} segments on average in a {lo:g}-BDP buffer and "
        f"{retx_hi:.0f} in a {hi:g}-BDP one: v1 ignores loss, so shallow buffers cost it "
        "many retransmissions (BBRv2 and v3 were designed to answer loss).",
    ]
    if "v3" in set(s["version"]):
        v3 = s[s["version"] == "v3"]
        shallow = sorted(b for b in v3["buffer_bdp"].unique() if b <= 1.0)
        less = [b for b in shallow if share(b, 1.0, "v3")[0] < share(b, 1.0, "v1")[0]]
        cells = ", ".join(
            f"{b:g} BDP: {share(b, 1.0, 'v1')[0]:.0%} → {share(b, 1.0, 'v3')[0]:.0%}"
            for b in sorted(v3["buffer_bdp"].unique())
        )
        r3_lo = v3[(v3["buffer_bdp"] == lo)]["bbr_retx"].mean()
        deeper = [
            b
            for b in sorted(v3["buffer_bdp"].unique())
            if b > 1.0 and share(b, 1.0, "v3")[0] > share(b, 1.0, "v1")[0]
        ]
        lines.append(
            "- BBRv3 against v1, equal RTTs, BBR's share — "
            + cells
            + ". "
            + (
                "In every buffer of at most 1 BDP v3 takes less than v1"
                if len(less) == len(shallow)
                else "In the buffers of at most 1 BDP v3 takes less than v1 only at "
                + (", ".join(f"{b:g}" for b in less) or "none")
                + " BDP"
            )
            + f", and retransmits {r3_lo:.0f} segments on average in the {lo:g}-BDP buffer "
            f"against v1's {retx_lo:.0f}: its probes stop at a loss rate of 2 % "
            "(`inflight_hi`) and each lossy round cuts its short-term bounds by 0.7, where v1 "
            "keeps pacing at its estimate. That is the direction of the change Google reported "
            "for BBRv2/v3 (Cardwell et al., IETF 104–117 ICCRG/CCWG presentations: lower loss "
            "and better coexistence with CUBIC in shallow buffers) and that Kfoury et al. "
            "(Computer Communications, 2020) measured for BBRv2; Zeynali et al. (PAM 2024) "
            "still found BBRv3 taking more than its share against CUBIC in several settings, "
            "as it does here in the shallowest buffers."
            + (
                " In the deeper buffers ("
                + ", ".join(f"{b:g}" for b in deeper)
                + " BDP) v3 takes more than v1: there the losses come from CUBIC filling the "
                "buffer, not from BBR's probes; this study does not separate why."
                if deeper
                else ""
            ),
        )
    lines += [
        "",
        "Limits: one flow of each; a single bottleneck with DropTail; 40 s runs (four of BBR's "
        "ProbeRTT periods), with goodput over each flow's lifetime, so CUBIC's later start and "
        "slow start weigh a little on its share. The published studies used real hosts with "
        "TSO, and BBR's Linux code has changed since.",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small grid (for the tests)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: one per core)")
    a = ap.parse_args(argv)
    if a.quick:
        runs = study(buffers=(0.25, 10.0), ratios=(1.0,), starts=STARTS_S[:2], workers=a.workers)
    else:
        runs = study(workers=a.workers)
    s = summary(runs)
    figure(s)
    REPORT.write_text(report(runs, s))
    print(s.to_string(index=False))


if __name__ == "__main__":
    main()
