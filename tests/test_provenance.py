"""Every result of `tcplab run` records what produced it (summary.json, Parquet metadata,
`res.provenance`), and flow names are a column of every table."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
from conftest import ROOT, SMALL, tcplab_cli

import tcplab
from tcplab.api import PROVENANCE_KEY, TABLES

#: SMALL with a named flow entry copied twice and an unnamed one.
NAMED = SMALL.replace('size = "200KB"', 'size = "200KB"\nname = "web"\ncount = 2') + """
[[flows]]
src = "a"
dst = "b"
start = "1s"
size = "20KB"
"""


def test_provenance_reaches_the_result_summary_and_every_parquet_table(tmp_path):
    overrides = ["tcp.min_rto=300ms", "links.bottleneck.delay=10ms"]
    res = tcplab.run(_write(tmp_path, NAMED), seed=7, overrides=overrides, out=tmp_path / "out")
    p = res.provenance
    assert p["overrides"] == overrides and p["seed"] == 7
    assert p["tcplab_version"] == tcplab.__version__ and p["scenario_name"] == "small"
    assert p["git_revision"] == "unknown" or re.fullmatch(r"[0-9a-f]{40}", p["git_revision"])
    if (ROOT / ".git").exists():
        assert p["git_revision"] != "unknown" and isinstance(p["git_dirty"], bool)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["provenance"] == p
    for name in TABLES:
        meta = pq.read_schema(tmp_path / "out" / f"{name}.parquet").metadata
        assert json.loads(meta[PROVENANCE_KEY.encode()]) == p, name


def test_the_resolved_scenario_reproduces_the_run(tmp_path):
    res = tcplab.run(_write(tmp_path, NAMED), seed=3, overrides=["tcp.profile=linux-2.4"])
    resolved = res.provenance["scenario"]
    assert "profile" not in resolved and 'min_rto = "200ms"' in resolved
    again = tcplab.run(_write(tmp_path, resolved, "resolved.toml"), seed=res.provenance["seed"])
    for name in TABLES:
        assert again.arrow(name).equals(res.arrow(name)), name


def test_flow_names_are_a_column_of_every_table(tmp_path):
    res = tcplab.run(_write(tmp_path, NAMED), seed=1)
    assert res.flows["flow_name"].tolist()[:2] == ["web", "web"]
    assert res.flows["flow_name"].isna().tolist() == [False, False, True]
    for name in ("events", "timeseries"):
        t = getattr(res, name)
        assert list(t.columns).index("flow_name") == list(t.columns).index("flow") + 1
        named = t[t["flow"] < 2]
        assert len(named) and (named["flow_name"] == "web").all(), name
        assert t.loc[t["flow"] >= 2, "flow_name"].isna().all(), name


def test_cli_run_writes_provenance(tmp_path):
    r = tcplab_cli("run", "dumbbell", "-o", str(tmp_path / "o"), "--set", "simulation.duration=10s",
                   "--seed", "5", "--no-trace", "-q")
    assert r.returncode == 0, r.stderr
    p = json.loads((tmp_path / "o" / "summary.json").read_text())["provenance"]
    assert p["overrides"] == ["simulation.duration=10s"] and p["seed"] == 5
    assert 'duration = "10s"' in p["scenario"]


def _write(tmp_path, text: str, name: str = "small.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_rerun_with_overwrite_leaves_none_of_the_previous_runs_files(tmp_path):
    # Issue 14: "a re-run into the same directory leaves the previous run's pcap beside the
    # new results". The second run writes no capture and an empty trace: nothing of the
    # first may survive.
    small = _write(tmp_path, SMALL)
    out = tmp_path / "o"
    r = tcplab_cli("run", str(small), "-o", str(out), "--pcap", "bottleneck", "-q")
    assert r.returncode == 0, r.stderr
    assert {"bottleneck.pcap", "events.parquet"} <= {p.name for p in out.iterdir()}
    r = tcplab_cli("run", str(small), "-o", str(out), "--no-trace", "-q")
    assert r.returncode == 2 and "--overwrite" in r.stderr
    r = tcplab_cli("run", str(small), "-o", str(out), "--no-trace", "--seed", "7", "--overwrite", "-q")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == [".tcplab-output.json", "events.parquet", "flows.parquet",
                                                     "summary.json", "timeseries.parquet"]
    assert pq.read_metadata(out / "events.parquet").num_rows == 0  # the new run's (empty) trace
    assert json.loads((out / "summary.json").read_text())["provenance"]["seed"] == 7
