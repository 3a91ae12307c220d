"""What `import ccsim` offers: exactly the names in __all__, and where a result came from."""

import datetime
import re
import types
from pathlib import Path

import ccsim
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_all_names_only_real_public_objects():
    # issue 33, defect 13: ccsim.annotations (from __future__) and ccsim.Any (from typing)
    # looked like part of the API.
    for name in ccsim.__all__:
        assert not name.startswith("_") or name == "__version__", name
        obj = getattr(ccsim, name)
        assert not isinstance(obj, types.ModuleType), name
        assert getattr(obj, "__module__", "ccsim").startswith("ccsim"), (name, obj)
    assert len(set(ccsim.__all__)) == len(ccsim.__all__)


def test_everything_public_is_in_all():
    public = {
        n
        for n in dir(ccsim)
        if not n.startswith("_") and not isinstance(getattr(ccsim, n), types.ModuleType)
    }
    assert public - set(ccsim.__all__) == set()
    assert "annotations" not in dir(ccsim) and "Any" not in dir(ccsim)


def test_build_info(fake_core):
    # issue 33, defect 10: the README sent users to the private ccsim._native.core_id().
    assert ccsim.build_info() == {
        "ccsim_version": "0.0.0-fake",
        "core_id": "0.0.0-fake+0000000000000000",
        "core_build": "release",
    }


def test_run_meta_says_what_computed_it_and_when(fake_core, tmp_path):
    # issue 33, defect 10: a single run's meta.json had no version, core build or time.
    r = ccsim.run(ccsim.default_scenario())
    assert {k: r.meta[k] for k in ("ccsim_version", "core_id", "core_build")} == (
        ccsim.build_info()
    )
    when = datetime.datetime.strptime(r.meta["finished_at"], "%Y-%m-%dT%H:%M:%S%z")
    assert when.tzinfo is not None
    r.save(tmp_path / "r", figures=False)
    assert ccsim.Result.load(tmp_path / "r").meta["core_id"] == "0.0.0-fake+0000000000000000"


def test_readme_uses_no_private_module():
    text = (ROOT / "README.md").read_text()
    assert not re.findall(r"ccsim\._\w+", text)


def test_running_a_sweep_file_points_to_sweep(fake_core, tmp_path):
    p = tmp_path / "grid.toml"
    p.write_text('[sweep]\nbase = "x.toml"\n[sweep.axes]\nduration = [1, 2]\n')
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(p)
    assert e.value.path == "sweep" and f"ccsim.sweep({str(p)!r})" in e.value.message
