"""`tcplab whatif` over many captures on the sweep engine (tcplab.whatif.engine): one task
per capture, the sweep's ledger, resume after a killed worker and a killed driver, the
``tcplab.whatif(...)`` API, and an exact-count snapshot of a small capture's table."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import tcplab
from tcplab.sweep import ledger as L
from tcplab.whatif import whatif
from tcplab.whatif.engine import COMMAND_FILE, expand_captures, run_whatif

from conftest import SMALL, tcplab_cli
from test_sweep import _kill_a_worker_then_the_driver, _ledger_keys


@pytest.fixture(scope="module")
def lossy(tmp_path_factory) -> Path:
    """A simulated 400 KB transfer with 3 % data loss, captured at the sender's access link."""
    d = tmp_path_factory.mktemp("welossy")
    sc = d / "small.toml"
    sc.write_text(SMALL)
    tcplab.run(sc, overrides=['links.bottleneck.loss_ab={ model = "bernoulli", p = 0.03 }', "flows.0.size=400KB"],
               out=d, pcap=["access"])
    return d / "access.pcap"


def _copies(src: Path, d: Path, n: int) -> Path:
    """``n`` captures in directory ``d`` (symbolic links to ``src``: different paths, so
    different captures and keys, at no disk cost)."""
    d.mkdir()
    for i in range(n):
        (d / f"c{i:02d}.pcap").symlink_to(src)
    (d / "notes.txt").write_text("not a capture")
    return d


def test_api_files_each_capture_resumes_and_equals_the_in_memory_whatif(lossy, tmp_path):
    caps = _copies(lossy, tmp_path / "caps", 3)
    out = tmp_path / "out"
    df = tcplab.whatif([caps], out, model="windows-xp", only="D,k", workers=0, progress=False)
    # A directory stands for its capture files, sorted (notes.txt is not one).
    assert expand_captures([caps]) == [str(caps / f"c{i:02d}.pcap") for i in range(3)]
    one = whatif(lossy, model="windows-xp", only="D,k").whatif
    assert len(df) == 3 * len(one) and df.attrs["summary"]["grid_points"] == 16
    # Each capture's rows are the in-memory what-if's, in the order the captures were given.
    for i in range(3):
        part = df[df["capture"].astype(str) == str(caps / f"c{i:02d}.pcap")].reset_index(drop=True)
        cols = [c for c in one.columns if c not in ("capture", "capture_name")]
        pd.testing.assert_frame_equal(part[cols], one[cols], check_categorical=False)
    assert list(pd.unique(df["capture_name"].astype(str))) == ["c00.pcap", "c01.pcap", "c02.pcap"]
    # Filed: one run file per capture, its analysis tables beside it, one ledger line each.
    led = L.Ledger.open(out)
    assert len(led.entries) == 3 and all(e["grid_points"] == 16 for e in led.entries.values())
    for k in led.entries:
        assert led.run_path(k).is_file()
        assert pq.read_table(led.extra_path(k, "connections")).num_rows == one["conn_id"].nunique()
    for name in ("whatif.parquet", "whatif.csv", "connections.parquet", "retransmissions.parquet", "summary.json",
                 "report.md", COMMAND_FILE):
        assert (out / name).is_file(), name
    assert len(tcplab.whatif.load(out).connections) == 3 * one["conn_id"].nunique()
    # The report states what each model's numbers rest on, counted from the table (qa finding).
    counts = pd.read_csv(out / "connections_per_model.csv")
    assert counts.to_dict("records") == [{
        "model": "windows-xp", "connections": 3 * one["conn_id"].nunique(), "inferred": 0, "best_candidate": 0,
        "forced": 3 * one["conn_id"].nunique(), "with_best_case": 3 * int(one.drop_duplicates("conn_id")["best_case_rtts"].notna().sum()),
        "smart_config": 3 * int(one[one["grid_set"].astype(str) == "smart"].drop_duplicates("conn_id")["delta_pct"].notna().sum()),
    }]
    stats = json.loads((out / "report_stats.json").read_text())
    assert stats["mean_reduction_rtts/k=2/windows-xp/connections"] == 3 * one["conn_id"].nunique()
    assert "## Connections per model" in (out / "report.md").read_text()
    # The same call again computes nothing: the run files are untouched.
    mtimes = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*.parquet")}
    again = run_whatif([caps], out, model="windows-xp", only="D,k", workers=0, progress=False, report=False)
    assert (again.stats.executed, again.stats.reused) == (0, 3)
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*.parquet")} == mtimes
    pd.testing.assert_frame_equal(again.result.whatif, df)
    # Another grid is another key: computed, the first grid's files kept.
    other = run_whatif([caps], out, model="windows-xp", only="k", workers=0, progress=False, report=False)
    assert (other.stats.executed, other.stats.reused) == (3, 0)
    assert len(list((out / "runs").glob("*.parquet"))) == 6


def _events(g) -> tuple[int, ...]:
    """Summed over rows: rto_to_fr, fr_to_rto, spurious_rto_avoided, spurious_rto_caused,
    spurious_fr_avoided, spurious_fr_caused, rto_detection_delta (us), delta_duration (us)."""
    return (*(int(g[c].sum()) for c in ("rto_to_fr", "fr_to_rto", "spurious_rto_avoided", "spurious_rto_caused",
                                        "spurious_fr_avoided", "spurious_fr_caused")),
            round(float(g["rto_detection_delta_s"].sum()) * 1e6), round(float(g["delta_duration_s"].sum()) * 1e6))


def test_exact_counts_of_a_small_capture(tmp_path):
    """Snapshot in readable integers: a 200 KB transfer with 8 % data loss (seed of the
    scenario), replayed as rfc6298 (D = 3, minRTO 1 s, timestamps) under D x minRTO (20
    points). Its one connection has 5 loss detections, all needed: 1 by the timer, 4 by FR/R.

    The sender's timer fired twice (analyze's retransmissions table): at 1.441 s (seq 71541,
    a retransmission lost again inside a SACK recovery: part of that recovery, not a
    detection, not replayed) and at 3.235 s (seq 195641, 1.0446 s after its original: the one
    RTO detection). The ACKs after the first timeout echo TSvals, so they are RFC 7323 RTT
    samples that end its back-off (RFC 6298 §5, the note after (5.7)): the replayed timer of
    the second is the un-backed-off 1 s, as the sender's was. Per D row it fires 0.2 s sooner at
    minRTO 800 ms, 0.6 s at 400, 0.8 s at 200, and at 100 ms the estimator's own RTO (srtt +
    4 rttvar = 141.945 ms, above the minimum) gives -0.858055 s; 1000 ms: no change. The ACKs
    are applied when the sender acted on them (the analyzer's rule, 1 ms after their capture
    on the sender's 1 ms access link: the handshake's capture->sender->capture gap), so the
    samples are the sender's: 1 ms longer than the capture's (before that rule: srtt + 4
    rttvar 140.964 ms, maximum RTT 87.0 ms). The
    sums below are over the 4 D values (minRTO groups) or the 5 minRTOs (D groups). D = 4
    turns one FR/R into a timeout at every minRTO (fr_to_rto 5 over the 5 minRTOs), D = 2 and
    adaptive detect sooner. best_case_s: both timer expiries' detection times above the
    connection's maximum RTT (88.0 ms): (1.087990 - 0.088) + (1.044596 - 0.088) s."""
    (tmp_path / "small.toml").write_text(SMALL)
    tcplab.run(tmp_path / "small.toml", out=tmp_path / "r", pcap=["access"],
               overrides=['links.bottleneck.loss_ab={ model = "bernoulli", p = 0.08 }', "flows.0.size=200KB"])
    df = tcplab.whatif(tmp_path / "r" / "access.pcap", tmp_path / "o", model="rfc6298", only="D,minRTO", workers=0,
                       progress=False, report=False)
    assert (len(df), df["conn_id"].nunique(), df.attrs["summary"]["grid_points"]) == (20, 1, 20)
    assert {str(d): _events(g) for d, g in df.groupby(df["D"].astype(str), sort=True)} == {
        "2": (0, 0, 0, 0, 0, 0, -2458055, -2687120),
        "3": (0, 0, 0, 0, 0, 0, -2458055, -2458055),
        "4": (0, 5, 0, 0, 0, 0, -2458055, -373780),
        "adaptive": (0, 0, 0, 0, 0, 0, -2458055, -2668941),
    }
    assert {int(ms): _events(g) for ms, g in df.groupby("min_rto_ms", sort=True)} == {
        100: (0, 1, 0, 0, 0, 0, -3432219, -3503355),
        200: (0, 1, 0, 0, 0, 0, -3200000, -3171135),
        400: (0, 1, 0, 0, 0, 0, -2400000, -2171135),
        800: (0, 1, 0, 0, 0, 0, -800000, -171135),
        1000: (0, 1, 0, 0, 0, 0, 0, 828865),
    }
    c = df.iloc[0]
    assert (int(c["detections"]), int(c["detections_needed"]), int(c["model_rto_detections"]),
            int(c["model_fr_detections"]), round(float(c["best_case_s"]) * 1e6)) == (5, 5, 1, 4, -1956587)


def test_cli_refuses_a_foreign_directory_and_overwrite_starts_afresh(lossy, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "mine.txt").write_text("x")
    r = tcplab_cli("whatif", str(lossy), "-o", str(out), "--only", "k", "--no-report", "-q")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not empty" in r.stderr, r.stderr
    out2 = tmp_path / "o2"
    assert tcplab_cli("whatif", str(lossy), "-o", str(out2), "--only", "k", "--no-report", "-q").returncode == 0
    keys = _ledger_keys(out2)
    assert len(keys) == 1
    r = tcplab_cli("whatif", str(lossy), "-o", str(out2), "--only", "k", "--overwrite", "--no-report", "-q")
    assert r.returncode == 0, r.stderr
    assert _ledger_keys(out2) == keys and json.loads((out2 / L.LEDGER).read_text())["key"] == keys[0]


#: Connections of the capture the kill test copies: enough work per capture (about 0.1 s of
#: CPU with --model auto in a release build) that the driver is killed mid-way.
MANY_FLOWS = 1000


def _many_flows_capture(d: Path) -> Path:
    """MANY_FLOWS short transfers, one starting every 20 ms, 2 % data loss, captured at the
    senders' access link."""
    flows = "".join(f'\n[[flows]]\nsrc = "a"\ndst = "b"\nstart = "{10 * i}ms"\nsize = "20KB"\n' for i in range(MANY_FLOWS))
    text = SMALL[: SMALL.index("[[flows]]")].replace('duration = "5s"', 'duration = "15s"') + flows
    (d / "many.toml").write_text(text)
    tcplab.run(d / "many.toml", out=d / "many", pcap=["access"], trace=False,
               overrides=['links.bottleneck.loss_ab={ model = "bernoulli", p = 0.02 }'])
    return d / "many" / "access.pcap"


def test_killed_worker_then_killed_driver_loses_and_recomputes_nothing(tmp_path):
    pytest.importorskip("psutil")  # a dependency of dask.distributed
    total = 40
    caps = _copies(_many_flows_capture(tmp_path), tmp_path / "caps", total)
    out = tmp_path / "out"
    # --model auto: seven candidate replays per connection (the work), four grid points (the
    # output: 4000 rows per capture).
    cmd = [sys.executable, "-m", "tcplab.cli", "whatif", str(caps), "-o", str(out), "--only", "k",
           "--workers", "2", "--no-report", "-q"]
    # Dask restarts the killed worker and re-runs its task; the captures go on until the driver dies.
    before, ledger_before = _kill_a_worker_then_the_driver(cmd, out, 2, 3, "captures")
    assert 0 < len(before) < total, "the driver must be killed mid-way for this test to mean anything"

    res = run_whatif([caps], out, only="k", workers=2, progress=False, report=False)
    assert (res.stats.executed, res.stats.reused) == (total - len(before), len(before))
    after = {p.stem: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (out / "runs").glob("*.parquet")}
    assert not [p for p in (out / "runs").rglob(f"{L.TMP_PREFIX}*")], "temporary files are cleaned up"
    assert all(after[k] == v for k, v in before.items()), "a finished capture was recomputed"
    lines = (out / L.LEDGER).read_text().splitlines()
    assert all(line in lines for line in ledger_before.values())
    keys = [json.loads(x)["key"] for x in lines]
    assert len(keys) == len(set(keys)) == total == len(after)
    wi = pd.read_parquet(out / "whatif.parquet")
    n_conn = pd.read_parquet(out / "connections.parquet").groupby("capture", observed=True).size()
    assert len(n_conn) == total and wi["capture"].nunique() == total
    assert len(wi) == int(n_conn.sum()) * 4


def test_scheduler_address_runs_the_captures_on_that_cluster(lossy, tmp_path):
    from dask.distributed import LocalCluster

    caps = _copies(lossy, tmp_path / "caps", 2)
    # An existing cluster: one in-process worker thread (its pid is the test's own).
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        res = run_whatif([caps], tmp_path / "out", model="rfc6298", only="k", scheduler=cluster.scheduler_address,
                         progress=False, report=False)
    assert (res.stats.executed, res.stats.workers) == (2, 1)
    led = L.Ledger.open(tmp_path / "out")
    assert {e["worker"].rsplit(":", 1)[1] for e in led.entries.values()} == {str(os.getpid())}
    assert res.result.whatif["capture_name"].astype(str).tolist()[::4] == ["c00.pcap", "c01.pcap"]


def test_streamed_rows_are_the_kept_table_and_the_outputs_are_the_in_memory_ones(lossy, tmp_path):
    """The core hands the whatif rows out in batches as connections finish (never holding
    the table): their concatenation is the table it keeps when not streaming; an exception
    in the callback stops the pass. The command's streamed outputs equal the in-memory
    result's: whatif.csv byte for byte, whatif.parquet value for value, and the report drawn
    from the rows read back (report_rows) is the report drawn from the whole table."""
    import pyarrow as pa

    from tcplab import _core
    from tcplab.tables import to_arrow
    from tcplab.whatif.report import report_rows, write_report

    caps = [str(p) for p in sorted(_copies(lossy, tmp_path / "caps", 3).glob("*.pcap"))]
    kept = to_arrow(_core.whatif(caps, "auto", "windows-xp", None, None, ["D", "k"]).table("whatif"))
    batches = []
    raw = _core.whatif(caps, "auto", "windows-xp", None, None, ["D", "k"], on_rows=batches.append, batch_rows=1)
    assert len(batches) == 3, "a batch per connection at batch_rows=1 (one connection per capture)"
    assert to_arrow(raw.table("whatif")).num_rows == 0
    streamed = pa.concat_tables([to_arrow(b) for b in batches]).unify_dictionaries()
    assert streamed.num_rows == kept.num_rows == 3 * 16
    pd.testing.assert_frame_equal(streamed.to_pandas(), kept.to_pandas())

    def stop(_):
        raise ValueError("disk full")

    with pytest.raises(ValueError, match="disk full"):
        _core.whatif(caps, "auto", "windows-xp", None, None, ["D", "k"], on_rows=stop)

    mem = whatif(lossy, model="windows-xp", only="D,k", out=tmp_path / "mem")
    write_report(tmp_path / "mem", mem.retransmissions, mem.whatif, title="(windows-xp)")
    tcplab.whatif(lossy, tmp_path / "cmd", model="windows-xp", only="D,k", workers=0, progress=False)
    mem_dir, cmd = tmp_path / "mem", tmp_path / "cmd"
    assert (cmd / "whatif.csv").read_bytes() == (mem_dir / "whatif.csv").read_bytes()
    assert pq.read_table(cmd / "whatif.parquet").equals(pq.read_table(mem_dir / "whatif.parquet"))
    for name in ("report.md", "report_stats.json", "table_iv.csv", "table_v.csv", "connections_per_model.csv"):
        assert (cmd / name).read_bytes() == (mem_dir / name).read_bytes(), name
    # The report's rows are a few points per connection, not the grid.
    few = report_rows(cmd / "whatif.parquet")
    assert 0 < len(few) < len(mem.whatif)


def test_summary_writes_capture_paths_as_given(lossy, tmp_path):
    """docs/outputs.md's rule for summary.json: `path` as given, bytes that are not UTF-8 as
    surrogate escapes ("\\udcXX", which os.fsencode turns back into the bytes); `shown` as
    in messages and the `capture` column (`\\xNN`). Both the in-memory and the command."""
    name = os.fsencode(tmp_path) + b"/caf\xe9.pcap"
    os.symlink(os.fsencode(lossy), name)
    given = os.fsdecode(name)
    for out, call in ((tmp_path / "mem", lambda o: whatif(given, model="windows-xp", only="k", out=o)),
                      (tmp_path / "cmd", lambda o: tcplab.whatif(given, o, model="windows-xp", only="k", workers=0,
                                                                 progress=False, report=False))):
        call(out)
        text = (out / "summary.json").read_text(encoding="utf-8")
        assert "caf\\udce9.pcap" in text and "caf\\\\xe9.pcap" in text
        (cap,) = json.loads(text)["captures"]
        assert os.fsencode(cap["path"]) == name
        assert cap["shown"] == str(tmp_path) + "/caf\\xe9.pcap"
        assert pd.read_csv(out / "whatif.csv")["capture"].unique().tolist() == [cap["shown"]]
