"""A sweep's output directory: one file per finished point, keyed by a hash of its scenario.

Layout of ``DIR``::

    sweep.json                  what the last run asked for: axes, seeds, every point's key
    points/<key>.parquet        a finished point's flows table; its record (axis values, seed,
                                wall time, run facts, the scenario) in the Parquet metadata
    points/<key>.queues.parquet the same point's queues table
    points/<key>.series.parquet the same point's recorded time series (``Result.all_series``)
    points/<key>.packets.parquet the same point's packet trace (``Result.packets``; no rows if
                                it traced no link)
    points/<key>.error.json     a point that failed while running, with the error

The per-point files are the truth: a point is done when ``<key>.parquet`` exists. Each file is
written to a temporary name and renamed into place (atomic on POSIX and Windows), so a process
killed mid-write never leaves a half file that a rerun would take for a result. The queues,
series and packet tables are written before the flows table, so a done point has them all.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .runner import _json_default

# Of the per-point record; bump if its meaning changes (2: the series file; 3: the packet trace;
# 4: the packet trace's `uid`).
FORMAT = 4
META_KEY = b"ccsim.point"


def _read(path: Path) -> pa.Table:
    try:
        return pq.read_table(path)
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError
        raise ValueError(f"{path} is unreadable ({e})") from e


def canonical_json(d: dict[str, Any]) -> str:
    """Sorted keys, no whitespace: equal scenarios give equal text, whatever the key order."""
    return json.dumps(
        d, sort_keys=True, separators=(",", ":"), allow_nan=False, default=_json_default
    )


def point_key(text: str, version: str) -> str:
    """SHA-256 of the core's identity and a point's canonical scenario JSON.

    ``version`` is the core's version and source fingerprint (``_native.core_id()``). It stands
    in for the defaults profiles (the core resolves left-out settings, and no call returns the
    resolved scenario) and for the code: a core rebuilt from changed source gets new keys.
    """
    h = hashlib.sha256()
    h.update(f"ccsim {version}\n".encode())
    h.update(text.encode())
    return h.hexdigest()


def _temporary(path: Path) -> str:
    """A new empty file beside ``path``, with the permissions of any file the user creates.

    Not ``tempfile.mkstemp``: it makes the file 0600 whatever the umask, and the rename keeps
    that mode, so collaborators sharing a sweep directory could read its summaries but not
    its points. ``O_EXCL`` with a random name is how mkstemp avoids collisions too.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            os.close(os.open(tmp, flags, 0o666))  # 0o666 less the umask, as open() does
        except FileExistsError:
            continue
        return str(tmp)
    raise FileExistsError(f"no free temporary name beside {path}")


def _atomic(path: Path, write) -> None:
    """Calls ``write(tmp_path)``, then renames the temporary file to ``path``."""
    tmp = _temporary(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _table(df: pd.DataFrame, record: dict[str, Any] | None) -> pa.Table:
    table = pa.Table.from_pandas(df, preserve_index=False)
    if record is not None:
        meta = dict(table.schema.metadata or {})
        meta[META_KEY] = json.dumps(record, default=_json_default, allow_nan=True).encode()
        table = table.replace_schema_metadata(meta)
    return table


class Store:
    """The per-point files under ``directory/points``."""

    def __init__(self, directory: str | os.PathLike):
        self.root = Path(directory)
        self.points = self.root / "points"

    def create(self) -> None:
        self.points.mkdir(parents=True, exist_ok=True)

    def flows_path(self, key: str) -> Path:
        return self.points / f"{key}.parquet"

    def queues_path(self, key: str) -> Path:
        return self.points / f"{key}.queues.parquet"

    def series_path(self, key: str) -> Path:
        return self.points / f"{key}.series.parquet"

    def packets_path(self, key: str) -> Path:
        return self.points / f"{key}.packets.parquet"

    def error_path(self, key: str) -> Path:
        return self.points / f"{key}.error.json"

    def done(self, key: str) -> bool:
        return self.flows_path(key).is_file()

    def save_ok(
        self,
        key: str,
        record: dict[str, Any],
        flows: pd.DataFrame,
        queues: pd.DataFrame,
        series: pd.DataFrame,
        packets: pd.DataFrame,
    ) -> None:
        q, s, f = _table(queues, None), _table(series, None), _table(flows, record)
        _atomic(self.queues_path(key), lambda tmp: pq.write_table(q, tmp))
        _atomic(self.series_path(key), lambda tmp: pq.write_table(s, tmp))
        p = _table(packets, None)
        _atomic(self.packets_path(key), lambda tmp: pq.write_table(p, tmp))
        _atomic(self.flows_path(key), lambda tmp: pq.write_table(f, tmp))
        self.error_path(key).unlink(missing_ok=True)  # an earlier failure is now superseded

    def save_failed(self, key: str, record: dict[str, Any]) -> None:
        text = json.dumps(record, indent=2, default=_json_default, allow_nan=True) + "\n"
        _atomic(self.error_path(key), lambda tmp: Path(tmp).write_text(text))

    def load(
        self, key: str
    ) -> tuple[
        dict[str, Any], pd.DataFrame, pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None
    ]:
        """A done point's record, flows, queues, series and packet tables (None for a file the
        point lacks: the series of one written before they were kept, record format 1, or a
        file removed outside ccsim). A file that cannot be read raises ``ValueError`` naming
        it."""
        table = _read(self.flows_path(key))
        record = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
        queues = _read(self.queues_path(key)).to_pandas()
        series, packets = (
            _read(path).to_pandas() if path.is_file() else None
            for path in (self.series_path(key), self.packets_path(key))
        )
        return record, table.to_pandas(), queues, series, packets

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        text = json.dumps(manifest, indent=1, default=_json_default, allow_nan=True) + "\n"
        _atomic(self.root / "sweep.json", lambda tmp: Path(tmp).write_text(text))
