"""Linux's receiver ACK policy (`tcp.receiver_quickack`, `tcp/quickack.rs`): quick-ACK mode
acknowledges the first 16 segments one by one, then every second; with the option off the
receiver follows RFC 1122's every second segment from the start. Both engines agree."""

from __future__ import annotations

import ccsim
import pytest

pytest.importorskip("ccsim._core")


def acks_for(segments: int, quickack: bool, engine: str) -> tuple[int, float]:
    """ACKs (SYN-ACK excluded) the receiver sends for a flow of `segments` full segments on a
    clean 10 Mb/s, 20 ms path, and the flow's completion time."""
    r = ccsim.run(
        {
            "name": "quickack",
            "duration": 5,
            "engine": engine,
            "topology": {
                "kind": "dumbbell",
                "pairs": 1,
                "bottleneck": {"rate": "10Mbps", "delay": "8ms"},
            },
            "flows": [
                {
                    "kind": "tcp",
                    "name": "f",
                    "src": "s0",
                    "dst": "d0",
                    "size": segments * 1448,
                    "tcp": {"receiver_quickack": quickack, "initial_window": 32},
                }
            ],
            "trace": {"packets": ["bottleneck"]},
        }
    )
    p = r.packets
    acks = p[(p["event"] == "+") & (p["kind"] == "ack") & ~p["flags"].str.contains("SYN")]
    return len(acks), float(r.flows["completion_s"].iloc[0])


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_the_first_sixteen_segments_are_acknowledged_one_by_one(engine):
    # 20 segments sent in one window: quick ACKs for 16, then one for every second of the
    # last 4; RFC 1122's receiver sends one for every second of the 20.
    assert acks_for(20, True, engine)[0] == 16 + 2
    assert acks_for(20, False, engine)[0] == 10
    # 21 segments: the odd last one waits for the delayed-ACK timer under both policies.
    assert acks_for(21, True, engine)[0] == 16 + 3
    assert acks_for(21, False, engine)[0] == 11


def test_both_engines_give_the_same_results():
    assert acks_for(40, True, "fast") == acks_for(40, True, "reference")
