"""`tcplab profiles` and `_core.profiles()`: the profile data reaches Python and the CLI."""

from __future__ import annotations

import json

from conftest import tcplab_cli

from tcplab import _core

PROFILE_NAMES = {"bsd-lite", "bsd-decoupled", "bsd-prop-500ms", "bsd-prop-10ms", "bsd-prop-2ms", "linux-2.4", "windows-xp", "freebsd-5", "solaris-10", "rfc6298", "linux"}
KEYS = {
    "name", "description", "rto_estimator", "rtt_clock", "timer_clock", "fast_timer", "initial_rto",
    "min_rto", "max_rto", "clock_granularity", "rto_gain_a", "rto_gain_b", "rto_m", "rto_k",
    "dupack_threshold", "rtt_sampling", "initial_window", "delayed_ack", "ssthresh_estimation", "pacing",
    "handshake_ack", "cc", "hystart", "abc", "prr", "rack", "tlp", "tlp_pto", "spurious_detection",
    "spurious_response", "frto_require_full_ack", "quickack", "ack_ato", "sack_covers_fin", "linux_rcv_window", "cwnd_undo",
}


def test_profiles_lists_every_profile_with_every_field():
    items = _core.profiles()
    assert {p["name"] for p in items} == PROFILE_NAMES
    for p in items:
        assert set(p) == KEYS, p["name"]


def test_table_i_values_reach_python():
    by_name = {p["name"]: p for p in _core.profiles()}
    sol = by_name["solaris-10"]
    assert (sol["rto_m"], sol["min_rto"], sol["initial_rto"], sol["rto_k"]) == ("5/4", "400ms", "3375ms", "4")
    assert by_name["windows-xp"]["dupack_threshold"] == 2
    assert by_name["windows-xp"]["rtt_sampling"] == "per-flight"
    assert by_name["linux-2.4"]["rtt_sampling"] == "per-ack"
    assert by_name["bsd-lite"]["timer_clock"] == {"kind": "periodic", "period": "500ms", "phase": "0s"}
    assert by_name["bsd-lite"]["fast_timer"] == {"kind": "periodic", "period": "200ms", "phase": "0s"}
    assert by_name["linux"]["initial_window"] == "rfc6928"
    # Linux tcp_data_queue_ofo keys SACK blocks on end_seq, which counts the FIN.
    assert {n for n, p in by_name.items() if p["sack_covers_fin"]} == {"linux"}
    assert {n for n, p in by_name.items() if p["linux_rcv_window"] and p["cwnd_undo"]} == {"linux"}
    # Linux tcp_rcv_synsent_state_process -> tcp_send_ack; 4.4BSD/FreeBSD piggyback.
    assert {n for n, p in by_name.items() if p["handshake_ack"] == "immediate"} == {"linux-2.4", "linux"}
    assert by_name["bsd-lite"]["handshake_ack"] == "piggyback"


def test_a_profile_dict_is_a_valid_tcp_table(small_scenario):
    """Every value is written as a scenario file accepts it."""
    text = small_scenario.read_text()
    for p in _core.profiles():
        tcp = {k: v for k, v in p.items() if k not in ("name", "description")}
        # --set takes TOML values: one override per key.
        overrides = [f"tcp.{k}={_inline(v) if isinstance(v, dict) else json.dumps(v)}" for k, v in tcp.items()]
        spec = _core.load_scenario(text, "t", overrides)
        assert spec.num_flows >= 1


def _inline(d: dict) -> str:
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in d.items()) + " }"


def test_cli_profiles_prints_a_table_and_json():
    r = tcplab_cli("profiles")
    assert r.returncode == 0, r.stderr
    for name in PROFILE_NAMES:
        assert name in r.stdout
    assert "periodic 500ms@0s" in r.stdout
    r = tcplab_cli("profiles", "--json")
    assert r.returncode == 0, r.stderr
    assert {p["name"] for p in json.loads(r.stdout)} == PROFILE_NAMES
