"""Reproduction of seed paper 000: Olšovský, "Advanced notification system for TCP performance
increase" (2014): ACNS routers that weigh TCP flows by age and priority and tell them to
freeze or fall back, on the paper's two-site topology with three TCP and three UDP flows.

    python docs/reproductions/acns/run.py               # everything: runs, figures, report
    python docs/reproductions/acns/run.py --workers 2   # more local worker processes
    python docs/reproductions/acns/run.py --quick       # the headline numbers only (seconds)

From ``scenarios/acns.toml`` (118 s), every configuration replicated 20 times with each TCP
flow's start shifted by U(0, 150 ms) (``acns_setup.start_shifts``), with ccsim's sweep
facility: one directory per configuration under ``results/acns/`` (a rerun computes only what
is missing). Both the ``ns2`` profile (the headline: the paper ran ns-2) and ``linux``: without
ACNS (DropTail), with ACNS and the weights as the paper intends, as printed, and asked on every
packet; CUBIC and Reno with SACK and NewReno recovery; buffers of 25 to 300 packets; last-mile
rates of 2 to 6 Mb/s. Then the headline pair replicated the other way (send jitter and seeds,
``results/acns-jitter/``), one run at the paper's start times with traces for the figures, and
the paper's model verification (§3.4) over 10 draws (``acns_model.py``). Writes the PNGs into
``docs/reproductions/figures/acns-*.png`` and regenerates ``docs/reproductions/acns.md`` from
``template.md``; every number in the report comes from these runs. Split by concept:
``acns_setup`` (paths, the paper's numbers, scenarios, replications), ``acns_stats`` (what a
run measures, intervals, verdict rules), ``acns_figures``, ``acns_report`` (tables, claims,
the template's values) and ``acns_model``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import ccsim
import pandas as pd

# The setup and the report live next to this script (run as a script, or loaded by the tests).
# This paper's modules beside it, and the helpers the five share (repro_grid,
# repro_provenance) one folder up.
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import acns_model  # noqa: E402
from acns_setup import (  # noqa: E402, F401  (the tests use them)
    ACNS,
    HEADLINE,
    NONE,
    REPLICATIONS,
    REPORT,
    RESULTS,
    ROOT,
    SCENARIO,
    VARIANTS,
    Config,
    config_scenario,
    configs,
    jitter_sweep,
    scenario,
    shifted_sweep,
    start_shifts,
)
from acns_stats import diff, paired, per_run  # noqa: E402
from repro_grid import headline, parse, parser  # noqa: E402
from repro_provenance import provenance  # noqa: E402


def replicate(sw: ccsim.Sweep, out: Path, workers: int, force: bool) -> tuple[pd.DataFrame, int]:
    """Runs (or resumes) one replicated configuration into ``out``; its ``per_run`` table and
    how many points were computed now. One worker runs in this process (a process pool per
    20-point configuration costs more than it gives)."""
    done: list = []
    w = 0 if workers <= 1 else workers
    flows = ccsim.sweep(
        sw, output=out, workers=w, force=force, progress=False, on_point=done.append
    )
    series = ccsim.sweep(sw, output=out, workers=w, table="series", progress=False)
    return per_run(flows, series), len(done)


def run_all(
    workers: int, force: bool, replications: int = REPLICATIONS, out: Path = RESULTS
) -> dict:
    """Every configuration of ``configs`` replicated by start shifts, and the headline pair
    replicated by send jitter. Returns ``runs`` (Config → per_run table), ``jitter`` (the
    same for the jittered pair), ``computed`` and ``points``."""
    runs: dict[Config, pd.DataFrame] = {}
    computed = points = 0
    for group in configs().values():
        for c in group:
            if c in runs:
                continue
            runs[c], n = replicate(
                shifted_sweep(c, replications), out / "acns" / c.slug, workers, force
            )
            computed, points = computed + n, points + replications
            print(f"{c.slug}: {n} of {replications} computed", flush=True)
    jitter = {}
    for c in Config(HEADLINE).pair():
        jitter[c], n = replicate(
            jitter_sweep(c, replications), out / "acns-jitter" / c.slug, workers, force
        )
        computed, points = computed + n, points + replications
    return {"runs": runs, "jitter": jitter, "computed": computed, "points": points}


def traced(c: Config) -> ccsim.Result:
    """``c`` once at the paper's start times, with throughput and RTT traced (the figures)."""
    s = config_scenario(c)
    s["trace"] = {"series": ["throughput", "rtt"], "throughput_bin": "1s"}
    return ccsim.run(s)


def whole_run(computed_all: bool, total_s: float, workers: int) -> dict | None:
    """The last invocation that computed everything (every point, the model and the figures),
    kept in ``results/acns/acns_run.json``; None if there never was one."""
    record = RESULTS / "acns" / "acns_run.json"
    if computed_all:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(
            json.dumps({"total_s": total_s, "workers": workers, "cpus": os.cpu_count()})
        )
    return json.loads(record.read_text()) if record.exists() else None


# --- quick mode --------------------------------------------------------------------------------

QUICK_REPLICATIONS = 6
QUICK_KEYS = {"thr": True, "rtt": True, "rtt_max": False, "loss": False}  # key: relative?


def quick(workers: int = 1, force: bool = False, out: Path = RESULTS / "acns-quick") -> dict:
    """A reduced reproduction for CI (seconds): the CUBIC pair (no ACNS, ACNS) in both
    profiles at 50 packets and in the headline profile at 300, QUICK_REPLICATIONS start-shift
    replications each. Returns, per case, the paired ACNS − no ACNS differences (throughput
    and mean RTT in per cent, maximum RTT in s, losses in packets) and the ACNS runs' flow
    differences #2 − #1 and #3 − #2 (Mb/s), each as mean, half-width and sign."""
    cases = {
        "ns2": Config("ns2"),
        "linux": Config("linux"),
        f"{HEADLINE} 300 packets": Config(HEADLINE, buffer=300),
    }
    res: dict = {"replications": QUICK_REPLICATIONS}
    for name, c in cases.items():
        off, on = (
            replicate(shifted_sweep(x, QUICK_REPLICATIONS), out / x.slug, workers, force)[0]
            for x in c.pair()
        )
        ests = {k: paired(on, off, k, rel) for k, rel in QUICK_KEYS.items()}
        ests["avg2-avg1"] = diff(on, "avg2", "avg1")
        ests["avg3-avg2"] = diff(on, "avg3", "avg2")
        res[name] = {
            k: {"mean": round(e.mean, 4), "half_width": round(e.hw, 4), "sign": e.sign()}
            for k, e in ests.items()
        }
    return res


# --- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__, f"a reduced run ({QUICK_REPLICATIONS} replications, seconds)")
    args = parse(ap, argv)
    if args.quick:
        headline(quick(args.workers, args.force), args.headline)
        return
    # The report's modules import matplotlib; only the full run needs them.
    from acns_figures import make_figures
    from acns_report import write_report

    t0 = time.perf_counter()
    sw = run_all(args.workers, args.force)
    first, model = acns_model.run_all()
    traces = {c.profile: {v: traced(c) for v, c in zip((NONE, ACNS), c.pair())}
              for c in (Config(p) for p in ("ns2", "linux"))}  # fmt: skip
    figs = make_figures(sw, traces, first)
    run = whole_run(sw["computed"] == sw["points"], time.perf_counter() - t0, args.workers)
    write_report(sw, model, figs, run, provenance(None if argv is None else [__file__, *argv]))
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
