"""``tcplab bench``: the simulator speed suite.

Each case is a dumbbell built in Rust (``tcplab_netsim::bench``); it runs with tracing off.
Reported per case: simulated bottleneck packets (data direction), wall seconds, packets per
wall-second and events per wall-second. Wall time is measured here, around the call into
the core; the simulator itself never reads a clock.
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
        click.echo(f"{'case':<10} {'flows':>6} {'sim_s':>6} {'packets':>11} {'wall_s':>8} {'pkts/s':>12} {'events/s':>12}")
    for name in names:
        r = run_case(name)
        results.append(r)
        if as_json:
            click.echo(json.dumps(r))
        else:
            click.echo(
                f"{r['case']:<10} {r['flows']:>6} {r['sim_s']:>6.1f} {r['packets']:>11} "
                f"{r['wall_s']:>8.3f} {r['packets_per_s']:>12.0f} {r['events_per_s']:>12.0f}"
            )
    return results
