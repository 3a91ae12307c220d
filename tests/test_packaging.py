"""Release metadata agrees with itself: CITATION.cff's version is the workspace version in
Cargo.toml, the changelog has a section for it, and the licence file is the one pyproject.toml
declares."""

import re
import sys
from pathlib import Path

import yaml  # PyYAML: in the test extra (mkdocs needs it too)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def workspace_version() -> str:
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    return cargo["workspace"]["package"]["version"]


def test_citation_is_cff_1_2_with_the_workspace_version():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    # The keys CFF 1.2.0 requires, non-empty.
    for key in ("message", "title", "authors"):
        assert cff.get(key), key
    assert all(a.get("name") or a.get("family-names") for a in cff["authors"])
    assert str(cff["version"]) == workspace_version()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert cff["license"] == pyproject["project"]["license"]["text"]


def test_changelog_has_the_current_version_and_an_unreleased_section():
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (\S+)", text, flags=re.M)
    assert headings[0] == "Unreleased"
    assert workspace_version() in headings


def test_licence_is_mit_as_declared():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["license"]["text"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
