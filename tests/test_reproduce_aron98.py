"""`tcplab reproduce aron98 --quick`: the output contract, Fig 6 equal to the paper, and every
figure has rows."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import tcplab_cli

ROOT = Path(__file__).resolve().parents[1]
FIGURES = {"fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10"}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("aron98")
    r = tcplab_cli("reproduce", "aron98", "--quick", "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_quick_reproduction_writes_the_report_and_results_csv(quick_run):
    assert (quick_run / "report.md").exists()
    with open(quick_run / "results.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0].keys()) == ["figure", "series", "x", "metric", "ours", "paper"]
    assert {r["figure"] for r in rows} == FIGURES
    for fig in FIGURES:
        assert any(r["figure"] == fig and r["ours"] != "" for r in rows), fig
    report = (quick_run / "report.md").read_text()
    for fig in FIGURES:
        assert f"({fig}.png)" in report, fig
        assert (quick_run / f"{fig}.png").exists()


def test_fig6_rto_columns_equal_the_paper(quick_run):
    with open(quick_run / "results.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["figure"] == "fig6"]
    assert {r["series"] for r in rows} == {"rto_o", "rto_b", "rto_nf", "rto_nc"}
    assert len(rows) == 48
    for r in rows:
        assert r["metric"] == "rto_ticks"
        assert 1 <= int(r["x"]) <= 12
        assert r["ours"] == r["paper"], r
