"""Which of ccsim's configurations each of the paper's Tables 2-4 is (issue 34): the inferred
packet-mode reading against the literal byte-mode one, measured on the paper's own ratios.

Only Tables 2 ("Without ECN") and 3 ("With ECN") are titled. The first version of the report
inferred Table 2 = DropTail, Table 3 = RED + ECN, Table 4 = RED, all in packet mode. ns-2.35's
RED runs in byte mode unless the script turns it off (``queue_in_bytes_``, ``bytes_``), and the
paper's setup section says the two runs differ only in ECN marking ("the setup for the
simulations will be exactly the same. The only difference is to enable the marking"): the
literal reading is Table 2 = RED in byte mode without ECN, Table 3 = the same with ECN. Table 4
(untitled, the most drops and the shortest queues) is the queue Fig. 9's text calls "RED"
against ECN; in the literal reading it is the packet-mode RED run ("different ... threshold
parameter settings", the setup section says), as in the inferred one. This module scores both
readings on ratios the paper's tables show, from the runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from red_ecn_setup import LOSS_BASED, PAPER, VARIANT_ORDER

# ccsim's configurations: (grid, queue label in that grid's summary).
CONFIGS = {
    "DropTail": ("packets", "DropTail"),
    "RED (packets)": ("packets", "RED"),
    "RED + ECN (packets)": ("packets", "RED + ECN"),
    "RED (bytes)": ("bytes", "RED"),
    "RED + ECN (bytes)": ("bytes", "RED + ECN"),
}
# The paper's tables under each reading (keys of PAPER: the inferred reading's queue names).
PAPER_KEY = {"Table 2": "DropTail", "Table 3": "RED + ECN", "Table 4": "RED"}
MAPPINGS = {
    "inferred": {
        "Table 2": "DropTail", "Table 3": "RED + ECN (packets)", "Table 4": "RED (packets)",
    },
    "literal": {
        "Table 2": "RED (bytes)", "Table 3": "RED + ECN (bytes)", "Table 4": "RED (packets)",
    },
}  # fmt: skip
MAPPING_TITLE = {
    "inferred": "inferred (packet mode): Table 2 = DropTail, 3 = RED + ECN, 4 = RED",
    "literal": "literal (byte mode): Table 2 = RED, 3 = RED + ECN (both bytes), 4 = RED (packets)",
}
# Metrics of the paper's rows: index into PAPER's tuples.
PAPER_COL = {"received": 0, "dropped": 1, "avg_queue": 2, "overall_bps": 3, "avg_mbps": 4}


class Tables:
    """ccsim's numbers for the paper's tables under one reading (or the paper's own)."""

    def __init__(self, summaries: dict[str, pd.DataFrame] | None, mapping: dict | None):
        self.summaries, self.mapping = summaries, mapping

    def value(self, table: str, variant: str, metric: str) -> float:
        if self.summaries is None:  # the paper
            return float(PAPER[PAPER_KEY[table]][variant][PAPER_COL[metric]])
        grid, queue = CONFIGS[self.mapping[table]]
        return float(self.summaries[grid].loc[(variant, queue), f"{metric}_mean"])

    def ci(self, table: str, variant: str, metric: str) -> float:
        if self.summaries is None:
            return 0.0
        grid, queue = CONFIGS[self.mapping[table]]
        c = float(self.summaries[grid].loc[(variant, queue), f"{metric}_ci95"])
        return 0.0 if math.isnan(c) else c

    def ratios(self, num: tuple[str, str], den: tuple[str, str], metric: str) -> list[float]:
        """num/den per loss-based variant; a (table, variant-or-'*') pair each, '*' the same
        variant as the row."""
        out = []
        for v in LOSS_BASED:
            a = self.value(num[0], v if num[1] == "*" else num[1], metric)
            b = self.value(den[0], v if den[1] == "*" else den[1], metric)
            out.append(a / b if b else math.inf)
        return out


# The features: (what, numerator, denominator, metric). Each is a ratio per loss-based variant.
FEATURES = [
    ("loss-based queue ÷ Vegas's queue, Table 2", ("Table 2", "*"), ("Table 2", "Vegas"),
     "avg_queue"),
    ("loss-based queue ÷ Vegas's queue, Table 3", ("Table 3", "*"), ("Table 3", "Vegas"),
     "avg_queue"),
    ("average queue, Table 3 ÷ Table 2 (with ECN against without)", ("Table 3", "*"),
     ("Table 2", "*"), "avg_queue"),
    ("drops, Table 3 ÷ Table 2 (with ECN against without)", ("Table 3", "*"), ("Table 2", "*"),
     "dropped"),
    ("drops, Table 4 ÷ Table 2", ("Table 4", "*"), ("Table 2", "*"), "dropped"),
    ("average queue, Table 4 ÷ Table 3 (Fig. 9: ECN's queue against RED's)", ("Table 4", "*"),
     ("Table 3", "*"), "avg_queue"),
]  # fmt: skip


def distance(ours: list[float], paper: list[float]) -> float:
    """How far ccsim's ratios are from the paper's: |log| of the ratio of their geometric
    means (a factor of 2 either way is log 2); infinite where either has a zero."""
    if min(ours) <= 0 or min(paper) <= 0 or math.inf in ours:
        return math.inf
    return abs(float(np.mean(np.log(ours))) - float(np.mean(np.log(paper))))


def score(summaries: dict[str, pd.DataFrame]) -> dict:
    """Each feature's paper ratios, each reading's ratios and distance, and the winner."""
    paper = Tables(None, None)
    readings = {k: Tables(summaries, m) for k, m in MAPPINGS.items()}
    rows = []
    for what, num, den, metric in FEATURES:
        p = paper.ratios(num, den, metric)
        ours = {k: t.ratios(num, den, metric) for k, t in readings.items()}
        dist = {k: distance(r, p) for k, r in ours.items()}
        a, b = dist["inferred"], dist["literal"]
        # Within 10 % of each other (log 1.1): neither reading is nearer.
        win = "neither" if abs(a - b) < math.log(1.1) else "inferred" if a < b else "literal"
        rows.append({"what": what, "paper": p, "ours": ours, "dist": dist, "win": win})
    # Vegas without drops in Tables 2 and 3 (the paper: 0 and 0).
    vegas = {
        k: [t.value(tb, "Vegas", "dropped") for tb in ("Table 2", "Table 3")]
        for k, t in readings.items()
    }
    # The paper's queues in Tables 2-3 against each reading's buffer, in 240-byte packets:
    # 20 packets in packet mode, 20 × 500 B = 10,000 B in byte mode.
    wins = {k: sum(r["win"] == k for r in rows) for k in MAPPINGS}
    return {"features": rows, "vegas": vegas, "wins": wins, "readings": readings}


def fmt_range(x: list[float], digits: int = 2) -> str:
    lo, hi = f"{min(x):,.{digits}f}", f"{max(x):,.{digits}f}"
    return lo if lo == hi else f"{lo}-{hi}"


def pm(mean: float, ci: float, digits: int) -> str:
    return (
        f"{mean:,.{digits}f}"
        if ci < 0.5 * 10**-digits
        else f"{mean:,.{digits}f} ± {ci:,.{digits}f}"
    )


def tables_side_by_side(sc: dict) -> str:
    """The paper's Tables 2-4 next to each reading's configuration: drops and average queue
    per variant, ccsim's with 95 % intervals."""
    head = ["table", "variant", "paper: dropped", "paper: avg queue"]
    for k in MAPPINGS:
        head += [f"{k}: configuration", f"{k}: dropped", f"{k}: avg queue"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * 2 + "---|---:|---:|" * 2]
    paper = Tables(None, None)
    for table in ("Table 2", "Table 3", "Table 4"):
        for v in VARIANT_ORDER:
            row = [table, v, f"{paper.value(table, v, 'dropped'):,.0f}",
                   f"{paper.value(table, v, 'avg_queue'):g}"]  # fmt: skip
            for k, t in sc["readings"].items():
                row += [
                    MAPPINGS[k][table],
                    pm(t.value(table, v, "dropped"), t.ci(table, v, "dropped"), 1),
                    pm(t.value(table, v, "avg_queue"), t.ci(table, v, "avg_queue"), 2),
                ]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def features_table(sc: dict) -> str:
    head = ["the paper's tables show (Reno, NewReno, SACK)", "paper", "inferred reading",
            "literal reading", "nearer"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|---:|---|"]
    for r in sc["features"]:
        cells = [r["what"], fmt_range(r["paper"])]
        for k in MAPPINGS:
            d = r["dist"][k]
            far = "∞" if math.isinf(d) else f"{math.exp(d):.1f}"
            cells.append(f"{fmt_range(r['ours'][k])} (×{far} off)")
        cells.append(r["win"])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def sig_below(t: Tables, ta: str, tb: str, v: str, metric: str) -> bool:
    """Table ``ta``'s mean for ``v`` lies below ``tb``'s and the 95 % intervals do not overlap."""
    return t.value(ta, v, metric) + t.ci(ta, v, metric) < t.value(tb, v, metric) - t.ci(
        tb, v, metric
    )


def claim_rows(sc: dict) -> list[list[str]]:
    """The claims whose reading depends on which table is which, under the literal reading
    (the inferred reading's rows are the claims table's others): each verdict computed."""
    t = sc["readings"]["literal"]
    paper = Tables(None, None)

    def rng(table: str, metric: str, variants=LOSS_BASED, digits: int = 0) -> str:
        return fmt_range([t.value(table, v, metric) for v in variants], digits)

    def prng(table: str, metric: str, digits: int = 0) -> str:
        return fmt_range([paper.value(table, v, metric) for v in LOSS_BASED], digits)

    def widest(tables: tuple[str, ...], metric: str, variants=LOSS_BASED, digits: int = 1) -> str:
        h = max(t.ci(tb, v, metric) for tb in tables for v in variants)
        return f"95 % half-widths ≤ {h:.{digits}f}"

    rows = []
    fewer = all(sig_below(t, "Table 3", "Table 2", v, "dropped") for v in LOSS_BASED)
    ratio = t.ratios(("Table 3", "*"), ("Table 2", "*"), "dropped")
    pratio = paper.ratios(("Table 3", "*"), ("Table 2", "*"), "dropped")
    rows.append([
        "ECN gives fewer drops than the same RED without it (Reno, NewReno, SACK) "
        "(Tables 2-3; Fig. 8 text)",
        f"{prng('Table 3', 'dropped')} with ECN against {prng('Table 2', 'dropped')} without "
        f"(ratio {fmt_range(pratio)})",
        f"{rng('Table 3', 'dropped', digits=1)} against {rng('Table 2', 'dropped', digits=1)} "
        f"(ratio {fmt_range(ratio, 3)}; {widest(('Table 2', 'Table 3'), 'dropped')})",
        "reproduced" if fewer else "not reproduced",
        ("95 % intervals apart; ECN removes more of the drops than in the paper"
         if fewer and max(ratio) < min(pratio) else "95 % intervals apart" if fewer
         else "the 95 % intervals overlap for at least one variant"),
    ])  # fmt: skip
    gain = [
        t.value("Table 3", v, "overall_bps") / t.value("Table 2", v, "overall_bps") - 1
        for v in VARIANT_ORDER
    ]
    rows.append([
        "Throughput is about the same with and without ECN (Tables 2-3)",
        f"{fmt_range([paper.value('Table 3', v, 'avg_mbps') for v in VARIANT_ORDER])} Mb/s "
        f"with ECN, {fmt_range([paper.value('Table 2', v, 'avg_mbps') for v in VARIANT_ORDER])}"
        " without",
        f"with ECN {min(gain) * 100:+.2f} to {max(gain) * 100:+.2f} % against without",
        "reproduced" if max(abs(g) for g in gain) < 0.02 else "not reproduced",
        "within 2 % for every variant" if max(abs(g) for g in gain) < 0.02
        else "more than 2 % apart for at least one variant",
    ])  # fmt: skip
    longer = all(sig_below(t, "Table 4", "Table 3", v, "avg_queue") for v in VARIANT_ORDER)
    rows.append([
        "ECN has a longer average queue than RED, because RED drops more (Fig. 9 text; "
        "Table 3 against Table 4)",
        f"{prng('Table 3', 'avg_queue', 1)} against {prng('Table 4', 'avg_queue', 1)} packets",
        f"{rng('Table 3', 'avg_queue', digits=2)} against {rng('Table 4', 'avg_queue', digits=2)}"
        f" packets ({widest(('Table 3', 'Table 4'), 'avg_queue', VARIANT_ORDER, 2)})",
        "reproduced" if longer else "not reproduced",
        "95 % intervals apart for every variant" if longer
        else "the 95 % intervals overlap for at least one variant",
    ])  # fmt: skip
    vd = [t.value(tb, "Vegas", "dropped") for tb in ("Table 2", "Table 3")]
    shorter = all(
        t.value(tb, "Vegas", "avg_queue") + t.ci(tb, "Vegas", "avg_queue")
        < min(t.value(tb, v, "avg_queue") - t.ci(tb, v, "avg_queue") for v in LOSS_BASED)
        for tb in ("Table 2", "Table 3")
    )
    rows.append([
        "Vegas keeps a short queue with no drops, without and with ECN (Tables 2, 3)",
        "0 and 0 drops; queue 6 against 23-28.9 for the others",
        f"{vd[0]:.1f} and {vd[1]:.1f} drops; queue "
        f"{t.value('Table 2', 'Vegas', 'avg_queue'):.2f} / "
        f"{t.value('Table 3', 'Vegas', 'avg_queue'):.2f} against "
        f"{rng('Table 2', 'avg_queue', digits=2)} / {rng('Table 3', 'avg_queue', digits=2)} "
        f"({widest(('Table 2', 'Table 3'), 'avg_queue', VARIANT_ORDER, 2)})",
        ("reproduced" if max(vd) <= 1 and shorter
         else "partly" if max(vd) <= 1 else "not reproduced"),
        ("at most one drop; Vegas's queue interval below every other variant's" if max(vd) <= 1
         and shorter else "drops reproduced, queue not" if max(vd) <= 1
         else "Vegas drops packets"),
    ])  # fmt: skip
    return rows


def section(sc: dict, wire_bytes: int, red: dict) -> str:
    """The report's section on the two readings, its verdict chosen by the numbers.
    ``wire_bytes``: a data packet on the wire; ``red``: the byte-mode RED queue of the grid."""
    unit = red["mean_pktsize"]
    in_pkts = {k: red[k] * unit / wire_bytes for k in ("min_th", "max_th", "limit")}
    top = max(PAPER[PAPER_KEY[tb]][v][2] for tb in ("Table 2", "Table 3") for v in LOSS_BASED)
    lit = sc["readings"]["literal"]
    lit_q = [lit.value(tb, v, "avg_queue") for tb in ("Table 2", "Table 3") for v in LOSS_BASED]
    wins, feats = sc["wins"], sc["features"]
    winner = max(wins, key=wins.get) if wins["literal"] != wins["inferred"] else None
    other = {"inferred": "literal", "literal": "inferred"}
    vegas0 = {k: max(v) < 0.5 for k, v in sc["vegas"].items()}
    lines = [
        "## Which table is which: the inferred and the literal reading\n",
        "ns-2.35's RED runs in byte mode unless a script turns it off (`queue_in_bytes_ true`, "
        "`bytes_ true` in `ns-default.tcl`; [algorithms.md §10.5]"
        "(../algorithms.md#105-what-changes-results-ns-2s-red-against-the-papers)). A script "
        f"that sets only the thresholds, the weight and the limit runs min_th {red['min_th']}, "
        f"max_th {red['max_th']} and limit {red['limit']} in units of {unit} bytes: "
        f"{in_pkts['min_th']:.1f}, {in_pkts['max_th']:.1f} and {in_pkts['limit']:.1f} of the "
        f"{wire_bytes}-byte packets here. The grid `scenarios/red-ecn-bytes-sweep.toml` runs "
        "that (same seeds; DropTail has no mode and is the same run). With it the paper's "
        'titles can be read literally, as its setup section describes the experiment ("the '
        "setup for the simulations will be exactly the same. The only difference is to enable "
        'the marking"): **Table 2 "Without ECN" = RED in byte mode, Table 3 "With ECN" = the '
        "same RED marking**. Table 4 (untitled: the most drops, the shortest queues, Vegas "
        "losing 1,000 packets) is the queue Fig. 9's text calls RED against ECN; in both "
        'readings it is the packet-mode RED run (the paper ran scripts with "different ... '
        'threshold parameter settings"). The inferred reading is the one used elsewhere in '
        "this report: Table 2 = DropTail, Table 3 = RED + ECN, Table 4 = RED, all in packet "
        "mode.\n",
        "Both readings side by side (ccsim: means over the seeds ± 95 % intervals; the "
        "paper's absolute counts cannot be compared, see above):\n",
        tables_side_by_side(sc) + "\n",
        "Neither reading can match the paper's absolute numbers, so they are scored on "
        "ratios that the paper's own tables show, per loss-based variant. *×k off*: the "
        "geometric mean of ccsim's ratios is k times above or below the paper's; *nearer*: "
        "the reading whose ratios are nearer (neither where the two are within 10 % of each "
        "other).\n",
        features_table(sc) + "\n",
    ]
    verdict = []
    if winner is None:
        verdict.append(
            f"**Neither reading is favoured by the ratios**: each is nearer on "
            f"{wins['literal']} of {len(feats)}."
        )
    else:
        lost = [f["what"] for f in feats if f["win"] == other[winner]]
        verdict.append(
            f"**The evidence favours the {winner} reading.** It is nearer to the paper on "
            f"{wins[winner]} of the {len(feats)} ratios, the {other[winner]} reading on "
            f"{wins[other[winner]]}" + (f" ({'; '.join(lost)})" if lost else "") + "."
        )
    verdict.append(
        "Both give Vegas no drops in Tables 2 and 3, as the paper has"
        if all(vegas0.values())
        else "Vegas's drops in Tables 2 and 3 (the paper: none): "
        + ", ".join(f"{k} {'none' if ok else 'some'}" for k, ok in vegas0.items())
    )
    verdict[-1] += "."
    verdict.append(
        f"The paper's average queues of up to {top:g} packets in Tables 2 and 3 cannot fit "
        f"a {red['limit']}-packet buffer, but fit byte mode's {red['limit']} × {unit} bytes "
        f"({in_pkts['limit']:.0f} of these packets; ccsim's literal reading averages "
        f"{fmt_range(lit_q)} packets there)"
        + (", which the inferred reading cannot explain." if top > red["limit"] else ".")
    )
    verdict.append(
        "The text supports the literal reading too: Table 2 and 3 are titled by ECN alone and "
        "the setup section says the runs differ only in marking. Against it: Fig. 8's text "
        'compares ECN with "RED and Tail Drop", and under the literal reading no table '
        "is DropTail. Where the readings agree: ECN removes most of the loss-based variants' "
        "drops and Vegas keeps the shortest queue. The claims table at the top gives the claims "
        "that depend on the reading under both."
    )
    lines.append(" ".join(verdict) + "\n")
    return "\n".join(lines)


def headline(sc: dict) -> dict:
    """The numbers the quick mode's test compares: each configuration's drops and average
    queue (variant by variant), the features' ratios and which reading is nearer."""
    out: dict = {"configs": {}, "features": {}, "wins": dict(sc["wins"])}
    for k, t in sc["readings"].items():
        for table, config in MAPPINGS[k].items():
            for v in VARIANT_ORDER:
                key = f"{config} / {v}"
                out["configs"][key] = {
                    m: round(t.value(table, v, m), 3) for m in ("dropped", "avg_queue")
                }
    for f in sc["features"]:
        out["features"][f["what"]] = {
            **{k: [round(x, 4) for x in r] for k, r in f["ours"].items()},
            "nearer": f["win"],
        }
    return out
