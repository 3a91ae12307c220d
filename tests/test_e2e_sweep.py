"""Sweeps end to end on the real core: the local pool, resuming, failures, invalid points."""

import os
import signal
from pathlib import Path

import pandas as pd
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from ccsim import runner  # noqa: E402
from ccsim.sweep_store import Store  # noqa: E402
from sweep_base import AXES, base  # noqa: E402


def alone(point_axes, seed, duration=2):
    """One point run by itself with ccsim.run, with the sweep's leading columns."""
    r = ccsim.run(base(duration), seed=seed, overrides=point_axes)
    head = pd.DataFrame({**{k: [v] * len(r.flows) for k, v in point_axes.items()}})
    head.insert(len(head.columns), "seed", seed)
    return pd.concat([head, r.flows], axis=1)


def test_pool_grid_equals_each_point_run_alone(tmp_path):
    df = ccsim.sweep(base(), AXES, replications=2, workers=2, output=tmp_path, progress=False)
    assert len(df) == 2 * 2 * 2 * 2  # limits x recoveries x seeds x flows
    assert list(df.columns[:7]) == ["point", "key", *AXES, "replication", "seed", "flow"]
    assert df.attrs["axes"] == list(AXES)
    expected = pd.concat(
        [alone({p: v for p, v in zip(AXES, combo)}, seed) for combo in
         [(10, "newreno"), (10, "sack"), (100, "newreno"), (100, "sack")] for seed in (3, 4)],
        ignore_index=True,
    )  # fmt: skip
    got = df.drop(columns=["point", "key", "replication"])
    pd.testing.assert_frame_equal(got, expected)
    # The filter reached the TCP flow only, and the seeds made a difference.
    assert set(df.loc[df.kind == "tcp", "recovery"]) == {"newreno", "sack"}
    assert set(df.loc[df.kind == "cbr", "recovery"]) == {""}
    tcp = df[df.kind == "tcp"]
    assert tcp.groupby("point").goodput_bps.first().nunique() == 8

    # A rerun reads every point back from disk, identical to the computed frame.
    runs = []
    again = ccsim.sweep(
        base(), AXES, replications=2, workers=2, output=tmp_path, progress=False,
        on_point=runs.append,
    )  # fmt: skip
    assert runs == []
    pd.testing.assert_frame_equal(again, df)
    files = {p.name for p in tmp_path.iterdir()}
    assert {"summary.parquet", "summary.csv", "queues.parquet", "points.csv", "sweep.json"} <= files
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "summary.parquet"), df)


def test_queues_and_points_tables(tmp_path):
    q = ccsim.sweep(base(), AXES, workers=0, output=tmp_path, table="queues", progress=False)
    assert {"link", "from", "to", "utilisation"} <= set(q.columns)
    assert len(q) == 4 * len(runner.run(base()).queues)
    pts = ccsim.sweep(base(), AXES, workers=0, output=tmp_path, table="points", progress=False)
    assert list(pts.status) == ["ok"] * 4 and pts.cached.all() and (pts.wall_s > 0).all()


def test_interrupted_sweep_resumes_with_only_the_rest(tmp_path):
    axes = {"topology.bottleneck.queue.limit": [10, 20, 40, 80, 160]}
    done = []

    def stop_after_two(info):
        done.append(info.key)
        if len(done) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ccsim.sweep(base(), axes, replications=2, workers=2, output=tmp_path,
                    progress=False, on_point=stop_after_two)  # fmt: skip
    saved = {p.name[:64] for p in (tmp_path / "points").glob("*.parquet")}
    assert saved == set(done)

    rest = []
    df = ccsim.sweep(base(), axes, replications=2, workers=2, output=tmp_path,
                     progress=False, on_point=lambda i: rest.append(i.key))  # fmt: skip
    assert len(rest) == 8 and not set(rest) & set(done)
    assert df.point.nunique() == 10
    pts = ccsim.sweep(base(), axes, replications=2, output=tmp_path, table="points",
                      progress=False)  # fmt: skip
    assert pts.cached.all()


def test_killed_worker_loses_only_unfinished_points(tmp_path):
    # Points of ~0.2 s, so that the pool is busy when a worker is killed.
    axes = {"topology.bottleneck.queue.limit": [10, 20, 30, 40, 60, 80, 120, 160]}
    first = []

    def kill_worker(info):
        first.append(info.key)
        if len(first) == 1:
            os.kill(info.worker["pid"], signal.SIGKILL)

    with pytest.raises(ccsim.SweepFailed) as e:
        ccsim.sweep(base(60), axes, workers=2, output=tmp_path, progress=False,
                    on_point=kill_worker)  # fmt: skip
    assert e.value.missing > 0 and f"{e.value.missing} not run" in str(e.value)
    assert e.value.missing + len(first) == 8
    assert sorted(e.value.frame.key.unique()) == sorted(first)

    second = []
    df = ccsim.sweep(base(60), axes, workers=2, output=tmp_path, progress=False,
                     on_point=lambda i: second.append(i.key))  # fmt: skip
    assert len(second) == e.value.missing and not set(second) & set(first)
    assert df.point.nunique() == 8


def test_series_table_keeps_each_points_time_series(tmp_path):
    traced = base()
    traced["trace"] = {"series": ["cwnd", "queue"], "interval": "200ms"}
    axes = {"topology.bottleneck.queue.limit": [10, 100]}
    s = ccsim.sweep(traced, axes, workers=0, output=tmp_path, table="series", progress=False)
    assert list(s.columns) == [
        "point", "key", *axes, "replication", "seed", "series", "time_s", "flow", "queue", "value",
    ]  # fmt: skip
    for limit, rows in s.groupby(list(axes)[0]):
        alone = ccsim.run(traced, overrides={list(axes)[0]: limit}).all_series()
        pd.testing.assert_frame_equal(rows[alone.columns].reset_index(drop=True), alone)
    assert set(s.series) == {"cwnd", "queue"} and set(s[s.series == "cwnd"].flow) == {"bulk"}
    assert (tmp_path / "series.parquet").exists()
    # Read back from the points' files, identical.
    again = ccsim.sweep(traced, axes, workers=0, output=tmp_path, table="series", progress=False)
    pd.testing.assert_frame_equal(again, s)
    # A sweep that records nothing has an empty series table with the same columns.
    none = ccsim.sweep(base(), axes, workers=0, table="series", progress=False)
    assert none.empty and list(none.columns) == list(s.columns)


def test_packets_table_keeps_each_points_trace(tmp_path):
    traced = base()
    traced["trace"] = {"packets": ["bottleneck"]}
    axes = {"topology.bottleneck.queue.limit": [10, 100]}
    p = ccsim.sweep(traced, axes, workers=0, output=tmp_path, table="packets", progress=False)
    assert list(p.columns[:5]) == ["point", "key", *axes, "replication", "seed"]
    for limit, rows in p.groupby(list(axes)[0]):
        alone = ccsim.run(traced, overrides={list(axes)[0]: limit}).packets
        pd.testing.assert_frame_equal(rows[alone.columns].reset_index(drop=True), alone)
    assert (tmp_path / "packets.parquet").exists()
    again = ccsim.sweep(traced, axes, workers=0, output=tmp_path, table="packets", progress=False)
    pd.testing.assert_frame_equal(again, p)
    # Asked for another table, the traces stay on disk, not in memory or the sweep's files.
    (tmp_path / "packets.parquet").unlink()
    ccsim.sweep(traced, axes, workers=0, output=tmp_path, progress=False)
    assert not (tmp_path / "packets.parquet").exists()
    # A point whose trace file went missing runs again rather than reading as no trace.
    Store(tmp_path).packets_path(p.key[0]).unlink()
    with pytest.warns(UserWarning, match="packets.parquet is missing"):
        back = ccsim.sweep(
            traced, axes, workers=0, output=tmp_path, table="packets", progress=False
        )
    pd.testing.assert_frame_equal(back, p)


def test_points_without_a_trace_keep_the_packets_tables_types(tmp_path):
    traced = base()
    axes = {"trace.packets": [["bottleneck"], []]}
    kw = {"workers": 0, "output": tmp_path, "table": "packets", "progress": False}
    fresh = ccsim.sweep(traced, axes, **kw)
    cached = ccsim.sweep(traced, axes, **kw)
    pd.testing.assert_frame_equal(cached, fresh)
    assert fresh["seed"].dtype.kind == "i" and fresh["time_s"].dtype.kind == "f"
    assert set(fresh["point"]) == {0}


def test_a_point_missing_its_series_file_is_run_again(tmp_path):
    from ccsim.sweep_store import Store

    axes = {"topology.bottleneck.queue.limit": [10]}
    df = ccsim.sweep(base(), axes, workers=0, output=tmp_path, table="points", progress=False)
    Store(tmp_path).series_path(df.key[0]).unlink()  # damaged outside ccsim
    with pytest.warns(UserWarning, match="series.parquet is missing"):
        again = ccsim.sweep(base(), axes, workers=0, output=tmp_path, table="points",
                            progress=False)  # fmt: skip
    assert not again.cached.any()


def test_force_reruns_everything(tmp_path):
    axes = {"topology.bottleneck.queue.limit": [10, 20]}
    ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False)
    runs = []
    ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False, force=True,
                on_point=runs.append)  # fmt: skip
    assert len(runs) == 2


def test_a_core_built_from_other_source_reruns_everything(tmp_path, monkeypatch):
    from ccsim import _native

    axes = {"topology.bottleneck.queue.limit": [10, 20]}
    ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False)
    assert len(_native.source()) == 16 and _native.core_id().startswith(ccsim.__version__ + "+")
    # The same version rebuilt from changed source: its points are computed, not read back.
    monkeypatch.setattr(_native, "source", lambda: "f" * 16)
    runs = []
    ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False, on_point=runs.append)
    assert len(runs) == 2


def test_failing_point_is_recorded_and_others_finish(tmp_path, monkeypatch):
    real_run = runner.run

    def run_or_fail(d, **kw):
        if d["topology"]["bottleneck"]["queue"]["limit"] == 20:
            raise RuntimeError("simulated crash in the core")
        return real_run(d, **kw)

    monkeypatch.setattr(runner, "run", run_or_fail)
    axes = {"topology.bottleneck.queue.limit": [10, 20, 40]}
    with pytest.raises(ccsim.SweepFailed) as e:
        ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False)
    failures = e.value.failures
    assert list(failures["topology.bottleneck.queue.limit"]) == [20]
    assert "RuntimeError: simulated crash in the core" in failures.error.iat[0]
    assert "point 1 (topology.bottleneck.queue.limit=20, seed=3)" in str(e.value)
    assert sorted(e.value.frame["topology.bottleneck.queue.limit"].unique()) == [10, 40]
    errors = list((tmp_path / "points").glob("*.error.json"))
    assert len(errors) == 1

    # Failed points are retried on the next run; now it succeeds and the error file goes.
    monkeypatch.setattr(runner, "run", real_run)
    runs = []
    df = ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False,
                     on_point=runs.append)  # fmt: skip
    assert [r.point.axes for r in runs] == [{"topology.bottleneck.queue.limit": 20}]
    assert df.point.nunique() == 3 and not list((tmp_path / "points").glob("*.error.json"))


def test_invalid_points_are_all_reported_before_anything_runs(tmp_path):
    axes = {
        "topology.bottleneck.queue.limit": [10, -1, "x"],
        "flows.*.tcp.recovery": ["sack"],  # also hits the CBR flow, which has no tcp table
    }
    with pytest.raises(ccsim.SweepError) as e:
        ccsim.sweep(base(), axes, output=tmp_path, progress=False)
    text = str(e.value)
    assert text.startswith("3 of 3 sweep points are invalid")
    assert "flows[1].tcp: unknown field `tcp`" in text
    assert "point 1: topology.bottleneck.queue.limit=-1, flows.*.tcp.recovery=sack, seed=3" in (
        text
    )
    assert "point 2: topology.bottleneck.queue.limit=x" in text
    assert [bad.point.index for bad in e.value.invalid] == [0, 1, 2]
    # Each point is reported with the first error the schema finds in it.
    assert e.value.invalid[0].path == "flows[1].tcp"
    assert {bad.path for bad in e.value.invalid} <= {
        "flows[1].tcp",
        "topology.bottleneck.queue.limit",
    }
    assert not (tmp_path / "points").exists()


def test_unknown_axis_path_is_named(tmp_path):
    with pytest.raises(ccsim.SweepError) as e:
        ccsim.sweep(base(), {"flows.nope.tcp.cc": ["reno"]}, progress=False)
    assert e.value.invalid[0].path == "flows.nope"
    assert "names there: 'bulk', 'video'" in str(e.value)
    with pytest.raises(ccsim.SweepError) as e:
        ccsim.sweep(base(), {"flows[kind=udp].tcp.cc": ["reno"]}, progress=False)
    assert "flows[kind=udp]: no element of flows has kind = 'udp'" in str(e.value)


def test_damaged_point_file_is_recomputed(tmp_path):
    axes = {"topology.bottleneck.queue.limit": [10, 20]}
    df = ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False)
    victim = tmp_path / "points" / f"{df.key.iat[0]}.parquet"
    victim.write_bytes(victim.read_bytes()[:100])  # damaged by something other than ccsim
    runs = []
    with pytest.warns(UserWarning, match="unreadable"):
        again = ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False,
                            on_point=runs.append)  # fmt: skip
    assert [r.key for r in runs] == [df.key.iat[0]]
    pd.testing.assert_frame_equal(again, df)


def test_points_with_one_scenario_run_once(tmp_path):
    # Two zipped combinations that resolve to the same scenario: one run, two rows.
    zipped = [{"topology.bottleneck.queue.limit": [10, 10], "name": ["sweep-test", "sweep-test"]}]
    runs = []
    df = ccsim.sweep(base(), zipped=zipped, workers=0, output=tmp_path, progress=False,
                     on_point=runs.append)  # fmt: skip
    assert len(runs) == 1 and list(df.point.unique()) == [0, 1]
    assert df.key.nunique() == 1
    pts = ccsim.sweep(base(), zipped=zipped, output=tmp_path, table="points", progress=False)
    assert list(pts.status) == ["ok", "ok"]


def test_sweep_object_and_file_forms(tmp_path):
    by_args = ccsim.sweep(base(), AXES, workers=0, progress=False)
    pd.testing.assert_frame_equal(
        ccsim.sweep(ccsim.Sweep(base(), AXES), workers=0, progress=False), by_args
    )
    example = Path(__file__).resolve().parent.parent / "scenarios/sweeps/dumbbell-queue.toml"
    with pytest.raises(TypeError, match="axes, replications cannot be given with a complete"):
        ccsim.sweep(example, {"duration": [1]}, replications=2)
    with pytest.raises(TypeError, match="axes cannot be given"):
        ccsim.sweep(ccsim.Sweep(base(), AXES), AXES)
    with pytest.raises(ValueError, match="table must be one of flows, queues, points"):
        ccsim.sweep(base(), AXES, table="flow")


def test_a_point_computed_by_another_core_is_not_kept(tmp_path, monkeypatch):
    # A cluster worker with another ccsim build: its result would be filed under this core's
    # key. Here the run's provenance says another core computed it.
    from ccsim import provenance

    real = provenance.build_info
    monkeypatch.setattr(provenance, "build_info", lambda: {**real(), "core_id": "0.0.1+other"})
    axes = {"topology.bottleneck.queue.limit": [10, 20]}
    with pytest.raises(ccsim.SweepFailed) as e:
        ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False)
    assert "runs ccsim core 0.0.1+other, not this sweep's " in str(e.value)
    assert "install the same ccsim build on every worker" in str(e.value)
    assert len(e.value.failures) == 2 and not list((tmp_path / "points").glob("*[0-9a-f].parquet"))
    monkeypatch.setattr(provenance, "build_info", real)
    assert len(ccsim.sweep(base(), axes, workers=0, output=tmp_path, progress=False)) == 4
