"""Long runs (issue 14 part 4): Ctrl-C stops a run with partial results, the trace of a long
run is streamed to disk in row groups, ``--max-trace`` warns before a run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import tcplab
from tcplab import longrun
from conftest import ROOT, tcplab_cli


def _wait_for_staging(parent: Path, name: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """Until the command has created its staging directory (the run is under way)."""
    deadline = time.monotonic() + timeout
    while not any(p.name.startswith(f".{name}.tmp-") for p in parent.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)


def test_ctrl_c_stops_a_long_run_with_partial_results_and_exit_130(tmp_path: Path):
    out = tmp_path / "long"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tcplab.cli", "run", "dumbbell", "-o", str(out),
         "--set", "simulation.duration=100000s", "--max-trace", "1TB"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
    )
    _wait_for_staging(tmp_path, "long", proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    # How long the stop takes depends on the machine's load, so it is measured, not asserted
    # here: `python -m tcplab.bench_interrupt` (docs/benchmarks.md, "Long runs").
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tcplab: interrupted at "), stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["partial"] is True
    assert 0 < summary["sim_time_s"] < 100000
    events = pq.read_table(out / "events.parquet")
    assert events.num_rows > 0
    assert events["t_ns"][-1].as_py() <= summary["sim_time_s"] * 1e9 + 1
    assert "results in" in stdout


def test_a_complete_run_is_not_partial(tmp_path: Path):
    res = tcplab.run("dumbbell", overrides="simulation.duration=10s", out=tmp_path / "o")
    assert res.summary["partial"] is False
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["partial"] is False


def test_a_trace_larger_than_a_chunk_is_streamed_in_row_groups_with_the_same_rows(tmp_path: Path, monkeypatch):
    # The core offers a chunk every 2^16 events: 100 s of the dumbbell is about 6 of them.
    monkeypatch.setattr(longrun, "CHUNK_ROWS", 5000)
    streamed = tcplab.run("dumbbell", overrides="simulation.duration=100s", out=tmp_path / "s")
    in_memory = tcplab.run("dumbbell", overrides="simulation.duration=100s")
    for name in ("events", "timeseries"):
        f = pq.ParquetFile(tmp_path / "s" / f"{name}.parquet")
        assert f.metadata.num_row_groups > 1, name
        assert f.read().equals(in_memory.arrow(name)), name
        # The result reads a streamed table back from its file.
        assert streamed.arrow(name).equals(in_memory.arrow(name)), name
    assert streamed.summary["flows"] == in_memory.summary["flows"]


def test_every_row_of_every_streamed_table_has_its_flow_name(tmp_path: Path, monkeypatch):
    # A named long flow, a workload's connections (named by the workload) and a RED queue
    # (the queues table): all three trace tables streamed in several row groups.
    # Chunks of 5000 rows (the core looks every 2^12 events): 10 s of this scenario is ~15.
    monkeypatch.setattr(longrun, "CHUNK_ROWS", 5000)
    ov = "simulation.duration=10s"
    tcplab.run("red-ecn-web", overrides=ov, out=tmp_path / "s")
    in_memory = tcplab.run("red-ecn-web", overrides=ov)
    names = {fid: name for fid, name in zip(in_memory.flows["id"], in_memory.flows["flow_name"])}
    assert set(names.values()) == {"long", "web"} and len(names) > 20
    for name in ("events", "timeseries", "queues"):
        f = pq.ParquetFile(tmp_path / "s" / f"{name}.parquet")
        assert f.metadata.num_row_groups > 2, name
        table = f.read()
        whole = in_memory.arrow(name)
        # Same rows as the run kept in memory; `flow_name` even has the same dictionary in
        # every chunk (the `reason` dictionary grows with the reasons seen so far).
        assert table.column_names == whole.column_names
        for col in table.column_names:
            same = table[col].equals(whole[col]) or table[col].cast(pa.string()).equals(whole[col].cast(pa.string()))
            assert same, (name, col)
        if "flow_name" in table.column_names:
            assert table["flow_name"].equals(whole["flow_name"])
        assert json.loads(f.schema_arrow.metadata[b"tcplab.provenance"])["scenario_name"] == "red-ecn-web"
        if "flow" not in table.column_names:  # queues: per link, no flow
            continue
        flows = table["flow"].to_pylist()
        got = table["flow_name"].to_pylist()
        for fid, fname in zip(flows, got):
            if fid != 2**32 - 1:  # link rows (delay spikes, bandwidth changes) have no flow
                assert fname is not None and fname == names[fid], (name, fid, fname)
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert summary["flows"] == in_memory.summary["flows"]


def test_a_run_longer_than_the_delay_shows_a_progress_bar_of_simulated_time(monkeypatch, capfd):
    monkeypatch.setattr(longrun, "PROGRESS_DELAY_S", 0.0)
    res = tcplab.run("dumbbell", overrides="simulation.duration=200s", trace=False, progress=True)
    err = capfd.readouterr().err
    # tqdm's bar: the scenario's name, simulated seconds of the total, elapsed<remaining.
    assert res.summary["partial"] is False
    assert "dumbbell:" in err and "/200 sim s" in err and "<" in err, err[-300:]


def test_a_trace_within_a_chunk_is_written_in_one_piece(tmp_path: Path):
    tcplab.run("dumbbell", out=tmp_path / "o")
    f = pq.ParquetFile(tmp_path / "o" / "events.parquet")
    assert f.metadata.num_row_groups == 1


def test_max_trace_warns_in_one_line_before_the_run(tmp_path: Path):
    r = tcplab_cli("run", "dumbbell", "-o", str(tmp_path / "a"), "-q", "--max-trace", "20kB")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tcplab: warning: this run's trace would be about "), r.stderr
    assert "--max-trace 20.0 kB" in lines[0]
    # The default limit (1 GB) says nothing about a 15 s run, nor does --no-trace.
    r = tcplab_cli("run", "dumbbell", "-o", str(tmp_path / "b"), "-q")
    assert r.returncode == 0 and r.stderr == ""
    r = tcplab_cli("run", "dumbbell", "-o", str(tmp_path / "c"), "-q", "--no-trace", "--max-trace", "1B")
    assert r.returncode == 0 and r.stderr == ""


def test_the_trace_estimate_of_a_long_run_reaches_the_default_limit():
    sc = tcplab.load_scenario("dumbbell", "simulation.duration=200000s")
    est = longrun.trace_estimate(sc)
    assert est["bytes"] > longrun.DEFAULT_MAX_TRACE
    short = longrun.trace_estimate(tcplab.load_scenario("dumbbell"))
    assert short["bytes"] < 10e6


def test_a_bad_max_trace_is_a_one_line_usage_error(tmp_path: Path):
    r = tcplab_cli("run", "dumbbell", "-o", str(tmp_path / "a"), "--max-trace", "lots")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "--max-trace" in r.stderr, r.stderr


def test_parse_size_reads_decimal_and_binary_units():
    assert longrun.parse_size("2GB") == 2 * 10**9
    assert longrun.parse_size("1GiB") == 1024**3
    assert longrun.parse_size("500") == 500
    assert longrun.parse_size("1.5MB") == 1_500_000


def test_a_sweep_run_names_a_workloads_connections_as_tcplab_run_does():
    # The sweep's worker builds the flows table itself (sweep/task.py): the same flow_name.
    from tcplab.sweep.task import RunTask, run_task

    text = (ROOT / "scenarios" / "red-ecn-web.toml").read_text()
    out = run_task(RunTask(key="k", scenario_text=text, scenario_name="red-ecn-web",
                           overrides=("simulation.duration=3s",), seed=1))
    direct = tcplab.run("red-ecn-web", overrides="simulation.duration=3s", trace=False)
    names = out.flows["flow_name"].to_pylist()
    assert names == direct.arrow("flows")["flow_name"].to_pylist()
    assert names[0] == "long" and set(names[1:]) == {"web"} and len(names) > 5
