"""`tcplab reproduce rewaskar --quick`: the output contract, every table and figure of 003
present with the paper's numbers beside ours, and what holds by construction. The replay is
tested in Rust (crates/tcplab-analyze/tests/whatif.rs)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import reproduce_quick, results_rows

FIGURES = ["table4", "table5", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> Path:
    return reproduce_quick(tmp_path_factory, "rewaskar", "--runs", "1")


rows = results_rows


def test_quick_reproduction_writes_the_report_and_results_with_the_shared_columns(quick_run: Path):
    with open(quick_run / "results.csv", newline="") as fh:
        assert next(csv.reader(fh)) == ["figure", "series", "x", "metric", "ours", "paper"]
    text = (quick_run / "report.md").read_text()
    assert text.startswith("# Reproduction:") and "simulated" in text
    for png in ("fig2_detection.png", "fig3_bestcase.png", "fig4_k.png", "fig5_minrto_a_d.png", "fig6_smart.png",
                "fig7_smart_vs_bestcase.png"):
        assert (quick_run / "whatif" / png).is_file(), png


def test_every_table_and_figure_is_present_with_the_paper_beside_ours(quick_run: Path):
    rs = rows(quick_run)
    assert {r["figure"] for r in rs} >= set(FIGURES)
    t4 = [r for r in rs if r["figure"] == "table4" and r["metric"] == "pct" and r["paper"]]
    assert t4, "Table IV rows with the paper's numbers"
    # Each OS's four Table IV shares and the undecided share add up to 100 % of its
    # retransmissions (every retransmission is RTO or FR/R or counted apart).
    by_os: dict[str, float] = {}
    for r in rs:
        if r["figure"] == "table4" and r["metric"] == "pct":
            by_os[r["series"]] = by_os.get(r["series"], 0.0) + float(r["ours"])
    assert all(v <= 100.0 + 1e-3 for v in by_os.values()), by_os  # results.csv keeps 6 significant digits
