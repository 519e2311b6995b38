"""The sweep directory: one file per finished run, and the ledger that lists them.

Layout of ``DIR``::

    study.json           what the study is (the expansion, the base scenario's hash)
    ledger.jsonl         one JSON line per finished run (key, seed, point, timings, worker)
    runs/<key>.parquet   the flows table of one run, with its point's columns and seed
    runs/<name>/<key>.parquet  further tables of the run, when it has more than one
                         (``tcplab whatif``: its retransmissions and connections)
    flows.parquet        all runs of the study in one tidy table (rebuilt at the end)
    summary.csv/.parquet mean and 95 % confidence interval per point

**A run is finished when its file exists.** The driver writes ``runs/<key>.parquet`` to a
temporary name in the same directory, flushes it to disk (``fsync``) and renames it
(``os.replace``, atomic on POSIX): a reader sees no file or the whole file, never half of
one, whichever process is killed when. A run's further tables (``extras``) are written the
same way before it, so that the run file's existence implies theirs. Only then is the
ledger line appended (one
``write`` of one line in append mode). The ledger is therefore never ahead of the files;
it can be behind by the runs whose line was not written yet when the driver died, and
:meth:`Ledger.open` repairs that from the files' own metadata. A torn last line (the driver
killed inside ``write``) is skipped and its run re-entered from its file. Keys are content
hashes, so a run is filed under one name whatever worker or attempt made it: a run cannot
be stored twice, and a second copy of the same key (two drivers, or a worker's retry that
raced its first attempt) replaces the first with identical content.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ..errors import TcplabError

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported where a table is written or read, not with this module: the sweep
# driver imports it once its tasks are submitted (runner.warm_up), not before its first run.

LEDGER = "ledger.jsonl"
#: Lock file: one driver at a time writes a sweep directory.
LOCK = ".lock"
RUNS = "runs"
STUDY = "study.json"
#: Parquet key-value metadata key holding the run's ledger entry (JSON).
META_KEY = b"tcplab.run"
#: Prefix of the temporary files a run is written to before its rename.
TMP_PREFIX = ".tmp-"


class SweepDirError(TcplabError):
    """The output directory cannot hold this sweep (one line naming it and why)."""


def check_dir(out: Path) -> None:
    """``out`` must be missing, empty, or a sweep directory (one with ``study.json`` or a
    ledger): a sweep never writes into another command's results."""
    if out.exists() and not out.is_dir():
        raise SweepDirError(f"{out}: exists and is not a directory")
    if not out.exists() or not any(p.name != LOCK for p in out.iterdir()):
        return
    if not ((out / STUDY).is_file() or (out / LEDGER).is_file()):
        raise SweepDirError(
            f"{out}: not empty and not a sweep directory (no {STUDY}); choose another -o, or empty it"
        )


def lock_dir(out: Path):
    """Take the directory's lock (``flock`` on ``DIR/.lock``, released when the process ends,
    however it ends) so that two drivers never file into one directory at once. Returns the
    open lock file; raises :class:`SweepDirError` if another process holds it."""
    import fcntl

    f = open(out / LOCK, "a+")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise SweepDirError(f"{out}: another tcplab sweep is writing this directory") from None
    return f


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file, fsync and rename."""
    tmp = path.with_name(f"{TMP_PREFIX}{os.getpid()}-{path.name}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


#: Tables smaller than this (Arrow buffers, bytes) are written without compression. A
#: study's run file is a few flows' rows under ~7 KB of provenance and ledger metadata, which
#: Parquet stores uncompressed either way: for ``bench-1000``'s run file (6 rows, 21
#: columns) zstd took 0.86-1.12 ms of CPU against 0.47-0.54 ms uncompressed, for a file of
#: 22 845 bytes instead of 22 564 (1 % smaller; measured 2026-11-25, docs/benchmarks.md).
#: Larger tables (``flows.parquet``, what-if rows) keep zstd.
SMALL_TABLE_BYTES = 64 * 1024


def encode_table(table: pa.Table) -> bytes:
    """A small table (a study's run file) as Parquet bytes: uncompressed (see
    :data:`SMALL_TABLE_BYTES`) and without column statistics. Min/max statistics let a
    reader skip row groups of a large file; a run file has one row group of a few rows, which
    is read whole anyway, and writing them took 0.23 of 0.60 ms per ``bench-1000`` run file
    (measured 2026-11-25, docs/benchmarks.md "session 9"). The values are the same."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = pa.BufferOutputStream()
    pq.write_table(table, buf, compression="none", write_statistics=False)
    return buf.getvalue().to_pybytes()


def write_table_atomic(path: Path, table: pa.Table) -> None:
    """Write a Parquet file via a temporary file, fsync and rename. A table smaller than
    :data:`SMALL_TABLE_BYTES` (a study's run file) is encoded uncompressed into memory and
    written with one ``write`` (:func:`write_atomic`): pyarrow's writer to a path (resolving
    the file system, its own output stream) cost 1.29 ms of CPU per run file against 0.49 ms
    into a buffer (measured 2026-11-25); a larger one is zstd-compressed and streamed to the
    file."""
    if table.nbytes < SMALL_TABLE_BYTES:
        write_atomic(path, encode_table(table))
        return
    import pyarrow.parquet as pq

    tmp = path.with_name(f"{TMP_PREFIX}{os.getpid()}-{path.name}")
    pq.write_table(table, tmp, compression="zstd")
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)


class Ledger:
    """The finished runs of a sweep directory: ``entries`` maps run key → ledger entry."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.runs_dir = self.out / RUNS
        self.path = self.out / LEDGER
        self.entries: dict[str, dict[str, Any]] = {}
        #: Ledger lines that could not be read (a torn last line), skipped.
        self.torn_lines = 0
        #: Runs found as files without a ledger line, re-entered from their metadata.
        self.recovered = 0
        #: Ledger lines repeating a key already listed (none, unless the file was edited).
        self.duplicate_lines = 0

    def run_path(self, key: str) -> Path:
        return self.runs_dir / f"{key}.parquet"

    def extra_path(self, key: str, name: str) -> Path:
        """Where the run's further table ``name`` is filed (see :meth:`record`)."""
        return self.runs_dir / name / f"{key}.parquet"

    @classmethod
    def open(cls, out: Path) -> "Ledger":
        """Read the ledger and reconcile it with ``runs/``: drop lines whose file is gone,
        add lines for files the ledger does not list, delete leftover temporary files."""
        led = cls(out)
        led.runs_dir.mkdir(parents=True, exist_ok=True)
        listed: dict[str, dict[str, Any]] = {}
        if led.path.exists():
            with open(led.path, encoding="utf-8") as f:
                for line in f:
                    try:
                        e = json.loads(line)
                        key = e["key"]
                    except (json.JSONDecodeError, KeyError, TypeError):
                        led.torn_lines += 1
                        continue
                    if key in listed:
                        led.duplicate_lines += 1
                        continue
                    listed[key] = e
        for tmp in [*led.runs_dir.glob(f"{TMP_PREFIX}*"), *led.runs_dir.glob(f"*/{TMP_PREFIX}*")]:
            tmp.unlink(missing_ok=True)
        on_disk = run_keys_on_disk(led.runs_dir)
        led.entries = {k: e for k, e in listed.items() if k in on_disk}
        missing_lines = sorted(on_disk - set(listed))
        if led.torn_lines or missing_lines:
            # Rewrite the ledger whole (atomically) so that it lists every file exactly once.
            for key in missing_lines:
                led.entries[key] = led._entry_from_file(key)
                led.recovered += 1
            text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in led.entries.values())
            write_atomic(led.path, text.encode())
        return led

    def _entry_from_file(self, key: str) -> dict[str, Any]:
        # The file's key-value metadata: the table's schema metadata, or (a run file written
        # batch by batch, whatif) metadata added when the writer closed.
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(self.run_path(key)).metadata.metadata or {}
        try:
            e = json.loads(meta[META_KEY])
        except (KeyError, json.JSONDecodeError):
            raise SweepDirError(f"{self.run_path(key)}: a run file without tcplab metadata; remove it") from None
        e["recovered"] = True
        return e

    def record(self, entry: dict[str, Any], table: pa.Table | bytes, extras: dict[str, pa.Table] | None = None) -> None:
        """File one finished run: its further tables ``extras`` (``runs/<name>/<key>.parquet``,
        each atomically), then its table (with ``entry`` as metadata) atomically, then the
        ledger line. ``table`` may be a Parquet file's bytes already holding ``entry`` as
        its metadata (written batch by batch by the worker: whatif), filed as they are."""
        key = entry["key"]
        for name, extra in (extras or {}).items():
            self.extra_path(key, name).parent.mkdir(exist_ok=True)
            write_table_atomic(self.extra_path(key, name), extra)
        if isinstance(table, bytes):
            write_atomic(self.run_path(key), table)
        else:
            meta = dict(table.schema.metadata or {})
            meta[META_KEY] = json.dumps(entry, sort_keys=True).encode()
            write_table_atomic(self.run_path(key), table.replace_schema_metadata(meta))
        line = (json.dumps(entry, sort_keys=True) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        self.entries[key] = entry

    def finished(self, keys: Iterable[str]) -> set[str]:
        return {k for k in keys if k in self.entries}


def run_keys_on_disk(runs_dir: Path) -> set[str]:
    """Keys of the run files in ``runs_dir``: ``<key>.parquet``, not the temporary files a
    killed driver may have left (``.tmp-...``; pathlib's ``*`` matches names with a dot)."""
    return {p.stem for p in runs_dir.glob("*.parquet") if not p.name.startswith(TMP_PREFIX)}


def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
