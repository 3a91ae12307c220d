"""Every kind of bad scenario raises ccsim.ScenarioError naming the path and what is accepted."""

import copy

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

BASE = {
    "name": "bad",
    "duration": 5,
    "topology": {
        "kind": "explicit",
        "nodes": ["a", "b", "c", "island"],
        "links": [
            {"name": "ab", "a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms"},
            {"name": "bc", "a": "b", "b": "c", "rate": "10Mbps", "delay": "5ms"},
        ],
    },
    "flows": [
        {"kind": "tcp", "name": "t1", "src": "a", "dst": "c"},
        {"kind": "tcp", "name": "t2", "src": "c", "dst": "a"},
        {"kind": "cbr", "name": "u", "src": "a", "dst": "b", "rate": "1Mbps"},
    ],
}


DUMBBELL = {"kind": "dumbbell", "pairs": 1, "bottleneck": {"rate": "10Mbps", "delay": "5ms"}}


def with_change(path, value):
    d = copy.deepcopy(BASE)
    ccsim.set_path(d, path, value)
    return d


CASES = [
    # (what, path to change, new value, expected error path, words the message must contain)
    ("unknown key", "flows[2].colour", "red", "flows[2].colour", ["colour", "rate", "dscp"]),
    ("wrong type", "duration", [1, 2], "duration", ["invalid type", "seconds", "ms"]),
    ("duration of centuries", "duration", "5000000000s", "duration", ["2^60 ns", "36 years"]),
    ("unknown algorithm", "flows[0].tcp.cc", "fastest", "flows[0].tcp.cc", ["fastest", "reno"]),
    (
        "unknown recovery",
        "flows[1].tcp.recovery",
        "sack2",
        "flows[1].tcp.recovery",
        ["sack2", "newreno", "tahoe"],
    ),
    ("unknown profile", "defaults", "ns4", "defaults", ["ns4", "linux", "ns2", "rfc"]),
    ("zero rate", "topology.links[0].rate", "0Mbps", "topology.links[0].rate", ["positive"]),
    ("negative rate", "topology.links[1].rate", -5, "topology.links[1].rate", ["positive"]),
    ("bad rate unit", "topology.links[1].rate", "10 furlongs", "topology.links[1].rate", ["Mbps"]),
    ("zero size", "flows[0].size", 0, "flows[0].size", ["positive"]),
    ("huge size", "flows[0].size", 1e30, "flows[0].size", ["under 2^63 bytes"]),
    ("large size", "flows[0].size", 2.0**62, "flows[0].size", ["under 2^62 bytes"]),
    (
        "zero queue",
        "topology.links[0].queue",
        {"kind": "droptail", "limit": 0},
        "topology.links[0].queue.limit",
        ["at least 1"],
    ),
    (
        "unknown queue kind",
        "topology.links[0].queue",
        {"kind": "fifo"},
        "topology.links[0].queue.kind",
        ["fifo", "droptail"],
    ),
    (
        "undefined node in link",
        "topology.links[1].b",
        "zz",
        "topology.links[1].b",
        ["zz", "island"],
    ),
    ("undefined node in flow", "flows[0].src", "nowhere", "flows[0].src", ["nowhere"]),
    ("unroutable flow", "flows[0].dst", "island", "flows[0].dst", ["unroutable"]),
    ("duplicate flow name", "flows[1].name", "t1", "flows[1].name", ["duplicate", "t1"]),
    (
        "duplicate link name",
        "topology.links[1].name",
        "ab",
        "topology.links[1].name",
        ["duplicate"],
    ),
    ("duplicate node name", "topology.nodes[3]", "a", "topology.nodes[3]", ["duplicate"]),
    ("start after the end", "flows[0].start", 9, "flows[0].start", ["end of the run"]),
    ("stop after the end", "flows[2].stop", "6s", "flows[2].stop", ["end of the run"]),
    ("stop before start", "flows[1].stop", 0, "flows[1].stop", ["not after start"]),
    (
        "probability above 1",
        "topology.links[0].loss",
        {"kind": "bernoulli", "p": 1.5},
        "topology.links[0].loss.p",
        ["[0, 1]"],
    ),
    (
        "RED thresholds out of order",
        "topology.links[0].queue",
        {"kind": "red", "min_th": 10, "max_th": 5},
        "topology.links[0].queue.max_th",
        ["greater than min_th", "10"],
    ),
    (
        "CE selector with bits outside its mask",
        "topology.links[0].queue",
        {
            "kind": "fq_codel",
            "ce_threshold": "1ms",
            "ce_threshold_selector": 3,
            "ce_threshold_mask": 1,
        },
        "topology.links[0].queue.ce_threshold_selector",
        ["0x03", "0x01", "never match"],
    ),
    (
        "CE selector byte out of range",
        "topology.links[0].queue",
        {"kind": "fq_codel", "ce_threshold": "1ms", "ce_threshold_mask": 300},
        "topology.links[0].queue.ce_threshold_mask",
        ["300"],
    ),
    (
        "unknown loss model",
        "topology.links[0].loss",
        {"kind": "gremlins"},
        "topology.links[0].loss.kind",
        ["gremlins", "bernoulli", "gilbert_elliott"],
    ),
    (
        "bad initial window",
        "flows[0].tcp.initial_window",
        "huge",
        "flows[0].tcp.initial_window",
        ["rfc3390"],
    ),
    ("unknown series", "trace.series", ["cwnd", "mood"], "trace.series[1]", ["mood", "cwnd"]),
    # Issue 33, defect 8: values that took gigabytes to validate or run, bounded and stated.
    ("2^32 - 1 pairs", "topology", {**DUMBBELL, "pairs": 2**32 - 1}, "topology.pairs", ["100000"]),
    (
        "a million pairs",
        "topology",
        {**DUMBBELL, "pairs": 10**6},
        "topology.pairs",
        ["1 to 100000"],
    ),
    (
        "1 ns interval",
        "trace",
        {"series": ["cwnd"], "interval": "1ns"},
        "trace.interval",
        ["10000000", "at least 0.000000500s"],
    ),
    (
        "1 ns bin",
        "trace",
        {"throughput_bin": "1ns"},
        "trace.throughput_bin",
        ["5000000000 samples", "at most 10000000"],
    ),
    # Issue 33, defect 7: each of these escaped ScenarioError or lost its path.
    ("series not text", "trace.series", ["cwnd", 5], "trace.series[1]", ["5", "cwnd", "sojourn"]),
    ("NaN", "duration", float("nan"), "duration", ["nan", "finite"]),
    ("infinity", "flows[2].rate", float("inf"), "flows[2].rate", ["inf", "finite"]),
    ("20-digit seed", "seed", 5 * 10**19, "seed", ["2^64 - 1"]),
    ("negative seed", "seed", -1, "seed", ["-1", "0 to 18446744073709551615"]),
    (
        "RACK without SACK",
        "flows[0].tcp",
        {"recovery": "newreno", "rack": True},
        "flows[0].tcp.rack",
        ['recovery = "sack"', '"newreno"'],
    ),
    (
        "PRR without SACK",
        "flows[0].tcp",
        {"recovery": "reno", "prr": True},
        "flows[0].tcp.prr",
        ['recovery = "sack"', '"reno"'],
    ),
    ("5,000-digit integer", "flows[0].size", 10**5000, "flows[0].size", ["bits", "2^64 - 1"]),
    (
        "nested thousands deep",
        "flows[0].tcp",
        {"cc": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
        "flows[0].tcp.cc" + "[0]" * 28,
        ["nested more than 32"],
    ),
]


@pytest.mark.parametrize("what,path,value,err_path,words", CASES, ids=[c[0] for c in CASES])
def test_bad_input(what, path, value, err_path, words):
    # set_path refuses some values itself (a NaN, an integer beyond 64 bits, a value nested
    # too deep), at the same path.
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(with_change(path, value))
    assert e.value.path == err_path, str(e.value)
    for w in words:
        assert w in e.value.message, (w, str(e.value))


def test_the_base_is_valid():
    ccsim.validate(BASE)


@pytest.mark.parametrize("field", ["duration", "topology"])
def test_missing_required_field(field):
    d = copy.deepcopy(BASE)
    del d[field]
    with pytest.raises(ccsim.ScenarioError, match=field) as e:
        ccsim.validate(d)
    assert e.value.path == field  # was empty


def test_a_python_dict_nested_thousands_deep():
    deep: dict = {}
    cur = deep
    for _ in range(5000):
        cur["a"] = {}
        cur = cur["a"]
    d = copy.deepcopy(BASE)
    d["flows"][0]["tcp"] = {"cc": deep}
    with pytest.raises(ccsim.ScenarioError, match="nested more than 32") as e:
        ccsim.validate(d)
    assert e.value.path.startswith("flows[0].tcp.cc.a.a")
    # As an override too (set_path copies the value).
    with pytest.raises(ccsim.ScenarioError, match="nested more than 32") as e:
        ccsim.validate(BASE, overrides={"flows[0].tcp.cc": deep})
    assert e.value.path.startswith("flows[0].tcp.cc.a.a")


TOML_CASES = [
    ("deep arrays", "x = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ("deep tables", "x = " + "{a = " * 5000 + "1" + "}" * 5000, "nested too deeply"),
    ("5,000 digits", "seed = " + "9" * 5000, "(line 2): a number too long"),
]


@pytest.mark.parametrize("what,line,words", TOML_CASES, ids=[c[0] for c in TOML_CASES])
def test_toml_files_that_python_cannot_read(tmp_path, capsys, what, line, words):
    from ccsim.cli import main

    path = tmp_path / "bad.toml"
    path.write_text("duration = 5\n" + line + "\n")
    with pytest.raises(ccsim.ScenarioError, match="invalid TOML") as e:
        ccsim.validate(path)
    assert words in e.value.message and str(path) in e.value.message
    # The CLI prints the error, not a traceback.
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid TOML") and "Traceback" not in err
