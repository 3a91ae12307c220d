"""Runs the benchmark scenarios and prints how fast and how big each run is.

    python bench/run.py                  # a, b, c, H, S; median of 3 runs each
    python bench/run.py H --repeat 5     # some of them
    python bench/run.py --quick          # seconds: a and H over a short duration (CI runs this)
    python bench/run.py --vs-ns3         # ns-3 too on a, b, c (pip install ns3); ratios
    python bench/run.py --save           # also write bench/history/<date>-<commit>.json
    python bench/run.py --dump DIR       # write the scenarios as JSON (for run_scenario/perf)
    python bench/pgo.py && python bench/run.py   # the same with a profile-guided build

Per scenario: simulated seconds, delivered data packets, wall seconds of the run itself (the
event loop; not building the scenario or collecting results), delivered packets per wall
second, events per delivered packet, and memory: what the Rust core allocated for the built
scenario (per flow: that over the number of flows, links and routes included) and at its peak
during the run (per packet in flight: the growth past the built state over the most packets in
the network at once — an upper bound, as windows, scoreboards and the event heap grow with
them), counted by its allocator; and the growth of the process's resident set at its peak.
The header names how the installed core was built (release or debug, and PGO for a build by
``bench/pgo.py``) and the machine; "vs last" compares only with a saved run of a core built
the same way on the same processor.
Each run is a fresh process, so peaks do not carry over. Throughput figures are medians over
``--repeat`` runs; the spread (min–max) is printed beside them. The last saved history file of
the same mode is the reference for the "vs last" ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from datetime import date, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from report import child_json, compare_line, history_ref, machine, print_table  # noqa: E402

from scenarios import AQM_SCENARIOS, SCENARIOS, ccsim_scenario  # noqa: E402

ALL = SCENARIOS | AQM_SCENARIOS

QUICK = {"a": 10.0, "H": 1.5}
NS3_DEFAULT = ("a", "b", "c")


def _rss_kib(field: str) -> int:
    """VmRSS or VmHWM of this process, KiB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def child_ccsim(bench_id: str, duration: float) -> dict:
    """One ccsim run in this process; memory figures are this process's."""
    from ccsim import _native
    from ccsim.metrics import jain_index
    from ccsim.result import Result

    b = ALL[bench_id].scaled(duration)
    scenario = ccsim_scenario(b)
    text = json.dumps(scenario)
    core = _native.core()
    rss0 = _rss_kib("VmRSS")
    heap0, _ = core.heap_bytes(reset=True)
    sim = _native.simulation(text)
    rss_built = _rss_kib("VmRSS")
    heap_built, _ = core.heap_bytes(reset=True)
    t0 = time.perf_counter()
    sim.run_until(b.duration_s)
    wall = time.perf_counter() - t0
    peak = _rss_kib("VmHWM")
    _, heap_peak = core.heap_bytes()
    res = Result.from_core(sim.finish(), scenario)
    flows, meta, queues = res.flows, res.meta, res.queues
    goodput = [float(g) for g in flows["goodput_bps"]]
    bottleneck = list(queues["link"]).index("bottleneck")
    return {
        "sim_s": b.duration_s,
        "delivered": int(sum(flows["packets_delivered"])),
        "events": int(meta["events"]),
        "wall_s": wall,
        "rss_built_kib": rss_built - rss0,
        "rss_peak_kib": peak - rss0,
        "heap_built_bytes": heap_built - heap0,
        "heap_peak_bytes": heap_peak - heap0,
        "packets_peak": int(meta["packets_peak"]),
        "flows": b.flows,
        "goodput_bps": sum(goodput),
        "drops": int(queues["drops_overflow"][bottleneck]),
        "jain": jain_index(goodput),
    }


def run_child(kind: str, bench_id: str, duration: float) -> dict:
    args = [kind, bench_id, str(duration)]
    return child_json(Path(__file__), args, f"{kind} run of {bench_id}")


def median_of(runs: list[dict]) -> dict:
    """Median of the timings; the counts are the same in every run (deterministic)."""
    first = dict(runs[0])
    walls = [r["wall_s"] for r in runs]
    first["wall_s"] = statistics.median(walls)
    first["wall_min_s"], first["wall_max_s"] = min(walls), max(walls)
    first["rss_peak_kib"] = max(r["rss_peak_kib"] for r in runs)
    first["runs"] = len(runs)
    return first


def git_commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "ids",
        nargs="*",
        help=f"scenarios (default: all of {', '.join(SCENARIOS)}; "
        f"with an AQM, when named: {', '.join(AQM_SCENARIOS)})",
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per scenario (median)")
    ap.add_argument("--quick", action="store_true", help="a and H, shortened (seconds in all)")
    ap.add_argument("--vs-ns3", action="store_true", help="run ns-3 on the same scenarios")
    ap.add_argument("--save", action="store_true", help="write bench/history/<date>-<sha>.json")
    ap.add_argument("--dump", type=Path, help="write the scenarios as JSON files to DIR, exit")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        kind, bench_id, duration = args.child
        if kind == "ccsim":
            print(json.dumps(child_ccsim(bench_id, float(duration))))
        else:
            from ns3_peer import child_ns3

            print(json.dumps(child_ns3(SCENARIOS[bench_id].scaled(float(duration)))))
        return

    unknown = [i for i in args.ids if i not in ALL]
    if unknown:
        ap.error(f"unknown scenario {unknown}; the scenarios are {', '.join(ALL)}")
    aqm = [i for i in args.ids if i in AQM_SCENARIOS]
    if args.vs_ns3 and aqm:
        ap.error(f"--vs-ns3 builds DropTail bottlenecks only; no ns-3 peer for {', '.join(aqm)}")
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    ids = args.ids or (list(QUICK) if args.quick else list(SCENARIOS))
    if args.vs_ns3 and not args.ids and not args.quick:
        # ns-3 runs at about 10,000 packets/s here: H would take 7 minutes per run and S
        # (10,000 flows) hours, so they are compared only when named.
        ids = list(NS3_DEFAULT)
        print(f"--vs-ns3 without scenario ids compares {', '.join(ids)}; name H or S to add them")
    durations = {i: (QUICK.get(i, 1.0) if args.quick else ALL[i].duration_s) for i in ids}

    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
        for i in ids:
            path = args.dump / f"{i}.json"
            path.write_text(json.dumps(ccsim_scenario(ALL[i].scaled(durations[i]))))
            print(path)
        return

    if args.vs_ns3:
        try:
            import ns3_peer  # noqa: F401

            ns3_peer.import_ns()
        except ImportError as e:
            raise SystemExit(f"--vs-ns3 needs the ns3 package (pip install ns3): {e}") from e

    from ccsim import _native

    mode = "quick" if args.quick else "full"
    build = _native.build()
    here = machine()
    ref = history_ref(HERE / "history", mode, build, here)
    print(f"on {here}")
    rows = {}
    for i in ids:
        runs = [run_child("ccsim", i, durations[i]) for _ in range(args.repeat)]
        rows[i] = {"ccsim": median_of(runs)}
        if args.vs_ns3:
            ns = [run_child("ns3", i, durations[i]) for _ in range(args.repeat)]
            rows[i]["ns3"] = median_of(ns)
        print_table({i: rows[i]}, ref, header=build if i == ids[0] else None)
        if args.vs_ns3:
            print(compare_line(i, rows[i]["ccsim"], rows[i]["ns3"]))
        sys.stdout.flush()

    if args.save:
        out = HERE / "history" / f"{date.today().isoformat()}-{git_commit()}-{mode}.json"
        out.parent.mkdir(exist_ok=True)
        saved = datetime.now().isoformat(timespec="seconds")
        run = {"mode": mode, "build": build, "machine": here, "commit": git_commit()}
        run["saved"] = saved
        run["rows"] = rows
        out.write_text(json.dumps(run, indent=1))
        print(f"saved {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
