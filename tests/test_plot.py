"""`tcplab plot`: one-line errors for bad inputs, and a readable figure (title, legends,
hash marks that stay marks on long runs)."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from conftest import tcplab_cli
from tcplab import plot as tplot


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    from conftest import SMALL

    d = tmp_path_factory.mktemp("plot")
    (d / "small.toml").write_text(SMALL)
    r = tcplab_cli("run", str(d / "small.toml"), "-o", str(d / "run"), "-q")
    assert r.returncode == 0, r.stderr
    return d / "run"


def one_line_error(r, *needles: str) -> str:
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("tcplab: error: "), lines[0]
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def test_an_unsupported_image_format_is_one_line_naming_the_formats(small_run: Path, tmp_path: Path):
    r = tcplab_cli("plot", str(small_run), "-o", str(tmp_path / "p.xyz"))
    one_line_error(r, '-o: unsupported image format ".xyz"', ".png", ".pdf", ".svg")
    assert not (tmp_path / "p.xyz").exists()


def test_an_image_path_without_extension_is_one_line(small_run: Path, tmp_path: Path):
    one_line_error(tcplab_cli("plot", str(small_run), "-o", str(tmp_path / "p")), "-o:", "extension", ".png")


def test_a_no_trace_run_says_so(small_scenario: Path, tmp_path: Path):
    out = tmp_path / "nt"
    assert tcplab_cli("run", str(small_scenario), "-o", str(out), "--no-trace", "-q").returncode == 0
    r = tcplab_cli("plot", str(out), "-o", str(tmp_path / "p.png"))
    one_line_error(r, "--no-trace", "re-run")
    assert "--flow" not in r.stderr


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--start", "5", "--end", "2"], "--start 5 must be before --end 2"),
        (["--start", "2", "--end", "2"], "--start 2 must be before --end 2"),
        (["--start", "-5"], "--start: must be a time in seconds ≥ 0"),
        (["--end", "-1"], "--end: must be a time in seconds ≥ 0"),
        (["--end", "0"], "--end 0: must be after the start"),
        (["--start", "nan"], "--start"),
        (["--start", "1000"], "--start 1000: after the flow's last event"),
        (["--flow", "7"], "--flow: no flow 7"),
        (["--flow", "-1"], "--flow: no flow -1"),
    ],
)
def test_bad_ranges_and_flows_are_one_line_errors(small_run: Path, tmp_path: Path, args, needle):
    r = tcplab_cli("plot", str(small_run), "-o", str(tmp_path / "p.png"), *args, warnings=True)
    one_line_error(r, needle)
    assert "Warning" not in r.stderr


def test_a_good_plot_prints_no_warnings(small_run: Path, tmp_path: Path):
    for args in ([], ["--start", "0.2", "--end", "0.5"], ["--start", "0.3"]):
        out = tmp_path / "p.png"
        r = tcplab_cli("plot", str(small_run), "-o", str(out), *args, warnings=True)
        assert r.returncode == 0, r.stderr
        assert r.stderr == "", r.stderr
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_title_names_the_scenario_and_the_endpoints(small_run: Path):
    fig = tplot.flow_figure(small_run, 0)
    try:
        assert fig._suptitle.get_text() == "small: flow 0 (a→b, 200 KB)"
    finally:
        plt.close(fig)


def test_bulk_flow_title_and_legends(tmp_path: Path):
    out = tmp_path / "d"
    r = tcplab_cli("run", "dumbbell", "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr
    fig = tplot.flow_figure(out, 0)
    try:
        assert fig._suptitle.get_text() == "dumbbell: flow 0 (s1→d1, bulk)"
        seq_ax, win_ax, rtt_ax, rug_ax = fig.axes
        labels = {t.get_text() for t in win_ax.get_legend().get_texts()}
        assert "retransmission sent" in labels, labels
        # hash marks live in their own strip with labelled rows; thinned on a long run
        rows = [t.get_text() for t in rug_ax.get_yticklabels()]
        assert rows[0].startswith("sent, 1 in "), rows
        assert rows[1] == "rexmit" and rows[2].startswith("ACK rcvd")
        drawn = sum(len(c.get_segments()) for c in rug_ax.collections)
        assert drawn <= 3 * tplot.RUG_MAX_MARKS
        assert not win_ax.collections or all(
            c.get_label() == "retransmission sent" for c in win_ax.collections
        ), "no unlabelled marks on the KB axis"
        n_sent = json.loads((out / "summary.json").read_text())["flows"][0]["data_segments_sent"]
        assert n_sent > tplot.RUG_MAX_MARKS
    finally:
        plt.close(fig)


def test_rug_rows_are_thinned_above_the_limit_and_untouched_below():
    fig, ax = plt.subplots()
    try:
        assert tplot._rug(ax, 0, np.arange(500) / 100, "black", "sent") == "sent"
        assert len(ax.collections[-1].get_segments()) == 500
        label = tplot._rug(ax, 1, np.arange(5000) / 100, "black", "sent")
        assert label == "sent, 1 in 5"
        assert len(ax.collections[-1].get_segments()) == 1000
    finally:
        plt.close(fig)
