"""The Python API: ``tcplab.run`` and its result.

>>> res = tcplab.run("scenarios/dumbbell.toml", seed=3, overrides=["simulation.duration=5s"])
>>> res.summary["flows"][0]["goodput_bps"]
>>> res.events.query("kind == 'segment_retransmitted'")
>>> res.provenance["overrides"], res.provenance["git_revision"]

A run is a pure function of (scenario, seed): the same inputs give the same summary (apart
from ``wall_s``) and identical tables. Every result records what produced it
(:attr:`RunResult.provenance`, also in ``summary.json`` and the Parquet metadata).

Validate overrides before running anything with :func:`check` (each override alone, then
together).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, Union

from . import _core
from . import longrun
from . import scenarios as shipped
from .errors import ScenarioError, TcplabError, _translate
from .outdir import show
from .tables import TableResult, _numeric, _strings, to_arrow

if TYPE_CHECKING:  # pandas is imported only when a DataFrame is asked for (fast CLI start)
    import pandas as pd
    import pyarrow as pa

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any], "Scenario"]

#: Table names written by ``RunResult.write`` (as ``<name>.parquet``); a run with a RED
#: queue also has ``queues`` (see docs/outputs.md).
TABLES = ("flows", "events", "timeseries")

#: Parquet key-value metadata key holding the provenance JSON of every table written.
PROVENANCE_KEY = "tcplab.provenance"

#: Column inserted after the flow id column of each table: the flow's ``[[flows]]`` name.
FLOW_NAME = "flow_name"


@dataclass(frozen=True)
class Scenario:
    """A validated scenario, ready to run. Build it with :func:`load_scenario`."""

    _spec: Any = field(repr=False)
    name: str
    default_seed: int
    link_names: tuple[str, ...]
    #: The overrides applied when loading, as given.
    overrides: tuple[str, ...] = ()
    #: Where the scenario came from: a file path or ``"<dict>"``.
    source: str = ""

    @property
    def resolved_toml(self) -> str:
        """The scenario as run, as TOML: the overrides applied and every flow's ``tcp``
        written out in full (profiles and ``[tcp]`` resolved). Loading it gives the same
        scenario."""
        return self._spec.resolved_toml

    @property
    def flow_names(self) -> tuple[str | None, ...]:
        """The ``name`` of each flow's ``[[flows]]`` entry, by flow id (``None`` if unnamed)."""
        return tuple(self._spec.flow_names)


def _override_list(overrides: Iterable[str] | str) -> list[str]:
    """``overrides`` as a list: a single string is one override (not one per character)."""
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, (bytes, Mapping)) or not isinstance(overrides, Iterable):
        raise TypeError(
            f'overrides must be a string or a list of strings like "tcp.sack=false", '
            f"got {type(overrides).__name__}"
        )
    return [str(o) for o in overrides]


def load_scenario(scenario: ScenarioLike, overrides: Iterable[str] | str = ()) -> Scenario:
    """Load and validate a scenario from a TOML file path, TOML text or a dict.

    ``overrides`` are ``"path.to.key=value"`` strings, as ``tcplab run --set``: a list of them,
    or a single string for one override (``"tcp.sack=false"``). Any other type (a dict, bytes)
    raises ``TypeError``. Raises :class:`ScenarioError` with one line naming the field on any
    problem with the scenario or an override.
    """
    return _load(scenario, _override_list(overrides), validate=False)


def check(scenario: ScenarioLike, overrides: Iterable[str] | str = ()) -> Scenario:
    """Validate ``overrides`` (``"tcp.min_rto=1s"``, ...) against ``scenario`` without
    running anything: each override alone, then all together, so that a bad value is named
    by its own override and a conflict between valid ones (``tcp.sender=linux`` with
    ``tcp.tlp=true``) as such. Returns the loaded :class:`Scenario` with all of them applied;
    raises :class:`ScenarioError` (one line, ending ``(from --set OVERRIDE)``) otherwise.

    For a parameter study, check every value of every parameter before running:
    ``for v in values: tcplab.check(base, [f"{key}={v}"])``.
    """
    return _load(scenario, _override_list(overrides), validate=True)


#: How the core's message for a file that is not TOML begins (`scenario::load_value`).
INVALID_TOML = "invalid TOML"


def _load(scenario: ScenarioLike, ov: list[str], validate: bool) -> Scenario:
    if isinstance(scenario, Scenario):
        if ov:
            raise ScenarioError("overrides cannot be applied to an already loaded Scenario")
        return scenario
    try:
        if isinstance(scenario, Mapping):
            name = str(scenario.get("name", "scenario"))
            source = "<dict>"
            text = json.dumps(scenario)
            if validate:
                spec = _core.validate_overrides(text, name, ov, True)
            else:
                spec = _core.load_scenario_json(text, name, ov)
        else:
            path = _resolve(Path(os.fsdecode(os.fspath(scenario))))
            if path.is_dir():
                raise ScenarioError(f"{show(path)}: is a directory, not a scenario file")
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as e:
                raise ScenarioError(f"{show(path)}: cannot read scenario file ({e.strerror or e})") from None
            except UnicodeDecodeError as e:
                raise ScenarioError(f"{show(path)}: cannot read scenario file ({e})") from None
            # The scenario's default name: the file stem as shown in messages (escaped when
            # it is not UTF-8).
            source = str(path)
            try:
                if validate:
                    spec = _core.validate_overrides(text, show(path.stem), ov, False)
                else:
                    spec = _core.load_scenario(text, show(path.stem), ov)
            except _core.ScenarioError as e:
                # A syntax error is about the file, not a field: name the file (issue 15), as
                # the study and grid loaders do for theirs. Field errors name the field.
                msg = str(e)
                if msg.startswith(INVALID_TOML):
                    raise ScenarioError(f"{show(path)}: {msg}") from None
                raise
    except _core.ScenarioError as e:
        raise _translate(e) from None
    return Scenario(spec, spec.name, spec.default_seed, tuple(spec.link_names), tuple(ov), source)


def scenario_document(scenario: Union[ScenarioLike, os.PathLike]) -> tuple[str, str]:
    """The scenario as run, as TOML text, and its name, from a loaded :class:`Scenario`, a
    ``tcplab run`` output directory (``provenance`` in its summary.json: the scenario with
    the run's overrides applied), a scenario file or a shipped scenario's name. For the
    analyzer's model (``tcplab analyze --scenario``). :class:`ScenarioError` (one line)
    when it cannot be had."""
    if isinstance(scenario, Scenario):
        return scenario.resolved_toml, scenario.name
    if not isinstance(scenario, Mapping):
        path = Path(os.fsdecode(os.fspath(scenario)))
        if path.is_dir():
            try:
                prov = json.loads((path / "summary.json").read_text(encoding="utf-8"))["provenance"]
                return str(prov["scenario"]), str(prov["scenario_name"])
            except (OSError, ValueError, KeyError, TypeError):
                raise ScenarioError(
                    f"{show(path)}: not a tcplab run directory (no provenance in summary.json)"
                ) from None
        try:
            sc = load_scenario(scenario)
        except ScenarioError as e:
            # Name the file: the loader's message names only the key ("simulation: required
            # key is missing"), which misleads when the file is not a scenario at all.
            shown = show(path)
            raise ScenarioError(str(e) if str(e).startswith(shown) else f"{shown}: not a usable scenario ({e})") from None
        return sc.resolved_toml, sc.name
    sc = load_scenario(scenario)
    return sc.resolved_toml, sc.name


def _resolve(path: Path) -> Path:
    """A scenario file, or the name of a shipped scenario (``dumbbell``, ``gprs.toml``)."""
    if path.exists():
        return path
    if path.parent == Path("."):
        try:
            return shipped.path(path.name)
        except KeyError:
            pass
    raise ScenarioError(
        f"{show(path)}: no such scenario file (shipped scenarios: {', '.join(shipped.names())})"
    )


class RunResult(TableResult):
    """Results of one run: ``summary`` (dict) and tables as pandas DataFrames or Arrow
    (``arrow(name)``); ``write(dir)`` writes ``summary.json`` and one Parquet file per table.

    The trace of a long run is streamed to its output directory while it runs
    (:mod:`tcplab.longrun`): such a table is read back from its file only when asked for."""

    def __init__(self, summary: dict, tables: Mapping[str, "pa.Table"], files: Mapping[str, Path] | None = None):
        super().__init__(summary, tables)
        #: Tables already written during the run: name -> Parquet file.
        self._files = dict(files or {})
        #: The pcap file of each link named in ``run(pcap=...)``: link name -> path.
        self.captures: dict[str, Path] = {}

    def arrow(self, name: str) -> "pa.Table":
        if name not in self._arrow and name in self._files:
            import pyarrow.parquet as pq

            with open(self._files[name], "rb") as fh:
                self._arrow[name] = pq.read_table(fh)
        return super().arrow(name)

    def write(self, out_dir: str | os.PathLike) -> Path:
        """As :meth:`TableResult.write`; a table streamed during the run is already in its
        file, which is copied when ``out_dir`` is another directory."""
        everything = self._arrow
        self._arrow = {n: t for n, t in everything.items() if n not in self._files}
        try:
            out = super().write(out_dir)
        finally:
            self._arrow = everything
        for name, src in self._files.items():
            dst = out / f"{name}.parquet"
            if not (dst.exists() and os.path.samefile(src, dst)):
                shutil.copyfile(src, dst)
        return out

    @property
    def flows(self) -> pd.DataFrame:
        return self._frame("flows")

    @property
    def events(self) -> pd.DataFrame:
        return self._frame("events")

    @property
    def timeseries(self) -> pd.DataFrame:
        return self._frame("timeseries")

    @property
    def provenance(self) -> dict:
        """What produced this result: ``scenario`` (the resolved scenario as TOML text),
        ``overrides`` (as given), ``seed``, ``tcplab_version``, ``git_revision`` and
        ``git_dirty`` of the build, ``source``. Also in ``summary.json`` and, as JSON under
        the key ``tcplab.provenance``, in the metadata of every Parquet table written."""
        return self.summary["provenance"]

    @property
    def queues(self) -> pd.DataFrame:
        """Occupancy of the RED queues over time (only runs with a RED queue have it)."""
        return self._frame("queues")

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<RunResult scenario={s['scenario']!r} seed={s['seed']} flows={len(s['flows'])} "
            f"sim_time_s={s['sim_time_s']:.3f} events={s['events']}>"
        )


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Iterable[str] | str = (),
    *,
    out: str | os.PathLike | None = None,
    pcap: Sequence[str] = (),
    trace: bool = True,
    progress: bool = False,
    partial_on_interrupt: bool = False,
) -> RunResult:
    """Run one simulation.

    - ``scenario``: path to a TOML file, TOML as a dict, or a :class:`Scenario`.
    - ``seed``: overrides the scenario's ``simulation.seed``.
    - ``overrides``: ``"path.to.key=value"`` strings (as ``--set``), a list of them, or one
      string for a single override: ``overrides="tcp.sack=false"`` is
      ``overrides=["tcp.sack=false"]``. Another type (a dict, bytes) raises ``TypeError``.
    - ``out``: if given, outputs are written there (``summary.json``, Parquet tables, and
      ``<link>.pcap`` for each link named in ``pcap``).
    - ``trace``: record the ``events`` and ``timeseries`` tables (off for fast sweeps). With
      ``out``, a trace larger than ``longrun.CHUNK_ROWS`` rows is written to ``out`` while the
      run goes on (memory stays bounded whatever the duration).
    - ``progress``: a progress bar (simulated against wall time) on stderr, shown once the
      run has taken a few seconds.
    - ``partial_on_interrupt``: Ctrl-C (in the main thread) stops the run between two
      events and returns its results so far with ``summary["partial"] = True`` (and writes
      them to ``out``); otherwise Ctrl-C raises ``KeyboardInterrupt`` within about 0.1 s.

    Raises :class:`ScenarioError` for any invalid input.
    """
    sc = load_scenario(scenario, overrides)
    if seed is None:
        seed = sc.default_seed
    if not isinstance(seed, int) or isinstance(seed, bool) or not (0 <= seed < 2**64):
        raise ScenarioError(f"seed: must be an integer from 0 to 2^64-1, got {seed!r}")
    pcap_paths: list[tuple[str, str]] = []
    if pcap:
        if out is None:
            raise ScenarioError("pcap: writing pcap files needs an output directory (out=...)")
        Path(out).mkdir(parents=True, exist_ok=True)
        pcap_paths = [(name, str(Path(out) / f"{name}.pcap")) for name in pcap]
    prov = provenance(sc, seed)
    meta = {PROVENANCE_KEY: json.dumps(prov, sort_keys=True)}
    flow_names = _FlowNames(sc)

    def convert(columns) -> "pa.Table":
        return add_provenance(add_flow_names(to_arrow(columns), flow_names.names, flow_names.labels), meta)

    stream_dir = Path(os.fsdecode(os.fspath(out))) if out is not None and trace else None
    if stream_dir is not None:
        stream_dir.mkdir(parents=True, exist_ok=True)
    stop = longrun.Stop() if partial_on_interrupt else None
    bar = longrun.Progress(sc._spec.duration_ns / 1e9, sc.name) if progress else None
    hooks = longrun.Hooks(out=stream_dir, convert=convert, on_flows=flow_names.extend, progress=bar, stop=stop)
    t0 = time.perf_counter()
    try:
        with longrun.interruptible(stop) if stop is not None else contextlib.nullcontext():
            raw = _core.run(sc._spec, seed, trace, pcap_paths, hooks)
        wall_s = time.perf_counter() - t0
        summary = json.loads(raw.summary_json)
        summary = {"tcplab_version": _core.__version__, **summary, "wall_s": wall_s,
                   "partial": raw.stopped, "provenance": prov}
        tables, files = {}, {}
        # Every connection is known now: its workload is in `summary.json` (the chunks
        # streamed during the run learnt the same names as they went, `_FlowNames.extend`).
        flow_names.extend(0, [f.get("workload") for f in summary["flows"]])
        for name in raw.table_names:
            table = convert(raw.table(name))
            if name in hooks.writers:
                hooks.finish(name, table)
                files[name] = hooks.writers[name].path
            else:
                tables[name] = table
    except _core.ScenarioError as e:
        raise _translate(e) from None
    finally:
        hooks.close()
    result = RunResult(summary, tables, files)
    result.captures = {name: Path(path) for name, path in pcap_paths}
    if out is not None:
        result.write(out)
    return result


class _FlowNames:
    """The ``flow_name`` of each flow id while a run goes on. ``[[flows]]`` entries name their
    flows (ids 0..n-1); a workload's connections (the ids after them) are named by their
    ``[[workloads]]`` entry, learnt from the core as they open (``extend``). ``labels`` is
    the dictionary of the column: every name the run can give, known before it starts, so
    that every chunk of a streamed table has the same dictionary as the whole table."""

    def __init__(self, sc: Scenario):
        self.names: list[str | None] = list(sc.flow_names)
        self._fixed = len(self.names)
        self.labels = sorted({n for n in self.names if n is not None} | set(sc._spec.workload_names))

    def extend(self, first: int, workloads: Sequence[str | None]) -> None:
        """Flows ``first``, ``first + 1``, ... were opened by ``workloads`` (``None``: a
        ``[[flows]]`` entry, already named)."""
        for fid, w in enumerate(workloads, start=first):
            if fid >= self._fixed and fid == len(self.names):
                self.names.append(w)


def provenance(sc: Scenario, seed: int) -> dict:
    """The provenance record of a run of ``sc`` with ``seed`` (see
    :attr:`RunResult.provenance`). Deterministic: the same inputs and build give the same
    record."""
    return {
        "scenario": sc.resolved_toml,
        "scenario_name": sc.name,
        "source": sc.source,
        "overrides": list(sc.overrides),
        "seed": seed,
        "tcplab_version": _core.__version__,
        "git_revision": _core.__git_revision__,
        "git_dirty": _core.__git_dirty__,
    }


def add_flow_names(table: "pa.Table", names: Sequence[str | None], labels: Sequence[str] | None = None) -> "pa.Table":
    """``table`` with a dictionary-encoded ``flow_name`` column after its flow id column
    (``flow``, or ``id`` in the flows table); ids without a flow (4294967295 on link rows of
    the events table) and unnamed flows give null. Tables without a flow id are unchanged.
    ``labels``: the dictionary (sorted, holding every name in ``names``); by default the
    names present."""
    import numpy as np
    import pyarrow as pa

    id_col = "flow" if "flow" in table.column_names else "id"
    if id_col not in table.column_names or FLOW_NAME in table.column_names:
        return table
    ids = _int_column(table[id_col])
    if labels is None:
        labels = sorted({n for n in names if n is not None})
    code_of = {n: i for i, n in enumerate(labels)}
    by_flow = np.array([code_of[n] if n is not None else -1 for n in names] + [-1], dtype=np.int32)
    in_range = (ids >= 0) & (ids < len(names))
    codes = by_flow[np.where(in_range, ids, len(names))]
    # Built from buffers (`tables._numeric` / `_strings`): `pa.array` would import pandas, 1-2 s
    # that a streamed run would spend in the middle of the run (and Ctrl-C would wait for).
    arr = pa.DictionaryArray.from_arrays(_numeric(codes, codes >= 0), _strings(labels))
    at = table.column_names.index(id_col) + 1
    return table.add_column(at, pa.field(FLOW_NAME, arr.type, nullable=True), arr)


def _int_column(col: "pa.ChunkedArray") -> "np.ndarray":
    """An integer column without nulls as int64, read from its buffers: ``to_numpy`` imports
    pandas (1-2 s), which a streamed run would pay in the middle of the run."""
    import numpy as np
    import pyarrow as pa

    dtypes = {pa.uint32(): np.uint32, pa.uint64(): np.uint64, pa.int32(): np.int32, pa.int64(): np.int64}
    dtype = dtypes.get(col.type)
    if dtype is None or col.null_count:
        return col.to_numpy(zero_copy_only=False).astype(np.int64)
    parts = [np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c) + c.offset)[c.offset:] for c in col.chunks]
    return (np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)).astype(np.int64)


def add_provenance(table: "pa.Table", meta: Mapping[str, str]) -> "pa.Table":
    """``table`` whose schema metadata (written to Parquet as key-value metadata) holds
    ``meta`` (``{PROVENANCE_KEY: json.dumps(provenance(sc, seed), sort_keys=True)}``)."""
    return table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})


__all__ = [
    "Scenario",
    "RunResult",
    "add_flow_names",
    "add_provenance",
    "check",
    "load_scenario",
    "provenance",
    "run",
    "scenario_document",
    "ScenarioError",
    "TcplabError",
]
