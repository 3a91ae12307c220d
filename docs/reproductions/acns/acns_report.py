"""The report of the seed paper 000 reproduction (``run.py``): its tables, the claims table
and the values of the prose in ``template.md`` (filled with ``string.Template``), all
computed from the replicated runs."""

from __future__ import annotations

import re
import string
import textwrap
from dataclasses import replace

import acns_model
import pandas as pd
from acns_setup import (
    ACNS,
    BUFFER,
    BUFFERS,
    CCS,
    HEADLINE,
    NONE,
    PAPER,
    PAPER_TABLE10,
    PROFILE_RECOVERY,
    PROFILES,
    RATE,
    RATES,
    REPLICATIONS,
    REPORT,
    RWND,
    SCENARIO,
    SEND_JITTER,
    START_SHIFT_S,
    TEMPLATE,
    VARIANTS,
    Config,
)
from acns_stats import (
    Est,
    diff,
    effect_verdict,
    est,
    loss_verdict,
    order_verdict,
    paired,
    ranking,
)
from repro_grid import shown

CHECK = next(p for p in PROFILES if p != HEADLINE)
NEARLY_NONE = 0.05  # "nearly none" losses: under 5 % of the baseline's (the paper: 2 of 236)
PAPER_ORDER_ON = (3, 2, 1)  # Table 6 with ACNS: 1.0 > 0.7 > 0.3 Mb/s
PAPER_ORDER_OFF = (1, 2, 3)  # Table 6 without: 0.8 > 0.4 > 0.2 Mb/s
# Table 7's largest RTT of the three flows, without and with ACNS (s).
PAPER_RTT_MAX = (max(PAPER[NONE]["rtt_max"]), max(PAPER[ACNS]["rtt_max"]))
PAPER_LOSS = (sum(PAPER[NONE]["loss"]), sum(PAPER[ACNS]["loss"]))


def pct(e: Est) -> str:
    return e.fmt(".1f", " %", signed=True)


def moves(e: Est, up: str = "rises", down: str = "falls", none: str = "does not move") -> str:
    """How a paired difference moves, in words: ``none`` where its interval contains zero."""
    return {1: up, -1: down, 0: f"{none} beyond the noise"}[e.sign()]


def rec_name(c: Config) -> str:
    return c.recovery or PROFILE_RECOVERY[c.profile]


def pair_runs(runs: dict, c: Config) -> tuple[pd.DataFrame, pd.DataFrame]:
    off, on = c.pair()
    return runs[off], runs[on]


def deltas(off: pd.DataFrame, on: pd.DataFrame) -> dict[str, Est]:
    """The paired ACNS − no ACNS differences that decide the verdicts."""
    return {
        "thr": paired(on, off, "thr", relative=True),
        "mb": paired(on, off, "mb", relative=True),
        "rtt": paired(on, off, "rtt", relative=True),
        "rtt_max": paired(on, off, "rtt_max"),
        "loss": paired(on, off, "loss"),
    }


# --- tables ------------------------------------------------------------------------------------


def paper_table() -> str:
    head = (
        "| run | flow | throughput avg (Mb/s) | max (Mb/s) | RTT avg (s) | RTT max (s) "
        "| data (MB) | loss (packets) |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    )
    lines = []
    for run, p in PAPER.items():
        for i in range(3):
            lines.append(
                f"| {run} | #{i + 1} | {p['avg'][i]:.2f} | {p['max'][i]:.2f} | {p['rtt'][i]:.3f} "
                f"| {p['rtt_max'][i]:.3f} | {p['mb'][i]:.2f} | {p['loss'][i]} |\n"
            )
    return head + "".join(lines)


def per_flow_table(runs: dict, profile: str) -> str:
    """Table 6-9's layout for one profile: mean ± 95 % half-width over the replications."""
    head = (
        "| run | flow | throughput avg (Mb/s) | max (Mb/s) | from 41 s (Mb/s) | RTT avg (s) "
        "| RTT max (s) | data (MB) | loss (packets) |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    )
    spec = {"avg": ".2f", "max": ".2f", "steady": ".2f", "rtt": ".3f", "rtt_max": ".3f",
            "mb": ".2f", "loss": ".0f"}  # fmt: skip
    lines = []
    for variant in VARIANTS:
        df = runs[Config(profile, variant)]
        for i in (1, 2, 3):
            cells = " | ".join(est(df[f"{k}{i}"]).fmt(f) for k, f in spec.items())
            lines.append(f"| {variant} | #{i} | {cells} |\n")
    return head + "".join(lines)


def totals_table(runs: dict) -> str:
    head = (
        "| profile | run | TCP throughput (Mb/s) | mean RTT (s) | largest RTT (s) | TCP data (MB) "
        "| TCP loss | TCP timeouts | UDP (Mb/s) | commands freeze / fallback | losses kept / "
        "fallen back / decreased |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
        "| --- |\n"
    )
    lines = []
    for profile in PROFILES:
        for variant in VARIANTS:
            df = runs[Config(profile, variant)]
            m = {k: est(df[k]) for k in ("thr", "rtt", "rtt_max", "mb", "loss", "timeouts", "udp")}
            trend = " / ".join(
                f"{df[k].mean():.0f}" for k in ("trend_keep", "trend_fallback", "trend_decrease")
            )
            lines.append(
                f"| {profile} | {variant} | {m['thr'].fmt()} | {m['rtt'].fmt('.3f')} "
                f"| {m['rtt_max'].fmt('.3f')} | {m['mb'].fmt('.1f')} | {m['loss'].fmt('.0f')} "
                f"| {m['timeouts'].fmt('.1f')} "
                f"| {m['udp'].fmt()} | {df['freezes'].mean():.0f} / {df['fallbacks'].mean():.0f} "
                f"| {trend} |\n"
            )
    return head + "".join(lines)


def deltas_table(runs: dict) -> str:
    head = (
        "| profile | ACNS variant − no ACNS | TCP throughput | TCP data | mean RTT "
        "| largest RTT (s) | TCP loss (packets) |\n| --- | --- | --- | --- | --- | --- | --- |\n"
    )
    paper = (
        "| paper (Tables 7-10) | intended | +44.5 % | +44.0 % | −7.1 % "
        f"| {PAPER_RTT_MAX[1] - PAPER_RTT_MAX[0]:+.3f} | {PAPER_LOSS[1] - PAPER_LOSS[0]:+d} |\n"
    )
    lines = [paper.replace("-", "−")]
    for profile in PROFILES:
        off = runs[Config(profile, NONE)]
        for variant in list(VARIANTS)[1:]:
            d = deltas(off, runs[Config(profile, variant)])
            lines.append(
                f"| {profile} | {variant.removeprefix('ACNS, ')} | {pct(d['thr'])} "
                f"| {pct(d['mb'])} | {pct(d['rtt'])} | {d['rtt_max'].fmt('.3f', signed=True)} "
                f"| {d['loss'].fmt('.0f', signed=True)} |\n"
            )
    return head + "".join(lines)


def order_table(runs: dict) -> str:
    head = (
        "| profile | run | #2 − #1 (Mb/s) | #3 − #2 (Mb/s) | #3 − #1 (Mb/s) | order |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| paper (Table 6) | no ACNS | −0.40 | −0.20 | −0.60 | #1 > #2 > #3 |\n"
        "| paper (Table 6) | ACNS | +0.40 | +0.30 | +0.70 | #3 > #2 > #1 |\n"
    )
    lines = []
    for profile in PROFILES:
        for variant in (NONE, ACNS):
            df = runs[Config(profile, variant)]
            cells = " | ".join(
                diff(df, f"avg{a}", f"avg{b}").fmt(signed=True) for a, b in ((2, 1), (3, 2), (3, 1))
            )
            lines.append(f"| {profile} | {variant} | {cells} | {ranking(df)} |\n")
    return head + "".join(lines)


def buffer_table(runs: dict) -> str:
    head = (
        "| profile, TCP | buffer (packets) | largest RTT, no ACNS → ACNS (s) | paired change (s) "
        "| TCP loss, no ACNS → ACNS | TCP throughput change | mean RTT change | order with ACNS |\n"
        "| --- | ---: | --- | --- | --- | --- | --- | --- |\n"
    )
    lines = []
    for view in VIEWS.values():
        for b in BUFFERS:
            off, on = pair_runs(runs, replace(view, buffer=b))
            d = deltas(off, on)
            lines.append(
                f"| {view.profile}, {view.cc} {rec_name(view)} | {b} "
                f"| {est(off['rtt_max']).fmt('.3f')} → "
                f"{est(on['rtt_max']).fmt('.3f')} | {d['rtt_max'].fmt('.3f', signed=True)} "
                f"| {est(off['loss']).fmt('.0f')} → {est(on['loss']).fmt('.0f')} "
                f"| {pct(d['thr'])} | {pct(d['rtt'])} | {ranking(on)} |\n"
            )
    return head + "".join(lines)


def cc_configs(profile: str) -> list[Config]:
    return [
        Config(profile, cc=cc, recovery=None if rec == PROFILE_RECOVERY[profile] else rec)
        for cc, rec in CCS
    ]


def cc_table(runs: dict) -> str:
    head = (
        "| profile | TCP | TCP throughput change | mean RTT change | largest RTT change (s) "
        "| TCP loss, no ACNS → ACNS | order with ACNS | the paper's three directions |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
    )
    lines = []
    for profile in PROFILES:
        for c in cc_configs(profile):
            off, on = pair_runs(runs, c)
            d = deltas(off, on)
            lines.append(
                f"| {profile} | {c.cc}, {rec_name(c)} | {pct(d['thr'])} | {pct(d['rtt'])} "
                f"| {d['rtt_max'].fmt('.3f', signed=True)} | {est(off['loss']).fmt('.0f')} → "
                f"{est(on['loss']).fmt('.0f')} | {ranking(on)} | {directions(d)} |\n"
            )
    return head + "".join(lines)


def shares(df: pd.DataFrame, order: tuple[int, int, int]) -> str:
    """The flows' mean lifetime throughputs in ``order``, "1.89 / 0.50 / 0.31"."""
    return " / ".join(f"{df[f'avg{i}'].mean():.2f}" for i in order)


def directions(d: dict[str, Est]) -> str:
    """Which of the paper's three directions (throughput up, mean RTT down, losses down) hold
    beyond the noise, e.g. "3 of 3"."""
    n = (d["thr"].sign() == 1) + (d["rtt"].sign() == -1) + (d["loss"].sign() == -1)
    return f"{n} of 3"


def rate_table(runs: dict) -> str:
    head = (
        "| profile | last mile | TCP throughput, no ACNS → ACNS (Mb/s) | change | mean RTT change "
        "| TCP loss, no ACNS → ACNS | order with ACNS |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n"
    )
    lines = []
    for profile in PROFILES:
        for rate in RATES:
            off, on = pair_runs(runs, Config(profile, rate=rate))
            d = deltas(off, on)
            lines.append(
                f"| {profile} | {rate.replace('Mbps', ' Mb/s')} | {est(off['thr']).fmt()} → "
                f"{est(on['thr']).fmt()} | {pct(d['thr'])} | {pct(d['rtt'])} "
                f"| {est(off['loss']).fmt('.0f')} → {est(on['loss']).fmt('.0f')} "
                f"| {ranking(on)} |\n"
            )
    return head + "".join(lines)


def jitter_table(runs: dict, jitter: dict) -> str:
    head = (
        "| replicated by | TCP throughput change | mean RTT change | largest RTT change (s) "
        "| TCP loss change | order with ACNS |\n| --- | --- | --- | --- | --- | --- |\n"
    )
    lines = []
    for name, src in (
        (f"start shifts U(0, {START_SHIFT_S * 1e3:.0f} ms)", runs),
        (f"send jitter {SEND_JITTER.replace('ms', ' ms')}, seeds 1-{REPLICATIONS}", jitter),
    ):
        off, on = pair_runs(src, Config(HEADLINE))
        d = deltas(off, on)
        lines.append(
            f"| {name} | {pct(d['thr'])} | {pct(d['rtt'])} "
            f"| {d['rtt_max'].fmt('.3f', signed=True)} | {d['loss'].fmt('.0f', signed=True)} "
            f"| {ranking(on)} |\n"
        )
    return head + "".join(lines)


# --- claims ------------------------------------------------------------------------------------


# The claims table's columns: the headline, the headline profile with CUBIC on SACK (ns-2's
# Linux agent can run SACK; the ns2 profile's own recovery is NewReno), and the check profile.
VIEWS = {
    f"`{HEADLINE}` (headline)": Config(HEADLINE),
    f"`{HEADLINE}`, CUBIC with SACK": Config(HEADLINE, recovery="sack"),
    f"`{CHECK}` (check)": Config(CHECK),
}


def claims(runs: dict) -> tuple[str, dict[str, dict[str, str]]]:
    """The claims table and, per claim and view (VIEWS), its verdict (for the prose and the
    tests). The verdict column is the headline's; the other views give theirs in brackets."""
    d = {k: deltas(*pair_runs(runs, c)) for k, c in VIEWS.items()}
    on = {k: runs[c] for k, c in VIEWS.items()}
    off = {k: runs[c.pair()[0]] for k, c in VIEWS.items()}
    big = {k: deltas(*pair_runs(runs, replace(c, buffer=max(BUFFERS)))) for k, c in VIEWS.items()}
    first = next(iter(VIEWS))
    verdicts: dict[str, dict[str, str]] = {}
    rows = []

    def add(key, claim, paper, number, verdict_of, reason):
        v = {k: verdict_of(k) for k in VIEWS}
        verdicts[key] = v
        cells = " | ".join(
            number(k) + ("" if k == first or v[k] == "—" else f" ({v[k]})") for k in VIEWS
        )
        rows.append(f"| {claim} | {paper} | {cells} | **{v[first]}** | {reason} |\n")

    for key, label in (
        ("thr", "Total average TCP throughput rises by 44.5 % (Table 10)"),
        ("mb", "Total TCP data sent rises by 44.0 % (Table 10)"),
        ("rtt", "Total average RTT falls by 7.1 % (Table 10)"),
    ):
        add(
            key, label, f"{PAPER_TABLE10[key]:+.1f} %".replace("-", "−"),
            lambda k, x=key: pct(d[k][x]),
            lambda k, x=key: effect_verdict(d[k][x], PAPER_TABLE10[x]),
            REASONS[key],
        )  # fmt: skip
    paper_dmax = PAPER_RTT_MAX[1] - PAPER_RTT_MAX[0]
    paper_max = f"{PAPER_RTT_MAX[0]:.3f} → {PAPER_RTT_MAX[1]:.3f} s ({paper_dmax:+.3f} s)".replace(
        "-", "−"
    )
    add(
        "rtt_max", f"The maximum RTT falls (Table 7; largest of the three flows), {BUFFER}-packet "
        "buffers", paper_max,
        lambda k: d[k]["rtt_max"].fmt(".3f", " s", signed=True),
        lambda k: effect_verdict(d[k]["rtt_max"], paper_dmax),
        "the largest RTT is the base RTT plus one full bottleneck queue, with and without ACNS",
    )  # fmt: skip
    add(
        "rtt_max_big", f"The same with {max(BUFFERS)}-packet buffers (the first version of this "
        "report blamed the buffers)", paper_max,
        lambda k: big[k]["rtt_max"].fmt(".3f", " s", signed=True),
        lambda k: effect_verdict(big[k]["rtt_max"], paper_dmax),
        "larger buffers raise the baseline's maximum towards the paper's level and let ACNS "
        "cut it, by less than the paper; see [buffers](#buffers-and-the-maximum-rtt)",
    )  # fmt: skip
    add(
        "loss", "Nearly no losses with ACNS (Table 9; Conclusions)",
        f"{PAPER_LOSS[0]} → {PAPER_LOSS[1]} packets",
        lambda k: f"{est(off[k]['loss']).fmt('.0f')} → {est(on[k]['loss']).fmt('.0f')}",
        lambda k: loss_verdict(on[k], off[k], NEARLY_NONE),
        f"holds means ACNS's losses under {NEARLY_NONE:.0%} of the baseline's; the DSCP-46 flow "
        "is not told to back off until the queue is well filled, and overflows it",
    )  # fmt: skip
    add(
        "order_on", "With ACNS the youngest, highest-priority flow gets most, the oldest least "
        "(Table 6)", "#3 > #2 > #1 (1.0 / 0.7 / 0.3 Mb/s)",
        lambda k: f"{ranking(on[k])} ({shares(on[k], PAPER_ORDER_ON)} Mb/s)",
        lambda k: order_verdict(on[k], PAPER_ORDER_ON)[0],
        "#2 − #1: " + "; ".join(
            f"{diff(on[k], 'avg2', 'avg1').fmt(signed=True)} Mb/s ({k})" for k in VIEWS
        ) + "; see [flow order](#flow-order)",
    )  # fmt: skip
    add(
        "order_off", "Without ACNS the oldest flow gets most (Table 6)",
        "#1 > #2 > #3 (0.8 / 0.4 / 0.2 Mb/s)",
        lambda k: f"{ranking(off[k])} ({shares(off[k], PAPER_ORDER_OFF)} Mb/s)",
        lambda k: order_verdict(off[k], PAPER_ORDER_OFF)[0],
        "the first flow has the link to itself for 15 s, the second for 15 s with two flows",
    )  # fmt: skip
    add(
        "any_tcp", "ACNS works with any TCP variant (§4, Conclusions; only CUBIC is run)",
        "no number",
        lambda k: "—" if VIEWS[k].recovery else ", ".join(
            f"{c.cc}/{rec_name(c)} {directions(deltas(*pair_runs(runs, c)))}"
            for c in cc_configs(VIEWS[k].profile)
        ),
        lambda k: "—" if VIEWS[k].recovery else any_tcp_verdict(runs, VIEWS[k].profile),
        "how many of the paper's three directions (throughput up, mean RTT down, losses down) "
        "hold beyond the noise for CUBIC and Reno, each with SACK and NewReno recovery; see "
        "[TCP variants](#tcp-variants)",
    )  # fmt: skip
    head = (
        "| claim | the paper | "
        + " | ".join(f"ccsim, {k}" for k in VIEWS)
        + " | verdict | reason |\n|"
        + " --- |" * (len(VIEWS) + 4)
        + "\n"
    )
    model = (
        "| The model (§3.4, Figs. 4-6): without ACNS congestion persists; with priorities the "
        "commands rise as the queue fills and congestion is relieved | figures not in the text "
        "| see [model verification](#model-verification-34-figs-46) | — | — | **not testable** "
        "| the figures and the model's parameters are not in the text; ccsim's simulation of it "
        "is shown, not compared |\n"
    )
    return head + "".join(rows) + model, verdicts


def any_tcp_verdict(runs: dict, profile: str) -> str:
    """Verdict: "holds" if every TCP variant shows all three of the paper's directions beyond
    the noise, "does not hold" if none shows any, "partly" otherwise."""
    n = [int(directions(deltas(*pair_runs(runs, c)))[0]) for c in cc_configs(profile)]
    if min(n) == 3:
        return "holds"
    return "does not hold" if max(n) == 0 else "partly"


REASONS = {
    "thr": "in the headline most of the gain is the baseline's losses and timeouts that ACNS "
    "avoids (NewReno without SACK); with SACK, or in `linux`, the baseline wastes less",
    "mb": "ACNS moves the rate to the youngest flow, which lives shortest, so the data gains "
    "less than the sum of the flows' average rates",
    "rtt": "where the baseline keeps the queue standing (`linux`) ACNS's fallbacks shorten it; "
    "the `ns2` baseline's timeouts empty it often",
}


# --- the report --------------------------------------------------------------------------------


def reflow(markdown: str, width: int = 96) -> str:
    """Rewraps the prose paragraphs and bullets of ``markdown`` to ``width`` once the numbers
    are in (the template's lines are wrapped around the placeholders); headings, tables,
    figures, code and blank lines stay as they are."""
    out, block = [], []
    code = False

    def flush():
        if block:
            bullet = block[0].startswith("- ")
            out.append(
                textwrap.fill(
                    " ".join(line.strip() for line in block), width=width,
                    subsequent_indent="  " if bullet else "", break_long_words=False,
                    break_on_hyphens=False,
                )
            )  # fmt: skip
            block.clear()

    for line in markdown.splitlines():
        if line.startswith("```"):
            flush()
            code = not code
            out.append(line)
            continue
        heading = re.match(r"#+ ", line) is not None
        keep = code or heading or not line.strip() or line.startswith(("|", "![", "*Provenance"))
        if keep or line.startswith("- "):
            flush()
        if keep:
            out.append(line)
        else:
            block.append(line)
    flush()
    return "\n".join(out) + "\n"


def values(sw: dict, model: pd.DataFrame, figs: dict, run: dict | None, prov: str) -> dict:
    runs = sw["runs"]
    table, verdicts = claims(runs)
    d = {p: deltas(*pair_runs(runs, Config(p))) for p in PROFILES}
    on = {p: runs[Config(p)] for p in PROFILES}
    off = {p: runs[Config(p, NONE)] for p in PROFILES}
    big = {p: pair_runs(runs, Config(p, buffer=max(BUFFERS))) for p in PROFILES}
    dbig = {p: deltas(*big[p]) for p in PROFILES}
    m = {case: model[model["case"] == case] for case in acns_model.CASES}
    v = {
        "provenance": prov,
        "claims": table,
        "headline": HEADLINE,
        "check": CHECK,
        "reps": str(REPLICATIONS),
        "shift_ms": f"{START_SHIFT_S * 1e3:.0f}",
        "jitter": SEND_JITTER.replace("ms", " ms"),
        "rwnd_mb": f"{RWND / 2**20:.0f}",
        "scenario": shown(SCENARIO),
        "buffer": str(BUFFER),
        "buffers": ", ".join(str(b) for b in BUFFERS),
        "big": str(max(BUFFERS)),
        "rate": RATE.replace("Mbps", " Mb/s"),
        "paper_table": paper_table(),
        "flows_headline": per_flow_table(runs, HEADLINE),
        "flows_check": per_flow_table(runs, CHECK),
        "totals": totals_table(runs),
        "deltas": deltas_table(runs),
        "orders": order_table(runs),
        "buffer_table": buffer_table(runs),
        "cc_table": cc_table(runs),
        "rate_table": rate_table(runs),
        "jitter_table": jitter_table(runs, sw["jitter"]),
        "model_table": acns_model.summary(model),
        "fig_series": "\n".join(
            f"![acns-{k}](figures/{figs[k].name})" for k in ("throughput", "rtt")
        ),
        "fig_buffers": f"![acns-buffers](figures/{figs['buffers'].name})",
        "fig_model": f"![acns-model](figures/{figs['model'].name})",
        "model_flows": str(acns_model.FLOWS),
        "model_duration": f"{acns_model.DURATION_S:.0f}",
        "model_life": f"{acns_model.MEAN_LIFE_S:.0f}",
        "model_draws": str(acns_model.DRAWS),
        "runtime": runtime(run, sw),
    }
    for p in PROFILES:
        for k, e in d[p].items():
            v[f"d_{k}_{p}"] = (
                e.fmt(".3f", " s", signed=True)
                if k == "rtt_max"
                else (e.fmt(".0f", signed=True) if k == "loss" else pct(e))
            )
            v[f"moves_{k}_{p}"] = moves(e)
        for k in ("thr", "rtt", "rtt_max", "loss", "udp", "timeouts"):
            spec = {"rtt": ".3f", "rtt_max": ".3f", "loss": ".0f", "timeouts": ".1f"}.get(k, ".2f")
            v[f"off_{k}_{p}"] = est(off[p][k]).fmt(spec)
            v[f"on_{k}_{p}"] = est(on[p][k]).fmt(spec)
        for key, verdict in verdicts.items():
            v[f"v_{key}_{p}"] = verdict[VIEW_OF[p]]
        v[f"order_on_{p}"] = ranking(on[p])
        v[f"order_off_{p}"] = ranking(off[p])
        d21 = diff(on[p], "avg2", "avg1")
        v[f"d21_{p}"] = d21.fmt(signed=True)
        v[f"d21_word_{p}"] = {1: "more than", -1: "less than", 0: "as much as"}[d21.sign()]
        v[f"steady_on_{p}"] = " / ".join(f"{on[p][f'steady{i}'].mean():.2f}" for i in (1, 2, 3))
        v[f"steady_off_{p}"] = " / ".join(f"{off[p][f'steady{i}'].mean():.2f}" for i in (1, 2, 3))
        v[f"fallbacks1_{p}"] = f"{on[p]['fallbacks1'].mean():.0f}"
        v[f"fallbacks2_{p}"] = f"{on[p]['fallbacks2'].mean():.0f}"
        v[f"fallbacks3_{p}"] = f"{on[p]['fallbacks3'].mean():.0f}"
        v[f"loss3_{p}"] = est(on[p]["loss3"]).fmt(".0f")
        v[f"loss12_{p}"] = est(on[p]["loss1"] + on[p]["loss2"]).fmt(".0f")
        v[f"loss12_off_{p}"] = est(off[p]["loss1"] + off[p]["loss2"]).fmt(".0f")
        bo, bn = big[p]
        v[f"big_rtt_max_off_{p}"] = est(bo["rtt_max"]).fmt(".3f")
        v[f"big_rtt_max_on_{p}"] = est(bn["rtt_max"]).fmt(".3f")
        v[f"big_d_rtt_max_{p}"] = dbig[p]["rtt_max"].fmt(".3f", " s", signed=True)
        v[f"big_moves_rtt_max_{p}"] = moves(dbig[p]["rtt_max"])
        v[f"big_loss_off_{p}"] = est(bo["loss"]).fmt(".0f")
        v[f"big_loss_on_{p}"] = est(bn["loss"]).fmt(".0f")
        v[f"big_thr_{p}"] = pct(dbig[p]["thr"])
        v[f"rtt_max_off_{p}"] = est(off[p]["rtt_max"]).fmt(".3f")
        v[f"tcp41_off_{p}"] = f"{sum(off[p][f'steady{i}'].mean() for i in (1, 2, 3)):.2f}"
        every = deltas(off[p], runs[Config(p, "ACNS, every packet asks")])
        v[f"every_thr_{p}"] = pct(every["thr"])
        v[f"every_rtt_{p}"] = pct(every["rtt"])
        v[f"every_loss_{p}"] = every["loss"].fmt(".0f", signed=True)
    sack = deltas(*pair_runs(runs, Config(HEADLINE, recovery="sack")))
    for k in ("thr", "rtt", "loss"):
        v[f"sack_{k}"] = pct(sack[k]) if k != "loss" else sack[k].fmt(".0f", signed=True)
        v[f"sack_moves_{k}"] = moves(sack[k])
    paper_mb = sum(PAPER[NONE]["mb"])
    v["paper_base_mb"] = f"{paper_mb:.1f}"
    v["paper_base_rate"] = f"{paper_mb * 8 / 118:.1f}"
    v["big_sentence"] = big_sentence(runs)
    leads = [p for p in PROFILES if ranking(on[p]).startswith("#3 >")]
    v["lead_sentence"] = (
        "The DSCP-46 flow leads beyond the noise in both profiles, as in the paper."
        if len(leads) == len(PROFILES)
        else f"The DSCP-46 flow leads beyond the noise only in {', '.join(leads) or 'neither'}."
    )
    for p in PROFILES:
        v[f"by_verdict_{p}"] = by_verdict(verdicts, VIEW_OF[p])
    j = deltas(*pair_runs(sw["jitter"], Config(HEADLINE)))
    v["jitter_agrees"] = (
        "agree in sign on every change"
        if all(j[k].sign() == d[HEADLINE][k].sign() for k in ("thr", "rtt", "rtt_max", "loss"))
        else "disagree in sign on "
        + ", ".join(k for k in ("thr", "rtt", "rtt_max", "loss")
                    if j[k].sign() != d[HEADLINE][k].sign())
    )  # fmt: skip
    for case, key in zip(acns_model.CASES, ("m0", "mn", "mz")):
        for col in ("active", "freeze", "fallback", "queue", "drops"):
            v[f"{key}_{col}"] = est(m[case][col]).fmt(".0f" if col == "drops" else ".1f")
    return v


SHORT = {
    "thr": "throughput +44.5 %",
    "mb": "data +44.0 %",
    "rtt": "mean RTT −7.1 %",
    "rtt_max": "maximum RTT falls",
    "rtt_max_big": f"maximum RTT falls with {max(BUFFERS)}-packet buffers",
    "loss": "nearly no losses",
    "order_on": "flow order with ACNS",
    "order_off": "flow order without ACNS",
    "any_tcp": "any TCP variant",
}


def by_verdict(verdicts: dict[str, dict[str, str]], view: str) -> str:
    """The claims grouped by their verdict in ``view``: "holds: …; partly: …; …"."""
    groups: dict[str, list[str]] = {}
    for key, v in verdicts.items():
        groups.setdefault(v[view], []).append(SHORT[key])
    order = ("holds", "partly", "does not hold")
    return "; ".join(f"{g}: {', '.join(groups[g])}" for g in order if g in groups)


VIEW_OF = {c.profile: k for k, c in VIEWS.items() if not c.recovery}


def big_sentence(runs: dict) -> str:
    """Whether the largest buffer brings the baseline's maximum RTT to the paper's 0.973-1.230 s,
    per profile."""
    parts = []
    lo, hi = min(PAPER[NONE]["rtt_max"][:2]), PAPER_RTT_MAX[0]
    for p in PROFILES:
        m = est(runs[Config(p, NONE, buffer=max(BUFFERS))]["rtt_max"])
        where = "below" if m.hi < lo else ("above" if m.lo > hi else "within")
        parts.append(f"{m.fmt('.3f')} s in `{p}`, {where} the paper's {lo:.3f}–{hi:.3f} s")
    return f"at {max(BUFFERS)} packets the baseline's largest RTT is " + "; ".join(parts)


def runtime(run: dict | None, sw: dict) -> str:
    done = f"This invocation computed {sw['computed']} of {sw['points']} replicated points."
    if run is None:
        return done + " No invocation has computed everything yet."
    return done + (
        f" The last invocation that computed everything took {run['total_s']:.0f} s with "
        f"{run['workers']} worker(s) on a {run['cpus']}-CPU machine."
    )


def write_report(sw: dict, model: pd.DataFrame, figs: dict, run: dict | None, prov: str) -> None:
    text = string.Template(TEMPLATE.read_text()).substitute(values(sw, model, figs, run, prov))
    REPORT.write_text(reflow(text))
