"""``ccsim reproduce``: the list of papers, the refusals (unknown paper, an option the paper's
script lacks, no checkout), running a script with the options it takes, its exit status and
Ctrl-C, on stand-in scripts in a temporary checkout; and one real quick run."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from ccsim import cli_reproduce
from ccsim.cli import main

ROOT = Path(__file__).resolve().parent.parent

# A stand-in reproduction: takes --workers and --quick (no --dask, no --force), prints what it
# got, and writes a report and a figure unless --quick; FAKE_EXIT sets its exit status and
# FAKE_WAIT makes it wait for Ctrl-C, leaving a file saying it stopped cleanly.
FAKE = textwrap.dedent(
    """
    import argparse, os, sys, time
    from pathlib import Path

    here = Path(__file__).resolve().parents[1]  # docs/reproductions, above the paper's folder
    ap = argparse.ArgumentParser(description="A stand-in reproduction.")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(f"script got workers={args.workers} quick={args.quick}", flush=True)
    if os.environ.get("FAKE_WAIT"):
        (here / "started").write_text("")
        try:
            time.sleep(60)
        except KeyboardInterrupt:
            (here / "stopped").write_text("cleanly")
            sys.exit(130)
    if not args.quick:
        (here / "xcp.md").write_text("# report")
        (here / "figures" / "xcp-a.png").write_bytes(b"png")
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
    """
)


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A ccsim checkout with the stand-in as the xcp reproduction; the current directory is
    a folder inside it, and the installed package's own checkout is out of reach."""
    root = tmp_path / "repo"
    (root / "docs" / "reproductions" / "figures").mkdir(parents=True)
    (root / "docs" / "reproductions" / "xcp").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "ccsim"\n')
    (root / "docs" / "reproductions" / "xcp" / "run.py").write_text(FAKE)
    (root / "sub").mkdir()
    monkeypatch.chdir(root / "sub")
    monkeypatch.setattr(cli_reproduce, "PACKAGE_DIR", tmp_path / "elsewhere")
    return root


def test_list_names_every_paper_with_its_cost_and_quick_mode(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert main(["reproduce"]) == 0  # no paper: the same list
    assert capsys.readouterr().out == listed
    lines = listed.splitlines()
    assert [line.split()[0] for line in lines] == ["acns", "ass", "ndca", "red-ecn", "xcp"]
    for line in lines:
        assert "full run" in line and "min" in line
        assert line.endswith("; --quick")  # every script of this checkout has a quick mode


def test_list_says_whether_a_script_has_a_quick_mode(checkout, capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "xcp " in out and out.splitlines()[-1].endswith("; --quick")
    assert [ln for ln in out.splitlines() if ln.startswith("acns")][0].endswith("script missing")
    (checkout / "docs" / "reproductions" / "xcp" / "run.py").write_text("print('no options')\n")
    main(["reproduce", "--list"])
    assert capsys.readouterr().out.splitlines()[-1].endswith("; no --quick")


def test_list_and_a_paper_together_are_refused(capsys):
    assert main(["reproduce", "xcp", "--list"]) == 2
    assert capsys.readouterr().err == "error: --list: give either --list or a paper, not both\n"


def test_unknown_paper_lists_the_papers(capsys):
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "tcp-cubic"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'tcp-cubic'" in err
    assert all(f"'{p}'" in err for p in ("acns", "ass", "ndca", "red-ecn", "xcp"))


def test_an_option_the_script_lacks_is_refused_by_name(checkout, capfd):
    assert main(["reproduce", "xcp", "--dask", "tcp://h:8786"]) == 2
    out, err = capfd.readouterr()
    assert err.startswith("error: --dask: the xcp reproduction does not take a Dask address")
    assert "it takes: --quick, --workers" in err and "script got" not in out
    assert main(["reproduce", "xcp", "--force"]) == 2
    assert "error: --force: the xcp reproduction does not take --force" in capfd.readouterr().err


def test_bad_worker_count_and_workers_with_dask(checkout, capfd):
    assert main(["reproduce", "xcp", "--workers", "0"]) == 2
    assert capfd.readouterr().err == "error: --workers: expected at least 1, got 0\n"
    with pytest.raises(SystemExit):
        main(["reproduce", "xcp", "--workers", "2", "--dask", "tcp://h:8786"])
    assert "not allowed with argument" in capfd.readouterr().err


def test_outside_a_checkout_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli_reproduce, "PACKAGE_DIR", tmp_path / "site-packages" / "ccsim")
    assert main(["reproduce", "xcp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ccsim reproduce must be run inside a ccsim source checkout")
    assert err.count("\n") == 1 and "Traceback" not in err
    # --list still lists the papers, and says why it cannot tell their options.
    assert main(["reproduce", "--list"]) == 0
    assert "no ccsim source checkout here" in capsys.readouterr().out


def test_find_checkout_walks_up_then_tries_the_package(tmp_path):
    repo = tmp_path / "repo"
    (repo / "docs" / "reproductions").mkdir(parents=True)
    (repo / "python" / "ccsim").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "ccsim"\n')
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert cli_reproduce.find_checkout(repo / "docs", None) == repo.resolve()
    assert cli_reproduce.find_checkout(outside, repo / "python" / "ccsim") == repo.resolve()
    with pytest.raises(cli_reproduce.ReproduceError, match="source checkout"):
        cli_reproduce.find_checkout(outside, None)
    # Another project's pyproject.toml, or a broken one, is not a ccsim checkout.
    for text in ('[project]\nname = "other"\n', "[project\n"):
        (repo / "pyproject.toml").write_text(text)
        with pytest.raises(cli_reproduce.ReproduceError):
            cli_reproduce.find_checkout(repo, None)


def test_runs_the_script_and_shows_the_command_and_the_report(checkout, capfd):
    assert main(["reproduce", "xcp", "--workers", "3"]) == 0
    out, err = capfd.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"running: python docs/reproductions/xcp/run.py --workers 3  (in {checkout})"
    assert lines[1] == "script got workers=3 quick=False"
    assert lines[2:] == [
        "report: docs/reproductions/xcp.md",
        "figures: 1 written in docs/reproductions/figures/",
    ]
    assert (checkout / "docs" / "reproductions" / "xcp.md").read_text() == "# report"

    assert main(["reproduce", "xcp", "--quick"]) == 0
    out = capfd.readouterr().out.splitlines()
    assert out[0].startswith("running: python docs/reproductions/xcp/run.py --quick  (in ")
    assert out[1] == "script got workers=1 quick=True"
    assert out[2].startswith("quick mode: no report written")


def test_the_scripts_exit_status_is_passed_on(checkout, monkeypatch, capfd):
    monkeypatch.setenv("FAKE_EXIT", "3")
    assert main(["reproduce", "xcp"]) == 3
    err = capfd.readouterr().err
    assert "error: `python docs/reproductions/xcp/run.py` exited with status 3" in err


def _start_waiting(checkout, **popen) -> subprocess.Popen:
    """`ccsim reproduce xcp` on the stand-in told to wait (FAKE_WAIT), once the stand-in has
    started (or after 60 s, or once the command has ended)."""
    env = {**os.environ, "FAKE_WAIT": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "reproduce", "xcp"],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )
    started = checkout / "docs" / "reproductions" / "started"
    deadline = time.monotonic() + 60
    while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc


def test_ctrl_c_stops_the_script_cleanly(checkout):
    """Ctrl-C in a terminal reaches the command and its script (one process group): the
    script stops by itself, keeping what it finished, and the command exits with 130."""
    proc = _start_waiting(
        checkout,
        start_new_session=True,
        # As a terminal's foreground job: a test run in the background (`cmd &`) would hand
        # down SIGINT ignored, and Python keeps an inherited SIG_IGN.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert (checkout / "docs" / "reproductions" / "started").exists()
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip() == "interrupted"
    assert (checkout / "docs" / "reproductions" / "stopped").read_text() == "cleanly"


def test_real_quick_run_of_the_xcp_reproduction(monkeypatch, capfd):
    """`ccsim reproduce xcp --quick` in this checkout: the script's headline numbers, and no
    report rewritten (the quick mode writes none)."""
    pytest.importorskip("ccsim._core")
    report = ROOT / "docs" / "reproductions" / "xcp.md"
    before = report.stat().st_mtime_ns
    monkeypatch.chdir(ROOT / "tests")
    assert main(["reproduce", "xcp", "--quick"]) == 0
    out = capfd.readouterr().out
    assert out.startswith(f"running: python docs/reproductions/xcp/run.py --quick  (in {ROOT})")
    assert '"headline": {' in out and '"single xcp"' in out
    assert out.splitlines()[-1].startswith("quick mode: no report written")
    assert report.stat().st_mtime_ns == before


def test_sigterm_ends_the_script_too(checkout):
    """SIGTERM to the command alone (a batch scheduler's limit) is passed on to its script."""
    proc = _start_waiting(checkout)
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.strip()) == (128 + signal.SIGTERM, "terminated (SIGTERM)")
