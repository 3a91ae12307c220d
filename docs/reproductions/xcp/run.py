"""Reproduction of seed paper 004: Sheela & Raja, "Window adjustment procedure in high BDP
networks" — XCP, and XCP with the paper's congestion-bit window adjustment (WA), against
HighSpeed TCP and BIC on a dumbbell with 10 Mb/s, 10 ms access links and a 10 Mb/s, 250 ms
bottleneck, in ns-2's defaults (``defaults = "ns2"``).

    python docs/reproductions/xcp/run.py            # everything: runs, figures, xcp.md (minutes)
    python docs/reproductions/xcp/run.py --quick    # headline numbers only (seconds)
    python docs/reproductions/xcp/run.py --quick --headline tests/repro_quick/xcp.json

Runs one flow and two four-flow cases (staggered starts; equal and unequal RTTs), replicated
with start-time and send jitter, plus the sensitivity to the WA factors' reading, ``Q_th``,
the buffer, the loss recovery and the defaults profile. Writes the figures into
``docs/reproductions/figures/xcp-*.png`` and the report ``docs/reproductions/xcp.md`` from
``template.md``; every number in the report comes from these runs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

# This paper's modules beside it, and the helpers the five share (repro_grid,
# repro_provenance) one folder up.
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from repro_grid import headline, parse, parser  # noqa: E402
from xcp_runs import run_all, summarise  # noqa: E402
from xcp_setup import (  # noqa: E402
    BUFFER,
    BUFFERS,
    FACTORS,
    QTH_SHARES,
    QUICK_REPLICATIONS,
    REPLICATIONS,
    RESULTS,
    SENS_REPLICATIONS,
    VARIANTS,
    Case,
)

METRICS = [
    "utilisation",
    "efficiency",
    "drops",
    "timeouts",
    "retransmits",
    "queue_bottleneck",
    "queue_first_hop",
    "packets_sent",
    "cwnd_mean",
    "cwnd_min",
    "cwnd_max",
    "cwnd_cov",
    "deepest_cut",
    "jain_tail",
    "jain_mean",
    "convergence_s",
    "share_min",
    "share_max",
]


def headline_cases(reps: int, cases=("single", "same", "rtt")) -> list[Case]:
    return [Case(case=c, variant=v, rep=r) for c in cases for v in VARIANTS for r in range(reps)]


def sensitivity_cases(reps: int) -> list[Case]:
    """Everything but the headline settings (those rows come from the headline runs)."""
    out = []
    for c in ("single", "same"):
        for r in range(reps):
            out += [
                Case(case=c, variant=v, rep=r, buffer=b)
                for b in BUFFERS
                if b != BUFFER
                for v in VARIANTS
            ]
            out += [
                Case(case=c, variant=v, rep=r, qth=round(s * BUFFER))
                for s in QTH_SHARES
                if s != 0.5
                for v in ("wa-printed", "wa-cut")
            ]
            out += [Case(case=c, variant="wa-printed", rep=r, factors=(f, f)) for f in FACTORS]
            out += [Case(case=c, variant=v, rep=r, every="ack") for v in ("wa-printed", "wa-cut")]
    for c in ("single", "same", "rtt"):
        for r in range(reps):
            out += [
                Case(case=c, variant=v, rep=r, recovery="newreno") for v in ("highspeed", "bic")
            ]
            out += [Case(case=c, variant=v, rep=r, profile="linux") for v in VARIANTS]
    return out


def headline_numbers(summary: pd.DataFrame) -> dict:
    """What the quick mode checks (tests/repro_quick/xcp.json)."""
    out = {}
    for _, s in summary.iterrows():
        key = f"{s['case']} {s['variant']}"
        rec = {"utilisation": round(s["utilisation"], 4), "efficiency": round(s["efficiency"], 4)}
        if s["case"] != "single":
            rec["jain_tail"] = round(s["jain_tail"], 4)
            rec["converged"] = int(s["convergence_s_n"])
        out[key] = rec
    return out


def quick(workers: int = 1) -> dict:
    """Single flow and four flows with equal RTTs, every variant, QUICK_REPLICATIONS each."""
    rows = run_all(headline_cases(QUICK_REPLICATIONS, ("single", "same")), workers)
    summary = summarise(rows, ["case", "variant"], METRICS)
    return {"replications": QUICK_REPLICATIONS, "headline": headline_numbers(summary)}


def full(workers: int) -> None:
    from xcp_figures import draw_all
    from xcp_report import write_report

    t0 = time.perf_counter()
    head = run_all(headline_cases(REPLICATIONS), workers)
    print(f"headline: {len(head)} runs, {time.perf_counter() - t0:.0f} s")
    t1 = time.perf_counter()
    sens = run_all(sensitivity_cases(SENS_REPLICATIONS), workers)
    print(f"sensitivity: {len(sens)} runs, {time.perf_counter() - t1:.0f} s")
    RESULTS.mkdir(parents=True, exist_ok=True)  # the rows, for a look without rerunning
    head.to_csv(RESULTS / "headline.csv", index=False)
    sens.to_csv(RESULTS / "sensitivity.csv", index=False)
    t2 = time.perf_counter()
    figures = draw_all(head, sens)
    print(f"figures: {len(figures)}, {time.perf_counter() - t2:.0f} s")
    timing = {
        "runs": len(head) + len(sens),
        "elapsed_s": time.perf_counter() - t0,
        "workers": workers,
    }
    path = write_report(head, sens, figures, timing, METRICS)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    # Every run is computed afresh (none is kept on disk), so there is nothing to --force.
    ap = parser(__doc__, "the one-flow and four-flow headline cases (seconds)", force=False)
    args = parse(ap, argv)
    if args.quick:
        headline(quick(args.workers), args.headline)
        return
    full(args.workers)


if __name__ == "__main__":
    main()
