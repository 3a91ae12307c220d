"""The report of the paper 001 reproduction (``run.py``): tables, the numbers behind the
prose, and the values that fill ``template.md`` (``string.Template``; the fixed prose lives
there), from the sweeps the runs produced."""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np
import pandas as pd
from ass_claims import claims_table
from ass_figures import figure_list
from ass_rank import (
    Grid,
    best_match,
    ccsim_best,
    ccsim_rank,
    ccsim_relation,
    half_width,
    pairs,
    parse_rank,
    per_seed_pairs,
    rank,
    relation,
    show_rank,
)
from ass_setup import (
    ALG,
    ALG_NO,
    ALGS,
    CLAIMS,
    GRID,
    IFQS,
    IW_NAME,
    IWS,
    JITTER,
    LIMIT,
    LOSS,
    LOSSES,
    RATE,
    RATES,
    REPORT,
    STARTUP,
    THROUGHPUT_BIN,
    TIE,
    pretty_rate,
)
from ass_verdicts import loss_verdicts, lossless_verdicts, startup_timeouts

TEMPLATE = Path(__file__).with_name("template.md")

# How the template shows each number (the rest are text or integers, shown as they are).
FORMATS = {
    "spread10": ".2f", "spread03_big": ".2f", "gain03": ".1f", "ts_rel_lo": "+.1f",
    "ts_rel_hi": "+.1f", "g03_5_lss": ".1f", "g03_5_ass": ".1f", "g03_15_lss": ".1f",
    "g03_15_ass2": ".1f", "off250": ".2f", "off5": ".1f", "spread5": ".0f", "s03_15_lss": ".1f",
    "s03_15_ass2": ".1f", "s03_25_lss": ".1f", "s03_25_ass2": ".1f", "s10_200_lss": ".0f",
    "s10_200_ass2": ".0f", "s10_5_lss": ".0f", "s10_5_ass3": ".0f", "tie": ".1f",
    "spread_03": ".2f", "spread_10": ".2f", "ovf5": ".1f", "rnd5": ".0f", "iwgap_03": ".1f",
    "iwgap_10": ".1f", "d21_10": "+.1f", "h21_10": ".1f", "d31_10": "+.1f", "h31_10": ".1f",
    "d21_03": "+.1f", "h21_03": ".1f", "d31_03": "+.1f", "h31_03": ".1f", "d23_10": "+.1f",
    "h23_10": ".1f", "d23_03": "+.1f", "h23_03": ".1f", "ass2_behind": ".2f",
    "rtt_max_nots": ".2f", "rtt_max_ts": ".2f", "samples_nots": ".0f", "samples_ts": ".0f",
    "samples_fewer": ".0f", "rto_nots_03": ".1f", "rto_ts_03": ".1f", "rto_nots_10": ".1f",
    "rto_ts_10": ".1f", "rtomax_nots_03": ".1f", "rtomax_nots_10": ".1f", "rtomax_ts_03": ".1f",
    "rtomax_ts_10": ".1f", "to_nots": ".0f", "to_ts": ".0f", "ts_rel0": ".2f", "dup_pct": ".1f",
}  # fmt: skip


def fmt(x: np.ndarray, bold: bool) -> str:
    m, h = float(np.mean(x)), half_width(x)
    s = f"{m:.1f}" if h < 0.05 else f"{m:.1f} ± {h:.1f}"
    return f"**{s}**" if bold else s


def throughput_table(grid: Grid, rate: str, loss: float) -> str:
    head = ["IFQ"] + [f"IW {IW_NAME[iw]}: {ALG_NO[a]}" for iw in IWS for a in ALGS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for ifq in IFQS:
        row = [str(ifq)]
        for iw in IWS:
            vals = [grid.cell(rate, loss, iw, ifq, a) for a in ALGS]
            best = max(float(np.mean(v)) for v in vals)
            row += [fmt(v, float(np.mean(v)) >= best - 1e-9) for v in vals]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def ranking_table(grids: dict[str, Grid]) -> tuple[str, dict]:
    """The paper's rankings against ccsim's, 250 s and first 5 s. ``grids``: "250" and "5"
    (the grid's seeds: random loss), "250j" and "5j" (lossless with send jitter); a lossless
    case is ranked on the jittered runs, a lossy one on the grid."""
    lines = [
        "| bottleneck | loss | larger IW | IFQ | paper (its words) | paper | ccsim, 250 s "
        "| same/tie/opp. | best | ccsim, first 5 s | same/tie/opp. | best |",
        "|---|---|---|---:|---|---|---|---|---|---|---|---|",
    ]
    score = {m: {"pairs": [0, 0, 0], "best": {"yes": 0, "tie": 0, "no": 0}} for m in ("250", "5")}
    for rate, loss, iw, ifq, text, words in CLAIMS:
        paper = parse_rank(text)
        keep = {a for g in paper for a in g}
        cells = []
        for m in ("250", "5"):
            grid = grids[m if loss else m + "j"]
            # where the paper pools every IFQ, rank at IFQ 50 (the spread over IFQ is reported)
            q = 50 if ifq is None else ifq
            ours = ccsim_rank(grid, rate, loss, iw, q, keep)
            s, t, o = pairs(paper, ccsim_relation(grid, rate, loss, iw, q, keep))
            b = best_match(paper, ccsim_best(grid, rate, loss, iw, q, keep))
            for k, x in enumerate((s, t, o)):
                score[m]["pairs"][k] += x
            score[m]["best"][b] += 1
            cells += [show_rank(ours), f"{s}/{t}/{o}", b]
        where = "all" if ifq is None else str(ifq)
        lines.append(
            f"| {pretty_rate(rate)} | {loss:.0%} | {IW_NAME[iw]} | {where} | {words} | {text} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines), score


def split_numbers(grids: dict[str, Grid]) -> dict[str, str]:
    """The first-5 s and 250 s splits of the paper's lossless pairs: seed by seed on the
    jittered runs (mean ± 95 % interval over the seeds), and on the runs without jitter (one
    trajectory per case, as the first version of this report counted them)."""
    cases = [(r, lo, iw, q, t) for r, lo, iw, q, t, _ in CLAIMS if lo == 0.0]
    out = {}
    for m in ("250", "5"):
        seeds = per_seed_pairs(grids[m + "j"], cases)
        plain = per_seed_pairs(grids[m], cases)[0]  # every seed is the same trajectory
        out[f"split{m}_seed"] = " / ".join(
            f"{float(np.mean(c)):.1f} ± {half_width(c):.1f}" for c in seeds.T
        )
        out[f"split{m}_plain"] = "/".join(f"{x:.0f}" for x in plain)
        tested = [0, 0, 0]
        for rate, _, iw, q, text in cases:
            paper = parse_rank(text)
            keep = {a for g in paper for a in g}
            rel = ccsim_relation(grids[m + "j"], rate, 0.0, iw, q, keep)
            for k, x in enumerate(pairs(paper, rel)):
                tested[k] += x
        out[f"split{m}_tested"] = "/".join(map(str, tested))
        out[f"split{m}_same"], out[f"split{m}_opp"] = tested[0], tested[2]
        same, opp = tested[0], tested[2]
        out[f"split{m}_words"] = (
            "its pairwise tests contradict the paper's order more often than they agree with it"
            if same < 0.8 * opp
            else "its pairwise tests agree with the paper's order more often than they "
            "contradict it"
            if opp < 0.8 * same
            else "its order agrees with the paper's about as often as it contradicts it"
        )
    out["n_lossless_pairs"] = int(sum(per_seed_pairs(grids["5j"], cases)[0]))
    return out


def loss_claims(main: Grid) -> dict[str, float]:
    """Numbers behind the paper's claims about the 20 % loss runs."""
    out = {}
    for rate in RATES:
        spread = 0.0
        for iw in IWS:
            for a in ALGS:
                v = [float(np.mean(main.cell(rate, 0.2, iw, q, a))) for q in IFQS]
                spread = max(spread, (max(v) - min(v)) / max(v))
        iw_gap = max(
            abs(float(np.mean(main.cell(rate, 0.2, 2, q, a))) / off_on - 1)
            for q in IFQS
            for a in ALGS
            for off_on in [float(np.mean(main.cell(rate, 0.2, "rfc3390", q, a)))]
        )
        d = main.cell(rate, 0.2, 2, 50, "ass2") - main.cell(rate, 0.2, 2, 50, "limited")
        d3 = main.cell(rate, 0.2, 2, 50, "ass3") - main.cell(rate, 0.2, 2, 50, "limited")
        d23 = main.cell(rate, 0.2, 2, 50, "ass2") - main.cell(rate, 0.2, 2, 50, "ass3")
        same34 = all(
            np.array_equal(main.cell(rate, 0.2, iw, q, "ass3"), main.cell(rate, 0.2, iw, q, "ass4"))
            for iw in IWS
            for q in IFQS
        )
        r = "03" if rate == "0.3Mbps" else "10"
        out.update({
            f"spread_{r}": spread * 100, f"iwgap_{r}": float(iw_gap) * 100,
            f"d21_{r}": float(np.mean(d)), f"h21_{r}": half_width(d),
            f"d31_{r}": float(np.mean(d3)), f"h31_{r}": half_width(d3),
            f"d23_{r}": float(np.mean(d23)), f"h23_{r}": half_width(d23),
            f"same34_{r}": "identical, seed for seed," if same34 else "not identical",
        })  # fmt: skip
    return out


def lossless_numbers(main: Grid, startup: Grid) -> dict[str, float]:
    """Numbers behind the narrative about the lossless runs."""
    spread10 = max(
        (max(v) - min(v)) / max(v)
        for iw in IWS
        for q in IFQS
        for v in [[float(np.mean(main.cell("10Mbps", 0.0, iw, q, a))) for a in ALGS]]
    )
    same_big = all(
        len({float(np.mean(main.cell("0.3Mbps", 0.0, iw, q, a))) for a in ALGS}) == 1
        for iw in IWS
        for q in (100, 200)
    )

    def m(g: Grid, rate, ifq, alg, iw=2):
        return float(np.mean(g.cell(rate, 0.0, iw, ifq, alg)))

    return {
        "spread10": spread10 * 100,
        "spread03_big": max(
            (max(v) - min(v)) / max(v)
            for iw in IWS
            for q in (25, 50, 100, 200)
            for v in [[float(np.mean(main.cell("0.3Mbps", 0.0, iw, q, a))) for a in ALGS]]
        )
        * 100,
        "gain03": max(
            max(m(main, "0.3Mbps", q, a, iw) for a in ("ass2", "ass3", "ass4"))
            / m(main, "0.3Mbps", q, "limited", iw)
            - 1
            for q in (5, 15)
            for iw in IWS
        )
        * 100,
        "same_big": "exactly the same" if same_big else "nearly the same",
        "g03_5_lss": m(main, "0.3Mbps", 5, "limited"),
        "g03_5_ass": max(m(main, "0.3Mbps", 5, a) for a in ("ass2", "ass3", "ass4")),
        "g03_15_lss": m(main, "0.3Mbps", 15, "limited"),
        "g03_15_ass2": m(main, "0.3Mbps", 15, "ass2"),
        "s03_15_lss": m(startup, "0.3Mbps", 15, "limited"),
        "s03_15_ass2": m(startup, "0.3Mbps", 15, "ass2"),
        "s03_25_lss": m(startup, "0.3Mbps", 25, "limited"),
        "s03_25_ass2": m(startup, "0.3Mbps", 25, "ass2"),
        "s10_200_lss": m(startup, "10Mbps", 200, "limited"),
        "s10_200_ass2": m(startup, "10Mbps", 200, "ass2"),
        "s10_5_lss": m(startup, "10Mbps", 5, "limited"),
        "s10_5_ass3": m(startup, "10Mbps", 5, "ass3"),
        "ass2_behind": max(
            1 - m(main, r, q, "ass2", iw) / max(m(main, r, q, a, iw) for a in ALGS)
            for r in RATES
            for q in IFQS
            for iw in IWS
        )
        * 100,
    }


def timestamps_table(main: Grid, ts: Grid) -> str:
    lines = [
        "| bottleneck | larger IW | algorithm | without (ns-2's setting: the grid) "
        "| with timestamps | with − without, per seed |",
        "|---|---|---|---:|---:|---:|",
    ]
    for rate in RATES:
        for iw in IWS:
            for a in ALGS:
                v, w = main.cell(rate, 0.2, iw, 50, a), ts.cell(rate, 0.2, iw, 50, a)
                d = w - v
                lines.append(
                    f"| {pretty_rate(rate)} | {IW_NAME[iw]} | {ALG_NO[a]} | "
                    f"{fmt(v, False)} | {fmt(w, False)} | "
                    f"{float(np.mean(d)):+.1f} ± {half_width(d):.1f} |"
                )
    return "\n".join(lines)


def lossless_changes(main: Grid, ts: Grid) -> str:
    """Lossless configurations whose 250 s ranking differs with timestamps."""
    rows = []
    for rate in RATES:
        for iw in IWS:
            for q in IFQS:
                a = show_rank(ccsim_rank(main, rate, 0.0, iw, q, {1, 2, 3, 4}))
                b = show_rank(ccsim_rank(ts, rate, 0.0, iw, q, {1, 2, 3, 4}))
                if a != b:
                    rows.append(f"| {pretty_rate(rate)} | {IW_NAME[iw]} | {q} | {a} | {b} |")
    if not rows:
        return "No lossless configuration changes its 250 s ranking."
    head = (
        f"{len(rows)} lossless configurations change their 250 s ranking:\n\n"
        "| bottleneck | larger IW | IFQ | without timestamps | with |\n|---|---|---:|---|---|"
    )
    return head + "\n" + "\n".join(rows)


def timestamps_numbers(sw: dict[str, dict], main: Grid, ts: Grid) -> dict:
    """What turning timestamps on changes, over every configuration of the grid; the sentences
    that say it are chosen by the numbers."""
    rel, sig_up, sig_down, same_rank, n_loss = [], 0, 0, 0, 0
    for rate in RATES:
        for iw in IWS:
            for q in IFQS:
                for a in ALGS:
                    v, w = main.cell(rate, 0.2, iw, q, a), ts.cell(rate, 0.2, iw, q, a)
                    d = w - v
                    rel.append(float(np.mean(w)) / float(np.mean(v)) - 1)
                    n_loss += 1
                    if abs(float(np.mean(d))) > half_width(d):  # the interval excludes zero
                        sig_up += float(np.mean(d)) > 0
                        sig_down += float(np.mean(d)) < 0
                keep = {1, 2, 3, 4}
                same_rank += ccsim_rank(main, rate, 0.2, iw, q, keep) == ccsim_rank(
                    ts, rate, 0.2, iw, q, keep
                )
    rel0 = max(
        abs(
            float(np.mean(ts.cell(r, 0.0, iw, q, a))) / float(np.mean(main.cell(r, 0.0, iw, q, a)))
            - 1
        )
        for r in RATES
        for iw in IWS
        for q in IFQS
        for a in ALGS
    )

    def lossy(k: str) -> pd.DataFrame:
        f = sw[k]["flows"]
        return f[f[LOSS] == 0.2]

    n_cases = n_loss // len(ALGS)
    sig = sig_up + sig_down
    if sig == 0:
        sig_text = "in none of them does the 95 % interval of the per-seed difference exclude zero"
    else:
        sig_text = (
            f"the 95 % interval of the per-seed difference excludes zero in {sig} of them "
            f"({sig_up} higher with timestamps, {sig_down} lower)"
        )
    rank_text = (
        f"the ranking of the four algorithms is the same in all {n_cases}"
        if same_rank == n_cases
        else f"the ranking of the four algorithms is the same in {same_rank} of the {n_cases}"
    ) + " cases of bottleneck, initial window and IFQ"
    lo, hi = min(rel) * 100, max(rel) * 100
    return {
        "ts_n_loss": n_loss,
        "ts_rel_lo": lo,
        "ts_rel_hi": hi,
        "ts_rel_abs": max(abs(lo), abs(hi)),
        "ts_sig": sig_text,
        "ts_rank": rank_text,
        "ts_rel0": rel0 * 100,
        "rtt_max_nots": float(lossy("main")["rtt_max_s"].max()),
        "rtt_max_ts": float(lossy("ts")["rtt_max_s"].max()),
        "to_nots": float(lossy("main")["timeouts"].mean()),
        "to_ts": float(lossy("ts")["timeouts"].mean()),
        "samples_nots": float(lossy("main")["rtt_samples"].mean()),
        "samples_ts": float(lossy("ts")["rtt_samples"].mean()),
        "samples_fewer": (
            1 - lossy("main")["rtt_samples"].mean() / lossy("ts")["rtt_samples"].mean()
        )
        * 100,
        "ts_verdict": (
            "Timestamps now change almost nothing"
            if max(abs(lo), abs(hi)) < 2
            else "Timestamps still matter under heavy loss"
        ),
    }


def iw1_table(iw1: Grid, main: Grid, startup: Grid) -> dict[str, object]:
    lines = [
        "| bottleneck | IFQ | 250 s, IW 2 | 250 s, IW 1 | first 5 s, IW 2 | first 5 s, IW 1 |",
        "|---|---:|---|---|---|---|",
    ]
    moved = {"250s": 0, STARTUP: 0}
    for rate in RATES:
        for q in IFQS:
            cells = []
            for dur, ref in (("250s", main), (STARTUP, startup)):
                two = ccsim_rank(ref, rate, 0.0, 2, q, {1, 2, 3, 4})
                one = rank({
                    ALG_NO[a]: iw1.get(**{"duration": dur, RATE: rate, LIMIT: q - 1, ALG: a})
                    for a in ALGS
                })  # fmt: skip
                cells += [show_rank(two), show_rank(one)]
                moved[dur] += show_rank(two) != show_rank(one)
            lines.append(f"| {pretty_rate(rate)} | {q} | " + " | ".join(cells) + " |")

    def changes(n: int) -> str:
        return "nothing changes" if n == 0 else f"the order changes in {n} of {len(lines) - 2}"

    return {
        "iw1_table": "\n".join(lines),
        "iw1_250": changes(moved["250s"]),
        "iw1_5": changes(moved[STARTUP]),
    }


def loss_queue(queues: pd.DataFrame) -> dict[str, float]:
    """Overflow and random drops per run at the bottleneck with 20 % loss and IFQ 5."""
    q = queues[(queues["link"] == "n1-n2") & (queues["from"] == "n1")]
    q = q[(q[LOSS] == 0.2) & (q[LIMIT] == 4)]
    return {
        "ovf5": float(q["drops_overflow"].mean()),
        "rnd5": float(q["drops_loss"].mean()),
    }


def iw1_pairs(iw1: Grid, startup: Grid) -> dict[str, str]:
    """same/tie/opposite pairs against the paper's lossless, IW-off claims, first 5 s."""
    tally = {1: [0, 0, 0], 2: [0, 0, 0]}
    for rate, loss, iw, ifq, text, _ in CLAIMS:
        if loss != 0.0 or iw != 2:
            continue
        paper = parse_rank(text)
        two = ccsim_relation(startup, rate, 0.0, 2, ifq, {1, 2, 3, 4})
        one = relation({
            ALG_NO[a]: iw1.get(**{"duration": STARTUP, RATE: rate, LIMIT: ifq - 1, ALG: a})
            for a in ALGS
        })  # fmt: skip
        for k, ours in ((2, two), (1, one)):
            for i, x in enumerate(pairs(paper, ours)):
                tally[k][i] += x
    return {f"iw{k}_pairs": "/".join(map(str, v)) for k, v in tally.items()}


def queue_check(queues: pd.DataFrame) -> str:
    other = queues[queues["link"] != "n1-n2"]
    return (
        f"{int(other['drops_overflow'].sum())} overflow drops and at most "
        f"{float(other['max_len_pkts'].max()):.0f} waiting packets"
    )


def more_numbers(sw: dict[str, dict], main: Grid, startup: Grid) -> dict[str, object]:
    """Timeouts, start-up spread, duplicates and determinism."""
    f = sw["main"]["flows"]
    lossless = f[f[LOSS] == 0.0]
    slow = lossless[lossless[RATE] == "0.3Mbps"]

    def timeouts(ifq: int) -> str:
        t = slow[slow[LIMIT] == ifq - 1]["timeouts"]
        return f"{t.min():.0f}" if t.min() == t.max() else f"{t.min():.0f}-{t.max():.0f}"

    spread5 = max(
        1 - min(v) / max(v)
        for r in RATES
        for iw in IWS
        for q in IFQS
        for v in [[float(np.mean(startup.cell(r, 0.0, iw, q, a))) for a in ALGS]]
    )

    det = lossless.groupby(GRID)["goodput_bps"].nunique().max() == 1
    loss = f[f[LOSS] == 0.2]
    dup = float((loss["throughput_bps"] / loss["goodput_bps"]).max() - 1)

    return {
        "to_ifq5": timeouts(5),
        "to_ifq15": timeouts(15),
        "spread5": spread5 * 100,
        "deterministic": (
            "the lossless runs are deterministic (every seed gives the same numbers)"
            if det
            else "the lossless runs differ between seeds"
        ),
        "dup_pct": dup * 100,
    }


def runtime(sw: dict[str, dict], run: dict | None) -> dict[str, str]:
    """The timing table and the sentence about the last run from nothing."""
    rows = []
    for k in ("main", "startup", "ts", "iw1", "jitter"):
        t = sw[k]["timing"]
        full = t["full"]
        whole = f"{full['elapsed_s']:.0f} s, {full['workers']} workers" if full else "-"
        rows.append(
            f"| `{t['output']}` | {t['points']} | {t['computed']} | "
            f"{t['sim_wall_s']:.0f} s | {t['elapsed_s']:.0f} s | {whole} |"
        )
    pts = sw["main"]["points"]
    fast = (pts[RATE] == "10Mbps") & (pts[LOSS] == 0.0)
    if run is None:
        text = "No invocation here has computed everything from nothing yet."
    else:
        fulls = {k: sw[k]["timing"]["full"] for k in sw}
        main, ts = fulls["main"], fulls["ts"]
        rest = sum(fulls[k]["elapsed_s"] for k in ("startup", "iw1", "jitter"))
        text = (
            f"The last run from nothing ({run['workers']} worker processes on a machine with "
            f"{run['cpus']} cores) took {run['total_s'] / 60:.1f} minutes: "
            f"{main['elapsed_s'] / 60:.1f} for the main grid ({len(pts)} runs of 250 s; the "
            f"lossless 10 Mb/s runs take {pts[fast]['wall_s'].median():.2f} s each, the others "
            f"{pts[~fast]['wall_s'].median() * 1e3:.0f} ms, medians), "
            f"{ts['elapsed_s'] / 60:.1f} for the comparison grid, {rest / 60:.1f} for the rest "
            f"and {run['figures_s'] / 60:.1f} for the figure runs."
        )
    return {"timings": "\n".join(rows), "full_run": text}


def jitter_grids(flows: pd.DataFrame) -> tuple[Grid, Grid]:
    """The lossless runs with send jitter as grids like the main one: 250 s, first 5 s."""
    f = flows.copy()
    f[LOSS] = 0.0
    return (Grid(f[f["duration"] == d], GRID) for d in ("250s", STARTUP))


def write_report(
    sw: dict[str, dict], run: dict | None, rto: dict[str, float], provenance: str
) -> None:
    """``rto``: the RTO and start-offset checks of ``run.py``; ``provenance``: the paragraph
    saying what wrote the report (``repro_provenance``)."""
    main = Grid(sw["main"]["flows"], GRID)
    startup = Grid(sw["startup"]["flows"], GRID)
    ts = Grid(sw["ts"]["flows"], GRID)
    iw1 = Grid(sw["iw1"]["flows"], ["duration", RATE, LIMIT, ALG])
    main_j, startup_j = jitter_grids(sw["jitter"]["flows"])
    grids = {"250": main, "5": startup, "250j": main_j, "5j": startup_j}
    ranking, score = ranking_table(grids)
    pts = sw["main"]["points"]
    n_seeds = len(set(pts["seed"]))

    sections = []
    for rate in RATES:
        for loss in LOSSES:
            sections.append(
                f"**{pretty_rate(rate)} bottleneck, {loss:.0%} loss** (goodput, kb/s)\n\n"
                + throughput_table(main, rate, loss)
            )
    jitter_tables = "\n\n".join(
        f"**{pretty_rate(rate)} bottleneck, no loss, {JITTER} send jitter, first "
        f"{STARTUP[:-1]} s** (goodput, kb/s)\n\n" + throughput_table(startup_j, rate, 0.0)
        for rate in RATES
    )
    startup_tables = "\n\n".join(
        f"**{pretty_rate(rate)} bottleneck, no loss, first {STARTUP[:-1]} s** (goodput, kb/s)\n\n"
        + throughput_table(startup, rate, 0.0)
        for rate in RATES
    )
    figures = []
    last = None
    for what, series, path in figure_list():
        if what != last:
            figures.append(f"### {what[:-9]}")
            last = what
        figures.append(f"![{series}: {what}](figures/{path.name})")

    s250, s5 = score["250"], score["5"]
    qc = queue_check(sw["main"]["queues"])
    more = more_numbers(sw, main, startup)
    verdicts = {
        **loss_verdicts(main),
        **lossless_verdicts(main_j, startup_j, main),
        **startup_timeouts(sw["startup"]["flows"]),
    }
    raw = dict(
        queue_check=qc,
        tput_bin=THROUGHPUT_BIN,
        n_lossless_claims=sum(c[1] == 0.0 for c in CLAIMS),
        provenance=provenance,
        jitter=JITTER.replace("ms", " ms"),
        jitter_tables=jitter_tables,
        **split_numbers(grids),
        n_seeds=n_seeds,
        n_points=len(pts),
        tables="\n\n".join(sections),
        startup_tables=startup_tables,
        ranking=ranking,
        n_claims=len(CLAIMS),
        p250="/".join(map(str, s250["pairs"])),
        p5="/".join(map(str, s5["pairs"])),
        p5_same=s5["pairs"][0],
        p5_opp=s5["pairs"][2],
        b250="{yes}/{tie}/{no}".format(**s250["best"]),
        b5="{yes}/{tie}/{no}".format(**s5["best"]),
        n_pairs=sum(s250["pairs"]),
        ts_table=timestamps_table(main, ts),
        ts_lossless=lossless_changes(main, ts),
        figures="\n\n".join(figures),
        tie=TIE * 100,
        **more,
        **verdicts,
        **rto,
        **timestamps_numbers(sw, main, ts),
        **iw1_table(iw1, main, startup),
        **runtime(sw, run),
        **loss_claims(main),
        **loss_queue(sw["main"]["queues"]),
        **iw1_pairs(iw1, startup),
        **lossless_numbers(main, startup),
    )
    raw["claims"] = claims_table(main, raw)
    values = {k: format(x, FORMATS.get(k, "")) for k, x in raw.items()}
    REPORT.write_text(string.Template(TEMPLATE.read_text()).substitute(values))
