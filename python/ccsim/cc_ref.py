"""Congestion controls written in Python, carried to a sweep's workers by reference.

A sweep's points run in other processes (a local pool, a Dask cluster), and each finished point
is kept under a hash of its scenario (:mod:`ccsim.sweep_store`). A Python algorithm therefore
travels as data that names it, never as the object: ``{"python": {...}}`` in place of the
flow's ``tcp.cc``, holding

- ``class``: ``"module:QualName"`` of the class given, with ``state`` (the instance's
  attributes, as JSON) when an instance was given, none when the class itself was;
- or ``registered``: the name given to :func:`ccsim.register_cc`, with ``kwargs`` (the
  scenario table's other keys), and where the worker finds it: ``factory``
  (``"module:QualName"`` of the class or function registered) when that name leads back to it,
  else ``module``, the module whose import registers the name;
- ``source``: a fingerprint of the source files of those modules, so that a cached point is not
  taken for an algorithm edited since, and a worker holding another copy of the module fails
  the point instead of computing it with other code.

The reference is part of the point's scenario, so it is part of the point's key. A worker
imports the module by name (:func:`materialize`); hence the class must live in an importable
module: not the script being run (``__main__``, a notebook), not inside a function, not a
lambda. Only a sweep writes these references, and only its workers read them: a scenario that
holds one itself is refused (:func:`references`), so scenario files stay data and never import
code.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import os
import sys
from typing import Any

from . import cc
from .errors import ScenarioError

MARKER = "python"
# How a tuple and a non-finite float travel in an instance's state (JSON has neither).
_TUPLE, _FLOAT = "$tuple", "$float"
_PLAIN = (bool, int, float, str, type(None))

_WHY = (
    "a sweep's workers are separate processes that import the algorithm by its module and "
    "name, so it must be defined at the top level of an importable module (a .py file on "
    "the Python path, or an installed package)"
)


def _cc_values(d: dict[str, Any]):
    """``(index, path, tcp table)`` of each flow that sets ``tcp.cc``."""
    flows = d.get("flows")
    if not isinstance(flows, list):
        return
    for i, flow in enumerate(flows):
        tcp = flow.get("tcp") if isinstance(flow, dict) else None
        if isinstance(tcp, dict) and "cc" in tcp:
            yield i, f"flows[{i}].tcp.cc", tcp


def _flow_name(d: dict[str, Any], i: int) -> str:
    name = d["flows"][i].get("name") if isinstance(d["flows"][i], dict) else None
    return f"flow {name!r}" if isinstance(name, str) else f"flow {i}"


def is_reference(value: Any) -> bool:
    """Whether a ``tcp.cc`` value is a reference written by :func:`references`."""
    return isinstance(value, dict) and set(value) == {MARKER}


def references(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` (not modified) with each Python algorithm in ``flows[i].tcp.cc`` (an instance, a
    class, a registered name or table) replaced by a reference its workers can import. Raises
    :class:`ScenarioError` at the flow's ``tcp.cc`` for one that cannot be carried (defined in
    ``__main__``, in a function, a lambda; an instance attribute JSON cannot hold), and for a
    scenario that already holds a reference."""
    out = d
    for i, path, tcp in list(_cc_values(d)):
        value = tcp["cc"]
        if isinstance(value, dict) and MARKER in value:
            raise ScenarioError(
                path,
                f"a `{MARKER}` table names code for a sweep's workers to import, which only a "
                "sweep writes; give a congestion control written in Python from code (an "
                "instance, a class, or a name registered with ccsim.register_cc)",
            )
        ref = _reference(value, path, _flow_name(d, i))
        if ref is None:
            continue
        if out is d:
            out = dict(d, flows=list(d["flows"]))
        out["flows"][i] = dict(out["flows"][i], tcp=dict(tcp, cc={MARKER: ref}))
    return out


def _reference(value: Any, path: str, flow: str) -> dict[str, Any] | None:
    if isinstance(value, cc.CongestionControl):
        cls = type(value)
        where = _importable(cls, path, flow)
        state = getattr(value, "__dict__", None)
        if state is None or getattr(cls, "__slots__", None):
            raise ScenarioError(
                path,
                f"{flow}: {_name(cls)} keeps its attributes in __slots__; a sweep carries an "
                "instance's attributes (its __dict__) to the workers: give the class, or "
                "register it with ccsim.register_cc and give its parameters in the table",
            )
        encoded = {k: _encode(v, path, flow, f"{_name(cls)}.{k}") for k, v in state.items()}
        return {"class": where, "state": encoded, "source": _fingerprint(_modules(cls))}
    if isinstance(value, type) and issubclass(value, cc.CongestionControl):
        where = _importable(value, path, flow)
        return {"class": where, "source": _fingerprint(_modules(value))}
    name, kwargs = None, {}
    if isinstance(value, str):
        name = value
    elif isinstance(value, dict) and isinstance(value.get("kind"), str):
        name = value["kind"]
        kwargs = {k: v for k, v in value.items() if k != "kind"}
    registry = cc.registered()
    if name is None or name not in registry:
        return None  # a built-in algorithm (or an unknown name, which the core names)
    factory = registry[name]
    ref: dict[str, Any] = {
        "registered": name,
        "kwargs": {k: _encode(v, path, flow, f"{name}({k}=...)") for k, v in kwargs.items()},
    }
    modules = _modules(factory)
    if _lookup_ok(factory):
        ref["factory"] = _where(factory)
    else:
        module = cc.registered_by(name)
        if module is None or module == "__main__":
            what = "the script being run (__main__)" if module else "code ccsim cannot name"
            raise ScenarioError(
                path,
                f"{flow}: {name!r} is {_name(factory)}, registered by {what}; {_WHY}. "
                "Register a class or a top-level function, or call ccsim.register_cc in a "
                "module the workers can import",
            )
        ref["module"] = module
        modules.add(module)
    ref["source"] = _fingerprint(modules)
    return ref


def _name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def _where(obj: Any) -> str:
    return f"{obj.__module__}:{obj.__qualname__}"


def _lookup(where: str) -> Any:
    module, _, qualname = where.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _lookup_ok(obj: Any) -> bool:
    """Whether ``obj`` is found again by its module and qualified name."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or module == "__main__":
        return False
    if "<" in qualname:  # <locals>, <lambda>
        return False
    try:
        return _lookup(f"{module}:{qualname}") is obj
    except (ImportError, AttributeError):
        return False


def _importable(cls: type, path: str, flow: str) -> str:
    """``"module:QualName"`` of a class its workers can import; raises saying why not."""
    if _lookup_ok(cls):
        return _where(cls)
    module, qualname = cls.__module__, cls.__qualname__
    if module == "__main__":
        where = "in the script being run (__main__; a notebook's cells are __main__ too)"
    elif "<locals>" in qualname:
        where = f"inside a function ({qualname})"
    elif module in sys.modules:
        where = f"where {module}.{qualname} does not find it again"
    else:
        where = f"in {module}, which cannot be imported"
    raise ScenarioError(
        path,
        f"{flow}: {_name(cls)} is defined {where}; {_WHY}. Move the class into such a module "
        "and import it from there",
    )


def _encode(value: Any, path: str, flow: str, where: str) -> Any:
    """An attribute or parameter as JSON: numbers, text, None, lists, tuples and dicts of
    them; a tuple and a non-finite float tagged (:data:`_TUPLE`, :data:`_FLOAT`)."""
    t = type(value)
    if t is float and not math.isfinite(value):
        return {_FLOAT: repr(value)}
    if t in _PLAIN:
        return value
    if t is list:
        return [_encode(v, path, flow, f"{where}[{i}]") for i, v in enumerate(value)]
    if t is tuple:
        return {_TUPLE: [_encode(v, path, flow, f"{where}[{i}]") for i, v in enumerate(value)]}
    if t is dict and all(type(k) is str for k in value) and not {_TUPLE, _FLOAT} & set(value):
        return {k: _encode(v, path, flow, f"{where}[{k!r}]") for k, v in value.items()}
    raise ScenarioError(
        path,
        f"{flow}: {where} holds a {t.__name__} ({_short(value)}), which a sweep cannot carry "
        "to its workers: it carries an algorithm's attributes and parameters as JSON "
        "(numbers, text, booleans, None, and lists, tuples and text-keyed dicts of them). "
        "Make it one of those, or create it in __init__ from such parameters and give the "
        "class",
    )


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {_TUPLE}:
            return tuple(_decode(v) for v in value[_TUPLE])
        if set(value) == {_FLOAT}:
            return float(value[_FLOAT])
        return {k: _decode(v) for k, v in value.items()}
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _modules(obj: Any) -> set[str]:
    """The modules whose source makes ``obj``: a class's, and those of the classes it derives
    from, ccsim's own and the standard library's excepted."""
    classes = obj.__mro__ if isinstance(obj, type) else (obj,)
    out = set()
    for c in classes:
        module = getattr(c, "__module__", None)
        if not isinstance(module, str) or module == "builtins":
            continue
        if module == "ccsim" or module.startswith("ccsim."):
            continue
        out.add(module)
    return out


_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def _fingerprint(modules: set[str]) -> str:
    """16 hex digits of SHA-256 over the source files of ``modules`` (as imported now; a
    module without a file, as a built-in one, counts by its name alone)."""
    h = hashlib.sha256()
    for module in sorted(modules):
        h.update(module.encode() + b"\0")
        path = getattr(sys.modules.get(module), "__file__", None)
        if isinstance(path, str) and os.path.isfile(path):
            h.update(_file_hash(path).encode() + b"\0")
    return h.hexdigest()[:16]


def _file_hash(path: str) -> str:
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _FILE_HASHES:
        with open(path, "rb") as f:
            _FILE_HASHES[key] = hashlib.sha256(f.read()).hexdigest()
    return _FILE_HASHES[key]


def materialize(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` with each reference written by :func:`references` replaced by the algorithm it
    names (imported here): an instance, a class, or a registered name or table. Raises
    :class:`ScenarioError` naming the flow when the module cannot be imported here or its
    source differs from the one the sweep was started with."""
    out = d
    for i, path, tcp in list(_cc_values(d)):
        if not is_reference(tcp["cc"]):
            continue
        ref = tcp["cc"][MARKER]
        try:
            value = _materialize(ref)
        except ScenarioError as e:
            raise ScenarioError(path, f"{_flow_name(d, i)}: {e.message}") from None
        if out is d:
            out = dict(d, flows=list(d["flows"]))
        out["flows"][i] = dict(out["flows"][i], tcp=dict(tcp, cc=value))
    return out


def _materialize(ref: dict[str, Any]) -> Any:
    host = os.uname().nodename if hasattr(os, "uname") else "this host"
    if "class" in ref:
        target = ref["class"]
        cls = _import(target, host)
        if not (isinstance(cls, type) and issubclass(cls, cc.CongestionControl)):
            raise ScenarioError("", f"{target} is not a ccsim.CongestionControl subclass here")
        _same_source(ref, _modules(cls), host)
        if "state" not in ref:
            return cls
        obj = cls.__new__(cls)
        obj.__dict__.update(_decode(ref["state"]))
        return obj
    name = ref["registered"]
    modules: set[str] = set()
    if "factory" in ref:
        factory = _import(ref["factory"], host)
        modules = _modules(factory)
        cc.adopt(name, factory)
    else:
        module = ref["module"]
        _import(module + ":", host)
        modules = {module}
        if name not in cc.registered():
            raise ScenarioError(
                "", f"importing {module} on {host} did not register {name!r} (ccsim.register_cc)"
            )
        modules |= _modules(cc.registered()[name])
    _same_source(ref, modules, host)
    kwargs = _decode(ref.get("kwargs", {}))
    return {"kind": name, **kwargs} if kwargs else name


def _import(where: str, host: str) -> Any:
    module, _, qualname = where.partition(":")
    try:
        if not qualname:
            return importlib.import_module(module)
        return _lookup(where)
    except Exception as e:  # noqa: BLE001 - any failure of the user's module is reported
        raise ScenarioError(
            "",
            f"cannot import {where.rstrip(':')} on {host} ({type(e).__name__}: {e}); the "
            "module must be importable on every worker: installed, or on the workers' "
            "PYTHONPATH",
        ) from None


def _same_source(ref: dict[str, Any], modules: set[str], host: str) -> None:
    if "source" in ref and _fingerprint(modules) != ref["source"]:
        files = ", ".join(str(getattr(sys.modules.get(m), "__file__", m)) for m in sorted(modules))
        raise ScenarioError(
            "",
            f"the source of {files} on {host} differs from the one this sweep was started "
            "with (edited since, or another copy on this worker), and the point's key names "
            "that one, so it is not computed here: run the sweep again, or install the same "
            "version on every worker",
        )


def label(value: Any) -> str | None:
    """How tables and reports show an axis value that is a Python algorithm:
    ``module.Class`` for a class, ``module.Class(attr=value, ...)`` for an instance (every
    attribute, so that different instances read differently); None for any other value."""
    if isinstance(value, type) and issubclass(value, cc.CongestionControl):
        return _name(value)
    if isinstance(value, cc.CongestionControl):
        state = getattr(value, "__dict__", {})
        return f"{_name(type(value))}({', '.join(f'{k}={v!r}' for k, v in state.items())})"
    return None


def plain(value: Any) -> Any:
    """``value`` with every Python algorithm in it (an axis value, or inside one) replaced by
    its :func:`label`, for records and manifests written as JSON."""
    shown = label(value)
    if shown is not None:
        return shown
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
