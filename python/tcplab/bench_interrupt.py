"""How long Ctrl-C takes to stop ``tcplab run`` (issue 14 part 4: "within a second").

    python -m tcplab.bench_interrupt [--trials 20] [--seed 1] [--max-delay 8]

Each trial starts ``tcplab run dumbbell --set simulation.duration=100000s`` (a run far longer
than the trial: it is always stopped), waits until the command has created its staging
directory (the run is under way), then a random delay drawn uniformly from
[``--min-delay``, ``--max-delay``] seconds (so the signal lands at random instants: in the
simulation, during a chunk's Parquet write, before the first chunk, ...), sends SIGINT and
measures the wall time until the process has exited. Each trial must exit 130 with
``"partial": true`` in its summary.json; the script stops at the first that does not.

Printed: one line per trial (delay, seconds from SIGINT to exit, the CPU seconds the process
used in that time, the 1-minute load average at the signal), then the distributions (min,
median, 90th percentile, max) and, as JSON with ``--json``, every measurement. The numbers depend on the machine's load: report them with
the load average (docs/benchmarks.md, "Long runs").
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

#: The run each trial interrupts: the dumbbell for 100 000 s of simulated time, far longer
#: than any trial, with its trace streamed (the default) and the size warning silenced.
COMMAND = ("run", "dumbbell", "--set", "simulation.duration=100000s", "--max-trace", "1TB", "-q")


def _wait_for_staging(parent: Path, name: str, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not any(p.name.startswith(f".{name}.tmp-") for p in parent.iterdir()):
        if proc.poll() is not None:
            raise click.ClickException(f"the run ended before it started: {proc.communicate()[1].strip()}")
        if time.monotonic() > deadline:
            raise click.ClickException("the run did not start")
        time.sleep(0.01)


def trial(delay_s: float) -> dict:
    """One interrupted run: returns ``delay_s``, ``stop_s`` (SIGINT to exit, wall),
    ``stop_cpu_s`` (CPU the process used from SIGINT to exit), ``load1``, ``sim_time_s``."""
    with tempfile.TemporaryDirectory(prefix="tcplab-ctrlc-") as tmp:
        out = Path(tmp) / "run"
        env = dict(os.environ, PYTHONWARNINGS="ignore")
        proc = subprocess.Popen([sys.executable, "-m", "tcplab.cli", *COMMAND, "-o", str(out)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        _wait_for_staging(Path(tmp), "run", proc)
        time.sleep(delay_s)
        load1 = os.getloadavg()[0]
        cpu_before = _cpu_s(proc.pid)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        # wait4 gives the child's CPU time: what it spent after the signal does not depend
        # on how many other processes share the machine, unlike the wall time.
        _, status, usage = os.wait4(proc.pid, 0)
        stop_s = time.monotonic() - sent
        proc.returncode = os.waitstatus_to_exitcode(status)
        stderr = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
        if proc.returncode != 130:
            raise click.ClickException(f"exit {proc.returncode}, not 130: {stderr.strip()}")
        cpu_after = usage.ru_utime + usage.ru_stime - cpu_before
        summary = json.loads((out / "summary.json").read_text())
        if summary.get("partial") is not True:
            raise click.ClickException("summary.json is not marked partial")
        return {"delay_s": round(delay_s, 3), "stop_s": round(stop_s, 3), "stop_cpu_s": round(cpu_after, 3),
                "load1": load1, "sim_time_s": summary["sim_time_s"]}


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (``/proc/PID/stat``, Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@click.command()
@click.option("--trials", default=20, show_default=True)
@click.option("--seed", default=1, show_default=True, help="Seed of the random delays.")
@click.option("--min-delay", default=0.2, show_default=True, help="Shortest delay before SIGINT (s).")
@click.option("--max-delay", default=8.0, show_default=True, help="Longest delay before SIGINT (s).")
@click.option("--json", "as_json", is_flag=True, help="Print every measurement as JSON.")
def main(trials: int, seed: int, min_delay: float, max_delay: float, as_json: bool) -> None:
    rng = random.Random(seed)
    rows = []
    for i in range(trials):
        r = trial(rng.uniform(min_delay, max_delay))
        rows.append(r)
        if not as_json:
            click.echo(f"{i + 1:>3}  delay {r['delay_s']:6.3f} s  stop {r['stop_s']:6.3f} s "
                       f"(CPU {r['stop_cpu_s']:5.3f} s)  "
                       f"load {r['load1']:5.2f}  sim {r['sim_time_s']:9.1f} s", err=True)
    dist = {"trials": len(rows), "mean_load1": round(statistics.fmean(r["load1"] for r in rows), 2)}
    for key in ("stop_s", "stop_cpu_s"):
        v = sorted(r[key] for r in rows)
        dist[key] = {"min": v[0], "median": statistics.median(v), "p90": v[min(len(v) - 1, int(0.9 * len(v)))],
                     "max": v[-1]}
    if as_json:
        click.echo(json.dumps({"distribution": dist, "trials": rows}, indent=2))
    else:
        click.echo(" ".join(f"{k}={v}" for k, v in dist.items()))


if __name__ == "__main__":
    main()
