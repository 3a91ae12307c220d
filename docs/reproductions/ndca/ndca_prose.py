"""The prose of the paper 003 report kept as Markdown: ``template.md`` holds the sections
(each opened by a ``<!-- section: NAME -->`` line) as ``string.Template`` text, whose ``$name``
placeholders the report fills with numbers from the runs. A placeholder left unfilled is an
error (``Template.substitute``), so no section can go out with a hole in it."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from string import Template

TEMPLATE = Path(__file__).resolve().parent / "template.md"
_MARK = re.compile(r"^<!-- section: ([a-z0-9_]+) -->\n", re.M)


@cache
def sections(path: Path = TEMPLATE) -> dict[str, Template]:
    """The template's sections by name (text between one marker and the next, stripped)."""
    text = path.read_text()
    marks = list(_MARK.finditer(text))
    if not marks:
        raise ValueError(f"{path}: no '<!-- section: NAME -->' lines")
    out = {}
    for m, nxt in zip(marks, [*marks[1:], None]):
        body = text[m.end() : nxt.start() if nxt else len(text)]
        if m.group(1) in out:
            raise ValueError(f"{path}: section {m.group(1)!r} appears twice")
        out[m.group(1)] = Template(body.strip("\n") + "\n")
    return out


def render(name: str, **values) -> str:
    """Section ``name`` with every placeholder filled (KeyError names a missing one)."""
    try:
        return sections()[name].substitute(**values)
    except KeyError as e:
        raise KeyError(f"template.md, section {name!r}: no value for {e}") from None
