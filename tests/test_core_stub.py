"""The stub of the compiled core (python/ccsim/_core.pyi) matches the built module: mypy's
stubtest compares every function, class, property and parameter name with the runtime, so a
binding added to crates/ccsim-py without its stub fails here."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

STUB = Path(__file__).resolve().parent.parent / "python" / "ccsim" / "_core.pyi"


def test_the_stub_matches_the_compiled_core(tmp_path):
    pytest.importorskip("ccsim._core", reason="needs the compiled core")
    pytest.importorskip("mypy.stubtest")
    run = subprocess.run(
        # A cache of its own: not shared with a `mypy` run of the package at the same time.
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "--mypy-config-file",
            "pyproject.toml",
            "ccsim._core",
        ],
        cwd=STUB.parents[2],
        env={**os.environ, "MYPY_CACHE_DIR": str(tmp_path / "mypy-cache")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_package_says_it_is_typed():
    assert (STUB.parent / "py.typed").is_file()
    assert STUB.is_file()
