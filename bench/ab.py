"""Compares two builds of the core by running them in turn: packets per second, and results.

    python bench/ab.py 5ddcc18                   # that commit against the working tree
    python bench/ab.py v1 v2 H a f1000 --rounds 9
    python bench/ab.py 5ddcc18 --pgo             # profile-guided builds of both (bench/pgo.py)

On a shared host wall times move by a tenth or more from one day to the next (the 0.6.5
section of docs/performance.md), so a run saved on another day says little about a change.
Runs of two builds taken in turn, A B A B ..., see the same host: the ratio of their medians
is the comparison.

Each revision is built in a git worktree under target/ab/ (the working tree itself for ".")
as the profiling runner, `run_scenario`: a plain release build, or with --pgo one by
`bench/pgo.py --no-install` (which trains on the installed core's schema). Builds of a commit
are kept and reused. The scenarios are the benchmark set's (a, b, c, H, S, and bR cR bC cC)
and the scaling sweeps' (f1000, n100, s10000, u1000, r10Gbps, ...), named by id.

Each run also prints the tables digest (`run_scenario`'s second line): the two builds must
give the same results, or the comparison says which scenarios differ and exits with 1 (an
optimisation must change no result).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from scaling import sweeps  # noqa: E402

from scenarios import AQM_SCENARIOS, SCENARIOS, Bench, ccsim_scenario  # noqa: E402

DEFAULT = ("H", "a", "b", "f1000", "s1000")
RUNNER = Path("examples/run_scenario")


def benches() -> dict[str, Bench]:
    """Every scenario by id: the benchmark set and the scaling sweeps' points (the packets
    sweep's are H at other durations, and keep H's id: left out)."""
    out = dict(SCENARIOS | AQM_SCENARIOS)
    for sweep, _, b in sweeps():
        if sweep != "packets":
            out.setdefault(b.id, b)
    return out


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def build(rev: str, pgo: bool) -> Path:
    """`run_scenario` built from `rev` ("." for the working tree), copied under target/ab/."""
    mode = "pgo" if pgo else "plain"
    ab = ROOT / "target" / "ab"
    ab.mkdir(parents=True, exist_ok=True)
    if rev == ".":
        src, target, name = ROOT, None, f"run_scenario-worktree-{mode}"
    else:
        sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}")[:12]
        name = f"run_scenario-{sha}-{mode}"
        if (ab / name).exists():
            return ab / name
        src, target = ab / f"wt-{sha}", ab / f"target-{sha}"
        if not src.exists():
            _git("worktree", "add", "--detach", str(src), sha)
    if pgo:
        subprocess.run([sys.executable, "bench/pgo.py", "--no-install"], cwd=src, check=True)
        built = src / "target/pgo/optimised/release" / RUNNER
    else:
        env = None if target is None else os.environ | {"CARGO_TARGET_DIR": str(target)}
        cmd = ["cargo", "build", "--release", "-p", "ccsim", "--example", "run_scenario"]
        subprocess.run(cmd, cwd=src, check=True, env=env)
        built = (target or src / "target") / "release" / RUNNER
    shutil.copy2(built, ab / name)
    return ab / name


PKTS = re.compile(r"([\d.]+) packets/s")


def run_once(binary: Path, scenario: Path) -> tuple[float, str]:
    """Delivered packets per wall second and the tables digest of one run."""
    out = subprocess.run(
        [str(binary), str(scenario)], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    m = PKTS.search(out[0]) if out else None
    if m is None or len(out) < 2:
        raise RuntimeError(f"{binary} {scenario}: unexpected output {out[:2]!r}")
    return float(m.group(1)), out[1]


def alternate(
    ids: list[str],
    builds: list[Path],
    rounds: int,
    run: Callable[[Path, str], tuple[float, str]],
) -> dict[str, list[list[tuple[float, str]]]]:
    """For each scenario, `rounds` rounds of one run of every build in turn; the runs of each
    build, in order."""
    out = {}
    for i in ids:
        runs: list[list[tuple[float, str]]] = [[] for _ in builds]
        for _ in range(rounds):
            for k, b in enumerate(builds):
                runs[k].append(run(b, i))
        out[i] = runs
    return out


def summarise(results: dict[str, list[list[tuple[float, str]]]]) -> tuple[list[str], list[str]]:
    """Table rows (median packets per second of each build, its spread, and the second's ratio
    to the first) and the scenarios whose builds gave different results."""
    rows, differ = [], []
    for i, (a, b) in results.items():
        ma = statistics.median(v for v, _ in a)
        mb = statistics.median(v for v, _ in b)
        spread = " ".join(
            f"{min(v for v, _ in r) / 1e6:.2f}–{max(v for v, _ in r) / 1e6:.2f}" for r in (a, b)
        )
        same = {d for _, d in a} == {d for _, d in b} and len({d for _, d in a}) == 1
        if not same:
            differ.append(i)
        rows.append(
            f"| {i} | {ma / 1e6:.2f} M | {mb / 1e6:.2f} M | **{mb / ma:.3f}×** | {spread} "
            f"| {'same' if same else 'DIFFERENT'} |"
        )
    return rows, differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the revision to compare against (a commit, tag or branch)")
    ap.add_argument("head", nargs="?", default=".", help='the other ("." : the working tree)')
    ap.add_argument("scenarios", nargs="*", help=f"ids (default: {' '.join(DEFAULT)})")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each build per scenario")
    ap.add_argument("--pgo", action="store_true", help="profile-guided builds (bench/pgo.py)")
    args = ap.parse_args()
    # A head that is a scenario id was meant as one: `ab.py REV H a`.
    all_benches = benches()
    if args.head in all_benches:
        args.scenarios.insert(0, args.head)
        args.head = "."
    ids = args.scenarios or list(DEFAULT)
    unknown = [i for i in ids if i not in all_benches]
    if unknown:
        ap.error(f"unknown scenario {', '.join(unknown)}; known: {', '.join(all_benches)}")
    if args.rounds < 1:
        ap.error("--rounds: at least 1")
    builds = [build(args.base, args.pgo), build(args.head, args.pgo)]
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for i in ids:
            files[i] = Path(tmp) / f"{i}.json"
            files[i].write_text(json.dumps(ccsim_scenario(all_benches[i])))
        results = alternate(ids, builds, args.rounds, lambda b, i: run_once(b, files[i]))
    rows, differ = summarise(results)
    mode = "profile-guided" if args.pgo else "plain release"
    print(f"{args.base} → {args.head}, {mode} builds, {args.rounds} rounds taken in turn")
    print("| scenario | base packets/s | head packets/s | head / base | spreads (M) | results |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    print("\n".join(rows))
    if differ:
        print(f"different results (tables digests) on {', '.join(differ)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
