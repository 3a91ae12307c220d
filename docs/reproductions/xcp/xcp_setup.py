"""Setup of the paper 004 reproduction (``run.py``): the path, the five variants, the three
traffic cases, the replication plan, and how one case becomes scenario overrides.

Sheela & Raja run ns-2 on a dumbbell with 10 Mb/s, 10 ms access links and a 10 Mb/s, 250 ms
bottleneck; everything else (buffers, ``Q_th``, TCP agents, flows) is ours and is stated in the
report. The base scenario is ``scenarios/xcp.toml`` (its golden digests pin it, so it stays as
it is); each case here is that file plus overrides that set everything the report states:
the profile, the queues, the flows and the traces.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "scenarios" / "xcp.toml"
DOCS = ROOT / "docs" / "reproductions"
FIGURES = DOCS / "figures"
REPORT = DOCS / "xcp.md"
TEMPLATE = Path(__file__).with_name("template.md")
RESULTS = ROOT / "results" / "xcp"  # git-ignored: the rows of the last full run

# The path (ns-2 profile: 1000-byte segments, 40 bytes of headers).
RATE_BPS = 10e6
MSS, WIRE = 1000, 1040
ONE_WAY_S = 0.010 + 0.250 + 0.010
BASE_RTT_S = 2 * ONE_WAY_S  # 540 ms of propagation; serialisation adds ~2.6 ms
BDP_PKTS = round(RATE_BPS * BASE_RTT_S / (8 * WIRE))  # 649 packets of 1040 B
MAX_GOODPUT_BPS = RATE_BPS * MSS / WIRE  # payload rate of a saturated link
RTT_BIN = "0.54s"  # goodput bins of one base RTT (the per-RTT time scale of the figures)
RTT_BIN_S = 0.54

DURATION_S = 200.0
STEADY_S = 50.0  # single flow: "steady" is from here on (past every variant's start-up)
TAIL_S = 100.0  # several flows: fairness over [TAIL_S, end), all flows long started

BUFFER = 650  # waiting packets on every queue: one bandwidth-delay product (XCP's rule)
QTH = BUFFER // 2  # Q_th: half the buffer (the paper gives none)
BUFFERS = [49, 163, 325, 650, 1300]  # ns-2's limit_ 50, then 1/4, 1/2, 1 and 2 BDP
QTH_SHARES = [0.025, 0.1, 0.25, 0.5, 0.75, 1.0]  # Q_th as a share of the buffer
FACTORS = [0.02, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98]  # high = low factor

# Several flows: N_FLOWS start GAP_S apart (plus jitter); in the "rtt" case the sender-side
# access links have these delays, for base RTTs of 540, 600, 680 and 840 ms.
N_FLOWS = 4
GAP_S = 15.0
RTT_DELAYS_MS = [10, 40, 80, 160]
JAIN_WINDOW_S = 5 * RTT_BIN_S  # trailing window of the index over time: five RTTs
JAIN_LEVEL = 0.95
JAIN_HOLD_S = 20.0  # "converged": at or above JAIN_LEVEL from then to the end (or 20 s)

# Replication: each replication r has seed r + 1 and draws every flow's start jitter (uniform
# in [0, START_JITTER_S)) from its own generator; every segment waits up to SEND_JITTER (ns-2's
# overhead_) before it leaves, so drop-tail runs do not hinge on sub-millisecond phase.
REPLICATIONS = 10
SENS_REPLICATIONS = 3
QUICK_REPLICATIONS = 3
START_JITTER_S = 1.0
SEND_JITTER = "0.1ms"

# TCP agents: ns-2 with window_ raised to 10,000 packets (and so the initial ssthresh, as
# ns-2's reset() makes it), and SACK recovery (ns-2's high-speed studies run
# Agent/TCP/Sack1; BIC in ns-2 is a Linux module on SACK).
RWND = 10_000 * MSS
INITIAL_SSTHRESH = 10_000
RECOVERY = "sack"
PROFILE = "ns2"

PRINTED = (0.02, 0.05)  # (high_factor, low_factor) as printed: the new window's share of AR·RTT
CUT = (0.98, 0.95)  # the cut reading: cwnd·(1 − f), the window keeps 98 % / 95 %

VARIANTS = ["highspeed", "bic", "xcp", "wa-printed", "wa-cut"]
LABEL = {
    "highspeed": "HighSpeed",
    "bic": "BIC",
    "xcp": "XCP",
    "wa-printed": "XCP + WA (printed 0.02/0.05)",
    "wa-cut": "XCP + WA (cut reading 0.98/0.95)",
}
SHORT = {
    "highspeed": "HighSpeed",
    "bic": "BIC",
    "xcp": "XCP",
    "wa-printed": "WA printed",
    "wa-cut": "WA cut",
}
COLOUR = {
    "highspeed": "tab:orange",
    "bic": "tab:green",
    "xcp": "tab:blue",
    "wa-printed": "tab:red",
    "wa-cut": "tab:purple",
}
CASES = {
    "single": "one flow",
    "same": f"{N_FLOWS} flows, equal RTTs, starts {GAP_S:.0f} s apart",
    "rtt": f"{N_FLOWS} flows, RTTs 540-840 ms, starts {GAP_S:.0f} s apart",
}


@dataclass(frozen=True)
class Case:
    """One run: a traffic case, a variant, and the settings the sensitivity varies."""

    case: str = "single"  # "single", "same" or "rtt"
    variant: str = "xcp"
    rep: int = 0
    buffer: int = BUFFER
    qth: int | None = None  # None: half the buffer
    factors: tuple[float, float] | None = None  # None: the variant's own
    every: str = "rtt"  # how often the window adjustment may apply: "rtt" or "ack"
    recovery: str = RECOVERY
    profile: str = PROFILE
    packets: bool = False  # trace the bottleneck's packets (figures only: ~10 s a run)

    def with_(self, **kw) -> Case:
        return replace(self, **kw)

    @property
    def n_flows(self) -> int:
        return 1 if self.case == "single" else N_FLOWS

    @property
    def q_th(self) -> int:
        return self.buffer // 2 if self.qth is None else self.qth

    @property
    def xcp(self) -> bool:
        return self.variant not in ("highspeed", "bic")


def starts(case: Case) -> list[float]:
    """Flow start times: GAP_S apart, each plus its replication's uniform jitter."""
    rng = np.random.default_rng(1000 + case.rep)
    jitter = rng.uniform(0.0, START_JITTER_S, size=case.n_flows)
    return [round(i * GAP_S + float(j), 6) for i, j in enumerate(jitter)]


def congestion_control(case: Case):
    if not case.xcp:
        return case.variant
    if case.variant == "xcp":
        return "xcp"
    high, low = case.factors or (PRINTED if case.variant == "wa-printed" else CUT)
    cc = {"kind": "xcp", "window_adjustment": True, "high_factor": high, "low_factor": low}
    if case.every != "rtt":
        cc["adjust_every"] = case.every
    return cc


def queue(case: Case) -> dict:
    if not case.xcp:
        return {"kind": "droptail", "limit": case.buffer}
    q = {"kind": "xcp", "limit": case.buffer}
    if case.variant != "xcp":
        q["congestion_threshold"] = case.q_th
    return q


def overrides(case: Case) -> dict:
    """The scenario overrides of one run of ``scenarios/xcp.toml``. Every link (access and
    bottleneck) gets the same queue: XCP's routers must see the first hop, where a lone flow's
    queue forms with access links as fast as the bottleneck."""
    tcp = {
        "cc": congestion_control(case),
        "rwnd": RWND,
        "initial_ssthresh": INITIAL_SSTHRESH,
        "recovery": case.recovery,
        "send_jitter": SEND_JITTER,
    }
    flows = [
        {
            "kind": "tcp",
            "name": f"f{i}",
            "src": f"s{i}",
            "dst": f"d{i}",
            "start": f"{t}s",
            "tcp": dict(tcp),
        }
        for i, t in enumerate(starts(case))
    ]
    q = queue(case)
    out = {
        "defaults": case.profile,
        "topology.pairs": case.n_flows,
        "topology.access.queue": q,
        "topology.bottleneck.queue": q,
        "flows": flows,
        "trace.series": ["cwnd", "throughput", "queue"],
        "trace.throughput_bin": RTT_BIN,
        "trace.interval": "100ms",
    }
    if case.case == "rtt":
        out["topology.left"] = [{"delay": f"{d}ms"} for d in RTT_DELAYS_MS]
    if case.packets:
        out["trace.packets"] = ["bottleneck"]
    return out


# The paper's claims (section, the statement, the paper's number).
CLAIMS = [
    ("wa98-printed", "§4, §5", "XCP with the window adjustment achieves 98 % efficiency", "98 %"),
    ("wa98-cut", "§4, §5", "the same claim, factors read as the cut", "98 %"),
    ("xcp98", "§4 a)", "XCP shows 98 % throughput compared with the other TCPs", "98 %"),
    ("hs-bic90", "§4 b)", "HSTCP and BIC achieve about 90 %", "90 %"),
    (
        "bic-gt-hs",
        "§4 b)",
        "BIC is finer than HSTCP, with smaller drops, and more throughput",
        "qualitative",
    ),
    (
        "hs-drastic",
        "§4 b), Fig. 5",
        "HSTCP's window falls drastically when congestion occurs",
        "qualitative",
    ),
    (
        "xcp-linear",
        "§4 b), Fig. 7",
        "XCP eradicates the vagaries of HSTCP and BIC; its plot is almost linear",
        "qualitative",
    ),
    (
        "wa-not-drastic",
        "§3",
        "with the window adjustment there are no drastic changes in the window size",
        "qualitative",
    ),
    (
        "wa-throughput",
        "§3",
        "the window adjustment minimises transfer time and maximises throughput",
        "qualitative",
    ),
    (
        "xcp-fair",
        "§2.1",
        "XCP achieves fair bandwidth allocation, a small standing queue and near-zero drops",
        "qualitative",
    ),
    ("hs-packets", "§4 b)", "in HSTCP, 10,000 packets are transmitted in 0-200 s", "10,000"),
]
