"""Where a sweep's wall time goes: timestamps of the driver's phases and of each task's
results, for the benchmark (docs/benchmarks.md, "Parameter studies", session 10).

Off unless the environment variable ``TCPLAB_SWEEP_TIMELINE`` names a file: then the driver
records the wall clock (``time.time()``) at each phase (:func:`mark`) and when each task's
results arrive (:func:`task_done`, with each run's worker and its ``task_wall_s`` and
``sim_wall_s`` as the worker measured them), and writes them to that file as JSON when the
command ends (:func:`dump`). Switched off, each call is one test of a module global.

``python -m tcplab.sweep.timeline FILE END_UNIX`` (``END_UNIX``: the shell's ``date +%s.%N``
after the command exited) splits ``workers x wall`` of the whole command into the time each
worker spent in the simulator, in its runs outside the simulator, waiting between tasks,
before its first run and after its last. A task's runs run back to back on one worker, so
its first run started ``sum(task_wall_s)`` before its results arrived; the transfer's
latency (a millisecond or two) is counted in the gap before it, and the gaps are summed with
their signs, so that a task whose results the driver took late does not count twice.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Iterable

#: The environment variable naming the file to write the timeline to.
ENV = "TCPLAB_SWEEP_TIMELINE"

_path = os.environ.get(ENV) or None
_marks: list[tuple[str, float]] = []
_tasks: list[tuple[float, list[tuple[str, float, float]]]] = []


def enabled() -> bool:
    return _path is not None


def mark(name: str) -> None:
    """Record that the driver reached phase ``name`` now."""
    if _path is not None:
        _marks.append((name, time.time()))


def task_done(outcomes: Iterable[Any]) -> None:
    """Record that one task's results arrived now: for each run, its worker and timings."""
    if _path is not None:
        now = time.time()
        runs = [(o.worker, o.task_wall_s, o.sim_wall_s) for o in outcomes if hasattr(o, "task_wall_s")]
        _tasks.append((now, runs))


def processes(label: str, pids: Iterable[int]) -> None:
    """Record when processes ``pids`` started (the local workers, forked by the fork server)."""
    if _path is not None:
        for pid in pids:
            t = _process_start_unix(pid)
            if t is not None:
                _marks.append((f"{label} {pid} started (clock tick)", t))


def _process_start_unix(pid: int | str = "self") -> float | None:
    """A process's start (Linux: /proc, to the clock tick, 10 ms), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            btime = next(int(line.split()[1]) for line in f if line.startswith("btime"))
        return btime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def dump() -> None:
    """Write the timeline (if switched on); called once, as the command ends."""
    if _path is None:
        return
    data = {"process_start": _process_start_unix(), "marks": _marks, "tasks": _tasks}
    with open(_path, "w") as f:
        json.dump(data, f)


def report(data: dict, end: float) -> str:
    """The breakdown of ``workers x wall`` (see the module doc) as text."""
    t0 = data["process_start"]
    wall = end - t0
    lines = [f"whole command: {wall:.3f} s (process start -> exit)"]
    prev = t0
    for name, t in sorted(data["marks"], key=lambda m: m[1]):
        lines.append(f"  {t - t0:8.3f} s  (+{t - prev:6.3f})  {name}")
        prev = t
    lines.append(f"  {end - t0:8.3f} s  (+{end - prev:6.3f})  process ended")
    workers: dict[str, list[tuple[float, float, float, int]]] = {}
    for arrival, runs in data["tasks"]:
        by: dict[str, list] = {}
        for w, task_wall, sim_wall in runs:
            by.setdefault(w, []).append((task_wall, sim_wall))
        for w, rs in by.items():
            tw = sum(r[0] for r in rs)
            workers.setdefault(w, []).append((arrival - tw, arrival, sum(r[1] for r in rs), len(rs)))
    tot = {"sim": 0.0, "in_runs": 0.0, "gaps": 0.0, "before": 0.0, "after": 0.0}
    lines.append("per worker (s): first run starts, last run ends | before first, gaps between tasks "
                 "(n), in runs outside simulator, simulator, after last")
    for w, ts in sorted(workers.items()):
        ts.sort()
        sim = sum(t[2] for t in ts)
        busy = sum(t[1] - t[0] for t in ts)
        gaps = sum(b[0] - a[1] for a, b in zip(ts, ts[1:]))
        before = ts[0][0] - t0
        after = end - ts[-1][1]
        tot["sim"] += sim
        tot["in_runs"] += busy - sim
        tot["gaps"] += gaps
        tot["before"] += before
        tot["after"] += after
        lines.append(f"  {w}: {before:.3f}, {ts[-1][1] - t0:.3f} | {before:.3f}, {gaps:.3f} ({len(ts) - 1}), "
                     f"{busy - sim:.3f}, {sim:.3f}, {after:.3f}  ({sum(t[3] for t in ts)} runs)")
    n = len(workers)
    if n:
        total = n * wall
        lines.append(f"{n} workers x {wall:.3f} s = {total:.3f} worker-s: simulator {tot['sim']:.3f} "
                     f"({100 * tot['sim'] / total:.2f} %), outside {total - tot['sim']:.3f} "
                     f"({100 * (1 - tot['sim'] / total):.2f} %) =")
        for k, label in (("before", "before each worker's first run"), ("gaps", "between a worker's tasks"),
                         ("in_runs", "in runs, outside the simulator"), ("after", "after each worker's last run")):
            lines.append(f"  {tot[k]:7.3f} worker-s ({100 * tot[k] / total:5.2f} %)  {label}")
        ends = sorted(ts[-1][1] for ts in workers.values())
        lines.append(f"tail: the last runs end {ends[-1] - ends[0]:.3f} s apart; last run end -> exit "
                     f"{end - ends[-1]:.3f} s")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m tcplab.sweep.timeline TIMELINE.json END_UNIX", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        data = json.load(f)
    print(report(data, float(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
