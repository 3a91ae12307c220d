"""Results of one run: per-flow and per-queue tables and the recorded time series."""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# Which table a series' ids index, and the label column it gets in `Result.trace`.
FLOW_SERIES = (
    "cwnd", "ssthresh", "srtt", "rto", "rtt", "throughput", "recovery", "bw_estimate",
    "acns_command", "cwnd_hold", "delivery_rate", "pacing_rate", "cc_mode", "min_rtt",
    "ecn_alpha", "inflight_lo", "inflight_hi",
)  # fmt: skip
QUEUE_SERIES = ("queue", "queue_bytes", "avg_queue", "sojourn")
ALL_SERIES = FLOW_SERIES + QUEUE_SERIES


class SeriesNotRecorded(KeyError):
    """Raised by :meth:`Result.trace` for a series the scenario did not ask for."""

    def __str__(self) -> str:
        # KeyError's own str() is the repr of its argument, quotes and escapes included.
        return str(self.args[0])


def decode_column(column: Any) -> np.ndarray | list:
    """A core column: ``(dtype_str, raw_bytes)`` → numpy array; ``list[str]`` stays a list."""
    if isinstance(column, tuple) and len(column) == 2 and isinstance(column[0], str):
        dtype, raw = column
        return np.frombuffer(raw, dtype=np.dtype(dtype))
    if isinstance(column, list):
        return column
    raise TypeError(f"unexpected column of type {type(column).__name__}")


# The packet trace's columns (`Result.packets`), as the core writes them.
PACKET_COLUMNS = [
    "time_s", "event", "cause", "link", "from", "to", "flow", "kind", "size", "payload", "seq",
    "ack", "flags", "window", "options", "ce", "ecn", "cmi", "dscp", "uid", "sent_s",
]  # fmt: skip


def decode_table(columns: dict[str, Any]) -> pd.DataFrame:
    """Builds a DataFrame from a dict of core columns, checking they have one length."""
    decoded = {name: decode_column(col) for name, col in columns.items()}
    lengths = {name: len(col) for name, col in decoded.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns of different lengths from the core: {lengths}")
    return pd.DataFrame(decoded)


def queue_labels(queues: pd.DataFrame) -> list[str]:
    """``"{link}:{from}->{to}"`` for each row of a queues table."""
    return [f"{k}:{f}->{t}" for k, f, t in zip(queues["link"], queues["from"], queues["to"])]


def _labelled(ids: np.ndarray | list, labels: list[str]) -> Any:
    """Row labels for ids into a table, without a Python object per row: a Categorical whose
    codes are the ids (falling back to an object array if labels repeat)."""
    codes = np.asarray(ids, dtype=np.int64)
    if len(codes) and (codes.min() < 0 or codes.max() >= len(labels)):
        raise ValueError(f"series ids out of range 0..{len(labels) - 1}")
    if len(set(labels)) == len(labels):
        return pd.Categorical.from_codes(codes, categories=labels)
    return np.asarray(labels, dtype=object)[codes]


def empty_series() -> pd.DataFrame:
    """``Result.all_series()`` of a run that recorded no series."""
    return pd.DataFrame(
        {
            "series": pd.Series(dtype=object),
            "time_s": pd.Series(dtype=float),
            "flow": pd.Series(dtype=object),
            "queue": pd.Series(dtype=object),
            "value": pd.Series(dtype=float),
        }
    )


def series_frame(name: str, raw: dict[str, Any], flows: pd.DataFrame, queues: pd.DataFrame):
    """Long-format DataFrame (``time_s``, ``flow``/``queue``, ``value``) of one core series."""
    time_s = decode_column(raw["time_s"])
    ids = decode_column(raw["id"])
    value = decode_column(raw["value"])
    if name in QUEUE_SERIES:
        key, label = "queue", _labelled(ids, queue_labels(queues))
    elif name in FLOW_SERIES:
        key, label = "flow", _labelled(ids, list(flows["flow"]))
    else:  # a series newer than this front end: keep the raw id
        key, label = "id", ids
    return pd.DataFrame({"time_s": time_s, key: label, "value": value})


class Result:
    """What one simulation produced.

    ``meta``: run facts (name, seed, duration_s, events, packet counts, wall_s);
    ``scenario``: the scenario dict that ran; ``flows`` / ``queues``: one row per flow (in
    scenario order) / per link direction; ``trace(name)``: a recorded time series;
    ``packets``: one row per event of a packet at the links named in ``trace.packets``
    (``time_s``, ``event`` ``+ - d r`` as in ns-2's traces, ``cause`` of a drop, ``link``,
    ``from``, ``to``, ``flow``, ``kind`` tcp/ack/udp, ``size``, ``payload``, ``seq`` and
    ``ack`` as on the wire (from each direction's initial sequence number, the SYN counting
    one), ``flags`` by name (``SYN,ECE,CWR``), ``window``, ``options`` as tcpdump prints them,
    ``ce``, ``ecn`` the IP ECN field, ``cmi`` ACNS's IP bit, ``dscp``, ``uid`` the packet's
    number in the run, the same at every hop, ``sent_s``), empty when none is traced.
    """

    def __init__(
        self,
        meta: dict[str, Any],
        scenario: dict[str, Any],
        flows: pd.DataFrame,
        queues: pd.DataFrame,
        traces: dict[str, pd.DataFrame],
        packets: pd.DataFrame | None = None,
    ):
        self.meta = meta
        self.scenario = scenario
        self.flows = flows
        self.queues = queues
        self._traces = traces
        self.packets = packets if packets is not None else pd.DataFrame(columns=PACKET_COLUMNS)

    @classmethod
    def from_core(cls, raw: dict[str, Any], scenario: dict[str, Any]) -> Result:
        """Decodes the results dict returned by ``_core.Simulation.finish()``."""
        flows = decode_table(raw["flows"])
        queues = decode_table(raw["queues"])
        traces = {
            name: series_frame(name, cols, flows, queues)
            for name, cols in raw.get("series", {}).items()
        }
        packets = decode_table(raw["packets"]) if "packets" in raw else None
        return cls(dict(raw["meta"]), scenario, flows, queues, traces, packets)

    @property
    def name(self) -> str:
        return str(self.meta.get("name", self.scenario.get("name", "scenario")))

    @property
    def series_names(self) -> list[str]:
        """Names of the recorded series, in the order the core returned them."""
        return list(self._traces)

    def all_series(self) -> pd.DataFrame:
        """Every recorded series in one long-format DataFrame, in the order of
        ``series_names``: ``series`` (its name), ``time_s``, ``flow`` (for a flow series, else
        ``""``), ``queue`` (for a queue series, else ``""``), ``value``. Empty, with these
        columns, if the scenario recorded none. Sweeps keep this table per point."""
        frames = []
        for name, t in self._traces.items():
            n = len(t)
            blank = np.full(n, "", dtype=object)
            label = next(c for c in t.columns if c not in ("time_s", "value"))
            own = t[label].astype(str).to_numpy(dtype=object)
            frames.append(
                pd.DataFrame(
                    {
                        "series": np.full(n, name, dtype=object),
                        "time_s": t["time_s"].to_numpy(dtype=float),
                        "flow": blank if label == "queue" else own,
                        "queue": own if label == "queue" else blank,
                        "value": t["value"].to_numpy(dtype=float),
                    }
                )
            )
        if not frames:
            return empty_series()
        return pd.concat(frames, ignore_index=True)

    def trace(self, name: str) -> pd.DataFrame:
        """One recorded series as a long-format DataFrame: ``time_s``, then ``flow`` (flow
        series) or ``queue`` (``"link:from->to"``, queue series), then ``value``.

        Units: cwnd and ssthresh in segments, srtt/rto/rtt in seconds, throughput in bit/s,
        queue in packets, queue_bytes in bytes, recovery 0 (open) / 1 (fast recovery) /
        2 (after a timeout), avg_queue in packets (RED's average), sojourn in seconds,
        bw_estimate in bit/s (Westwood+'s and NDCA's bandwidth estimate), acns_command 1
        (normal) / 2 (freeze) / 3 (fallback), cwnd_hold 1 while NDCA's hold is on (no growth
        above its estimated threshold) else 0, delivery_rate and pacing_rate bits per second,
        cc_mode the algorithm's state (BBR: 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT; BBRv3's
        ProbeBW by phase: 2 DOWN, 4 CRUISE, 5 REFILL, 6 UP), min_rtt seconds, ecn_alpha the
        estimated fraction of marked packets (DCTCP's and Prague's α), inflight_lo and
        inflight_hi BBRv3's bounds on its flight in segments (infinite while unset).
        Raises :class:`SeriesNotRecorded` (a ``KeyError``) if the scenario's ``[trace] series``
        did not include it.
        """
        try:
            return self._traces[name]
        except KeyError:
            recorded = ", ".join(self._traces) or "none"
            hint = (
                "add it to [trace] series in the scenario"
                if name in ALL_SERIES
                else f"known series: {', '.join(ALL_SERIES)}"
            )
            raise SeriesNotRecorded(
                f"series {name!r} was not recorded (recorded: {recorded}); {hint}"
            ) from None

    def plot(self, name: str, ax=None, **kwargs):
        """Draws one series, a line per flow or queue; see :func:`ccsim.plot.plot_series`."""
        from .plot import plot_series

        return plot_series(self, name, ax=ax, **kwargs)

    def plot_sequence(self, flow: str, link: str | None = None, ax=None):
        """A time-sequence graph of a TCP flow from the packet trace; see
        :func:`ccsim.plot.plot_sequence`."""
        from .plot import plot_sequence

        return plot_sequence(self, flow, link, ax=ax)

    def write_pcaps(self, directory: str | os.PathLike) -> list[Path]:
        """Writes a pcap file per direction of each link in ``trace.pcap`` into ``directory``,
        from the packet trace; returns their paths. See :mod:`ccsim.pcap`."""
        from .pcap import write_pcaps

        return write_pcaps(self, directory)

    # --- persistence -----------------------------------------------------------------------

    def save(
        self,
        directory: str | os.PathLike,
        figures: bool = True,
        fmt: str = "png",
        overwrite: bool = False,
    ) -> list[Path]:
        """Writes ``flows.parquet``, ``queues.parquet``, ``trace_<name>.parquet`` per series,
        ``packets.parquet`` when packets were traced, ``pcap/<link>-<from>-<to>.pcap`` per
        direction of the links in ``trace.pcap`` (:meth:`write_pcaps`),
        ``meta.json``, ``scenario.json`` and (``figures=True``) figures of cwnd, throughput
        and queue length when recorded, as ``fmt`` (``png``, ``svg`` or ``pdf``). Returns the
        paths written.

        ``directory`` is created if needed; one that exists must be empty, or (``overwrite``)
        hold a saved result and nothing else, which is then replaced as a whole: the new
        result is written beside it and renamed into its place, so the directory never holds
        parts of two runs (which :meth:`load` would read as one). Raises
        :class:`FileExistsError` otherwise, before writing anything."""
        if figures:
            from .plot import FIGURE_FORMATS

            if fmt not in FIGURE_FORMATS:
                allowed = ", ".join(FIGURE_FORMATS)
                raise ValueError(f"figure format {fmt!r}: expected one of {allowed}")
        out = Path(directory)
        check_save_target(out, overwrite, how="overwrite=True")
        if out.is_dir() and any(out.iterdir()):
            return _replace(out, lambda tmp: self._write(tmp, figures, fmt))
        out.mkdir(parents=True, exist_ok=True)
        return self._write(out, figures, fmt)

    def _write(self, out: Path, figures: bool, fmt: str) -> list[Path]:
        written = [out / "flows.parquet", out / "queues.parquet"]
        self.flows.to_parquet(written[0], index=False)
        self.queues.to_parquet(written[1], index=False)
        for name, frame in self._traces.items():
            path = out / f"trace_{name}.parquet"
            frame.to_parquet(path, index=False)
            written.append(path)
        if len(self.packets):
            path = out / "packets.parquet"
            self.packets.to_parquet(path, index=False)
            written.append(path)
        written += self.write_pcaps(out / "pcap")
        for fname, obj in (("meta.json", self.meta), ("scenario.json", self.scenario)):
            path = out / fname
            path.write_text(json.dumps(obj, indent=2, default=_json_default) + "\n")
            written.append(path)
        if figures:
            from .plot import save_figures

            written += save_figures(self, out, fmt=fmt)
        return written

    @classmethod
    def load(cls, directory: str | os.PathLike) -> Result:
        """Reads a directory written by :meth:`save`."""
        d = Path(directory)
        if not (d / "flows.parquet").is_file():
            raise FileNotFoundError(f"{d} holds no saved ccsim result (no flows.parquet)")
        meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").exists() else {}
        scenario_path = d / "scenario.json"
        scenario = json.loads(scenario_path.read_text()) if scenario_path.exists() else {}
        flows = pd.read_parquet(d / "flows.parquet")
        queues = pd.read_parquet(d / "queues.parquet")
        traces = {
            p.stem[len("trace_") :]: pd.read_parquet(p) for p in sorted(d.glob("trace_*.parquet"))
        }
        packets_path = d / "packets.parquet"
        packets = pd.read_parquet(packets_path) if packets_path.exists() else None
        return cls(meta, scenario, flows, queues, traces, packets)

    # --- text ------------------------------------------------------------------------------

    def summary_table(self) -> str:
        """A fixed-width per-flow table: goodput and throughput (Mb/s), retransmits,
        timeouts, mean RTT (ms), completion time (s); ``-`` where a value does not apply.
        The transfers of a ``tcp_arrivals`` entry take one row, ``name.* (done/started)``:
        their mean goodput, throughput and RTT, their retransmits and timeouts summed, and the
        mean completion time of those done."""
        header = [
            "flow", "kind", "goodput Mb/s", "thruput Mb/s",
            "retx", "timeouts", "RTT mean ms", "complete s",
        ]  # fmt: skip
        f = self.flows
        groups = self.transfer_groups()
        rows, seen = [], set()
        for i in range(len(f)):
            group = groups[i]
            if group is not None and group in seen:
                continue
            if group is None:
                sel, name, kind = f.iloc[[i]], str(f["flow"].iat[i]), str(f["kind"].iat[i])
            else:
                seen.add(group)
                sel = f[[g == group for g in groups]]
                done = int(np.isfinite(sel["completion_s"].to_numpy(dtype=float)).sum())
                name, kind = f"{group}.* ({done}/{len(sel)})", "tcp_arrivals"
            tcp = kind != "cbr" and kind != "onoff"
            rows.append(
                [
                    name,
                    kind,
                    _num(sel["goodput_bps"].mean() / 1e6, 3),
                    _num(sel["throughput_bps"].mean() / 1e6, 3),
                    str(int(sel["retransmits"].sum())) if tcp else "-",
                    str(int(sel["timeouts"].sum())) if tcp else "-",
                    _num(sel["rtt_mean_s"].mean() * 1e3, 1),
                    _num(sel["completion_s"].mean(), 3),
                ]
            )
        widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
        # Text columns left-aligned, numbers right-aligned, as people read tables.
        lines = []
        for r in [header, *rows]:
            cells = [
                r[c].ljust(widths[c]) if c < 2 else r[c].rjust(widths[c]) for c in range(len(r))
            ]
            lines.append("  ".join(cells).rstrip())
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def transfer_groups(self) -> list[str | None]:
        """Per row of ``flows``: the ``tcp_arrivals`` entry whose transfer it is (its flows are
        named ``name.0``, ``name.1``, ...), or ``None``."""
        entries = {
            f["name"]
            for f in self.scenario.get("flows", [])
            if isinstance(f, dict) and f.get("kind") == "tcp_arrivals"
        }
        out: list[str | None] = []
        for name in self.flows["flow"].astype(str):
            prefix, dot, number = name.rpartition(".")
            out.append(prefix if dot and number.isdigit() and prefix in entries else None)
        return out

    def __repr__(self) -> str:
        return (
            f"<ccsim.Result {self.name!r}: {len(self.flows)} flows, {len(self.queues)} queues, "
            f"series {self.series_names}>"
        )


# What Result.save writes (figures are named after their series), so that a directory can be
# told to hold a saved result and nothing else before it is replaced.
_SAVED = re.compile(
    r"(flows|queues|packets|trace_[A-Za-z0-9_]+)\.parquet|(meta|scenario)\.json"
    rf"|({'|'.join(ALL_SERIES)})\.(png|svg|pdf)"
)


def check_save_target(directory: Path, overwrite: bool, how: str) -> None:
    """Raises :class:`FileExistsError` unless :meth:`Result.save` may write to ``directory``:
    it does not exist, is empty, or (``overwrite``) holds a saved result and nothing else.
    ``how`` names the way to ask for replacing (``--overwrite`` on the command line)."""
    if not directory.exists():
        return
    if not directory.is_dir():
        raise FileExistsError(errno.EEXIST, "exists and is not a directory", str(directory))
    entries = sorted(p.name for p in directory.iterdir())
    if not entries:
        return
    foreign = [n for n in entries if not _SAVED.fullmatch(n) or not (directory / n).is_file()]
    if foreign:
        shown = ", ".join(foreign[:5]) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        )
        raise FileExistsError(
            errno.ENOTEMPTY,
            f"directory not empty: it holds {shown}, not part of a saved ccsim result; "
            "choose another directory",
            str(directory),
        )
    if not overwrite:
        raise FileExistsError(
            errno.ENOTEMPTY,
            "directory not empty: it holds a saved result; choose another directory, or "
            f"{how} to replace it",
            str(directory),
        )


def _replace(directory: Path, write: Callable[[Path], list[Path]]) -> list[Path]:
    """Writes a new result beside ``directory`` and renames it into its place; the old one is
    removed only once the new one is complete, and put back if the swap fails."""
    parent = directory.resolve().parent
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.new-", dir=parent))
    hold = Path(tempfile.mkdtemp(prefix=f".{directory.name}.old-", dir=parent))
    old = hold / directory.name
    try:
        written = write(tmp)
        os.replace(directory, old)
        os.replace(tmp, directory)
    except BaseException:
        if old.exists() and not directory.exists():  # failed between the two renames
            os.replace(old, directory)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(hold, ignore_errors=True)
        raise
    shutil.rmtree(hold, ignore_errors=True)
    return [directory / p.relative_to(tmp) for p in written]


def _num(x: Any, digits: int) -> str:
    x = float(x)
    return "-" if math.isnan(x) else f"{x:.{digits}f}"


def _json_default(obj: Any) -> Any:
    # numpy scalars arrive in meta from user code and sweeps; JSON needs plain numbers.
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")
