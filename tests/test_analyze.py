"""The capture analyzer through the CLI and the Python API: outputs, columns, exit codes,
one-line errors, damaged input. Algorithms are tested in Rust (crates/tcplab-analyze)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import tcplab
from tcplab.analyze import CaptureError, analyze
from conftest import SMALL, tcplab_cli

RETX_COLUMNS = {
    "capture", "conn_id", "frame", "ts_ns", "seq", "len", "cause", "trigger", "spurious", "evidence",
    "detection_ns", "recovery_ns",
}
CONN_COLUMNS = {
    "capture", "conn_id", "client", "server", "start_ns", "end_ns", "duration_ns",
    "c2s_bytes", "c2s_data_segments", "s2c_bytes", "s2c_data_segments", "retransmissions",
    "rexmit_rto", "rexmit_fast_retransmit", "rexmit_sack_recovery", "rexmit_tlp",
    "rexmit_unknown", "spurious", "rtt_min_ns", "rtt_mean_ns", "rtt_max_ns", "sack",
    "timestamps", "mss_client", "vantage", "anomalies",
}
CAUSES = {"rto", "fast_retransmit", "sack_recovery", "tlp", "unknown"}
TRIGGERS = {"dupthresh", "islost", "partial_ack", "rack", "rack_timer", "nextseg", "tlp", "rto", "unknown"}
# Which triggers each cause may rest on (docs/outputs.md, `trigger`).
CAUSE_TRIGGERS = {
    "rto": {"rto"},
    "fast_retransmit": {"dupthresh", "islost", "rack", "rack_timer"},
    "sack_recovery": {"islost", "partial_ack", "nextseg", "rack", "rack_timer"},
    "tlp": {"tlp"},
    "unknown": {"unknown"},
}


@pytest.fixture(scope="module")
def lossy(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """A simulated transfer with 3% data loss, captured at the sender's access link."""
    d = tmp_path_factory.mktemp("lossy")
    sc = d / "small.toml"
    sc.write_text(SMALL)
    res = tcplab.run(
        sc,
        overrides=['links.bottleneck.loss_ab={ model = "bernoulli", p = 0.03 }', "flows.0.size=400KB"],
        out=d,
        pcap=["access"],
    )
    ev = res.events
    truth = ev[ev["kind"] == "segment_retransmitted"].reset_index(drop=True)
    return d / "access.pcap", truth


def test_analyze_writes_both_tables_as_parquet_and_csv_and_a_summary(lossy, tmp_path: Path):
    pcap, _ = lossy
    out = tmp_path / "an"
    r = tcplab_cli("analyze", str(pcap), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "retransmissions" in r.stdout and "fast_retransmit" in r.stdout
    assert "sender/detected" in r.stdout
    assert RETX_COLUMNS <= set(pq.read_schema(out / "retransmissions.parquet").names)
    assert CONN_COLUMNS <= set(pq.read_schema(out / "connections.parquet").names)
    retx = pd.read_csv(out / "retransmissions.csv")
    assert RETX_COLUMNS <= set(retx.columns)
    assert set(retx["cause"]) <= CAUSES
    assert set(retx["trigger"]) <= TRIGGERS
    for cause, trigger in zip(retx["cause"], retx["trigger"]):
        assert trigger in CAUSE_TRIGGERS[cause], (cause, trigger)
    assert (retx["capture"] == str(pcap)).all() and (retx["capture_name"] == "access.pcap").all()
    conns = pd.read_csv(out / "connections.csv")
    assert len(conns) == 1 and conns.loc[0, "retransmissions"] == len(retx)
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["table_iv"]) == CAUSES | {"total"}
    assert summary["table_iv"]["total"]["total"] == len(retx)
    assert {"bin_edges_rtt", "all", "by_cause"} <= summary["detection_rtt"].keys()
    assert "truncated_file" in summary["anomalies"] and "unreadable_files" in summary["anomalies"]


def test_the_api_returns_dataframes_that_agree_with_the_simulators_ground_truth(lossy):
    pcap, truth = lossy
    res = analyze(pcap)
    retx = res.retransmissions
    assert isinstance(retx, pd.DataFrame) and isinstance(res.connections, pd.DataFrame)
    assert len(retx) == len(truth) > 0
    assert list(retx["seq"]) == [int(s) for s in truth["seq"]]
    assert list(retx["cause"].astype(str)) == list(truth["cause"].astype(str))
    decided = retx["spurious"].notna()
    assert (retx.loc[decided, "spurious"].astype(bool).values == truth.loc[decided, "spurious"].astype(bool).values).all()


def test_a_missing_capture_is_one_line_and_exit_2(tmp_path: Path):
    r = tcplab_cli("analyze", str(tmp_path / "nope.pcap"), "-o", str(tmp_path / "out"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "nope.pcap" in r.stderr and "Traceback" not in r.stderr


def test_a_file_that_is_not_a_capture_is_one_line_and_exit_2(tmp_path: Path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello, not a capture\n")
    r = tcplab_cli("analyze", str(bad), "-o", str(tmp_path / "out"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "not a pcap or pcapng capture" in r.stderr


def test_a_truncated_capture_is_analysed_and_the_damage_counted(lossy, tmp_path: Path):
    pcap, _ = lossy
    cut = tmp_path / "cut.pcap"
    data = pcap.read_bytes()
    cut.write_bytes(data[: len(data) * 2 // 3 + 5])
    out = tmp_path / "out"
    r = tcplab_cli("analyze", str(cut), "-o", str(out))
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["anomalies"]["truncated_file"] == 1
    assert "truncated_file=1" in r.stdout


def test_one_unreadable_capture_among_good_ones_is_skipped_and_reported(lossy, tmp_path: Path):
    pcap, _ = lossy
    out = tmp_path / "out"
    r = tcplab_cli("analyze", str(pcap), str(tmp_path / "missing.pcap"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stderr == f"tcplab: skipped: {tmp_path / 'missing.pcap'}: cannot read: no such file\n"
    assert "1 of 2 captures" in r.stdout
    assert json.loads((out / "summary.json").read_text())["anomalies"]["unreadable_files"] == 1


def test_an_unknown_vantage_is_a_usage_error(lossy, tmp_path: Path):
    pcap, _ = lossy
    r = tcplab_cli("analyze", str(pcap), "-o", str(tmp_path / "o"), "--vantage", "nearby")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_a_forced_vantage_is_reported_as_forced(lossy):
    pcap, _ = lossy
    res = analyze(pcap, vantage="middle")
    assert res.summary["positions"] == {"middle/forced": 1}
    assert set(res.connections["vantage_source"].astype(str)) == {"forced"}


def test_the_api_raises_one_documented_error_type():
    with pytest.raises(CaptureError, match="no capture given"):
        analyze([])
    with pytest.raises(CaptureError, match="vantage"):
        analyze("x.pcap", vantage="up")
    with pytest.raises(tcplab.TcplabError):
        analyze("/nonexistent/x.pcap")


def test_a_tlp_sender_s_probes_are_tlp_only_under_a_model_with_tlp(tmp_path: Path):
    """A tail loss on a TLP sender (`tcp.tlp=true`): with `--tlp` the probe is `tlp`, with
    the default model (no TLP) nothing explains it and it is `unknown`, never guessed."""
    sc = tmp_path / "small.toml"
    sc.write_text(SMALL)
    res = tcplab.run(
        sc,
        overrides=["tcp.tlp=true", "flows.0.size=40KB",
                   'links.bottleneck.loss_ab={ model = "drop_nth", flow = 0, nth = [28] }'],
        out=tmp_path / "sim",
        pcap=["access"],
    )
    ev = res.events
    truth = ev[ev["kind"] == "segment_retransmitted"]
    assert list(truth["cause"].astype(str)) == ["tlp"], truth
    pcap = tmp_path / "sim" / "access.pcap"
    with_tlp = tcplab_cli("analyze", str(pcap), "-o", str(tmp_path / "a"), "--model", "rfc", "--tlp")
    assert with_tlp.returncode == 0, with_tlp.stderr
    assert "model rfc+tlp" in with_tlp.stdout
    assert list(pd.read_csv(tmp_path / "a" / "retransmissions.csv")["cause"]) == ["tlp"]
    without = analyze(pcap, model="rfc")
    assert list(without.retransmissions["cause"].astype(str)) == ["unknown"]


def test_the_model_is_an_engine_profile_and_a_wrong_name_is_one_line_exit_2(lossy, tmp_path: Path):
    pcap, _ = lossy
    r = tcplab_cli("analyze", str(pcap), "-o", str(tmp_path / "ok"), "--model", "linux-2.4")
    assert r.returncode == 0, r.stderr
    assert "model linux-2.4" in r.stdout
    bad = tcplab_cli("analyze", str(pcap), "-o", str(tmp_path / "bad"), "--model", "linux-9")
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "--model" in bad.stderr and "linux-2.4" in bad.stderr
