"""Long runs that behave (issue 14 part 4): the hooks :func:`tcplab.run` hands the core.

The core calls them from inside the simulation, the GIL released in between
(``crates/tcplab-netsim/src/sim/run_control.rs``, ``crates/tcplab-py/src/lib.rs``):

- ``poll(sim_ns, events)`` at most every 20 ms of wall time: advances the progress bar and
  says whether to go on. Before each poll the core runs Python's signal handlers
  (``Python::check_signals``); :func:`interruptible` makes Ctrl-C set a stop flag there
  instead of raising, so the run ends between two events with everything up to then in its
  results, marked ``"partial": true`` in ``summary.json``.
- ``chunk(events, timeseries, queues, new_flows)`` when the core holds :data:`CHUNK_ROWS`
  trace rows: the rows are appended to ``events.parquet`` / ``timeseries.parquet`` (and
  ``queues.parquet`` in a run with a RED queue) as one more row group, so a run holds at most
  about one chunk of its trace in memory whatever its duration. ``new_flows`` is
  ``(first_id, [workload name or None, ...])`` for the connections opened since the previous
  chunk, handed to ``on_flows`` before the rows are converted, so that rows of a workload's
  connections carry its name (``flow_name``) in every chunk. A run whose
  trace never reaches one chunk is written at the end exactly as before (one
  ``pyarrow.parquet.write_table`` per table): its files are byte-identical to an unstreamed
  run's.

A trace is large: :func:`trace_estimate` predicts its size before the run from the scenario
(the core's ``trace_estimate``), for ``tcplab run --max-trace``.
"""

from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

#: Trace rows (events + timeseries + queues) the core holds before handing them over as a
#: chunk: at about 70 bytes a row in memory (the recorder's columns) a chunk is some 9 MB.
#: Traces shorter than this are written in one piece at the end, as before streaming
#: existed (every shipped scenario but aron98-fig1, 717 000 rows, and red-ecn-web, 237 000).
#:
#: The size is set by Ctrl-C: a stop waits for the chunk being written, if any, and then
#: writes the rows held since the last one, so the CPU time between Ctrl-C and exit grows
#: with it. 2^20 rows cost up to 0.33 s of CPU there (about 3 s of wall time on the loaded
#: 2-core development machine), 2^17 rows a few hundredths (docs/benchmarks.md, "Long
#: runs"). Files do not grow with more, smaller row groups (``tables.parquet_options``).
CHUNK_ROWS = 1 << 17

#: Wall-time delay before the progress bar appears: runs shorter than this show nothing.
PROGRESS_DELAY_S = 2.0

#: Default of ``tcplab run --max-trace``: warn when the trace would exceed this many bytes
#: on disk. The shipped scenarios write at most a few MB; 1 GB is about 46 hours of the
#: dumbbell's saturated 10 Mb/s bottleneck (0.6 GB for 100 000 s at ``BYTES_PER_*_ROW``).
DEFAULT_MAX_TRACE = 10**9


class Stop:
    """A stop request, set by :func:`interruptible`'s SIGINT handler."""

    def __init__(self) -> None:
        self.requested = False


@contextlib.contextmanager
def interruptible(stop: Stop) -> Iterator[Stop]:
    """While inside, the first Ctrl-C (SIGINT) sets ``stop.requested`` instead of raising
    ``KeyboardInterrupt``; a second one raises as usual (to give up on writing the partial
    results). Only in the main thread (where Python delivers signals); elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_sigint(signum, frame):
        if stop.requested:
            raise KeyboardInterrupt
        stop.requested = True

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


class Progress:
    """A tqdm bar of simulated time (seconds) against wall time on stderr, shown only after
    :data:`PROGRESS_DELAY_S` of wall time (tqdm's ``delay``)."""

    def __init__(self, duration_s: float, desc: str):
        from tqdm import tqdm

        self._bar = tqdm(
            total=round(duration_s, 3), desc=desc, unit="sim s", delay=PROGRESS_DELAY_S,
            file=sys.stderr, dynamic_ncols=True, leave=False,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} sim s "
                       "[{elapsed}<{remaining}, {rate_fmt}]",
        )

    def update(self, sim_s: float) -> None:
        self._bar.update(max(0.0, min(sim_s, self._bar.total) - self._bar.n))

    def close(self) -> None:
        self._bar.close()


class StreamWriter:
    """Appends chunks of one table to ``path`` as Parquet row groups (written as
    ``TableResult.write`` writes, ``tables.parquet_options``). Opened at the first chunk,
    whose schema every chunk keeps."""

    def __init__(self, path: Path):
        self.path = path
        self._fh = None
        self._writer = None
        self.rows = 0
        self.row_groups = 0

    def write(self, table) -> None:
        import pyarrow.parquet as pq

        from .tables import parquet_options

        if self._writer is None:
            self._fh = open(self.path, "wb")
            self._writer = pq.ParquetWriter(self._fh, table.schema, **parquet_options(table.schema))
        if table.num_rows:
            self._writer.write_table(table)
            self.rows += table.num_rows
            self.row_groups += 1

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._fh.close()
            self._writer = self._fh = None


class Hooks:
    """What the core calls during a run (see the module doc).

    ``convert(columns)`` turns the core's column list into the Arrow table as written
    (``to_arrow`` + flow names + provenance); ``out`` is where streamed tables go (``None``:
    no streaming, every row stays in memory until the end); ``on_flows(first_id, workloads)``
    learns the workload of each connection a chunk is the first to show."""

    def __init__(
        self,
        *,
        out: Path | None,
        convert: Callable[[Sequence[Any]], Any],
        on_flows: Callable[[int, Sequence[str | None]], None] | None = None,
        progress: Progress | None = None,
        stop: Stop | None = None,
        chunk_rows: int | None = None,
    ):
        self.chunk_rows = (chunk_rows or CHUNK_ROWS) if out is not None else None
        if out is not None:
            # Imported now rather than at the first chunk, in the middle of the run, where
            # its import time (0.3 s and more on a loaded machine) would delay a Ctrl-C.
            import pyarrow.parquet  # noqa: F401
        self._convert = convert
        self._on_flows = on_flows
        self._progress = progress
        self._stop = stop
        self.writers: dict[str, StreamWriter] = {}
        self._out = out

    # Called by the core ------------------------------------------------------------------

    def poll(self, sim_ns: int, events: int) -> bool:
        if self._progress is not None:
            self._progress.update(sim_ns / 1e9)
        return not (self._stop is not None and self._stop.requested)

    def chunk(self, events: Sequence[Any], timeseries: Sequence[Any], queues: Sequence[Any] | None = None,
              new_flows: tuple[int, Sequence[str | None]] = (0, ())) -> None:
        if self._on_flows is not None:
            self._on_flows(*new_flows)
        for name, cols in (("events", events), ("timeseries", timeseries), ("queues", queues)):
            if cols is None:  # no RED queue: no queues table
                continue
            w = self.writers.get(name)
            if w is None:
                w = self.writers[name] = StreamWriter(self._out / f"{name}.parquet")
            w.write(self._convert(cols))

    # Called by tcplab.run after the core returns -----------------------------------------

    @property
    def streamed(self) -> bool:
        return bool(self.writers)

    def finish(self, name: str, table) -> None:
        """Appends the last rows of a streamed table and closes its file."""
        w = self.writers[name]
        w.write(table)
        w.close()

    def close(self) -> None:
        for w in self.writers.values():
            w.close()
        if self._progress is not None:
            self._progress.close()


def trace_estimate(scenario) -> dict[str, float]:
    """The trace of a run of ``scenario`` (a loaded :class:`tcplab.Scenario`) estimated
    before running it: ``event_rows``, ``timeseries_rows``, ``segments`` (the core's model,
    ``crates/tcplab-netsim/src/sim/trace_size.rs``) and ``bytes`` on disk at the compressed
    sizes per row measured on a long dumbbell run (``BYTES_PER_*_ROW``)."""
    event_rows, ts_rows, segments = scenario._spec.trace_estimate
    size = event_rows * BYTES_PER_EVENT_ROW + ts_rows * BYTES_PER_TIMESERIES_ROW
    return {"event_rows": event_rows, "timeseries_rows": ts_rows, "segments": segments, "bytes": size}


#: Parquet bytes per ``events`` row as written (``tables.parquet_options``): 2.85, measured on
#: ``tcplab run dumbbell --set simulation.duration=2000s`` streamed (9.43 MB for 3.31 M rows in
#: 30 row groups; docs/benchmarks.md, "Long runs"). It was 5.24 with Parquet's default
#: dictionary encoding of every column.
BYTES_PER_EVENT_ROW = 2.85
#: Parquet bytes per ``timeseries`` row on the same run: 1.93 (2.32 MB, 1.20 M rows).
BYTES_PER_TIMESERIES_ROW = 1.93


def fmt_bytes(n: float) -> str:
    """``n`` bytes as ``1.3 GB`` (powers of 1000, as ``--max-trace`` reads them)."""
    for unit, div in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{n:.0f} B"


_SIZE_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
               "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}


def parse_size(text: str) -> int:
    """``"2GB"``, ``"500MiB"``, ``"1e9"`` as bytes; ``ValueError`` with a one-line message."""
    import re

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-zA-Z]*)\s*", text)
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _SIZE_UNITS:
        raise ValueError(f"{text!r} is not a size (e.g. 2GB, 500MB, 1GiB)")
    value = float(m.group(1)) * _SIZE_UNITS[unit]
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a size (e.g. 2GB, 500MB, 1GiB)")
    return int(value)


__all__ = ["CHUNK_ROWS", "DEFAULT_MAX_TRACE", "Hooks", "Progress", "Stop", "StreamWriter", "interruptible",
           "trace_estimate", "fmt_bytes", "parse_size"]
