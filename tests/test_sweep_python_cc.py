"""Sweeps of congestion controls written in Python (ccsim.cc_ref): the workers import the
algorithm by reference, the points give what ccsim.run gives, cached points are keyed by the
reference (its parameters and its module's source), and what cannot be imported is refused
naming the flow and saying why."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections import deque
from pathlib import Path

import ccsim
import pandas as pd
import pytest
from ccsim import cc_ref

pytest.importorskip("ccsim._core")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "examples"))
from python_cc import DelayAimd, PyReno  # noqa: E402

RATES = {"topology.bottleneck.rate": ["5Mbps", "10Mbps"]}


def small(cc, flows=1, duration="2s") -> dict:
    return {
        "name": "py-sweep",
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "pairs": flows,
            "bottleneck": {
                "rate": "10Mbps",
                "delay": "10ms",
                "queue": {"kind": "droptail", "limit": 20},
            },
        },
        "flows": [
            {"kind": "tcp", "name": f"f{i}", "src": f"s{i}", "dst": f"d{i}", "tcp": {"cc": cc}}
            for i in range(flows)
        ],
    }


def write_module(tmp_path: Path, monkeypatch, name: str, body: str):
    """A module ``name`` in tmp_path, on the path here and (inherited) in spawned workers."""
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # an edit is always read again
    return importlib.import_module(name)


def test_an_instance_a_class_and_a_registered_table_on_the_local_pool_give_ccsims_run():
    ccsim.register_cc("sweep_delay_aimd", DelayAimd)
    cases = [
        PyReno(),
        PyReno,
        DelayAimd(threshold=0.002),
        {"kind": "sweep_delay_aimd", "threshold": 0.002},
    ]
    for value in cases:
        df = ccsim.sweep(small(value, flows=2), RATES, workers=2, progress=False)
        for rate, rows in df.groupby("topology.bottleneck.rate"):
            ref = ccsim.run(small(value, flows=2), overrides={"topology.bottleneck.rate": rate})
            got = rows[list(ref.flows.columns)].reset_index(drop=True)
            pd.testing.assert_frame_equal(got, ref.flows, check_dtype=False)
        assert set(df.cc) == {ref.flows.cc[0]}


def test_python_algorithms_as_axis_values_are_labelled_by_class_and_attributes():
    axis = {"flows.f0.tcp.cc": [DelayAimd(threshold=0.002), DelayAimd(threshold=0.02), "cubic"]}
    df = ccsim.sweep(small("reno"), axis, workers=0, progress=False)
    assert list(df["flows.f0.tcp.cc"]) == [
        "python_cc.DelayAimd(threshold=0.002, beta=0.7, rtt=None)",
        "python_cc.DelayAimd(threshold=0.02, beta=0.7, rtt=None)",
        "cubic",
    ]
    assert list(df.cc) == ["DelayAimd", "DelayAimd", "cubic"]
    assert df.key.nunique() == 3


def test_the_key_holds_the_reference_its_parameters_and_its_source(tmp_path, monkeypatch):
    mod = write_module(
        tmp_path,
        monkeypatch,
        "sweep_cc_keyed",
        """
        import ccsim

        class Aimd(ccsim.CongestionControl):
            def __init__(self, beta=0.5):
                self.beta = beta

            def ssthresh(self, conn):
                return max(conn.cwnd * self.beta, 2.0)

            def cong_avoid(self, conn, ack):
                acked = conn.slow_start(ack.acked) if conn.in_slow_start else ack.acked
                conn.cong_avoid_ai(conn.cwnd, acked)
        """,
    )
    out = tmp_path / "out"
    axis = {"flows.f0.tcp.cc": [mod.Aimd(beta=0.5), mod.Aimd(beta=0.8)]}
    first = ccsim.sweep(small("reno"), axis, output=out, workers=0, progress=False)
    assert first.key.nunique() == 2
    again = ccsim.sweep(small("reno"), axis, output=out, workers=0, progress=False, table="points")
    assert again.cached.all()
    assert list(again.key) == list(first.key)
    # The same class under another name is another point.
    ccsim.register_cc("keyed_aimd", mod.Aimd)
    named = ccsim.sweep(
        small({"kind": "keyed_aimd", "beta": 0.5}), {"duration": ["2s"]}, output=out,
        workers=0, progress=False, table="points",
    )  # fmt: skip
    assert not named.cached.any() and named.key[0] not in set(first.key)
    # An edit of the algorithm's module changes every key: nothing old is taken.
    path = tmp_path / "sweep_cc_keyed.py"
    path.write_text(path.read_text().replace("2.0)", "2.0)  # edited"))
    edited = ccsim.sweep(small("reno"), axis, output=out, workers=0, progress=False, table="points")
    assert not edited.cached.any() and not set(edited.key) & set(first.key)
    record = json.loads((out / "sweep.json").read_text())
    assert record["points"][0]["axes"] == {"flows.f0.tcp.cc": "sweep_cc_keyed.Aimd(beta=0.5)"}


def test_a_name_registered_with_a_lambda_in_an_importable_module(tmp_path, monkeypatch):
    write_module(
        tmp_path,
        monkeypatch,
        "sweep_cc_lambda",
        """
        import ccsim
        from python_cc import DelayAimd

        ccsim.register_cc("lambda_aimd", lambda **kw: DelayAimd(**kw))
        """,
    )
    ref = cc_ref.references(small({"kind": "lambda_aimd", "beta": 0.6}))
    marker = ref["flows"][0]["tcp"]["cc"]["python"]
    assert marker["module"] == "sweep_cc_lambda" and "factory" not in marker
    df = ccsim.sweep(small({"kind": "lambda_aimd", "beta": 0.6}), RATES, workers=2, progress=False)
    one = ccsim.run(small(DelayAimd(beta=0.6)), overrides={"topology.bottleneck.rate": "5Mbps"})
    assert df.goodput_bps[0] == one.flows.goodput_bps[0]
    assert list(df.cc) == ["lambda_aimd", "lambda_aimd"]


def local_class():
    class Local(PyReno):
        pass

    return Local


class InMain(PyReno):
    pass


InMain.__module__ = "__main__"


@pytest.mark.parametrize(
    "value, says",
    [
        (local_class()(), "is defined inside a function (local_class.<locals>.Local)"),
        (local_class(), "is defined inside a function"),
        (InMain(), "is defined in the script being run (__main__"),
    ],
)
def test_what_workers_cannot_import_is_refused_naming_the_flow_and_why(value, says):
    with pytest.raises(ccsim.SweepError) as e:
        ccsim.sweep(small(value, flows=2), RATES, workers=2, progress=False)
    text = str(e.value)
    assert "flows[0].tcp.cc: flow 'f0'" in text and says in text
    assert "separate processes that import the algorithm by its module and name" in text
    assert "2 of 2 sweep points are invalid" in text


def test_a_lambda_registered_by_the_script_being_run_is_refused():
    register = {"__name__": "__main__", "ccsim": ccsim, "PyReno": PyReno}
    exec("ccsim.register_cc('main_lambda', lambda: PyReno())", register)
    with pytest.raises(ccsim.SweepError, match=r"'main_lambda' is .*<lambda>, registered by the "):
        ccsim.sweep(small("main_lambda"), RATES, workers=0, progress=False)


def test_an_attribute_json_cannot_hold_is_named():
    algo = DelayAimd()
    algo.history = deque([1, 2])
    with pytest.raises(
        ccsim.SweepError, match=r"DelayAimd\.history holds a deque \(deque\(\[1, 2\]\)\)"
    ):
        ccsim.sweep(small(algo), RATES, workers=0, progress=False)


def test_state_round_trips_tuples_and_non_finite_numbers():
    algo = DelayAimd()
    algo.rtt, algo.pair, algo.table = float("inf"), (1, (2.5, None)), {"a": [float("-inf")]}
    ref = cc_ref.references(small(algo))
    json.dumps(ref, allow_nan=False)  # the reference is plain JSON
    back = cc_ref.materialize(json.loads(json.dumps(ref)))["flows"][0]["tcp"]["cc"]
    assert type(back) is DelayAimd and back.__dict__ == algo.__dict__
    assert back.pair == (1, (2.5, None)) and back is not algo


def test_a_scenario_that_holds_a_reference_itself_is_refused():
    forged = small({"python": {"class": "os:system"}})
    with pytest.raises(ccsim.SweepError, match=r"flows\[0\]\.tcp\.cc: a `python` table names"):
        ccsim.sweep(forged, RATES, workers=0, progress=False)


def test_a_worker_whose_module_differs_fails_the_point():
    from ccsim.sweep_exec import run_point

    d = cc_ref.references(small(PyReno()))
    d["flows"][0]["tcp"]["cc"]["python"]["source"] = "0" * 16
    payload = run_point(json.dumps(d))
    assert not payload["ok"]
    assert "flows[0].tcp.cc: flow 'f0': the source of" in payload["error"]
    assert "python_cc.py" in payload["error"] and "differs from the one" in payload["error"]

    d = cc_ref.references(small(PyReno()))
    d["flows"][0]["tcp"]["cc"]["python"]["class"] = "no_such_module_here:Algo"
    payload = run_point(json.dumps(d))
    assert "cannot import no_such_module_here:Algo" in payload["error"]
    assert "importable on every worker" in payload["error"]


def test_a_bad_parameter_of_a_registered_algorithm_is_found_before_running():
    ccsim.register_cc("sweep_delay_aimd", DelayAimd)
    with pytest.raises(ccsim.SweepError, match=r"flows\[0\]\.tcp\.cc.*unexpected keyword"):
        ccsim.sweep(small({"kind": "sweep_delay_aimd", "gamma": 1}), RATES, workers=0)


def test_dask_local_cluster_runs_python_algorithms_as_the_pool_does():
    distributed = pytest.importorskip("distributed")
    ccsim.register_cc("sweep_delay_aimd", DelayAimd)
    axis = {"flows.f0.tcp.cc": [PyReno(), {"kind": "sweep_delay_aimd", "beta": 0.8}]}
    pool = ccsim.sweep(small("reno", flows=2), axis, workers=2, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:  # fmt: skip
        dask = ccsim.sweep(small("reno", flows=2), axis, client=client, progress=False)
    pd.testing.assert_frame_equal(dask, pool)
    assert list(dask.cc[dask.flow == "f0"]) == ["PyReno", "sweep_delay_aimd"]
