"""Sweeps on a Dask LocalCluster (worker processes) give what the local pool gives."""

import os
from pathlib import Path

import pandas as pd
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")
distributed = pytest.importorskip("distributed")

from ccsim.cli import main  # noqa: E402
from sweep_base import AXES, base  # noqa: E402

RENO = Path(__file__).resolve().parent.parent / "scenarios" / "dumbbell-reno.toml"


def test_local_cluster_matches_local_pool(tmp_path):
    pool = ccsim.sweep(base(), AXES, replications=2, workers=2, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:  # fmt: skip
        ran = []
        dask = ccsim.sweep(base(), AXES, replications=2, client=client, output=tmp_path / "py",
                           progress=False, on_point=ran.append)  # fmt: skip
        pd.testing.assert_frame_equal(dask, pool)
        # The points ran in the cluster's worker processes, not in this one.
        workers = set(client.run(os.getpid).values())
        assert {r.worker["pid"] for r in ran} <= workers and len(ran) == 8

        # The command line reaches the same scheduler by its address.
        sweep_file = tmp_path / "grid.toml"
        sweep_file.write_text(
            f"[sweep]\nbase = {str(RENO)!r}\nreplications = 2\n"
            '[sweep.set]\nduration = "3s"\n"flows.video" = { start = "1s", stop = "2s" }\n'
            '[sweep.axes]\n"topology.bottleneck.queue.limit" = [10, 100]\n'
        )
        out = tmp_path / "cli"
        args = ["sweep", str(sweep_file), "-o", str(out), "--dask", cluster.scheduler_address]
        assert main([*args, "-q"]) == 0
        cli = pd.read_parquet(out / "summary.parquet")
        assert len(cli) == 2 * 2 * 3  # limits x seeds x flows
        assert sorted(cli.seed.unique()) == [7, 8]
