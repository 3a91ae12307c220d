"""The documentation works: the tutorial's code runs as written, and the generated scenario
reference shows every field of the schema with its type, default and bounds.

(`mkdocs build --strict` in `make test` checks the site itself: links, anchors, the API pages.)
"""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.S | re.M)


def test_the_tutorial_runs_as_written(monkeypatch, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    blocks = python_blocks((DOCS / "tutorial.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 5
    namespace: dict = {}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"tutorial.md block {i + 1}", "exec"), namespace)
        finally:
            plt.close("all")
    # The blocks built on one another to the end.
    assert {"result", "red", "summary", "gentle", "again"} <= set(namespace)


def _fields(node):
    """The names of the fields of every object in a schema fragment."""
    if isinstance(node, dict):
        yield from node.get("properties", {})
        for value in node.values():
            yield from _fields(value)
    elif isinstance(node, list):
        for value in node:
            yield from _fields(value)


def test_the_scenario_reference_shows_every_definition_and_field():
    ref = _module("scenario_reference")
    from ccsim import _native

    schema = _native.schema()
    page = ref.render(schema, "test")
    headings = set(re.findall(r"^#+ (.+)$", page, flags=re.M))
    for name in schema["$defs"]:
        assert name in headings, name
    for field in set(_fields(schema)) - {"kind"}:
        assert f"| `{field}`" in page, field
    # Every link to a definition leads to a heading of the page.
    anchors = {ref.anchor(h) for h in headings}
    for target in re.findall(r"\]\(#([^)]+)\)", page):
        assert target in anchors, target


def test_the_reference_renders_types_defaults_and_bounds():
    ref = _module("scenario_reference")
    schema = {
        "title": "Scenario",
        "type": "object",
        "required": ["duration"],
        "properties": {
            "duration": {"description": "Run time.", "$ref": "#/$defs/Duration"},
            "seed": {"type": "integer", "format": "uint64", "default": 1, "minimum": 0},
            "p": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
            "rate": {"type": "string", "pattern": "^[0-9]+bps$"},
            "queue": {"anyOf": [{"$ref": "#/$defs/Queue"}, {"type": "null"}]},
        },
        "$defs": {
            "Duration": {"description": "Seconds.", "type": ["number", "string"]},
            "Queue": {
                "oneOf": [
                    {
                        "description": "First in, first out.",
                        "type": "object",
                        "properties": {
                            "kind": {"const": "droptail"},
                            "limit": {"type": "integer", "minimum": 1, "maximum": 10},
                        },
                        "required": ["kind"],
                    },
                    {"description": "The default", "const": "default"},
                ]
            },
        },
    }
    page = ref.render(schema, "9.9")
    assert "| `duration` (required) | [Duration](#duration) |" in page
    assert "| `seed` | integer | `1` | 0 ≤ x ≤ 18446744073709551615 |" in page
    assert "| `p` | number | `0.5` | 0 ≤ x ≤ 1 |" in page
    assert "matches `^[0-9]+bps$`" in page
    assert "| `queue` | [Queue](#queue) |" in page
    assert "#### Queue: droptail" in page and '`kind = "droptail"`' in page
    assert "| `limit` | integer |  | 1 ≤ x ≤ 10 |" in page
    assert '| `"default"` | The default |' in page
    assert "ccsim 9.9" in page


@pytest.mark.parametrize("page", ["README.md", "docs/quickstart.md", "docs/guide/scenarios.md"])
def test_the_scenario_examples_are_valid_scenarios(page):
    import ccsim

    blocks = re.findall(
        r"^```toml\n(.*?)^```", (ROOT / page).read_text(encoding="utf-8"), re.S | re.M
    )
    assert blocks, page
    for block in blocks:
        ccsim.validate(tomllib.loads(block))


def test_the_python_cc_tutorial_runs_as_written(monkeypatch, tmp_path):
    """docs/guide/python-cc.md: its module block is written as the file it names (a sweep's
    workers import it), then the other blocks run in order, the sweep on two workers."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = (DOCS / "guide" / "python-cc.md").read_text(encoding="utf-8")
    files = re.findall(r'^```python title="([\w.]+)"\n(.*?)^```', text, flags=re.S | re.M)
    assert [name for name, _ in files] == ["delaycc.py"]
    for name, body in files:
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "delaycc", raising=False)
    blocks = python_blocks(text)
    assert len(blocks) >= 4
    namespace: dict = {}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"python-cc.md block {i + 1}", "exec"), namespace)
        finally:
            plt.close("all")
    assert {"result", "df", "table", "rtt"} <= set(namespace)


def test_the_gym_guide_runs_as_written(monkeypatch):
    """docs/guide/gym.md's blocks, in order, from the clone's root (one imports the Python
    CUBIC from docs/examples)."""
    pytest.importorskip("gymnasium")
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the page adds docs/examples
    blocks = python_blocks((DOCS / "guide" / "gym.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 5
    namespace: dict = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"gym.md block {i + 1}", "exec"), namespace)
    assert {"env", "cubic", "vec", "delay_averse", "goodput_only"} <= set(namespace)
