"""The capture analyzer: ``tcplab.analyze.analyze`` and its result.

>>> res = analyze(["trace.pcap"], vantage="auto")
>>> res.retransmissions.groupby(["cause", "spurious"], dropna=False).size()
>>> res.summary["table_iv"]["rto"]

For every retransmission: its cause (``rto``, ``fast_retransmit``, ``sack_recovery``,
``tlp``, ``unknown``), whether it was spurious (``True``/``False``, or null when no evidence
decides it) with the ``evidence`` used, and the detection and recovery durations of
Rewaskar, Kaur & Smith §IV-B. Damaged input is analysed as far as possible and counted in
``summary["anomalies"]``; only when nothing can be read is :class:`CaptureError` raised.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from . import _core
from . import analyze_prefetch as _prefetch
from .errors import TcplabError

if TYPE_CHECKING:  # imported only when a table is asked for (fast CLI start, see AnalysisResult)
    import pandas as pd
    import pyarrow as pa

#: Tables written by ``AnalysisResult.write`` (``<name>.parquet`` and ``<name>.csv``).
TABLES = ("retransmissions", "connections")
#: Accepted ``vantage`` values.
VANTAGES = ("auto", "sender", "receiver", "middle")


class CaptureError(TcplabError, ValueError):
    """Nothing in the given captures could be analysed (missing file, not a capture).

    ``str(err)`` is one line: the file's reason, or "none of the N captures could be
    analysed"; ``err.errors`` lists one line per file (path and reason).
    """

    def __init__(self, message: str, errors: list[str] | None = None):
        super().__init__(message)
        self.errors = list(errors) if errors is not None else [message]


class ModelError(TcplabError, ValueError):
    """The sender model named is not ``rfc`` or an engine profile; ``str(err)`` is one line."""


class AnalysisResult:
    """``summary`` (dict) and the ``retransmissions`` / ``connections`` tables.

    The tables stay in the Rust core until one is asked for (``arrow(name)``, the pandas
    properties): ``write`` writes the Parquet and CSV files from Rust, so ``tcplab analyze``
    imports neither numpy nor pyarrow (docs/design.md, "Writing the analyzer's tables from
    Rust"). Built from Arrow tables instead (``AnalysisResult(summary, tables)``, as
    ``WhatIfResult`` is), it writes them with pyarrow (``tcplab.tables.TableResult.write``).
    """

    #: Also write ``<name>.csv`` next to ``<name>.parquet``.
    WRITE_CSV = True

    def __init__(self, summary: dict, tables: Any = None, *, core: Any = None):
        self.summary = summary
        self._arrow: dict[str, pa.Table] = dict(tables) if tables is not None else {}
        self._core = core  # a _core.Analysis whose tables are not yet converted
        self._frames: dict[str, pd.DataFrame] = {}

    def arrow(self, name: str) -> pa.Table:
        """The Arrow table ``name`` (built from the core's buffers on first use)."""
        if name not in self._arrow and self._core is not None and name in TABLES:
            from .tables import to_arrow

            self._arrow[name] = to_arrow(self._core.table(name))
        try:
            return self._arrow[name]
        except KeyError:
            names = dict.fromkeys([*self._arrow, *(TABLES if self._core is not None else ())])
            raise KeyError(f"no table {name!r}; tables are {', '.join(names)}") from None

    def _frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            from .tables import to_pandas

            self._frames[name] = to_pandas(self.arrow(name))
        return self._frames[name]

    @property
    def retransmissions(self) -> pd.DataFrame:
        return self._frame("retransmissions")

    @property
    def connections(self) -> pd.DataFrame:
        return self._frame("connections")

    def write(self, out_dir: str | os.PathLike) -> Path:
        """Write ``summary.json`` and each table as Parquet (zstd) and CSV into ``out_dir``
        (a local path, whatever it looks like; any name a POSIX filesystem allows). Tables
        still in the core are written by it (Rust: the files pyarrow would write, without
        importing it); tables already converted to Arrow are written by pyarrow."""
        out = Path(os.fsdecode(os.fspath(out_dir)))
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n", encoding="utf-8")
        in_core = [n for n in TABLES if n not in self._arrow] if self._core is not None else []
        if in_core:
            self._core.write(out)
        converted = {n: t for n, t in self._arrow.items() if n not in in_core}
        if converted:
            from .tables import TableResult

            TableResult.write(_Converted(self.summary, converted, self.WRITE_CSV), out)  # + summary.json again
        return out

    def __repr__(self) -> str:
        t = self.summary.get("table_iv", {}).get("total", {})
        return (
            f"<AnalysisResult captures={len(self.summary.get('captures', []))} "
            f"connections={self.summary.get('connections')} retransmissions={t.get('total')}>"
        )


class _Converted:
    """What ``TableResult.write`` needs (``summary``, the Arrow tables, ``WRITE_CSV``)."""

    def __init__(self, summary: dict, tables: dict, write_csv: bool):
        self.summary = summary
        self._arrow = tables
        self.WRITE_CSV = write_csv


def capture_paths(captures, vantage: str) -> list[str]:
    """The capture arguments of ``analyze``/``whatif`` as paths for the binding, after checking
    there is one and that ``vantage`` is known (:class:`CaptureError`, one line). Any byte string
    a POSIX filesystem allows: bytes that are not UTF-8 travel as surrogate escapes
    (os.fsdecode) and the binding turns them back into the same bytes."""
    if isinstance(captures, (str, bytes, os.PathLike)):
        captures = [captures]
    paths = [os.fsdecode(os.fspath(p)) for p in captures]
    if not paths:
        raise CaptureError("no capture given")
    if vantage not in VANTAGES:
        raise CaptureError(f"vantage: {vantage!r} is not one of {', '.join(VANTAGES)}")
    return paths


def analyze(
    captures: str | os.PathLike | Iterable[str | os.PathLike],
    vantage: str = "auto",
    *,
    model: str = "auto",
    tlp: bool | None = None,
    out: str | os.PathLike | None = None,
    scenario: str | os.PathLike | Any | None = None,
) -> AnalysisResult:
    """Analyse one or more pcap/pcapng captures.

    - ``vantage``: ``auto`` (from each connection's handshake), ``sender``, ``receiver`` or
      ``middle``; the position assumed is reported per connection and in the summary.
    - ``model``: the sender the replay emulates — ``auto`` (default: each connection is
      replayed through every candidate OS profile and the one that explains its
      retransmissions classifies it; reported in the connections table's ``model``,
      ``model_confidence``, ``model_runner_up`` and ``inferred_*`` columns, ``unknown`` when
      no retransmission tells them apart), ``rfc`` (RFC 5681/6675/6298 defaults) or one of
      the engine's OS profiles (``tcplab profiles``: DupThresh, RTO bounds, ...).
    - ``tlp``: whether that sender sends tail loss probes (RFC 8985 §7); ``None`` keeps the
      model's own setting (with ``auto``: every candidate's). Without it a probe comes out ``unknown``, never guessed.
    - ``out``: if given, the outputs are written there (see :meth:`AnalysisResult.write`).
    - ``scenario``: the scenario that made the captures — a ``tcplab run`` output directory
      (its provenance), a scenario file, a shipped scenario's name or a loaded
      :class:`tcplab.Scenario`. The replay then emulates that scenario's senders (their
      resolved ``[tcp]`` settings; ``model`` is not used), each connection with the settings
      of the flow that sent it, matched by the addresses and ports the simulator gives its
      flows. ``summary["model"]`` is ``scenario:NAME``; when flows differ, each distinct
      setting is a model ``scenario:NAME:FLOW`` (named after its first flow or workload),
      which the connections table's ``model`` column names per connection, and
      ``summary["model_from_scenario"]["models"]`` lists each model's flows and workloads.
      A connection that matches no flow is replayed with the settings most flows share,
      named ``scenario:NAME``.

    Several captures: each file that cannot be analysed (missing, unreadable, a directory,
    not a capture) is listed in ``summary["captures"]`` with its ``error`` and counted in
    ``summary["anomalies"]["unreadable_files"]``; the others are analysed. Directories are
    not searched (give the files, e.g. ``dir/*.pcap``).

    Raises :class:`CaptureError` when no capture can be read, :class:`ModelError` for an
    unknown model name.
    """
    paths = capture_paths(captures, vantage)
    document = None
    if scenario is not None:
        from .api import scenario_document

        document = scenario_document(scenario)
    # `tcplab analyze` may have started this very call before its command line was parsed
    # (tcplab.analyze_prefetch): the same function with the same arguments, begun earlier.
    pending = _prefetch.take(paths, vantage, model, tlp) if document is None else None
    try:
        raw = pending.result() if pending is not None else _core.analyze(paths, vantage, model, tlp, document)
    except _core.CaptureError as e:
        message = e.args[0] if e.args else str(e)
        errors = e.args[1] if len(e.args) > 1 else None
        raise CaptureError(message, errors) from None
    except _core.ModelError as e:
        raise ModelError(str(e)) from None
    summary = {"tcplab_version": _core.__version__, **json.loads(raw.summary_json)}
    for entry, given in zip(summary.get("captures", []), paths):
        # `path` is the path as given, losslessly: bytes that are not UTF-8 stay surrogate
        # escapes (written "\udcXX" in summary.json; os.fsencode gives the bytes back), so
        # `tcplab plot` can open the capture again. `shown` is the escaped form of the
        # messages and of the tables' `capture` column (Arrow strings are UTF-8).
        entry["shown"] = entry["path"]
        entry["path"] = given
    if document is not None:
        summary["model_from_scenario"] = {
            "scenario": document[1],
            "models": [{"model": m, "flows": list(flows), "workloads": list(wls)} for m, flows, wls in raw.scenario_models],
        }
    result = AnalysisResult(summary, core=raw)
    if out is not None:
        result.write(out)
    return result


__all__ = ["AnalysisResult", "CaptureError", "ModelError", "analyze", "TABLES", "VANTAGES"]
