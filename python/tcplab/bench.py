"""``tcplab bench``: the simulator speed suite.

Each case is a dumbbell built in Rust (``tcplab_netsim::bench``); it runs with tracing off.
Reported per case: simulated bottleneck packets (data direction), wall seconds, packets per
wall-second and events per wall-second. Wall time is measured here, around the call into
the core; the simulator itself never reads a clock.

Cost per packet has two denominators (docs/design.md, "'Per packet' has two denominators";
the Rust ``bench_run`` prints the same two): *bottleneck data packets* (``packets``) and
*packet-hops* (``hops``: every packet that started transmission on any link direction, data,
ACKs and control, counted once per link, the sum of every link's ``packets_ab`` and
``packets_ba``). ``ns_per_packet`` and ``ns_per_hop`` divide the wall time by each.
"""

from __future__ import annotations

import json
import time

import click

from . import _core
from .errors import ScenarioError


def run_case(name: str) -> dict:
    try:
        spec = _core.bench_spec(name)
    except _core.ScenarioError as e:
        raise ScenarioError(str(e)) from None
    t0 = time.perf_counter()
    raw = _core.run(spec, 1, False, [])
    wall = time.perf_counter() - t0
    summary = json.loads(raw.summary_json)
    link = next(l for l in summary["links"] if l["name"] == "bottleneck")
    packets = int(link["packets_ab"])
    hops = sum(int(l["packets_ab"]) + int(l["packets_ba"]) for l in summary["links"])
    bottleneck_bps = next(
        (l.get("bandwidth_bps") for l in summary["links"] if l["name"] == "bottleneck"), None
    )
    return {
        "case": name,
        "flows": len(summary["flows"]),
        "bottleneck_bps": bottleneck_bps,
        "sim_s": summary["sim_time_s"],
        "packets": packets,
        "wall_s": wall,
        "packets_per_s": packets / wall if wall > 0 else float("inf"),
        "events_per_s": summary["events"] / wall if wall > 0 else float("inf"),
        "hops": hops,
        "ns_per_packet": wall * 1e9 / packets if packets else float("inf"),
        "ns_per_hop": wall * 1e9 / hops if hops else float("inf"),
    }


def run_bench(cases: list[str] | None, as_json: bool) -> list[dict]:
    names = cases or list(_core.bench_cases())
    for name in names:  # every name checked before the header goes out
        try:
            _core.bench_spec(name)
        except _core.ScenarioError as e:
            raise ScenarioError(str(e)) from None
    results = []
    if not as_json:
        click.echo(
            f"{'case':<13} {'flows':>6} {'sim_s':>6} {'packets':>11} {'hops':>11} {'wall_s':>8} {'pkts/s':>12} "
            f"{'events/s':>12} {'ns/packet':>10} {'ns/hop':>8}"
        )
    for name in names:
        r = run_case(name)
        results.append(r)
        if as_json:
            click.echo(json.dumps(r))
        else:
            click.echo(
                f"{r['case']:<13} {r['flows']:>6} {r['sim_s']:>6.1f} {r['packets']:>11} {r['hops']:>11} "
                f"{r['wall_s']:>8.3f} {r['packets_per_s']:>12.0f} {r['events_per_s']:>12.0f} "
                f"{r['ns_per_packet']:>10.0f} {r['ns_per_hop']:>8.1f}"
            )
    return results
