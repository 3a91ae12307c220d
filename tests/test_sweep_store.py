"""The output directory: scenario hashes, atomic per-point files, round trips."""

import json
import os

import numpy as np
import pandas as pd
import pytest
from ccsim.sweep_store import Store, canonical_json, point_key


def test_key_is_independent_of_key_order_and_pinned_by_version():
    a = {"name": "x", "duration": 5, "topology": {"kind": "chain", "links": [1, 2]}}
    b = {"topology": {"links": [1, 2], "kind": "chain"}, "duration": 5, "name": "x"}
    assert canonical_json(a) == canonical_json(b)
    assert (
        canonical_json(a) == '{"duration":5,"name":"x","topology":{"kind":"chain","links":[1,2]}}'
    )
    k = point_key(canonical_json(a), "1.0")
    assert len(k) == 64 and k == point_key(canonical_json(b), "1.0")
    assert k != point_key(canonical_json(a), "1.1")
    assert k != point_key(canonical_json({**a, "duration": 6}), "1.0")
    # A list's order is part of the scenario.
    c = {**a, "topology": {"kind": "chain", "links": [2, 1]}}
    assert k != point_key(canonical_json(c), "1.0")
    # numpy numbers (from np.linspace axes) hash like the plain numbers they are.
    assert canonical_json({"x": np.int64(5)}) == canonical_json({"x": 5})


def frames():
    flows = pd.DataFrame(
        {
            "flow": ["a", "b"],
            "bytes_sent": np.array([1, 2], dtype=np.uint64),
            "goodput_bps": [1.5, np.nan],
        }
    )
    queues = pd.DataFrame({"link": ["l"], "utilisation": [0.5]})
    series = pd.DataFrame(
        {"series": ["cwnd"], "time_s": [0.1], "flow": ["a"], "queue": [""], "value": [10.0]}
    )
    packets = pd.DataFrame({"time_s": [0.2], "event": ["+"], "flow": ["a"]})
    return flows, queues, series, packets


def test_ok_point_round_trip(tmp_path):
    store = Store(tmp_path)
    store.create()
    flows, queues, series, packets = frames()
    record = {"key": "k1", "status": "ok", "axes": {"a.b": 5}, "wall_s": 0.1}
    assert not store.done("k1")
    store.save_ok("k1", record, flows, queues, series, packets)
    assert store.done("k1")
    got_record, got_flows, got_queues, got_series, got_packets = store.load("k1")
    assert got_record == record
    pd.testing.assert_frame_equal(got_flows, flows)
    pd.testing.assert_frame_equal(got_queues, queues)
    pd.testing.assert_frame_equal(got_series, series)
    pd.testing.assert_frame_equal(got_packets, packets)
    # Only the final files: no temporary left behind.
    assert sorted(os.listdir(tmp_path / "points")) == [
        "k1.packets.parquet",
        "k1.parquet",
        "k1.queues.parquet",
        "k1.series.parquet",
    ]
    # A point that traced no packets keeps an empty, typed trace.
    store.save_ok("k0", record, flows, queues, series, packets.iloc[:0])
    empty = store.load("k0")[4]
    assert empty.empty and dict(empty.dtypes) == dict(packets.dtypes)
    # A file the point lacks loads as None (the sweep runs the point again).
    store.series_path("k1").unlink()
    store.packets_path("k1").unlink()
    assert store.load("k1")[3:] == (None, None)
    # A damaged file is named.
    store.queues_path("k0").write_text("not parquet")
    with pytest.raises(ValueError, match=r"k0\.queues\.parquet is unreadable"):
        store.load("k0")


def test_failure_then_success_replaces_the_error(tmp_path):
    store = Store(tmp_path)
    store.create()
    store.save_failed("k2", {"status": "failed", "error": "boom"})
    assert json.loads(store.error_path("k2").read_text())["error"] == "boom"
    assert not store.done("k2")
    store.save_ok("k2", {"status": "ok"}, *frames())
    assert store.done("k2") and not store.error_path("k2").exists()


def test_a_write_that_dies_leaves_nothing(tmp_path, monkeypatch):
    store = Store(tmp_path)
    store.create()
    import pyarrow.parquet as pq

    real = pq.write_table
    calls = []

    def die_on_flows(table, where):
        calls.append(where)
        if len(calls) == 4:  # the flows table, written after the queues, series and packets
            real(table, where)  # a partial file exists under the temporary name ...
            raise KeyboardInterrupt  # ... when the process is stopped
        real(table, where)

    monkeypatch.setattr(pq, "write_table", die_on_flows)
    with pytest.raises(KeyboardInterrupt):
        store.save_ok("k3", {"status": "ok"}, *frames())
    assert not store.done("k3")
    assert sorted(os.listdir(tmp_path / "points")) == [
        "k3.packets.parquet",
        "k3.queues.parquet",
        "k3.series.parquet",
    ]


def test_manifest(tmp_path):
    store = Store(tmp_path)
    store.create()
    store.write_manifest({"name": "s", "points": [{"point": 0, "key": "k"}]})
    assert json.loads((tmp_path / "sweep.json").read_text())["name"] == "s"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("umask", [0o022, 0o007], ids=["umask022", "umask007"])
def test_point_files_follow_the_umask_like_the_summaries(tmp_path, umask):
    # Collaborators on a shared cluster directory read every file a sweep writes, not only the
    # summaries: each is 0666 less the umask, as open() makes any new file.
    previous = os.umask(umask)
    try:
        store = Store(tmp_path)
        store.create()
        store.write_manifest({"name": "s", "points": []})
        store.save_ok("k1", {"status": "ok"}, *frames())
        store.save_failed("k2", {"status": "failed", "error": "boom"})
        frames()[0].to_parquet(tmp_path / "summary.parquet")  # as save_tables writes it
    finally:
        os.umask(previous)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 7
    modes = {p.relative_to(tmp_path).as_posix(): p.stat().st_mode & 0o777 for p in files}
    assert modes == dict.fromkeys(modes, 0o666 & ~umask)
