"""The interval-D part of the paper 003 report: tables of the hold runs (``ndca_hold.py``),
the phrases the template's hold section quotes, and the claim row of §3.4. Every number and
every direction word (raises, lowers, unchanged) is computed from the runs."""

from __future__ import annotations

import math

import pandas as pd
from ndca_hold import CROSS, N_FLOWS, PROFILE_LABEL, SETTINGS, setting_label
from ndca_text import fmt, md_table, pm

PROFILES = ["ns2", "linux"]


def _row(s: pd.DataFrame, key: tuple) -> pd.Series:
    return s.loc[key]


def hold_table(summary: pd.DataFrame, cross: str) -> str:
    """One row per profile and setting: means ± 95 % half-widths over the seeds."""
    header = [
        "profile", "setting", "TCP goodput (Mb/s)", "Jain's index (4 flows)",
        "overflow drops", "avg queue (pkts)", "mean RTT (ms)", "timeouts (4 flows)",
        "share of time held", "longest hold (s)", "flows held from 30 s to the end",
        "cwnd while held (pkts)",
    ]  # fmt: skip
    rows = []
    for prof in PROFILES:
        for st in SETTINGS:
            r = _row(summary, (cross, prof, st))
            rows.append(
                [
                    prof, setting_label(st),
                    pm(r["goodput_mean"], r["goodput_ci95"], 1),
                    pm(r["jain_mean"], r["jain_ci95"], 3),
                    pm(r["overflow_mean"], r["overflow_ci95"], 0),
                    pm(r["avg_queue_mean"], r["avg_queue_ci95"], 0),
                    pm(r["rtt_ms_mean"], r["rtt_ms_ci95"], 1),
                    pm(r["timeouts_mean"], r["timeouts_ci95"], 1),
                    pm(r["held_share_mean"], r["held_share_ci95"], 2),
                    pm(r["longest_s_mean"], r["longest_s_ci95"], 1),
                    f"{r['stuck_mean']:.1f} of {N_FLOWS}" if cross == "burst" else "-",
                    fmt(r["cwnd_held_mean"], 0),
                ]
            )  # fmt: skip
    return md_table(header, rows, "ll" + "r" * 10)


def diff_table(diff: pd.DataFrame) -> str:
    """Each hold setting minus the hold off, paired by seed: mean ± 95 % half-width."""
    header = [
        "cross traffic", "profile", "setting", "Δ goodput (Mb/s)", "Δ Jain", "Δ overflow drops",
        "Δ avg queue (pkts)", "Δ mean RTT (ms)", "Δ timeouts",
    ]  # fmt: skip
    rows = []
    for cross in CROSS:
        for prof in PROFILES:
            for st in SETTINGS[1:]:
                d = diff.loc[(cross, prof, st)]
                rows.append(
                    [
                        CROSS[cross], prof, setting_label(st),
                        signed(d["goodput_mean"], d["goodput_ci95"], 1),
                        signed(d["jain_mean"], d["jain_ci95"], 3),
                        signed(d["overflow_mean"], d["overflow_ci95"], 0),
                        signed(d["avg_queue_mean"], d["avg_queue_ci95"], 0),
                        signed(d["rtt_ms_mean"], d["rtt_ms_ci95"], 1),
                        signed(d["timeouts_mean"], d["timeouts_ci95"], 1),
                    ]
                )  # fmt: skip
    return md_table(header, rows, "lll" + "r" * 6)


def signed(mean: float, ci: float, digits: int) -> str:
    """``+m ± ci``, in bold where the interval excludes zero."""
    ci = 0.0 if ci is None or math.isnan(ci) else ci
    text = f"{mean:+,.{digits}f}" + (f" ± {ci:,.{digits}f}" if ci >= 0.5 * 10**-digits else "")
    return f"**{text}**" if abs(mean) > ci and abs(mean) >= 0.5 * 10**-digits else text


def effect(d: pd.Series, metric: str, what: str, unit: str, digits: int = 1) -> str:
    """``raises <what> by m ± ci unit`` / ``lowers ...`` where the paired interval excludes zero,
    else ``leaves <what> unchanged (m ± ci unit)``."""
    m, ci = d[f"{metric}_mean"], d[f"{metric}_ci95"]
    ci = 0.0 if math.isnan(ci) else ci
    amount = f"{abs(m):,.{digits}f} ± {ci:,.{digits}f}{unit}"
    if abs(m) > ci and abs(m) >= 0.5 * 10**-digits:
        return f"{'raises' if m > 0 else 'lowers'} {what} by {amount}"
    return f"leaves {what} unchanged ({m:+,.{digits}f} ± {ci:,.{digits}f}{unit})"


def span(summary: pd.DataFrame, cross: str, prof: str, metric: str, digits: int) -> str:
    """The range of a metric's means over the hold-on settings: ``a-b``."""
    vals = [summary.loc[(cross, prof, st), f"{metric}_mean"] for st in SETTINGS[1:]]
    return f"{min(vals):,.{digits}f}-{max(vals):,.{digits}f}"


def alpha_matters(diff: pd.DataFrame, cross: str, prof: str, metric: str) -> bool:
    """Whether two α settings' paired differences have disjoint 95 % intervals."""
    rows = [diff.loc[(cross, prof, st)] for st in SETTINGS[1:]]
    lo = [r[f"{metric}_mean"] - r[f"{metric}_ci95"] for r in rows]
    hi = [r[f"{metric}_mean"] + r[f"{metric}_ci95"] for r in rows]
    return max(lo) > min(hi)


def hold_values(hold: dict, ref: str = "1.2") -> dict:
    """The placeholders of the template's ``hold`` section."""
    s, d = hold["summary"], hold["diff"]
    v: dict = {
        "hold_seeds": int(s["goodput_n"].min()),
        "hold_runs": len(hold["runs"]),
        "hold_ref": ref,
        "burst_table": hold_table(s, "burst"),
        "none_table": hold_table(s, "none"),
        "diff_table": diff_table(d),
    }
    for prof in PROFILES:
        for cross in CROSS:
            k = f"{prof}_{cross}"
            r, off = s.loc[(cross, prof, ref)], s.loc[(cross, prof, "off")]
            dd = d.loc[(cross, prof, ref)]
            v[f"{k}_held"] = span(s, cross, prof, "held_share", 2)
            v[f"{k}_longest"] = span(s, cross, prof, "longest_s", 1)
            v[f"{k}_goodput"] = effect(dd, "goodput", "the four flows' goodput", " Mb/s")
            v[f"{k}_queue"] = effect(dd, "avg_queue", "the average queue", " packets", 0)
            v[f"{k}_rtt"] = effect(dd, "rtt_ms", "their mean RTT", " ms")
            v[f"{k}_jain"] = effect(dd, "jain", "Jain's index", "", 3)
            v[f"{k}_timeouts"] = effect(dd, "timeouts", "the timeouts", "", 1)
            v[f"{k}_overflow"] = effect(dd, "overflow", "the overflow drops", "", 0)
            v[f"{k}_util_off"] = f"{off['util_mean']:.3f}"
            v[f"{k}_util_on"] = f"{r['util_mean']:.3f}"
            v[f"{k}_timeouts_off"] = fmt(off["timeouts_mean"], 1)
            v[f"{k}_stuck"] = f"{r['stuck_mean']:.1f}"
            v[f"{k}_cwnd_held"] = fmt(r["cwnd_held_mean"], 0)
            metrics = ("goodput", "avg_queue", "jain")
            hit = [m for m in metrics if alpha_matters(d, cross, prof, m)]
            v[f"{k}_alpha"] = (
                "no two values of α differ in goodput, average queue or Jain's index beyond "
                "their 95 % intervals"
                if not hit
                else "α matters for " + ", ".join(hit).replace("avg_queue", "the average queue")
            )
    return v


def hold_claim(hold: dict, ref: str = "1.2") -> tuple[list[str], str]:
    """§3.4 / the conclusion: holding the window at the detected bandwidth makes NDCA-TCP use
    a fixed-bandwidth network fully and stably. Reproduced if the hold raises goodput (paired
    interval above zero) under both profiles, partly under one, else not reproduced."""
    d, s = hold["diff"], hold["summary"]
    up, parts = [], []
    for prof in PROFILES:
        dd = d.loc[("burst", prof, ref)]
        up.append(dd["goodput_mean"] - dd["goodput_ci95"] > 0)
        r = s.loc[("burst", prof, ref)]
        parts.append(
            f"{PROFILE_LABEL[prof]}: goodput {signed(dd['goodput_mean'], dd['goodput_ci95'], 1)}"
            f" Mb/s, avg queue {signed(dd['avg_queue_mean'], dd['avg_queue_ci95'], 0)} pkts, "
            f"Jain {signed(dd['jain_mean'], dd['jain_ci95'], 3)}; held "
            f"{r['held_share_mean']:.2f} of the time, longest hold {r['longest_s_mean']:.1f} s"
        )
    v = "reproduced" if all(up) else "partly" if any(up) else "not reproduced"
    row = [
        "§3.4 and conclusion: in fixed-bandwidth networks AIMD's window fluctuation leaves "
        "bandwidth unused; holding the window once RTT > α·BaseRTT lets NDCA-TCP use the link "
        "fully and stably",
        f"four flows on 100 Mb/s with a CBR burst, hold (α = {ref}) minus hold off, paired over "
        f"{int(s['goodput_n'].min())} seeds: " + "; ".join(parts),
        v + (": more goodput under one profile only, and the held windows are unequal"
             if v == "partly" else ""),
    ]  # fmt: skip
    return row, v
