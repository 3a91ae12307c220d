"""Time-sequence graphs from the packet trace (ccsim.plot.plot_sequence): every traced data
segment, drop and acknowledgement is drawn, sequence numbers are unwrapped past 2^32, and a
missing trace or flow is named."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from ccsim.plot import _unwrap  # noqa: E402


def test_unwrap_counts_on_past_2_32():
    # 4,294,967,000 then 100 is 396 bytes on (2^32 = 4,294,967,296), then 400 more.
    got = _unwrap([4_294_967_000, 100, 500])
    assert list(got) == [4_294_967_000, 4_294_967_396, 4_294_967_796]
    # Retransmissions step back without wrapping.
    assert list(_unwrap([1000, 3000, 2000])) == [1000, 3000, 2000]
    # From a base past which the numbers wrapped: 296 + 100 = 396 bytes on.
    assert list(_unwrap([100, 500], base=4_294_967_000)) == [396, 796]


@pytest.fixture(scope="module")
def traced():
    s = ccsim.default_scenario()
    s["duration"] = 10
    s["trace"]["packets"] = ["bottleneck"]
    return ccsim.run(s)


def test_draws_every_segment_drop_and_ack(traced):
    ax = traced.plot_sequence("tcp1")
    lines = {line.get_label(): line for line in ax.lines}
    p = traced.packets
    mine = p[(p["flow"] == "tcp1") & (p["link"] == "bottleneck")]
    data = mine[(mine["kind"] == "tcp") & (mine["from"] == "left")]
    acks = mine[(mine["kind"] == "ack") & (mine["event"] == "r")]
    assert len(lines["segment sent"].get_xdata()) == (data["event"] == "+").sum()
    assert len(lines["dropped"].get_xdata()) == (data["event"] == "d").sum() > 0
    assert len(lines["acknowledged"].get_xdata()) == len(acks) > 0
    # The highest segment sent is at least the highest acknowledgement, in kB.
    assert max(lines["segment sent"].get_ydata()) >= max(lines["acknowledged"].get_ydata())
    assert np.all(np.diff(lines["acknowledged"].get_ydata()) >= 0)  # cumulative ACKs
    # Relative to the initial sequence number, as Wireshark shows them: the SYN is 0, the
    # first payload byte 1, and the highest acknowledgement is 1 + the bytes delivered.
    sent = lines["segment sent"].get_ydata()
    assert sent[0] == 0.0 and sent[1] == pytest.approx(1e-3)
    delivered = traced.flows.set_index("flow").loc["tcp1", "bytes_delivered"]
    top = max(lines["acknowledged"].get_ydata())
    assert 0.9 * delivered * 1e-3 < top <= (1 + delivered) * 1e-3


def test_missing_trace_or_flow_is_named(traced):
    with pytest.raises(KeyError, match=r"no TCP data of flow 'cbr'.*flows: tcp1, tcp2"):
        traced.plot_sequence("cbr")
    with pytest.raises(KeyError, match=r"links: \['bottleneck'\]"):
        traced.plot_sequence("tcp1", link="access_s0")
    plain = ccsim.run(ccsim.default_scenario(), overrides={"duration": 2})
    with pytest.raises(ValueError, match="no packet trace"):
        plain.plot_sequence("tcp1")
