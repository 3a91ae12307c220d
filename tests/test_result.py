"""Result: decoding the core's columns, series, summary, saving and loading."""

import math

import numpy as np
import pandas as pd
import pytest
from ccsim import Result, SeriesNotRecorded
from ccsim.result import decode_column, decode_table
from fake_core import col, synthetic_results

SCENARIO = {"name": "synthetic", "duration": 10}


@pytest.fixture
def result(synthetic_raw):
    return Result.from_core(synthetic_raw, SCENARIO)


def test_decode_column():
    a = decode_column(col([1.5, 2.5], "<f8"))
    assert a.dtype == np.dtype("<f8") and a.tolist() == [1.5, 2.5]
    assert decode_column(col([7], "<u4")).dtype == np.dtype("<u4")
    assert decode_column(("<i8", b"")).size == 0
    assert decode_column(["a", "b"]) == ["a", "b"]
    with pytest.raises(TypeError):
        decode_column({"x": 1})


def test_decode_table_rejects_ragged_columns():
    with pytest.raises(ValueError, match="lengths"):
        decode_table({"a": col([1, 2], "<i8"), "b": ["x"]})


def test_flows_and_queues(result):
    f = result.flows
    assert list(f["flow"]) == ["tcp1", "tcp2", "cbr"]
    assert f["bytes_delivered"].dtype == np.dtype("<u8")
    assert f["goodput_bps"].tolist() == [4e6, 3.789e6, 1.92e6]
    assert math.isnan(f["completion_s"].iloc[0]) and f["completion_s"].iloc[1] == 4.25
    assert len(result.queues) == 3
    assert result.queues["utilisation"].iloc[0] == 0.96
    assert result.meta["events"] == 123456
    assert result.name == "synthetic"


def test_trace_flow_series(result):
    cwnd = result.trace("cwnd")
    assert list(cwnd.columns) == ["time_s", "flow", "value"]
    assert set(cwnd["flow"]) == {"tcp1", "tcp2"}
    assert cwnd["time_s"].dtype == np.float64
    tcp2 = cwnd[cwnd["flow"] == "tcp2"]
    assert tcp2["time_s"].min() == pytest.approx(0.5)
    assert len(cwnd) == 1000 + 950


def test_trace_queue_series_labels(result):
    q = result.trace("queue")
    assert list(q.columns) == ["time_s", "queue", "value"]
    assert list(dict.fromkeys(q["queue"])) == [
        "bottleneck:left->right",
        "bottleneck:right->left",
        "access_s0:s0->left",
    ]


def test_missing_series_lists_recorded(result):
    with pytest.raises(SeriesNotRecorded) as e:
        result.trace("rto")
    msg = str(e.value)
    assert "'rto' was not recorded" in msg and "cwnd, throughput, queue" in msg
    assert isinstance(e.value, KeyError)
    with pytest.raises(KeyError, match="known series"):
        result.trace("nonsense")


def test_series_names(result):
    assert result.series_names == ["cwnd", "throughput", "queue"]


def test_ids_out_of_range_are_rejected(synthetic_raw):
    synthetic_raw["series"]["cwnd"]["id"] = col([0, 7], "<u4")
    synthetic_raw["series"]["cwnd"]["time_s"] = col([0, 1], "<f8")
    synthetic_raw["series"]["cwnd"]["value"] = col([1, 2], "<f8")
    with pytest.raises(ValueError, match="out of range"):
        Result.from_core(synthetic_raw, SCENARIO)


def test_unknown_series_keeps_raw_ids(synthetic_raw):
    synthetic_raw["series"]["future"] = {
        "time_s": col([0.0], "<f8"),
        "id": col([4], "<u4"),
        "value": col([1.0], "<f8"),
    }
    r = Result.from_core(synthetic_raw, SCENARIO)
    assert list(r.trace("future").columns) == ["time_s", "id", "value"]


def test_summary_table(result):
    lines = result.summary_table().splitlines()
    assert lines[0].split()[:2] == ["flow", "kind"]
    assert set(lines[1]) <= {"-", " "}
    assert len(lines) == 2 + 3
    tcp2 = lines[3].split()
    assert tcp2[:4] == ["tcp2", "tcp", "3.789", "3.900"]
    assert tcp2[4:] == ["150", "2", "70.2", "4.250"]
    cbr = lines[4].split()
    assert cbr == ["cbr", "cbr", "1.920", "1.920", "-", "-", "-", "-"]
    assert len({len(line) for line in lines[:2]}) == 1


def test_save_and_load_round_trip(result, tmp_path):
    result.meta["wall_s"] = 0.5
    written = result.save(tmp_path / "out")
    names = {p.name for p in written}
    assert names == {
        "flows.parquet",
        "queues.parquet",
        "trace_cwnd.parquet",
        "trace_throughput.parquet",
        "trace_queue.parquet",
        "meta.json",
        "scenario.json",
        "cwnd.png",
        "throughput.png",
        "queue.png",
    }
    for p in written:
        assert p.is_file() and p.stat().st_size > 0
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    back = Result.load(tmp_path / "out")
    pd.testing.assert_frame_equal(back.flows, result.flows)
    pd.testing.assert_frame_equal(back.queues, result.queues)
    assert back.series_names == sorted(result.series_names)
    for name in result.series_names:
        pd.testing.assert_frame_equal(back.trace(name), result.trace(name))
    assert back.meta == result.meta
    assert back.scenario == SCENARIO


def test_save_without_figures(result, tmp_path):
    written = result.save(tmp_path, figures=False)
    assert not any(p.suffix == ".png" for p in written)


def test_load_rejects_other_directories(tmp_path):
    with pytest.raises(FileNotFoundError, match="no saved ccsim result"):
        Result.load(tmp_path)


def test_no_series(tmp_path):
    raw = synthetic_results()
    raw["series"] = {}
    r = Result.from_core(raw, SCENARIO)
    assert r.series_names == []
    assert {p.name for p in r.save(tmp_path)} == {
        "flows.parquet",
        "queues.parquet",
        "meta.json",
        "scenario.json",
    }


def test_plot_draws_lines_with_units(result):
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    result.plot("throughput", ax=ax)
    assert ax.get_ylabel() == "goodput (Mb/s)" and ax.get_xlabel() == "time (s)"
    assert ax.get_title() == "synthetic: goodput"
    assert [line.get_label() for line in ax.get_lines()] == ["tcp1", "tcp2", "cbr"]
    assert max(ax.get_lines()[0].get_ydata()) == pytest.approx(4.0)


def test_plot_queue_default_skips_idle_queues(result):
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    result.plot("queue", ax=ax)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["bottleneck:left->right", "access_s0:s0->left"]


def test_plot_select(result):
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    result.plot("cwnd", ax=ax, select=["tcp2"])
    assert [line.get_label() for line in ax.get_lines()] == ["tcp2"]
    with pytest.raises(KeyError, match="tcp9"):
        result.plot("cwnd", ax=Figure().add_subplot(), select=["tcp9"])


def test_plot_labels_rename_legend_entries_and_label_is_refused(result):
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    result.plot("cwnd", ax=ax, select=["tcp1", "tcp2"], labels={"tcp1": "Reno"})
    assert [line.get_label() for line in ax.get_lines()] == ["Reno", "tcp2"]
    with pytest.raises(TypeError, match="labels="):
        result.plot("cwnd", ax=Figure().add_subplot(), label="x")


def test_save_refuses_an_unknown_figure_format_before_writing(result, tmp_path):
    with pytest.raises(ValueError, match="'jpg': expected one of png, svg, pdf"):
        result.save(tmp_path / "out", fmt="jpg")
    assert not (tmp_path / "out").exists()


def test_results_without_a_packet_trace_have_its_columns(result, tmp_path):
    assert result.packets.empty and len(result.packets.columns) == 21
    result.save(tmp_path / "out", figures=False)
    assert not (tmp_path / "out" / "packets.parquet").exists()
    back = Result.load(tmp_path / "out")
    assert list(back.packets.columns) == list(result.packets.columns)


def test_save_refuses_a_directory_with_another_result(result, tmp_path):
    # issue 33, defect 5: a second save into the same directory left the first run's series
    # and figures beside the second's tables, and load returned the mixture.
    out = tmp_path / "out"
    result.save(out)
    raw = synthetic_results("second")
    raw["series"] = {}
    second = Result.from_core(raw, {"name": "second", "duration": 10})
    with pytest.raises(FileExistsError, match="not empty.*overwrite=True") as e:
        second.save(out, figures=False)
    assert e.value.filename == str(out)
    assert Result.load(out).name == "synthetic"  # left as it was
    written = second.save(out, figures=False, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)
    assert not list(out.glob("trace_*")) and not list(out.glob("*.png"))
    back = Result.load(out)
    assert back.name == "second" and back.series_names == []
    assert not [p for p in tmp_path.iterdir() if p.name != "out"]  # no temporary left


def test_save_into_an_empty_directory(result, tmp_path):
    result.save(tmp_path, figures=False)
    assert Result.load(tmp_path).name == "synthetic"


def test_overwrite_replaces_only_a_saved_result(result, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match=r"notes\.txt.*not part of a saved ccsim result"):
        result.save(tmp_path, overwrite=True)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    result.save(tmp_path / "r", figures=False)
    (tmp_path / "r" / "analysis.ipynb").write_text("{}")
    with pytest.raises(FileExistsError, match=r"analysis\.ipynb"):
        result.save(tmp_path / "r", overwrite=True)
    assert (tmp_path / "r" / "analysis.ipynb").is_file()
