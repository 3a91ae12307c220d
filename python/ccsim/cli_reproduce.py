"""``ccsim reproduce PAPER``: run one of the paper reproductions of a ccsim source checkout.

The reproductions are scripts beside their reports (``docs/reproductions/<paper>/run.py``,
one folder per paper), not part of the installed package, so the command finds the checkout,
runs the paper's script with this Python and passes on the options that script takes, read
from its ``--help``: an option the script does not take is refused by name, never dropped.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

EXIT_USAGE = 2  # as argparse and the other commands use for the user's input
EXIT_INTERRUPTED = 130  # as a shell reports a process stopped by SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
# After Ctrl-C the script gets this long to stop by itself (a terminal sends SIGINT to the
# whole foreground group, so it got the signal too) before it is terminated.
GRACE_S = 10.0

# Where the package lies: for an editable install, inside the checkout (python/ccsim).
PACKAGE_DIR = Path(__file__).resolve().parent
REPRODUCTIONS = Path("docs") / "reproductions"


@dataclass(frozen=True)
class Paper:
    script: str  # under docs/reproductions/ (the paper's folder)
    report: str  # under docs/reproductions/
    about: str
    # A full run from nothing, as the report's timing section records it (2-core machine).
    cost: str


PAPERS = {
    "acns": Paper(
        "acns/run.py",
        "acns.md",
        "ACNS router notifications by flow age and priority (Olšovský 2014)",
        "about 7 min, 1 worker",
    ),
    "ass": Paper(
        "ass/run.py",
        "ass.md",
        "Advanced Slow Start vs Limited Slow-Start (Petrov & Janevski 2013)",
        "about 14 min, 2 workers",
    ),
    "ndca": Paper(
        "ndca/run.py",
        "ndca.md",
        "NDCA-TCP vs HighSpeed TCP on a 1 Gb/s chain (Park et al.)",
        "about 1 h, 2 workers, most of it Fig. 6 at 30 simulated min x 10 seeds (the "
        "script's --full-seeds N: fewer)",
    ),
    "red-ecn": Paper(
        "red-ecn/run.py",
        "red-ecn.md",
        "Reno, NewReno, SACK, Vegas through DropTail, RED, RED+ECN (Mateen & Anwar 2016)",
        "about 2 min, 2 workers",
    ),
    "xcp": Paper(
        "xcp/run.py",
        "xcp.md",
        "XCP with the congestion-bit window adjustment vs HS-TCP, BIC (Sheela & Raja)",
        "3-15 min, 1 worker (15 with other work on both cores)",
    ),
}

# The options of `ccsim reproduce` that go on to the script: the script's option, and what a
# script that lacks it does not take (for the refusal).
FLAGS = {
    "quick": ("--quick", "a quick mode"),
    "workers": ("--workers", "a worker count"),
    "dask": ("--dask", "a Dask address"),
    "force": ("--force", "--force (rerunning what is on disk)"),
}


class ReproduceError(Exception):
    """A one-line error for the user; ``ccsim reproduce`` prints it and exits with 2."""


# --- the checkout -----------------------------------------------------------------------------


def _is_checkout(d: Path) -> bool:
    project = d / "pyproject.toml"
    if not (d / REPRODUCTIONS).is_dir() or not project.is_file():
        return False
    try:
        name = tomllib.loads(project.read_text(encoding="utf-8")).get("project", {}).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return name == "ccsim"


def find_checkout(start: Path, package_dir: Path | None) -> Path:
    """The ccsim source checkout holding ``start`` (the current directory), else the one
    holding ``package_dir`` (an editable install runs the package from its checkout)."""
    for origin in (start, package_dir):
        if origin is None:
            continue
        origin = origin.resolve()
        for d in (origin, *origin.parents):
            if _is_checkout(d):
                return d
    raise ReproduceError(
        "ccsim reproduce must be run inside a ccsim source checkout (a directory with "
        "docs/reproductions/ and a pyproject.toml naming ccsim): the reproductions are scripts "
        "of the repository, not of the installed package"
    )


# --- the scripts ------------------------------------------------------------------------------


def _child_env() -> dict[str, str]:
    """The environment of a script: this ccsim first on its path, so that it imports the
    package this command runs (an install elsewhere, or none, would give another result)."""
    env = dict(os.environ)
    here = Path(__file__).resolve().parent.parent
    parts = [str(here), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env


_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def script_options(root: Path, paper: str) -> set[str]:
    """The long options the paper's script takes, from its ``--help``."""
    script = REPRODUCTIONS / PAPERS[paper].script
    if not (root / script).is_file():
        raise ReproduceError(f"{paper}: {script.as_posix()} is missing from the checkout {root}")
    done = subprocess.run(
        [sys.executable, script.as_posix(), "--help"],
        cwd=root,
        env=_child_env(),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise ReproduceError(f"{paper}: `{script.as_posix()} --help` failed: {last}")
    return set(_OPTION.findall(done.stdout))


def script_argv(paper: str, args: argparse.Namespace, options: set[str]) -> list[str]:
    """The script's arguments for the options given; an option it lacks is refused."""
    given = {
        "quick": args.quick,
        "workers": args.workers is not None,
        "dask": args.dask is not None,
        "force": args.force,
    }
    argv: list[str] = []
    for key, on in given.items():
        if not on:
            continue
        flag, what = FLAGS[key]
        if flag not in options:
            takes = ", ".join(sorted(options & {f for f, _ in FLAGS.values()})) or "none of them"
            raise ReproduceError(
                f"{flag}: the {paper} reproduction does not take {what} (of ccsim reproduce's "
                f"options it takes: {takes})"
            )
        argv.append(flag)
        if key == "workers":
            argv.append(str(args.workers))
        elif key == "dask":
            argv.append(args.dask)
    return argv


def _stop(child: subprocess.Popen, grace_s: float) -> None:
    """Waits ``grace_s`` for the child to stop by itself, then terminates it, then kills it."""
    try:
        child.wait(grace_s)
        return
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        pass
    child.terminate()
    try:
        child.wait(5)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        child.kill()
        child.wait()


def run_script(root: Path, command: list[str]) -> tuple[int, bool]:
    """Runs ``command`` in ``root``; returns its exit status (128 + N for signal N) and whether
    this command was interrupted (it has said so then). Ctrl-C
    reaches the script from the terminal as well: it is given GRACE_S to keep what it finished
    and stop; SIGTERM to this command is passed on to it."""
    from .cli_sweep import Terminated, _sigterm_as_interrupt

    with _sigterm_as_interrupt():
        child = subprocess.Popen(command, cwd=root, env=_child_env())
        try:
            rc = child.wait()
        except Terminated:
            child.terminate()
            _stop(child, GRACE_S)
            print("terminated (SIGTERM)", file=sys.stderr)
            return EXIT_TERMINATED, True
        except KeyboardInterrupt:
            _stop(child, GRACE_S)
            print("interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED, True
    return (128 - rc if rc < 0 else rc), False


# --- the command ------------------------------------------------------------------------------


# A script declares --quick itself, or through the reproductions' shared parser (which always
# adds it: docs/reproductions/repro_grid.py).
_ADDS_QUICK = re.compile(r"""add_argument\(\s*["']--quick["']|\bparser\(\s*__doc__""")


def _quick_mode(root: Path, paper: str) -> str:
    """Whether the script declares ``--quick``, read from its source: running the five
    scripts' ``--help`` (each imports ccsim, pandas, matplotlib) would make the list slow."""
    try:
        source = (root / REPRODUCTIONS / PAPERS[paper].script).read_text(encoding="utf-8")
    except OSError:
        return "script missing"
    return "--quick" if _ADDS_QUICK.search(source) else "no --quick"


def listing(root: Path | None) -> str:
    """One line per paper: what it is, a full run's cost, and whether it has a quick mode
    (where a checkout was found)."""
    quick = {} if root is None else {p: _quick_mode(root, p) for p in PAPERS}
    width = max(map(len, PAPERS))
    lines = [
        f"{name:<{width}}  {p.about}; full run {p.cost}"
        + (f"; {quick[name]}" if name in quick else "")
        for name, p in PAPERS.items()
    ]
    if root is None:
        lines.append("(no ccsim source checkout here: run it inside one to see the options)")
    return "\n".join(lines)


def _stamps(paths: Sequence[Path]) -> dict[Path, int]:
    """Modification times of the files among ``paths``: what a run rewrote changes them."""
    return {p: p.stat().st_mtime_ns for p in paths if p.is_file()}


def _outputs(root: Path, paper: Paper) -> list[Path]:
    """The paper's report and every figure (a script names its own figures)."""
    return [root / REPRODUCTIONS / paper.report, *(root / REPRODUCTIONS / "figures").glob("*")]


def cmd_reproduce(args: argparse.Namespace) -> int:
    try:
        return _reproduce(args)
    except ReproduceError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE


def _reproduce(args: argparse.Namespace) -> int:
    root_or_none: Path | None
    if args.list or args.paper is None:
        if args.paper is not None:
            raise ReproduceError("--list: give either --list or a paper, not both")
        try:
            root_or_none = find_checkout(Path.cwd(), PACKAGE_DIR)
        except ReproduceError:
            root_or_none = None
        print(listing(root_or_none))
        return 0
    if args.workers is not None and args.workers < 1:
        raise ReproduceError(f"--workers: expected at least 1, got {args.workers}")
    root = find_checkout(Path.cwd(), PACKAGE_DIR)
    argv = script_argv(args.paper, args, script_options(root, args.paper))
    paper = PAPERS[args.paper]
    script = (REPRODUCTIONS / paper.script).as_posix()
    shown = " ".join(["python", script, *argv])
    print(f"running: {shown}  (in {root})", flush=True)
    before = _stamps(_outputs(root, paper))
    rc, interrupted = run_script(root, [sys.executable, script, *argv])
    if rc != 0:
        if not interrupted:
            print(f"error: `{shown}` exited with status {rc}", file=sys.stderr)
        return rc
    report = root / REPRODUCTIONS / paper.report
    written = {p for p, t in _stamps(_outputs(root, paper)).items() if before.get(p) != t}
    if report in written:
        print(f"report: {report.relative_to(root).as_posix()}")
        if len(written) > 1:
            print(f"figures: {len(written) - 1} written in {REPRODUCTIONS.as_posix()}/figures/")
    elif args.quick:
        print(f"quick mode: no report written (the full run writes {report.relative_to(root)})")
    else:
        print(f"note: {report.relative_to(root).as_posix()} was not rewritten by this run")
    return 0


def add_reproduce_parser(sub: argparse._SubParsersAction) -> None:
    names = ", ".join(PAPERS)
    sp = sub.add_parser(
        "reproduce",
        help="run a paper's reproduction (in a source checkout)",
        description="Runs the reproduction of one paper (its script "
        "docs/reproductions/<paper>/run.py in the ccsim source checkout holding the current "
        "directory) and writes its report and figures there. Without PAPER, or with --list: "
        "the papers. Options the paper's script does not take are refused.",
        epilog="A script's own options (e.g. ndca's --full-seeds) are in its -h: run it as "
        "`python docs/reproductions/<paper>/run.py ...` for those.",
    )
    sp.add_argument(
        "paper", nargs="?", choices=list(PAPERS), metavar="PAPER", help=f"one of: {names}"
    )
    sp.add_argument("--list", action="store_true", help="list the papers and what a run costs")
    sp.add_argument(
        "--quick", action="store_true", help="the script's quick mode: headline numbers only"
    )
    pool = sp.add_mutually_exclusive_group()
    pool.add_argument("--workers", type=int, metavar="N", help="local worker processes")
    pool.add_argument(
        "--dask", metavar="ADDRESS", help="run the grids on the Dask scheduler at ADDRESS"
    )
    sp.add_argument("--force", action="store_true", help="rerun what is already on disk")
    sp.set_defaults(func=cmd_reproduce)
