"""The reproductions' experiment layer (tcplab.reproduce.experiment): named points x seeds run
on the sweep engine, filed in a ledger, returned as tidy frames; tabulation rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from conftest import SMALL
from tcplab.reproduce.common import Report
from tcplab.reproduce.experiment import Experiment, Point, add_rows, aggregate, run_experiments

#: SMALL with random loss on the bottleneck, so that the seed changes the result.
LOSSY = ['links.bottleneck.loss={ model = "bernoulli", p = 0.02 }']


def measure(res, point):
    f = res.summary["flows"][0]
    return {"fct_s": f["fct_s"], "rexmits": f["retransmissions"], "tag": point.params.get("tag")}


def per_flow(res, point):
    return [{"flow": f["id"], "delivered": f["bytes_delivered"]} for f in res.summary["flows"]]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("scen") / "small.toml"
    p.write_text(SMALL)
    return p


def experiment(scenario: Path, name: str = "a") -> Experiment:
    return Experiment(
        name,
        points=[Point("sack", 1, LOSSY, params={"tag": "a"}), Point("newreno", 2, LOSSY + ["tcp.sack=false"],
                                                                     params={"tag": "b"})],
        scenario=scenario, seeds=[3, 4], measure=measure)


@pytest.fixture(scope="module")
def ran(scenario, tmp_path_factory):
    """Three experiments in one batch (one local cluster for the whole module): ``b``'s only
    run is also ``a``'s (same point and seed, other labels)."""
    out = tmp_path_factory.mktemp("exp") / "out"
    a = experiment(scenario)
    b = Experiment("b", points=[Point("sack", "other label", LOSSY, params={"tag": "a"})], scenario=scenario,
                   seeds=[4], measure=measure)
    c = Experiment("c", points=[Point("all", "", [])], scenario=scenario, seeds=[None], measure=per_flow)
    return out, [a, b, c], run_experiments([a, b, c], out, workers=1, progress=False)


def test_points_times_seeds_run_on_the_engine_in_order_equal_to_direct_runs(ran, scenario):
    out, _, frames = ran
    df = frames["a"]
    assert list(df.columns) == ["series", "x", "tag", "seed", "fct_s", "rexmits"]
    assert list(zip(df["series"], df["x"], df["seed"])) == [("sack", 1, 3), ("sack", 1, 4), ("newreno", 2, 3),
                                                            ("newreno", 2, 4)]
    for rec in df.to_dict("records"):
        ov = LOSSY + (["tcp.sack=false"] if rec["series"] == "newreno" else [])
        f = tcplab.run(scenario, seed=rec["seed"], overrides=ov, trace=False).summary["flows"][0]
        assert (rec["fct_s"], rec["rexmits"]) == (f["fct_s"], f["retransmissions"])
    # The seed matters here (else the test would not see a mixed-up seed column).
    assert df["rexmits"].nunique() > 1 or df["fct_s"].nunique() > 1
    assert pd.read_csv(out / "data" / "a.csv")["rexmits"].tolist() == df["rexmits"].tolist()


def test_a_run_shared_by_two_experiments_runs_once_and_several_rows_per_run(ran):
    out, _, frames = ran
    ledger = [json.loads(l) for l in (out / "ledger.jsonl").read_text().splitlines()]
    assert len(ledger) == 5 and len(list((out / "runs").glob("*.parquet"))) == 5  # b's run is a's (sack, seed 4)
    assert {e["experiment"] for e in ledger} == {"a", "c"}
    # completion order is Dask's: find the run by its labels
    first = next(e for e in ledger if (e["series"], e["seed"]) == ("sack", 3))
    assert (first["x"], first["overrides"]) == (1, LOSSY)
    assert first["tcplab_version"] == tcplab.__version__ and first["git_revision"] and first["rows"] == 1
    assert frames["b"].iloc[0]["x"] == "other label"
    assert frames["b"].iloc[0]["fct_s"] == frames["a"].iloc[1]["fct_s"]
    # seed None: the scenario's own simulation.seed; a list of rows gives several rows.
    assert frames["c"]["seed"].tolist() == [1] and frames["c"]["delivered"].tolist() == [200_000]


def test_running_again_into_the_directory_runs_nothing_and_gives_the_same_frames(ran):
    out, exps, frames = ran
    stamps = {p: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    # Nothing to run: no cluster is started, the rows are read back from the run files.
    again = run_experiments(exps, out, workers=1, progress=False)
    for name, df in frames.items():
        assert again[name].equals(df), name
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == stamps
    assert len((out / "ledger.jsonl").read_text().splitlines()) == 5


def test_a_bad_point_is_named_before_anything_runs(tmp_path, scenario):
    exp = Experiment("bad", points=[Point("ok", 1, []), Point("typo", 2, ["tcp.sackk=false"])], scenario=scenario,
                     measure=measure)
    with pytest.raises(tcplab.ScenarioError) as e:
        run_experiments([exp], tmp_path / "out", workers=1, progress=False)
    assert "experiment bad, point typo x=2" in str(e.value) and "sackk" in str(e.value)
    assert not (tmp_path / "out" / "ledger.jsonl").exists()


def test_aggregate_and_rows_keep_point_order_skip_missing_and_round(tmp_path):
    df = pd.DataFrame({"series": ["b", "b", "a", "a", "a"], "x": ["", "", 5, 5, 5], "seed": [1, 2, 1, 2, 3],
                       "t": [1.0, 2.0, 10.0, None, 13.0], "n": [1, 2, 3, 4, 8]})
    med = aggregate(df, ["t", "n"], how="median")
    assert med.to_dict("records") == [{"series": "b", "x": "", "t": 1.5, "n": 1.5},
                                      {"series": "a", "x": 5, "t": 11.5, "n": 4.0}]
    mean = aggregate(df, ["t"], how="mean")
    assert mean["t"].tolist() == [1.5, 11.5]
    assert aggregate(df, ["n"], how="sum")["n"].tolist() == [3, 15]
    rep = Report("t", "test", tmp_path, quick=False)
    fig = rep.figure("f", "F")
    add_rows(fig, aggregate(df, ["t", "n"], how="mean"), {"t": 0, "n": None}, paper={("a", 5, "t"): 12})
    assert [(r.series, r.x, r.metric, r.ours, r.paper) for r in fig.rows] == [
        ("b", "", "t", 2.0, None), ("b", "", "n", 1.5, None), ("a", 5, "t", 12.0, 12), ("a", 5, "n", 5.0, None)]
    nan = aggregate(pd.DataFrame({"series": ["s"], "x": [""], "t": [None]}), ["t"])
    assert math.isnan(nan["t"].iloc[0])


def capture_tables(res, point):
    """Reads the run's capture (Experiment.pcap) and returns two named Arrow tables."""
    import pyarrow as pa

    from tcplab.reproduce.experiment import Tables

    cap = res.captures["bottleneck"]
    size = cap.stat().st_size
    flows = res.summary["flows"]
    return Tables(
        flows=pa.table({"flow": [f["id"] for f in flows], "delivered": [f["bytes_delivered"] for f in flows]}),
        capture=pa.table({"bytes": pa.array([size], pa.int64()), "exists": [cap.is_file()]}),
    )


def test_a_measurement_reads_the_capture_and_returns_named_arrow_tables_filed_beside_the_run(tmp_path, scenario):
    import pyarrow.parquet as pq

    exp = Experiment("cap", points=[Point("sack", 1, LOSSY, params={"tag": "a"}), Point("newreno", 2, LOSSY + ["tcp.sack=false"])],
                     scenario=scenario, seeds=[3, 4], measure=capture_tables, pcap=["bottleneck"])
    out = tmp_path / "out"
    got = run_experiments([exp], out, workers=0, progress=False)["cap"]
    assert set(got) == {"flows", "capture"}
    cap = got["capture"].to_pandas()
    # Label columns first, one row per run in point then seed order; the capture existed
    # while the measurement ran and was not empty.
    assert list(cap.columns[:4]) == ["series", "x", "tag", "seed"]
    assert list(zip(cap["series"], cap["seed"])) == [("sack", 3), ("sack", 4), ("newreno", 3), ("newreno", 4)]
    assert cap["exists"].all() and (cap["bytes"] > 24).all()
    assert got["capture"]["tag"].to_pylist() == ["a", "a", None, None]
    # The first table is the run file, the others beside it (runs/<name>/<key>.parquet); the
    # ledger lists the tables; no capture is left anywhere in the output directory.
    entries = [json.loads(line) for line in (out / "ledger.jsonl").read_text().splitlines()]
    assert len(entries) == 4 and all(e["tables"] == ["flows", "capture"] for e in entries)
    for e in entries:
        assert pq.read_table(out / "runs" / f"{e['key']}.parquet").column_names == ["flow", "delivered"]
        assert (out / "runs" / "capture" / f"{e['key']}.parquet").is_file()
    assert not list(out.rglob("*.pcap"))
    assert (out / "data" / "cap" / "flows.parquet").is_file()
    # The direct run of the first point gives the same flows rows.
    direct = tcplab.run(scenario, seed=3, overrides=LOSSY, trace=False).summary["flows"]
    flows = got["flows"].to_pandas()
    first = flows[(flows["series"] == "sack") & (flows["seed"] == 3)]
    assert first["delivered"].tolist() == [f["bytes_delivered"] for f in direct]
    # Resumed: nothing runs again, the tables read back from the run files are equal.
    stamps = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*.parquet")}
    again = run_experiments([exp], out, workers=0, progress=False)["cap"]
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*.parquet")} == stamps
    for name in got:
        assert again[name].equals(got[name]), name
