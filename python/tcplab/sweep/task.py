"""What a worker runs: one simulation of one sweep point, returned to the driver.

The task carries the scenario's text (not its path), so a worker on another machine needs
only tcplab installed, not the study's files. A sweep's task (one with :class:`Filing`) comes
back as the run file's bytes, already encoded (:func:`encode_run`), and the run's table in
Arrow IPC for the study's tidy table; the driver only writes the bytes to the run file (so
workers need no access to the output directory). Encoding here instead of in the driver
costs the same CPU but ships bytes, not a pickled Arrow table (0.15 ms to pickle and 0.09 ms
to unpickle a run's table against 0.02 + 0.02 ms in IPC), and takes the encoding out of the
driver, whose CPU the workers wait for (docs/benchmarks.md, "session 9").
A task is a pure function of its input, which is what lets Dask re-run it on another worker
when the first one dies.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

import pyarrow as pa


@dataclass(frozen=True)
class RunTask:
    """Everything one run needs: the base scenario's text and name, the ``--set`` overrides of
    its point, the seed, and the run key it will be filed under."""

    key: str
    scenario_text: str
    scenario_name: str
    overrides: tuple[str, ...]
    seed: int
    #: Where the driver read the scenario (recorded in the provenance, never opened here).
    scenario_source: str = ""
    #: How to file the run (a sweep's run): the worker then returns an :class:`EncodedRun`.
    filing: "Filing | None" = None


@dataclass(frozen=True)
class Filing:
    """What the run file holds besides the run's flows: the point's columns (dotted key →
    value, with their Arrow types, :func:`tcplab.sweep.results.run_table`) and the ledger
    entry's fields the driver knows (study, point, overrides, seed, version). The worker adds
    the run's own (timings, worker, flows, events, ``finished_utc``)."""

    point: dict[str, Any]
    types: dict[str, pa.DataType]
    entry: dict[str, Any]


@dataclass(frozen=True)
class EncodedRun:
    """A sweep's finished run as the worker hands it back: the run file's bytes (Parquet,
    holding ``entry`` and the provenance as metadata), its ledger entry, and its table in
    Arrow IPC stream format (no metadata) for ``flows.parquet``."""

    key: str
    entry: dict[str, Any]
    file: bytes
    table_ipc: bytes

    def table(self) -> pa.Table:
        """The run's table (as the run file holds it, without its metadata)."""
        return pa.ipc.open_stream(self.table_ipc).read_all()


@dataclass(frozen=True)
class RunOutcome:
    """A finished run as the worker hands it back."""

    key: str
    flows: pa.Table
    summary: dict[str, Any]
    #: What produced the run, as ``tcplab run`` records it (:func:`tcplab.api.provenance`).
    provenance: dict[str, Any]
    #: Wall-clock seconds spent inside the simulator (``_core.run``), measured on the worker.
    sim_wall_s: float
    #: CPU seconds of the worker process inside the simulator.
    sim_cpu_s: float
    #: Wall-clock and CPU seconds of the whole run on the worker (loading, simulating,
    #: converting; not :func:`encode_run`, which follows and records these).
    task_wall_s: float
    task_cpu_s: float
    worker: str


#: Loaded scenarios a worker keeps: a study's runs differ by seed far more often than by
#: point, so most runs of a task (and of a worker) share one loaded scenario.
SPEC_CACHE = 64


@functools.lru_cache(maxsize=SPEC_CACHE)
def _load(text: str, name: str, overrides: tuple[str, ...]):
    """The point's scenario, loaded once per worker process and reused for its other seeds
    (loading parses and validates the scenario and its overrides: about a millisecond of
    CPU, 2 % of a 80 ms run). A loaded scenario is immutable, so runs can share it; a load
    that fails raises again for each run (exceptions are not cached)."""
    from .. import _core

    return _core.load_scenario(text, name, list(overrides))


def run_task(task: RunTask) -> RunOutcome:
    """Load the scenario with the point's overrides and simulate it without tracing.
    Raises :class:`tcplab.ScenarioError` for a point the simulator refuses at run time."""
    from .. import _core
    from ..api import Scenario, _FlowNames, add_flow_names, provenance
    from ..errors import _translate
    from ..tables import to_arrow

    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        spec = _load(task.scenario_text, task.scenario_name, tuple(task.overrides))
        t1 = time.perf_counter()
        c1 = time.process_time()
        raw = _core.run(spec, task.seed, False, [])
        t2 = time.perf_counter()
        c2 = time.process_time()
    except _core.ScenarioError as e:
        raise _translate(e) from None
    summary = json.loads(raw.summary_json)
    flow_summaries = summary.pop("flows", None) or []  # the same numbers are the flows table
    sc = Scenario(spec, spec.name, spec.default_seed, tuple(spec.link_names), task.overrides, task.scenario_source)
    # As tcplab run's flows table: the flow_name column (a workload's connections named by
    # their workload), and the same provenance record.
    names = _FlowNames(sc)
    names.extend(0, [f.get("workload") for f in flow_summaries])
    flows = add_flow_names(to_arrow(raw.table("flows")), names.names, names.labels)
    return RunOutcome(
        key=task.key,
        flows=flows,
        summary=summary,
        provenance=provenance(sc, task.seed),
        sim_wall_s=t2 - t1,
        sim_cpu_s=c2 - c1,
        task_wall_s=time.perf_counter() - t0,
        task_cpu_s=time.process_time() - c0,
        worker=f"{socket.gethostname()}:{os.getpid()}",
    )


def encode_run(task: RunTask, o: RunOutcome) -> EncodedRun:
    """The run file of ``o`` (``task.filing`` says what else it holds): the flows table with
    the run key, the point's columns and ``seed`` in front, the provenance and the ledger
    entry as Parquet metadata (:meth:`tcplab.sweep.ledger.Ledger.record`), encoded by
    :func:`tcplab.sweep.ledger.encode_table`."""
    from ..api import PROVENANCE_KEY
    from .ledger import META_KEY, encode_table, now_utc
    from .results import run_table

    f = task.filing
    assert f is not None
    table = run_table(o.flows, task.key, f.point, task.seed, f.types)
    entry: dict[str, Any] = {
        **f.entry,
        "git_revision": o.provenance.get("git_revision"),
        "flows": o.flows.num_rows,
        "sim_wall_s": round(o.sim_wall_s, 6),
        "sim_cpu_s": round(o.sim_cpu_s, 6),
        "task_wall_s": round(o.task_wall_s, 6),
        "task_cpu_s": round(o.task_cpu_s, 6),
        "sim_time_s": o.summary.get("sim_time_s"),
        "events": o.summary.get("events"),
        "worker": o.worker,
        "finished_utc": now_utc(),
    }
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    meta = {PROVENANCE_KEY: json.dumps(o.provenance, sort_keys=True), META_KEY: json.dumps(entry, sort_keys=True)}
    data = encode_table(table.replace_schema_metadata(meta))
    return EncodedRun(task.key, entry, data, sink.getvalue().to_pybytes())


def run_tasks(tasks: list[RunTask]) -> list[RunOutcome | EncodedRun | BaseException]:
    """Several runs in one Dask task (to spread Dask's per-task cost): each run's outcome, or
    the exception it raised, so that one failing point does not discard the others."""
    out: list[RunOutcome | BaseException] = []
    for t in tasks:
        try:
            o = run_task(t)
            out.append(encode_run(t, o) if t.filing is not None else o)
        except Exception as e:  # noqa: BLE001 - handed back to the driver, which reports it
            out.append(e)
    return out
