"""Setup of the paper 003 reproduction (``run.py``): paths, sweep files and their axis paths,
the path's constants, and the paper's claims; shared by the runs and the report."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "scenarios" / "ndca.toml"
GRID = ROOT / "scenarios" / "ndca-sweep.toml"
SENSITIVITY = ROOT / "scenarios" / "ndca-sensitivity-sweep.toml"
FAIR_BASE = ROOT / "scenarios" / "ndca-fairness.toml"
FAIR_GRID = ROOT / "scenarios" / "ndca-fairness-sweep.toml"
RESULTS = ROOT / "results"
GRID_OUT = RESULTS / "ndca"  # the main and the sensitivity grid share their points here
FAIR_OUT = RESULTS / "ndca-fairness"  # one saved run (with traces) per point
DOCS = ROOT / "docs" / "reproductions"
FIGURES = DOCS / "figures"
REPORT = DOCS / "ndca.md"

BOTTLENECK = "n2-n3:n2->n3"  # the forward bottleneck queue, as traces label it

# Axis paths of the sweep files.
LOSS = "topology.links[2].loss.p"
CC = "flows[0].tcp.cc"
LIMIT = "topology.links.*.queue.limit"
RECOVERY = "flows[0].tcp.recovery"
FAIR_CC = "flows[kind=tcp].tcp.cc"
START2 = "flows[1].start"

LOSSES = [1e-4, 1e-5, 1e-6, 1e-7]
ALGS = ["ndca", "highspeed"]  # flow names in the grids (the flow is named after its algorithm)
ALG_LABEL = {"ndca": "NDCA-TCP", "highspeed": "HS-TCP"}
ALG_COLOUR = {"ndca": "tab:blue", "highspeed": "tab:orange"}
BUFFERS = [500, 2000, 8500]  # DropTail limits of the sensitivity grid, waiting packets
MAIN_BUFFER = 8500
RECOVERIES = ["reno", "sack"]
MAIN_RECOVERY = "reno"
STARTS = ["20s", "0s"]  # start of the second flow in the fairness runs

# The path. Packets are 1460 B of payload + 40 B of headers.
MSS, WIRE = 1460, 1500
LINK_BPS = 1e9
BASE_RTT_S = 2 * (0.001 + 0.001 + 0.049)  # propagation only; serialisation adds ~0.03 ms
BDP_PKTS = round(LINK_BPS * BASE_RTT_S / (8 * WIRE))  # 8500 packets of 1500 B
MAX_GOODPUT_BPS = LINK_BPS * MSS / WIRE  # payload rate of a saturated 1 Gb/s link

# Durations: the grid's runs, and the prefix ("start-up") grid: the same runs cut at
# STARTUP_S. Runs are deterministic given the seed, so a run cut at 20 s is the first 20 s of
# the full run, and bytes(120 s) - bytes(20 s) is what the full run delivered after its
# start-up (both algorithms are past their start-up by then: see the report's Fig. 5).
DURATION_S = 120.0
DURATION_LABEL = "120 s"
PAPER_DURATION_S = 1800.0
STARTUP_S = 20.0
FIG5_S = 50.0  # the length of the paper's Fig. 5
FIG5_LOSS = 1e-5
FAIR_LOSS = 1e-5
JAIN_WINDOW_S = 5.0  # trailing window of the Jain-over-time figure (1 s throughput bins)
JAIN_LEVEL = 0.95  # "converged": the index of the 1 s bins at or above this
# Fig. 6 as the paper ran it: the grid at 30 simulated minutes, seeds 1 ... FULL_SEEDS, each
# seed its own sweep (so an interrupted run keeps whole seeds, and --full-seeds can stop early).
FULL_OUT = RESULTS / "ndca-full"
FULL_SEEDS = 10


def loss_label(p: float) -> str:
    """``1e-4`` for 0.0001: how the paper writes its loss rates."""
    return f"1e{round(math.log10(p))}"


def alg_of(cc) -> str:
    return (
        "ndca"
        if (cc == "ndca" or (isinstance(cc, dict) and cc.get("kind") == "ndca"))
        else ("highspeed")
    )


def start_label(start: str) -> str:
    return "with the first" if float(start.rstrip("s")) == 0 else f"at {start[:-1]} s"


def hs_response_bps(p: np.ndarray) -> np.ndarray:
    """RFC 3649's response function w = 0.12 / p^0.835 segments, as goodput at the base RTT."""
    return 0.12 / np.power(p, 0.835) * MSS * 8 / BASE_RTT_S
