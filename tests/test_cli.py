"""The CLI as a user runs it: outputs, exit codes, error lines."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import SCENARIOS, SMALL, tcplab_cli

SUMMARY_KEYS = {"tcplab_version", "scenario", "seed", "sim_time_s", "events", "wall_s", "flows"}
FLOW_KEYS = {
    "id", "src", "dst", "bytes_requested", "bytes_delivered", "start_s", "fct_s", "goodput_bps",
    "data_segments_sent", "retransmissions", "retransmissions_by_cause",
    "spurious_retransmissions", "timeouts",
}
EVENT_COLUMNS = {"t_ns", "flow", "kind", "seq", "len", "ack", "cause", "spurious"}
TIMESERIES_COLUMNS = {"t_ns", "flow", "cwnd", "ssthresh", "bytes_in_flight", "srtt_ns", "rttvar_ns", "rto_ns"}


def test_run_writes_summary_tables_and_a_plot(small_scenario: Path, tmp_path: Path):
    out = tmp_path / "out"
    r = tcplab_cli("run", str(small_scenario), "-o", str(out), "--pcap", "bottleneck")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert SUMMARY_KEYS <= summary.keys()
    (flow,) = summary["flows"]
    assert FLOW_KEYS <= flow.keys()
    assert {"rto", "fast_retransmit", "sack_recovery"} <= flow["retransmissions_by_cause"].keys()
    assert flow["bytes_requested"] == 200_000
    assert flow["bytes_delivered"] == 200_000
    assert flow["fct_s"] is not None and 0 < flow["fct_s"] < 5
    assert EVENT_COLUMNS <= set(pq.read_schema(out / "events.parquet").names)
    assert TIMESERIES_COLUMNS <= set(pq.read_schema(out / "timeseries.parquet").names)
    assert pq.read_table(out / "flows.parquet").num_rows == 1

    r = tcplab_cli("plot", str(out), "--flow", "0", "-o", str(out / "flow0.png"))
    assert r.returncode == 0, r.stderr
    assert (out / "flow0.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _pcap_ip_packets(path: Path) -> list[bytes]:
    """Minimal independent pcap reader: the IP packet (as captured) of every record."""
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    linktype = struct.unpack("<I", data[20:24])[0]
    assert linktype in (1, 101), linktype
    l2 = 14 if linktype == 1 else 0
    off, pkts = 24, []
    while off < len(data):
        _sec, _frac, incl, orig = struct.unpack("<IIII", data[off : off + 16])
        assert incl <= orig
        pkts.append(data[off + 16 + l2 : off + 16 + incl])
        off += 16 + incl
    assert off == len(data), "no trailing garbage"
    return pkts


def test_pcap_of_a_link_holds_ipv4_tcp_packets_of_both_directions(small_scenario: Path, tmp_path: Path):
    out = tmp_path / "out"
    r = tcplab_cli("run", str(small_scenario), "-o", str(out), "--pcap", "bottleneck")
    assert r.returncode == 0, r.stderr
    pkts = _pcap_ip_packets(out / "bottleneck.pcap")
    assert len(pkts) > 100
    for ip in pkts:
        assert ip[0] >> 4 == 4 and ip[9] == 6, "IPv4 carrying TCP"
    ihl = (pkts[0][0] & 0xF) * 4
    assert pkts[0][ihl + 13] & 0x02, "the first packet on the bottleneck is the SYN"
    sources = {ip[12:16] for ip in pkts}
    assert len(sources) == 2, "both directions are captured"


def test_unknown_pcap_link_is_a_one_line_error(small_scenario: Path, tmp_path: Path):
    r = tcplab_cli("run", str(small_scenario), "-o", str(tmp_path / "o"), "--pcap", "nosuchlink")
    assert r.returncode == 2
    assert "nosuchlink" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


BAD = [
    ("malformed toml", SMALL.replace('name = "small"', 'name = "small'), "line"),
    ("unknown key", SMALL.replace('bandwidth = "10Mbps"', 'bandwdith = "10Mbps"'), "bandwidth"),
    ("bare number", SMALL.replace('delay = "20ms"', "delay = 20"), "delay"),
    ("wrong unit", SMALL.replace('delay = "20ms"', 'delay = "20 parsecs"'), "delay"),
    ("ambiguous mbps", SMALL.replace('"10Mbps"', '"10mbps"'), "ambiguous"),
    ("zero duration", SMALL.replace('duration = "5s"', 'duration = "0s"'), "duration"),
    ("unknown node", SMALL.replace('dst = "b"', 'dst = "nowhere"'), "nowhere"),
    ("negative size", SMALL.replace('size = "200KB"', 'size = "-5KB"'), "size"),
]


@pytest.mark.parametrize("label,text,needle", BAD, ids=[b[0] for b in BAD])
def test_bad_scenarios_exit_2_with_one_line_naming_the_problem(tmp_path: Path, label, text, needle):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    r = tcplab_cli("run", str(p), "-o", str(tmp_path / "o"))
    assert r.returncode == 2, (label, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert needle in lines[0], lines[0]
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr


def test_no_route_is_a_one_line_error(tmp_path: Path):
    text = SMALL.replace('[[links]]\nname = "bottleneck"\na = "r"\nb = "b"', '[[links]]\nname = "bottleneck"\na = "r"\nb = "r2"')
    text = text.replace('[[nodes]]\nname = "b"', '[[nodes]]\nname = "r2"\nkind = "router"\n[[nodes]]\nname = "b"')
    p = tmp_path / "noroute.toml"
    p.write_text(text)
    r = tcplab_cli("run", str(p), "-o", str(tmp_path / "o"))
    assert r.returncode == 2, r.stderr
    assert "route" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_missing_scenario_file_is_exit_2(tmp_path: Path):
    r = tcplab_cli("run", str(tmp_path / "nope.toml"), "-o", str(tmp_path / "o"))
    assert r.returncode == 2
    assert "nope.toml" in r.stderr and "Traceback" not in r.stderr


def test_bad_override_names_the_path(small_scenario: Path, tmp_path: Path):
    r = tcplab_cli("run", str(small_scenario), "-o", str(tmp_path / "o"), "--set", "links.bottleneck.colour=red")
    assert r.returncode == 2
    assert "colour" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_override_changes_the_run(small_scenario: Path, tmp_path: Path):
    r = tcplab_cli("run", str(small_scenario), "-o", str(tmp_path / "o"), "--set", "flows.0.size=50KB")
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["flows"][0]["bytes_delivered"] == 50_000


def test_plot_of_a_missing_flow_is_a_one_line_error(small_scenario: Path, tmp_path: Path):
    out = tmp_path / "o"
    assert tcplab_cli("run", str(small_scenario), "-o", str(out)).returncode == 0
    r = tcplab_cli("plot", str(out), "--flow", "9", "-o", str(tmp_path / "x.png"))
    assert r.returncode == 2 and "flow" in r.stderr and "Traceback" not in r.stderr


def test_every_shipped_scenario_validates():
    shipped = sorted(SCENARIOS.glob("*.toml"))
    assert {p.name for p in shipped} >= {"dumbbell.toml", "aron98-fig1.toml", "aron98-fig2.toml"}
    for p in shipped:
        r = tcplab_cli("check", str(p))
        assert r.returncode == 0, (p, r.stderr)


def test_aron98_fig1_runs_8_flows_with_plausible_goodput(tmp_path: Path):
    out = tmp_path / "fig1"
    r = tcplab_cli("run", str(SCENARIOS / "aron98-fig1.toml"), "-o", str(out), "--no-trace")
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    flows = s["flows"]
    assert len(flows) == 8
    total = sum(f["goodput_bps"] for f in flows)
    # 8 senders share a 155 Mb/s bottleneck: together they cannot exceed it, and TCP in
    # 30 s of a 60 ms RTT path gets a good share of it.
    assert 0.3 * 155e6 < total <= 155e6, total
    assert all(f["goodput_bps"] > 0 for f in flows)


def test_schema_is_json_schema():
    r = tcplab_cli("schema")
    assert r.returncode == 0
    schema = json.loads(r.stdout)
    assert "properties" in schema and "links" in schema["properties"]


def test_bench_json_prints_one_object_per_case():
    r = tcplab_cli("bench", "--json", "--case", "1x100M")
    assert r.returncode == 0, r.stderr
    (line,) = r.stdout.strip().splitlines()
    obj = json.loads(line)
    assert set(obj) == {
        "case", "flows", "bottleneck_bps", "sim_s", "packets", "wall_s", "packets_per_s", "events_per_s",
        "hops", "ns_per_packet", "ns_per_hop",
    }
    assert obj["case"] == "1x100M" and obj["flows"] == 1 and obj["bottleneck_bps"] == 100_000_000
    # a 100 Mb/s bottleneck for 20 s carries at most 100e6*20/8/1500 packets of 1500 bytes
    assert 0.5 * 100e6 * 20 / 8 / 1500 < obj["packets"] <= 100e6 * 20 / 8 / 1500 * 1.01
    # the second denominator: each data packet crosses three links (access, bottleneck,
    # access) and its ACKs come back, so hops exceed three per bottleneck data packet
    assert 3 * obj["packets"] < obj["hops"] < 6 * obj["packets"]
    assert obj["ns_per_hop"] < obj["ns_per_packet"]


def test_unknown_bench_case_is_exit_2():
    r = tcplab_cli("bench", "--case", "nope")
    assert r.returncode == 2 and "nope" in r.stderr


def test_shipped_scenarios_are_installed_with_the_package_and_run_by_name(tmp_path: Path):
    import tcplab.scenarios as shipped

    assert set(shipped.names()) == {p.stem for p in SCENARIOS.glob("*.toml")}
    assert shipped.path("dumbbell").parent == shipped.DIR
    r = tcplab_cli("run", "dumbbell", "-o", str(tmp_path / "o"), "--no-trace", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["scenario"] == "dumbbell"
    r = tcplab_cli("scenarios")
    assert r.returncode == 0 and "gprs" in r.stdout


def test_an_unknown_scenario_name_lists_the_shipped_ones(tmp_path: Path):
    r = tcplab_cli("run", "dumbel", "-o", str(tmp_path / "o"), cwd=tmp_path)
    assert r.returncode == 2 and "dumbbell" in r.stderr and len(r.stderr.strip().splitlines()) == 1
