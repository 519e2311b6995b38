"""Parameter studies (``tcplab sweep``): expansion, validation, the run ledger, Dask execution
and resume after killed workers and a killed driver (docs/sweeps.md)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tcplab
from tcplab.sweep import ledger as L
from tcplab.sweep.results import run_table, summarize
from tcplab.sweep.study import StudyError, parse_study, parse_range, shipped_studies
from tcplab.sweep.runner import validate

from conftest import ROOT, SMALL, tcplab_cli


def study(text: str, tmp_path: Path, scenario: str = SMALL) -> "tcplab.sweep.Study":
    (tmp_path / "small.toml").write_text(scenario)
    return parse_study('scenario = "small.toml"\n' + text, source="s.toml", base_dir=tmp_path, version="test")


# ----------------------------------------------------------------------------- expansion


def test_lists_ranges_zips_and_seeds_expand_in_file_order(tmp_path):
    st = study(
        """
seeds = "1..3"
[parameters]
"tcp.min_rto" = ["200ms", "1s"]
"tcp.dupack_threshold" = "2..4"
[parameters.zip.path]
"links.bottleneck.bandwidth" = ["1Mbps", "10Mbps"]
"links.bottleneck.queue" = ["5pkt", "50pkt"]
""",
        tmp_path,
    )
    assert st.seeds == (1, 2, 3)
    assert st.keys == ("tcp.min_rto", "tcp.dupack_threshold", "links.bottleneck.bandwidth", "links.bottleneck.queue")
    points = st.points()
    assert len(points) == 2 * 3 * 2
    # The first parameter changes slowest; zipped keys change together.
    assert points[0].as_dict() == {
        "tcp.min_rto": "200ms", "tcp.dupack_threshold": 2,
        "links.bottleneck.bandwidth": "1Mbps", "links.bottleneck.queue": "5pkt",
    }
    assert points[1].as_dict()["links.bottleneck.bandwidth"] == "10Mbps"
    assert points[1].as_dict()["links.bottleneck.queue"] == "50pkt"
    assert [p.as_dict()["tcp.dupack_threshold"] for p in points[:6]] == [2, 2, 3, 3, 4, 4]
    assert points[6].as_dict()["tcp.min_rto"] == "1s"
    runs = st.runs(validate(st))
    assert len(runs) == 36 and [r.seed for r in runs[:4]] == [1, 2, 3, 1]
    assert len({r.key for r in runs}) == 36
    assert st.overrides(points[0])[0] == 'tcp.min_rto="200ms"'


def test_ranges_are_exact_decimals_with_units_and_inclusive_ends():
    assert parse_range("0.01..0.03 step 0.01", "x") == [0.01, 0.02, 0.03]
    assert parse_range("100ms..500ms step 200ms", "x") == ["100ms", "300ms", "500ms"]
    assert parse_range("1..10 step 4", "x") == [1, 5, 9]
    assert parse_range("1Mbps..3Mbps", "x") == ["1Mbps", "2Mbps", "3Mbps"]
    assert parse_range("200ms", "x") is None
    with pytest.raises(StudyError, match="same unit"):
        parse_range("100ms..1s step 100ms", "x")
    with pytest.raises(StudyError, match="below the start"):
        parse_range("5..1", "x")


def test_range_table_seed_list_unquoted_keys_and_set(tmp_path):
    st = study(
        """
seeds = [7, 3]
[set]
simulation.duration = "2s"
[parameters]
tcp.min_rto = { from = 200, to = 600, step = 200, unit = "ms" }
""",
        tmp_path,
    )
    assert st.seeds == (7, 3)
    assert st.fixed == (("simulation.duration", "2s"),)
    assert [p.as_dict()["tcp.min_rto"] for p in st.points()] == ["200ms", "400ms", "600ms"]
    assert st.overrides(st.points()[0]) == ['simulation.duration="2s"', 'tcp.min_rto="200ms"']
    # A quoted dotted key holding a table sets the whole table, as --set does.
    st = study('[set]\n"links.bottleneck.loss" = { model = "bernoulli", p = 0.01 }\n', tmp_path)
    assert st.overrides(st.points()[0]) == ['links.bottleneck.loss={ "model" = "bernoulli", "p" = 0.01 }']
    validate(st)


def test_no_parameters_is_one_point_and_default_seed_is_the_scenario_s(tmp_path):
    st = study("", tmp_path)
    assert len(st.points()) == 1 and st.seeds == (1,)


def _key(st) -> str:
    return st.runs(validate(st))[0].key


def test_run_key_is_the_resolved_point_seed_and_version(tmp_path):
    a = study('[parameters]\n"tcp.min_rto" = ["1s"]\n"tcp.sack" = [false]\n', tmp_path)
    # The resolved point: neither the order of the keys nor the spelling of a value matters,
    # nor a comment in the base scenario.
    b = study('[parameters]\n"tcp.sack" = [false]\n"tcp.min_rto" = ["1000ms"]\n', tmp_path)
    assert _key(a) == _key(b)
    assert _key(study('[parameters]\n"tcp.min_rto" = ["1s"]\n"tcp.sack" = [false]\n', tmp_path,
                      "# a comment\n" + SMALL)) == _key(a)
    # The seed, the version and the scenario's content do.
    assert _key(study('seeds = [2]\n[parameters]\n"tcp.min_rto" = ["1s"]\n"tcp.sack" = [false]\n', tmp_path)) != _key(a)
    (tmp_path / "small.toml").write_text(SMALL)
    d = parse_study('scenario = "small.toml"\n[parameters]\n"tcp.min_rto" = ["1s"]\n"tcp.sack" = [false]\n',
                    base_dir=tmp_path, version="other")
    assert _key(d) != _key(a)
    e = study('[parameters]\n"tcp.min_rto" = ["1s"]\n"tcp.sack" = [false]\n', tmp_path, SMALL.replace("5s", "6s"))
    assert _key(e) != _key(a)
    assert _key(study('[parameters]\n"tcp.min_rto" = ["2s"]\n"tcp.sack" = [false]\n', tmp_path)) != _key(a)


@pytest.mark.parametrize(
    "text, message",
    [
        ('[parameters]\n"tcp.min_rto" = "1s"\n', "tcp.min_rto: expected a list of values or a range"),
        ('[parameters]\n"tcp.min_rto" = []\n', "tcp.min_rto: the list of values is empty"),
        ('[parameters.zip.g]\n"tcp.min_rto" = ["1s", "2s"]\n"tcp.sack" = [true]\n', "same number of values (tcp.min_rto has 2, tcp.sack has 1)"),
        ('seeds = [1, 1]\n', "seed 1 is listed twice"),
        ('seeds = "a..b"\n', "not a number"),
        ('seeds = -1\n', "-1 is not a seed"),
        ('bogus = 1\n', "unknown key 'bogus'"),
        ('[set]\n"tcp.sack" = false\n[parameters]\n"tcp.sack" = [true, false]\n', "tcp.sack: both under [set] and swept"),
        ('[parameters]\n"tcp..x" = [1]\n', "not a dotted scenario key"),
    ],
)
def test_study_errors_are_one_line(tmp_path, text, message):
    with pytest.raises(StudyError) as e:
        study(text, tmp_path)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_missing_scenario_names_the_shipped_ones(tmp_path):
    with pytest.raises(StudyError, match="neither a file next to the study nor a shipped scenario"):
        parse_study('scenario = "nope"\n', base_dir=tmp_path)
    st = parse_study('scenario = "dumbbell"\n', base_dir=tmp_path)
    assert st.scenario_name == "dumbbell"


# ----------------------------------------------------------------------------- validation


def test_every_point_is_validated_before_running(tmp_path):
    st = study('[parameters]\n"tcp.min_rto" = ["200ms", "fast"]\n', tmp_path)
    with pytest.raises(StudyError) as e:
        validate(st)
    msg = str(e.value)
    assert "point 2" in msg and 'tcp.min_rto = "fast"' in msg and "\n" not in msg
    st = study('[parameters]\n"tcp.min_rt" = ["200ms"]\n', tmp_path)
    with pytest.raises(StudyError, match="min_rt"):
        validate(st)


def test_cli_invalid_point_is_one_line_exit_2_and_nothing_runs(tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    (tmp_path / "s.toml").write_text('scenario = "small.toml"\n[parameters]\n"links.bottleneck.bandwidth" = ["1Mbps", "10"]\n')
    r = tcplab_cli("sweep", str(tmp_path / "s.toml"), "-o", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tcplab: error:")
    assert 'links.bottleneck.bandwidth = "10"' in lines[0] and "point 2" in lines[0]
    assert not (tmp_path / "out").exists()


def test_cli_dry_run_prints_expansion_and_count(tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    (tmp_path / "s.toml").write_text('scenario = "small.toml"\nseeds = "1..4"\n[parameters]\n"tcp.min_rto" = ["200ms", "1s", "3s"]\n')
    r = tcplab_cli("sweep", str(tmp_path / "s.toml"), "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "3 point(s) x 4 seed(s) = 12 runs" in r.stdout
    assert "3s" in r.stdout and "seeds: 1..4" in r.stdout


def test_refuses_a_directory_that_is_not_a_sweep(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "summary.json").write_text("{}")
    with pytest.raises(L.SweepDirError, match="not a sweep directory"):
        L.check_dir(tmp_path / "out")


def test_one_driver_at_a_time_per_directory(tmp_path):
    from tcplab.sweep.runner import run_study

    st = study("", tmp_path)
    (tmp_path / "out").mkdir()
    held = L.lock_dir(tmp_path / "out")  # as another driver would
    try:
        with pytest.raises(L.SweepDirError, match="another tcplab sweep is writing"):
            run_study(st, tmp_path / "out", workers=1, progress=False)
    finally:
        held.close()


def test_shipped_study_parses_and_validates():
    assert "min_rto_3g" in shipped_studies()
    from tcplab.sweep.study import load_study

    st = load_study("min_rto_3g")
    assert len(st.runs(validate(st))) == 20 and st.keys == ("tcp.min_rto",)


# ----------------------------------------------------------------------------- ledger


def _fake_run(led: L.Ledger, key: str, seed: int) -> None:
    flows = pa.table({"id": pa.array([0, 1], pa.uint32()), "fct_s": [1.0, 2.0]})
    t = run_table(flows, key, {"tcp.min_rto": "1s"}, seed, {"tcp.min_rto": pa.string()})
    led.record({"key": key, "seed": seed}, t)


def test_ledger_repairs_torn_line_and_unlisted_file(tmp_path):
    led = L.Ledger.open(tmp_path)
    _fake_run(led, "a" * 20, 1)
    _fake_run(led, "b" * 20, 2)
    # The driver died after renaming run c's file but before its ledger line, and inside the
    # write of a fourth line; a temporary file of a fifth run was left behind.
    _fake_run(led, "c" * 20, 3)
    lines = (tmp_path / L.LEDGER).read_text().splitlines()
    (tmp_path / L.LEDGER).write_text("\n".join(lines[:2]) + '\n{"key": "dddd')
    (tmp_path / "runs" / f"{L.TMP_PREFIX}1-{'e' * 20}.parquet").write_bytes(b"PAR1 half")
    led2 = L.Ledger.open(tmp_path)
    assert set(led2.entries) == {"a" * 20, "b" * 20, "c" * 20}
    assert led2.torn_lines == 1 and led2.recovered == 1
    assert led2.entries["c" * 20]["seed"] == 3 and led2.entries["c" * 20]["recovered"] is True
    assert not list((tmp_path / "runs").glob(f"{L.TMP_PREFIX}*"))
    keys = [json.loads(x)["key"] for x in (tmp_path / L.LEDGER).read_text().splitlines()]
    assert sorted(keys) == ["a" * 20, "b" * 20, "c" * 20]
    # A ledger line whose file is gone is not a finished run.
    (tmp_path / "runs" / f"{'a' * 20}.parquet").unlink()
    assert set(L.Ledger.open(tmp_path).entries) == {"b" * 20, "c" * 20}


# ----------------------------------------------------------------------------- statistics


def test_summary_ci_is_student_t_over_per_run_means():
    # Two flows per run: the run's value is their mean; three seeds per point.
    rows = []
    for seed, (f0, f1) in zip((1, 2, 3), ((1.0, 3.0), (2.0, 4.0), (6.0, 6.0))):
        for fid, v in ((0, f0), (1, f1)):
            rows.append({"run_key": f"k{seed}", "p": 1, "seed": seed, "id": fid, "fct_s": v})
    s = summarize(pd.DataFrame(rows), ["p"], ["fct_s"]).iloc[0]
    runs = [2.0, 3.0, 6.0]
    mean = sum(runs) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in runs) / 2)
    half = 4.302652729911275 * sd / math.sqrt(3)  # t(0.975, 2), from tables
    assert s["n"] == 3 and s["mean"] == pytest.approx(mean)
    assert s["ci95_low"] == pytest.approx(mean - half) and s["ci95_high"] == pytest.approx(mean + half)


# ----------------------------------------------------------------------------- execution

#: SMALL with a bulk sender: one run is a few hundred thousand events, ~0.1 s in release.
BULK = SMALL.replace('size = "200KB"', 'size = "unlimited"')


def test_sweep_api_runs_on_dask_writes_tidy_tables_and_resumes(tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    (tmp_path / "s.toml").write_text(
        'scenario = "small.toml"\nseeds = "1..3"\n[parameters]\n"tcp.min_rto" = ["200ms", "1s"]\n'
        '"links.bottleneck.loss.p" = [0.0, 0.02]\n[set]\n"links.bottleneck.loss.model" = "bernoulli"\n'
    )
    out = tmp_path / "out"
    df = tcplab.sweep(tmp_path / "s.toml", out, workers=2, progress=False)
    assert len(df) == 12 and list(df.columns[:4]) == ["run_key", "tcp.min_rto", "links.bottleneck.loss.p", "seed"]
    assert df["links.bottleneck.loss.p"].dtype == "float64"
    assert df.groupby(["tcp.min_rto", "links.bottleneck.loss.p"]).size().tolist() == [3, 3, 3, 3]
    # Each row equals a plain tcplab.run of the same point and seed.
    one = tcplab.run(tmp_path / "small.toml", seed=2, overrides=['tcp.min_rto="1s"', "links.bottleneck.loss.p=0.02",
                                                                  'links.bottleneck.loss.model="bernoulli"'])
    row = df[(df["tcp.min_rto"] == "1s") & (df["links.bottleneck.loss.p"] == 0.02) & (df.seed == 2)].iloc[0]
    assert row["fct_s"] == one.flows["fct_s"][0] and row["retransmissions"] == one.flows["retransmissions"][0]
    assert one.flows["retransmissions"][0] > 0  # the lossy points do lose packets
    summary = df.attrs["summary"]
    assert set(summary["metric"]) >= {"fct_s", "retransmissions"}
    assert len(summary[summary.metric == "fct_s"]) == 4
    # The same table from the file, with pandas and polars.
    on_disk = pd.read_parquet(out / "flows.parquet")
    assert len(on_disk) == 12 and (on_disk["run_key"] == df["run_key"]).all()
    import polars as pl

    pl_df = pl.read_parquet(out / "flows.parquet")
    assert pl_df.shape[0] == 12 and pl_df["tcp.min_rto"].to_list() == df["tcp.min_rto"].tolist()
    assert len(list((out / "runs").glob("*.parquet"))) == 12
    # Again: everything is filed, nothing runs (no cluster is even started).
    mtimes = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    from tcplab.sweep.runner import run_study
    from tcplab.sweep.study import load_study

    res = run_study(load_study(tmp_path / "s.toml"), out, progress=False)
    assert res.stats.executed == 0 and res.stats.reused == 12
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == mtimes
    assert len(res.flows) == 12 and res.flows["run_key"].tolist() == on_disk["run_key"].tolist()

    # tcplab plot sweep: a PNG of a metric against a swept key, one series per other key.
    r = tcplab_cli("plot", "sweep", str(out), "--metric", "fct_s", "--x", "links.bottleneck.loss.p",
                   "-o", str(tmp_path / "fct.png"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "fct.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from tcplab.sweep.plot import SweepPlotError, plot_sweep

    with pytest.raises(SweepPlotError, match="not a swept key"):
        plot_sweep(out, "fct_s", "tcp.sack", tmp_path / "x.png")
    with pytest.raises(SweepPlotError, match="no such column"):
        plot_sweep(out, "fct", "tcp.min_rto", tmp_path / "x.png")


def _ledger_keys(out: Path) -> list[str]:
    p = out / L.LEDGER
    if not p.exists():
        return []
    keys = []
    for line in p.read_text().splitlines():
        try:
            keys.append(json.loads(line)["key"])
        except (json.JSONDecodeError, KeyError):
            pass
    return keys


def _wait(cond, timeout: float, what: str) -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _kill_a_worker_then_the_driver(cmd: list[str], out: Path, first: int, more: int, what: str):
    """Start ``cmd`` (a `tcplab` command on 2 Dask workers that files into ``out``'s ledger) in
    a session of its own, SIGKILL one worker once ``first`` results are filed, then, once
    ``more`` further results are filed (Dask restarted the worker and re-ran its task), SIGKILL
    the driver and its workers. Returns the run files that survived (stem -> inode, mtime;
    temporary files left by the driver excluded) and the ledger lines (key -> line)."""
    import psutil  # a dependency of dask.distributed; callers importorskip it

    env = dict(os.environ, PYTHONWARNINGS="ignore")
    driver = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait(lambda: len(_ledger_keys(out)) >= first, 120, f"the first {what}")
        # A worker that filed a run: its pid is in the ledger ("worker": host:pid), and it is
        # one of the driver's descendants (forked by the fork server, sweep/workers.py).
        descendants = {p.pid: p for p in psutil.Process(driver.pid).children(recursive=True)}
        filed_by = {int(json.loads(x)["worker"].rsplit(":", 1)[1])
                    for x in (out / L.LEDGER).read_text().splitlines() if x.endswith("}")}
        workers = [descendants[pid] for pid in sorted(filed_by) if pid in descendants]
        assert workers, (filed_by, list(descendants))
        workers[0].send_signal(signal.SIGKILL)
        at_kill = len(_ledger_keys(out))
        _wait(lambda: len(_ledger_keys(out)) >= at_kill + more, 120, f"{what} after the worker was killed")
        os.killpg(driver.pid, signal.SIGKILL)  # the driver and its workers, mid-way
        driver.wait(30)
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait(30)
    # Run files only: the driver may have died writing one, leaving its temporary file.
    before = {p.stem: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (out / "runs").glob("*.parquet")
              if not p.name.startswith(L.TMP_PREFIX)}
    ledger_before = {json.loads(x)["key"]: x for x in (out / L.LEDGER).read_text().splitlines() if x.endswith("}")}
    return before, ledger_before


def test_killed_worker_then_killed_driver_loses_and_recomputes_nothing(tmp_path):
    pytest.importorskip("psutil")  # a dependency of dask.distributed
    (tmp_path / "bulk.toml").write_text(BULK.replace('duration = "5s"', 'duration = "300s"'))
    (tmp_path / "s.toml").write_text('scenario = "bulk.toml"\nseeds = "1..30"\n[parameters]\n"tcp.min_rto" = ["200ms", "1s"]\n')
    out = tmp_path / "out"
    total = 60
    cmd = [sys.executable, "-m", "tcplab.cli", "sweep", str(tmp_path / "s.toml"), "-o", str(out), "--workers", "2", "-q"]
    # Dask restarts the killed worker and re-runs its task; the study goes on until the driver dies.
    before, ledger_before = _kill_a_worker_then_the_driver(cmd, out, 3, 4, "runs")
    assert 0 < len(before) < total, "the driver must be killed mid-study for this test to mean anything"

    from tcplab.sweep.runner import run_study
    from tcplab.sweep.study import load_study

    res = run_study(load_study(tmp_path / "s.toml"), out, workers=2, progress=False)
    assert (res.stats.executed, res.stats.reused) == (total - len(before), len(before))

    after = {p.stem: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (out / "runs").glob("*.parquet")}
    assert not [k for k in after if k.startswith(L.TMP_PREFIX)], "temporary files are cleaned up"
    # Nothing finished was recomputed: the same files, untouched, and the same ledger lines.
    assert all(after[k] == v for k, v in before.items())
    lines = (out / L.LEDGER).read_text().splitlines()
    for k, line in ledger_before.items():
        assert line in lines
    # Nothing lost, nothing duplicated.
    keys = [json.loads(x)["key"] for x in lines]
    assert len(keys) == len(set(keys)) == total == len(after)
    flows = pd.read_parquet(out / "flows.parquet")
    assert len(flows) == total and flows["run_key"].is_unique
    assert sorted(flows["run_key"]) == sorted(keys)


def test_scheduler_address_runs_on_that_cluster(tmp_path):
    from dask.distributed import LocalCluster

    from tcplab.sweep.runner import run_study

    st = study('seeds = "1..3"\n[parameters]\n"tcp.sack" = [true, false]\n', tmp_path)
    # An existing cluster: one in-process worker thread (its pid is the test's own).
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        res = run_study(st, tmp_path / "out", scheduler=cluster.scheduler_address, progress=False)
    assert res.stats.executed == 6 and res.stats.workers == 1
    workers = {json.loads(x)["worker"].rsplit(":", 1)[1] for x in (tmp_path / "out" / L.LEDGER).read_text().splitlines()}
    assert workers == {str(os.getpid())}
    assert len(res.flows) == 6


def test_a_run_that_fails_is_reported_and_the_others_filed(tmp_path):
    from tcplab.sweep.runner import SweepError, run_study

    # "island" is a host with no link: the scenario loads (validation passes) and the
    # simulator refuses the flow when the run starts.
    island = SMALL.replace('[[links]]', '[[nodes]]\nname = "island"\nkind = "host"\n\n[[links]]', 1)
    st = study('seeds = [1, 2]\n[parameters]\n"flows.0.dst" = ["b", "island"]\n', tmp_path, island)
    validate(st)
    with pytest.raises(SweepError) as e:
        run_study(st, tmp_path / "out", workers=1, progress=False)
    msg = str(e.value)
    assert msg.startswith("2 of 4 runs failed") and 'flows.0.dst = "island"' in msg and "\n" not in msg
    led = L.Ledger.open(tmp_path / "out")
    assert sorted(e["seed"] for e in led.entries.values()) == [1, 2]
    assert all(e["point"] == {"flows.0.dst": "b"} for e in led.entries.values())


def test_ctrl_c_stops_the_driver_and_not_noisily_the_workers(tmp_path):
    (tmp_path / "bulk.toml").write_text(BULK.replace('duration = "5s"', 'duration = "300s"'))
    (tmp_path / "s.toml").write_text('scenario = "bulk.toml"\nseeds = "1..200"\n')
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    cmd = [sys.executable, "-m", "tcplab.cli", "sweep", str(tmp_path / "s.toml"), "-o", str(out), "--workers", "2", "-q"]
    # A new session: the test plays the terminal, whose Ctrl-C reaches the whole group.
    driver = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: len(_ledger_keys(out)) >= 1, 120, "the first run")
        os.killpg(driver.pid, signal.SIGINT)
        _, err = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait(30)
    assert driver.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "tcplab: interrupted"
    assert 0 < len(_ledger_keys(out)) < 200


def test_tasks_shrink_towards_the_end_and_cover_every_run_once():
    from tcplab.sweep.runner import MAX_RUNS_PER_TASK, chunks

    for n, w in [(1000, 2), (20, 2), (1, 4), (37, 3), (5000, 8)]:
        cs = chunks(n, w)
        assert [i for c in cs for i in c] == list(range(n))
        sizes = [len(c) for c in cs]
        assert max(sizes) <= MAX_RUNS_PER_TASK and sizes == sorted(sizes, reverse=True)
        # The last task is a single run: a worker that finishes first idles about one run.
        assert sizes[-1] == 1
    assert [len(c) for c in chunks(1000, 2)][:3] == [16, 16, 16]


def test_local_workers_fork_from_a_server_without_python_threads_and_ignore_ctrl_c(tmp_path):
    """sweep/workers.py: local workers are forked from the fork server (one import of
    PRELOAD for all of them), which has no Python thread of its own to be caught mid-way by
    a fork, and they ignore SIGINT (the driver handles Ctrl-C)."""
    from tcplab.sweep import workers
    from tcplab.sweep.runner import execute

    assert workers.available()  # POSIX; elsewhere Dask spawns its workers
    code = ("import threading, importlib; from tcplab.sweep.workers import PRELOAD; "
            "[importlib.import_module(m) for m in PRELOAD]; print(threading.active_count())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "1", r.stderr

    def probe(payloads):
        import os
        import signal

        return [(os.getppid(), signal.getsignal(signal.SIGINT) == signal.SIG_IGN) for _ in payloads]

    seen = []
    ex = execute([("a", 1), ("b", 2), ("c", 3)], probe, lambda i, r: seen.append(r), workers=2, scheduler=None,
                 progress=False)
    assert ex.workers == 2 and not ex.failures and len(seen) == 3
    server = workers.server_pid()
    assert server is not None and {ppid for ppid, _ in seen} == {server}
    assert all(ignored for _, ignored in seen)
