"""``tcplab compare``: the analyzer's verdicts against the simulator's ground truth, matched
by the rule of docs/validation.md (corpus.rs ``score``)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab.analyze import analyze
from tcplab.compare import CompareError, compare

from conftest import SMALL, tcplab_cli

LOSSY = SMALL.replace('queue = "20pkt"', 'queue = "20pkt"\nloss = { model = "bernoulli", p = 0.02 }')


def test_sender_side_capture_sees_and_matches_every_retransmission(tmp_path):
    run_dir, an_dir = tmp_path / "run", tmp_path / "an"
    (tmp_path / "lossy.toml").write_text(LOSSY)
    res = tcplab.run(tmp_path / "lossy.toml", out=run_dir, pcap=["access"])
    analyze([str(run_dir / "access.pcap")], out=an_dir)
    ev = res.events
    data_rx = ev[(ev.kind == "segment_retransmitted") & (ev.len > 0)]
    assert len(data_rx) >= 3, "the scenario must retransmit"
    r = compare(run_dir, an_dir)
    s = r.scores.set_index("capture").loc["access.pcap"]
    # The capture is on the sender's own link: nothing is lost before it.
    assert s["truth"] == len(data_rx) and s["not_visible"] == 0
    assert s["matched"] + s["extra"] == s["found"]
    assert r.confusion["count"].sum() == s["matched"]
    by_cause = r.confusion.groupby("truth")["count"].sum().to_dict()
    assert by_cause == data_rx.groupby("cause", observed=True).size().loc[lambda x: x > 0].to_dict()
    # The CLI prints the same numbers.
    out = tcplab_cli("compare", str(run_dir), str(an_dir), "--json")
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert j["scores"][0]["matched"] == s["matched"] and j["scores"][-1]["capture"] == "all"
    from tcplab.compare import format_result

    assert "confusion over matched retransmissions" in format_result(r)


def _write(run_dir: Path, an_dir: Path, truth: list[dict], rex: list[dict]) -> None:
    run_dir.mkdir(exist_ok=True)
    an_dir.mkdir()
    ev = pd.DataFrame(truth)
    ev["kind"] = "segment_retransmitted"
    ev["len"] = 1000
    ev["spurious"] = ev["spurious"].astype("boolean")
    ev.to_parquet(run_dir / "events.parquet")
    pd.DataFrame({"id": [0, 1]}).to_parquet(run_dir / "flows.parquet")
    pd.DataFrame({"capture": ["c.pcap"] * 2, "conn_id": [0, 1], "client": ["10.0.0.1:49152", "10.0.0.1:49153"]}).to_parquet(
        an_dir / "connections.parquet")
    r = pd.DataFrame(rex)
    r["capture"] = "c.pcap"
    r["dir"] = "c2s"
    r["spurious"] = r["spurious"].astype("boolean")
    r.to_parquet(an_dir / "retransmissions.parquet")


def test_matching_rule_in_order_from_the_last(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "c.pcap").write_bytes(b"")
    # Flow 0, seq 1001 retransmitted three times (t = 10, 20, 30); the capture is downstream
    # and saw only two copies, at 25 and 31: they match the truth copies sent at 20 and 30
    # (each the latest sent no later than it was seen), and the copy of t = 10 was not
    # visible. An analyzer row at ts 5 for flow 1 seq 1 (never retransmitted) is extra, and
    # so is one captured before any truth copy of its seq (flow 1, seq 2001 at ts 1).
    truth = [
        {"t_ns": 10, "flow": 0, "seq": 1001, "cause": "rto", "spurious": False},
        {"t_ns": 20, "flow": 0, "seq": 1001, "cause": "rto", "spurious": True},
        {"t_ns": 30, "flow": 0, "seq": 1001, "cause": "probe", "spurious": None},
        {"t_ns": 40, "flow": 1, "seq": 2001, "cause": "fast_retransmit", "spurious": False},
    ]
    rex = [
        {"conn_id": 0, "seq": 1001, "ts_ns": 25, "cause": "rto", "spurious": True},
        {"conn_id": 0, "seq": 1001, "ts_ns": 31, "cause": "tlp", "spurious": None},
        {"conn_id": 1, "seq": 1, "ts_ns": 5, "cause": "rto", "spurious": False},
        {"conn_id": 1, "seq": 2001, "ts_ns": 1, "cause": "unknown", "spurious": False},
    ]
    _write(tmp_path / "run", tmp_path / "an", truth, rex)
    r = compare(tmp_path / "run", tmp_path / "an")
    s = r.scores.iloc[0]
    assert (s["truth"], s["found"], s["matched"], s["extra"], s["not_visible"]) == (4, 4, 2, 2, 2)
    pairs = r.pairs.sort_values("ts_ns")
    assert pairs["t_ns"].tolist() == [20, 30]
    # "probe" in the truth is the analyzer's "tlp": both matched causes are right.
    assert s["cause_ok"] == 2 and s["cause_accuracy"] == 1.0
    assert (s["sp_tp"], s["sp_fp"], s["sp_fn"], s["sp_unknown"], s["sp_truth"]) == (1, 0, 0, 1, 1)


def test_bad_directories_are_one_line_errors(tmp_path):
    (tmp_path / "lossy.toml").write_text(LOSSY)
    tcplab_cli("run", str(tmp_path / "lossy.toml"), "-o", str(tmp_path / "run"), "--no-trace", "-q")
    with pytest.raises(CompareError, match="without --no-trace"):
        compare(tmp_path / "run", tmp_path)
    r = tcplab_cli("compare", str(tmp_path / "nope"), str(tmp_path))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    # An analysis of another run's capture is refused.
    truth = [{"t_ns": 10, "flow": 0, "seq": 1, "cause": "rto", "spurious": False}]
    rex = [{"conn_id": 0, "seq": 1, "ts_ns": 10, "cause": "rto", "spurious": False}]
    _write(tmp_path / "r2", tmp_path / "a2", truth, rex)
    with pytest.raises(CompareError, match="is not one of"):
        compare(tmp_path / "r2", tmp_path / "a2")
