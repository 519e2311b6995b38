"""`tcplab plot ANALYZE_DIR`: the time-sequence graph of an analyzed capture (marks equal the
analyzer's rows, SACK blocks and duplicate ACKs by their RFC definitions) and the richer
simulation plot (drops, receive window, RTT/RTO panel, a time axis that fits the flow)."""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import tcplab
from conftest import ROOT, SMALL
from tcplab.analyze import analyze
from tcplab.plot import capture as pc
from tcplab.plot import run as pr

BURST = ROOT / "tests" / "fixtures" / "linux" / "burst-loss" / "sender.pcap"


@pytest.fixture(scope="module")
def analysis(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("an")
    pcap = d / "sender.pcap"
    shutil.copy(BURST, pcap)
    analyze([str(pcap)], out=d / "an")
    return d / "an"


def labelled(ax, prefix: str) -> int:
    """Points drawn by the scatter collections whose label starts with ``prefix``."""
    return sum(len(c.get_offsets()) for c in ax.collections if c.get_label().startswith(prefix))


def test_capture_graph_marks_every_retransmission_with_its_cause_and_draws_sacks(analysis: Path):
    rex = pd.read_parquet(analysis / "retransmissions.parquet")
    assert len(rex) > 0
    fig, what = pc.capture_figure(analysis)
    try:
        ax1, ax_rtt, ax_rug = fig.axes
        assert "connection 0" in fig._suptitle.get_text() and "capture at the sender" in fig._suptitle.get_text()
        assert labelled(ax1, "retransmit:") == len(rex)
        for cause, n in rex["cause"].value_counts().items():
            assert labelled(ax1, f"retransmit: {cause}") == n, cause
        packets, sacks = pc.read_packets(Path(rex["capture"].iloc[0]), 0)
        sack_coll = [c for c in ax1.collections if c.get_label() == "SACK block"]
        assert len(sack_coll) == 1 and len(sack_coll[0].get_segments()) == len(sacks) > 0
        labels = {t.get_text() for t in ax1.get_legend().get_texts()}
        assert {"ACK", "receive window", "duplicate ACK", "segment"} <= labels
        # the axis fits the connection: 0 to its last packet, with the margin
        last = (packets["ts_ns"].max() - packets["ts_ns"].min()) / 1e9
        assert ax_rug.get_xlim() == pytest.approx((0.0, last * 1.02))
        assert len(ax_rtt.get_lines()) >= 2  # Karn samples and the analyzer's RTT lines
    finally:
        plt.close(fig)
    fig, _ = pc.capture_figure(analysis, 0, 0.28, 0.36)
    try:
        assert fig.axes[-1].get_xlim() == (0.28, 0.36)
        inside = rex[((rex["ts_ns"] - packets["ts_ns"].min()) / 1e9).between(0.28, 0.36)]
        assert labelled(fig.axes[0], "retransmit:") == len(inside)
    finally:
        plt.close(fig)


def test_packets_table_agrees_with_the_analyzer(analysis: Path):
    rex = pd.read_parquet(analysis / "retransmissions.parquet")
    packets, _ = pc.read_packets(Path(rex["capture"].iloc[0]), 0)
    joined = rex.merge(packets, on="frame", suffixes=("", "_p"))
    assert len(joined) == len(rex)
    assert (joined["seq"] == joined["seq_p"]).all() and (joined["len"] == joined["len_p"]).all()
    # RFC 7323: the SYN's window is not scaled, later ones are (the capture negotiated scaling)
    syn = packets[packets["kind"].astype(str) == "syn"].iloc[0]
    later = packets[(packets["kind"].astype(str) == "data")].iloc[0]
    assert syn["rwnd"] == syn["win"] and later["rwnd"] > later["win"]


def ack_frame(rows):
    return pd.DataFrame(rows, columns=["ts_ns", "kind", "len", "ack", "win"])


def test_duplicate_acks_follow_rfc5681_definition():
    data = pd.DataFrame({"ts_ns": [0, 1, 2], "seq": [1, 1001, 2001], "len": [1000, 1000, 1000]})
    acks = ack_frame([
        (10, "ack", 0, 1001, 100),   # new ACK
        (11, "ack", 0, 1001, 100),   # duplicate
        (12, "ack", 0, 1001, 200),   # window update: not a duplicate
        (13, "ack", 5, 1001, 200),   # carries data: not a duplicate
        (14, "ack", 0, 1001, 200),   # duplicate (same ack and window as the previous packet)
        (15, "ack", 0, 3001, 200),
        (16, "ack", 0, 3001, 200),   # nothing outstanding: not a duplicate
    ])
    assert pc.duplicate_acks(acks, data)["ts_ns"].tolist() == [11, 14]


def test_karn_samples_skip_retransmitted_segments():
    data = pd.DataFrame({"ts_ns": [0, 1_000_000, 2_000_000, 50_000_000],
                         "seq": [1, 1001, 2001, 1001], "len": [1000, 1000, 1000, 1000]})
    acks = ack_frame([(20_000_000, "ack", 0, 1001, 9), (80_000_000, "ack", 0, 2001, 9),
                      (81_000_000, "ack", 0, 3001, 9)])
    s = pc.rtt_samples(acks, data)
    assert s["ts_ns"].tolist() == [20_000_000, 81_000_000]
    assert s["rtt_s"].tolist() == pytest.approx([0.020, 0.079])


def test_capture_plot_errors_are_one_line(analysis: Path, tmp_path: Path):
    with pytest.raises(tcplab.ScenarioError, match=r"--conn: no connection 5 \(the analysis has 1: 0\)"):
        pc.capture_figure(analysis, 5)
    moved = tmp_path / "an"
    shutil.copytree(analysis, moved)
    (moved / "connections.parquet").unlink()
    with pytest.raises(tcplab.ScenarioError, match="connections.parquet: missing"):
        pc.capture_figure(moved)


def test_cli_draws_an_analysis_and_refuses_flow(analysis: Path, tmp_path: Path):
    # In-process (click's runner): the dispatch between run and analysis directories.
    from click.testing import CliRunner

    from tcplab.cli import main

    out = tmp_path / "c.png"
    r = CliRunner().invoke(main, ["plot", str(analysis), "-o", str(out), "--start", "0.2"])
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "connection 0" in r.output
    r = CliRunner().invoke(main, ["plot", str(analysis), "-o", str(out), "--flow", "1"])
    assert r.exit_code == 2 and "--conn" in r.output
    r = CliRunner().invoke(main, ["plot", str(tmp_path / "nowhere"), "-o", str(out), "--conn", "1"])
    assert r.exit_code == 2 and "nowhere: no such directory" in r.output


@pytest.fixture(scope="module")
def lossy_run(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("run")
    (d / "s.toml").write_text(SMALL)
    tcplab.run(d / "s.toml", seed=3, out=d / "run", overrides=[
        'links.bottleneck.loss={ model = "bernoulli", p = 0.03 }', "flows.0.start=2s"])
    return d / "run"


def test_run_graph_shows_drops_retransmissions_rwnd_and_fits_the_flow(lossy_run: Path):
    ev = pd.read_parquet(lossy_run / "events.parquet")
    ev = ev[ev["flow"] == 0]
    kind = ev["kind"].astype(str)
    drops = ev[(kind == "packet_dropped") & (ev["len"] > 0)]
    rex = ev[kind == "segment_retransmitted"]
    assert len(drops) > 0 and len(rex) > 0
    fig = pr.flow_figure(lossy_run, 0)
    try:
        ax1, ax2, ax_rtt, ax_rug = fig.axes
        assert labelled(ax1, "data dropped") == len(drops)
        assert labelled(ax1, "retransmit:") == len(rex)
        labels = {t.get_text() for t in ax1.get_legend().get_texts()}
        assert "receive window (64 KB)" in labels, labels
        first, last = ev["t_ns"].min() / 1e9, ev["t_ns"].max() / 1e9
        lo, hi = ax_rug.get_xlim()
        assert first >= 2.0 and lo == pytest.approx(first - 0.02 * (last - first))
        assert hi == pytest.approx(last + 0.02 * (last - first))
        rtt_labels = {l.get_label() for l in ax_rtt.get_lines()}
        assert {"RTT sample", "SRTT", "RTO"} <= rtt_labels
        # RTO ≥ 200 ms over RTTs of ~40 ms: a log axis, so the RTTs are not a flat line
        ts = pd.read_parquet(lossy_run / "timeseries.parquet")
        assert ts["rto_ns"].max() > pr.RTT_PANEL_LOG_RATIO * ts["srtt_ns"][ts["srtt_ns"] > 0].median()
        assert ax_rtt.get_yscale() == "log"
    finally:
        plt.close(fig)
    # --start/--end win over the fitted axis
    fig = pr.flow_figure(lossy_run, 0, 2.1, 2.4)
    try:
        assert fig.axes[-1].get_xlim() == (2.1, 2.4)
    finally:
        plt.close(fig)


def test_run_duplicate_acks_need_outstanding_data():
    acks = pd.DataFrame({"t_ns": [10, 11, 12, 13], "ack": [1001, 1001, 2001, 2001]})
    sent = pd.DataFrame({"t_ns": [0, 1], "seq": [1, 1001], "len": [1000, 1000]})
    assert pr.duplicate_acks(acks, sent)["t_ns"].tolist() == [11]
    assert np.isclose(pr.receive_window({"provenance": {"scenario": '[[flows]]\ntcp = { recv_buffer = "100000B", '
                                                                     'window_scale = false }'}}, 0), 65535)
