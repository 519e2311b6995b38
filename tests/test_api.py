"""The Python API: results, determinism, errors."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import tcplab
from conftest import SMALL


def test_run_returns_summary_and_dataframes(small_scenario: Path):
    res = tcplab.run(small_scenario)
    assert res.summary["scenario"] == "small"
    assert isinstance(res.events, pd.DataFrame) and len(res.events) > 0
    assert isinstance(res.timeseries, pd.DataFrame) and len(res.timeseries) > 0
    assert isinstance(res.flows, pd.DataFrame) and len(res.flows) == 1
    assert isinstance(res.arrow("events"), pa.Table)
    assert res.events["kind"].dtype.name == "category"
    assert (res.events["t_ns"].diff().dropna() >= 0).all(), "events are in time order"


def test_same_seed_gives_identical_results(small_scenario: Path):
    lossy = ["links.bottleneck.loss.model=bernoulli", "links.bottleneck.loss.p=0.02"]
    a = tcplab.run(small_scenario, seed=7, overrides=lossy)
    b = tcplab.run(small_scenario, seed=7, overrides=lossy)
    strip = lambda s: {k: v for k, v in s.items() if k != "wall_s"}
    assert strip(a.summary) == strip(b.summary)
    for name in ("flows", "events", "timeseries"):
        assert a.arrow(name).equals(b.arrow(name)), name


def test_another_seed_changes_a_lossy_run(small_scenario: Path):
    lossy = ["links.bottleneck.loss.model=bernoulli", "links.bottleneck.loss.p=0.02"]
    a = tcplab.run(small_scenario, seed=1, overrides=lossy)
    b = tcplab.run(small_scenario, seed=2, overrides=lossy)
    assert not a.arrow("events").equals(b.arrow("events"))


def test_a_dict_scenario_runs_like_its_file(small_scenario: Path):
    as_dict = tomllib.loads(SMALL)
    a = tcplab.run(as_dict)
    b = tcplab.run(small_scenario)
    assert a.arrow("events").equals(b.arrow("events"))


def test_bad_input_raises_scenario_error_with_one_line(small_scenario: Path):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(small_scenario, overrides=["links.bottleneck.delay=20"])
    assert "delay" in str(e.value) and "\n" not in str(e.value)
    assert isinstance(e.value, ValueError)
    with pytest.raises(tcplab.ScenarioError):
        tcplab.run(small_scenario, seed=-1)
    with pytest.raises(tcplab.ScenarioError):
        tcplab.run({"simulation": {"duration": "1s"}, "nodes": "oops"})


def test_write_produces_parquet_and_json(small_scenario: Path, tmp_path: Path):
    tcplab.run(small_scenario, out=tmp_path / "o")
    for f in ("summary.json", "flows.parquet", "events.parquet", "timeseries.parquet"):
        assert (tmp_path / "o" / f).stat().st_size > 0


def test_retransmissions_in_events_agree_with_the_summary(small_scenario: Path):
    res = tcplab.run(small_scenario, overrides=["links.bottleneck.loss.model=bernoulli", "links.bottleneck.loss.p=0.03"], seed=3)
    ev = res.events
    rex = ev[ev.kind == "segment_retransmitted"]
    flow = res.summary["flows"][0]
    assert len(rex) == flow["retransmissions"] > 0
    by_cause = rex["cause"].astype(str).value_counts().to_dict()
    for cause, n in flow["retransmissions_by_cause"].items():
        assert by_cause.get(cause, 0) == n, cause
    assert int(rex["spurious"].fillna(False).sum()) == flow["spurious_retransmissions"]
    assert flow["bytes_delivered"] == 200_000


def test_a_scenario_without_flows_is_an_error_not_an_empty_run():
    with pytest.raises(tcplab.ScenarioError, match="no flows"):
        tcplab.run({"simulation": {"duration": "1s"}})


def test_a_single_override_string_is_one_override(small_scenario: Path):
    one = tcplab.run(small_scenario, overrides="flows.0.size=50KB", trace=False)
    listed = tcplab.run(small_scenario, overrides=["flows.0.size=50KB"], trace=False)
    assert one.summary["flows"][0]["bytes_delivered"] == 50_000
    assert one.arrow("flows").equals(listed.arrow("flows"))
    assert tcplab.load_scenario(small_scenario, "tcp.sack=false").name == "small"


def test_overrides_of_another_type_raise_type_error(small_scenario: Path):
    for bad in ({"tcp.sack": False}, b"tcp.sack=false", 3):
        with pytest.raises(TypeError, match="overrides must be a string or a list of strings"):
            tcplab.run(small_scenario, overrides=bad)


def test_flow_counts_are_the_data_senders_rows_of_the_events_table():
    """docs/outputs.md: flows counts the sender (control segments included); events has both
    endpoints. The documented filter gives back the flows' counts exactly."""
    res = tcplab.run("dumbbell")
    src = res.flows.set_index("id")["src"]
    ev = res.events
    at_sender = ev.node.astype(str) == ev.flow.map(src)
    rex = ev[(ev.kind == "segment_retransmitted") & at_sender]
    by_cause = rex.groupby(["flow", "cause"], observed=True).size()
    rtos = ev[(ev.kind == "rto_fired") & at_sender].groupby("flow").size()
    for f in res.flows.itertuples():
        assert len(rex[rex.flow == f.id]) == f.retransmissions, f.id
        for cause in ("rto", "fast_retransmit", "sack_recovery"):
            assert by_cause.get((f.id, cause), 0) == getattr(f, f"retrans_{cause}"), (f.id, cause)
        assert rtos.get(f.id, 0) == f.timeouts, f.id
