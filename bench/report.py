"""Formatting of benchmark rows, the saved runs they are compared with, and the child
processes that measure them."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

COLUMNS = (
    f"{'id':<3}{'sim s':>7}{'delivered':>12}{'wall s':>9}{'spread':>15}{'pkt/s':>12}"
    f"{'ev/pkt':>8}{'MiB heap':>9}{'MiB RSS':>8}{'B/flow':>8}{'B/pkt':>7}{'vs last':>9}"
)


def machine() -> str:
    """The processor and how many cores: two sessions' runs are comparable only on the same
    one (machines of one class differ by 20 % and more: docs/performance.md)."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine()
    kind = ", ".join(f"{k} {fields[k]}" for k in ("cpu family", "model", "stepping") if k in fields)
    return f"{name} ({kind}), {os.cpu_count()} cores" if kind else f"{name}, {os.cpu_count()} cores"


def history_ref(folder: Path, mode: str, build: str, on: str) -> dict | None:
    """The most recent saved run of ``mode`` ("quick" or "full") by a core built the same way
    (``ccsim._native.build()``: a profile-guided build is compared only with another; runs
    saved before the build was recorded were plain release builds) on the same machine
    (``machine()``; runs saved before it was recorded match none), or None. Most recent: by
    the time it was saved, or for files from before that was recorded, by the date in their
    name (which sorts before any time of that day). Names alone do not order runs saved on one
    day: the commit follows the date."""
    files = sorted(folder.glob(f"*-{mode}.json")) if folder.is_dir() else []
    runs = [json.loads(f.read_text()) | {"file": f.name} for f in files]
    runs = [r for r in runs if r.get("build", "release") == build and r.get("machine") == on]
    return max(runs, key=lambda r: r.get("saved") or r["file"][:10], default=None)


def rate(r: dict) -> float:
    return r["delivered"] / r["wall_s"]


def row_line(i: str, r: dict, ref: dict | None) -> str:
    per_flow = r["heap_built_bytes"] / r["flows"]
    # Growth past the built state, per packet at the network's peak: an upper bound on the
    # per-packet cost, since windows, scoreboards and the event heap grow with it.
    grown = max(r["heap_peak_bytes"] - r["heap_built_bytes"], 0)
    per_pkt = grown / max(r["packets_peak"], 1)
    last = "—"
    if ref and i in ref["rows"]:
        last = f"{rate(r) / rate(ref['rows'][i]['ccsim']):.2f}×"
    spread = f"{r['wall_min_s']:.3f}–{r['wall_max_s']:.3f}"
    return (
        f"{i:<3}{r['sim_s']:>7.1f}{r['delivered']:>12,}{r['wall_s']:>9.3f}{spread:>15}"
        f"{rate(r):>12,.0f}{r['events'] / max(r['delivered'], 1):>8.2f}"
        f"{r['heap_peak_bytes'] / 2**20:>9.1f}{r['rss_peak_kib'] / 1024:>8.1f}"
        f"{per_flow:>8,.0f}{per_pkt:>7,.0f}{last:>9}"
    )


def print_table(rows: dict[str, dict], ref: dict | None, header: str | None) -> None:
    """Prints the rows, after a header naming the core's build if ``header`` is that build."""
    if header:
        where = f" (vs last: {ref['file']})" if ref else " (no saved run of this build here)"
        print(f"ccsim ({header} build), median wall time{where}")
        print(COLUMNS)
    for i, r in rows.items():
        print(row_line(i, r["ccsim"], ref))


def _agree(a: float, b: float) -> str:
    if b == 0:
        return "n/a" if a == 0 else "∞"
    return f"{(a - b) / b:+.1%}"


def compare_line(i: str, c: dict, n: dict) -> str:
    """Speed ratio and how far goodput, drops and Jain's index agree, ccsim against ns-3."""
    return (
        f"    ns-3: {n['delivered']:,} delivered in {n['wall_s']:.2f} s = {rate(n):,.0f} pkt/s;"
        f" ccsim is {rate(c) / rate(n):,.0f}× faster. Goodput {c['goodput_bps'] / 1e6:.2f} vs"
        f" {n['goodput_bps'] / 1e6:.2f} Mb/s ({_agree(c['goodput_bps'], n['goodput_bps'])}),"
        f" bottleneck drops {c['drops']:,} vs {n['drops']:,}"
        f" ({_agree(c['drops'], n['drops'])}), Jain {c['jain']:.3f} vs {n['jain']:.3f}"
    )


def child_json(script: Path, args: list[str], what: str) -> dict:
    """Runs ``script --child ARGS`` in a fresh process (each run's peaks its own, and one ns-3
    simulator a process) and returns the JSON of its last line; exits naming ``what`` if it
    fails."""
    cmd = [sys.executable, str(script), "--child", *args]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{what} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])
