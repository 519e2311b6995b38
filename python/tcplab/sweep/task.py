"""What a worker runs: one simulation of one sweep point, returned to the driver.

The task carries the scenario's text (not its path), so a worker on another machine needs
only tcplab installed, not the study's files; it returns the run's flows table and summary,
and the driver writes the run file (so workers need no access to the output directory).
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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


@dataclass(frozen=True)
class RunOutcome:
    """A finished run as the worker hands it back."""

    key: str
    #: The run's flows table (with ``flow_name``) in Arrow's IPC stream format, as the core
    #: built it (``_core.RunOutput.table_ipc``); :attr:`flows` is the table.
    flows_ipc: bytes
    summary: dict[str, Any]
    #: What produced the run, as ``tcplab run`` records it (:func:`tcplab.api.provenance`).
    provenance: dict[str, Any]
    #: Wall-clock seconds spent inside the simulator (``_core.run``), measured on the worker.
    sim_wall_s: float
    #: CPU seconds of the worker process inside the simulator.
    sim_cpu_s: float
    #: Wall-clock and CPU seconds of the whole run on the worker (loading, simulating,
    #: converting).
    task_wall_s: float
    task_cpu_s: float
    worker: str

    @functools.cached_property
    def flows(self) -> pa.Table:
        """The flows table, read from :attr:`flows_ipc` (in the driver, once)."""
        import pyarrow as pa

        return pa.ipc.open_stream(self.flows_ipc).read_all()

    def __getstate__(self) -> dict[str, Any]:
        # Shipped from worker to driver as the core's IPC bytes, never as the decoded table.
        # Building the table in Python (``to_arrow`` + ``add_flow_names``) and encoding it
        # for Dask cost the worker ~0.8 ms per ``bench-1000`` run, against ~0.05 ms for the
        # core's bytes (docs/benchmarks.md, "Parameter studies", sessions 9 and 10); the
        # worker's share is what both workers' wall time pays on a 2-core machine.
        state = dict(self.__dict__)
        state.pop("flows", None)
        return state


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
    from ..api import Scenario, _FlowNames, provenance
    from ..errors import _translate

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
    # their workload), and the same provenance record. The core builds the table and its
    # IPC bytes (the same table as add_flow_names(to_arrow(raw.table("flows")), ...):
    # crates/tcplab-py/src/ipc.rs, tests/test_sweep_core_ipc.py).
    names = _FlowNames(sc)
    names.extend(0, [f.get("workload") for f in flow_summaries])
    flows_ipc = raw.table_ipc("flows", names.names, names.labels)
    return RunOutcome(
        key=task.key,
        flows_ipc=flows_ipc,
        summary=summary,
        provenance=provenance(sc, task.seed),
        sim_wall_s=t2 - t1,
        sim_cpu_s=c2 - c1,
        task_wall_s=time.perf_counter() - t0,
        task_cpu_s=time.process_time() - c0,
        worker=f"{socket.gethostname()}:{os.getpid()}",
    )


def run_tasks(tasks: list[RunTask]) -> list[RunOutcome | BaseException]:
    """Several runs in one Dask task (to spread Dask's per-task cost): each run's outcome, or
    the exception it raised, so that one failing point does not discard the others."""
    out: list[RunOutcome | BaseException] = []
    for t in tasks:
        try:
            out.append(run_task(t))
        except Exception as e:  # noqa: BLE001 - handed back to the driver, which reports it
            out.append(e)
    return out
