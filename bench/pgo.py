"""Builds ccsim's core with profile-guided optimisation (PGO), trained on the benchmarks.

    python bench/pgo.py              # build, train, rebuild; installs the optimised core
    python bench/pgo.py --no-install # the same, but only builds run_scenario (target/pgo/)
    python bench/pgo.py --list       # the training scenarios, validated, and nothing else
    python bench/pgo.py --portable   # code for any processor of the architecture
    make pgo                         # python bench/pgo.py

1. An instrumented build of the profiling runner, `run_scenario` (target/pgo/instrumented).
2. Training: it runs every scenario of the training set (below), which writes the counts of
   every branch and call taken to target/pgo/raw.
3. `llvm-profdata merge` turns them into target/pgo/ccsim.profdata.
4. The optimised builds with that profile: the Python package (`pip install`, editable if the
   current install is) and `run_scenario` (target/pgo/optimised/release/examples/). Both
   report "release, PGO, native" (`ccsim._native.build()`, run_scenario's last line, the
   benchmark's header).

Both builds use fat LTO over one codegen unit, and code for this machine's processor
(`-Ctarget-cpu=native`; `--portable` leaves that out, and the core then reports
"release, PGO"). The package that `pip install .` builds is neither: it is meant to run
anywhere, and builds in half the time.

Why: the compiler lays out and inlines the hot path by measured counts instead of guesses;
1.1–1.25× more packets per second on every benchmark (docs/performance.md), the same results to
the last bit (the profile changes code layout and inlining, never arithmetic).

The training set covers the whole core, since code the training never ran is optimised for
size as if it were cold: the benchmark scenarios shortened, every scenario file in scenarios/
with a duration (in full: the paper reproductions run these; the two NDCA files take most of
the training's 15 s), and a small dumbbell once for every congestion control, loss
recovery, slow start, queue discipline, loss process and defaults profile the scenario schema
lists, with every time series recorded. The kinds are read from the schema, so a new one is
trained without an edit; a new loss process needs its example parameters in LOSS_EXAMPLES,
and without them this is an error (and `tests/test_pgo.py` fails), not a silent gap.

Run it after installing ccsim (`pip install -e .`; the training set comes from the installed
core's schema). Needs `llvm-profdata` of the LLVM that rustc uses (`rustup component add
llvm-tools`, or LLVM_PROFDATA naming one). Not part of the default install, CI or `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from scenarios import AQM_SCENARIOS, SCENARIOS, ccsim_scenario  # noqa: E402

OUT = ROOT / "target" / "pgo"

# Benchmark scenarios and the simulated seconds each trains for (a few seconds of wall time in
# all, instrumented).
BENCH_TRAINING = {"a": 20.0, "b": 10.0, "c": 2.0, "H": 1.0, "S": 1.0}
BENCH_TRAINING |= {i: 5.0 if i.startswith("b") else 1.0 for i in AQM_SCENARIOS}

# A loss process of each kind the schema lists, with parameters that lose a few packets.
LOSS_EXAMPLES: dict[str, dict[str, Any]] = {
    "bernoulli": {"p": 1e-3},
    "gilbert_elliott": {"p_gb": 1e-3, "p_bg": 0.3, "loss_good": 0.0, "loss_bad": 0.5},
    "outage": {"intervals": [["2s", "2.05s"]]},
    "list": {"packets": [100, 101, 500, 2000]},
}


class PgoError(Exception):
    """Why a PGO build cannot go on, and what to do about it."""


def _kinds(defs: dict, name: str) -> list[str]:
    """The kinds a schema definition accepts: `const` strings or `kind` consts of its oneOf."""
    out = []
    for o in defs[name]["oneOf"]:
        if "enum" in o:
            continue  # the shorthand: bare names of the tables listed beside it
        const = o.get("const", o.get("properties", {}).get("kind", {}).get("const"))
        if const is None:
            raise PgoError(f"schema {name}: an alternative without a kind: {o}")
        out.append(const)
    return out


def _schema() -> dict:
    """The scenario schema's definitions, from the installed core (the kinds to train)."""
    try:
        from ccsim import _native

        return _native.schema()["$defs"]
    except ImportError as e:
        raise PgoError(
            f"ccsim is not installed ({e}); install it first (`pip install -e .`, as `make "
            "test` does): the training set is read from its scenario schema"
        ) from None


def _variant(name: str, series: list[str], **tcp: Any) -> dict:
    """A small dumbbell (4 TCP pairs and one CBR pair at 100 Mb/s, 5 s) recording ``series``;
    ``tcp`` settings go to every TCP flow."""
    d = ccsim_scenario(replace(SCENARIOS["b"], flows=5, duration_s=5.0))
    d["name"] = f"train-{name}"
    tcp_flows = d["flows"][:4]
    for f in tcp_flows:
        f["tcp"] |= tcp
    d["flows"] = tcp_flows + [
        {"kind": "cbr", "name": "cbr", "src": "s4", "dst": "d4", "rate": "5Mbps", "start": "1s"}
    ]
    d["trace"] = {"series": series}
    return d


def training_set() -> dict[str, dict]:
    """Every training scenario by name, as scenario dicts."""
    from ccsim.scenario import load

    defs = _schema()
    series = _kinds(defs, "SeriesName")  # every one, in every variant
    out: dict[str, dict] = {}
    for i, secs in BENCH_TRAINING.items():
        bench = (SCENARIOS | AQM_SCENARIOS)[i]
        out[f"bench-{i}"] = ccsim_scenario(bench.scaled(secs))
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        d = load(path)
        if "duration" not in d:
            continue  # a sweep file: its base scenario is another file
        out[f"file-{path.stem}"] = d
    for cc in _kinds(defs, "CcSpec"):
        if cc == "external":
            continue  # an algorithm written in Python, which only code can give
        out[f"cc-{cc}"] = _variant(f"cc-{cc}", series, cc=cc)
    for rec in _kinds(defs, "Recovery"):
        out[f"recovery-{rec}"] = _variant(f"recovery-{rec}", series, cc="reno", recovery=rec)
    for ss in _kinds(defs, "SlowStartSpec"):
        out[f"slow-start-{ss}"] = _variant(f"slow-start-{ss}", series, cc="reno", slow_start=ss)
    for q in _kinds(defs, "QueueSpec"):
        if q == "xcp":
            # The XCP router has no ECN; it acts on XCP flows, with the congestion bit on.
            d = _variant(f"queue-{q}", series, cc={"kind": "xcp", "window_adjustment": True})
            queue = {"kind": q, "congestion_threshold": 50}
        elif q == "acns":
            # The ACNS router has no ECN setting: it writes commands for flows that ask for them.
            d = _variant(f"queue-{q}", series, cc="cubic", acns=True)
            queue = {"kind": q, "limit": 100}
        elif q == "dualpi2":
            # DualPI2 classifies by codepoint and has no ecn switch: Prague's ECT(1) flows in
            # its L queue beside the classic ones.
            d = _variant(f"queue-{q}", series, cc="prague")
            queue = {"kind": q}
        elif q == "step":
            # Step marking marks ECN-capable packets above its threshold; it has no ecn switch.
            d = _variant(f"queue-{q}", series, ecn=True)
            queue = {"kind": q, "threshold": 20}
        else:
            d = _variant(f"queue-{q}", series, ecn=True)
            queue = {"kind": q} | ({} if q == "droptail" else {"ecn": True})
        d["topology"]["bottleneck"]["queue"] = queue
        d["trace"]["interval"] = "10ms"
        out[f"queue-{q}"] = d
    # Adaptive RED is a setting of RED, not a kind of its own: an example so that its max_p
    # controller is trained too (it first acts 0.5 s in).
    d = _variant("queue-red-adaptive", series, ecn=True)
    d["topology"]["bottleneck"]["queue"] = {"kind": "red", "adaptive": True, "ecn": True}
    d["trace"]["interval"] = "10ms"
    out["queue-red-adaptive"] = d
    for loss in _kinds(defs, "LossSpec"):
        if loss not in LOSS_EXAMPLES:
            raise PgoError(
                f"loss kind {loss!r} has no training example: add one to LOSS_EXAMPLES in "
                "bench/pgo.py"
            )
        d = _variant(f"loss-{loss}", series)
        d["topology"]["bottleneck"]["loss"] = {"kind": loss} | LOSS_EXAMPLES[loss]
        out[f"loss-{loss}"] = d
    for profile in _kinds(defs, "Profile"):
        d = _variant(f"profile-{profile}", series)
        d["defaults"] = profile
        d["topology"]["bottleneck"]["queue"] = {"kind": "red"}  # byte-mode RED under ns2
        out[f"profile-{profile}"] = d
    return out


def _run(cmd: list[str], env: dict[str, str] | None = None, what: str = "", echo=True) -> str:
    if echo:
        print(f"$ {' '.join(str(c) for c in cmd)}", flush=True)
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    except FileNotFoundError:
        raise PgoError(f"{cmd[0]} not found: the PGO build needs Rust's toolchain") from None
    if out.returncode != 0:
        raise PgoError(f"{what or cmd[0]} failed (exit {out.returncode}):\n{out.stderr[-4000:]}")
    return out.stdout


def llvm_major(version_text: str) -> int | None:
    """The LLVM major version in `rustc -vV` or `llvm-profdata merge --version` output."""
    m = re.search(r"LLVM version:?\s*(\d+)\.", version_text)
    return int(m.group(1)) if m else None


def find_profdata() -> Path:
    """llvm-profdata of rustc's LLVM: LLVM_PROFDATA, else rustup's llvm-tools, else PATH."""
    rustc = _run(["rustc", "-vV"], what="rustc -vV", echo=False)
    want = llvm_major(rustc)
    host = re.search(r"^host: (\S+)", rustc, re.M)
    candidates: list[tuple[str, Path]] = []
    if os.environ.get("LLVM_PROFDATA"):
        candidates.append(("LLVM_PROFDATA", Path(os.environ["LLVM_PROFDATA"])))
    else:
        sysroot = _run(["rustc", "--print", "sysroot"], echo=False).strip()
        if host:
            tools = Path(sysroot) / "lib" / "rustlib" / host.group(1) / "bin"
            candidates.append(("rustup's llvm-tools", tools / "llvm-profdata"))
        on_path = shutil.which("llvm-profdata")
        if on_path:
            candidates.append(("PATH", Path(on_path)))
    seen = []
    for source, path in candidates:
        if not path.is_file():
            seen.append(f"{source}: {path} does not exist")
            continue
        # `merge --version`: older llvm-profdata (LLVM 14) has no top-level --version.
        out = subprocess.run([path, "merge", "--version"], capture_output=True, text=True)
        got = llvm_major(out.stdout) if out.returncode == 0 else None
        if got is None:
            seen.append(f"{source}: {path} does not say its LLVM version")
            continue
        if want is None or got == want:
            return path
        seen.append(f"{source}: {path} is LLVM {got}")
    raise PgoError(
        f"no llvm-profdata for rustc's LLVM {want} ({'; '.join(seen) or 'none found'}). "
        "Install it with `rustup component add llvm-tools`, or set LLVM_PROFDATA to an "
        f"llvm-profdata of LLVM {want}."
    )


def _cargo_env(target: Path, rustflag: str, native: bool) -> dict[str, str]:
    """Cargo's environment for one of the two builds: the profile flag, whole-program
    optimisation (fat LTO over one codegen unit: with the profile it inlines across what
    Cargo's release profile compiles apart, 1.04x on b), and, if ``native``, code for this
    machine's processor (1.01-1.03x more)."""
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(target)
    env["CARGO_PROFILE_RELEASE_LTO"] = "fat"
    env["CARGO_PROFILE_RELEASE_CODEGEN_UNITS"] = "1"
    flags = [env.get("RUSTFLAGS", ""), rustflag] + (["-Ctarget-cpu=native"] if native else [])
    env["RUSTFLAGS"] = " ".join(f for f in flags if f)
    return env


def _build_runner(env: dict[str, str]) -> Path:
    cmd = ["cargo", "build", "--release", "-p", "ccsim", "--example", "run_scenario"]
    _run(cmd, env, "cargo build")
    return Path(env["CARGO_TARGET_DIR"]) / "release" / "examples" / "run_scenario"


def _installed_editable() -> bool:
    """Whether ccsim is installed from this checkout's python/ (pip install -e), or not at all
    (then the install is editable, as `make test` makes it)."""
    out = subprocess.run(
        [sys.executable, "-c", "import ccsim; print(ccsim.__file__)"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    if out.returncode != 0:
        return True
    return Path(out.stdout.strip()).resolve().is_relative_to(ROOT / "python")


def build(install: bool, native: bool = True) -> Path:
    """The whole cycle; returns the optimised run_scenario."""
    profdata = find_profdata()
    scenarios = training_set()
    raw = OUT / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    train_dir = OUT / "train"
    train_dir.mkdir(parents=True, exist_ok=True)

    print("1. instrumented build", flush=True)
    env = _cargo_env(OUT / "instrumented", f"-Cprofile-generate={raw}", native)
    runner = _build_runner(env)

    print(f"2. training on {len(scenarios)} scenarios", flush=True)
    for name, d in scenarios.items():
        path = train_dir / f"{name}.json"
        path.write_text(json.dumps(d))
        run = [str(runner), str(path)]
        line = _run(run, what=f"training run {name}", echo=False).splitlines()[0]
        print(f"   {line}", flush=True)
    if not list(raw.glob("*.profraw")):
        raise PgoError(f"the training runs wrote no profile to {raw}")

    print("3. merging the profile", flush=True)
    profile = OUT / "ccsim.profdata"
    _run([str(profdata), "merge", "-o", str(profile), str(raw)], what="llvm-profdata merge")

    print("4. optimised builds", flush=True)
    env = _cargo_env(OUT / "optimised", f"-Cprofile-use={profile}", native)
    runner = _build_runner(env)
    if install:
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
        cmd += ["--editable", str(ROOT)] if _installed_editable() else [str(ROOT)]
        _run(cmd, env, "pip install")
        check = [sys.executable, "-c", "from ccsim import _native; print(_native.build())"]
        built = subprocess.run(check, capture_output=True, text=True, cwd="/").stdout.strip()
        print(f"   installed core: {built}")
        want = "release, PGO, native" if native else "release, PGO"
        if built != want:
            raise PgoError(f"the installed core reports {built!r}, not {want!r}")
    print(f"   run_scenario: {runner.relative_to(ROOT)}")
    return runner


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-install", action="store_true", help="build run_scenario only")
    ap.add_argument("--list", action="store_true", help="list the training scenarios, validated")
    ap.add_argument(
        "--portable",
        action="store_true",
        help="code for any x86-64 (or the target's baseline), not this machine's processor",
    )
    args = ap.parse_args(argv)
    try:
        if args.list:
            from ccsim import validate

            for name, d in training_set().items():
                validate(d)
                print(f"{name}: {d['duration']}, {len(d['flows'])} flows")
            return
        build(install=not args.no_install, native=not args.portable)
    except PgoError as e:
        raise SystemExit(f"pgo: {e}") from None


if __name__ == "__main__":
    main()
