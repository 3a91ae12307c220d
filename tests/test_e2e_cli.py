"""The ccsim command end to end, on the real compiled core."""

import json
import subprocess
import sys

import pytest

core = pytest.importorskip("ccsim._core")

from ccsim.cli import main  # noqa: E402

SMALL = """
name = "small"
duration = "3s"
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "20ms" }
[[flows]]
kind = "tcp"
name = "tcp1"
src = "s0"
dst = "d0"
"""


@pytest.fixture
def small(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p


def test_run_default_scenario_writes_everything(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run"]) == 0
    out = capsys.readouterr().out
    assert "tcp1" in out and "tcp2" in out and "cbr" in out and "wall time:" in out
    dirs = list((tmp_path / "results").glob("default-*"))
    assert len(dirs) == 1
    files = {p.name for p in dirs[0].iterdir()}
    expected = {"flows.parquet", "queues.parquet", "meta.json", "scenario.json"}
    expected |= {f"trace_{s}.parquet" for s in ("cwnd", "ssthresh", "srtt", "throughput", "queue")}
    expected |= {"cwnd.png", "throughput.png", "queue.png"}
    assert expected <= files
    meta = json.loads((dirs[0] / "meta.json").read_text())
    assert meta["name"] == "default" and meta["duration_s"] == 30.0 and meta["wall_s"] > 0


def test_run_file_quiet_prints_only_the_directory(small, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["run", str(small), "-o", str(out), "-q", "--seed", "5"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert json.loads((out / "meta.json").read_text())["seed"] == 5


def test_figure_format(tmp_path, monkeypatch, capsys):
    out = tmp_path / "svg"
    args = ["run", "-o", str(out), "-q", "--set", "duration=2", "--figure-format", "svg"]
    assert main(args) == 0
    names = {p.name for p in out.iterdir()}
    assert {"cwnd.svg", "throughput.svg", "queue.svg"} <= names
    assert not any(n.endswith(".png") for n in names)
    assert (out / "cwnd.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(SystemExit) as e:
        main(["run", "--figure-format", "gif"])
    assert e.value.code == 2
    assert "invalid choice: 'gif'" in capsys.readouterr().err


def test_validate_ok(small, capsys):
    assert main(["validate", str(small)]) == 0
    assert capsys.readouterr().out.strip() == "ok: small"


def test_unknown_key_names_its_path(small, capsys):
    small.write_text(SMALL + 'colour = "red"\n')
    assert main(["validate", str(small)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: flows[0]") and "colour" in err
    assert "Traceback" not in err


def test_bad_enum_value_names_its_path(small, capsys):
    assert main(["validate", str(small), "--set", "flows.tcp1.tcp.recovery=vegas"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: flows[0].tcp.recovery: ") and "newreno" in err


def test_unknown_topology_kind(small, capsys):
    assert main(["validate", str(small), "--set", "topology.kind=star"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: topology.kind: ") and "dumbbell" in err


def test_bad_unit(small, capsys):
    assert main(["validate", str(small), "--set", "topology.bottleneck.delay=5 fortnights"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: topology.bottleneck.delay: ") and "ms" in err


def test_schema_is_json_schema(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "flows" in schema["properties"] and "duration" in schema["required"]


def test_console_entry_as_module():
    p = subprocess.run(
        [sys.executable, "-m", "ccsim", "--version"], capture_output=True, text=True, check=True
    )
    assert p.stdout.strip() == f"ccsim {core.version()}"


def test_bad_scenario_exit_status_from_a_subprocess(small):
    small.write_text("duration = \n")
    p = subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(small)], capture_output=True, text=True
    )
    assert p.returncode == 2
    assert p.stderr.startswith("error: invalid TOML") and "Traceback" not in p.stderr


def test_engine_reference_gives_the_fast_routes_tables(small, tmp_path, capsys):
    import pandas as pd

    tables = {}
    for engine in ("fast", "reference"):
        out = tmp_path / engine
        assert main(["run", str(small), "-o", str(out), "-q", "--engine", engine]) == 0
        assert json.loads((out / "scenario.json").read_text())["engine"] == engine
        tables[engine] = pd.read_parquet(out / "flows.parquet")
    pd.testing.assert_frame_equal(tables["fast"], tables["reference"])
    with pytest.raises(SystemExit):
        main(["run", str(small), "--engine", "slow"])
    assert "invalid choice: 'slow'" in capsys.readouterr().err


def test_shorter_duration_names_the_late_flows_and_clip_fits_them(tmp_path, capsys):
    # issue 33, defect 13: `--set duration=10s` failed on one late flow after another.
    from pathlib import Path

    from ccsim import Result

    reno = Path(__file__).resolve().parent.parent / "scenarios" / "dumbbell-reno.toml"
    assert main(["validate", str(reno), "--set", "duration=30s"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: flows[2].stop: 50s is after the end of the run (30s)")
    assert "stopping after it: flows[2] ('video')" in err and "--clip" in err
    out = tmp_path / "o"
    argv = ["run", str(reno), "-o", str(out), "-q", "--no-figures", "--set", "duration=5s"]
    assert main([*argv, "--clip"]) == 0
    assert "clipped: flows[2] ('video') left out" in capsys.readouterr().err
    assert list(Result.load(out).flows["flow"]) == ["near", "far"]


def test_meta_json_records_the_build_and_time(small, tmp_path, capsys):
    from ccsim import _native

    out = tmp_path / "o"
    assert main(["run", str(small), "-o", str(out), "-q", "--no-figures"]) == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["core_id"] == _native.core_id() and meta["ccsim_version"] == _native.version()
    assert meta["core_build"] == _native.build() and meta["finished_at"][:2] == "20"
