"""The harness's scenarios in the simulator, with whatever ``profile = "linux"`` is today.

    python validation/linux/simulate.py --runs DIR [--scenario NAME ...]   # needs `tcplab`

For each scenario (scenarios.py) it writes DIR/NAME/sim/scenario.toml, runs ``tcplab run`` on
it (DIR/NAME/sim/out) and writes DIR/NAME/sim/sim.json with the numbers report.py compares:
retransmissions by cause, spurious count (the simulator's ground truth), RTO at each expiry,
first retransmission and completion times.

The same path: sender --(10 Gb/s, 10 us)-- middle --(rate, delay, queue)-- receiver, the
bottleneck's one-way delay equal to the forwarder's per direction. The same impairments:

- ``drop_seg`` (copy c of segment i) becomes the simulator's ``drop_nth`` on the bottleneck's
  data direction. drop_nth counts data segments in the order the sender sends them, so the
  occurrence numbers are found by iterating: run, find in the events where each (i, c) was
  sent, run again with those numbers, until they no longer change (at most MAX_PASSES);
- random loss: the real run's own dropped occurrences (truth.json ``dropped_nth``), replayed
  with ``drop_nth`` as they are;
- ``spikes`` become ``delay_spikes`` at the same times (the real forwarder's clock starts at
  the SYN, the simulated flow starts at 0 with its SYN);
- ``reorder_seg`` (the original of segment i delayed by d) becomes the simulator's
  deterministic reordering on the bottleneck's data direction, ``reorder_ab = { flow = 0,
  nth = [...], extra = "d" }`` (``sim::reorder``, counted as drop_nth counts), its occurrence
  numbers found by the same iteration as the drops'. One ``extra`` per direction: the
  scenario's delays must all be equal.
- sysctls: tcp_sack -> ``sack``, tcp_timestamps -> ``timestamps`` (and the MSS: 1448 with
  timestamps, 1460 without, so both send 1500-byte packets); route ``rto_min`` -> ``min_rto``,
  ``initcwnd`` -> ``initial_window``;
  ``recv_buffer`` is the run's tcp_rmem maximum (32 MiB here), up to which both receivers
  autotune (the simulated one with the ``linux`` profile's ``linux_rcv_window``).
  tcp_congestion_control, tcp_frto, tcp_recovery, tcp_early_retrans are whatever the
  ``linux`` profile does (the report lists the profile's values).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scenarios import BY_NAME, SCENARIOS, Scenario  # noqa: E402

#: Fixed-point iteration of the drop occurrence numbers (see the module doc).
MAX_PASSES = 5
#: tcp_rmem's maximum when a run did not record its own (the kernel's default since 6.16,
#: 32 MiB; 6 MiB before): the buffer the receiver autotunes up to, and its window scale.
RECV_BUFFER = 32 * 1024 * 1024


def recv_buffer(d: Path | None) -> int:
    """`tcp_rmem[2]` of the real run in `d` (meta.json, recorded by run.py), else this machine's
    (`/proc/sys/net/ipv4/tcp_rmem`: a new namespace copies the initial one's), else RECV_BUFFER.
    The simulated receiver's `recv_buffer` is that value (`linux_rcv_window` autotunes up to it)."""
    try:
        if d is not None:
            meta = json.loads((d / "meta.json").read_text())
            if "tcp_rmem" in meta:
                return int(str(meta["tcp_rmem"]).split()[2])
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(Path("/proc/sys/net/ipv4/tcp_rmem").read_text().split()[2])
    except (OSError, ValueError, IndexError):
        return RECV_BUFFER
SIM_DURATION_S = 60


#: A scenario's sysctls that differ from BASE_SYSCTL, as simulator keys: sysctl -> (tcp key,
#: value for each sysctl value). Used only when the key is in `tcplab schema` (the engine of
#: the day may not have it yet); otherwise the sysctl is listed as unmapped in sim.json and
#: the report. tcp_sack and tcp_timestamps are always mapped (see toml_for).
SYSCTL_KEYS = {
    "tcp_early_retrans": ("tlp", {0: "false", 1: "false", 2: "false", 3: "true", 4: "true"}),
    "tcp_recovery": ("rack", {0: "false", 1: "true"}),
    "tcp_congestion_control": ("cc", {"reno": '"reno"', "cubic": '"cubic"'}),
    "tcp_frto": ("spurious_detection", {0: '"none"', 2: '"frto-sack"'}),
}


def tcp_keys() -> set[str]:
    """The `[tcp]` keys the installed tcplab accepts (its JSON Schema, as `tcplab schema`)."""
    from tcplab import _core

    try:
        schema = json.loads(_core.schema())
        tcp = schema["properties"]["tcp"]
        while "$ref" in tcp:  # "#/$defs/RawTcp" (schemars) or inline
            node = schema
            for part in tcp["$ref"].lstrip("#/").split("/"):
                node = node[part]
            tcp = node
        return set(tcp["properties"])
    except (ValueError, KeyError, TypeError):
        return set()


def mapped_sysctls(sc: Scenario, keys: set[str]) -> tuple[list[str], list[str]]:
    """(TOML lines, unmapped sysctl names) for the scenario's non-default sysctls."""
    from scenarios import BASE_SYSCTL

    lines, unmapped = [], []
    for k, v in sc.sysctls().items():
        if k in ("tcp_sack", "tcp_timestamps") or BASE_SYSCTL.get(k) == v:
            continue
        key, values = SYSCTL_KEYS.get(k, (None, {}))
        if key in keys and v in values:
            lines.append(f"{key} = {values[v]}")
        else:
            unmapped.append(f"{k}={v}")
    return lines, unmapped


def toml_for(sc: Scenario, drop_nth: list[int], extra: list[str] = (), reorder_nth: list[int] = (),
             rmem: int = RECV_BUFFER) -> str:
    ctl = sc.sysctls()
    lines = [
        f'name = "linux-{sc.name}"',
        "",
        "[simulation]",
        f'duration = "{SIM_DURATION_S}s"',
        "seed = 1",
        "",
        "[tcp]",
        'profile = "linux"',
        f'mss = "{sc.mss}B"',
        f"sack = {'true' if int(ctl['tcp_sack']) else 'false'}",
        f"timestamps = {'true' if int(ctl['tcp_timestamps']) else 'false'}",
        f'recv_buffer = "{rmem}B"',
    ]
    if "rto_min" in sc.route:
        lines.append(f'min_rto = "{sc.route["rto_min"]}"')
    if "initcwnd" in sc.route:
        lines.append(f'initial_window = {int(sc.route["initcwnd"])}')
    lines += list(extra)
    lines += ["", '[[nodes]]\nname = "snd"\nkind = "host"', '[[nodes]]\nname = "mid"\nkind = "router"',
              '[[nodes]]\nname = "rcv"\nkind = "host"', ""]
    lines += ["[[links]]", 'name = "access"', 'a = "snd"', 'b = "mid"', 'bandwidth = "10Gbps"', 'delay = "10us"', ""]
    lines += ["[[links]]", 'name = "bottleneck"', 'a = "mid"', 'b = "rcv"', f'bandwidth = "{sc.rate_mbit}Mbps"',
              f'delay = "{sc.delay_ms}ms"', f'queue = "{sc.queue_pkts}pkt"']
    if drop_nth:
        lines.append(f'loss_ab = {{ model = "drop_nth", flow = 0, nth = {sorted(set(drop_nth))} }}')
    if reorder_nth:
        delays = {d for _, d in sc.reorder_seg}
        if len(delays) != 1:
            raise ValueError(f"{sc.name}: reorder_seg with different delays is not expressible per link")
        ms = round(delays.pop() * 1000, 6)
        lines.append(f'reorder_ab = {{ flow = 0, nth = {sorted(set(reorder_nth))}, extra = "{ms}ms" }}')
    if sc.spikes:
        dirs = {d for _, _, d in sc.spikes}
        if len(dirs) != 1:
            raise ValueError(f"{sc.name}: spikes on both directions are not expressible per link")
        spikes = ", ".join(f'{{ at = "{t0}s", duration = "{round(t1 - t0, 6)}s" }}' for t0, t1, _ in sc.spikes)
        lines.append(f"delay_spikes = [{spikes}]")
        lines.append(f'spike_direction = "{"a->b" if dirs.pop() == "ab" else "b->a"}"')
    lines += ["", "[[flows]]", 'name = "transfer"', 'src = "snd"', 'dst = "rcv"', f'size = "{sc.size}B"', ""]
    return "\n".join(lines)


def run_sim(toml: Path, out: Path) -> None:
    """`tcplab run TOML -o OUT`, in process (the Python API writes the same files)."""
    import tcplab

    if out.exists():
        shutil.rmtree(out)
    try:
        # The sender-side link's capture: the simulated receiver's windows for the report.
        tcplab.run(toml, out=out, pcap=["access"])
    except tcplab.ScenarioError as e:
        raise RuntimeError(f"tcplab run {toml}: {e}") from None


def sender_data_events(out: Path):
    import pandas as pd

    ev = pd.read_parquet(out / "events.parquet")
    ev = ev[(ev.flow == 0) & (ev.node.astype(str) == "snd") & ev.kind.isin(["segment_sent", "segment_retransmitted"])]
    ev = ev[ev["len"] > 0].sort_values("t_ns", kind="stable")
    return ev


def nth_of(sc: Scenario, out: Path) -> list[int]:
    """Occurrence numbers of the drop_seg copies in this simulated run."""
    return occurrences(out, sc.mss, [tuple(k) for k in sc.drop_seg])


def reorder_nth_of(sc: Scenario, out: Path) -> list[int]:
    """Occurrence numbers of the originals (copy 0) of the reorder_seg segments."""
    return occurrences(out, sc.mss, [(i, 0) for i, _ in sc.reorder_seg])


def occurrences(out: Path, mss: int, keys: list[tuple[int, int]]) -> list[int]:
    """Occurrence numbers (1-based, data packets in send order) of the (segment, copy) keys."""
    ev = sender_data_events(out)
    from forwarder import segment_copies  # the forwarder's own counting, so both agree

    copies: dict[int, int] = {}
    where: dict[tuple[int, int], int] = {}
    for n, (seq, ln) in enumerate(zip(ev["seq"].astype("int64"), ev["len"].astype("int64")), start=1):
        for key in segment_copies(int(seq), int(ln), mss, copies):
            where.setdefault(key, n)
    return sorted({where[k] for k in keys if k in where})


def summarise(sc: Scenario, out: Path, drop_nth: list[int], passes: int) -> dict:
    import pandas as pd

    summ = json.loads((out / "summary.json").read_text())
    flow = summ["flows"][0]
    ev = pd.read_parquet(out / "events.parquet")
    ev = ev[(ev.flow == 0) & (ev.node.astype(str) == "snd")]
    rx = ev[(ev.kind == "segment_retransmitted") & (ev["len"] > 0)].sort_values("t_ns", kind="stable")
    fired = ev[ev.kind == "rto_fired"].sort_values("t_ns", kind="stable")
    ts = pd.read_parquet(out / "timeseries.parquet")
    ts = ts[ts.flow == 0].sort_values("t_ns", kind="stable")
    rto_at = []
    for t in fired["t_ns"].astype("int64"):
        before = ts[ts["t_ns"].astype("int64") < t]
        rto_at.append(round(int(before["rto_ns"].iloc[-1]) / 1e6, 3) if len(before) else None)
    syn = int(ev[ev.kind == "segment_sent"]["t_ns"].min()) if len(ev) else 0
    by_cause: dict[str, int] = {}
    for c in rx["cause"].astype(str):
        by_cause[c] = by_cause.get(c, 0) + 1
    return {
        "scenario": sc.name,
        "profile": "linux",
        "passes": passes,
        "drop_nth": drop_nth,
        "retransmissions": int(len(rx)),
        "by_cause": dict(sorted(by_cause.items())),
        "spurious": int(rx["spurious"].fillna(False).astype(bool).sum()),
        "timeouts": int(len(fired)),
        "rto_at_expiry_ms": rto_at,
        "first_retransmission_ms": round((int(rx["t_ns"].iloc[0]) - syn) / 1e6, 3) if len(rx) else None,
        "completion_ms": round(flow["fct_s"] * 1000, 3) if flow.get("fct_s") is not None else None,
        "rows": [
            {"t_ms": round((int(t) - syn) / 1e6, 3), "seq": int(s), "len": int(n), "cause": str(c),
             "spurious": None if pd.isna(sp) else bool(sp)}
            for t, s, n, c, sp in zip(rx["t_ns"], rx["seq"], rx["len"], rx["cause"], rx["spurious"])
        ],
    }


def simulate(sc: Scenario, d: Path) -> dict:
    sim = d / "sim"
    sim.mkdir(parents=True, exist_ok=True)
    toml = sim / "scenario.toml"
    out = sim / "out"
    extra, unmapped = mapped_sysctls(sc, tcp_keys())
    rmem = recv_buffer(d)
    if not sc.deterministic:
        truth = json.loads((d / "truth.json").read_text())
        drops = list(truth["dropped_nth"])
        toml.write_text(toml_for(sc, drops, extra, rmem=rmem))
        run_sim(toml, out)
        passes = 1
    else:
        drops = sorted(i for i, c in sc.drop_seg if c == 0)  # first guess: nothing resent before
        held = sorted(i for i, _ in sc.reorder_seg)
        passes = 0
        while True:
            toml.write_text(toml_for(sc, drops, extra, held, rmem=rmem))
            run_sim(toml, out)
            passes += 1
            found, found_held = nth_of(sc, out), reorder_nth_of(sc, out)
            if (found, found_held) == (drops, held) or passes >= MAX_PASSES:
                break
            drops, held = found, found_held
        if (found, found_held) != (drops, held):
            raise RuntimeError(f"{sc.name}: drop/reorder occurrences did not settle in {MAX_PASSES} passes")
    res = summarise(sc, out, drops, passes)
    if sc.reorder_seg and sc.deterministic:
        res["reorder_nth"] = held
    res["mapped"] = extra
    res["unmapped"] = unmapped
    res["recv_buffer"] = rmem
    (sim / "sim.json").write_text(json.dumps(res, indent=1) + "\n")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True, type=Path, help="run.py's output directory")
    ap.add_argument("--scenario", action="append")
    a = ap.parse_args(argv)
    try:
        import tcplab  # noqa: F401
    except ImportError:
        print("simulate.py: error: the tcplab package is not installed (pip install . in a venv first)",
              file=sys.stderr)
        return 2
    for n in a.scenario or [s.name for s in SCENARIOS]:
        if n not in BY_NAME:
            print(f"simulate.py: error: unknown scenario {n!r}", file=sys.stderr)
            return 2
        if not (a.runs / n / "truth.json").exists():
            print(f"{n}: no real run in {a.runs / n}, skipped", file=sys.stderr)
            continue
        r = simulate(BY_NAME[n], a.runs / n)
        print(f"{n}: {r.get('skipped') or r['by_cause']}", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError, ValueError) as e:  # one line, no traceback
        print(f"simulate.py: error: {e}", file=sys.stderr)
        sys.exit(2)
