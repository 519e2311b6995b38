"""`tcplab reproduce quickstart`: the output contract and the effects the thesis reports that the
model must show. The protocol itself is tested in Rust (crates/tcplab-tcp/tests/quickstart.rs,
crates/tcplab-netsim/tests/quickstart.rs)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import tcplab_cli


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("quickstart")
    r = tcplab_cli("reproduce", "quickstart", "--quick", "-o", str(out), cwd=out)
    assert r.returncode == 0, r.stderr
    return out


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
