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
    assert res.summary["model_from_scenario"] == {
        "scenario": "small", "models": [{"model": "scenario:small", "flows": [0], "workloads": []}]}
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


def test_flows_with_other_settings_get_their_own_model(tmp_path: Path):
    # The dumbbell's flow 5 asks for the RFC 6928 initial window; flows 0-4 share the rest.
    tcplab.run("dumbbell", out=tmp_path / "run", pcap=["bottleneck"])
    res = analyze([tmp_path / "run" / "bottleneck.pcap"], scenario="dumbbell")
    assert res.summary["model"] == "scenario:dumbbell"
    assert res.summary["model_from_scenario"]["models"] == [
        {"model": "scenario:dumbbell:bulk", "flows": [0, 1, 2, 3, 4], "workloads": []},
        {"model": "scenario:dumbbell:short-iw10", "flows": [5], "workloads": []},
    ]
    # Each connection names its flow's model (flow f has client port 49152 + f).
    conns = res.connections
    flow = conns["client"].astype(str).str.rsplit(":", n=1).str[1].astype(int) - 49152
    expected = ["scenario:dumbbell:short-iw10" if f == 5 else "scenario:dumbbell:bulk" for f in flow]
    assert conns["model"].astype(str).tolist() == expected
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


TWO_PROFILES = """
name = "two-profiles"
[simulation]
duration = "8s"
seed = 3

[[nodes]]
name = "a1"
kind = "host"
[[nodes]]
name = "a2"
kind = "host"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
kind = "host"

[[links]]
a = "a1"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
[[links]]
a = "a2"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
a = "r"
b = "b"
bandwidth = "10Mbps"
delay = "20ms"
queue = "30pkt"
loss = { model = "bernoulli", p = 0.03 }

# Two flows from the same host (told apart by their ports), two senders unlike each other:
# Windows XP retransmits on the 2nd duplicate ACK with a 200 ms minimum RTO, FreeBSD 5 on
# the 3rd with 1.2 s.
[[flows]]
name = "xp"
src = "a1"
dst = "b"
size = "400KB"
tcp = { profile = "windows-xp" }
[[flows]]
name = "bsd"
src = "a1"
dst = "b"
start = "100ms"
size = "400KB"
tcp = { profile = "freebsd-5" }

# Connections of a workload are matched by their hosts.
[[workloads]]
name = "web"
kind = "poisson"
senders = ["a2"]
receivers = ["b"]
mean_interarrival = "1s"
size = { dist = "pareto", mean = "60KB", shape = 1.5 }
stop = "5s"
tcp = { profile = "windows-xp" }
"""


def test_each_connection_is_replayed_with_the_model_of_the_flow_that_sent_it(tmp_path: Path):
    (tmp_path / "two.toml").write_text(TWO_PROFILES)
    run = tmp_path / "run"
    tcplab.run(tmp_path / "two.toml", out=run, pcap=["bottleneck"])
    cap = [run / "bottleneck.pcap"]
    res = analyze(cap, scenario=run)
    assert res.summary["model_from_scenario"]["models"] == [
        {"model": "scenario:two-profiles:xp", "flows": [0], "workloads": ["web"]},
        {"model": "scenario:two-profiles:bsd", "flows": [1], "workloads": []},
    ]
    # The same capture with one forced model for every connection: each profile's own
    # replay of a connection is the reference for the connections that profile sent.
    forced = {p: analyze(cap, model=p) for p in ("windows-xp", "freebsd-5")}
    conns = res.connections.set_index("conn_id")
    port = conns["client"].astype(str).str.rsplit(":", n=1).str[1].astype(int)
    assert len(conns) > 3, "the workload opened connections"
    cols = ["frame", "seq", "cause", "trigger", "spurious"]
    differs = 0
    for cid, p in port.items():
        profile, name = ("freebsd-5", "bsd") if p == 49153 else ("windows-xp", "xp")
        assert conns.loc[cid, "model"] == f"scenario:two-profiles:{name}", (cid, p)
        rows = {m: r.retransmissions[r.retransmissions["conn_id"] == cid][cols].astype(str).values.tolist()
                for m, r in (("scen", res), *forced.items())}
        assert rows["scen"] == rows[profile], (cid, profile)
        other = "windows-xp" if profile == "freebsd-5" else "freebsd-5"
        differs += rows["scen"] != rows[other]
    # The choice mattered: the other profile's replay classifies some connection otherwise.
    assert differs > 0
    # Against the simulator's ground truth, one model per flow is at least as right as any one
    # model for all (measured: 20 of 20 causes, freebsd-5 for all 16 of 20).
    res.write(tmp_path / "scen")
    acc = {}
    for m, r in (("scen", res), *forced.items()):
        r.write(tmp_path / m)
        acc[m] = compare(run, tmp_path / m).scores.set_index("capture").loc["all", "cause_accuracy"]
    assert acc["scen"] >= max(acc["windows-xp"], acc["freebsd-5"]) and acc["scen"] > min(acc.values()), acc
