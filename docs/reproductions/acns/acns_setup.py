"""Setup of the seed paper 000 reproduction (``run.py``): paths, the paper's numbers, the
scenario variants (ACNS or not, weights, profile, TCP variant, buffer, last-mile rate) and the
replications; shared by the runs, the statistics, the figures and the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import ccsim
import numpy as np

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "scenarios" / "acns.toml"
RESULTS = ROOT / "results"
DOCS = ROOT / "docs" / "reproductions"
FIGURES = DOCS / "figures"
REPORT = DOCS / "acns.md"
TEMPLATE = Path(__file__).with_name("template.md")

TCP = ("tcp1", "tcp2", "tcp3")
TCP_START_S = (0.1, 15.1, 30.1)  # Table 4
# Every flow runs from 40.1 s (Table 5): shares "from 41 s" start at the next whole bin.
ALL_RUNNING_S = 41.0

RATE = "4Mbps"
RATES = ("2Mbps", "3Mbps", "4Mbps", "6Mbps")
BUFFER = 50  # packets: ns-2's default `limit_`
BUFFERS = (25, 50, 100, 300)
PROFILES = ("ns2", "linux")
HEADLINE = "ns2"  # the profile of the headline numbers (the paper ran ns-2; the report says why)
# A receive window large enough never to limit: ns-2's `window_` 20 (the ns2 profile's 20 000 B)
# caps a flow at 20 packets per RTT, 0.48 Mb/s at 0.33 s, under Table 6's 3 Mb/s maxima, so
# the paper's script must have raised it; Linux autotunes up to tcp_rmem's 6 MB.
RWND = 6 * 1024 * 1024

# Replications: each TCP flow's start shifted by U(0, START_SHIFT_S), drawn per replication
# from a generator seeded with SHIFT_SEED (the same shifts for every configuration, so each
# replication pairs ACNS with no ACNS); the runs are otherwise deterministic.
REPLICATIONS = 20
START_SHIFT_S = 0.150
SHIFT_SEED = 2014
# The check of the replication method: no shift, 1 ms of send jitter on the TCP flows (ns-2's
# `overhead_`), seeds 1..REPLICATIONS.
SEND_JITTER = "1ms"

# The ACNS variants of the main comparison.
VARIANTS = {
    "no ACNS": {"acns": False},
    "ACNS, intended weights": {},
    "ACNS, printed weights": {"weight": "printed"},
    "ACNS, every packet asks": {"request": "every-packet"},
}
NONE, ACNS = "no ACNS", "ACNS, intended weights"
# TCP variants (congestion control, loss recovery); the profile's own recovery for CUBIC is
# "newreno" (ns2) or "sack" (linux, with PRR, RACK-TLP and the kept scoreboard).
CCS = (("cubic", "sack"), ("cubic", "newreno"), ("reno", "sack"), ("reno", "newreno"))
PROFILE_RECOVERY = {"ns2": "newreno", "linux": "sack"}

# The paper's Tables 6-9 (RTTs printed in "s" are milliseconds), flows #1-#3, and Table 10.
PAPER = {
    NONE: {
        "avg": (0.8, 0.4, 0.2),
        "max": (2.7, 2.1, 1.8),
        "rtt": (0.377, 0.377, 0.316),
        "rtt_max": (0.973, 1.230, 0.335),
        "mb": (11.78, 6.15, 2.89),
        "loss": (110, 86, 40),
    },
    ACNS: {
        "avg": (0.3, 0.7, 1.0),
        "max": (3.0, 3.0, 3.0),
        "rtt": (0.327, 0.329, 0.332),
        "rtt_max": (0.468, 0.484, 0.406),
        "mb": (4.4, 11.26, 14.33),
        "loss": (0, 2, 0),
    },
}
PAPER_TABLE10 = {"thr": 44.5, "rtt": -7.1, "mb": 44.0}


@dataclass(frozen=True)
class Config:
    """One configuration of the paper's scenario; ``slug`` names its results directory."""

    profile: str = HEADLINE
    variant: str = ACNS
    cc: str = "cubic"
    recovery: str | None = None  # None: the profile's own
    buffer: int = BUFFER
    rate: str = RATE

    @property
    def acns(self) -> bool:
        return self.variant != NONE

    @property
    def slug(self) -> str:
        v = {NONE: "off", ACNS: "on", "ACNS, printed weights": "printed"}.get(self.variant, "every")
        rec = self.recovery or PROFILE_RECOVERY[self.profile]
        return f"{self.profile}-{v}-{self.cc}-{rec}-q{self.buffer}-{self.rate}"

    def pair(self) -> tuple[Config, Config]:
        """This configuration without and with ACNS (intended weights)."""
        return (
            Config(self.profile, NONE, self.cc, self.recovery, self.buffer, self.rate),
            Config(self.profile, ACNS, self.cc, self.recovery, self.buffer, self.rate),
        )


def limit(profile: str, buffer: int) -> int:
    """ccsim's queue limit for a buffer of ``buffer`` packets: ns-2's DropTail (and the paper's
    ACNS queue, built on it) with `limit_ N` holds N − 1 waiting packets (algorithms.md §10.5),
    Linux's qdisc limit counts waiting packets."""
    return buffer - 1 if profile == "ns2" else buffer


def scenario(
    rate: str = RATE,
    acns: bool = True,
    weight: str | None = None,
    request: str | None = None,
    profile: str = HEADLINE,
    cc: str = "cubic",
    recovery: str | None = None,
    buffer: int = BUFFER,
) -> dict:
    """The paper's scenario with every router port ACNS (or DropTail), the last mile at
    ``rate``, ``buffer`` packets per port, the ``profile``'s defaults and the TCP flows running
    ``cc`` with ``recovery`` (None: the profile's)."""
    s = ccsim.load(SCENARIO)  # a fresh dict each call
    s["defaults"] = profile
    for link in s["topology"]["links"]:
        if link["name"].startswith("last-mile"):
            link["rate"] = rate
        link["queue"]["limit"] = limit(profile, buffer)
        if not acns:
            link["queue"] = {"kind": "droptail", "limit": link["queue"]["limit"]}
        elif weight:
            link["queue"]["weight"] = weight
    for f in s["flows"]:
        if f["kind"] != "tcp":
            continue
        f["tcp"]["cc"] = cc
        f["tcp"]["rwnd"] = RWND
        if recovery:
            f["tcp"]["recovery"] = recovery
        if not acns:
            del f["tcp"]["acns"]
        elif request:
            f["tcp"]["acns"] = {"request": request}
    return s


def config_scenario(c: Config) -> dict:
    kw = VARIANTS[c.variant]
    return scenario(
        c.rate, kw.get("acns", True), kw.get("weight"), kw.get("request"), c.profile, c.cc,
        c.recovery, c.buffer,
    )  # fmt: skip


def start_shifts(replications: int = REPLICATIONS) -> np.ndarray:
    """replications x 3 start-time shifts (s) of the TCP flows, U(0, START_SHIFT_S)."""
    return np.random.default_rng(SHIFT_SEED).uniform(0.0, START_SHIFT_S, (replications, 3))


def shifted_sweep(c: Config, replications: int = REPLICATIONS) -> ccsim.Sweep:
    """``c`` replicated: one point per row of ``start_shifts``, the TCP starts zipped."""
    shifts = start_shifts(replications)
    zipped = {
        f"flows[{i}].start": [f"{t0 + dt:.4f}s" for dt in shifts[:, i]]
        for i, t0 in enumerate(TCP_START_S)
    }
    s = config_scenario(c)
    s["trace"] = {"series": ["throughput"], "throughput_bin": "1s"}
    return ccsim.Sweep(s, zipped=[zipped], name=f"acns-{c.slug}")


def jitter_sweep(c: Config, replications: int = REPLICATIONS) -> ccsim.Sweep:
    """``c`` replicated the other way: the paper's start times, send jitter, seeds 1..N."""
    s = config_scenario(c)
    s["trace"] = {"series": ["throughput"], "throughput_bin": "1s"}
    for f in s["flows"]:
        if f["kind"] == "tcp":
            f["tcp"]["send_jitter"] = SEND_JITTER
    return ccsim.Sweep(s, replications=replications, name=f"acns-jitter-{c.slug}")


def configs() -> dict[str, list[Config]]:
    """Every replicated configuration, by experiment (a configuration may serve several)."""
    out: dict[str, list[Config]] = {"main": [], "cc": [], "buffers": [], "rates": []}
    for p in PROFILES:
        out["main"] += [Config(p, v) for v in VARIANTS]
        for cc, rec in CCS:
            # The profile's own recovery is left unset: the same run as the main comparison's.
            own = None if rec == PROFILE_RECOVERY[p] else rec
            out["cc"] += list(Config(p, cc=cc, recovery=own).pair())
        for b in BUFFERS:
            out["buffers"] += list(Config(p, buffer=b).pair())
            if p == HEADLINE:  # the headline profile with SACK, the claims table's middle view
                out["buffers"] += list(Config(p, recovery="sack", buffer=b).pair())
        for r in RATES:
            out["rates"] += list(Config(p, rate=r).pair())
    return out
