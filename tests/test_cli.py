"""The ccsim command against the stand-in core: output, files, exit status, error lines."""

import json

import pytest
from ccsim.cli import main, parse_sets

TOML = """
name = "small"
duration = 4
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
def scenario_file(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(TOML)
    return p


def test_run_default_writes_results(fake_core, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "-o", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "goodput Mb/s" in stdout and "tcp1" in stdout
    assert f"results: {out}" in stdout and "wall time:" in stdout
    assert (out / "flows.parquet").is_file() and (out / "cwnd.png").is_file()
    assert json.loads((out / "scenario.json").read_text())["name"] == "default"


def test_run_default_directory(fake_core, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--quiet", "--no-figures"]) == 0
    assert main(["run", "--quiet", "--no-figures"]) == 0
    printed = capsys.readouterr().out.split()
    assert len(printed) == 2 and printed[0] != printed[1]
    for p in printed:
        assert p.startswith("results/default-")
        assert (tmp_path / p / "meta.json").is_file()
        assert not (tmp_path / p / "cwnd.png").exists()


def test_run_file_with_seed_and_sets(fake_core, scenario_file, tmp_path, capsys):
    out = tmp_path / "o"
    argv = ["run", str(scenario_file), "-o", str(out), "--seed", "9", "-q"]
    argv += ["--set", "flows.tcp1.tcp.cc=cubic", "--set", "duration=2"]
    assert main(argv) == 0
    s = json.loads((out / "scenario.json").read_text())
    assert s["seed"] == 9 and s["duration"] == 2 and s["flows"][0]["tcp"] == {"cc": "cubic"}
    assert capsys.readouterr().out.strip() == str(out)


def test_bad_set_path(fake_core, capsys):
    assert main(["run", "--set", "flows.tcp9.tcp.cc=reno"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: flows.tcp9: ") and "'tcp1'" in err
    assert "Traceback" not in err


def test_bad_set_syntax(fake_core, capsys):
    assert main(["run", "--set", "novalue"]) == 2
    assert "error: --set: expected PATH=VALUE" in capsys.readouterr().err
    # Reported before the file is even opened.
    assert main(["validate", "missing.toml", "--set", "=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --set: expected PATH=VALUE") and "got '=1'" in err


def test_validate(fake_core, scenario_file, capsys):
    assert main(["validate", str(scenario_file)]) == 0
    assert capsys.readouterr().out.strip() == "ok: small"


def test_validate_reports_core_error(fake_core, scenario_file, capsys):
    argv = ["validate", str(scenario_file), "--set", "flows.tcp1.tcp.recovery=vegas"]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == (
        'error: flows[0].tcp.recovery: unknown variant "vegas"'
    )


def test_missing_file(fake_core, tmp_path, capsys):
    assert main(["validate", str(tmp_path / "none.toml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'none.toml'}: ") and "No such file" in err


def test_toml_syntax_error(fake_core, tmp_path, capsys):
    p = tmp_path / "bad.toml"
    p.write_text("duration = = 3\n")
    assert main(["run", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid TOML in ") and "line 1" in err


def test_schema(fake_core, capsys):
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out)["type"] == "object"


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("ccsim ")


def test_no_command(capsys):
    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2


def test_parse_sets():
    assert parse_sets(["a.b=1", "c = reno", "d=[1, 2]", "e=x=y"]) == {
        "a.b": 1,
        "c": "reno",
        "d": [1, 2],
        "e": "x=y",
    }


def test_set_splits_at_the_first_equals_outside_brackets(fake_core, scenario_file, tmp_path):
    # issue 33, defect 1: the README's own filter, `flows[kind=tcp].tcp.cc=reno`, was split at
    # the `=` inside the brackets.
    assert parse_sets(["flows[kind=tcp].tcp.cc=reno", "flows[name=a=b].start=x=1"]) == {
        "flows[kind=tcp].tcp.cc": "reno",
        "flows[name=a=b].start": "x=1",
    }
    out = tmp_path / "o"
    argv = ["run", str(scenario_file), "-o", str(out), "-q", "--no-figures"]
    assert main([*argv, "--set", "flows[kind=tcp].tcp.cc=reno"]) == 0
    assert json.loads((out / "scenario.json").read_text())["flows"][0]["tcp"] == {"cc": "reno"}
    assert main(["validate", str(scenario_file), "--set", "flows[kind=tcp].start=1"]) == 0


def test_set_without_a_value_outside_brackets(fake_core, capsys):
    # Every `=` is inside the brackets: no value was given.
    assert main(["run", "--set", "flows[kind=tcp].tcp.cc"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --set: expected PATH=VALUE") and "flows[kind=tcp]" in err


def test_sweep_set_with_a_filter(fake_core, scenario_file, tmp_path, capsys):
    sweep = tmp_path / "grid.toml"
    sweep.write_text(f'[sweep]\nbase = "{scenario_file}"\n[sweep.axes]\nduration = [2, 3]\n')
    argv = ["sweep", str(sweep), "-o", str(tmp_path / "out"), "--dry-run"]
    assert main([*argv, "--set", "flows[kind=tcp].tcp.cc=reno"]) == 0
    assert capsys.readouterr().out.startswith("ok: 2 valid points")


def test_run_refuses_an_output_directory_in_use(fake_core, scenario_file, tmp_path, capsys):
    # issue 33, defect 5: a second run into the same -o mixed the two runs' files.
    out = tmp_path / "out"
    assert main(["run", "-o", str(out), "-q"]) == 0
    before = sorted(p.name for p in out.iterdir())
    assert "trace_cwnd.parquet" in before and "cwnd.png" in before
    argv = ["run", str(scenario_file), "-o", str(out), "-q", "--no-figures"]
    fake_core.Simulation.last_json = ""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out}: directory not empty") and "--overwrite" in err
    assert sorted(p.name for p in out.iterdir()) == before
    assert fake_core.Simulation.last_json == ""  # refused before running
    assert main([*argv, "--overwrite"]) == 0
    # Replaced as a whole: the first run's figures are gone.
    assert not list(out.glob("*.png")) and (out / "trace_cwnd.parquet").is_file()
    assert json.loads((out / "scenario.json").read_text())["name"] == "small"
    (out / "notes.txt").write_text("mine")
    assert main([*argv, "--overwrite"]) == 2
    assert "notes.txt, not part of a saved ccsim result" in capsys.readouterr().err


def test_run_on_a_sweep_file_points_to_ccsim_sweep(fake_core, scenario_file, tmp_path, capsys):
    # issue 33, defect 13: it said "unknown field `sweep`".
    sweep = tmp_path / "grid.toml"
    sweep.write_text(f'[sweep]\nbase = "{scenario_file}"\n[sweep.axes]\nduration = [2, 3]\n')
    for command in ("run", "validate"):
        assert main([command, str(sweep)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: sweep: {sweep} is a sweep file") and (
            f"`ccsim sweep {sweep}`" in err
        )


def test_clip_fits_the_flows_into_a_shorter_run(fake_core, tmp_path, capsys):
    p = tmp_path / "late.toml"
    p.write_text(
        TOML + '[[flows]]\nkind = "cbr"\nname = "late"\nsrc = "s0"\ndst = "d0"\n'
        'start = "3s"\nstop = "9s"\n'
    )
    out = tmp_path / "o"
    argv = ["run", str(p), "-o", str(out), "-q", "--no-figures", "--set", "duration=2"]
    assert main([*argv, "--clip"]) == 0
    flows = json.loads((out / "scenario.json").read_text())["flows"]
    assert [f["name"] for f in flows] == ["tcp1"]
    assert "clipped: flows[1] ('late') left out" in capsys.readouterr().err
    assert main(["validate", str(p), "--set", "duration=5", "--clip"]) == 0
    assert "flows[1] ('late').stop: 9s clipped to the end (5)" in capsys.readouterr().err


def test_help_says_where_results_go_and_schema_has_help(fake_core, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # argparse wraps at hyphens otherwise
    with pytest.raises(SystemExit):
        main(["run", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert "results/NAME-YYYYmmdd-HHMMSS" in text and "meta.json" in text
    assert "ccsim.Result.load(DIR)" in text
    with pytest.raises(SystemExit):
        main(["schema", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert "JSON Schema" in text and "-o FILE" in text
    assert main(["schema", "-o", str(tmp_path / "s.json")]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads((tmp_path / "s.json").read_text())["title"] == "Scenario"
