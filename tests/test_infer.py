"""Sender OS inference through the CLI and the Python API (issue 11 part 1): `--model auto`
is the default, its columns are in connections.parquet/.csv, and on the real Linux
captures (tests/fixtures/linux, made by the kernel) no connection is attributed to another
stack. The scoring itself is tested in Rust (crates/tcplab-analyze: src/infer/*.rs,
tests/infer.rs, tests/infer_corpus.rs)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab.analyze import analyze
from conftest import SMALL, tcplab_cli

ROOT = Path(__file__).resolve().parent.parent
LINUX = sorted(p for p in (ROOT / "tests" / "fixtures" / "linux").iterdir() if (p / "sender.pcap").exists())
PROFILES = {"linux", "linux-2.4", "windows-xp", "freebsd-5", "solaris-10", "bsd-lite", "rfc6298"}
MODEL_COLUMNS = {
    "model", "model_confidence", "model_runner_up", "model_candidates", "model_basis", "model_replayed",
    "model_events", "inferred_dupthresh", "inferred_min_rto_ns", "inferred_k", "inferred_rtt_sampling",
    "os_hint_ttl", "os_hint_initial_ttl", "os_hint_window", "os_hint_options", "os_hint_family", "os_hint_os", "os_hint_model",
}
#: Real Linux sender captures: connections with a retransmission that `--model auto` calls
#: `linux` today (issue 11's goal is all of them; the others are `unknown`, never another
#: stack): 8 of 9 since infer6 (first-flight evidence, basis `hint`, the fitted rto_min; 3 before).
#: docs/validation.md, "Sender OS inference".
TODAY_LINUX_NAMED = 8


@pytest.fixture(scope="module")
def lossy(tmp_path_factory) -> Path:
    """A simulated transfer (the engine's default sender, profile rfc6298) with 3 % loss."""
    d = tmp_path_factory.mktemp("lossy-infer")
    sc = d / "small.toml"
    sc.write_text(SMALL)
    tcplab.run(sc, overrides=['links.bottleneck.loss_ab={ model = "bernoulli", p = 0.03 }', "flows.0.size=400KB"],
               out=d, pcap=["access"])
    return d / "access.pcap"


def test_auto_is_the_default_and_its_columns_are_written(lossy, tmp_path: Path):
    out = tmp_path / "an"
    r = tcplab_cli("analyze", str(lossy), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "summary.json").read_text())["model"] == "auto"
    conns = pd.read_csv(out / "connections.csv", keep_default_na=False)
    assert MODEL_COLUMNS <= set(conns.columns)
    row = conns.iloc[0]
    # The sender is the engine's default (rfc6298): named that, or unknown — nothing else.
    assert row["model"] in {"rfc6298", "unknown"}, row.to_dict()
    assert row["model_basis"] in {"replay", "replay+hint", "hint", "tied", "none"}
    assert row["model_replayed"] in PROFILES
    assert row["model_events"] >= 1
    # The simulator writes TTL 64 (p0f: unix family).
    assert (row["os_hint_initial_ttl"], row["os_hint_family"]) == (64, "unix")


def test_a_forced_model_names_itself(lossy):
    conns = analyze(lossy, model="windows-xp").connections
    assert list(conns["model"].astype(str)) == ["windows-xp"]
    assert list(conns["model_basis"].astype(str)) == ["forced"]
    assert conns["model_confidence"].isna().all()


@pytest.mark.parametrize("case", LINUX, ids=[c.name for c in LINUX])
def test_real_linux_senders_are_never_called_another_stack(case: Path):
    conns = analyze(case / "sender.pcap").connections
    for _, c in conns[conns["retransmissions"] > 0].iterrows():
        assert c["model"] in {"linux", "unknown"}, c[["model", "model_candidates", "model_runner_up"]].to_dict()
        # Their SYNs: TTL 64, Linux's option layout, window scale 10 (p0f: Linux 2.6 or later).
        assert c["os_hint_os"] == "linux-2.6+", c[["os_hint_options", "os_hint_initial_ttl"]].to_dict()


def test_real_linux_senders_named_linux_at_today_s_level():
    named = 0
    for case in LINUX:
        conns = analyze(case / "sender.pcap").connections
        named += int(((conns["retransmissions"] > 0) & (conns["model"].astype(str) == "linux")).sum())
    assert named >= TODAY_LINUX_NAMED
