"""Router feedback and ECN counts for congestion control written in Python: an `on_feedback`
hook receives XCP's echoed header (the sender stamps one for an algorithm that defines it), and
`conn.ecn_echoes` counts the ACKs that carried ECN-Echo."""

from __future__ import annotations

import copy
import math
import sys
from pathlib import Path

import ccsim
import pytest

pytest.importorskip("ccsim._core")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "examples"))
from python_cc import PyReno  # noqa: E402


class PyXcp(PyReno):
    """XCP's sender without the window adjustment, as the core's `tcp/cc/xcp.rs`: Reno where
    no XCP router answers, else the window follows the routers' feedback."""

    def on_feedback(self, conn, fb):
        if not math.isfinite(fb["feedback"]):
            return False
        if conn.ca_state == "recovery":
            return True
        conn.cwnd = max(conn.cwnd + fb["feedback"], 1.0)
        return True


def xcp_scenario(cc) -> dict:
    d = ccsim.load(ROOT / "scenarios" / "xcp.toml")
    d = copy.deepcopy(d)
    d["duration"] = "40s"
    d["flows"][0]["tcp"]["cc"] = cc
    return d


def test_a_python_xcp_sender_gives_the_built_in_one_s_tables():
    built_in = ccsim.run(xcp_scenario("xcp"))
    python = ccsim.run(xcp_scenario(PyXcp()))
    assert python.flows.drop(columns=["cc"]).equals(built_in.flows.drop(columns=["cc"]))
    assert python.queues.equals(built_in.queues)
    assert python.trace("cwnd")["value"].equals(built_in.trace("cwnd")["value"])


def test_without_on_feedback_no_header_is_stamped_and_the_window_is_reno_s():
    reno = ccsim.run(xcp_scenario(PyReno()))
    xcp = ccsim.run(xcp_scenario("xcp"))
    # Reno fills the XCP router's buffer and loses; XCP's sender does not.
    assert reno.flows["retransmits"].iloc[0] > 0
    assert xcp.flows["retransmits"].iloc[0] == 0


class Counting(PyReno):
    def __init__(self):
        self.ece_acks = 0
        self.last = 0

    def pkts_acked(self, conn, ack):
        self.ece_acks += ack.ece
        # The echoes before this ACK, and this one's.
        self.last = conn.ecn_echoes + ack.ece


def test_ecn_echoes_counts_the_acks_that_carried_ece():
    d = ccsim.load(ROOT / "scenarios" / "dumbbell-red-ecn.toml")
    algos = []

    def make():
        a = Counting()
        algos.append(a)
        return a

    ccsim.register_cc("counting-reno", lambda: make())
    for f in d["flows"]:
        if f["kind"] == "tcp":
            f["tcp"]["cc"] = "counting-reno"
    ccsim.run(d)
    # Every new ACK with ECE is counted, and duplicate ACKs with ECE too: at least as many.
    assert sum(a.ece_acks for a in algos) > 0
    assert all(a.last >= a.ece_acks for a in algos)
    # Without ECN nothing is echoed.
    algos.clear()
    for f in d["flows"]:
        if f["kind"] == "tcp":
            f["tcp"]["ecn"] = False
    ccsim.run(d)
    assert all(a.last == 0 for a in algos)


class BadFeedback(PyReno):
    def on_feedback(self, conn, fb):
        return "yes"


def test_on_feedback_must_say_whether_it_set_the_window():
    with pytest.raises(ccsim.CongestionControlError, match="on_feedback"):
        ccsim.run(xcp_scenario(BadFeedback()))
