"""The words of the paper 003 report that are built in Python (``ndca_report.py`` assembles
it): number formatting, the setup table's rows, and the paragraphs whose sentences depend on
computed numbers. The fixed prose is in ``template.md`` (``ndca_prose.render``). Every
number comes from the runs or from ``ndca_setup``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from ndca_prose import render
from ndca_setup import (
    ALG_LABEL,
    ALGS,
    BASE_RTT_S,
    BDP_PKTS,
    DURATION_S,
    FAIR_LOSS,
    FIG5_LOSS,
    JAIN_LEVEL,
    LOSSES,
    MAIN_BUFFER,
    MAIN_RECOVERY,
    MAX_GOODPUT_BPS,
    STARTS,
    STARTUP_S,
    hs_response_bps,
    loss_label,
    start_label,
)

# The setup table: (item, the paper, ccsim, why). Placeholders are filled in by the report.
SETUP_ROWS = [
    (
        "topology", "chain of 2.5 G, 2.5 G, 1 G links; 1, 1, 49 ms (Fig. 3)",
        '`kind = "chain"`, n0-n1-n2-n3, those links; the flow runs n0 → n3',
        "as given. The round trip is 102 ms, and the 1 Gb/s link holds {bdp} packets of "
        "1500 B in flight (the BDP)",
    ),
    (
        "packet size", "not given", "1460 B of payload + 40 B of headers = 1500 B",
        "the size of RFC 3649's example, which the paper quotes in §2; ns-2's default would "
        "be 1000 B",
    ),
    (
        "buffer", "not given",
        "DropTail, {bdp} waiting packets (one BDP) on every link; only n2 → n3 ever fills",
        "the rule of thumb of one BDP. Interval D needs a queue of (α − 1)·BaseRTT = 20 ms, "
        "{hold_threshold:,.0f} packets, before it acts. The sensitivity grid runs 500 and 2,000",
    ),
    (
        "loss", '"packet loss probability" 1e-4 … 1e-7',
        "Bernoulli loss of the data packets on n2 → n3; ACKs are not lost",
        "the paper does not say where; an ns-2 error model sits on one link direction",
    ),
    (
        "TCP agents",
        'ns-2; NDCA-TCP "by modifying the ns-2 TCP Reno code"; HS-TCP\'s agent not given',
        'both with Reno loss recovery (`recovery = "reno"`)',
        "the same recovery for both isolates the congestion control, which is what the paper "
        "compares; the sensitivity grid runs SACK",
    ),
    (
        "window, initial ssthresh", "not given",
        "receiver window 100,000 packets (146 MB), initial ssthresh 100,000",
        "ns-2's `window_` must exceed what the path holds (BDP + buffer = {path_holds}) or it caps "
        "both algorithms; ns-2's `reset()` sets ssthresh to `window_`, so slow start ends at "
        "the first loss: the overshoot the paper describes",
    ),
    (
        "NDCA-TCP", "N = 10; α not given", "`n = 10`, `alpha = 1.2`, `hold = true`",
        "the project's decision ([design.md](../design.md#ndca-tcp)); the other readings below",
    ),
    (
        "HS-TCP", "RFC 3649",
        "ns-2's formulas: Low_Window 38, High_Window 83,000, High_P 1e-7, High_Decrease 0.1; "
        "standard slow start",
        "ns-2.35 defaults (`max_ssthresh_` 0: no Limited Slow-Start)",
    ),
    (
        "duration", "30 minutes",
        "**30 minutes** for Fig. 6, {full_seeds_text}; **{duration} s** for the rest",
        "a saturated 1 Gb/s path costs ccsim about {events_m:.1f} million events per simulated "
        "second, so 10 seeds × 8 points × 30 minutes take about {full_core_h} hours of "
        "simulator time here (the runs' own wall times summed, other work on both cores); the "
        "other studies "
        "use {duration} s. A {duration} s run at "
        "1 Gb/s sends about {pkts_m:.0f} million packets and so sees about {loss4:,.0f} "
        "random losses at 1e-4 and {loss7:.0f} at 1e-7 (the paper's 30 minutes: "
        "{loss7_paper:.0f})",
    ),
    (
        "seeds", "10", "{n_seeds} (1 … {n_seeds})",
        "as given; the seeds change only the random losses",
    ),
    (
        "throughput", '"time averaged throughput"',
        "goodput: unique payload bytes delivered ÷ run length",
        "duplicates from go-back-N after a timeout are not throughput a user sees",
    ),
    (
        "Fig. 7",
        "two flows, loss 1e-5; which, when they start and how the index is averaged are "
        "not given",
        "two flows of one algorithm; the second starts 20 s after the first, or with it; "
        "Jain's index of the two flows' 1 s goodput",
        '"Fairness index of the NDCA-TCP and the HSTCP": one curve per algorithm, so each '
        'curve is two flows of one algorithm; "converges to 1.0" needs flows that start '
        "unequal, so the main case staggers them; the other start is shown too",
    ),
]  # fmt: skip


# --- formatting ------------------------------------------------------------------------------


def fmt(x: float, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:,.{digits}f}"


def pm(mean: float, ci: float, digits: int = 1) -> str:
    """``mean ± ci``; the interval is left out where it rounds to zero (seeds that agree)."""
    if ci is None or math.isnan(ci) or ci < 0.5 * 10**-digits:
        return fmt(mean, digits)
    return f"{fmt(mean, digits)} ± {fmt(ci, digits)}"


def md_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    align = align or "l" + "r" * (len(header) - 1)
    marks = {"l": "---", "r": "---:"}
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks[a] for a in align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def mbps(s: pd.Series, metric: str = "goodput") -> str:
    return pm(s[f"{metric}_mean"] / 1e6, s[f"{metric}_ci95"] / 1e6)


def share(x_bps: float) -> str:
    return f"{x_bps / MAX_GOODPUT_BPS * 100:.0f} %"


# --- prose --------------------------------------------------------------------------------------

# The prose sections below quote only numbers computed from the runs.


def summary_bullets(summary, startup, st, sens, buffers, recs, full, c, v) -> str:
    """The summary; Fig. 6's bullet quotes the 30-minute grid where it was run (``full``,
    summarised like ``summary``), as the claims table does."""
    r, verdicts = c["ratio"], c["verdicts"]
    if full is not None and int(full["goodput_n"].min()) < 2:
        full = None  # one seed gives no intervals: the verdict and this bullet use 120 s
    f6 = summary if full is None else full
    f6_label = (
        f"{v['duration']} s, {v['n_seeds']} seeds"
        if full is None
        else f"30 min, {int(full['goodput_n'].min())} seed"
        + ("s" if int(full["goodput_n"].min()) != 1 else "")
    )
    h5 = summary.loc[("highspeed", FIG5_LOSS)]
    low = [x for x in LOSSES if x < FIG5_LOSS]
    least = min(f6.loc[(a, x), "goodput_mean"] for a in ALGS for x in low)
    small = min(buffers)
    nd_small = {rec: sens.loc[(small, rec, "ndca", FIG5_LOSS), "goodput_mean"] for rec in recs}
    hs_small = {rec: sens.loc[(small, rec, "highspeed", FIG5_LOSS), "goodput_mean"] for rec in recs}
    stag = [s for s in STARTS if float(s.rstrip("s")) > 0][0]
    out = [
        "## Summary\n",
        f"- **Fig. 6: {verdicts['throughput']}.** Mean goodput, NDCA-TCP vs HS-TCP "
        f"({f6_label}): "
        + ", ".join(
            f"{f6.loc[('ndca', x), 'goodput_mean'] / 1e6:.0f} vs "
            f"{f6.loc[('highspeed', x), 'goodput_mean'] / 1e6:.0f} Mb/s at {loss_label(x)}"
            for x in LOSSES
        )
        + ": NDCA-TCP gets "
        + " and ".join(f"{r[x]:.1f}×" for x in LOSSES if x >= FIG5_LOSS)
        + " HS-TCP's goodput at "
        + " and ".join(loss_label(x) for x in LOSSES if x >= FIG5_LOSS)
        + f"; at {' and '.join(loss_label(x) for x in low)} both carry at least "
        f"{share(least)} of the link.",
        f"- **Fig. 5, no overshoot: {verdicts['overshoot']}.** In its first {v['startup']} s "
        f"at {v['fig5_loss']} NDCA-TCP never overflows the {MAIN_BUFFER:,}-packet buffer: its "
        f"estimate ends slow start at {startup['ndca']['peak_cwnd'] / BDP_PKTS:.2f} × the "
        f"path's BDP. HS-TCP's slow start runs to "
        f"{startup['highspeed']['peak_cwnd'] / BDP_PKTS:.1f} × BDP and loses "
        f"{h5['early_overflow_mean']:,.0f} packets to overflow (mean of {v['n_seeds']} seeds). "
        f'Fig. 5\'s "very stable" window: **{verdicts["stable"]}** (see the claims above).',
        f"- **Fig. 7: {verdicts['fairness']}.** With the second flow {start_label(stag)}, two "
        f"NDCA-TCP flows first reach an index of {v['jain_level']} after "
        f"{st.loc[('ndca', stag), 'first_s_mean']:.1f} s, two HS-TCP flows after "
        f"{st.loc[('highspeed', stag), 'first_s_mean']:.1f} s. Mean index over the first 20 s, "
        "NDCA-TCP vs HS-TCP: "
        + "; ".join(
            f"{st.loc[('ndca', x), 'mean20_mean']:.3f} vs "
            f"{st.loc[('highspeed', x), 'mean20_mean']:.3f} with the second flow {start_label(x)}"
            for x in STARTS
        )
        + ".",
        f"- **The comparison rests on choices the paper leaves open.** With a {small}-packet "
        f"buffer NDCA-TCP collapses ({nd_small['reno'] / 1e6:.0f} Mb/s at {v['fig5_loss']} "
        f"with Reno recovery, HS-TCP {hs_small['reno'] / 1e6:.0f}"
        + (
            f"; {nd_small['sack'] / 1e6:.0f} and {hs_small['sack'] / 1e6:.0f} with SACK"
            if "sack" in nd_small
            else ""
        )
        + "): it slow-starts again after every loss, and with no pacing each of those slow "
        "starts overflows a small buffer. "
        + sack_gain_text(sens, buffers, recs)
        + " ([sensitivity](#sensitivity-to-the-buffer-and-the-loss-recovery)).",
        f"- **Interval D: {verdicts.get('hold', 'not run')}.** The hold never starts in the "
        "paper's one-flow runs; with four flows on 100 Mb/s it acts, and what it does depends "
        "on the loss recovery, and it can last to the end of a run "
        "([interval D](#interval-d-the-hold-where-it-acts)).",
    ]
    if full is not None:
        out.append(
            f"- **{v['paper_min']} minutes, as the paper.** Fig. 6 above is the paper's "
            f"duration with {v['full_seeds_text']}; the {v['duration']} s grid "
            "(10 seeds) gives "
            + ", ".join(
                f"{summary.loc[('ndca', x), 'goodput_mean'] / 1e6:.0f} vs "
                f"{summary.loc[('highspeed', x), 'goodput_mean'] / 1e6:.0f}"
                for x in LOSSES
            )
            + " Mb/s at the same loss rates: in "
            f"{v['duration']} s HS-TCP's start-up weighs more, and at 1e-7 a run sees about "
            f"{v['loss7']:.0f} random loss ({v['loss7_paper']:.0f} in 30 minutes)."
        )
    return "\n".join(out) + "\n"


def startup_prose(summary, trace) -> str:
    n, h = trace["ndca"], trace["highspeed"]
    h5 = summary.loc[("highspeed", FIG5_LOSS)]
    return (
        "HS-TCP starts with ns-2's ssthresh (`window_`, here 100,000 packets), so only a loss "
        f"ends its slow start: its window reaches {h['peak_cwnd']:,.0f} packets at "
        f"{h['peak_t']:.2f} s, {h['peak_cwnd'] / (BDP_PKTS + MAIN_BUFFER):.1f} times what the "
        f"path holds (BDP {BDP_PKTS:,} + buffer {MAIN_BUFFER:,}), and loses the excess at once. "
        "Reno recovery repairs one hole per round trip and ends in timeouts "
        f"({h5['early_timeouts_mean']:.1f} per run in the first {STARTUP_S:g} s), after "
        "which the window restarts from one. NDCA-TCP sets its threshold from the rate of the "
        "returning ACKs (eq. 5), which trails the sending rate by about one BaseRTT (each "
        "update weighs the new rate by Δ/(BaseRTT + Δ)); a window that doubles outruns that "
        "estimate, so NDCA-TCP's slow start grows by less than a doubling per round trip "
        f"and stops where the measured rate stops growing: at {n['peak_cwnd']:,.0f} packets "
        f"({n['peak_cwnd'] / BDP_PKTS:.2f} × BDP) at {n['peak_t']:.2f} s, later than HS-TCP's "
        "peak but with the queue far from the buffer. Above its estimate it grows by 1/cwnd "
        "per ACK, so it stays near the BDP with a short queue until a random loss halves it.\n"
    )


def throughput_prose(summary, full) -> str:
    def rfc(p):
        return min(float(hs_response_bps(np.array([p]))[0]), MAX_GOODPUT_BPS) / 1e6

    high = [x for x in LOSSES if x >= FIG5_LOSS]
    low = [x for x in LOSSES if x < FIG5_LOSS]
    hs_fit = ", ".join(
        f"{summary.loc[('highspeed', x), 'late_mean'] / 1e6:.0f} vs {rfc(x):.0f} Mb/s at "
        f"{loss_label(x)}"
        for x in high
    )
    n4 = summary.loc[("ndca", max(LOSSES))]
    h7 = summary.loc[("highspeed", min(LOSSES))]
    least = min(summary.loc[(a, x), "late_mean"] for a in ALGS for x in low)
    return (
        "- **HS-TCP is near its response function** at the high loss rates once its start-up "
        f"is over (goodput after {STARTUP_S:g} s vs RFC 3649's 0.12/p^0.835 segments per "
        f"round trip at the base RTT: {hs_fit})"
        + (
            "; over the paper's 30 minutes, where the start-up is a small part of the run, "
            "its goodput is "
            + ", ".join(
                f"{full.loc[('highspeed', x), 'goodput_mean'] / 1e6:.0f} Mb/s at {loss_label(x)}"
                for x in high
            )
            if full is not None
            else ""
        )
        + ".\n"
        "- **NDCA-TCP recovers from a loss by slow start** up to its new estimate (interval "
        "C): its window climbs back to the BDP along the concave curves of the figure, "
        "where Reno's one packet per round trip would take "
        f"{BDP_PKTS / 2 * BASE_RTT_S:.0f} s to regain the lost half. At "
        f"{loss_label(max(LOSSES))} the losses come so often (about "
        f"{n4['random_mean'] / DURATION_S:.1f} per second) that two often fall in one window, "
        f"and Reno recovery times out ({n4['timeouts_mean']:.0f} timeouts per run).\n"
        f"- **At {' and '.join(loss_label(x) for x in low)} both fill the link** (after the "
        f"start-up at least {share(least)}); what separates them is HS-TCP's start-up and the "
        f"buffer. At {loss_label(min(LOSSES))} HS-TCP's overshoot costs it "
        f"{h7['early_overflow_mean']:,.0f} overflow drops in the first {STARTUP_S:g} s, and "
        "afterwards its window grows back into the buffer (an average queue of "
        f"{h7['avg_queue_mean']:,.0f} packets over the run, "
        f"{h7['overflow_mean'] - h7['early_overflow_mean']:,.0f} more overflow drops per run); "
        f"{h7['timeouts_mean']:.1f} timeouts per run in all. NDCA-TCP never overflows it.\n"
    )


def sensitivity_prose(sens, buffers, recs) -> str:
    def m(b, rec, alg, loss, what="goodput_mean"):
        x = sens.loc[(b, rec, alg, loss), what]
        return x / 1e6 if what == "goodput_mean" else x

    small, mid, big = buffers[0], buffers[1], buffers[-1]
    same = max(
        abs(m(mid, rec, "ndca", x) / m(big, rec, "ndca", x) - 1) for rec in recs for x in LOSSES
    )
    ovf = {a: m(small, recs[0], a, FIG5_LOSS, "overflow_mean") for a in ALGS}
    lines = [
        "- **The buffer.** NDCA-TCP slow-starts again after every loss (interval C), and its "
        "slow starts send ACK-clocked bursts: two packets per ACK at 2.5 Gb/s into the 1 Gb/s "
        "link, so the bottleneck queue grows by the window's increase in each round trip. "
        f"With {small} packets that overflows long before the window reaches the BDP, and "
        "every loss starts the next slow start: at "
        f"{loss_label(FIG5_LOSS)} with {recs[0].capitalize()} recovery NDCA-TCP loses "
        f"{ovf['ndca']:,.0f} packets to overflow in {DURATION_S:g} s (HS-TCP "
        f"{ovf['highspeed']:,.0f}, which slow-starts only at the start and after a timeout) "
        "and gets "
        f"{m(small, recs[0], 'ndca', min(LOSSES)):.0f} Mb/s even at {loss_label(min(LOSSES))}. "
        f"With {mid:,} packets ({mid / BDP_PKTS:.2f} of the BDP) NDCA-TCP is "
        + (
            f"as good as with {big:,} (within {same * 100:.1f} % everywhere)"
            if same < 0.03
            else f"up to {same * 100:.0f} % away from its {big:,}-packet numbers"
        )
        + ".",
    ]
    if "sack" in recs:
        holds = all(
            m(b, rec, "ndca", x) > m(b, rec, "highspeed", x)
            for b in buffers[1:]
            for rec in recs
            for x in LOSSES
            if x >= FIG5_LOSS
        )
        lines.append(
            "- **The loss recovery.** SACK repairs many holes per round trip where Reno times "
            f"out. With the {big:,}-packet buffer, SACK instead of Reno changes the goodput by "
            + "; ".join(
                f"{ALG_LABEL[a]} "
                + ", ".join(
                    f"{round(m(big, 'sack', a, x) - m(big, 'reno', a, x)):+d} Mb/s at "
                    f"{loss_label(x)}"
                    for x in LOSSES
                )
                for a in ALGS
            )
            + f"; NDCA-TCP with SACK gets {m(small, 'sack', 'ndca', FIG5_LOSS):.0f} Mb/s at "
            f"{loss_label(FIG5_LOSS)} with the {small}-packet buffer. Fig. 6's direction, "
            "NDCA-TCP ahead at 1e-4 and 1e-5, "
            + (
                f"holds in every combination with {mid:,} packets of buffer or more."
                if holds
                else f"does not hold in every combination with {mid:,} packets or more."
            )
        )
    return "\n".join(lines) + "\n"


def sack_gain_text(sens, buffers, recs) -> str:
    """Where SACK instead of Reno recovery adds most, per algorithm, with the main buffer."""
    if "sack" not in recs or MAIN_RECOVERY not in recs:
        return ""
    big = max(buffers)
    parts = []
    for a in ALGS:
        gain = {
            x: (sens.loc[(big, "sack", a, x), "goodput_mean"]
                - sens.loc[(big, MAIN_RECOVERY, a, x), "goodput_mean"]) / 1e6
            for x in LOSSES
        }  # fmt: skip
        best = max(gain, key=gain.get)
        parts.append(f"{gain[best]:+.0f} Mb/s for {ALG_LABEL[a]} (at {loss_label(best)})")
    return (
        f"SACK instead of Reno recovery adds at most {' and '.join(parts)} with the "
        f"{big:,}-packet buffer"
    )


def fairness_prose(st, extra: dict, summary: pd.DataFrame) -> str:
    stag = [x for x in STARTS if float(x.rstrip("s")) > 0][0]
    n = st.loc[("ndca", stag)]
    thr = extra["hold_threshold"]
    hold = (
        f"above the {thr:,.0f} at which the RTT exceeds α·BaseRTT, so unlike the one-flow "
        "runs the condition of interval D's hold is met here"
        if n["max_queue_mean"] > thr
        else f"below the {thr:,.0f} at which interval D would act"
    )
    ho = st.loc[("highspeed", stag), "overflow_mean"]
    h1 = summary.loc[("highspeed", FAIR_LOSS), "early_overflow_mean"]
    return (
        "Two flows of one algorithm on one path have the same RTT, so Fig. 7 is about "
        "convergence, not RTT fairness. When the second NDCA-TCP flow arrives at 20 s, the "
        "first sits at its estimate, about the BDP, with hardly any queue; the newcomer's "
        f"slow start brings the index to {JAIN_LEVEL} after {n['first_s_mean']:.1f} s on "
        "average. The two windows then often add up to more than the BDP: the queue reaches "
        f"{n['max_queue_mean']:,.0f} packets (mean of the seeds' largest), {hold}. Random "
        f"losses (about {n['drops_mean'] / DURATION_S:.1f} per second for the pair) halve one "
        "flow or the other, which then slow-starts back to the rate it measures. HS-TCP's "
        "newcomer slow-starts with no threshold until the buffer overflows "
        f"({ho:,.0f} overflow drops per run with the second flow at 20 s, against "
        f"{h1:,.0f} in the first {STARTUP_S:g} s of a lone flow), which costs both flows, and "
        "afterwards HS-TCP's increase a(w) grows and its decrease b(w) shrinks with "
        "the window, which favours the larger flow (RFC 3649 trades convergence time for "
        "scalability). With both flows starting together the index starts at 1 and the "
        "random losses push it away. Mean total goodput of the pair: "
        + "; ".join(
            f"{ALG_LABEL[a]} {st.loc[(a, x), 'total_mbps_mean']:.0f} Mb/s (second flow "
            f"{start_label(x)})"
            for a in ALGS
            for x in STARTS
        )
        + ".\n"
    )


def closing(summary, startup, st, timings, v) -> str:
    rows = []
    for loss in LOSSES:
        n, h = summary.loc[("ndca", loss)], summary.loc[("highspeed", loss)]
        ratio = f"{n['goodput_mean'] / h['goodput_mean']:.2f}"
        rows.append([loss_label(loss), mbps(n), mbps(h), ratio])
    table = md_table(["loss", "NDCA-TCP (Mb/s)", "HS-TCP (Mb/s)", "ratio"], rows)
    fair = "; ".join(
        f"second flow {start_label(s)}: NDCA {st.loc[('ndca', s), 'mean20_mean']:.3f}, "
        f"HS-TCP {st.loc[('highspeed', s), 'mean20_mean']:.3f}"
        for s in STARTS
    )
    full = [t for t in timings if t.get("full")]
    wall = (
        "the sweeps and runs of the whole reproduction took "
        f"{sum(t['full']['elapsed_s'] for t in full) / 60:.1f} minutes when each was last "
        "computed from nothing"
        if len(full) == len(timings)
        else "not yet measured from nothing"
    )
    return render(
        "closing",
        **{
            **v,
            "table": table,
            "n_ovf": f"{summary.loc[('ndca', FIG5_LOSS), 'early_overflow_mean']:,.0f}",
            "h_ovf": f"{summary.loc[('highspeed', FIG5_LOSS), 'early_overflow_mean']:,.0f}",
            "n_peak": f"{startup['ndca']['peak_cwnd'] / BDP_PKTS:.2f}",
            "h_peak": f"{startup['highspeed']['peak_cwnd'] / BDP_PKTS:.2f}",
            "fair": fair,
            "wall": wall,
        },
    )
