"""A griffe extension for the API pages (``mkdocs.yml`` loads it for mkdocstrings): ccsim's
docstrings are written for ``help()`` and the REPL, in reStructuredText's inline style, which
Markdown would misread. Before rendering, each docstring's

- doctest lines (``>>> ...`` and the output under them) become a fenced ``pycon`` block, so
  ``s["flows"][0]`` is code and not a Markdown link;
- roles such as :class:`ScenarioError` or :func:`ccsim.run` become code spans.

The source is not changed; ``help()`` still shows the docstrings as written.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`~?([^`]+)`")


def markdown_of(text: str) -> str:
    out: list[str] = []
    in_doctest = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(">>>"):
            if not in_doctest:
                out.append("```pycon")
                in_doctest = True
            out.append(stripped)
            continue
        if in_doctest:
            if stripped:  # the output printed under a doctest line
                out.append(stripped)
                continue
            out.append("```")
            in_doctest = False
        out.append(_ROLE.sub(r"`\1`", line))
    if in_doctest:
        out.append("```")
    return "\n".join(out)


class RestInlineToMarkdown(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)
