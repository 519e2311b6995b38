"""The real-kernel harness's root-free parts (validation/linux): the simulator side of the
comparison and the bookkeeping the ground truth rests on. The harness itself needs root and
is not run here; its results are checked through tests/test_linux_fixtures.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

import tcplab

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation" / "linux"))

import forwarder  # noqa: E402
import simulate  # noqa: E402
import truth  # noqa: E402
from scenarios import BY_NAME, SCENARIOS  # noqa: E402


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda s: s.name)
def test_every_scenario_gives_a_toml_the_loader_accepts(sc, tmp_path):
    # a renamed or removed key in the scenario loader breaks the comparison: caught here
    p = tmp_path / f"{sc.name}.toml"
    p.write_text(simulate.toml_for(sc, [3, 5, 8], ["tlp = false"] if sc.name == "tail-loss-no-tlp" else []))
    assert tcplab.load_scenario(p).name == f"linux-{sc.name}"


def test_segment_copies_counts_copies_of_mss_segments():
    copies: dict = {}
    assert forwarder.segment_copies(1, 1448, 1448, copies) == [(1, 0)]
    assert forwarder.segment_copies(1449, 1448, 1448, copies) == [(2, 0)]
    # a retransmission of both, collapsed into one packet: second copy of each
    assert forwarder.segment_copies(1, 2896, 1448, copies) == [(1, 1), (2, 1)]
    # starts inside segment 1 and ends before segment 2: a copy of no segment
    assert forwarder.segment_copies(2, 1447, 1448, copies) == []
    assert copies == {1: 2, 2: 2}


def test_intervals_union_and_cover():
    iv = truth.Intervals()
    iv.add(1, 100)
    iv.add(200, 300)
    assert not iv.covers(50, 250)
    iv.add(100, 200)  # touching ranges merge
    assert iv.covers(50, 250) and iv.starts == [1] and iv.ends == [300]
    assert not iv.covers(0, 10) and not iv.covers(299, 301)


def test_lost_retransmission_drops_the_requested_copies_in_the_simulator(tmp_path):
    # drop_nth counts occurrences; the harness finds the occurrence of "segment 300, copy 1"
    # by re-running until it settles. The simulator must then lose exactly those two copies.
    sc = BY_NAME["lost-retransmission"]
    res = simulate.simulate(sc, tmp_path)
    assert res["passes"] >= 2 and len(res["drop_nth"]) == 2
    ev = pd.read_parquet(tmp_path / "sim" / "out" / "events.parquet")
    drops = ev[(ev.kind == "packet_dropped") & (ev["len"] > 0)]
    assert list(drops["seq"].astype(int)) == [299 * sc.mss + 1] * 2
