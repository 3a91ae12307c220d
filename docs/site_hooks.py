"""mkdocs hooks of the documentation site (``mkdocs.yml`` names this file).

- ``reference/scenario.md`` is generated at build time from the core's scenario schema
  (``docs/scenario_reference.py``), so the scenario reference cannot drift from the code.
- ``changelog.md`` is the repository's ``CHANGELOG.md``.
- Pages may link to files of the repository outside ``docs/`` (a scenario file, a source file)
  by their relative path, as they do when read on a code host. Those files are copied into the
  site under ``repo/`` and the links rewritten to them; a link to a file that does not exist
  stays as written, so ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import importlib.util
import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
REPO_PREFIX = "repo/"
# A Markdown link's target: ](target) or ](target "title"); images included.
_LINK = re.compile(r"\]\(([^)\s#]+)(#[^)\s]*)?((?:\s+\"[^\"]*\")?)\)")


def _scenario_reference() -> str:
    spec = importlib.util.spec_from_file_location(
        "scenario_reference", Path(__file__).with_name("scenario_reference.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.from_core()


def _outside_target(docs_dir: Path, src_uri: str, target: str) -> str | None:
    """The repository path (posix) a relative link leads to when that is outside docs/."""
    if "://" in target or target.startswith(("/", "mailto:")):
        return None
    resolved = (docs_dir / posixpath.dirname(src_uri) / target).resolve()
    try:
        resolved.relative_to(docs_dir)
        return None
    except ValueError:
        pass
    try:
        return resolved.relative_to(ROOT).as_posix()
    except ValueError:
        return None


def on_files(files: Files, config) -> Files:
    docs_dir = Path(config["docs_dir"]).resolve()
    files.append(File.generated(config, "reference/scenario.md", content=_scenario_reference()))
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog.replace("](docs/", "](")))
    # Repository files the pages link to, copied under repo/.
    wanted: set[str] = set()
    for f in list(files.documentation_pages()):
        if f.abs_src_path is None:
            continue
        text = Path(f.abs_src_path).read_text(encoding="utf-8")
        for m in _LINK.finditer(text):
            path = _outside_target(docs_dir, f.src_uri, m.group(1))
            if path and (ROOT / path).is_file():
                wanted.add(path)
    for path in sorted(wanted):
        files.append(File.generated(config, REPO_PREFIX + path, abs_src_path=str(ROOT / path)))
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    docs_dir = Path(config["docs_dir"]).resolve()
    src_uri = page.file.src_uri

    def rewrite(m: re.Match) -> str:
        path = _outside_target(docs_dir, src_uri, m.group(1))
        if path is None or files.get_file_from_path(REPO_PREFIX + path) is None:
            return m.group(0)
        rel = posixpath.relpath(REPO_PREFIX + path, posixpath.dirname(src_uri) or ".")
        return f"]({rel}{m.group(2) or ''}{m.group(3)})"

    return _LINK.sub(rewrite, markdown)
