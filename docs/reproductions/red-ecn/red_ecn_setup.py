"""Setup of the paper 002 reproduction (``run.py``): paths, sweep paths, the paper's
tables and the metrics reported; shared by the runs and the report."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "scenarios" / "red-ecn.toml"
GRID = ROOT / "scenarios" / "red-ecn-sweep.toml"
READINGS = ROOT / "scenarios" / "red-ecn-readings-sweep.toml"
BYTES = ROOT / "scenarios" / "red-ecn-bytes-sweep.toml"  # the grid with RED in byte mode
QUICK_SEEDS = 3  # seeds of each grid in the quick mode (--quick), whose numbers CI checks
RESULTS = ROOT / "results"
DOCS = ROOT / "docs" / "reproductions"
FIGURES = DOCS / "figures"
REPORT = DOCS / "red-ecn.md"

CC, RECOVERY = "flows[kind=tcp].tcp.cc", "flows[kind=tcp].tcp.recovery"
QUEUE, ECN = "topology.bottleneck.queue", "flows[kind=tcp].tcp.ecn"
RATE, MSS = "topology.bottleneck.rate", "flows[kind=tcp].tcp.mss"
RWND, START = "flows[kind=tcp].tcp.rwnd", "flows.ftp1.start"
BOTTLENECK = "bottleneck:left->right"  # the forward bottleneck queue, as traces label it
EARLY_S = 15  # the start-up phase, while RED's average (≈ 10 s time constant) settles

VARIANTS = {
    ("reno", "reno"): "Reno",
    ("reno", "newreno"): "NewReno",
    ("reno", "sack"): "SACK",
    ("vegas", "newreno"): "Vegas",
}
VARIANT_ORDER = list(VARIANTS.values())
QUEUES = ["DropTail", "RED", "RED + ECN"]
LOSS_BASED = ["Reno", "NewReno", "SACK"]

# The paper's Tables 2-4 (packets received, dropped, average queue, overall bit/s, average
# Mb/s). Which queue each table is, is our reading (see the report): Table 2 "Without ECN"
# is DropTail, Table 3 "With ECN" is RED + ECN, Table 4 (untitled) is RED.
PAPER = {
    "DropTail": {
        "Reno": (3757320, 7920, 28.9, 300585600, 100.19),
        "NewReno": (3752040, 8400, 25.1, 300163200, 100.05),
        "SACK": (3757320, 5760, 23, 300585600, 100.19),
        "Vegas": (3729600, 0, 6, 298368000, 99.45),
    },
    "RED + ECN": {
        "Reno": (3752040, 1920, 28, 300163200, 100.05),
        "NewReno": (3751800, 3120, 26.4, 300144000, 100.04),
        "SACK": (3752040, 2640, 26.3, 300163200, 100.05),
        "Vegas": (3729600, 0, 6, 298368000, 99.45),
    },
    "RED": {
        "Reno": (3777640, 73840, 8.5, 302211200, 100.7),
        "NewReno": (3850440, 78000, 6.8, 308035200, 102.6),
        "SACK": (3275320, 61360, 5.2, 262025600, 87.3),
        "Vegas": (3766000, 1000, 7, 301280000, 100.4),
    },
}
PAPER_TABLE = {"DropTail": "Table 2", "RED + ECN": "Table 3", "RED": "Table 4"}

# Per-point metrics: name → (column heading, digits).
METRICS = {
    "received": ("packets received", 0),
    "arrivals": ("bottleneck arrivals", 0),
    "dropped": ("packets dropped", 1),
    "avg_queue": ("average queue (packets)", 2),
    "overall_bps": ("overall throughput (bit/s)", 0),
    "avg_mbps": ("average throughput (Mb/s)", 4),
    "drops_overflow": ("overflow drops", 1),
    "drops_early": ("early drops", 1),
    "drops_forced": ("forced drops", 1),
    "marks": ("CE marks", 1),
    "ecn_reductions": ("ECN reductions", 1),
    "retransmits": ("retransmissions", 1),
    "timeouts": ("timeouts", 1),
    "utilisation": ("utilisation", 4),
    "jain": ("Jain index", 3),
    "red_avg": ("RED average after 20 s, seed 1", 2),
}


# --- running ----------------------------------------------------------------------------------
