"""`tcplab whatif` and `tcplab.whatif` (003 §IV-C/D): outputs, columns, the report, grid
files and one-line errors. The replay itself is tested in Rust
(crates/tcplab-analyze/tests/whatif.rs)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab.whatif import GridError, whatif
from conftest import SMALL, tcplab_cli

WHATIF_COLUMNS = {
    "capture", "conn_id", "model", "grid_set", "D", "a", "b", "m", "k", "min_rto_ms",
    "rto_to_fr", "fr_to_rto", "spurious_rto_avoided", "spurious_rto_caused", "spurious_fr_avoided",
    "spurious_fr_caused", "rto_detection_delta_s", "delta_duration_s", "delta_rtts", "delta_pct",
    "best_case_s", "best_case_rtts",
}


@pytest.fixture(scope="module")
def lossy(tmp_path_factory) -> Path:
    """A simulated 400 KB transfer with 3 % data loss, captured at the sender's access link."""
    d = tmp_path_factory.mktemp("wlossy")
    sc = d / "small.toml"
    sc.write_text(SMALL)
    tcplab.run(
        sc,
        overrides=['links.bottleneck.loss_ab={ model = "bernoulli", p = 0.03 }', "flows.0.size=400KB"],
        out=d,
        pcap=["access"],
    )
    return d / "access.pcap"


def test_whatif_cli_writes_the_tidy_table_and_the_report(lossy, tmp_path: Path):
    out = tmp_path / "w"
    r = tcplab_cli("whatif", str(lossy), "-o", str(out), "--model", "windows-xp", "--only", "D,k")
    assert r.returncode == 0, r.stderr
    for name in ("whatif.parquet", "whatif.csv", "retransmissions.parquet", "summary.json", "report.md",
                 "table_iv.csv", "table_v.csv", "fig2_detection.png", "fig4_k.png", "fig7_smart_vs_bestcase.png"):
        assert (out / name).is_file(), name
    wi = pd.read_parquet(out / "whatif.parquet")
    assert WHATIF_COLUMNS <= set(wi.columns)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["grid_points"] == 16
    assert len(wi) == summary["connections"] * 16
    report = (out / "report.md").read_text()
    assert "Table IV" in report and "Table V" in report
    t4 = pd.read_csv(out / "table_iv.csv")
    res = pd.read_parquet(out / "retransmissions.parquet")
    assert t4["total"].sum() == len(res)


def test_the_default_grid_is_003s_725_points_and_the_model_itself_changes_nothing(lossy):
    res = whatif(lossy, model="windows-xp")
    wi = res.whatif
    assert res.summary["grid_points"] == 725
    assert len(wi) == res.summary["connections"] * 725
    assert set(wi["grid_set"].astype(str)) == {"rto", "dupthresh", "smart"}
    # Windows XP's own parameters (D = 2, minRTO 200 ms, k = 4, a = 1/4, b = 1/8).
    own = wi[wi["is_model"]]
    assert len(own) >= res.summary["connections"]
    assert (own["delta_duration_s"] == 0).all() and (own["rto_to_fr"] == 0).all()
    assert (wi["best_case_s"] <= 0).all()


def test_only_crosses_the_named_parameters_and_a_grid_file_is_read(lossy, tmp_path: Path):
    res = whatif(lossy, model="rfc6298", only="D,k")
    assert res.summary["grid_points"] == 16
    assert set(res.whatif["k"]) == {2.0, 4.0, 6.0, 8.0}
    g = tmp_path / "g.toml"
    g.write_text('[[point]]\nmin_rto = "200ms"\nk = 2\n[[point]]\nD = "adaptive"\na = "1/2"\n')
    res = whatif(lossy, model="rfc6298", grid=g)
    wi = res.whatif
    assert res.summary["grid_points"] == 2
    assert list(wi["min_rto_ms"][:2]) == [200.0, 1000.0]
    assert list(wi["D"].astype(str)[:2]) == ["3", "adaptive"]
    # RFC 6298's 1 s minimum on a short path: a 200 ms minimum with k = 2 never detects a
    # timeout later.
    assert (wi[wi["min_rto_ms"] == 200.0]["rto_detection_delta_s"] <= 0).all()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--only", "D,x"], "--only: 'x' is not one of"),
        (["--grid", "{grid}"], "point[0].k: '-1' must be a positive fraction"),
        (["--model", "nope"], "--model: \"nope\" is not one of"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(lossy, tmp_path: Path, args, message):
    g = tmp_path / "bad.toml"
    g.write_text('[[point]]\nk = "-1"\n')
    args = [a.replace("{grid}", str(g)) for a in args]
    r = tcplab_cli("whatif", str(lossy), "-o", str(tmp_path / "o"), *args)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_no_readable_capture_is_exit_2(tmp_path: Path):
    r = tcplab_cli("whatif", str(tmp_path / "missing.pcap"), "-o", str(tmp_path / "o"))
    assert r.returncode == 2 and "missing.pcap" in r.stderr
    with pytest.raises(GridError):
        whatif(tmp_path / "x.pcap", grid=tmp_path / "none.toml")


def test_by_default_each_connection_is_replayed_with_its_inferred_model(lossy):
    res = whatif(lossy, only="k")
    wi = res.whatif
    assert res.summary["model"] == "auto"
    assert set(wi["model_source"].astype(str)) <= {"inferred", "best_candidate"}
    assert set(wi["model"].astype(str)) <= {"linux", "linux-2.4", "windows-xp", "freebsd-5", "solaris-10", "bsd-lite", "rfc6298"}
