"""`tcplab reproduce quickstart`: the output contract and the effects the thesis reports that the
model must show. The protocol itself is tested in Rust (crates/tcplab-tcp/tests/quickstart.rs,
crates/tcplab-netsim/tests/quickstart.rs)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import reproduce_quick


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> Path:
    return reproduce_quick(tmp_path_factory, "quickstart")


def values(out: Path) -> dict[tuple[str, str, str, str], str]:
    with open(out / "results.csv", newline="") as fh:
        rd = csv.reader(fh)
        assert next(rd) == ["figure", "series", "x", "metric", "ours", "paper"]
        return {(f, s, x, m): o for f, s, x, m, o, _ in rd}


def test_quick_reproduction_writes_report_and_results(quick_run: Path):
    assert (quick_run / "report.md").read_text().startswith("# Reproduction:")
    v = values(quick_run)
    assert v[("eq6.2", "W=3", "30", "rtts")] == "4"
    assert v[("eq6.2", "W=25", "30", "rtts")] == "2"


def test_quick_start_shortens_the_30_packet_transfer(quick_run: Path):
    # Fig 6.2: "just over half the time"; an approved request can only help on an idle path.
    ratio = float(values(quick_run)[("fig6.2", "qs/slowstart", "30", "completion_ratio")])
    assert 0.3 < ratio < 0.75


def test_qsthresh_avoids_the_overshoot_losses_of_fig_7_2(quick_run: Path):
    v = values(quick_run)
    assert float(v[("fig7.2", "qsthresh", "188000", "losses")]) == 0
    assert float(v[("fig7.2", "none", "188000", "losses")]) > 0


def test_web_traffic_figures_are_in_the_results(quick_run: Path):
    v = values(quick_run)
    # Fig 6.7: the same web workload with and without Quick-Start: utilisation about the same.
    u0 = float(v[("fig6.7", "noqs", "3", "utilisation")])
    u1 = float(v[("fig6.7", "qs", "3", "utilisation")])
    assert 0.02 < u0 < 1.0 and abs(u1 - u0) < 0.05
    assert 0 < float(v[("fig6.7", "qs", "3", "qs_bytes_frac")]) < 1
    # Fig 6.5: ideal requests are approved more often than static 2 MB/s ones.
    assert float(v[("fig6.5", "ideal", "3", "approved_frac")]) > float(v[("fig6.5", "static", "3", "approved_frac")])
    # Fig 6.8: per-object speedups exist for the medium class on the fast path.
    assert float(v[("fig6.8", "qs-100Mbps", "100", "speedup")]) > 1.0
    # Fig 6.8's diagnosis rows: fractions, and the largest approval 0.9 of the link allows on the
    # 40 kbit/s * 2^N grid (10 Mb/s: 0.9 * 1,250,000 B/s -> N = 7 = 640,000 B/s).
    assert v[("fig6.8", "qs-10Mbps", "medium", "cap_Bps")] == "640000"
    assert 0 <= float(v[("fig6.8", "qs-10Mbps", "medium", "medium_approved")]) <= 1
    for key in ("fig6.11", "fig6.12", "fig6.13", "fig6.14", "fig6.15", "fig6.16", "fig6.17", "fig6.6", "fig7.1"):
        assert any(k[0] == key for k in v), key


def test_fig_7_2_explains_none_by_the_baseline_loss_recovery(quick_run: Path):
    # Without SACK the overshoot's losses need the retransmission timer, as in the thesis's 1.6 s.
    v = values(quick_run)
    assert float(v[("fig7.2", "none-reno", "188000", "timeouts")]) >= 1
    assert float(v[("fig7.2", "none-reno", "188000", "completion_s")]) > 2 * float(v[("fig7.2", "none", "188000", "completion_s")])
