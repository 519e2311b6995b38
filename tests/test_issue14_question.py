"""Issue 14's goal, end to end: "does a 1 s minimum RTO instead of 200 ms hurt short web
transfers over a lossy 3G-like link, over 10 seeds?" is one command with a progress bar,
giving a table with confidence intervals, and `tcplab plot sweep` draws it with confidence
bands. (The parts are tested one by one in tests/test_sweep.py; this runs the shipped study
as a user would.)"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.axes
import pandas as pd
import pyarrow.parquet as pq

import tcplab
from tcplab.sweep.plot import plot_sweep


def test_the_ten_seed_two_setting_question_is_one_call_with_progress_cis_and_a_banded_plot(
        tmp_path: Path, capfd, monkeypatch):
    out = tmp_path / "rto"
    df = tcplab.sweep("min_rto_3g", out, workers=1, progress=True)
    err = capfd.readouterr().err
    # tqdm's bar: runs done of the total and the time left ("elapsed<remaining").
    assert "20/20" in err and "<" in err, err[-400:]
    # One row per run and flow: 2 settings x 10 seeds, the swept key and the seed as columns.
    runs = df[["tcp.min_rto", "seed"]].drop_duplicates()
    assert sorted(runs["tcp.min_rto"].unique()) == ["1s", "200ms"]
    assert runs.groupby("tcp.min_rto")["seed"].apply(sorted).tolist() == [list(range(1, 11))] * 2
    # The table: per setting and metric, the mean over 10 seeds with a 95 % interval around it.
    summary = pd.read_parquet(out / "summary.parquet")
    fct = summary[summary["metric"] == "fct_s"].set_index("tcp.min_rto")
    assert sorted(fct.index) == ["1s", "200ms"] and (fct["n"] == 10).all()
    assert ((fct["ci95_low"] < fct["mean"]) & (fct["mean"] < fct["ci95_high"])).all()
    # Every table of the directory says what produced it (the study; each run file its run).
    for table in ("flows", "summary"):
        study = json.loads(pq.read_schema(out / f"{table}.parquet").metadata[b"tcplab.study"])
        assert study["parameters"] == [{"zip": None, "keys": ["tcp.min_rto"], "values": [["200ms"], ["1s"]]}], table
        assert study["seeds"] == list(range(1, 11)) and study["scenario"] == "web-3g"
    for run in (out / "runs").glob("*.parquet"):
        assert json.loads(pq.read_schema(run).metadata[b"tcplab.provenance"])["scenario_name"] == "web-3g"
    # The plot draws a band from ci95_low to ci95_high under the line of means.
    bands = []
    real = matplotlib.axes.Axes.fill_between

    def spy(self, x, y1, y2=0, **kw):
        bands.append((list(y1), list(y2)))
        return real(self, x, y1, y2, **kw)

    monkeypatch.setattr(matplotlib.axes.Axes, "fill_between", spy)
    png = plot_sweep(out, "fct_s", "tcp.min_rto", tmp_path / "fct.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(bands) == 1
    low, high = bands[0]
    assert sorted(low) == sorted(fct["ci95_low"]) and sorted(high) == sorted(fct["ci95_high"])
