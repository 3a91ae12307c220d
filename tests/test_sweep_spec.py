"""The sweep description: TOML keys, axes, zipped groups, seeds and the points they expand to.

Runs without a build: the fake core validates.
"""

import sys

import pytest
from ccsim import Sweep, SweepError
from ccsim.sweep_spec import check, from_dict, invalid_report, load_sweep, resolve

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BASE = {
    "name": "b",
    "duration": 5,
    "seed": 10,
    "topology": {"kind": "dumbbell", "pairs": 2, "bottleneck": {"rate": 1e7, "delay": 0.01}},
    "flows": [
        {"kind": "tcp", "name": "a", "src": "s0", "dst": "d0"},
        {"kind": "cbr", "name": "v", "src": "s1", "dst": "d1", "rate": 1e6},
    ],
}


def parse(text, **kw):
    return from_dict(tomllib.loads(text), **kw)


def test_crossed_and_zipped_points_in_order():
    sw = Sweep(
        BASE,
        {"topology.bottleneck.queue.limit": [5, 50]},
        zipped=[{"topology.bottleneck.rate": ["10Mbps", "1Gbps"], "duration": [20, 2]}],
        replications=2,
    )
    pts = sw.points(sw.base_scenario())
    assert sw.axis_paths == [
        "topology.bottleneck.queue.limit",
        "topology.bottleneck.rate",
        "duration",
    ]
    # First axis outermost, zipped values together, replications innermost; seeds base + k.
    got = [(p.axes["topology.bottleneck.queue.limit"], p.axes["duration"], p.seed) for p in pts]
    assert got == [
        (5, 20, 10), (5, 20, 11), (5, 2, 10), (5, 2, 11),
        (50, 20, 10), (50, 20, 11), (50, 2, 10), (50, 2, 11),
    ]  # fmt: skip
    assert [p.index for p in pts] == list(range(8))
    assert [p.replication for p in pts[:2]] == [0, 1]
    assert all(
        p.axes["topology.bottleneck.rate"] == "10Mbps" for p in pts if p.axes["duration"] == 20
    )
    d = resolve(sw.base_scenario(), pts[2])
    assert d["topology"]["bottleneck"] == {"rate": "1Gbps", "delay": 0.01, "queue": {"limit": 5}}
    assert d["duration"] == 2 and d["seed"] == 10
    assert BASE["topology"]["bottleneck"] == {"rate": 1e7, "delay": 0.01}  # base untouched


def test_explicit_seeds_and_default_seed(fake_core):
    sw = Sweep(BASE, {"duration": [1]}, seeds=[7, 3])
    assert [(p.replication, p.seed) for p in sw.points(sw.base_scenario())] == [(0, 7), (1, 3)]
    no_seed = {k: v for k, v in BASE.items() if k != "seed"}
    sw = Sweep(no_seed, {"duration": [1]}, replications=3)
    # The fake schema has no seed default, so the fallback 1 (the real schema's default).
    assert [p.seed for p in sw.points(sw.base_scenario())] == [1, 2, 3]


def test_overrides_apply_before_axes():
    sw = Sweep(BASE, {"duration": [3]}, overrides={"seed": 100, "duration": 99, "name": "x"})
    base = sw.base_scenario({"flows.a.start": 1})
    assert base["seed"] == 100 and base["name"] == "x" and base["flows"][0]["start"] == 1
    (pt,) = sw.points(base)
    assert pt.seed == 100 and resolve(base, pt)["duration"] == 3


def test_toml_form(tmp_path):
    (tmp_path / "base.toml").write_text(
        'name = "b"\nduration = 5\nseed = 4\n[topology]\nkind = "dumbbell"\npairs = 1\n'
        'bottleneck = { rate = "10Mbps", delay = "10ms" }\n'
        '[[flows]]\nkind = "tcp"\nname = "a"\nsrc = "s0"\ndst = "d0"\n'
    )
    (tmp_path / "grid.toml").write_text(
        "[sweep]\n"
        'base = "base.toml"\n'
        "replications = 2\n"
        "[sweep.set]\n"
        'topology.bottleneck.delay = "20ms"\n'  # nested tables are path steps
        "[sweep.axes]\n"
        '"topology.bottleneck.queue.limit" = [5, 15]\n'
        'flows."*".tcp.cc = ["reno"]\n'
        "[[sweep.zip]]\n"
        '"topology.bottleneck.rate" = ["1Mbps", "2Mbps"]\n'
        "duration = [10, 20]\n"
    )
    sw = load_sweep(tmp_path / "grid.toml")
    assert sw.name == "grid"  # the file's stem when [sweep] has no name
    assert sw.axis_paths == [
        "topology.bottleneck.queue.limit", "flows.*.tcp.cc", "topology.bottleneck.rate", "duration",
    ]  # fmt: skip
    assert sw.overrides == {"topology.bottleneck.delay": "20ms"}
    base = sw.base_scenario()
    assert base["topology"]["bottleneck"]["delay"] == "20ms" and base["seed"] == 4
    assert len(sw.points(base)) == 2 * 1 * 2 * 2


def test_inline_base_and_name():
    sw = parse(
        '[sweep]\nname = "q"\nseeds = [1, 2]\n[sweep.axes]\nduration = [1, 2]\n'
        '[base]\nname = "inline"\nduration = 3\n'
    )
    assert sw.name == "q" and sw.seeds == [1, 2] and sw.base_scenario()["name"] == "inline"


@pytest.mark.parametrize(
    "text, path, words",
    [
        ('[sweep]\nbase = "x"\n[other]\n', "other", "unknown key; expected one of `sweep`"),
        ('[sweep]\nbase = "x"\naxis = {}\n', "sweep.axis", "`axes` (crossed axes"),
        ("[base]\nduration = 1\n", "sweep", "needs a [sweep] table"),
        ("[sweep]\n[sweep.axes]\nduration = [1]\n", "sweep.base", "give the base scenario once"),
        (
            '[sweep]\nbase = "x.toml"\n[base]\nduration = 1\n',
            "sweep.base",
            "give the base scenario once",
        ),
        ('[sweep]\nbase = "missing.toml"\n', "sweep.base", "no scenario file at"),
        ("[sweep]\nbase = 5\n", "sweep.base", "expected a file name"),
        ("[sweep]\naxes = 3\n[base]\n", "sweep.axes", "expected a table"),
        ("[sweep]\nzip = 3\n[base]\n", "sweep.zip", "[[sweep.zip]] tables"),
    ],
)
def test_file_errors_name_the_key(tmp_path, text, path, words):
    with pytest.raises(SweepError) as e:
        parse(text, root=tmp_path)
    assert e.value.path == path
    assert words in e.value.message


@pytest.mark.parametrize(
    "kwargs, path, words",
    [
        ({"axes": {"duration": 5}}, 'sweep.axes."duration"', "expected a list of values"),
        ({"axes": {"name": "abc"}}, 'sweep.axes."name"', "got str"),
        ({"axes": {"duration": []}}, 'sweep.axes."duration"', "at least one value"),
        ({"axes": {"flows[x].start": [1]}}, 'sweep.axes."flows[x].start"', "invalid index [x]"),
        ({"axes": {"seed": [1, 2]}}, 'sweep.axes."seed"', "`replications` or `seeds`"),
        ({"axes": {"point": [1]}}, 'sweep.axes."point"', "the sweep's own columns"),
        (
            {"axes": {"duration": [1]}, "zipped": [{"duration": [2]}]},
            'sweep.zip[0]."duration"',
            "already an axis",
        ),
        (
            {"zipped": [{"duration": [1, 2], "name": ["a"]}]},
            "sweep.zip[0]",
            "equally many values: duration has 2, name has 1",
        ),
        ({"zipped": [{}]}, "sweep.zip[0]", "non-empty table"),
        ({"replications": 0}, "sweep.replications", "1 to 100000"),
        # Issue 33, defect 8: these grew without bound.
        ({"replications": 2**64}, "sweep.replications", "expected 1 to 100000"),
        ({"replications": 10**7}, "sweep.replications", "expected 1 to 100000"),
        (
            {"axes": {"duration": list(range(1, 1001))}, "replications": 101},
            "sweep",
            "1000 points x 101 seeds = 101000 runs; a sweep runs at most 100000",
        ),
        (
            {"axes": {"duration": list(range(1, 501))}, "seeds": list(range(201))},
            "sweep",
            "= 100500 runs",
        ),
        ({"replications": True}, "sweep.replications", "an integer"),
        ({"replications": 2, "seeds": [1]}, "sweep.seeds", "not both"),
        ({"seeds": [1, 1]}, "sweep.seeds", "seeds repeat"),
        ({"seeds": [-1]}, "sweep.seeds", "integers ≥ 0"),
        ({"seeds": "1,2"}, "sweep.seeds", "a list of integers"),
        ({"overrides": {"a..b": 1}}, 'sweep.set."a..b"', "invalid path segment"),
        ({"name": ""}, "sweep.name", "non-empty text"),
    ],
)
def test_sweep_errors_name_the_axis(kwargs, path, words):
    with pytest.raises(SweepError) as e:
        Sweep(BASE, **kwargs)
    assert e.value.path == path
    assert words in e.value.message


def test_toml_axis_that_is_not_a_list():
    with pytest.raises(SweepError) as e:
        parse("[sweep]\n[sweep.axes]\ntopology.bottleneck.rate = 5\n[base]\n")
    assert e.value.path == 'sweep.axes."topology.bottleneck.rate"'


def test_bad_base_seed_is_reported():
    sw = Sweep({**BASE, "seed": "x"}, {"duration": [1]}, replications=2)
    with pytest.raises(SweepError) as e:
        sw.points(sw.base_scenario())
    assert e.value.path == "seed"


def test_check_reports_every_invalid_point_with_axes(fake_core):
    sw = Sweep(
        BASE,
        {"flows.a.tcp.recovery": ["sack", "bogus"], "flows.nope.start": [1]},
        replications=2,
    )
    base = sw.base_scenario()
    good, bad = check(base, sw.points(base))
    assert good == {} and len(bad) == 4
    assert {b.path for b in bad} == {"flows.nope"}
    sw = Sweep(BASE, {"flows.a.tcp.recovery": ["sack", "bogus"]}, replications=2)
    good, bad = check(base, sw.points(base))
    assert sorted(good) == [0, 1]
    assert [(b.point.index, b.path) for b in bad] == [
        (2, "flows[0].tcp.recovery"),
        (3, "flows[0].tcp.recovery"),
    ]
    text = invalid_report(bad, 4, shown=1)
    assert text.splitlines() == [
        "2 of 4 sweep points are invalid:",
        '  flows[0].tcp.recovery: unknown variant "bogus"',
        "    point 2: flows.a.tcp.recovery=bogus, seed=10",
        "    ... and 1 more points with this error",
    ]


def test_repr():
    sw = Sweep(BASE, {"duration": [1, 2, 3]}, zipped=[{"name": ["a", "b"]}], replications=4)
    assert repr(sw) == "<ccsim.Sweep None: 3 x 2 points x 4 seeds>"
