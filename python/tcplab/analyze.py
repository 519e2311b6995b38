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
from typing import TYPE_CHECKING, Any, Iterable

from . import _core
from .errors import TcplabError
from .tables import TableResult, to_arrow

if TYPE_CHECKING:  # pandas is imported only when a DataFrame is asked for (fast CLI start)
    import pandas as pd

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


class AnalysisResult(TableResult):
    """``summary`` (dict) and the ``retransmissions`` / ``connections`` tables."""

    WRITE_CSV = True

    @property
    def retransmissions(self) -> pd.DataFrame:
        return self._frame("retransmissions")

    @property
    def connections(self) -> pd.DataFrame:
        return self._frame("connections")

    def __repr__(self) -> str:
        t = self.summary.get("table_iv", {}).get("total", {})
        return (
            f"<AnalysisResult captures={len(self.summary.get('captures', []))} "
            f"connections={self.summary.get('connections')} retransmissions={t.get('total')}>"
        )


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
    try:
        raw = _core.analyze(paths, vantage, model, tlp, document)
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
    tables = {name: to_arrow(raw.table(name)) for name in TABLES}
    result = AnalysisResult(summary, tables)
    if out is not None:
        result.write(out)
    return result


__all__ = ["AnalysisResult", "CaptureError", "ModelError", "analyze", "TABLES", "VANTAGES"]
