"""``ccsim sweep`` end to end: the shipped example, resuming, bad input, failures, --dask."""

import sys
from pathlib import Path

import pandas as pd
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from ccsim import runner  # noqa: E402
from ccsim.cli import main  # noqa: E402
from ccsim.sweep_spec import check, is_sweep_file  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "scenarios" / "sweeps" / "dumbbell-queue.toml"
SWEEPS = sorted(p for p in (ROOT / "scenarios").rglob("*.toml") if is_sweep_file(p))


def grid(tmp_path, axes='"topology.bottleneck.queue.limit" = [10, 20]', extra=""):
    p = tmp_path / "grid.toml"
    p.write_text(
        f'[sweep]\nbase = "{ROOT / "scenarios" / "dumbbell-reno.toml"}"\n{extra}'
        '[sweep.set]\nduration = "3s"\n"flows.video" = { start = "1s", stop = "2s" }\n'
        f"[sweep.axes]\n{axes}\n"
    )
    return p


@pytest.mark.parametrize("path", SWEEPS, ids=[p.stem for p in SWEEPS])
def test_shipped_sweeps_validate(path):
    sw = ccsim.load_sweep(path)
    base = sw.base_scenario()
    good, bad = check(base, sw.points(base))
    assert bad == [] and len(good) >= 2


def test_example_runs_then_resumes(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["sweep", str(EXAMPLE), "-o", str(out), "--workers", "2"]) == 0
    first = capsys.readouterr().out
    assert first.startswith("36 points: 36 run, 0 cached in ")
    df = pd.read_parquet(out / "summary.parquet")
    assert len(df) == 36 * 3 and set(df.seed) == {7, 8, 9}
    assert set(df["topology.bottleneck.queue.limit"]) == {5, 15, 25, 50, 100, 200}
    assert len(pd.read_csv(out / "summary.csv")) == len(df)
    assert (pd.read_csv(out / "points.csv").status == "ok").all()
    # A longer queue holds more packets in it: the mean RTT grows with the limit.
    rtt = df[df.flow == "near"].groupby("topology.bottleneck.queue.limit").rtt_mean_s.mean()
    assert rtt[5] < rtt[50] < rtt[200]

    assert main(["sweep", str(EXAMPLE), "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert pd.read_parquet(out / "summary.parquet").equals(df)


def test_recorded_series_are_written_for_every_point(tmp_path, capsys):
    traced = grid(tmp_path)
    text = traced.read_text().replace(
        "[sweep.set]\n", '[sweep.set]\n"trace.series" = ["cwnd"]\n"trace.interval" = "500ms"\n'
    )
    traced.write_text(text)
    out = tmp_path / "out"
    assert main(["sweep", str(traced), "-o", str(out), "-q"]) == 0
    series = pd.read_parquet(out / "series.parquet")
    assert set(series.series) == {"cwnd"} and set(series.point) == {0, 1}
    assert set(series.time_s) == {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0}


def test_default_directory_and_set(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = grid(tmp_path, extra='name = "my grid"\n')
    assert main(["sweep", str(path), "--workers", "0", "--set", "seed=40"]) == 0
    out = tmp_path / "results" / "my_grid"
    assert f"results: {Path('results') / 'my_grid'}" in capsys.readouterr().out
    assert set(pd.read_parquet(out / "summary.parquet").seed) == {40}


def test_invalid_points_exit_2_with_their_paths(tmp_path, capsys):
    path = grid(tmp_path, axes='"topology.bottleneck.queue.limit" = [10, -5]')
    assert main(["sweep", str(path), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 1 of 2 sweep points are invalid:")
    assert "topology.bottleneck.queue.limit: invalid value: integer `-5`" in err
    assert "point 1: topology.bottleneck.queue.limit=-5, seed=7" in err
    assert not (tmp_path / "o" / "points").exists()


def test_unknown_key_exit_2(tmp_path, capsys):
    path = grid(tmp_path, extra="replication = 3\n")
    assert main(["sweep", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: sweep.replication: unknown key; expected one of `name`")
    assert "`replications` (how many seeds per point" in err


def test_failed_point_exit_1_and_listed(tmp_path, monkeypatch, capsys):
    real = runner.run

    def fail_small_queue(d, **kw):
        if d["topology"]["bottleneck"]["queue"]["limit"] == 10:
            raise RuntimeError("boom")
        return real(d, **kw)

    monkeypatch.setattr(runner, "run", fail_small_queue)
    out = tmp_path / "o"
    assert main(["sweep", str(grid(tmp_path)), "-o", str(out), "--workers", "0"]) == 1
    cap = capsys.readouterr()
    assert cap.out.startswith("2 points: 2 run, 0 cached, 1 failed in ")
    assert "failed: point 0 (topology.bottleneck.queue.limit=10, seed=7): RuntimeError: boom" in (
        cap.err
    )
    points = pd.read_csv(out / "points.csv")
    assert list(points.status) == ["failed", "ok"] and "boom" in points.error.iat[0]


def test_dask_without_dask_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    assert main(["sweep", str(grid(tmp_path)), "--dask", "tcp://127.0.0.1:8786"]) == 1
    err = capsys.readouterr().err
    assert "pip install 'dask[distributed]' (or, in a ccsim clone, pip install '.[dask]')" in err


@pytest.mark.parametrize(
    "address, why",
    [
        ("notanaddress", "the port is missing"),
        ("127.0.0.1", "the port is missing"),
        ("tcp://10.0.0.5:99999", "the port must be 1 to 65535"),
        ("http://10.0.0.5:8786", "it is not a scheduler address"),
    ],
)
def test_malformed_dask_address_is_named_with_the_accepted_form(tmp_path, capsys, address, why):
    assert main(["sweep", str(grid(tmp_path)), "--dask", address]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: --dask: {address!r}: {why}; expected tcp://host:port or host:port "
        "(a running scheduler's address, e.g. tcp://10.0.0.5:8786)\n"
    )


def test_workers_with_dask_is_refused(tmp_path, capsys):
    path = grid(tmp_path)
    assert main(["sweep", str(path), "--dask", "tcp://127.0.0.1:8786", "--workers", "2"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_dry_run_validates_and_counts_without_running(tmp_path, capsys):
    path, out = grid(tmp_path), tmp_path / "o"
    assert main(["sweep", str(path), "-o", str(out), "--dry-run"]) == 0
    assert capsys.readouterr().out.strip() == (
        f"ok: 2 valid points (2 distinct scenarios): 0 already in {out}, 2 to run"
    )
    assert not out.exists()
    assert main(["sweep", str(path), "-o", str(out), "--workers", "0", "-q"]) == 0
    capsys.readouterr()
    assert main(["sweep", str(path), "-o", str(out), "--dry-run"]) == 0
    assert "2 already in" in capsys.readouterr().out


def test_a_scenario_is_not_a_sweep_file(capsys):
    assert main(["sweep", str(ROOT / "scenarios" / "dumbbell-reno.toml")]) == 2
    err = capsys.readouterr().err
    assert "error: sweep: a sweep file needs a [sweep] table" in err and "as `base`" in err
