"""RED queues, ECN and Poisson workloads through the Python API (issue 13)."""

from __future__ import annotations

from pathlib import Path

import tcplab

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def test_a_red_scenario_has_red_counters_a_queues_table_and_its_workload_flows(tmp_path: Path):
    res = tcplab.run(SCENARIOS / "red-ecn-web.toml", overrides=["simulation.duration=5s", "workloads.web.stop=4s"], out=tmp_path)
    link = next(l for l in res.summary["links"] if l["name"] == "bottleneck")
    red = link["red_ab"]
    assert red["marks"] > 0
    assert link["drops_ab"] == red["early_drops"] + red["forced_drops"] + red["overflow_drops"]
    q = res.queues
    assert list(q.columns) == ["t_ns", "link", "dir", "packets", "bytes", "avg", "marks", "drops"]
    # Sampled every timeseries_interval (10 ms) for both directions of the one RED link.
    assert set(q["link"]) == {"bottleneck"} and len(q) == 2 * 500
    assert q[q.dir == 0]["marks"].iloc[-1] == red["marks"]
    # Flow 0 is the long flow; the workload's connections follow in arrival order.
    f = res.flows
    assert f.loc[0, "src"] == "s3" and f["bytes_requested"].isna().sum() == 1
    short = f.iloc[1:]
    assert len(short) > 10 and short["start_s"].is_monotonic_increasing
    assert (short["bytes_requested"] >= 13334).all()
    assert (tmp_path / "queues.parquet").exists()


def test_a_run_without_red_writes_no_queues_table(tmp_path: Path):
    res = tcplab.run(SCENARIOS / "dumbbell.toml", overrides=["simulation.duration=10s"], out=tmp_path)
    assert "red_ab" not in res.summary["links"][0]
    assert not (tmp_path / "queues.parquet").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.parquet", "flows.parquet", "summary.json", "timeseries.parquet"]
