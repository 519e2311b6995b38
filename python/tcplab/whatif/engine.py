"""What-if over many captures on the sweep engine: ``tcplab whatif CAPTURE... -o DIR`` and
``tcplab.whatif(captures, out)``.

One task per capture (the decision and its measurement: docs/design.md, "What-if on the
sweep engine"): a task reads its capture once, analyses it and replays every connection
under every grid point (:func:`run_whatif_task`, on a worker), writing the ``whatif`` rows
to a Parquet file batch by batch as the core hands them out (:class:`RowWriter`: the rows
are never held whole), and hands back that file's bytes and the two analysis tables; the
driver files them with the sweep's ledger (:mod:`tcplab.sweep.ledger`:
``DIR/runs/<key>.parquet`` is the capture's ``whatif`` rows, its ``retransmissions`` and
``connections`` are filed first beside it under ``runs/<table>/<key>.parquet``, then the
ledger line) and runs on the sweep's execution (:func:`tcplab.sweep.runner.execute`: a
``LocalCluster`` of worker processes, ``--workers N``, or an existing Dask cluster,
``--scheduler ADDR``; Dask re-runs the task of a killed worker). At the end the run files
are copied row group by row group, in the order the captures were given, into the tidy
``whatif`` table, the analysis tables are concatenated, and the report reads back from
``whatif.parquet`` only the rows it draws (:func:`tcplab.whatif.report.report_rows`).

Layout of ``DIR`` (beside the combined outputs docs/outputs.md describes)::

    whatif.json                    the command: captures, model, vantage, tlp, grid
    ledger.jsonl                   one line per capture filed
    runs/<key>.parquet             the capture's whatif rows (a capture is finished when it exists)
    runs/retransmissions/<key>.parquet, runs/connections/<key>.parquet

The key of a capture is a hash of everything its rows depend on: the path as given (it is
the ``capture`` column), the SHA-256 of the file's bytes, the model, vantage and tlp, the
grid (its points, or the ``--only`` names) and the tcplab version. Re-running the same
command into the same directory recomputes no capture already filed, whichever process was
killed when; a changed capture file, grid or version gets a new key and is recomputed.

Ambiguities resolved here:

- A directory among the captures stands for the capture files directly in it
  (:data:`CAPTURE_SUFFIXES`, sorted by name; not recursive).
- Without ``workers`` and ``scheduler``, a single capture to compute runs in this process
  (starting a LocalCluster costs seconds and one capture is one task: nothing to run in
  parallel); more run on a LocalCluster of one worker process per core (at most one per
  capture).
- A capture that cannot be read is not filed (it is retried by the next run, which costs
  only the failed open); it is named as skipped, as ``analyze`` does, and only when no
  capture can be read is the command an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from ..errors import TcplabError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

#: File names that make a capture when a directory is given (compressed captures too:
#: the reader decompresses gzip, zstd and xz by their magic number).
CAPTURE_SUFFIXES = (".pcap", ".pcapng", ".cap", ".pcap.gz", ".pcapng.gz", ".pcap.zst", ".pcapng.zst",
                    ".pcap.xz", ".pcapng.xz")
#: The command's description in DIR (what makes a directory a what-if ledger directory).
COMMAND_FILE = "whatif.json"
#: The analysis tables filed beside each capture's whatif rows.
EXTRA_TABLES = ("retransmissions", "connections")
#: Captures in one Dask task: one. A capture's what-if takes from milliseconds (a handful of
#: connections) to minutes; Dask's per-task cost (a few ms of scheduling and messages) is
#: small against it, and a killed worker then loses one capture's work.
CAPTURES_PER_TASK = 1
#: Bytes read at a time when hashing a capture.
HASH_CHUNK = 1 << 20


class WhatIfRunError(TcplabError):
    """Captures failed on the workers (one line: how many, and the first one's error)."""


def expand_captures(captures: Iterable[str | os.PathLike]) -> list[str]:
    """The capture arguments with each directory replaced by its capture files (sorted)."""
    out: list[str] = []
    for c in captures:
        p = Path(os.fsdecode(os.fspath(c)))
        if p.is_dir():
            out.extend(os.fsdecode(os.fspath(q)) for q in sorted(p.iterdir())
                       if q.is_file() and q.name.lower().endswith(CAPTURE_SUFFIXES))
        else:
            out.append(os.fsdecode(os.fspath(c)))
    return out


def file_sha256(path: str) -> str | None:
    """The SHA-256 of the file's bytes, or None when it cannot be read (the worker then
    reports why, in the reader's words)."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(HASH_CHUNK):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


@dataclass(frozen=True)
class WhatIfTask:
    """One capture's what-if: everything a worker needs (the capture is read by path, so a
    remote worker needs the same path)."""

    key: str
    path: str
    model: str
    vantage: str
    tlp: bool | None
    points: tuple | None
    only: tuple[str, ...] | None


@dataclass
class WhatIfOutcome:
    key: str
    #: ``{"retransmissions": ..., "connections": ...}``; empty when ``error``.
    tables: dict[str, Any]
    #: The capture's ``whatif`` rows as a Parquet file (its bytes: zstd, one row group per
    #: batch of the core, the ledger entry in its metadata), streamed as the connections
    #: finished; ``b""`` when ``error``.
    whatif_parquet: bytes
    #: The reader's one-line reason when the capture could not be read.
    error: str | None
    grid_points: int
    wall_s: float
    cpu_s: float
    worker: str
    #: The ledger entry (also in ``whatif_parquet``'s metadata); None when ``error``.
    entry: dict[str, Any] | None = None


class RowWriter:
    """Writes batches of ``whatif`` rows (the core's columns, :func:`tcplab.tables.to_arrow`,
    or Arrow record batches) as they come: one Parquet row group each (the options of every
    tcplab table, :func:`tcplab.tables.parquet_options`), and the CSV too when given a CSV
    file. Holds one batch at a time; ``rows`` counts what was written."""

    def __init__(self, parquet, csv=None):
        self.parquet, self.csv = parquet, csv
        self._pq = self._csv = None
        self.rows = 0

    def columns(self, columns) -> None:
        from ..tables import to_arrow

        self.table(to_arrow(columns))

    def table(self, t) -> None:
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        from ..tables import parquet_options

        if self._pq is None:
            self._pq = pq.ParquetWriter(self.parquet, t.schema, **parquet_options(t.schema))
            if self.csv is not None:
                self._csv = pacsv.CSVWriter(self.csv, t.schema)
        self._pq.write_table(t, row_group_size=max(t.num_rows, 1))
        if self._csv is not None:
            self._csv.write_table(t)
        self.rows += t.num_rows

    def close(self, empty=None, metadata: dict[str, bytes] | None = None) -> None:
        """Finish the files; ``empty``: the table whose schema an empty file gets (no batch
        came); ``metadata``: key-value metadata of the Parquet file."""
        if self._pq is None and empty is not None:
            self.table(empty)
        if self._pq is not None:
            if metadata:
                self._pq.add_key_value_metadata(metadata)
            self._pq.close()
        if self._csv is not None:
            self._csv.close()


def run_whatif_task(task: WhatIfTask) -> WhatIfOutcome:
    """On a worker: the capture's what-if in the compiled core (one pass: analysis, recording,
    replay under every point). The ``whatif`` rows are written to a Parquet file batch by
    batch as the core hands them out (:class:`RowWriter`), so that the worker holds one batch
    and the open connections, never the capture's rows; the file's bytes (zstd) and the
    analysis tables (one row per connection or retransmission) go back to the driver."""
    import io

    from .. import _core
    from ..sweep import ledger as L
    from ..tables import to_arrow

    t0, c0 = time.perf_counter(), time.process_time()
    buf = io.BytesIO()
    rows = RowWriter(buf)
    try:
        raw = _core.whatif([task.path], task.vantage, task.model, task.tlp,
                           list(task.points) if task.points is not None else None,
                           list(task.only) if task.only is not None else None, on_rows=rows.columns)
    except _core.CaptureError as e:
        errors = e.args[1] if len(e.args) > 1 and e.args[1] else [str(e.args[0] if e.args else e)]
        return WhatIfOutcome(task.key, {}, b"", errors[0], 0, time.perf_counter() - t0, time.process_time() - c0,
                             _worker())
    tables = {name: to_arrow(raw.table(name)) for name in EXTRA_TABLES}
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    entry = {
        "key": task.key, "command": "whatif", "capture": task.path, "capture_shown": raw.captures[0][0],
        "model": task.model, "vantage": task.vantage,
        "tlp": task.tlp, "grid_points": raw.grid_points, "tcplab_version": _core.__version__,
        "git_revision": getattr(_core, "__git_revision__", None),
        "connections": tables["connections"].num_rows, "rows": rows.rows,
        "task_wall_s": round(wall, 6), "task_cpu_s": round(cpu, 6), "worker": _worker(),
        "finished_utc": L.now_utc(),
    }
    rows.close(empty=to_arrow(raw.table("whatif")), metadata={L.META_KEY: json.dumps(entry, sort_keys=True)})
    return WhatIfOutcome(task.key, tables, buf.getvalue(), None, raw.grid_points, wall, cpu, _worker(), entry)


def run_whatif_tasks(tasks: list[WhatIfTask]) -> list[WhatIfOutcome | BaseException]:
    """Several captures in one Dask task (:func:`tcplab.sweep.runner.execute`'s contract):
    each one's outcome, or the exception it raised."""
    out: list[WhatIfOutcome | BaseException] = []
    for t in tasks:
        try:
            out.append(run_whatif_task(t))
        except Exception as e:  # noqa: BLE001 - handed back to the driver, which reports it
            out.append(e)
    return out


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def task_key(path: str, sha256: str | None, settings: dict[str, Any]) -> str:
    """The capture's run key (see the module doc)."""
    text = json.dumps({"capture": path, "sha256": sha256, **settings}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass
class WhatIfStats:
    """What one invocation did."""

    captures: int = 0
    reused: int = 0
    executed: int = 0
    skipped: int = 0
    workers: int = 0
    start_s: float = 0.0
    exec_wall_s: float = 0.0
    #: Seconds the workers spent in the core, summed over the captures computed now.
    task_wall_s: float = 0.0
    task_cpu_s: float = 0.0
    torn_lines: int = 0
    recovered: int = 0


@dataclass
class WhatIfRun:
    """The combined result (:class:`tcplab.whatif.WhatIfResult`) and what the run did."""

    result: Any
    stats: WhatIfStats = field(default_factory=WhatIfStats)


def _prepare_dir(out: Path, overwrite: bool) -> None:
    """``out`` must be missing, empty, a what-if ledger directory (resumed), or, with
    ``overwrite``, another tcplab output (cleared as :mod:`tcplab.outdir` does)."""
    from .. import outdir
    from ..sweep import ledger as L

    is_ledger_dir = out.is_dir() and ((out / COMMAND_FILE).is_file() or (out / L.LEDGER).is_file())
    if is_ledger_dir and not overwrite:
        return
    outdir.check(out, overwrite=overwrite)
    if overwrite and out.is_dir():
        listed = outdir._read_manifest(out) or []
        for name in [*listed, outdir.MANIFEST, COMMAND_FILE, L.LEDGER, L.RUNS]:
            p = out / name
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            elif p.exists() or p.is_symlink():
                p.unlink()


def run_whatif(
    captures: str | os.PathLike | Iterable[str | os.PathLike],
    out: str | os.PathLike,
    *,
    model: str = "auto",
    vantage: str = "auto",
    tlp: bool | None = None,
    grid: str | os.PathLike | Sequence[tuple] | None = None,
    only: str | Sequence[str] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    overwrite: bool = False,
    report: bool = True,
    echo: Callable[[str], None] | None = None,
) -> WhatIfRun:
    """Run the what-if of every capture not already filed in ``out`` on the sweep engine,
    file each, and write the combined tables, ``summary.json`` and (``report``) the report
    into ``out``. Raises :class:`tcplab.analyze.CaptureError` when no capture can be read,
    :class:`GridError`, :class:`tcplab.analyze.ModelError`, :class:`WhatIfRunError`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .. import _core, outdir
    from ..analyze import CaptureError, ModelError, capture_paths
    from ..sweep import ledger as L
    from ..sweep.runner import execute
    from . import TABLES, WhatIfResult
    from .grid import GridError, parse_only, read_grid

    say = echo or (lambda s: None)
    if isinstance(captures, (str, bytes, os.PathLike)):
        captures = [captures]
    paths = capture_paths(expand_captures(captures), vantage)
    if grid is not None and only is not None:
        raise GridError("give either a grid file or --only, not both")
    points: tuple | None = None
    if isinstance(grid, (str, bytes, os.PathLike)):
        points = tuple(read_grid(grid))
    elif grid is not None:
        points = tuple(tuple(p) for p in grid)
    names = tuple(parse_only(only if isinstance(only, str) else ",".join(only))) if only is not None else None
    # Model, grid points and --only names checked by the core before anything is filed or
    # started (a call with no capture stops after them, at "nothing to read").
    try:
        _core.whatif([], vantage, model, tlp, list(points) if points is not None else None,
                     list(names) if names is not None else None)
    except _core.CaptureError:
        pass
    except _core.ModelError as e:
        raise ModelError(str(e)) from None
    except ValueError as e:
        raise GridError(str(e)) from None
    if workers is not None and workers < 0:
        raise WhatIfRunError(f"--workers: must be at least 1 (0: in this process), got {workers}")
    out = Path(os.fsdecode(os.fspath(out)))
    settings = {"model": model, "vantage": vantage, "tlp": tlp,
                "points": [list(p) for p in points] if points is not None else None,
                "only": list(names) if names is not None else None, "tcplab_version": _core.__version__}
    hashes = [file_sha256(p) for p in paths]
    if all(h is None for h in hashes):
        # Nothing can be opened: the reader's own one-line reasons, before DIR is touched.
        try:
            _core.whatif(paths, vantage, model, tlp, list(points) if points is not None else None,
                         list(names) if names is not None else None)
        except _core.CaptureError as e:
            errs = e.args[1] if len(e.args) > 1 else None
            raise CaptureError(e.args[0] if e.args else str(e), errs) from None
    tasks = [WhatIfTask(task_key(p, h, settings), p, model, vantage, tlp, points, names) for p, h in zip(paths, hashes)]
    # Only now, every argument checked, is DIR refused or (--overwrite) cleared.
    _prepare_dir(out, overwrite)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    lock = L.lock_dir(out)
    stats = WhatIfStats(captures=len(tasks))
    try:
        L.write_atomic(out / COMMAND_FILE, (json.dumps({"command": "whatif", "captures": paths, **settings},
                                                       indent=2) + "\n").encode())
        led = L.Ledger.open(out)
        stats.torn_lines, stats.recovered = led.torn_lines, led.recovered
        if led.torn_lines or led.recovered:
            say(f"ledger repaired: {led.torn_lines} torn line(s) skipped, {led.recovered} capture file(s) re-entered")
        distinct: dict[str, WhatIfTask] = {}
        for t in tasks:
            distinct.setdefault(t.key, t)
        todo = [t for k, t in distinct.items() if k not in led.entries]
        stats.reused = len(distinct) - len(todo)
        if stats.reused:
            say(f"{stats.reused} of {len(distinct)} captures already in {outdir.show(out)}/runs, {len(todo)} to compute")
        filed: dict[str, dict[str, pa.Table]] = {}
        errors: dict[str, str] = {}
        grid_points = [0]

        def file(i: int, o: WhatIfOutcome) -> None:
            t = todo[i]
            if o.error is not None:
                errors[t.key] = o.error
                stats.skipped += 1
                return
            # The worker's Parquet file as it wrote it (the entry in its metadata).
            led.record(o.entry, o.whatif_parquet, extras={n: o.tables[n] for n in EXTRA_TABLES})
            filed[t.key] = o.tables
            grid_points[0] = o.grid_points
            stats.executed += 1
            stats.task_wall_s += o.wall_s
            stats.task_cpu_s += o.cpu_s

        if todo:
            n_workers = workers
            if n_workers is None and scheduler is None and len(todo) == 1:
                n_workers = 0  # one capture: no cluster (see the module doc)
            elif n_workers is None and scheduler is None:
                from ..sweep.runner import _cores

                n_workers = min(_cores(), len(todo))
            try:
                ex = execute([(t.key, t) for t in todo], run_whatif_tasks, file, workers=n_workers,
                             scheduler=scheduler, progress=progress, total=len(distinct), desc="whatif", bar=None,
                             per_task=CAPTURES_PER_TASK)
            except KeyboardInterrupt:
                print(f"tcplab: {stats.reused + stats.executed} of {len(distinct)} captures filed in "
                      f"{outdir.show(out)}/runs; run the same command again to resume", file=sys.stderr)
                raise
            stats.workers, stats.start_s, stats.exec_wall_s = ex.workers, ex.start_s, ex.exec_wall_s
            if ex.failures:
                i, e = ex.failures[0]
                raise WhatIfRunError(
                    f"{len(ex.failures)} of {len(todo)} captures failed; the others are filed (re-run to retry "
                    f"the failed ones). First: {todo[i].path}: {type(e).__name__}: {e}")
        # Combine, in the order the captures were given: the analysis tables in memory (a
        # row per connection or retransmission), the whatif rows streamed from the filed run
        # files into the outputs (_write_outputs).
        parts: dict[str, list[pa.Table]] = {n: [] for n in EXTRA_TABLES}
        run_files: list[Path] = []
        caps: list[dict[str, Any]] = []
        for t in tasks:
            if t.key in errors or t.key not in led.entries:
                caps.append({"path": t.path, "shown": outdir.show(t.path),
                             "error": errors.get(t.key, f"{outdir.show(t.path)}: not computed")})
                continue
            # `path` as given (surrogate escapes for bytes that are not UTF-8: "\udcXX" in
            # summary.json, docs/outputs.md), `shown` as in the `capture` column.
            caps.append({"path": t.path, "shown": led.entries[t.key].get("capture_shown", outdir.show(t.path)),
                         "error": None})
            got = filed.get(t.key)
            if got is None:
                got = {n: pq.read_table(led.extra_path(t.key, n)) for n in EXTRA_TABLES}
                grid_points[0] = grid_points[0] or led.entries[t.key].get("grid_points", 0)
            run_files.append(led.run_path(t.key))
            for n in EXTRA_TABLES:
                parts[n].append(got[n].replace_schema_metadata(None))
        if all(c["error"] for c in caps):
            errs = [c["error"] for c in caps]
            msg = errs[0] if len(errs) == 1 else f"none of the {len(errs)} captures could be analysed"
            if created and not led.entries:
                shutil.rmtree(out, ignore_errors=True)  # nothing of ours worth keeping
            raise CaptureError(msg, errs)
        # One chunk per capture (no copy into one buffer); one dictionary per column.
        tables = {n: pa.concat_tables(parts[n]).unify_dictionaries() for n in EXTRA_TABLES}
        rows = sum(pq.ParquetFile(f).metadata.num_rows for f in run_files)
        summary = {
            "tcplab_version": _core.__version__,
            "command": "whatif",
            "model": model,
            "vantage": vantage,
            "grid_points": grid_points[0],
            "captures": caps,
            "connections": tables["connections"].num_rows,
            "rows": rows,
            "captures_reused": stats.reused,
            "captures_computed": stats.executed,
        }
        _write_outputs(out, WhatIfResult(summary, tables), run_files, report, title=f"({model})")
        # The whatif table is read from the written file when asked for (not held here).
        result = WhatIfResult(summary, tables, whatif_file=out / "whatif.parquet")
    finally:
        lock.close()
    return WhatIfRun(result, stats)


def _write_outputs(out: Path, result: Any, run_files: list[Path], report: bool, title: str) -> None:
    """The combined tables, summary and report, written into a staging directory inside
    ``out`` and moved into place name by name (each ``os.replace`` atomic), then the manifest
    listing everything the command owns there (the ledger and run files included). The
    ``whatif`` table is copied from the captures' run files row group by row group (one held
    at a time) into ``whatif.parquet`` and ``whatif.csv``; the report reads back from it only
    the rows it draws (:func:`tcplab.whatif.report.report_rows`)."""
    import tempfile

    import pyarrow.parquet as pq

    from .. import outdir
    from ..sweep import ledger as L

    tmp = Path(tempfile.mkdtemp(prefix=f"{L.TMP_PREFIX}out-", dir=out))
    try:
        result.write(tmp)
        with open(tmp / "whatif.parquet", "wb") as fp, open(tmp / "whatif.csv", "wb") as fc:
            w = RowWriter(fp, fc)
            empty = None
            for f in run_files:
                pf = pq.ParquetFile(f)
                empty = empty or pf.schema_arrow.remove_metadata().empty_table()
                for i in range(pf.num_row_groups):
                    w.table(pf.read_row_group(i).replace_schema_metadata(None))
            w.close(empty=empty)
        if report and result.summary["rows"] > 0:
            from .report import report_rows, write_report

            write_report(tmp, result.retransmissions, report_rows(tmp / "whatif.parquet"), title=title)
        written = sorted(n for n in os.listdir(tmp))
        # The previous invocation's combined outputs are replaced as a whole: what it wrote
        # and this one does not (its report, after --no-report now) is removed, so that the
        # directory never shows a report of other rows.
        for n in (outdir._read_manifest(out) or []):
            p = out / n
            if n in written or n in (COMMAND_FILE, L.LEDGER, L.RUNS) or os.sep in n or n in ("", ".", ".."):
                continue
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            elif p.exists() or p.is_symlink():
                p.unlink()
        for n in written:
            dst = out / n
            if dst.is_dir() and not dst.is_symlink():
                shutil.rmtree(dst)
            os.replace(tmp / n, dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    owned = sorted({*written, COMMAND_FILE, L.LEDGER, L.RUNS})
    L.write_atomic(out / outdir.MANIFEST, (json.dumps({"command": "whatif", "files": owned}, indent=2) + "\n").encode())
