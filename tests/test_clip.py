"""--clip: fitting flows into a shorter run (issue 33, defect 13)."""

import copy

import pytest
from ccsim.clip import clip_flows, clip_hint, duration_ns


@pytest.mark.parametrize(
    "value, ns",
    [
        (10, 10_000_000_000),
        (0.5, 500_000_000),
        ("10s", 10_000_000_000),
        (" 1.5 s ", 1_500_000_000),
        ("20ms", 20_000_000),
        ("3us", 3_000),
        ("3µs", 3_000),
        ("7ns", 7),
        ("2min", 120_000_000_000),
        ("1e3ms", 1_000_000_000),
        ("0.0000000015", 2),  # rounded to the nearest ns, as the core does
    ],
)
def test_durations_read_as_the_core_reads_them(value, ns):
    assert duration_ns(value) == ns


@pytest.mark.parametrize("value", ["10 parsecs", "s", "", "-1s", True, None, [1], "nan"])
def test_what_is_not_a_duration_is_left_to_the_core(value):
    assert duration_ns(value) is None


def scenario(duration):
    return {
        "duration": duration,
        "flows": [
            {"kind": "tcp", "name": "a"},
            {"kind": "tcp", "name": "b", "start": "1s", "stop": "20s"},
            {"kind": "cbr", "name": "c", "start": "10s", "stop": "50s"},
            {"kind": "cbr", "start": 12},
        ],
    }


def test_clip_leaves_out_late_starts_and_cuts_late_stops():
    d = scenario("10s")
    changes = clip_flows(d)
    assert [f.get("name") for f in d["flows"]] == ["a", "b"]
    assert d["flows"][1]["stop"] == "10s"
    assert changes == [
        "flows[1] ('b').stop: 20s clipped to the end (10s)",
        "flows[2] ('c') left out: it starts at or after the end (10s)",
        "flows[3] left out: it starts at or after the end (10s)",
    ]


def test_nothing_to_clip():
    d = scenario("60s")
    before = copy.deepcopy(d)
    assert clip_flows(d) == [] and d == before and clip_hint(d) is None
    d = scenario("2 fortnights")  # unreadable: the core will say what is accepted
    assert clip_flows(d) == [] and clip_hint(d) is None


def test_hint_names_every_late_flow_and_the_option():
    hint = clip_hint(scenario(11))
    assert "starting at or after the end: flows[3]" in hint
    assert "stopping after it: flows[1] ('b'), flows[2] ('c')" in hint
    assert "--clip" in hint
