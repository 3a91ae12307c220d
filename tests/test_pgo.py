"""The profile-guided build (bench/pgo.py): its training set covers every kind the scenario
schema lists, and it says clearly what is missing when it cannot run. (The build itself takes
two compilations and is not run here: docs/performance.md has its figures.)"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from ccsim import _native, validate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import pgo  # noqa: E402

SCHEMA_KINDS = {
    "cc": "CcSpec",
    "recovery": "Recovery",
    "slow-start": "SlowStartSpec",
    "queue": "QueueSpec",
    "loss": "LossSpec",
    "profile": "Profile",
}


@pytest.fixture(scope="module")
def training():
    return pgo.training_set()


def test_every_kind_in_the_schema_is_trained(training):
    defs = _native.schema()["$defs"]
    for prefix, definition in SCHEMA_KINDS.items():
        kinds = [
            o.get("const") or o["properties"]["kind"]["const"]
            for o in defs[definition]["oneOf"]
            if "enum" not in o  # the shorthand's bare names, listed as tables beside it
        ]
        assert len(kinds) >= 3, definition
        for kind in kinds:
            if (prefix, kind) == ("cc", "external"):
                continue  # an algorithm written in Python: only code gives one, not a file
            assert f"{prefix}-{kind}" in training, (definition, kind)
    # The benchmark scenarios and the scenario files are in it too.
    for bench_id in ("a", "b", "c", "H", "S", "bR", "bC"):
        assert f"bench-{bench_id}" in training
    assert "file-ndca" in training and "file-red-ecn" in training


def test_the_variants_record_every_series_and_set_what_they_name(training):
    series = [o["const"] for o in _native.schema()["$defs"]["SeriesName"]["oneOf"]]
    d = training["queue-pie"]
    assert d["trace"]["series"] == series
    assert d["topology"]["bottleneck"]["queue"] == {"kind": "pie", "ecn": True}
    assert all(f["tcp"]["ecn"] for f in d["flows"] if f["kind"] == "tcp")
    assert training["cc-vegas"]["flows"][0]["tcp"]["cc"] == "vegas"
    assert training["loss-outage"]["topology"]["bottleneck"]["loss"]["kind"] == "outage"
    assert training["profile-ns2"]["defaults"] == "ns2"


def test_every_training_scenario_validates(training):
    for name, d in training.items():
        if name != "bench-S":  # 10,000 flows take seconds to build; bench tests cover it
            validate(d)


def test_a_loss_kind_without_an_example_is_an_error(monkeypatch):
    monkeypatch.setattr(pgo, "LOSS_EXAMPLES", {"bernoulli": {"p": 0.01}})
    with pytest.raises(pgo.PgoError, match="LOSS_EXAMPLES"):
        pgo.training_set()


def test_llvm_versions_are_read_from_rustc_and_llvm_profdata():
    assert pgo.llvm_major("release: 1.95.0\nLLVM version: 22.1.2\n") == 22
    assert pgo.llvm_major("LLVM (http://llvm.org/):\n  LLVM version 22.1.2-rust-1.95.0\n") == 22
    assert pgo.llvm_major("llvm-profdata: Unknown command!") is None


def _fake_profdata(tmp_path: Path, version: str) -> Path:
    tool = tmp_path / "llvm-profdata"
    tool.write_text(
        f"#!/bin/sh\necho 'LLVM (http://llvm.org/):'\necho '  LLVM version {version}'\n"
    )
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


def _rustc_llvm() -> int:
    major = pgo.llvm_major(subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout)
    assert major is not None
    return major


def test_llvm_profdata_is_found_only_for_rustc_s_llvm(tmp_path, monkeypatch):
    want = _rustc_llvm()
    monkeypatch.setenv("LLVM_PROFDATA", str(tmp_path / "missing"))
    with pytest.raises(pgo.PgoError) as e:
        pgo.find_profdata()
    message = str(e.value)
    assert "LLVM_PROFDATA" in message and "does not exist" in message
    assert "rustup component add llvm-tools" in message and f"LLVM {want}" in message

    monkeypatch.setenv("LLVM_PROFDATA", str(_fake_profdata(tmp_path, "1.0.0")))
    with pytest.raises(pgo.PgoError, match="is LLVM 1"):
        pgo.find_profdata()

    # An old llvm-profdata that answers `merge --version` only, and one that answers neither.
    old = tmp_path / "old"
    old.mkdir()
    tool = _fake_profdata(old, f"{want}.0.6")
    body = tool.read_text().removeprefix("#!/bin/sh\n")
    tool.write_text(f'#!/bin/sh\n[ "$1" = merge ] || exit 1\n{body}')
    monkeypatch.setenv("LLVM_PROFDATA", os.fspath(tool))
    assert pgo.find_profdata() == tool
    tool.write_text("#!/bin/sh\necho 'Unknown command!'\nexit 1\n")
    with pytest.raises(pgo.PgoError, match="does not say its LLVM version"):
        pgo.find_profdata()

    good = _fake_profdata(tmp_path, f"{want}.0.1-rust")
    monkeypatch.setenv("LLVM_PROFDATA", os.fspath(good))
    assert pgo.find_profdata() == good


def test_a_missing_tool_is_named(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(pgo.PgoError, match="rustc not found"):
        pgo.find_profdata()


def test_without_an_installed_core_it_says_to_install_first(monkeypatch):
    def missing():
        raise ImportError("ccsim's compiled core (ccsim._core) is not available")

    monkeypatch.setattr(_native, "schema", missing)
    with pytest.raises(pgo.PgoError, match="install it first"):
        pgo.training_set()


def test_the_core_says_how_it_was_built():
    kinds = {"release", "debug", "release, PGO", "debug, PGO"}
    assert _native.build() in kinds | {f"{k}, native" for k in kinds}


def test_list_prints_the_training_set_and_builds_nothing(capsys, monkeypatch):
    monkeypatch.setattr(pgo, "training_set", lambda: {"x": {"duration": "1s", "flows": []}})
    monkeypatch.setattr("ccsim.validate", lambda d: None)
    pgo.main(["--list"])
    assert capsys.readouterr().out == "x: 1s, 0 flows\n"


def test_both_builds_optimise_the_whole_program_for_this_processor_unless_portable(monkeypatch):
    monkeypatch.setenv("RUSTFLAGS", "-Cdebuginfo=1")
    env = pgo._cargo_env(Path("/t"), "-Cprofile-use=/p", native=True)
    assert env["CARGO_PROFILE_RELEASE_LTO"] == "fat"
    assert env["CARGO_PROFILE_RELEASE_CODEGEN_UNITS"] == "1"
    assert env["RUSTFLAGS"] == "-Cdebuginfo=1 -Cprofile-use=/p -Ctarget-cpu=native"
    assert env["CARGO_TARGET_DIR"] == "/t"
    monkeypatch.delenv("RUSTFLAGS")
    portable = pgo._cargo_env(Path("/t"), "-Cprofile-use=/p", native=False)
    assert portable["RUSTFLAGS"] == "-Cprofile-use=/p"
