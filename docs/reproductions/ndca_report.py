"""The report of the paper 003 reproduction (``ndca.py``): tables, the paper's claims against
ccsim's numbers, and the Markdown document, from the summaries the runs produced."""

from __future__ import annotations

import ccsim
import numpy as np
import pandas as pd
from ndca_setup import (
    ALG_LABEL,
    ALGS,
    BDP_PKTS,
    DURATION_S,
    FAIR_LOSS,
    FIG5_LOSS,
    FIG5_S,
    JAIN_LEVEL,
    JAIN_WINDOW_S,
    LOSS,
    LOSSES,
    MAIN_BUFFER,
    MAIN_RECOVERY,
    MAX_GOODPUT_BPS,
    PAPER_DURATION_S,
    REPORT,
    STARTS,
    STARTUP_S,
    loss_label,
    start_label,
)
from ndca_text import (
    FIDELITY,
    INTRO,
    SETUP,
    SETUP_NOTES,
    SETUP_ROWS,
    closing,
    fairness_prose,
    fmt,
    mbps,
    md_table,
    pm,
    sensitivity_prose,
    startup_prose,
    summary_bullets,
    throughput_prose,
)

# --- tables -----------------------------------------------------------------------------------


def fig6_table(summary: pd.DataFrame, long: pd.DataFrame | None) -> str:
    header = [
        "loss",
        "random losses per run (NDCA / HS)",
        "NDCA-TCP (Mb/s)",
        "HS-TCP (Mb/s)",
        "NDCA / HS",
        f"NDCA after {STARTUP_S:g} s",
        f"HS after {STARTUP_S:g} s",
    ]
    if long is not None:
        header += ["NDCA, 30 min", "HS, 30 min"]
    rows = []
    for loss in LOSSES:
        n, h = summary.loc[("ndca", loss)], summary.loc[("highspeed", loss)]
        row = [
            loss_label(loss),
            f"{n['random_mean']:.1f} / {h['random_mean']:.1f}",
            mbps(n),
            mbps(h),
            f"{n['goodput_mean'] / h['goodput_mean']:.2f}",
            mbps(n, "late"),
            mbps(h, "late"),
        ]
        if long is not None:
            for alg in ALGS:
                lg = long[(long["flow"] == alg) & np.isclose(long[LOSS], loss)]
                row.append(fmt(float(lg["goodput_bps"].iloc[0]) / 1e6) if len(lg) else "-")
        rows.append(row)
    return md_table(header, rows)


def counters_table(summary: pd.DataFrame) -> str:
    header = [
        "algorithm",
        "loss",
        "overflow drops",
        f"of them in the first {STARTUP_S:g} s",
        "random losses",
        "fast retransmits",
        "timeouts",
        "avg / max queue (pkts)",
        "mean RTT (ms)",
        "utilisation",
    ]
    rows = []
    for alg in ALGS:
        for loss in LOSSES:
            s = summary.loc[(alg, loss)]
            rows.append(
                [
                    ALG_LABEL[alg],
                    loss_label(loss),
                    fmt(s["overflow_mean"], 0),
                    fmt(s["early_overflow_mean"], 0),
                    fmt(s["random_mean"], 1),
                    fmt(s["fast_retransmits_mean"], 1),
                    fmt(s["timeouts_mean"], 1),
                    f"{s['avg_queue_mean']:,.0f} / {s['max_queue_mean']:,.0f}",
                    fmt(s["rtt_mean_s_mean"] * 1e3, 1),
                    fmt(s["util_mean"], 3),
                ]
            )
    return md_table(header, rows, "ll" + "r" * 8)


def startup_table(summary: pd.DataFrame, trace: dict[str, dict]) -> str:
    header = [
        "algorithm",
        f"goodput, first {STARTUP_S:g} s (Mb/s)",
        f"overflow drops, first {STARTUP_S:g} s",
        "largest cwnd before the first cut (seed 1)",
        "at (s)",
        "first 1 s bin at ≥ 90 % of the link (s, seed 1)",
    ]
    rows = []
    for alg in ALGS:
        s = summary.loc[(alg, FIG5_LOSS)]
        t = trace[alg]
        rows.append(
            [
                ALG_LABEL[alg],
                mbps(s, "early"),
                pm(s["early_overflow_mean"], s["early_overflow_ci95"], 0),
                f"{t['peak_cwnd']:,.0f} ({t['peak_cwnd'] / BDP_PKTS:.2f} × BDP)",
                fmt(t["peak_t"], 2),
                fmt(t["t90"], 0),
            ]
        )
    return md_table(header, rows)


def sensitivity_table(sens: pd.DataFrame, buffers: list[int], recs: list[str]) -> str:
    header = ["buffer (pkts)", "recovery"]
    header += [f"NDCA / HS at {loss_label(loss)} (Mb/s)" for loss in LOSSES]
    rows = []
    for b in buffers:
        for rec in recs:
            row = [f"{b:,}" + (" (main)" if b == MAIN_BUFFER and rec == MAIN_RECOVERY else ""), rec]
            for loss in LOSSES:
                n, h = sens.loc[(b, rec, "ndca", loss)], sens.loc[(b, rec, "highspeed", loss)]
                row.append(f"{n['goodput_mean'] / 1e6:.0f} / {h['goodput_mean'] / 1e6:.0f}")
            rows.append(row)
    return md_table(header, rows, "rl" + "r" * len(LOSSES))


def fairness_stats(fs: pd.DataFrame) -> pd.DataFrame:
    metrics = [
        "first_s", "mean20", "mean_all", "frac_level", "jain_total", "total_mbps", "drops",
        "overflow", "max_queue",
    ]  # fmt: skip
    return ccsim.aggregate(fs, by=["alg", "start2"], metrics=metrics).set_index(["alg", "start2"])


def fairness_table(st: pd.DataFrame, fs: pd.DataFrame) -> str:
    header = [
        "second flow starts",
        "algorithm",
        f"first 1 s bin with index ≥ {JAIN_LEVEL} (s after it starts)",
        "mean index, its first 20 s",
        "mean index, whole shared period",
        f"share of bins ≥ {JAIN_LEVEL}",
        "index of the two mean throughputs",
        "total goodput (Mb/s)",
    ]
    rows = []
    for start in STARTS:
        for alg in ALGS:
            s = st.loc[(alg, start)]
            g = fs[(fs["alg"] == alg) & (fs["start2"] == start)]
            reached = int(g["first_s"].notna().sum())
            first = pm(s["first_s_mean"], s["first_s_ci95"], 1)
            if float(start.rstrip("s")) == 0:
                first = "- (equal shares at the start)"
            elif reached < len(g):
                first += f" ({reached} of {len(g)} seeds)"
            rows.append(
                [
                    start_label(start),
                    ALG_LABEL[alg],
                    first,
                    pm(s["mean20_mean"], s["mean20_ci95"], 3),
                    pm(s["mean_all_mean"], s["mean_all_ci95"], 3),
                    pm(s["frac_level_mean"], s["frac_level_ci95"], 2),
                    pm(s["jain_total_mean"], s["jain_total_ci95"], 3),
                    pm(s["total_mbps_mean"], s["total_mbps_ci95"], 0),
                ]
            )
    return md_table(header, rows, "ll" + "r" * 6)


def timing_table(timings: list[dict]) -> str:
    header = [
        "sweep / runs",
        "points",
        "computed this time",
        "simulated (sum)",
        "simulation wall (sum)",
        "this invocation",
        "last full computation",
    ]
    rows = []
    for t in timings:
        full = t.get("full")
        last = (
            f"{full['elapsed_s']:.0f} s, {full['workers']} worker(s)"
            if full
            else "not computed in full in one invocation"
        )
        rows.append(
            [
                f"{t['name']} (`{t['output']}`)",
                str(t["points"])
                + (
                    f" ({t['points'] - t['own']} of the main grid's)"
                    if t.get("own", t["points"]) < t["points"]
                    else ""
                ),
                str(t["computed"]),
                f"{t['sim_s']:,.0f} s",
                f"{t['sim_wall_s']:.0f} s",
                f"{t['elapsed_s']:.0f} s",
                last,
            ]
        )
    return md_table(header, rows, "lrrrrrr")


# --- the paper's claims -----------------------------------------------------------------------


def ci_apart(a: pd.Series, b: pd.Series, metric: str = "goodput") -> bool:
    """a's mean is above b's and the 95 % intervals do not overlap."""
    ca, cb = (np.nan_to_num(x[f"{metric}_ci95"]) for x in (a, b))
    return a[f"{metric}_mean"] - ca > b[f"{metric}_mean"] + cb


def claims(summary, trace, cw_stats, st) -> tuple[str, dict]:
    """The paper's claims next to ccsim's numbers; each verdict is computed from them."""
    rows, verdicts = [], {}
    n5, h5 = summary.loc[("ndca", FIG5_LOSS)], summary.loc[("highspeed", FIG5_LOSS)]
    # 1. No overflow in NDCA's start-up (every seed: the mean of non-negative counts is 0).
    v = (
        "reproduced"
        if n5["early_overflow_mean"] == 0 and h5["early_overflow_mean"] > 0
        else "not reproduced"
    )
    verdicts["overshoot"] = v
    rows.append(
        [
            "Fig. 5: no overflow loss in NDCA's start-up, thanks to the estimated ssthresh; "
            "HS-TCP overshoots",
            f"overflow drops in the first {STARTUP_S:g} s: NDCA "
            f"{fmt(n5['early_overflow_mean'], 0)} in every seed, largest start-up window "
            f"{trace['ndca']['peak_cwnd'] / BDP_PKTS:.2f} × BDP; HS-TCP "
            f"{pm(h5['early_overflow_mean'], h5['early_overflow_ci95'], 0)}, window up to "
            f"{trace['highspeed']['peak_cwnd'] / BDP_PKTS:.2f} × BDP (seed 1)",
            v,
        ]
    )
    # 2. A stable window at the maximum bandwidth: the window's mean and spread after the
    # start-up, where losses are frequent (1e-5) and where they are rare (lowest loss rate).
    lo = min(LOSSES)
    mid, low = cw_stats[FIG5_LOSS], cw_stats[lo]
    at_bdp = abs(low["ndca"]["mean"] / BDP_PKTS - 1) < 0.1 and low["ndca"]["cv"] < 0.1
    steady5 = abs(mid["ndca"]["mean"] / BDP_PKTS - 1) < 0.1 and mid["ndca"]["cv"] < 0.1
    v = "reproduced" if at_bdp and steady5 else "partly" if at_bdp else "not reproduced"
    verdicts["stable"] = v
    rows.append(
        [
            "Fig. 5: NDCA's window is very stable around the maximum bandwidth",
            f"seed 1 from {cw_stats['from']:g} s: at {loss_label(FIG5_LOSS)} NDCA's cwnd averages "
            f"{mid['ndca']['mean'] / BDP_PKTS:.2f} × BDP with a coefficient of variation of "
            f"{mid['ndca']['cv']:.2f} (HS-TCP {mid['highspeed']['cv']:.2f}): each random loss "
            f"(about {n5['random_mean'] / DURATION_S:.1f} per second) halves it and it climbs "
            f"back in a slow start; at {loss_label(lo)} it averages "
            f"{low['ndca']['mean'] / BDP_PKTS:.2f} × BDP, coefficient of variation "
            f"{low['ndca']['cv']:.2f} (HS-TCP {low['highspeed']['mean'] / BDP_PKTS:.2f} × BDP, "
            f"{low['highspeed']['cv']:.2f})",
            v + (f": at the BDP where losses are rare, a sawtooth at {loss_label(FIG5_LOSS)}"
                 if v == "partly" else ""),
        ]
    )  # fmt: skip
    # 3. Throughput at high loss rates.
    apart = {loss: ci_apart(summary.loc[("ndca", loss)], summary.loc[("highspeed", loss)])
             for loss in LOSSES}  # fmt: skip
    ratio = {
        loss: summary.loc[("ndca", loss), "goodput_mean"]
        / summary.loc[("highspeed", loss), "goodput_mean"]
        for loss in LOSSES
    }
    high = [x for x in LOSSES if x >= FIG5_LOSS]  # 1e-4 and 1e-5
    v = "reproduced" if all(apart[x] and ratio[x] > 1.5 for x in high) else "not reproduced"
    verdicts["throughput"] = v
    rows.append(
        [
            "Fig. 6: NDCA's throughput is much higher than HS-TCP's at relatively high loss rates",
            "NDCA / HS-TCP: "
            + ", ".join(f"{ratio[loss]:.2f} at {loss_label(loss)}" for loss in LOSSES)
            + "; 95 % intervals apart at "
            + (", ".join(loss_label(loss) for loss in LOSSES if apart[loss]) or "none"),
            v,
        ]
    )
    # 4. Fairness converging faster: with a late second flow, NDCA reaches JAIN_LEVEL sooner
    # and is fairer over the newcomer's first 20 s; with flows starting together (the index
    # starts at 1), NDCA stays fairer over the first 20 s.
    checks, text = [], []
    for start in STARTS:
        n, h = st.loc[("ndca", start)], st.loc[("highspeed", start)]
        fairer = n["mean20_mean"] > h["mean20_mean"]
        if float(start.rstrip("s")) > 0:
            checks += [fairer, n["first_s_mean"] < h["first_s_mean"]]
            text.append(
                f"second flow {start_label(start)}: 1 s index first ≥ {JAIN_LEVEL} after "
                f"{fmt(n['first_s_mean'], 1)} s (NDCA) and {fmt(h['first_s_mean'], 1)} s "
                f"(HS-TCP), mean index over the newcomer's first 20 s {n['mean20_mean']:.3f} "
                f"and {h['mean20_mean']:.3f}"
            )
        else:
            checks.append(fairer)
            text.append(
                f"flows starting together: mean index over the first 20 s "
                f"{n['mean20_mean']:.3f} (NDCA) and {h['mean20_mean']:.3f} (HS-TCP), over the "
                f"whole run {n['mean_all_mean']:.3f} and {h['mean_all_mean']:.3f}"
            )
    v = "reproduced" if all(checks) else "partly" if any(checks) else "not reproduced"
    verdicts["fairness"] = v
    rows.append(
        [
            f"Fig. 7: at loss {loss_label(FAIR_LOSS)}, the fairness of two NDCA flows converges "
            "to 1.0 more rapidly than that of two HS-TCP flows",
            "; ".join(text),
            v,
        ]
    )
    table = md_table(["the paper", "ccsim", "verdict"], rows, "lll")
    return table, {"ratio": ratio, "apart": apart, "verdicts": verdicts}


# --- the report -------------------------------------------------------------------------------


def write_report(
    summary: pd.DataFrame,
    sens: pd.DataFrame,
    sens_axes: tuple[list[int], list[str]],
    long: pd.DataFrame | None,
    startup: dict[str, dict],
    cw_stats: dict,
    extra: dict,
    fair: pd.DataFrame,
    timings: list[dict],
    figures: dict,
    total_s: float,
) -> None:
    buffers, recs = sens_axes
    n_seeds = int(summary["goodput_n"].min())
    sens_seeds = int(sens["goodput_n"].min())
    st = fairness_stats(fair)
    claim_table, c = claims(summary, startup, cw_stats, st)
    v = {
        "version": ccsim.__version__,
        "n_seeds": n_seeds,
        "sens_seeds": "seed 1" if sens_seeds == 1 else f"{sens_seeds} seeds",
        "duration": f"{DURATION_S:g}",
        "paper_min": f"{PAPER_DURATION_S / 60:g}",
        "startup": f"{STARTUP_S:g}",
        "fig5_s": f"{FIG5_S:g}",
        "bdp": f"{BDP_PKTS:,}",
        "max_goodput": f"{MAX_GOODPUT_BPS / 1e6:.1f}",
        "jain_window": f"{JAIN_WINDOW_S:g}",
        "jain_level": f"{JAIN_LEVEL}",
        "fair_loss": loss_label(FAIR_LOSS),
        "fig5_loss": loss_label(FIG5_LOSS),
        **extra,
    }
    v["hold_text"] = hold_text(extra)
    parts = [INTRO.format(**v)]
    parts.append(summary_bullets(summary, startup, st, sens, buffers, recs, long, c, v))
    setup = md_table(
        ["item", "paper", "ccsim", "why"],
        [[cell.format(**v) for cell in row] for row in SETUP_ROWS],
        "llll",
    )
    parts.append(SETUP.format(setup_table=setup, **v))
    parts.append(SETUP_NOTES.format(**v))
    parts.append(
        "## Start-up (the paper's Fig. 5)\n\n"
        f"Loss {v['fig5_loss']}. The first {v['startup']} s of every run (the grid's runs cut "
        f"at {v['startup']} s: a run is deterministic given its seed, so these are the first "
        f"{v['startup']} s of the full runs), means over {n_seeds} seeds ± 95 % intervals; the "
        "last three columns from the traces of seed 1, which the figure shows for "
        f"{v['fig5_s']} s like the paper's.\n\n"
        + startup_table(summary, startup)
        + f"\n\n![cwnd during start-up]({figures['fig5']})\n\n"
        + startup_prose(summary, startup)
    )
    parts.append(
        "## Throughput against the loss rate (the paper's Fig. 6)\n\n"
        f"Mean goodput (unique payload delivered ÷ {v['duration']} s) over {n_seeds} seeds ± the "
        "half-width of the 95 % Student-t interval (`ccsim.aggregate`). The link carries at most "
        f"{v['max_goodput']} Mb/s of payload. *After {v['startup']} s*: what the same runs "
        f"delivered from {v['startup']} s to the end, per second, leaving out the start-up. "
        "*30 min*: the paper's duration, seed 1 only.\n\n"
        + fig6_table(summary, long)
        + f"\n\n![throughput against loss]({figures['fig6']})\n\n"
        "What happened at the bottleneck (means over the seeds; queues in waiting packets):\n\n"
        + counters_table(summary)
        + f"\n\n![cwnd at each loss rate]({figures['cwnd']})\n\n"
        + throughput_prose(summary, long)
    )
    parts.append(
        "## Sensitivity to the buffer and the loss recovery\n\n"
        f"`scenarios/ndca-sensitivity-sweep.toml`: the grid with {len(buffers)} buffer sizes and "
        f"{len(recs)} loss recoveries (both algorithms use the same), {v['sens_seeds']} (the "
        "main grid's first seed, so its own row repeats that seed, not the 10-seed means). Mean "
        "goodput, NDCA-TCP / HS-TCP:\n\n"
        + sensitivity_table(sens, buffers, recs)
        + f"\n\n![sensitivity]({figures['sensitivity']})\n\n"
        + sensitivity_prose(sens, buffers, recs)
    )
    parts.append(
        "## Fairness of two flows (the paper's Fig. 7)\n\n"
        f"Two flows of one algorithm at loss {v['fair_loss']}, {n_seeds} seeds per case, "
        f"{v['duration']} s. Jain's index (eq. 6) of the two flows' goodput in each 1 s bin "
        "(`ccsim.jain_over_time`), from the second flow's start on. The figure averages each "
        f"flow's goodput over a trailing {v['jain_window']} s window (within that period) "
        "before taking the index, and shows the mean over the seeds with its 95 % band.\n\n"
        + fairness_table(st, fair)
        + f"\n\n![Jain's index over time]({figures['fig7']})\n\n"
        + f"![goodput of the two flows]({figures['fair_tp']})\n\n"
        + fairness_prose(st, extra, summary)
    )
    parts.append(
        "## The paper's claims and ccsim\n\n"
        "The paper's figures are not in the text copy, so its claims are what its text says "
        "about them; ccsim's numbers are from the tables above.\n\n" + claim_table + "\n"
    )
    parts.append(FIDELITY.format(**v))
    parts.append(run_time(timings, total_s))
    parts.append(closing(summary, startup, st, timings, v))
    REPORT.write_text("\n".join(parts))


def hold_text(extra: dict) -> str:
    thr, top = extra["hold_threshold"], extra["hold_max_queue"]
    if top < thr:
        return (
            f"- **Interval D never acts in the main grid.** The hold needs an RTT above "
            f"α·BaseRTT, a queue of {thr:,.0f} packets at 1 Gb/s; NDCA-TCP's largest queue in "
            f"any run of the grid was {top:,.0f} packets, because its estimate caps the window "
            "near the BDP, above it the window grows by one packet per round trip, and a random "
            "loss comes first. Fig. 5's stable window is here the estimate's ceiling, not the "
            "hold."
        )
    return (
        f"- **Interval D acts in the main grid.** NDCA-TCP's queue reached {top:,.0f} packets, "
        f"above the {thr:,.0f} at which the RTT exceeds α·BaseRTT and the window is held."
    )


def run_time(timings: list[dict], total_s: float) -> str:
    missing = [t["name"] for t in timings if not t.get("full")]
    full_s = sum(t["full"]["elapsed_s"] for t in timings if t.get("full"))
    if missing:
        total = (
            f"Not computed in full in one invocation here: {', '.join(missing)}; the others "
            f"took {full_s / 60:.1f} minutes."
        )
    else:
        total = (
            f"From nothing, the parts took {full_s / 60:.1f} minutes when last computed in full "
            "(sweeps and runs, with the workers shown), plus loading, figures and this report."
        )
    return (
        "## Run time\n\n"
        "On a 2-core machine shared with other work, so wall times vary from run to run. "
        "*Simulated*: the simulated seconds of all its runs; *simulation wall*: the time the "
        "simulator itself took for them, summed over the worker processes.\n\n"
        + timing_table(timings)
        + f"\n\n{total} This invocation took {total_s:.0f} s in all.\n"
    )
