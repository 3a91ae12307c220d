"""Changing one value deep inside a scenario dict: ``--set`` on the command line and sweeps.

A path is dot-separated segments. On a list a segment is an index (``flows[2]`` or
``flows.2``), ``*`` (every element), a name (the element whose ``"name"`` equals it, e.g.
``flows.tcp1.tcp.cc``) or a filter ``[key=value]`` (every element whose ``key`` equals
``value``, e.g. ``flows[kind=tcp].tcp.cc``, which leaves CBR flows alone). On a table it is a
key; missing intermediate tables are created, so ``flows.tcp1.tcp.cc`` works on a flow that has
no ``tcp`` table yet.
"""

from __future__ import annotations

import copy
import datetime
import re
import sys
from typing import Any, NamedTuple, Union

from .errors import ScenarioError
from .value_check import check_values

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

STAR = "*"
# A segment is a key (anything but dots and brackets) followed by any number of [index] parts.
_SEGMENT = re.compile(r"([^.\[\]]*)((?:\[[^\[\]]*\])*)")
_INDEX = re.compile(r"\[([^\[\]]*)\]")
# Segments are split at dots outside brackets, so a filter value may hold a dot ([name=a.b]).
_DOT_OUTSIDE_BRACKETS = re.compile(r"\.(?![^\[]*\])")


class Filter(NamedTuple):
    """``[key=value]``: the elements of a list whose ``key`` equals ``value``."""

    key: str
    value: str

    def matches(self, item: Any) -> bool:
        if not isinstance(item, dict) or self.key not in item:
            return False
        have = item[self.key]
        # Compared as text and as a TOML value, so [kind=tcp] and [pairs=2] both read naturally.
        return have == self.value or (
            not isinstance(have, bool) and have == parse_value(self.value)
        )

    def __str__(self) -> str:
        return f"[{self.key}={self.value}]"


# str: key, name or "*"; int: an index written in brackets; Filter: [key=value]
Token = Union[str, int, Filter]


def parse_path(path: str) -> list[Token]:
    """Splits ``"flows[2].tcp.cc"`` into ``["flows", 2, "tcp", "cc"]``.

    Bracketed parts must be indices, ``*`` or ``key=value`` filters; dotted parts stay strings
    (``"2"`` is resolved to an index only when it meets a list, since on a table it is an
    ordinary key).
    """
    if not path or path.strip() != path:
        raise ScenarioError(
            path, "invalid path: expected dot-separated keys such as flows.tcp1.tcp.cc"
        )
    tokens: list[Token] = []
    for part in _DOT_OUTSIDE_BRACKETS.split(path):
        m = _SEGMENT.fullmatch(part)
        if m is None or (not m.group(1) and not m.group(2)):
            raise ScenarioError(
                path, f"invalid path segment {part!r}: expected a key, name, index or *"
            )
        if m.group(1):
            tokens.append(m.group(1))
        for inner in _INDEX.findall(m.group(2)):
            if inner == STAR:
                tokens.append(STAR)
            elif inner.isdigit():
                tokens.append(int(inner))
            elif _is_filter(inner):
                key, _, value = inner.partition("=")
                tokens.append(Filter(key.strip(), value.strip()))
            else:
                raise ScenarioError(
                    path, f"invalid index [{inner}]: expected a number, * or key=value"
                )
    return tokens


def _is_filter(inner: str) -> bool:
    key, sep, value = inner.partition("=")
    return bool(sep and key.strip() and value.strip())


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bracketed(token: int | Filter) -> str:
    return str(token) if isinstance(token, Filter) else f"[{token}]"


def _join(prefix: str, token: Token) -> str:
    if isinstance(token, Filter):
        return f"{prefix}{token}"
    if isinstance(token, int):
        return f"{prefix}[{token}]"
    return f"{prefix}.{token}" if prefix else str(token)


def _list_index(items: list, token: Token, where: str) -> int:
    """Resolves an index or a name on a list; raises naming what exists."""
    if isinstance(token, int) or (isinstance(token, str) and token.isdigit()):
        i = int(token)
        if i >= len(items):
            span = f"indices 0..{len(items) - 1}" if items else "no elements"
            raise ScenarioError(
                _join(where, i),
                f"index {i} out of range: {where} has {len(items)} element(s), {span}",
            )
        return i
    names = [it.get("name") for it in items if isinstance(it, dict)]
    hits = [i for i, it in enumerate(items) if isinstance(it, dict) and it.get("name") == token]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise ScenarioError(
            _join(where, token), f"{len(hits)} elements of {where} are named {token!r}"
        )
    if not items:
        raise ScenarioError(_join(where, token), f"no element named {token!r}: {where} is empty")
    named = [repr(n) for n in names if n is not None]
    there = f"names there: {', '.join(named)}" if named else "its elements have no names"
    raise ScenarioError(
        _join(where, token),
        f"no element of {where} is named {token!r} ({there}); "
        f"use a name, an index 0..{len(items) - 1} or *",
    )


def _filtered(items: list, token: Filter, where: str) -> list[int]:
    """Indices of the elements a filter selects; raises naming the values there if none."""
    hits = [i for i, it in enumerate(items) if token.matches(it)]
    if hits:
        return hits
    values = sorted(
        {repr(it[token.key]) for it in items if isinstance(it, dict) and token.key in it}
    )
    if values:
        there = f"values of {token.key!r} there: {', '.join(values)}"
    else:
        there = f"no element has a {token.key!r} key"
    raise ScenarioError(
        _join(where, token), f"no element of {where} has {token.key} = {token.value!r} ({there})"
    )


def _set(node: Any, tokens: list[Token], value: Any, where: str) -> None:
    token, rest = tokens[0], tokens[1:]
    if isinstance(node, list):
        if token == STAR:
            indices: Any = range(len(node))
        elif isinstance(token, Filter):
            indices = _filtered(node, token, where)
        else:
            indices = [_list_index(node, token, where)]
        for i in indices:
            if rest:
                _set(node[i], rest, value, _join(where, i))
            else:
                # A copy per element: with `*` the elements must not share one mutable value,
                # or a later override of one would change them all.
                node[i] = copy.deepcopy(value)
        return
    if isinstance(node, dict):
        if token == STAR or isinstance(token, (int, Filter)):
            shown = _bracketed(token) if isinstance(token, (int, Filter)) else "[*]"
            keys = ", ".join(map(str, node)) or "nothing"
            raise ScenarioError(
                where,
                f"{where or 'the scenario'} is a table, not a list, so {shown} does not apply; "
                f"keys there: {keys}",
            )
        here = _join(where, token)
        if not rest:
            node[token] = copy.deepcopy(value)
            return
        if token not in node:
            if isinstance(rest[0], (int, Filter)) or rest[0] == STAR:
                raise ScenarioError(here, f"{here} does not exist, so it cannot be indexed")
            node[token] = {}
        _set(node[token], rest, value, here)
        return
    raise ScenarioError(
        where,
        f"{where} is a {type(node).__name__} ({_describe(node)}), not a table or list, "
        f"so it has no {token!r}",
    )


def set_path(d: dict, path: str, value: Any) -> None:
    """Sets the value at ``path`` in the scenario dict ``d`` in place.

    >>> s = {"flows": [{"name": "tcp1", "kind": "tcp"}]}
    >>> set_path(s, "flows.tcp1.tcp.cc", "reno")
    >>> s["flows"][0]["tcp"]
    {'cc': 'reno'}

    Raises :class:`ScenarioError` naming the path that failed and what exists there (the
    indices, element names or keys) for an index out of range, an unknown name, or a path that
    walks into a plain value.
    """
    if not isinstance(d, dict):
        raise TypeError(f"set_path needs a dict, not {type(d).__name__}")
    # Bounded first: the value is deep-copied, which recurses (value_check.py).
    tokens = parse_path(path)
    check_values(value, path, depth=len(tokens))
    _set(d, tokens, value, "")


def split_assignment(item: str) -> tuple[str, str] | None:
    """Splits ``PATH=VALUE`` at the first ``=`` outside brackets, so that a filter's own ``=``
    stays in the path: ``"flows[kind=tcp].tcp.cc=reno"`` → ``("flows[kind=tcp].tcp.cc",
    "reno")``. Later ``=`` belong to the value (``"name=a=b"`` → ``("name", "a=b")``).
    Returns None when there is no ``=`` outside brackets."""
    depth = 0
    for i, ch in enumerate(item):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "=" and depth == 0:
            return item[:i], item[i + 1 :]
    return None


def parse_value(text: str) -> Any:
    """Parses a command-line value: a TOML value if it is one, else the text itself.

    ``10`` → 10, ``0.5`` → 0.5, ``true`` → True, ``"x"`` → "x", ``[1, 2]`` → [1, 2],
    ``{kind = "bernoulli", p = 0.01}`` → a dict; ``reno`` and ``10Mbps`` (not TOML) stay strings.
    """
    if "\n" in text or "\r" in text:
        # One value only: a newline would let the text define further TOML keys.
        return text
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    # TOML dates and times have no JSON form; "2024-01-01" as a name is meant as text.
    if isinstance(value, (datetime.date, datetime.time)):
        return text
    return value
