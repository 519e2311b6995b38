"""The sweep driver: validate every point, run what is missing on Dask, file each run, tabulate.

Execution is Dask's (``dask.distributed``): a ``LocalCluster`` of single-threaded worker
processes on this machine by default, or an existing cluster given by its scheduler address
(``tcp://host:8786``; its workers need tcplab installed). The driver cuts the missing runs
into tasks of a few runs each (:func:`chunk_size`, :func:`tcplab.sweep.task.run_tasks`) and
files each run as its task's result arrives (:mod:`tcplab.sweep.ledger`). Failure handling is Dask's, not ours: when a worker process
dies, its nanny restarts it and the scheduler gives its tasks to a worker again (up to
``distributed.scheduler.allowed-failures`` times, 3 by default); a task that raises is
reported, not retried (a run is deterministic, it would fail again). When the driver dies,
whatever was filed stays filed, and running the same study into the same directory runs only
the rest.
"""

from __future__ import annotations

import json
import logging
import os
import resource
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..errors import TcplabError
from . import ledger as L
from . import timeline
from . import workers as local_workers
from .results import TABULATION_MODULES, column_types, format_summary, metrics_of, run_table, summarize
from .study import Run, Study, StudyError, label
from .task import RunOutcome, RunTask, run_tasks

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

# pyarrow (and numpy through it) is not imported before the tasks are submitted: the driver
# imports it on the warm-up thread while the first runs simulate (`warm_up`; ~0.15-0.25 s
# of CPU that both workers would otherwise wait out before their first run).

#: Dask tasks per worker the runs are cut into, at least: enough for the scheduler to balance
#: the load (a worker that gets faster runs takes more tasks) and for a lost task to cost
#: little, few enough that Dask's per-task cost (scheduling, messages, result transfer; some
#: milliseconds of the driver's CPU) is spread over many runs.
TASKS_PER_WORKER = 8
#: Most runs in one task: the progress bar and the filing still advance every few runs.
MAX_RUNS_PER_TASK = 16
#: Tasks a single-threaded Dask worker holds at once: the one running and one queued behind
#: it, so that it starts its next task without waiting for the scheduler (Dask's
#: ``distributed.scheduler.worker-saturation``, 1.1 by default: ceil(1.1 x 1 thread) = 2).
TASKS_IN_FLIGHT = 2


def chunk_size(n_runs: int, n_workers: int, most: int = MAX_RUNS_PER_TASK) -> int:
    """Runs per Dask task: n_runs / (workers x TASKS_PER_WORKER), between 1 and ``most``
    (MAX_RUNS_PER_TASK)."""
    return max(1, min(most, n_runs // max(1, n_workers * TASKS_PER_WORKER)))


def chunks(n_runs: int, n_workers: int, most: int = MAX_RUNS_PER_TASK) -> list[range]:
    """The runs (indices) of each Dask task, in submission order: :func:`chunk_size` runs
    per task while many remain, then ever smaller tasks ("guided self-scheduling",
    Polychronopoulos & Kuck 1987: a task takes at most the remaining runs / (2 x workers)),
    so that the last tasks are short and a worker that finishes first idles for about one
    run at the end instead of up to a whole task of MAX_RUNS_PER_TASK runs.

    Divided again by TASKS_IN_FLIGHT: a Dask worker takes its next task while it runs one,
    so it commits to two tasks ahead, and the rule's bound holds for the pair. Measured
    (session 10, load ~10): with remaining / (2 x workers) alone, one worker held an 8- and a
    5-run task while the other ran the last 14 small ones, and idled 1.7 s at the end."""
    size = chunk_size(n_runs, n_workers, most)
    out, start = [], 0
    while start < n_runs:
        left = n_runs - start
        n = max(1, min(size, -(-left // (2 * max(1, n_workers) * TASKS_IN_FLIGHT))))
        out.append(range(start, start + n))
        start += n
    return out


class SweepError(TcplabError):
    """Runs of the sweep failed (one line: how many, and the first one's error)."""


def validate(study: Study, *, source: str | None = None) -> list[str]:
    """Check every point against the base scenario without running anything: the scenario
    loader applies the point's overrides (``[set]`` and swept) and checks the result, and an
    error names the override it came from (``from --set KEY=VALUE``). Returns each point's
    resolved scenario (TOML), which the run keys hash. Raises :class:`StudyError` naming the
    point (its keys and values) and the problem.

    Not :func:`tcplab.check`'s stricter rule (each override alone, then together): a study
    may fix one half of a table under ``[set]`` and sweep the other half
    (``links.x.loss.model`` fixed, ``links.x.loss.p`` swept), and then neither override
    loads alone."""
    from .. import _core

    src = source or study.source
    resolved = []
    for i, p in enumerate(study.points()):
        try:
            spec = _core.load_scenario(study.scenario_text, study.scenario_name, study.overrides(p))
        except _core.ScenarioError as e:
            where = f"point {i + 1} ({p.describe()})" if p.values else "base scenario with [set]"
            raise StudyError(f"{src}: {where}: {e}") from None
        resolved.append(spec.resolved_toml)
    return resolved


@dataclass
class SweepStats:
    """What one invocation did and where its time went."""

    runs: int = 0
    reused: int = 0
    executed: int = 0
    failed: int = 0
    workers: int = 0
    #: Wall seconds from the start of the invocation to the end of tabulation.
    wall_s: float = 0.0
    #: Wall seconds to start the local cluster (or connect to the scheduler).
    start_s: float = 0.0
    #: Wall seconds of the execution phase (first submission to last run filed).
    exec_wall_s: float = 0.0
    #: Wall seconds to close the client and the local cluster after the last run.
    close_s: float = 0.0
    #: Wall seconds to write flows.parquet and the summary.
    tabulate_s: float = 0.0
    #: Seconds spent inside the simulator, summed over the runs executed now (wall clock and
    #: CPU time of the worker processes).
    sim_s: float = 0.0
    sim_cpu_s: float = 0.0
    #: CPU seconds of the driver process itself (all its threads: client, scheduler and
    #: nannies of a LocalCluster, filing), from getrusage(RUSAGE_SELF).
    driver_cpu_s: float = 0.0
    #: Ledger repair at start: torn lines skipped, files re-entered.
    torn_lines: int = 0
    recovered: int = 0

    @property
    def outside_fraction(self) -> float | None:
        """Share of the workers' wall time (workers × wall of the whole invocation: cluster
        start, runs, tabulation) not spent in the simulator — the issue's measure. For a
        study of short runs it is close to 1: 20 runs of 3 ms simulate 0.06 s of the 26
        worker-seconds of a 13 s command that spends 6 s starting its 2 workers."""
        if not self.executed or not self.workers or self.wall_s <= 0:
            return None
        return 1.0 - self.sim_s / (self.workers * self.wall_s)


@dataclass
class SweepResult:
    study: Study
    out: Path
    flows: pd.DataFrame
    summary: pd.DataFrame
    stats: SweepStats = field(default_factory=SweepStats)

    def table(self) -> str:
        return format_summary(self.summary, self.study.keys)


#: Dask settings of the local cluster: its periodic housekeeping, slowed down. With Dask's
#: defaults an idle LocalCluster of 2 workers costs the driver process 1.45 s of CPU per 30 s
#: (5 % of a core: the event-loop tick monitor every 20 ms, each nanny's memory monitor every
#: 100 ms, the system monitor every 500 ms); with these, 0.23 s (measured on the project
#: machine). That CPU is taken from the workers when they have one core each. The memory
#: limit is then enforced within a second instead of 100 ms, and the dashboard's system
#: graphs update every 2 s.
LOCAL_CLUSTER_CONFIG = {
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _client(workers: int | None, scheduler: str | None):
    """A Dask client: of ``scheduler``, or of a new LocalCluster of ``workers`` processes."""
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError as e:  # pragma: no cover - dask is a dependency
        raise SweepError(f"dask.distributed is not installed ({e}); pip install 'dask[distributed]'") from None
    timeline.mark("dask.distributed imported")
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise SweepError(f"--scheduler {scheduler}: cannot connect ({e})") from None
        return client, None
    n = workers or _cores()
    # Workers forked from a server that imported tcplab once (sweep/workers.py), where the
    # platform has one; started earlier by `tcplab sweep` and run_study, so usually running.
    config = dict(LOCAL_CLUSTER_CONFIG)
    if local_workers.start():
        config["distributed.worker.multiprocessing-method"] = local_workers.START_METHOD
        local_workers.claim_dask_preload()
    # Workers ignore Ctrl-C (the driver handles it): forked from a server that ignores it, or
    # (spawn) started with SIGINT ignored, which they inherit; the preload keeps it so for
    # workers restarted later (see _worker.py). A Ctrl-C during these seconds of start-up is
    # ignored too; once running, it stops the sweep.
    in_main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
    try:
        with dask.config.set(config):
            cluster = LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # a free port: never "port 8787 in use" warnings
                # Failures reach the driver through the futures; Dask's own log lines (a
                # killed worker, keys not gathered at Ctrl-C) would only be noise on the terminal.
                silence_logs=logging.CRITICAL,
                preload=["tcplab.sweep._worker"],
            )
    finally:
        if in_main:
            signal.signal(signal.SIGINT, old)
    return Client(cluster), cluster


def run_study(
    study: Study,
    out: str | os.PathLike,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    echo: Callable[[str], None] | None = None,
) -> SweepResult:
    """Run ``study`` into ``out`` (resuming what is there) and return its tables.

    ``progress``: a tqdm bar on stderr (None: only on a terminal). ``echo``: where to say
    what was reused or repaired (default: nothing)."""
    t_start = time.perf_counter()
    out = Path(out)
    L.check_dir(out)
    if scheduler is None:
        # The local workers' fork server imports while this process validates and opens the
        # ledger (sweep/workers.py); a no-op when `tcplab sweep` started it already.
        local_workers.start()
    resolved = validate(study)
    timeline.mark("points validated")
    if workers is not None and workers < 1:
        raise StudyError(f"workers: must be at least 1, got {workers}")
    out.mkdir(parents=True, exist_ok=True)
    lock = L.lock_dir(out)
    try:
        return _run_locked(study, resolved, out, t_start, workers=workers, scheduler=scheduler, progress=progress,
                           echo=echo)
    finally:
        lock.close()


def _run_locked(study: Study, resolved: list[str], out: Path, t_start: float, *, workers, scheduler, progress,
                echo) -> SweepResult:
    L.write_atomic(out / L.STUDY, (json.dumps(study.describe(), indent=2) + "\n").encode())
    led = L.Ledger.open(out)
    say = echo or (lambda s: None)
    stats = SweepStats(torn_lines=led.torn_lines, recovered=led.recovered)
    if led.torn_lines or led.recovered:
        say(f"ledger repaired: {led.torn_lines} torn line(s) skipped, {led.recovered} run file(s) re-entered")
    runs = study.runs(resolved)
    todo = [r for r in runs if r.key not in led.entries]
    stats.runs = len(runs)
    timeline.mark("ledger opened, runs keyed")
    stats.reused = len(runs) - len(todo)
    if stats.reused:
        say(f"{stats.reused} of {len(runs)} runs already in {out}/runs, {len(todo)} to run")
    filed: dict[str, pa.Table] = {}
    if todo:
        try:
            _execute(study, todo, led, stats, filed, workers=workers, scheduler=scheduler, progress=progress,
                     total=len(runs))
        except KeyboardInterrupt:
            print(f"tcplab: {stats.reused + stats.executed} of {len(runs)} runs filed in {out}/runs; "
                  "run the same command again to resume", file=sys.stderr)
            raise
    t_tab = time.perf_counter()
    result = tabulate(study, out, led, runs, filed)
    stats.tabulate_s = time.perf_counter() - t_tab
    timeline.mark("tabulated")
    stats.wall_s = time.perf_counter() - t_start
    ru = resource.getrusage(resource.RUSAGE_SELF)
    stats.driver_cpu_s = ru.ru_utime + ru.ru_stime
    result.stats = stats
    return result


@dataclass
class Execution:
    """What :func:`execute` did: the workers it had, its timings, and the jobs that failed."""

    workers: int = 0
    #: Wall seconds to start the local cluster (or connect to the scheduler).
    start_s: float = 0.0
    #: Wall seconds from the first submission to the last result handled.
    exec_wall_s: float = 0.0
    #: Wall seconds to close the client and the local cluster.
    close_s: float = 0.0
    #: ``(job index, exception)`` of every job that failed (raised, or lost its task).
    failures: list[tuple[int, BaseException]] = field(default_factory=list)


def execute(
    jobs: list[tuple[str, Any]],
    fn: Callable[[list[Any]], list[Any]],
    on_result: Callable[[int, Any], None],
    *,
    workers: int | None,
    scheduler: str | None,
    progress: bool | None = None,
    total: int | None = None,
    desc: str = "",
    bar: Any = None,
    per_task: int = MAX_RUNS_PER_TASK,
    on_started: Callable[[], None] | None = None,
) -> Execution:
    """Run ``jobs`` (``(key, payload)`` pairs) on Dask and hand each result to ``on_result``
    (``(job index, result)``) in the driver, as it arrives. The sweep's runs and the
    reproductions' experiments (:mod:`tcplab.reproduce.experiment`) both execute here.

    ``fn`` runs on a worker with the payloads of one task (several jobs, :func:`chunk_size`)
    and returns one result per payload, or the exception that payload raised. ``total``:
    the progress bar's total (the jobs plus those already done); ``bar``: an existing tqdm bar
    to advance instead of a new one (``progress`` then does not apply); ``per_task``: most
    jobs in one task (1 for jobs long enough that Dask's per-task cost does not matter, such
    as a capture's what-if: a killed worker then loses one job's work); ``on_started``: called
    in the driver once the tasks are submitted (the workers are busy from then on).

    ``workers=0`` (without ``scheduler``): no cluster; the same tasks run one after the other
    in this process (:data:`IN_PROCESS`), for work too small to pay for starting workers."""
    from tqdm import tqdm

    total = len(jobs) if total is None else total
    own = bar is None
    if own:
        bar = tqdm(total=total, initial=total - len(jobs), unit="run", desc=desc,
                   disable=None if progress is None else not progress, file=sys.stderr, smoothing=0.1)
    try:
        if workers == 0 and scheduler is None:
            if on_started is not None:
                on_started()
            return _execute_here(jobs, fn, on_result, bar, per_task)
        return _execute_dask(jobs, fn, on_result, bar, workers=workers, scheduler=scheduler, per_task=per_task,
                             on_started=on_started)
    finally:
        if own:
            bar.close()


#: ``workers`` value of :func:`execute` that runs the tasks in the driver process. Starting a
#: LocalCluster of 2 workers takes about 6 s and closing it 1.3 s on the project machine under
#: load (and each worker imports pandas and tcplab again), while e.g. ``tcplab reproduce frto
#: --quick`` simulates for about 6 s in all: small batches finish sooner here.
IN_PROCESS = 0


def _execute_here(jobs: list[tuple[str, Any]], fn, on_result, bar, per_task: int = MAX_RUNS_PER_TASK) -> Execution:
    ex = Execution(workers=1)
    t0 = time.perf_counter()
    size = chunk_size(len(jobs), 1, per_task)
    for start in range(0, len(jobs), size):
        idx = list(range(start, min(start + size, len(jobs))))
        for i, outcome in zip(idx, fn([jobs[i][1] for i in idx])):
            if isinstance(outcome, BaseException):
                ex.failures.append((i, outcome))
                bar.set_postfix(failed=len(ex.failures))
                continue
            on_result(i, outcome)
            bar.update(1)
    ex.exec_wall_s = time.perf_counter() - t0
    return ex


def _execute_dask(jobs: list[tuple[str, Any]], fn, on_result, bar, *, workers, scheduler,
                  per_task: int = MAX_RUNS_PER_TASK, on_started: Callable[[], None] | None = None) -> Execution:
    from dask.distributed import as_completed

    ex = Execution()
    t_start = time.perf_counter()
    client, cluster = _client(workers, scheduler)
    ex.start_s = time.perf_counter() - t_start
    timeline.mark("cluster up, client connected")
    if timeline.enabled() and cluster is not None:
        timeline.processes("worker", [w.pid for w in cluster.workers.values() if getattr(w, "pid", None)])
    # Ctrl-C: the KeyboardInterrupt Python raises can land inside Dask's own waiting code and
    # be swallowed there (seen once in a fresh-clone test run: the sweep then finished with
    # exit 0). The handler also records the interrupt, and the loop raises it again at the next
    # result, so a Ctrl-C always stops the sweep.
    interrupted = threading.Event()
    in_main = threading.current_thread() is threading.main_thread()

    def on_sigint(signum, frame):
        interrupted.set()
        raise KeyboardInterrupt

    old_handler = signal.signal(signal.SIGINT, on_sigint) if in_main else None
    try:
        ex.workers = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        tasks = [list(c) for c in chunks(len(jobs), ex.workers, per_task)]
        by_key = {f"tcplab-runs-{jobs[c[0]][0]}-{len(c)}": c for c in tasks}
        payloads = [[jobs[i][1] for i in c] for c in tasks]
        t0 = time.perf_counter()
        futures = client.map(fn, payloads, key=list(by_key), pure=False)
        timeline.mark("tasks submitted")
        if on_started is not None:
            on_started()
        for fut in as_completed(futures):
            chunk = by_key[fut.key]
            if fut.status != "finished":
                # The task itself failed (a worker killed more often than Dask allows).
                ex.failures.extend((i, fut.exception()) for i in chunk)
                fut.release()
                bar.set_postfix(failed=len(ex.failures))
                continue
            outcomes = fut.result()
            fut.release()
            timeline.task_done(outcomes)
            for i, outcome in zip(chunk, outcomes):
                if isinstance(outcome, BaseException):
                    ex.failures.append((i, outcome))
                    bar.set_postfix(failed=len(ex.failures))
                    continue
                on_result(i, outcome)
                bar.update(1)
            if interrupted.is_set():
                raise KeyboardInterrupt
        if interrupted.is_set():
            raise KeyboardInterrupt
        ex.exec_wall_s = time.perf_counter() - t0
        timeline.mark("last result filed")
    finally:
        if in_main:
            signal.signal(signal.SIGINT, old_handler)
        t_close = time.perf_counter()
        client.close()
        if cluster is not None:
            cluster.close()
        ex.close_s = time.perf_counter() - t_close
        timeline.mark("cluster closed")
    return ex


def _execute(study: Study, todo: list[Run], led: L.Ledger, stats: SweepStats, filed: dict[str, pa.Table], *,
             workers, scheduler, progress, total) -> None:
    """Run ``todo`` on Dask, filing each result as it arrives; the tables filed are kept in
    ``filed`` (run key → table) so that tabulation need not read them back."""
    types: dict[str, pa.DataType] | None = None  # on the first result: it needs pyarrow
    jobs = [
        (r.key, RunTask(r.key, study.scenario_text, study.scenario_name, tuple(study.overrides(r.point)), r.seed,
                        study.scenario_source))
        for r in todo
    ]

    def file(i: int, outcome: RunOutcome) -> None:
        nonlocal types
        if types is None:
            types = column_types(study)
        r = todo[i]
        filed[r.key] = _file(led, study, r, outcome, types)
        stats.executed += 1
        stats.sim_s += outcome.sim_wall_s
        stats.sim_cpu_s += outcome.sim_cpu_s

    ex = execute(jobs, run_tasks, file, workers=workers, scheduler=scheduler, progress=progress, total=total,
                 desc=study.name, on_started=warm_up)
    stats.workers, stats.start_s, stats.exec_wall_s, stats.close_s = ex.workers, ex.start_s, ex.exec_wall_s, ex.close_s
    stats.failed = len(ex.failures)
    if ex.failures:
        i, e = ex.failures[0]
        r = todo[i]
        raise SweepError(
            f"{len(ex.failures)} of {len(todo)} runs failed; the others are filed (re-run to retry the failed ones). "
            f"First: point {r.point_index + 1} ({r.point.describe()}), seed {r.seed}: {type(e).__name__}: {e}"
        )


def warm_up(modules: tuple[str, ...] = TABULATION_MODULES) -> threading.Thread:
    """Import ``modules`` (what tabulation needs and filing does not: pandas, scipy's t
    quantile) on a daemon thread, while the workers simulate. Imported before the first run
    or after the last, their ~0.5 s of CPU would be wall time that both workers wait out
    (twice that in the workers x wall measure); during the runs they take the driver's share
    of a core once. An import that fails here fails again, with its message, where it is
    used."""
    import importlib

    def run() -> None:
        for m in modules:
            try:
                importlib.import_module(m)
            except Exception:  # noqa: BLE001 - reported by the import where it is needed
                pass

    t = threading.Thread(target=run, name="tcplab-warm-up", daemon=True)
    t.start()
    return t


def _file(led: L.Ledger, study: Study, r: Run, o: RunOutcome, types: dict[str, pa.DataType]) -> pa.Table:
    from ..api import PROVENANCE_KEY, add_provenance

    table = run_table(o.flows, r.key, r.point.as_dict(), r.seed, types)
    table = add_provenance(table, {PROVENANCE_KEY: json.dumps(o.provenance, sort_keys=True)})
    entry: dict[str, Any] = {
        "key": r.key,
        "study": study.name,
        "scenario": study.scenario_name,
        "point": {k: _jsonable(v) for k, v in r.point.values},
        "overrides": study.overrides(r.point),
        "seed": r.seed,
        "tcplab_version": study.version,
        "git_revision": o.provenance.get("git_revision"),
        "flows": o.flows.num_rows,
        "sim_wall_s": round(o.sim_wall_s, 6),
        "sim_cpu_s": round(o.sim_cpu_s, 6),
        "task_wall_s": round(o.task_wall_s, 6),
        "task_cpu_s": round(o.task_cpu_s, 6),
        "sim_time_s": o.summary.get("sim_time_s"),
        "events": o.summary.get("events"),
        "worker": o.worker,
        "finished_utc": L.now_utc(),
    }
    led.record(entry, table)
    return table


def _jsonable(v: Any) -> Any:
    return v if isinstance(v, (str, int, float, bool, list, dict)) or v is None else str(v)


def _read_runs(led: L.Ledger, runs: list[Run], filed: dict[str, pa.Table]) -> pa.Table:
    """Every run's table in the study's order, in one chunk: those filed now from memory, the
    others read back (on threads; reading Parquet releases the GIL).

    Without the thread pool when every run was filed now (a pool's future per run cost 0.11 s
    for 1000 runs, measured), and combined into one chunk per column: Parquet-encoding 1000
    one-run chunks cost 0.17 s against 0.01-0.03 s for the combined table, the same file
    (docs/benchmarks.md, "session 10"); ``to_pandas`` is faster on it too."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    missing = [r for r in runs if r.key not in filed]
    if missing:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=4) as pool:
            read = dict(zip((r.key for r in missing), pool.map(lambda r: pq.read_table(led.run_path(r.key)), missing)))
    else:
        read = {}
    tables = [(filed[r.key] if r.key in filed else read[r.key]).replace_schema_metadata(None) for r in runs]
    if not tables:
        return pa.table({})
    return pa.concat_tables(tables).combine_chunks()


def tabulate(study: Study, out: Path, led: L.Ledger, runs: list[Run], filed: dict[str, pa.Table] | None = None) -> SweepResult:
    """Write ``flows.parquet`` (every run of the study, in the study's order) and the summary
    (``summary.parquet``, ``summary.csv``); return them as DataFrames."""
    import pyarrow as pa

    from ..tables import to_pandas

    table = _read_runs(led, runs, filed or {})
    meta = {b"tcplab.study": json.dumps(study.describe(), sort_keys=True).encode()}
    table = table.replace_schema_metadata(meta)
    L.write_table_atomic(out / "flows.parquet", table)
    import pandas as pd

    flows = to_pandas(table)
    keys = list(study.keys)
    summary = summarize(flows, keys, metrics_of(study, flows)) if len(flows) else pd.DataFrame()
    # The study's record in the summary's metadata too: every table says what produced it.
    st = pa.Table.from_pandas(summary, preserve_index=False)
    L.write_table_atomic(out / "summary.parquet", st.replace_schema_metadata({**(st.schema.metadata or {}), **meta}))
    L.write_atomic(out / "summary.csv", summary.to_csv(index=False).encode())
    return SweepResult(study, out, flows, summary)


def dry_run_text(study: Study, resolved: list[str], out: Path | None = None) -> str:
    """The expansion of ``study``: its points with their values, the seeds, the run count, and
    (with ``out``) how many runs are already filed there. ``resolved``: from :func:`validate`."""
    points = study.points()
    keys = list(study.keys)
    lines = [
        f"study {study.name}: scenario {study.scenario_name}, {len(points)} point(s) x {len(study.seeds)} seed(s) "
        f"= {len(points) * len(study.seeds)} runs"
    ]
    for k, v in study.fixed:
        lines.append(f"set {k} = {json.dumps(v) if isinstance(v, str) else v}")
    if keys:
        cells = [[str(i + 1), *(str(label(v)) for _, v in p.values)] for i, p in enumerate(points)]
        head = ["point", *keys]
        widths = [max(len(h), *(len(c[j]) for c in cells)) for j, h in enumerate(head)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
        for c in cells:
            lines.append("  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip())
    lines.append("seeds: " + _seed_text(study.seeds))
    if out is not None and (Path(out) / L.LEDGER).exists():
        led = L.Ledger(Path(out))
        on_disk = L.run_keys_on_disk(led.runs_dir)
        done = sum(1 for r in study.runs(resolved) if r.key in on_disk)
        lines.append(f"{done} of {len(points) * len(study.seeds)} runs already in {out}/runs")
    return "\n".join(lines)


def _seed_text(seeds: tuple[int, ...]) -> str:
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]} ({len(seeds)})"
    return ", ".join(map(str, seeds))
