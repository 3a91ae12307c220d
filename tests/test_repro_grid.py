"""What the reproduction scripts share (docs/reproductions/repro_grid.py): their common options,
and a grid run whose timing is kept from its last full computation."""

import json

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from repro_support import load_script  # noqa: E402
from sweep_base import base  # noqa: E402

grid = load_script("repro_grid")


def sweep(name="tiny", limits=(10, 100)):
    return ccsim.Sweep(base(1), {"topology.bottleneck.queue.limit": list(limits)}, name=name)


def test_options_every_reproduction_takes(tmp_path, capsys):
    ap = grid.parser("Reproduces a paper.\n\nDetails.", "a small grid")
    assert ap.description == "Reproduces a paper."
    assert "a small grid: print the headline numbers" in " ".join(ap.format_help().split())
    args = grid.parse(ap, ["--workers", "3", "--force"])
    assert (args.workers, args.force, args.quick, args.headline) == (3, True, False, None)
    args = grid.parse(ap, [])
    assert (args.workers, args.force) == (1, False)
    args = grid.parse(ap, ["--quick", "--headline", str(tmp_path / "h.json")])
    assert args.quick and args.headline == tmp_path / "h.json"
    # Refused by name, with what is accepted.
    for argv, said in (
        (["--workers", "0"], "--workers: must be at least 1, got 0"),
        (["--headline", "h.json"], "--headline: only with --quick"),
    ):
        with pytest.raises(SystemExit):
            grid.parse(ap, argv)
        assert said in capsys.readouterr().err
    # A script that keeps nothing on disk has no --force.
    assert "--force" not in grid.parser("Reproduces a paper.", "q", force=False).format_help()


def test_timing_is_kept_from_the_last_full_computation(tmp_path):
    first = grid.run_grid(sweep(), tmp_path, 0, False)
    t = first["timing"]
    assert (t["name"], t["points"], t["own"], t["computed"], t["workers"]) == ("tiny", 2, 2, 2, 0)
    assert len(first["points"]) == 2 and set(first["flows"]["point"]) == {0, 1}
    assert t["sim_s"] == pytest.approx(2.0) and t["sim_wall_s"] > 0
    record = tmp_path / "tiny_timing.json"
    assert json.loads(record.read_text())["elapsed_s"] == t["elapsed_s"]
    assert t["full"]["computed"] == 2 and "full" not in json.loads(record.read_text())

    # A rerun reads every point back: it computes nothing and keeps the full run's timing.
    again = grid.run_grid(sweep(), tmp_path, 0, False)
    assert again["timing"]["computed"] == 0
    assert again["timing"]["full"] == json.loads(record.read_text())
    assert again["timing"]["full"]["elapsed_s"] == t["elapsed_s"]


def test_points_shared_with_an_earlier_grid_are_not_its_own(tmp_path):
    first = grid.run_grid(sweep("one", [10]), tmp_path, 0, False)
    shared = frozenset(first["points"]["key"])
    # A wider grid in the same directory: its one new point is all it computes, and that is
    # a full computation of its own points.
    wider = grid.run_grid(sweep("two", [10, 100]), tmp_path, 0, False, shared=shared)
    assert (wider["timing"]["own"], wider["timing"]["computed"]) == (1, 1)
    assert wider["timing"]["full"]["own"] == 1
    # Without knowing it shares a point, nothing here would count as a full computation.
    alone = grid.run_grid(sweep("three", [10, 100, 20]), tmp_path, 0, False)
    assert (alone["timing"]["own"], alone["timing"]["computed"]) == (3, 1)
    assert alone["timing"]["full"] is None


def test_output_is_shown_relative_to_the_repository(tmp_path):
    assert grid.shown(grid.ROOT / "results" / "x") == "results/x"
    assert grid.shown(tmp_path) == tmp_path.resolve().as_posix()


def test_dask_option_and_grids_on_a_dask_client(tmp_path):
    distributed = pytest.importorskip("distributed")
    ap = grid.parser("Reproduces a paper.", "q", dask=True)
    assert ap.parse_args(["--dask", "tcp://h:8786"]).dask == "tcp://h:8786"
    assert ap.parse_args([]).dask is None and ap.parse_args([]).workers == 1
    with pytest.raises(SystemExit):  # a local pool or a cluster, not both
        ap.parse_args(["--workers", "2", "--dask", "tcp://h:8786"])
    with pytest.raises(SystemExit):  # a malformed address ends the script, no traceback
        with grid.dask_client(ap, "no-port"):
            pass
    assert "--dask" not in grid.parser("Reproduces a paper.", "q").format_help()

    local = grid.run_grid(sweep(), tmp_path / "local", 0, False)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster, grid.dask_client(ap, cluster.scheduler_address) as client:  # fmt: skip
        dask = grid.run_grid(sweep(), tmp_path / "dask", 1, False, client=client)
    assert dask["timing"]["computed"] == 2
    cols = ["point", "goodput_bps", "end_s"]
    assert dask["flows"][cols].equals(local["flows"][cols])
