"""Reproductions as data: experiments of named points × seeds, run on the sweep engine.

A paper's figure or table is an :class:`Experiment`: base scenario(s), a list of named
:class:`Point` s (a ``series`` and an ``x`` label, the ``--set`` overrides that make the
point, and optional ``params`` handed to the measurement) times a list of seeds, and a
``measure`` function that turns one finished run into rows of numbers. Running experiments
(:func:`run_experiments`) executes every (point, seed) on the sweep engine's Dask execution
(:func:`tcplab.sweep.runner.execute`: a ``LocalCluster`` of worker processes, or an
existing scheduler), files each run as the sweep does (``DIR/runs/<key>.parquet`` plus a line
in ``DIR/ledger.jsonl``, :mod:`tcplab.sweep.ledger`), and returns one tidy DataFrame per
experiment: ``series, x, <params...>, seed`` and the measured columns, in point order then
seed order. Tabulation (:func:`aggregate`, :func:`add_rows`: rows ``figure, series, x,
metric, ours, paper`` of :mod:`.common`) and plotting are plain functions of those frames;
report notes are formatted from them.

Usage (the pattern of ``aron98``, ``frto``; docs/sweeps.md "Reproductions")::

    def measure(res, point):                 # runs on a worker; res: tcplab.RunResult
        f = res.summary["flows"][0]
        return {"fct_s": f["fct_s"], "rexmits": f["retransmissions"]}

    exp = Experiment("table1", points=[Point("SACK", "", []), Point("NewReno", "", ["tcp.sack=false"])],
                     scenario="gprs", seeds=range(1, 11), measure=measure)
    df = run_experiments([exp], out, progress=bar)["table1"]
    agg = aggregate(df, ["fct_s", "rexmits"], how="median")
    add_rows(report.figure("table1", "Table 1"), agg, {"fct_s": 2}, paper={("SACK", "", "fct_s"): 94.1})

Run keys: a run is filed under a hash of everything that decides its rows — the point's
resolved scenario (profiles and overrides applied, as the sweep's run keys), the seed, the
tcplab version, ``trace``, the point's ``params``, and the measurement (its qualified name
and a hash of its module's source, so that editing a reproduction's code does not reuse
runs measured by the old code; an edit to a helper in another module is not seen). Two
experiments with the same run share it: it is run once. Re-running into a directory that
has the runs (the Python API; ``tcplab reproduce`` writes a fresh directory) runs nothing
again.

Ambiguities resolved here:

- ``seeds`` may hold ``None``: the scenario's own ``simulation.seed`` (what ``tcplab run``
  uses without ``--seed``); the ``seed`` column then holds that number.
- A measurement returns a mapping (one row) or a list of mappings (several rows, e.g. one
  per flow); each row gets the point's labels. Values must be scalars or lists of numbers.
- A figure that draws one run's trace (aron98 Figs 4-5) runs that run once more in the
  driver, traced (:func:`trace_run`): rows come from the engine, the picture from the trace.
- A measurement that reads a packet capture (rewaskar: inference and what-if of the corpus)
  names the links in ``Experiment.pcap``: the run gets a temporary output directory, the
  measurement finds each capture at ``res.captures[link]``, and the directory is deleted
  once the measurement returns (captures are large; the rows are what is filed).
- A measurement with many rows of several kinds (the what-if rows of every connection and
  grid point, its retransmissions, its connections) returns :class:`Tables`: named Arrow
  tables, which travel and are filed as Arrow (the first as the run file, the others beside
  it as the ledger's ``runs/<name>/<key>.parquet``, the layout of ``tcplab whatif``'s
  engine), not as Python rows. Such an experiment's result is ``{table name: pyarrow.Table}``
  (each table with the point's label columns first), written as ``data/<name>/<table>.parquet``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
import os
import shutil
import socket
import statistics as st
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from ..errors import TcplabError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from ..api import RunResult

#: Columns every experiment table starts with (before the point's params and the measured
#: columns): the point's labels and the seed.
LABELS = ("series", "x")
SEED = "seed"


#: ``workers`` for a ``--quick`` reproduction: in the driver process
#: (:data:`tcplab.sweep.runner.IN_PROCESS`). Measured on the project machine under load:
#: ``tcplab reproduce frto --quick --runs 2`` (192 runs) takes 6 s in the driver, 19 s on a
#: LocalCluster of 2 workers, whose start and stop alone take 7 s.
QUICK_WORKERS = 0


class ExperimentError(TcplabError):
    """Runs of an experiment failed (one line: how many, and the first one's error)."""


@dataclass(frozen=True, eq=False)
class Point:
    """One point of an experiment: a named variant (``series``) at a position (``x``), made
    by ``overrides`` (``--set`` strings) on ``scenario`` (a dict, a path or a shipped name;
    ``None``: the experiment's). ``params`` are handed to the measurement and become columns."""

    series: str
    x: Any = ""
    overrides: Sequence[str] = ()
    scenario: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.overrides, str):
            raise TypeError("Point.overrides: a list of --set strings, not one string")
        object.__setattr__(self, "overrides", tuple(self.overrides))
        object.__setattr__(self, "params", dict(self.params))

    def describe(self) -> str:
        x = f" x={self.x}" if self.x != "" else ""
        return f"{self.series}{x}"


class Tables(dict):
    """What a measurement returns for several named tables of rows (``{name: pyarrow.Table}``,
    at least one; the order is kept): see the module doc."""


Measure = Callable[["RunResult", Point], "Mapping[str, Any] | list[Mapping[str, Any]] | Tables"]


@dataclass(frozen=True, eq=False)
class Experiment:
    """Points × seeds, each run measured by ``measure(result, point)`` on a worker.
    ``trace``: record the events and timeseries tables (for measurements that need them).
    ``pcap``: links whose packet capture the measurement reads (``res.captures[link]``)."""

    name: str
    points: Sequence[Point]
    measure: Measure
    scenario: Any = None
    seeds: Sequence[int | None] = (None,)
    trace: bool = False
    pcap: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", tuple(self.points))
        object.__setattr__(self, "seeds", tuple(self.seeds))
        if isinstance(self.pcap, str):
            raise TypeError("Experiment.pcap: a list of link names, not one string")
        object.__setattr__(self, "pcap", tuple(self.pcap))
        if not self.seeds:
            raise ValueError(f"experiment {self.name}: no seeds")


# --------------------------------------------------------------------------- worker side


@dataclass(frozen=True)
class MeasureTask:
    """One run as a worker receives it: the base scenario's text (TOML or, for a dict, JSON),
    the point's overrides, the seed, and the measurement."""

    key: str
    kind: str
    text: str
    name: str
    source: str
    overrides: tuple[str, ...]
    seed: int
    trace: bool
    measure: Measure
    point: Point
    pcap: tuple[str, ...] = ()


@dataclass(frozen=True)
class MeasureOutcome:
    rows: list[dict[str, Any]]
    #: Wall seconds of the run and its measurement on the worker.
    wall_s: float
    worker: str
    #: The measurement's :class:`Tables` (then ``rows`` is empty), else None.
    tables: "dict[str, pa.Table] | None" = None


def _run_one(t: MeasureTask) -> MeasureOutcome:
    from .. import _core
    from ..api import Scenario, run
    from ..errors import _translate

    t0 = time.perf_counter()
    try:
        if t.kind == "json":
            spec = _core.load_scenario_json(t.text, t.name, list(t.overrides))
        else:
            spec = _core.load_scenario(t.text, t.name, list(t.overrides))
    except _core.ScenarioError as e:
        raise _translate(e) from None
    sc = Scenario(spec, spec.name, spec.default_seed, tuple(spec.link_names), t.overrides, t.source)
    worker = f"{socket.gethostname()}:{os.getpid()}"
    if t.pcap:
        tmp = Path(tempfile.mkdtemp(prefix="tcplab-experiment-"))
        try:
            res = run(sc, seed=t.seed, trace=t.trace, out=tmp, pcap=list(t.pcap))
            out = t.measure(res, t.point)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        res = run(sc, seed=t.seed, trace=t.trace)
        out = t.measure(res, t.point)
    if isinstance(out, Tables):
        if not out:
            raise ValueError(f"{getattr(t.measure, '__qualname__', 'measure')}: returned no tables")
        return MeasureOutcome([], time.perf_counter() - t0, worker, dict(out))
    rows = [dict(out)] if isinstance(out, Mapping) else [dict(r) for r in out]
    return MeasureOutcome(rows, time.perf_counter() - t0, worker)


def run_measure_tasks(tasks: list[MeasureTask]) -> list[MeasureOutcome | BaseException]:
    """Several runs in one Dask task: each run's outcome, or the exception it raised."""
    out: list[MeasureOutcome | BaseException] = []
    for t in tasks:
        try:
            out.append(_run_one(t))
        except Exception as e:  # noqa: BLE001 - handed back to the driver, which reports it
            out.append(e)
    return out


# --------------------------------------------------------------------------- driver side


@dataclass(frozen=True)
class _Base:
    """A base scenario ready to ship to a worker."""

    kind: str
    text: str
    name: str
    source: str


def _base(scenario: Any) -> _Base:
    from ..api import _resolve
    from ..errors import ScenarioError
    from ..outdir import show

    if isinstance(scenario, Mapping):
        return _Base("json", json.dumps(scenario), str(scenario.get("name", "scenario")), "<dict>")
    if scenario is None:
        raise ScenarioError("experiment point: no scenario (give the experiment or the point one)")
    path = _resolve(Path(os.fsdecode(os.fspath(scenario))))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{show(path)}: cannot read scenario file ({e})") from None
    return _Base("toml", text, show(path.stem), str(path))


def _measure_id(measure: Measure) -> str:
    """The measurement's identity in run keys: qualified name and its module's source hash."""
    mod = sys.modules.get(getattr(measure, "__module__", "") or "")
    try:
        src = inspect.getsource(mod) if mod is not None else ""
    except (OSError, TypeError):
        src = ""
    name = f"{getattr(measure, '__module__', '?')}.{getattr(measure, '__qualname__', repr(measure))}"
    return f"{name}:{hashlib.sha256(src.encode()).hexdigest()[:16]}"


def _jsonable(v: Any) -> Any:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return str(v)


def run_key(resolved: str, seed: int, version: str, measure_id: str, trace: bool, params: Mapping[str, Any],
            pcap: Sequence[str] = ()) -> str:
    """Hash of what decides a run's rows (module docs); twenty hex digits, as the sweep's.
    ``pcap`` enters only when given, so keys of runs without captures are those of before."""
    doc: dict[str, Any] = {"scenario": hashlib.sha256(resolved.encode()).hexdigest(), "seed": seed, "tcplab": version,
                           "measure": measure_id, "trace": trace, "params": _jsonable(params)}
    if pcap:
        doc["pcap"] = list(pcap)
    canon = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class _Run:
    experiment: Experiment
    point: Point
    seed: int
    key: str
    task: MeasureTask


def plan(experiments: Sequence[Experiment]) -> list[_Run]:
    """Every (experiment, point, seed) in order, with its run key and task. Loads each point's
    scenario with its overrides in the driver, so a bad point is an error naming it before
    anything runs (:class:`tcplab.ScenarioError`)."""
    from .. import _core
    from ..api import load_scenario
    from ..errors import ScenarioError

    bases: dict[int, _Base] = {}
    runs: list[_Run] = []
    version = _core.__version__
    for exp in experiments:
        mid = _measure_id(exp.measure)
        for p in exp.points:
            scen = p.scenario if p.scenario is not None else exp.scenario
            b = bases.get(id(scen)) if not isinstance(scen, Mapping) else None
            if b is None:
                b = _base(scen)
                if not isinstance(scen, Mapping):
                    bases[id(scen)] = b
            try:
                sc = load_scenario(scen if isinstance(scen, Mapping) else Path(b.source), list(p.overrides))
            except ScenarioError as e:
                raise ScenarioError(f"experiment {exp.name}, point {p.describe()}: {e}") from None
            ship = dataclasses.replace(p, scenario=None)
            for seed in exp.seeds:
                s = sc.default_seed if seed is None else seed
                key = run_key(sc.resolved_toml, s, version, mid, exp.trace, p.params, exp.pcap)
                task = MeasureTask(key, b.kind, b.text, b.name, b.source, p.overrides, s, exp.trace, exp.measure, ship,
                                   exp.pcap)
                runs.append(_Run(exp, p, s, key, task))
    return runs


def run_experiments(
    experiments: Sequence[Experiment],
    out: str | os.PathLike,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """Run every experiment's points × seeds (those not already filed in ``out``) on the
    sweep engine in one batch, file each run in ``out/runs/``, and return
    ``{experiment name: tidy DataFrame}``; each frame is also written as
    ``out/data/<name>.csv``. An experiment whose measurement returns :class:`Tables` gives
    ``{table name: pyarrow.Table}`` instead, written as ``out/data/<name>/<table>.parquet``.

    ``workers``: local worker processes (default: one per core), or 0 to run in this process
    (:data:`QUICK_WORKERS`); ``scheduler``: an existing Dask cluster's address instead.
    ``progress``: a tqdm bar to advance (its total is set to the number of distinct runs), or
    ``True``/``False``/``None`` for a bar of our own (``None``: only on a terminal).
    Raises :class:`ExperimentError` if runs failed (the others stay filed)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..sweep import ledger as L
    from ..sweep.runner import execute

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = plan(experiments)
    lock = L.lock_dir(out)
    try:
        led = L.Ledger.open(out)
        distinct: dict[str, _Run] = {}
        for r in runs:
            distinct.setdefault(r.key, r)
        todo = [r for k, r in distinct.items() if k not in led.entries]
        rows: dict[str, list[dict[str, Any]]] = {}
        bar = progress if progress is not None and not isinstance(progress, bool) else None
        if bar is not None:
            bar.total = len(distinct)
            bar.n = len(distinct) - len(todo)
            bar.refresh()
        if todo:
            def file(i: int, o: MeasureOutcome) -> None:
                r = todo[i]
                entry = {
                    "key": r.key, "experiment": r.experiment.name, "series": r.point.series,
                    "x": _jsonable(r.point.x), "params": _jsonable(r.point.params),
                    "overrides": list(r.point.overrides), "scenario": r.task.name, "seed": r.seed,
                    "tcplab_version": _version(), "git_revision": _git_revision(), "trace": r.experiment.trace,
                    "rows": len(o.rows), "wall_s": round(o.wall_s, 6),
                    "worker": o.worker, "finished_utc": L.now_utc(),
                }
                if o.tables is not None:
                    names = list(o.tables)
                    entry["tables"] = names
                    led.record(entry, o.tables[names[0]], extras={n: o.tables[n] for n in names[1:]})
                    rows[r.key] = o.tables
                else:
                    led.record(entry, pa.Table.from_pylist(o.rows))
                    rows[r.key] = o.rows

            ex = execute([(r.key, r.task) for r in todo], run_measure_tasks, file, workers=workers,
                         scheduler=scheduler, progress=progress if bar is None else None,
                         total=len(distinct), desc="experiments", bar=bar)
            if ex.failures:
                i, e = ex.failures[0]
                r = todo[i]
                raise ExperimentError(
                    f"{len(ex.failures)} of {len(todo)} runs failed; the others are filed. First: experiment "
                    f"{r.experiment.name}, point {r.point.describe()}, seed {r.seed}: {type(e).__name__}: {e}")
        for k in distinct:
            if k not in rows:
                names = led.entries[k].get("tables")
                if names:
                    rows[k] = {n: pq.read_table(led.run_path(k) if i == 0 else led.extra_path(k, n))
                               for i, n in enumerate(names)}
                else:
                    rows[k] = pq.read_table(led.run_path(k)).to_pylist()
    finally:
        lock.close()
    frames: dict[str, Any] = {}
    data = out / "data"
    data.mkdir(exist_ok=True)
    for exp in experiments:
        mine = [r for r in runs if r.experiment is exp]
        if mine and isinstance(rows[mine[0].key], dict):
            frames[exp.name] = _tables(exp, mine, rows)
            (data / exp.name).mkdir(exist_ok=True)
            for tname, t in frames[exp.name].items():
                pq.write_table(t, data / exp.name / f"{tname}.parquet", compression="zstd")
        else:
            frames[exp.name] = _frame(exp, mine, rows)
            frames[exp.name].to_csv(data / f"{exp.name}.csv", index=False)
    return frames


def run_experiment(exp: Experiment, out: str | os.PathLike, **kw: Any) -> "pd.DataFrame":
    """:func:`run_experiments` for one experiment: its tidy DataFrame."""
    return run_experiments([exp], out, **kw)[exp.name]


def _version() -> str:
    from .. import _core

    return _core.__version__


def _git_revision() -> str:
    from .. import _core

    return _core.__git_revision__


def _frame(exp: Experiment, runs: list[_Run], rows: dict[str, list[dict[str, Any]]]) -> "pd.DataFrame":
    import pandas as pd

    params = list(dict.fromkeys(k for p in exp.points for k in p.params))
    recs = []
    for r in runs:
        head = {"series": r.point.series, "x": r.point.x, **{k: r.point.params.get(k) for k in params}, SEED: r.seed}
        for row in rows[r.key]:
            recs.append({**head, **row})
    cols = list(dict.fromkeys([*LABELS, *params, SEED, *(k for rec in recs for k in rec)]))
    return pd.DataFrame.from_records(recs, columns=cols)


def _tables(exp: Experiment, runs: list[_Run], rows: dict[str, Any]) -> dict[str, "pa.Table"]:
    """The runs' :class:`Tables`, concatenated per name in run order (point order, then seed
    order), each with the label columns ``series, x, <params...>, seed`` first."""
    import pyarrow as pa

    params = list(dict.fromkeys(k for p in exp.points for k in p.params))
    names = list(dict.fromkeys(n for r in runs for n in rows[r.key]))
    out = {}
    for name in names:
        parts = []
        for r in runs:
            t = rows[r.key].get(name)
            if t is None:
                continue
            t = t.replace_schema_metadata(None)  # the run file's ledger entry is not a column's
            n = t.num_rows
            head = {"series": r.point.series, "x": r.point.x, **{k: r.point.params.get(k) for k in params}, SEED: r.seed}
            for i, (col, v) in enumerate(head.items()):
                if col in t.column_names:
                    raise ExperimentError(f"experiment {exp.name}: table {name} has a column {col!r}, which is a label")
                t = t.add_column(i, col, pa.array([v] * n))
            parts.append(t)
        out[name] = pa.concat_tables(parts, promote_options="permissive")
    return out


def trace_run(exp: Experiment, point: Point, seed: int | None = None) -> "RunResult":
    """One run of ``point`` traced, in the driver: for a figure that draws a run's trace
    (the rows of that figure come from :func:`run_experiments`)."""
    from ..api import run

    scen = point.scenario if point.scenario is not None else exp.scenario
    return run(scen, seed=seed, overrides=list(point.overrides), trace=True)


# --------------------------------------------------------------------------- tabulation


#: Aggregates over the seeds of a point, by name: the standard library's, so that a mean is
#: the same float whatever the order of the runs' completion (rows are in seed order).
AGGREGATES: dict[str, Callable[[list[float]], float]] = {
    "mean": lambda v: float(st.fmean(v)),
    "median": lambda v: float(st.median(v)),
    "sum": lambda v: sum(v),
    "min": min,
    "max": max,
}


def aggregate(df: "pd.DataFrame", metrics: Iterable[str], how: str = "mean",
              by: Sequence[str] = LABELS) -> "pd.DataFrame":
    """One row per point (``by`` columns, in the frame's order) with each metric aggregated
    over its rows (seeds, and flows if the measurement gave several rows) by ``how``
    (:data:`AGGREGATES`). Missing values (None/NaN) are left out; a point with none gives NaN."""
    import pandas as pd

    fn = AGGREGATES[how]
    metrics = list(metrics)
    recs = []
    for keys, g in df.groupby(list(by), sort=False, dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        rec = dict(zip(by, keys))
        for m in metrics:
            vals = [v for v in g[m].tolist() if v is not None and not (isinstance(v, float) and math.isnan(v))]
            rec[m] = fn(vals) if vals else math.nan
        recs.append(rec)
    return pd.DataFrame.from_records(recs, columns=[*by, *metrics])


def add_rows(fig, agg: "pd.DataFrame", metrics: Mapping[str, int | None] | Sequence[str],
             paper: Mapping[tuple[str, Any, str], Any] | None = None) -> None:
    """Add ``figure, series, x, metric, ours, paper`` rows to a report figure
    (:meth:`tcplab.reproduce.common.Figure.add`) from an :func:`aggregate` frame, point by
    point then metric by metric. ``metrics``: names, or name → digits to round to (None: as
    is). ``paper``: (series, x, metric) → the paper's value."""
    digits = dict(metrics) if isinstance(metrics, Mapping) else {m: None for m in metrics}
    paper = paper or {}
    for rec in agg.to_dict("records"):
        for m, d in digits.items():
            v = rec[m]
            if d is not None and not (isinstance(v, float) and math.isnan(v)):
                v = round(v, d)
            fig.add(rec["series"], rec["x"], m, v, paper.get((rec["series"], rec["x"], m)))


def values(df: "pd.DataFrame", metric: str, **where: Any) -> list[Any]:
    """The column ``metric`` of the rows matching ``where`` (column = value), in order."""
    m = None
    for k, v in where.items():
        sel = df[k] == v
        m = sel if m is None else m & sel
    return (df[m] if m is not None else df)[metric].tolist()


__all__ = [
    "AGGREGATES", "Experiment", "ExperimentError", "MeasureTask", "Point", "Tables", "add_rows", "aggregate", "plan",
    "run_experiment", "run_experiments", "run_key", "trace_run", "values",
]
