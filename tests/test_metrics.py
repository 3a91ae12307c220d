"""Fairness and utilisation, against values computed by hand."""

import math

import numpy as np
import pandas as pd
import pytest
from ccsim import Result, completion_times, jain_index, jain_over_time, utilisation


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1, 1, 1, 1], 1.0),
        ([1, 0, 0, 0], 0.25),
        ([1, 2, 3], 36 / 42),
        ([5], 1.0),
        ([4e6, 4e6, 2e6], 100 / 108),
        (np.array([2.0, 0.0]), 0.5),
    ],
)
def test_jain_index(values, expected):
    assert jain_index(values) == pytest.approx(expected)


def test_jain_index_accepts_generators():
    assert jain_index(x for x in [1, 1]) == 1.0


def test_jain_index_all_zero_is_nan():
    assert math.isnan(jain_index([0, 0, 0]))


@pytest.mark.parametrize("bad", [[], [1, -1], [1, float("nan")], [float("inf")]])
def test_jain_index_rejects(bad):
    with pytest.raises(ValueError):
        jain_index(bad)


@pytest.fixture
def result(synthetic_raw):
    return Result.from_core(synthetic_raw, {"name": "synthetic"})


def test_utilisation(result):
    assert utilisation(result, "bottleneck") == 0.96  # the busier direction by bytes
    assert utilisation(result, "bottleneck", src="right") == 0.027
    with pytest.raises(KeyError, match="links: bottleneck, access_s0"):
        utilisation(result, "nope")
    with pytest.raises(KeyError, match="from: left, right"):
        utilisation(result, "bottleneck", src="s0")


def test_jain_over_time_counts_active_flows_only(result):
    j = jain_over_time(result)
    assert j.name == "jain" and j.index.name == "time_s"
    # Before 0.5 s only tcp1 (4 Mb/s) and cbr (2 Mb/s) are active: 36 / (2 * 20).
    assert j.loc[0.3] == pytest.approx(0.9)
    # Afterwards 4, 4, 2 Mb/s: 100 / (3 * 36).
    assert j.loc[5.0] == pytest.approx(100 / 108)


def test_jain_over_time_selected_flows_and_window(result):
    j = jain_over_time(result, flows=["tcp1", "tcp2"])
    assert j.loc[0.3] == pytest.approx(1.0)  # tcp2 not started: one active flow
    assert j.loc[2.0] == pytest.approx(1.0)
    w = jain_over_time(result, flows=["tcp1", "tcp2"], window=1.0)
    # tcp2's series starts at 0.6 s; its 1 s trailing mean at 1.0 s covers 5 bins of 4 Mb/s
    # and 5 of nothing: 2 Mb/s against tcp1's 4 Mb/s.
    assert w.loc[1.0] == pytest.approx(36 / (2 * 20))
    assert w.loc[5.0] == pytest.approx(1.0)
    with pytest.raises(KeyError, match="tcp9"):
        jain_over_time(result, flows=["tcp9"])


def _transfers() -> Result:
    nan = math.nan
    flows = pd.DataFrame(
        {
            "flow": ["bulk", "web.0", "web.1", "web.2", "web.3", "web.4", "dl.0"],
            "kind": ["tcp"] * 7,
            "completion_s": [nan, 0.1, 0.2, 0.3, nan, 0.5, 2.0],
            "bytes_delivered": [9e9, 1000, 5000, 200_000, 300, 1_000_000, 50],
            "size_bytes": [0, 1000, 5000, 200_000, 8000, 1_000_000, 50],
        }
    )
    scenario = {
        "flows": [
            {"kind": "tcp", "name": "bulk"},
            {"kind": "tcp_arrivals", "name": "web"},
            {"kind": "tcp_arrivals", "name": "dl"},
        ]
    }
    return Result({"name": "t"}, scenario, flows, pd.DataFrame(), {})


def test_completion_times_per_entry_worked_by_hand():
    t = completion_times(_transfers()).set_index("group")
    assert list(t.index) == ["web", "dl"]  # in the scenario's order
    web = t.loc["web"]
    assert (web["transfers"], web["completed"]) == (5, 4)
    assert web["mean_s"] == pytest.approx(0.275)  # (0.1 + 0.2 + 0.3 + 0.5) / 4
    assert web["p50_s"] == pytest.approx(0.25)  # halfway between 0.2 and 0.3
    assert web["p99_s"] == pytest.approx(0.494)  # 0.3 + 0.97·(0.5 − 0.3)
    assert web["max_s"] == 0.5
    assert t.loc["dl", "mean_s"] == 2.0


def test_completion_times_by_size():
    t = completion_times(_transfers(), "web", size_bins=[0, 10e3, 2e6], quantiles=[0.5])
    assert list(t["size"]) == ["[0, 10000)", "[10000, 2e+06)"]
    # web.3 (8 kB) is unfinished: started in the first range, completed in none.
    assert list(t["transfers"]) == [3, 2]
    assert list(t["completed"]) == [2, 2]
    assert list(t["mean_s"]) == pytest.approx([0.15, 0.4])
    assert list(t.columns) == [
        "group", "size", "transfers", "completed", "mean_s", "p50_s", "max_s",
    ]  # fmt: skip


def test_completion_times_of_an_entry_without_transfers():
    r = _transfers()
    r.scenario["flows"].append({"kind": "tcp_arrivals", "name": "none"})
    t = completion_times(r, "none")
    assert list(t["transfers"]) == [0] and list(t["completed"]) == [0]
    assert math.isnan(t["mean_s"].iloc[0])


def test_completion_times_rejects():
    with pytest.raises(KeyError, match=r"entries: web, dl"):
        completion_times(_transfers(), "bulk")
    with pytest.raises(ValueError, match=r"1 of 'web'.s transfers are outside size_bins"):
        completion_times(_transfers(), "web", size_bins=[0, 1e6])  # web.4 is 1 MB
    with pytest.raises(ValueError, match="increasing"):
        completion_times(_transfers(), size_bins=[10, 5])
    with pytest.raises(ValueError, match="outside 0..1"):
        completion_times(_transfers(), quantiles=[99])
