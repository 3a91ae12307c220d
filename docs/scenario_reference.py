"""The scenario reference, generated from the scenario JSON Schema that the core prints
(``ccsim schema``): every table of a scenario with each field's type, default, bounds and
description, in the order a reader meets them from the top level down.

The documentation site builds its page ``reference/scenario.md`` from this at build time
(``docs/site_hooks.py``), so the reference cannot drift from the code. Run it alone to print the
page: ``python docs/scenario_reference.py [-o FILE]``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from typing import Any

Schema = dict[str, Any]

# Integer formats schemars writes, as the bounds they imply where no explicit bound is given.
_FORMAT_BOUNDS = {
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def anchor(name: str) -> str:
    """The heading id Python-Markdown's toc gives a heading that reads exactly ``name``."""
    slug = re.sub(r"[^\w\s-]", "", name).strip().lower()
    return re.sub(r"[-\s]+", "-", slug)


def _text(s: str | None) -> str:
    """A description on one line, safe inside a table cell."""
    return " ".join((s or "").split()).replace("|", "\\|")


def _code(value: Any) -> str:
    import json

    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def _without_null(options: list[Schema]) -> list[Schema]:
    return [o for o in options if o.get("type") != "null"]


def type_of(node: Schema) -> str:
    """A short type: a link to a definition, a JSON type, a list of something, or a choice."""
    if "$ref" in node:
        name = _ref_name(node["$ref"])
        return f"[{name}](#{anchor(name)})"
    if "const" in node:
        return _code(node["const"])
    if "enum" in node:
        return " \\| ".join(_code(v) for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(type_of(o) for o in _without_null(node[key]))
    t = node.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"]
        t = t[0] if len(t) == 1 else " or ".join(t)
    if t == "array":
        if "prefixItems" in node:
            return "[" + ", ".join(type_of(i) for i in node["prefixItems"]) + "]"
        return "list of " + type_of(node.get("items", {}))
    return str(t or "any")


def bounds_of(node: Schema) -> str:
    """The bounds a value must keep: ranges, patterns, lengths, allowed values."""
    parts = []
    lo, hi = node.get("minimum"), node.get("maximum")
    fmt = _FORMAT_BOUNDS.get(node.get("format", ""))
    if fmt and lo is None:
        lo = fmt[0]
    if fmt and hi is None:
        hi = fmt[1]
    if lo is not None and hi is not None:
        parts.append(f"{lo} ≤ x ≤ {hi}")
    elif lo is not None:
        parts.append(f"x ≥ {lo}")
    elif hi is not None:
        parts.append(f"x ≤ {hi}")
    if "exclusiveMinimum" in node:
        parts.append(f"x > {node['exclusiveMinimum']}")
    if "exclusiveMaximum" in node:
        parts.append(f"x < {node['exclusiveMaximum']}")
    if "pattern" in node:
        parts.append(f"matches `{node['pattern']}`")
    if "minItems" in node or "maxItems" in node:
        parts.append(f"{node.get('minItems', 0)}–{node.get('maxItems', '∞')} items")
    if "minLength" in node:
        parts.append(f"at least {node['minLength']} characters")
    for key in ("anyOf", "oneOf"):
        for option in _without_null(node.get(key, [])):
            if "$ref" not in option:
                inner = bounds_of(option)
                if inner:
                    parts.append(inner)
    return "; ".join(parts)


def default_of(node: Schema) -> str:
    if "default" not in node or node["default"] is None:
        return ""
    return _code(node["default"])


def field_table(obj: Schema, skip: tuple[str, ...] = ()) -> list[str]:
    props = {k: v for k, v in obj.get("properties", {}).items() if k not in skip}
    if not props:
        return ["No fields."]
    required = set(obj.get("required", []))
    rows = [
        "| field | type | default | bounds | description |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, node in props.items():
        req = " (required)" if name in required else ""
        rows.append(
            f"| `{name}`{req} | {type_of(node)} | {default_of(node)} | {bounds_of(node)} "
            f"| {_text(node.get('description'))} |"
        )
    return rows


def _kind(option: Schema) -> str | None:
    kind = option.get("properties", {}).get("kind", {})
    return kind.get("const") if isinstance(kind, dict) else None


def definition(name: str, node: Schema, level: int = 3) -> list[str]:
    """The section of one definition: its description, then fields, variants or values."""
    hashes = "#" * level
    out = [f"{hashes} {name}", ""]
    if node.get("description"):
        out += [" ".join(node["description"].split()), ""]
    options = node.get("oneOf") or node.get("anyOf")
    if "properties" in node:
        out += field_table(node) + [""]
    elif options:
        values = [o for o in options if "const" in o and "properties" not in o]
        variants = [o for o in options if _kind(o) is not None]
        others = [o for o in options if o not in values and o not in variants]
        if values:
            out += ["| value | meaning |", "| --- | --- |"]
            out += [f"| {_code(o['const'])} | {_text(o.get('description'))} |" for o in values]
            out.append("")
        for o in others:
            bounds = bounds_of(o)
            line = f"- or {type_of(o)}" + (f" ({bounds})" if bounds else "")
            if o.get("description"):
                line += f": {_text(o['description'])}"
            out.append(line)
        if others:
            out.append("")
        for o in variants:
            out += [f"{hashes}# {name}: {_kind(o)}", ""]
            if o.get("description"):
                out += [" ".join(o["description"].split()), ""]
            out += [f'`kind = "{_kind(o)}"`', ""]
            out += field_table(o, skip=("kind",)) + [""]
    else:
        bounds = bounds_of(node)
        out += [f"Type: {type_of(node)}" + (f" ({bounds})" if bounds else "") + ".", ""]
    return out


def _refs(node: Any) -> Iterator[str]:
    """The definitions a node refers to, in document order."""
    if isinstance(node, dict):
        if "$ref" in node:
            yield _ref_name(node["$ref"])
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def reading_order(schema: Schema) -> list[str]:
    """Definitions breadth-first from the top level, then any left unreferenced."""
    defs = schema.get("$defs", {})
    order: list[str] = []
    queue = list(_refs(schema.get("properties", {})))
    while queue:
        name = queue.pop(0)
        if name in order or name not in defs:
            continue
        order.append(name)
        queue += list(_refs(defs[name]))
    return order + sorted(set(defs) - set(order))


# Sections of the page, by definition name; a definition in none of them (an enumeration, a
# unit, one added later) goes to "Values and choices", so nothing the schema holds is left out.
GROUPS = [
    ("Topology and links", ["Topology", "LinkSpec", "LinkOverride", "QueueSpec", "LossSpec"]),
    (
        "Flows",
        ["Flow", "TcpSpec", "CcSpec", "SlowStartSpec", "AcnsSwitch", "AcnsSpec", "SizeSpec"],
    ),
    ("Recording", ["TraceSpec", "SeriesName"]),
]


def render(schema: Schema, version: str) -> str:
    title = schema.get("title", "Scenario")
    lines = [
        "# Scenario reference",
        "",
        f"Every table and field of a scenario, generated from the scenario schema of ccsim "
        f"{version} (`ccsim schema` prints it as JSON Schema). TOML files, Python dicts and the "
        "Python builders all follow it. Quantities take base units (seconds, bit/s, bytes) or "
        'strings with units (`"20ms"`, `"10Mbps"`, `"64KiB"`). A default left blank here '
        "depends on the scenario's `defaults` profile or on other fields: the description says "
        "which, and [algorithms.md §13.2](../algorithms.md#132-defaults-of-the-three-profiles) "
        "has the profiles' table.",
        "",
        f"## {title}",
        "",
    ]
    if schema.get("description"):
        lines += [" ".join(schema["description"].split()), ""]
    lines += field_table(schema) + [""]
    order = reading_order(schema)
    placed: set[str] = set()
    for heading, names in GROUPS + [("Values and choices", order)]:
        names = [n for n in names if n in schema["$defs"] and n not in placed]
        if not names:
            continue
        lines += [f"## {heading}", ""]
        for name in names:
            lines += definition(name, schema["$defs"][name])
            placed.add(name)
    return "\n".join(lines).rstrip() + "\n"


def from_core() -> str:
    """The page for the installed core."""
    from ccsim import _native

    return render(_native.schema(), _native.version())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", help="write the page here instead of stdout")
    args = parser.parse_args(argv)
    page = from_core()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(page)
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
