"""set_path and parse_value: the --set and sweep machinery."""

import copy

import pytest
from ccsim import ScenarioError, parse_value, set_path
from ccsim.overrides import Filter, parse_path


@pytest.fixture
def scenario():
    return {
        "name": "t",
        "duration": "30s",
        "topology": {"kind": "dumbbell", "pairs": 2, "bottleneck": {"rate": 1e7, "delay": 0.02}},
        "flows": [
            {"kind": "tcp", "name": "tcp1", "src": "s0", "dst": "d0"},
            {"kind": "tcp", "name": "tcp2", "src": "s1", "dst": "d1", "tcp": {"cc": "reno"}},
            {"kind": "cbr", "name": "cbr", "src": "s1", "dst": "d1", "rate": "1Mbps"},
        ],
    }


def test_parse_path():
    assert parse_path("flows[2].tcp.cc") == ["flows", 2, "tcp", "cc"]
    assert parse_path("flows.2.tcp") == ["flows", "2", "tcp"]
    assert parse_path("flows[*].start") == ["flows", "*", "start"]
    assert parse_path("a[1][0]") == ["a", 1, 0]


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a.", "a[x]", "a[1", " a"])
def test_parse_path_rejects(bad):
    with pytest.raises(ScenarioError) as e:
        parse_path(bad)
    assert e.value.path == bad


def test_top_level_key(scenario):
    set_path(scenario, "duration", 5)
    assert scenario["duration"] == 5


def test_index_brackets_and_dots(scenario):
    set_path(scenario, "flows[1].tcp.cc", "cubic")
    assert scenario["flows"][1]["tcp"] == {"cc": "cubic"}
    set_path(scenario, "flows.0.start", 1.5)
    assert scenario["flows"][0]["start"] == 1.5


def test_name_selects_element_and_creates_tables(scenario):
    set_path(scenario, "flows.tcp1.tcp.recovery", "sack")
    assert scenario["flows"][0]["tcp"] == {"recovery": "sack"}
    set_path(scenario, "topology.bottleneck.queue.limit", 50)
    assert scenario["topology"]["bottleneck"]["queue"] == {"limit": 50}
    set_path(scenario, "trace.series", ["cwnd"])
    assert scenario["trace"] == {"series": ["cwnd"]}


def test_star_applies_to_every_element(scenario):
    set_path(scenario, "flows.*.start", 2)
    assert [f["start"] for f in scenario["flows"]] == [2, 2, 2]
    set_path(scenario, "flows[*].dst", "d9")
    assert {f["dst"] for f in scenario["flows"]} == {"d9"}


def test_star_as_last_segment_replaces_elements():
    d = {"xs": [1, 2, 3]}
    set_path(d, "xs.*", 0)
    assert d == {"xs": [0, 0, 0]}


def test_replace_element_by_index_and_name(scenario):
    set_path(scenario, "flows[2]", {"kind": "cbr", "name": "x"})
    assert scenario["flows"][2] == {"kind": "cbr", "name": "x"}
    set_path(scenario, "flows.tcp1", {"kind": "tcp", "name": "tcp1"})
    assert scenario["flows"][0] == {"kind": "tcp", "name": "tcp1"}


def test_index_out_of_range_names_path_and_range(scenario):
    before = copy.deepcopy(scenario)
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "flows[5].tcp.cc", "reno")
    assert e.value.path == "flows[5]"
    assert "3 element" in e.value.message and "0..2" in e.value.message
    assert scenario == before


def test_unknown_name_lists_names(scenario):
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "flows.tcp9.tcp.cc", "reno")
    assert e.value.path == "flows.tcp9"
    for name in ("'tcp1'", "'tcp2'", "'cbr'"):
        assert name in e.value.message
    assert str(e.value).startswith("flows.tcp9: ")


def test_name_on_empty_list():
    with pytest.raises(ScenarioError) as e:
        set_path({"flows": []}, "flows.tcp1.start", 1)
    assert "empty" in e.value.message


def test_duplicate_names_are_ambiguous():
    d = {"flows": [{"name": "a"}, {"name": "a"}]}
    with pytest.raises(ScenarioError) as e:
        set_path(d, "flows.a.start", 1)
    assert "2 elements" in e.value.message


def test_walking_into_a_value_says_what_is_there(scenario):
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "duration.unit", "s")
    assert e.value.path == "duration"
    assert "str" in e.value.message and "'30s'" in e.value.message


def test_star_errors_name_the_concrete_element(scenario):
    scenario["flows"][1]["tcp"] = "oops"
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "flows.*.tcp.cc", "reno")
    assert e.value.path == "flows[1].tcp"


def test_index_on_a_table_lists_keys(scenario):
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "topology[0]", 1)
    assert e.value.path == "topology"
    assert "bottleneck" in e.value.message and "not a list" in e.value.message


def test_index_on_missing_key(scenario):
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "topology.left[0].delay", "5ms")
    assert e.value.path == "topology.left"
    assert "does not exist" in e.value.message


def test_digit_key_on_table_is_a_key():
    d = {}
    set_path(d, "a.0", 1)
    assert d == {"a": {"0": 1}}


def test_set_path_needs_a_dict():
    with pytest.raises(TypeError):
        set_path([1], "0", 2)


@pytest.mark.parametrize(
    "text, value",
    [
        ("10", 10),
        ("0.5", 0.5),
        ("1e3", 1000.0),
        ("true", True),
        ("false", False),
        ('"x"', "x"),
        ("'lit'", "lit"),
        ("[1, 2]", [1, 2]),
        ('["cwnd", "queue"]', ["cwnd", "queue"]),
        ('{kind = "bernoulli", p = 0.01}', {"kind": "bernoulli", "p": 0.01}),
        ("reno", "reno"),
        ("10Mbps", "10Mbps"),
        ("20ms", "20ms"),
        ("64KiB", "64KiB"),
        ("2024-01-01", "2024-01-01"),
        ("12:30:00", "12:30:00"),
        ("", ""),
        ("a b", "a b"),
        ("1\nx = 2", "1\nx = 2"),
    ],
)
def test_parse_value(text, value):
    assert parse_value(text) == value
    assert type(parse_value(text)) is type(value)


def test_star_values_are_not_shared(scenario):
    set_path(scenario, "flows.*.tcp", {"cc": "reno"})
    set_path(scenario, "flows.tcp1.tcp.cc", "cubic")
    assert [f["tcp"]["cc"] for f in scenario["flows"]] == ["cubic", "reno", "reno"]


def test_filter_selects_matching_elements(scenario):
    assert parse_path("flows[kind=tcp].tcp.cc") == ["flows", Filter("kind", "tcp"), "tcp", "cc"]
    set_path(scenario, "flows[kind=tcp].tcp.cc", "cubic")
    assert [f.get("tcp") for f in scenario["flows"]] == [{"cc": "cubic"}, {"cc": "cubic"}, None]
    # Values compare as text or as TOML values; a dot inside brackets does not split the path.
    set_path(scenario, "topology.bottleneck.queue", {"limit": 5})
    d = {"xs": [{"n": 2, "name": "a.b"}, {"n": 3, "name": "c"}]}
    set_path(d, "xs[n=2].v", 1)
    set_path(d, "xs[name=a.b].w", 2)
    assert d["xs"] == [{"n": 2, "name": "a.b", "v": 1, "w": 2}, {"n": 3, "name": "c"}]


def test_filter_without_match_names_the_values_there(scenario):
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "flows[kind=udp].start", 1)
    assert e.value.path == "flows[kind=udp]"
    assert "values of 'kind' there: 'cbr', 'tcp'" in e.value.message
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "flows[colour=red].start", 1)
    assert "no element has a 'colour' key" in e.value.message
    with pytest.raises(ScenarioError) as e:
        set_path(scenario, "topology[kind=dumbbell].pairs", 1)
    assert "is a table, not a list, so [kind=dumbbell] does not apply" in e.value.message
    with pytest.raises(ScenarioError):
        parse_path("flows[kind=].x")
