"""Setup of the paper 001 reproduction (``run.py``): paths, the grid's axes, the values they
take, and the paper's rankings as read from its text; shared by the runs, the figures and the
report."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "scenarios" / "ass-chain.toml"
SWEEP = ROOT / "scenarios" / "ass-sweep.toml"
RESULTS = ROOT / "results"
DOCS = ROOT / "docs" / "reproductions"
FIGURES = DOCS / "figures"
REPORT = DOCS / "ass.md"

# Axis paths of scenarios/ass-sweep.toml.
RATE = "topology.links[1].rate"
LOSS = "topology.links[1].loss.p"
IW = "flows.*.tcp.initial_window"
LIMIT = "topology.links.*.queue.limit"
ALG = "flows.*.tcp.slow_start.kind"
GRID = [RATE, LOSS, IW, LIMIT, ALG]

RATES = ["0.3Mbps", "10Mbps"]
LOSSES = [0.0, 0.2]
IWS = [2, "rfc3390"]
IFQS = [5, 15, 25, 50, 100, 200]  # the paper's IFQ; ccsim's limit is IFQ - 1
ALGS = ["limited", "ass2", "ass3", "ass4"]
ALG_NO = {"limited": 1, "ass2": 2, "ass3": 3, "ass4": 4}
ALG_LABEL = {"limited": "1: LSS", "ass2": "2: ASS2", "ass3": "3: ASS3", "ass4": "4: ASS4"}
ALG_COLOUR = {"limited": "tab:blue", "ass2": "tab:red", "ass3": "tab:green", "ass4": "tab:orange"}
IW_NAME = {2: "off", "rfc3390": "on"}
STARTUP = "5s"  # the start-up window
# Send jitter of the replicated lossless runs (``run.py``'s ``jitter_sweep``): each segment
# waits U(0, JITTER) before it leaves, ns-2's `overhead_`, drawn from the seeded flow stream.
JITTER = "1ms"
SEND_JITTER = "flows.*.tcp.send_jitter"
THROUGHPUT_BIN = "5s"  # goodput bins of the 250 s figures

# Two algorithms tie ("=") when their means differ by less than this fraction, or when the
# 95 % interval of their per-seed (paired) difference contains zero.
TIE = 0.005

# The paper's throughput rankings, read from its text (sections 4 and 5; the figures are not in
# the text copy): "a > b" better, "a = b" overlapping. ifq None: the paper says the IFQ size
# does not matter. An algorithm the paper does not place is left out.
CLAIMS: list[tuple[str, float, object, int | None, str, str]] = [
    ("0.3Mbps", 0.0, 2, 5, "3 > 2 > 1 = 4", "best 3; 1 and 4 overlap; 2 better than them"),
    ("0.3Mbps", 0.0, 2, 15, "2 > 1 > 3 = 4", "2, then 1, the rest follow"),
    ("0.3Mbps", 0.0, 2, 25, "2 > 4 > 3 > 1", "2, then 4 and 3; definitely worst 1"),
    ("0.3Mbps", 0.0, 2, 50, "2 > 1 > 3 = 4", "2, then 1; the rest similar, last"),
    ("0.3Mbps", 0.0, 2, 100, "2 > 1 > 3 > 4", "2, followed by 1, 3 and 4"),
    ("0.3Mbps", 0.0, 2, 200, "2 > 4 > 1 > 3", "2, then 4, then 1 and 3"),
    ("0.3Mbps", 0.0, "rfc3390", 5, "1 = 3 = 4 > 2", "worst 2; the others overlap"),
    ("0.3Mbps", 0.0, "rfc3390", 15, "2 > 4 > 1 > 3", "cwnd 2, 4, 1, 3; throughput similar"),
    ("0.3Mbps", 0.0, "rfc3390", 25, "2 > 3 > 1 > 4", "2, followed by 3, 1 and 4"),
    ("0.3Mbps", 0.0, "rfc3390", 50, "2 > 1 > 4 > 3", "2 dominates, then 1, 4, 3"),
    ("0.3Mbps", 0.0, "rfc3390", 100, "3 = 4 > 1 = 2", "best 3; (5.) 3 and 4 beat 1 and 2"),
    ("0.3Mbps", 0.0, "rfc3390", 200, "3 = 4 > 1 = 2", "best 3; (5.) 3 and 4 beat 1 and 2"),
    ("0.3Mbps", 0.2, 2, None, "3 = 4 > 2", "IFQ, IW irrelevant; 3 and 4 beat 2 mid-run"),
    ("0.3Mbps", 0.2, "rfc3390", None, "3 = 4 > 2", "IFQ, IW irrelevant; 3 and 4 beat 2 mid-run"),
    ("10Mbps", 0.0, 2, 5, "1 = 2 = 3 = 4", "all the same"),
    ("10Mbps", 0.0, 2, 15, "2 > 1 = 3 = 4", "best 2; minor variation for the rest"),
    ("10Mbps", 0.0, 2, 25, "2 > 4 > 3 > 1", "cwnd 2, then 4, 3 and 1"),
    ("10Mbps", 0.0, 2, 50, "1 > 2 > 4 > 3", "1 best, followed by 2, 4 and 3"),
    ("10Mbps", 0.0, 2, 100, "2 > 1 = 4 > 3", "2; 1 and 4 similar; worst 3"),
    ("10Mbps", 0.0, 2, 200, "2 > 3 > 1 > 4", "2, then 3, followed by 1 and 4"),
    ("10Mbps", 0.0, "rfc3390", 5, "1 = 3 = 4 > 2", "1, 3, 4 overlap; worst 2"),
    ("10Mbps", 0.0, "rfc3390", 15, "3 > 2 > 4 > 1", "3, followed by 2, 4 and 1"),
    ("10Mbps", 0.0, "rfc3390", 25, "4 > 3 > 2 > 1", "rank list 4, 3, 2, 1"),
    ("10Mbps", 0.0, "rfc3390", 50, "1 > 2 = 3 = 4", "1 outperforms 2, 3, 4"),
    ("10Mbps", 0.0, "rfc3390", 100, "2 > 1 = 3 = 4", "best 2"),
    ("10Mbps", 0.0, "rfc3390", 200, "3 = 4 > 1 = 2", "4 and 3 best"),
    ("10Mbps", 0.2, 2, None, "2 > 3 = 4 > 1", "IFQ irrelevant; 2, then 3 = 4; worst 1"),
    ("10Mbps", 0.2, "rfc3390", None, "2 > 3 = 4 > 1", "2, then 3 = 4; worst 1"),
]


def pretty_rate(rate: str) -> str:
    return rate.replace("Mbps", " Mb/s")
