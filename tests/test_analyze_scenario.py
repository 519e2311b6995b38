"""The analyzer's sender model taken from the scenario that made the capture (issue 14
part 6): ``tcplab analyze --scenario RUN_DIR|FILE`` and ``tcplab compare RUN_DIR`` without an
analysis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcplab
from tcplab.analyze import analyze
from tcplab.compare import compare

from conftest import SMALL, tcplab_cli

LOSSY = SMALL.replace('queue = "20pkt"', 'queue = "20pkt"\nloss = { model = "bernoulli", p = 0.02 }')


@pytest.fixture(scope="module")
def lossy_run(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("scen")
    (d / "lossy.toml").write_text(LOSSY)
    # The run's senders are not the analyzer's default model: they wait for 6 duplicate ACKs.
    tcplab.run(d / "lossy.toml", out=d / "run", pcap=["access"], overrides=["tcp.dupack_threshold=6"])
    return d / "run"


def test_the_model_comes_from_the_run_directory_provenance(lossy_run: Path, tmp_path: Path):
    res = analyze([lossy_run / "access.pcap"], scenario=lossy_run, out=tmp_path / "scen")
    assert res.summary["model"] == "scenario:small"
    assert res.summary["model_from_scenario"] == {"scenario": "small", "other_flows": []}
    # The provenance carries the run's override, so the replay waits for 6 duplicate ACKs as
    # the sender did, and classifies otherwise than the RFC default (3) ...
    rfc = analyze([lossy_run / "access.pcap"], model="rfc", out=tmp_path / "rfc")
    cols = ["seq", "cause", "spurious"]
    assert (res.retransmissions[cols].astype(str).values.tolist()
            != rfc.retransmissions[cols].astype(str).values.tolist())
    # ... and closer to the simulator's ground truth (5 of 5 causes right against 3 of 5 when written).
    acc = {m: compare(lossy_run, tmp_path / m).scores.set_index("capture").loc["all", "cause_accuracy"]
           for m in ("scen", "rfc")}
    assert acc["scen"] > acc["rfc"], acc


def test_flows_with_other_settings_are_named(tmp_path: Path):
    # The dumbbell's flow 5 asks for the RFC 6928 initial window; flows 0-4 share the rest.
    tcplab.run("dumbbell", out=tmp_path / "run", pcap=["bottleneck"])
    res = analyze([tmp_path / "run" / "bottleneck.pcap"], scenario="dumbbell")
    assert res.summary["model"] == "scenario:dumbbell"
    assert res.summary["model_from_scenario"]["other_flows"] == [5]
    # The shipped file and the run directory name the same scenario.
    again = analyze([tmp_path / "run" / "bottleneck.pcap"], scenario=tmp_path / "run")
    assert again.retransmissions.equals(res.retransmissions)


def test_compare_without_an_analysis_analyses_with_the_runs_senders(lossy_run: Path, tmp_path: Path):
    analyze([lossy_run / "access.pcap"], scenario=lossy_run, out=tmp_path / "an")
    expected = compare(lossy_run, tmp_path / "an")
    assert expected.model == "scenario:small"
    r = tcplab_cli("compare", str(lossy_run), "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["model"] == "scenario:small"
    assert j["scores"] == json.loads(tcplab_cli("compare", str(lossy_run), str(tmp_path / "an"), "--json").stdout)["scores"]
    text = tcplab_cli("compare", str(lossy_run)).stdout
    assert text.splitlines()[0] == "analysis replayed sender model scenario:small"


def test_analyze_cli_takes_a_scenario_and_refuses_it_with_a_model(lossy_run: Path, tmp_path: Path):
    r = tcplab_cli("analyze", str(lossy_run / "access.pcap"), "-o", str(tmp_path / "a"), "--scenario", str(lossy_run))
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["model"] == "scenario:small"
    r = tcplab_cli("analyze", str(lossy_run / "access.pcap"), "-o", str(tmp_path / "b"), "--scenario",
                   str(lossy_run), "--model", "linux")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--scenario" in r.stderr, r.stderr
    r = tcplab_cli("analyze", str(lossy_run / "access.pcap"), "-o", str(tmp_path / "c"), "--scenario", str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not a tcplab run directory" in r.stderr, r.stderr
    # A file that is not a scenario (here the capture itself) is named, not just its first key.
    cap = lossy_run / "access.pcap"
    r = tcplab_cli("analyze", str(cap), "-o", str(tmp_path / "d"), "--scenario", str(cap))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and str(cap) in r.stderr, r.stderr
    notes = tmp_path / "notes.toml"
    notes.write_text('title = "not a scenario"\n')
    r = tcplab_cli("analyze", str(cap), "-o", str(tmp_path / "e"), "--scenario", str(notes))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and f"{notes}: not a usable scenario" in r.stderr, r.stderr
