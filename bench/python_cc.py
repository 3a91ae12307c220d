"""ACKs per second through a congestion control written in Python.

    python bench/python_cc.py            # a, b and H, Python Reno against the built-in one
    python bench/python_cc.py H --seconds 1

Each benchmark scenario (bench/scenarios.py), its flows all Reno, runs twice: with the built-in
Reno and with the Python Reno of docs/examples/python_cc.py, which gives the same tables. The
Python run counts the ACKs its `cong_avoid` takes; ACKs per second is that count over the
run's wall time, and the slowdown is the ratio of the two wall times. Timings, not tests:
nothing here asserts a time (docs/performance.md).
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "docs" / "examples"))

import ccsim  # noqa: E402
from python_cc import PyReno  # noqa: E402

from scenarios import SCENARIOS, ccsim_scenario  # noqa: E402


class CountingReno(PyReno):
    """PyReno counting the ACKs it grows on (class-wide: one count for every flow)."""

    acks = 0

    def cong_avoid(self, conn, ack):
        CountingReno.acks += 1
        super().cong_avoid(conn, ack)


def measure(bench_id: str, seconds: float | None) -> dict:
    b = SCENARIOS[bench_id]
    d = ccsim_scenario(b.scaled(seconds) if seconds else b)
    for f in d["flows"]:
        f["tcp"]["cc"] = "reno"  # b and c run CUBIC: Reno on both sides here
    t = time.perf_counter()
    rust = ccsim.run(d)
    rust_s = time.perf_counter() - t
    py = copy.deepcopy(d)
    for f in py["flows"]:
        f["tcp"]["cc"] = CountingReno
    CountingReno.acks = 0
    t = time.perf_counter()
    ours = ccsim.run(py)
    py_s = time.perf_counter() - t
    same = rust.flows.drop(columns="cc").equals(ours.flows.drop(columns="cc"))
    return {
        "id": bench_id,
        "acks": CountingReno.acks,
        "rust_s": rust_s,
        "python_s": py_s,
        "acks_per_s": CountingReno.acks / py_s,
        "same_tables": same,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*", default=["a", "b", "H"], help="benchmark scenarios")
    ap.add_argument("--seconds", type=float, help="simulated seconds (default: each one's)")
    args = ap.parse_args(argv)
    unknown = [i for i in args.ids if i not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
    if args.seconds is not None and args.seconds <= 0:
        ap.error("--seconds must be positive")
    print(f"{'id':>3} {'ACKs':>10} {'Rust s':>8} {'Python s':>9} {'ACKs/s':>10}  slowdown  same")
    for i in args.ids:
        m = measure(i, args.seconds)
        slow = m["python_s"] / m["rust_s"]
        print(
            f"{i:>3} {m['acks']:>10,} {m['rust_s']:>8.2f} {m['python_s']:>9.2f} "
            f"{m['acks_per_s']:>10,.0f}  {slow:>7.1f}x  {m['same_tables']}"
        )


if __name__ == "__main__":
    main()
