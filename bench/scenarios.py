"""The benchmark scenarios of docs/performance.md, as ccsim scenario dicts.

Every scenario is a dumbbell: ``flows`` sender/receiver pairs, one bottleneck, access links at
ten times the bottleneck rate, 1500-byte packets (MSS 1448 with timestamps, the Linux profile).
Flow ``i`` of ``n`` starts at ``i/n`` seconds, so all start within the first second, at the same
times in ccsim and ns-3. The one-way delays put the base RTT at the table's value:
RTT = 2 · (2 · access delay + bottleneck delay).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Bench:
    id: str
    flows: int
    cc: str  # "newreno" or "cubic"
    rate: str  # bottleneck rate, ccsim units
    rate_bps: float
    access_delay_s: float
    bottleneck_delay_s: float
    queue: int  # limit of the bottleneck's queue, packets
    duration_s: float
    aqm: str = "droptail"  # the bottleneck's queue discipline (its other settings: defaults)
    # "tcp" (bulk transfers, `cc`), or "cbr": constant-rate UDP sources sharing half the
    # bottleneck's rate (bench/scaling.py; ns-3 has no peer for it here)
    traffic: str = "tcp"

    @property
    def rtt_s(self) -> float:
        return 2 * (2 * self.access_delay_s + self.bottleneck_delay_s)

    def scaled(self, duration_s: float) -> Bench:
        """The same scenario over a different simulated duration (the quick benchmark)."""
        return replace(self, duration_s=duration_s)


SCENARIOS: dict[str, Bench] = {
    b.id: b
    for b in [
        Bench("a", 1, "newreno", "10Mbps", 10e6, 1e-3, 18e-3, 100, 60.0),
        Bench("b", 10, "cubic", "100Mbps", 100e6, 1e-3, 18e-3, 250, 60.0),
        Bench("c", 100, "cubic", "1Gbps", 1e9, 1e-3, 18e-3, 1000, 20.0),
        Bench("H", 10, "newreno", "10Gbps", 10e9, 5e-6, 40e-6, 100, 5.0),
        Bench("S", 10_000, "cubic", "10Gbps", 10e9, 1e-3, 18e-3, 10_000, 5.0),
    ]
}

# The same with an AQM at the bottleneck (RED and CoDel with the Linux profile's defaults), to
# measure the AQM paths: RED's decisions on the express path (net/express_red.rs), CoDel's on
# the general one. Run when named (`python bench/run.py bR cR bC`); ns-3 has no peer for them.
AQM_SCENARIOS: dict[str, Bench] = {
    f"{base}{tag}": replace(SCENARIOS[base], id=f"{base}{tag}", aqm=aqm)
    for base in ("b", "c")
    for tag, aqm in (("R", "red"), ("C", "codel"))
}

# ccsim's name for each algorithm. NewReno's congestion control is Reno's AIMD; the sender is
# SACK-capable (RFC 6675 recovery), as ns-3's TcpNewReno is with its default SACK option.
CC = {"newreno": "reno", "cubic": "cubic"}


def _secs(s: float) -> str:
    return f"{s * 1e6:.0f}us"


def ccsim_scenario(b: Bench, seed: int = 1) -> dict:
    """The ccsim scenario dict of benchmark ``b``: tracing off, Linux defaults."""
    access_rate = f"{b.rate_bps * 10:.0f}bps"
    return {
        "name": f"bench-{b.id}",
        "duration": f"{b.duration_s}s",
        "seed": seed,
        "defaults": "linux",
        "topology": {
            "kind": "dumbbell",
            "pairs": b.flows,
            "bottleneck": {
                "rate": b.rate,
                "delay": _secs(b.bottleneck_delay_s),
                "queue": {"kind": b.aqm, "limit": b.queue},
            },
            "access": {"rate": access_rate, "delay": _secs(b.access_delay_s)},
        },
        "flows": [_flow(b, i) for i in range(b.flows)],
        "trace": {"series": []},
    }


def _flow(b: Bench, i: int) -> dict:
    """Flow ``i`` of benchmark ``b``: a bulk TCP transfer, or a CBR source (``traffic``)."""
    flow = {
        "name": f"f{i}",
        "src": f"s{i}",
        "dst": f"d{i}",
        "start": f"{i / b.flows:.9f}s",
    }
    if b.traffic == "cbr":
        return {"kind": "cbr", **flow, "rate": f"{b.rate_bps / 2 / b.flows:.0f}bps"}
    return {"kind": "tcp", **flow, "tcp": {"cc": CC[b.cc], "recovery": "sack"}}
