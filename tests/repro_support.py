"""What the reproduction tests share: loading a report script as a module, and expanding a
sweep file into validated points."""

import importlib.util
from pathlib import Path

import ccsim
from ccsim.sweep_spec import check

SCRIPTS = Path(__file__).resolve().parent.parent / "docs" / "reproductions"


def claims_table(report: Path) -> tuple[list[str], list[list[str]]]:
    """The first Markdown table after a report's provenance paragraph: its header and rows."""
    lines = report.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("*Provenance:*"))
    table = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            table.append([c.strip() for c in line.strip("|").split("|")])
        elif table:
            break
    return table[0], table[2:]


def load_script(name: str):
    """A paper's reproduction, `docs/reproductions/<name>/run.py`, or a shared helper,
    `docs/reproductions/<name>.py`, as a module (a paper's run.py puts its folder and the
    helpers' on sys.path, so the modules beside it import too)."""
    path = SCRIPTS / name / "run.py"
    if not path.is_file():
        path = SCRIPTS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name.replace('-', '_')}_repro", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def validated_points(path):
    """The sweep file's base scenario and points; asserts every point resolves to a valid
    scenario."""
    sw = ccsim.load_sweep(path)
    base = sw.base_scenario()
    points = sw.points(base)
    good, bad = check(base, points)
    assert bad == []
    assert len(good) == len(points)
    return base, points
