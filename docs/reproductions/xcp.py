"""Reproduction of seed paper 004: Sheela & Raja, "Window adjustment procedure in high BDP
networks" — XCP, and XCP with the paper's congestion-bit window adjustment, against HighSpeed
TCP and BIC on a dumbbell with 10 Mb/s, 10 ms access links and a 10 Mb/s, 250 ms bottleneck.

    python docs/reproductions/xcp.py      # runs the eight scenarios (seconds), figures, report

One long flow per run, 200 s, from ``scenarios/xcp.toml``. The paper gives neither buffer sizes
nor the threshold ``Q_th``: every queue holds 500 packets (about the path's bandwidth-delay
product of 435 packets, the XCP paper's rule) with ``Q_th`` half of it, and again 50 packets
(ns-2's default) to show what small buffers do. XCP runs with an XCP router on every link, as
in XCP's own simulations; HighSpeed and BIC through DropTail. Writes the PNGs into
``docs/reproductions/figures/`` and regenerates ``docs/reproductions/xcp.md``; every number
in the report comes from these runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import ccsim
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from repro_grid import ROOT, shown  # noqa: E402

SCENARIO = ROOT / "scenarios" / "xcp.toml"
DOCS = ROOT / "docs" / "reproductions"
FIGURES = DOCS / "figures"
REPORT = DOCS / "xcp.md"
BUFFERS = (500, 50)
RATE_BPS = 10e6
STEADY_S = 50.0
VARIANTS = {
    "HighSpeed": lambda limit: ({"kind": "droptail", "limit": limit}, "highspeed"),
    "BIC": lambda limit: ({"kind": "droptail", "limit": limit}, "bic"),
    "XCP": lambda limit: ({"kind": "xcp", "limit": limit}, "xcp"),
    "XCP + window adjustment": lambda limit: (
        {"kind": "xcp", "limit": limit, "congestion_threshold": limit // 2},
        {"kind": "xcp", "window_adjustment": True},
    ),
}


def run(variant: str, limit: int) -> ccsim.Result:
    queue, cc = VARIANTS[variant](limit)
    overrides = {
        "topology.access.queue": queue,
        "topology.bottleneck.queue": queue,
        "flows.f0.tcp.cc": cc,
    }
    return ccsim.run(SCENARIO, overrides=overrides)


def row(variant: str, limit: int, r: ccsim.Result) -> dict:
    q, f = r.queues, r.flows
    first = q[(q["link"] == "access_s0") & (q["from"] == "s0")].iloc[0]
    bottleneck = q[(q["link"] == "bottleneck") & (q["from"] == "left")].iloc[0]
    thr = r.trace("throughput")
    steady = thr[thr["time_s"] >= STEADY_S]["value"]
    cwnd = r.trace("cwnd")
    cw = cwnd[cwnd["time_s"] >= STEADY_S]["value"]
    return {
        "variant": variant,
        "buffer": limit,
        "utilisation": float(bottleneck["utilisation"]),
        "steady": float(steady.mean()) / RATE_BPS,
        "goodput": float(f["goodput_bps"].iloc[0]) / 1e6,
        "drops": int(q["drops_overflow"].sum()),
        "retransmits": int(f["retransmits"].iloc[0]),
        "queue": float(first["avg_len_pkts"]),
        "cwnd": (float(cw.min()), float(cw.mean()), float(cw.max())),
    }


def figure(results: dict, limit: int, series: str, ylabel: str, scale: float) -> Path:
    fig, axes = plt.subplots(2, 2, figsize=(10, 6), sharex=True)
    for ax, (variant, r) in zip(axes.flat, ((v, results[v, limit]) for v in VARIANTS)):
        t = r.trace(series)
        ax.plot(t["time_s"], t["value"] / scale, lw=0.8)
        ax.set_title(variant, fontsize=10)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    fig.suptitle(f"10 Mb/s, 250 ms bottleneck, buffers of {limit} packets")
    fig.tight_layout()
    path = FIGURES / f"xcp-{series}-{limit}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def table(rows: list[dict]) -> str:
    head = (
        "| variant | buffer | utilisation | goodput after 50 s | goodput (Mb/s) | drops "
        "| retransmits | first-hop queue | cwnd after 50 s (min / mean / max) |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    )
    body = "".join(
        f"| {r['variant']} | {r['buffer']} | {r['utilisation']:.1%} | {r['steady']:.1%} "
        f"| {r['goodput']:.2f} | {r['drops']} | {r['retransmits']} | {r['queue']:.1f} "
        f"| {r['cwnd'][0]:.0f} / {r['cwnd'][1]:.0f} / {r['cwnd'][2]:.0f} |\n"
        for r in rows
    )
    return head + body


def main() -> None:
    FIGURES.mkdir(parents=True, exist_ok=True)
    results = {(v, b): run(v, b) for b in BUFFERS for v in VARIANTS}
    rows = [row(v, b, results[v, b]) for b in BUFFERS for v in VARIANTS]
    figs = [
        figure(results, b, s, label, scale)
        for b in BUFFERS
        for s, label, scale in (("cwnd", "cwnd (segments)", 1.0), ("throughput", "Mb/s", 1e6))
    ]
    by = {(r["variant"], r["buffer"]): r for r in rows}
    text = REPORT_TEMPLATE.format(
        table=table(rows),
        figures="\n".join(f"![{p.stem}](figures/{p.name})" for p in figs),
        xcp=by["XCP", 500],
        hs=by["HighSpeed", 500],
        bic=by["BIC", 500],
        wa=by["XCP + window adjustment", 500],
        xcp50=by["XCP", 50],
        wa50=by["XCP + window adjustment", 50],
        script=shown(Path(__file__)),
        scenario=shown(SCENARIO),
    )
    REPORT.write_text(text)
    print(table(rows))
    print(f"wrote {shown(REPORT)}")


REPORT_TEMPLATE = """# XCP and its window adjustment (seed paper 004)

Sheela & Raja, *Window adjustment procedure in high BDP networks*: XCP (Katabi, Handley &
Rohrs, SIGCOMM 2002) with a congestion bit that routers set when the input rate reaches the
capacity or the queue reaches `Q_th`, on which the sender sets `cwnd = max(AR·RTT·0.02, MSS)`
(queue at or above `Q_th`) or `max(AR·RTT·0.05, MSS)`, compared with HighSpeed TCP and BIC.
The paper reports 98 % efficiency for its procedure and plots cwnd over time; it gives no
numbers to compare with beyond that.

Regenerate with `python {script}` (seconds). Every number below comes from that run.

## Setup

- `{scenario}`: a dumbbell, 10 Mb/s and 10 ms access links, a 10 Mb/s and 250 ms bottleneck
  (RTT 520 ms, a bandwidth-delay product of about 435 full segments), one bulk flow for 200 s.
- The paper gives no buffer sizes and no `Q_th`. Every queue holds 500 packets, about one
  bandwidth-delay product (XCP's own rule), with `Q_th` = 250; the 50-packet rows (ns-2's
  default, `Q_th` = 25) show small buffers.
- XCP flows cross an XCP router on every link, as in XCP's simulations: with access links as
  fast as the bottleneck, the queue forms at the sender's first hop, which must be XCP's too
  to see it. HighSpeed and BIC go through DropTail.
- The window adjustment's factors are the printed 0.02 and 0.05; it applies at most once per
  RTT (the paper does not say how often; this is ECN's rule, RFC 3168 §6.1.2), and `AR` is
  the rate the routers admitted for the flow, `(H_cwnd + H_feedback)/H_rtt`.

## Results

{table}
Utilisation is the bottleneck's over the whole run, start-up included; "goodput after 50 s"
is the flow's mean delivered payload rate from 50 s on over the capacity (headers take 3.5 %,
so a full link shows 96.5 %). The first-hop queue is the time-average of the sender's access
link, where the queue forms.

{figures}

## What this shows

- **XCP, as the paper says, fills the link without the others' swings**: {xcp[utilisation]:.1%}
  utilisation ({xcp[steady]:.1%} after 50 s) with {xcp[drops]} drops and a first-hop queue of
  {xcp[queue]:.1f} packets; its window sits at {xcp[cwnd][1]:.0f} segments, the
  bandwidth-delay product. HighSpeed reaches {hs[utilisation]:.1%} by keeping
  {hs[queue]:.0f} packets queued and dropping {hs[drops]}; BIC {bic[utilisation]:.1%} with
  {bic[drops]} drops.
- **The window adjustment as printed does not give the paper's 98 %**: {wa[utilisation]:.1%}.
  The bit is set whenever an interval's input reaches the capacity, which a full link does,
  and each cut takes the window to 2–5 % of the admitted window (cwnd between
  {wa[cwnd][0]:.0f} and {wa[cwnd][2]:.0f} segments after 50 s); XCP's positive feedback then
  regrows it over several RTTs. With cuts this deep the paper's 98 % is out of reach here;
  the printed expressions may have lost a step (the paper calls the changes "not drastic").
- **Small buffers hurt XCP most.** With 50-packet buffers XCP reaches
  {xcp50[utilisation]:.1%} with {xcp50[drops]} drops (with the adjustment
  {wa50[utilisation]:.1%}). XCP bounds what an interval hands out by its residue, up to
  `0.4·d·spare` (about 40 % of the bandwidth-delay product on an idle link), and a single ACK
  may carry most of it; the sender then sends the increase back to back into its first hop,
  which 50 packets cannot hold. The XCP paper sizes buffers at the bandwidth-delay product for
  this reason.

## Implementation notes

`queue/xcp/` (router) and `tcp/cc/xcp.rs` (sender); decisions and differences from the ns-2
codes are listed at the top of each file and in [algorithms.md §11](../algorithms.md#11-xcp)
(`xcp` queue and congestion control).
"""


if __name__ == "__main__":
    main()
