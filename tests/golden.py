"""Golden results: a digest of every table of every shipped scenario and benchmark scenario.

A refactoring of the core must not move a result, on any forwarding route. The digests in
``tests/golden/digests.json`` were taken from a release; ``test_golden.py`` runs each scenario
again on the fast route, on the reference route (every packet moved by its own events) and with
every trace on, and compares.

Update them only where a change is meant to move results, and say why in the commit:

    python tests/golden.py --update
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "digests.json"
sys.path.insert(0, str(ROOT / "bench"))

import ccsim  # noqa: E402

from scenarios import AQM_SCENARIOS, SCENARIOS, ccsim_scenario  # noqa: E402


def shipped() -> dict[str, dict]:
    """Every scenario file in ``scenarios/`` (sweep files are grids over these), by file stem."""
    out = {}
    for path in sorted(glob.glob(str(ROOT / "scenarios" / "*.toml"))):
        d = ccsim.load(path)
        if "sweep" in d:
            continue
        out[Path(path).stem] = d
    return out


def benchmarks() -> dict[str, dict]:
    """The benchmark scenarios of docs/performance.md at their full durations."""
    return {f"bench-{k}": ccsim_scenario(b) for k, b in (SCENARIOS | AQM_SCENARIOS).items()}


def scenarios() -> dict[str, dict]:
    return {**shipped(), **benchmarks()}


def _column_bytes(name: str, col: pd.Series) -> bytes:
    values = col.to_numpy()
    if values.dtype.kind in "biuf":
        return name.encode() + np.ascontiguousarray(values).tobytes()
    return name.encode() + json.dumps([str(v) for v in values]).encode()


def table_digest(df: pd.DataFrame) -> str:
    """SHA-256 over every column's name and values (numbers as their bytes: exact)."""
    h = hashlib.sha256()
    for name in df.columns:
        h.update(_column_bytes(str(name), df[name]))
    return h.hexdigest()[:16]


def digests(result: ccsim.Result, *, series: bool = True) -> dict[str, str]:
    """The digest of each of ``result``'s tables: flows, queues, and each recorded series."""
    out = {"flows": table_digest(result.flows), "queues": table_digest(result.queues)}
    if series:
        for name in result.series_names:
            out[f"series.{name}"] = table_digest(result.trace(name))
        if len(result.packets):
            out["packets"] = table_digest(result.packets)
    return out


def series_names() -> list[str]:
    """Every series a scenario may record, as the schema lists them."""
    return [v["const"] for v in ccsim.schema()["$defs"]["SeriesName"]["oneOf"]]


# Scenarios too large to record every series on every change in CI record them sampled; those
# with more than about 100,000 packets record no packets (the trace's tables cost seconds).
SAMPLED = {"ndca", "ndca-fairness", "bench-c", "bench-cR", "bench-cC", "bench-H", "bench-S"}
NO_PACKETS = SAMPLED | {"ass-chain", "bench-b", "bench-bR", "bench-bC"}


def traced(name: str, d: dict) -> dict:
    """``d`` recording every series (on every change, sampled for the large ones) and, where
    small, every packet on every link: what a trace may observe must not change a result."""
    d = json.loads(json.dumps(d))
    trace: dict = {"series": series_names()}
    if name in SAMPLED:
        trace["interval"] = "50ms"
    if name not in NO_PACKETS:
        trace["packets"] = ["*"]
    d["trace"] = trace
    return d


def run(d: dict, engine: str | None = None) -> ccsim.Result:
    d = json.loads(json.dumps(d))
    if engine is not None:
        d["engine"] = engine
    return ccsim.run(d)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help="rewrite tests/golden/digests.json")
    ap.add_argument("names", nargs="*", help="scenarios to run (default: all)")
    args = ap.parse_args(argv)
    all_ = scenarios()
    names = args.names or list(all_)
    unknown = [n for n in names if n not in all_]
    if unknown:
        ap.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(all_)}")
    found = {n: digests(run(all_[n])) for n in names}
    if args.update:
        old = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        old.update(found)
        GOLDEN.parent.mkdir(exist_ok=True)
        tmp = GOLDEN.with_suffix(".tmp")
        tmp.write_text(json.dumps(dict(sorted(old.items())), indent=1) + "\n")
        os.replace(tmp, GOLDEN)
        print(f"wrote {len(found)} scenarios' digests to {GOLDEN.relative_to(ROOT)}")
    else:
        print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
