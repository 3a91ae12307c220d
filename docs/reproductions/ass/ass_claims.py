"""The claims table that opens the paper 001 report (``ass_report.py`` fills it in): each of the
paper's claims, its words, ccsim's numbers with their intervals, a verdict chosen by the rules
``template.md`` states, and the reason. The numbers come from the computations the rest of
the report shows (``ass_report``, ``ass_verdicts``); nothing here is typed in."""

from __future__ import annotations

import itertools

import numpy as np
from ass_rank import Grid, ccsim_rank, compare
from ass_setup import ALGS, IFQS, IWS, RATES

HOLDS, PARTLY, NOT = "holds", "partly", "does not hold"


def told_apart(grid: Grid, pairs) -> tuple[int, int]:
    """How many of ``pairs`` (two cells' arguments each) the pairwise test tells apart."""
    n = sum(compare(grid.cell(*a), grid.cell(*b)) != 0 for a, b in pairs)
    return n, len(pairs)


def setting_pairs(setting: str) -> list:
    """Every pair of configurations with 20 % loss that differ only in ``setting``."""
    out = []
    for rate, a in itertools.product(RATES, ALGS):
        if setting == "ifq":
            for iw in IWS:
                out += [((rate, 0.2, iw, p, a), (rate, 0.2, iw, q, a))
                        for p, q in itertools.combinations(IFQS, 2)]  # fmt: skip
        else:
            out += [((rate, 0.2, IWS[0], q, a), (rate, 0.2, IWS[1], q, a)) for q in IFQS]
    return out


def no_effect(n: int) -> str:
    return HOLDS if n == 0 else NOT


def order_verdict(m: float, h: float, sign: int) -> tuple[str, str]:
    """An order of two algorithms: ``sign`` +1 if the paper puts the first ahead."""
    if abs(m) <= h:
        return NOT, "the interval includes zero: ccsim cannot tell them apart"
    if (m > 0) == (sign > 0):
        return HOLDS, "the interval excludes zero in the paper's direction"
    return NOT, "the interval excludes zero in the other direction"


def pairs_verdict(same: int, tie: int, opp: int) -> str:
    n = same + tie + opp
    if same > n / 2:
        return HOLDS
    return PARTLY if same >= n / 4 and same > opp else NOT


def claims_table(main: Grid, v: dict) -> str:
    """``v``: the report's values (``ass_report.write_report``), unformatted."""

    def pm(m: float, h: float) -> str:
        return f"{m:+.1f} ± {h:.1f} kb/s"

    rows = []
    ifq_n, ifq_of = told_apart(main, setting_pairs("ifq"))
    rows.append([
        "With 20 % loss the IFQ does not matter (sections 4.1, 4.2, 5)",
        "IFQ 5-200 irrelevant",
        f"each algorithm's mean varies by at most {v['spread_03']:.2f} % (0.3 Mb/s) and "
        f"{v['spread_10']:.2f} % (10 Mb/s) across the IFQs; {ifq_n} of {ifq_of} pairs of IFQ "
        "values told apart",
        no_effect(ifq_n),
        f"the window stays so small that even the 5-packet queue hardly ever overflows "
        f"({v['ovf5']:.1f} overflow drops per run, against {v['rnd5']:.0f} random losses)",
    ])  # fmt: skip
    iw_n, iw_of = told_apart(main, setting_pairs("iw"))
    rows.append([
        "With 20 % loss the larger initial window does not matter",
        "IW irrelevant",
        f"at most {v['iwgap_03']:.1f} % (0.3 Mb/s) and {v['iwgap_10']:.1f} % (10 Mb/s) apart; "
        f"{iw_n} of {iw_of} pairs told apart",
        no_effect(iw_n),
        "the initial window only shapes the first round trips of a 250 s run",
    ])  # fmt: skip
    same_pairs = [((r, 0.2, iw, q, "ass3"), (r, 0.2, iw, q, "ass4"))
                  for r in RATES for iw in IWS for q in IFQS]  # fmt: skip
    n34, of34 = told_apart(main, same_pairs)
    rows.append([
        "With 20 % loss algorithms 3 and 4 overlap",
        "3 = 4",
        f"0.3 Mb/s: {v['same34_03'].rstrip(',')}; 10 Mb/s: {v['same34_10'].rstrip(',')}; "
        f"{n34} of {of34} "
        "configurations told apart",
        no_effect(n34),
        "the window never reaches 25, below which both add 2 per ACK and divide by 3"
        if n34 == 0 else "the window reaches the range where the two rules differ",
    ])  # fmt: skip
    alone = all(ccsim_rank(main, "10Mbps", 0.2, iw, 50, {1, 2, 3, 4})[-1] == [1] for iw in IWS)
    lowest = all(
        min(ALGS, key=lambda a: float(np.mean(main.cell("10Mbps", 0.2, iw, 50, a)))) == "limited"
        for iw in IWS
    )
    rows.append([
        'With 20 % loss at 10 Mb/s algorithm 1 (classic slow start) has the "poorest '
        'throughput"',
        "1 last",
        f"ASS2 − LSS {pm(v['d21_10'], v['h21_10'])}, ASS3 − LSS {pm(v['d31_10'], v['h31_10'])} "
        "(IFQ 50, IW off)",
        HOLDS if alone else PARTLY if lowest else NOT,
        "each other algorithm told apart ahead of it" if alone
        else "lowest mean, within the noise of the seeds" if lowest
        else "another algorithm has a lower mean",
    ])  # fmt: skip
    for rate, words, sign in (
        ("10Mbps", "At 10 Mb/s with 20 % loss ASS2 is ahead of algorithms 3 and 4", 1),
        ("0.3Mbps", "At 0.3 Mb/s with 20 % loss algorithms 3 and 4 are ahead of ASS2", -1),
    ):
        r = "10" if rate == "10Mbps" else "03"
        m, h = v[f"d23_{r}"], v[f"h23_{r}"]
        verdict, reason = order_verdict(m, h, sign)
        rows.append([
            words,
            "2 > 3 = 4" if sign > 0 else "3 = 4 > 2",
            f"ASS2 − ASS3 {pm(m, h)} (IFQ 50, IW off)",
            verdict,
            reason,
        ])  # fmt: skip
    for m, span, why in (
        ("250", "over 250 s",
         f"without loss the four rules end within {v['spread10']:.2f} % of each other at "
         "10 Mb/s: after start-up every loss comes at a window where all four halve"),
        ("5", "over the first 5 s",
         f"ccsim's best start is the paper's in {v['n_best5']} lossless cases; ASS2's steep start "
         "overshoots small queues and ends in timeouts"),
    ):  # fmt: skip
        same, tie, opp = (int(x) for x in v[f"split{m}_tested"].split("/"))
        rows.append([
            f"The paper's rankings of the four algorithms without loss, {span}",
            f"{same + tie + opp} ordered pairs in {v['n_lossless_claims']} cases",
            f"same / tie / opposite: {same}/{tie}/{opp}; seed by seed "
            f"{v[f'split{m}_seed']}",
            pairs_verdict(same, tie, opp),
            why,
        ])  # fmt: skip
    n_alone = v["n_ass2_alone_250"] + v["n_ass2_alone_loss"]
    n_cases = v["n_lossless_cases"] + v["n_loss_cases"]
    rows.append([
        "ASS (algorithm 2) is the best of the four (conclusion)",
        "2 best",
        f"ASS2 told apart ahead of the other three in {v['n_ass2_alone_250']} of "
        f"{v['n_lossless_cases']} lossless and {v['n_ass2_alone_loss']} of {v['n_loss_cases']} "
        f"lossy configurations (250 s), {v['n_ass2_alone_5']} of {v['n_lossless_cases']} "
        f"start-ups; never more than {v['ass2_behind']:.2f} % behind the best",
        HOLDS if n_alone > n_cases / 2 else PARTLY if n_alone >= n_cases / 4 else NOT,
        "ASS helps only where the window stays small: up to "
        f"{v['gain03']:.1f} % more than classic slow start at 0.3 Mb/s with IFQ 5 and 15, and "
        "under 20 % loss",
    ])  # fmt: skip
    head = "| claim | the paper | ccsim (± 95 % interval) | verdict | reason |\n" + "|---" * 5
    return (
        head + "|\n" + "\n".join(f"| {c} | {p} | {o} | **{d}** | {r} |" for c, p, o, d, r in rows)
    )
