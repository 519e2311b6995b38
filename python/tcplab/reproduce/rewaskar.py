"""Rewaskar, Kaur & Smith (003), "A Performance Study of Loss Detection/Recovery in
Real-world TCP Implementations": Table IV, Figs 2-7 and Table V on a simulated corpus.

003's traces (jap, unc, ibi, wls) are not public, so the corpus is simulated: senders of the
four OS profiles 003 studies (``windows-xp``, ``linux-2.4``, ``solaris-10``, ``freebsd-5``),
each on paths whose RTT, bandwidth, loss, reordering and delay spikes are drawn from the
distributions below, carrying Poisson arrivals of connections whose sizes are heavy-tailed
like 003 Fig 1. Each path is one simulation; its sender-side capture is analysed and
replayed by ``tcplab whatif`` (:mod:`tcplab.whatif`) under 003's 725-point grid with the
sender's model, and, like 003 (§IV-A), only connections with at least one retransmission
are kept. The report (``tcplab.whatif.report``) is drawn beside 003's numbers.

Every distribution is a named constant; the path parameters come from one RNG seeded per
(OS, path index), so the corpus is a pure function of the seed.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import Any

from .common import Report

TITLE = "Rewaskar, Kaur & Smith: loss detection in real-world TCP stacks (Table IV, Figs 2-7, Table V) on a simulated corpus"

#: 003 Table I's four stacks (MacOS is FreeBSD, §IV-A footnote 5), as engine profiles.
OSES: tuple[str, ...] = ("windows-xp", "linux-2.4", "solaris-10", "freebsd-5")
#: 003's labels for them.
PAPER_LABEL = {"windows-xp": "Win", "linux-2.4": "Lin", "solaris-10": "Sol", "freebsd-5": "BSD"}

#: Paths per OS (full run / --quick); ``runs`` overrides.
PATHS_FULL = 12
PATHS_QUICK = 2
#: Connections per path (full / quick).
FLOWS_FULL = 60
FLOWS_QUICK = 10
#: Base two-way propagation RTT: lognormal, median 80 ms, σ = 0.8 (natural log), clipped to
#: [10 ms, 500 ms] — a wide-area spread (ours; 003 gives no RTT distribution).
RTT_MEDIAN_MS = 80.0
RTT_SIGMA = 0.8
RTT_CLIP_MS = (10.0, 500.0)
#: Bottleneck rate: log-uniform 1-20 Mb/s.
BANDWIDTH_MBPS = (1.0, 20.0)
#: Random data loss on the path: log-uniform 0.3 %-5 % (003 keeps lossy connections only).
LOSS_P = (0.003, 0.05)
#: Share of paths that reorder, and their reordering: 1 % of data packets, displaced by
#: U[0.2, 1] × the one-way delay.
REORDER_SHARE = 0.3
REORDER_P = 0.01
REORDER_EXTRA_FRACTION = (0.2, 1.0)
#: Share of paths with delay spikes (wireless-like, 003's wls trace): random spikes, mean
#: 20 s apart, lasting U[0.3 s, 1.5 s].
SPIKE_SHARE = 0.25
SPIKE_MEAN_INTERVAL_S = 20.0
SPIKE_DURATION_S = (0.3, 1.5)
#: Bottleneck buffer.
QUEUE_PKTS = 50
#: Connection arrivals per path: Poisson, mean 0.5 s apart.
MEAN_INTERARRIVAL_S = 0.5
#: Connection sizes: Pareto, mean 30 KB, shape 1.2 (scale 5 KB): most connections a few KB,
#: the bytes in a few large ones, as 003 Fig 1.
SIZE_MEAN = "30KB"
SIZE_SHAPE = 1.2
#: Time after the last arrival for connections to finish.
DRAIN_S = 60.0
#: Base seed.
SEED = 3

# 003 Table IV (% of each OS's retransmissions): needed RTO, needed FR/R, spurious RTO,
# spurious FR/R.
PAPER_TABLE_IV = {
    "Win": (59.5, 10.9, 26.0, 3.6),
    "Lin": (56.7, 37.1, 3.5, 2.7),
    "Sol": (70.7, 19.9, 4.9, 4.5),
    "BSD": (56.6, 7.2, 31.7, 4.5),
}
# 003 Table V (% of retransmissions): D = 2 (3 for Win) RTO→FR/R, spurious caused; D = 4
# FR/R→RTO, spurious avoided.
PAPER_TABLE_V = {
    "Win": (-3.3, -2.9, 5.0, 3.5),
    "Lin": (6.2, 12.1, 7.2, 1.2),
    "Sol": (3.4, 4.1, 9.4, 3.7),
    "BSD": (1.8, 0.9, 1.1, 3.7),
}
# 003 §V-A-2-a: median RTO detection ≈ 4 RTTs (Windows, Linux), ≈ 10 (Solaris, FreeBSD).
PAPER_MEDIAN_RTO_RTTS = {"Win": 4.0, "Lin": 4.0, "Sol": 10.0, "BSD": 10.0}
# 003 §V-A-3: share of connections whose Best-Case reduction exceeds 10 % ("more than 40 %
# of Linux connections", "less than 15 %" of the others).
PAPER_BEST_CASE_GT10 = {"Lin": 0.40, "Win": 0.15, "Sol": 0.15, "BSD": 0.15}
# 003 §V-D: share reduced by more than 10 % with Smart-Config.
PAPER_SMART_GT10 = {"Lin": 0.40, "Win": 0.07, "Sol": 0.20, "BSD": 0.10}


def _rng(os_name: str, i: int, seed: int):
    import numpy as np

    return np.random.default_rng([seed, zlib.crc32(os_name.encode()), i])


def path_params(os_name: str, i: int, seed: int = SEED) -> dict[str, Any]:
    """The drawn parameters of path ``i`` of ``os_name`` (see the constants)."""
    r = _rng(os_name, i, seed)
    rtt = float(min(max(RTT_MEDIAN_MS * math.exp(RTT_SIGMA * r.standard_normal()), RTT_CLIP_MS[0]), RTT_CLIP_MS[1]))
    bw = float(math.exp(r.uniform(math.log(BANDWIDTH_MBPS[0]), math.log(BANDWIDTH_MBPS[1]))))
    loss = float(math.exp(r.uniform(math.log(LOSS_P[0]), math.log(LOSS_P[1]))))
    reorder = bool(r.uniform() < REORDER_SHARE)
    extra = float(r.uniform(*REORDER_EXTRA_FRACTION)) * rtt / 2
    spikes = bool(r.uniform() < SPIKE_SHARE)
    return {"rtt_ms": rtt, "bandwidth_mbps": bw, "loss_p": loss, "reorder": reorder, "reorder_extra_ms": extra, "spikes": spikes}


def scenario(os_name: str, i: int, flows: int, seed: int = SEED) -> dict[str, Any]:
    """The scenario of path ``i``: sender ``s`` —1 ms— router ``r`` —path— receiver ``d``;
    the capture is the sender's access link."""
    p = path_params(os_name, i, seed)
    one_way = max(p["rtt_ms"] / 2 - 1.0, 0.5)
    path: dict[str, Any] = {
        "name": "path", "a": "r", "b": "d", "bandwidth": f"{p['bandwidth_mbps'] * 1e6:.0f}bps",
        "delay": f"{one_way * 1000:.0f}us", "queue": f"{QUEUE_PKTS}pkt",
        "loss_ab": {"model": "bernoulli", "p": round(p["loss_p"], 6)},
    }
    if p["reorder"]:
        path["reorder_ab"] = {"p": REORDER_P, "extra": f"{p['reorder_extra_ms'] * 1000:.0f}us"}
    if p["spikes"]:
        path["delay_spikes"] = {"random": {"mean_interval": f"{SPIKE_MEAN_INTERVAL_S}s",
                                           "duration": {"uniform": [f"{SPIKE_DURATION_S[0]}s", f"{SPIKE_DURATION_S[1]}s"]}}}
    duration = flows * MEAN_INTERARRIVAL_S + DRAIN_S
    return {
        "name": f"rewaskar-{os_name}-{i}",
        "simulation": {"duration": f"{duration:g}s", "seed": int(zlib.crc32(f'{os_name}/{i}/{seed}'.encode()))},
        "tcp": {"profile": os_name},
        "nodes": [{"name": "s", "kind": "host"}, {"name": "r", "kind": "router"}, {"name": "d", "kind": "host"}],
        "links": [{"name": "access", "a": "s", "b": "r", "bandwidth": "100Mbps", "delay": "1ms", "queue": "1000pkt"}, path],
        "workloads": [{
            "kind": "poisson", "senders": ["s"], "receivers": ["d"], "mean_interarrival": f"{MEAN_INTERARRIVAL_S}s",
            "size": {"dist": "pareto", "mean": SIZE_MEAN, "shape": SIZE_SHAPE}, "max_flows": flows,
        }],
    }


def run_path(os_name: str, i: int, flows: int, seed: int = SEED) -> dict[str, Any]:
    """Simulates one path, runs what-if on its capture with the sender's model, and returns
    the ``whatif``/``retransmissions``/``connections`` tables (Arrow) with ``os``/``path``
    columns. The capture is deleted."""
    import pyarrow as pa

    import tcplab
    from ..whatif import whatif

    tmp = Path(tempfile.mkdtemp(prefix="tcplab-rewaskar-"))
    try:
        tcplab.run(scenario(os_name, i, flows, seed), out=tmp, pcap=["access"], trace=False)
        res = whatif(tmp / "access.pcap", model=os_name, vantage="sender")
        # OS inference (003 §IV-A) of every connection: `--model auto` over one grid point
        # (the model itself); its connections table carries the inferred model.
        inf = whatif(tmp / "access.pcap", model="auto", vantage="sender", grid=[(None,) * 6])
        out = {}
        c = inf.arrow("connections")
        keep = [n for n in ("conn_id", "model", "model_confidence", "model_replayed", "rexmit_rto", "retransmissions") if n in c.column_names]
        out["inference"] = c.select(keep).append_column("os", pa.array([os_name] * c.num_rows)).append_column(
            "path", pa.array([i] * c.num_rows, pa.int32()))
        label = f"{os_name}/path{i}.pcap"  # the temporary directory's name is not part of the result
        for name in ("whatif", "retransmissions", "connections"):
            t = res.arrow(name)
            n = t.num_rows
            for col in ("capture", "capture_name"):
                if col in t.column_names:
                    t = t.set_column(t.column_names.index(col), col, pa.array([label] * n))
            t = t.append_column("os", pa.array([os_name] * n)).append_column("path", pa.array([i] * n, pa.int32()))
            out[name] = t
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def corpus(paths: int, flows: int, *, workers: int | None = 0, seed: int = SEED, progress=None):
    """Every (OS, path) run: in this process (``workers=0``) or on the sweep engine's Dask
    cluster (a LocalCluster of ``workers`` processes, ``None`` one per core). Returns the
    three tables concatenated, in (OS, path) order."""
    import pyarrow as pa

    jobs = [(o, i) for o in OSES for i in range(paths)]
    if progress is not None:
        progress.total = len(jobs)
    if workers == 0:
        parts = []
        for o, i in jobs:
            parts.append(run_path(o, i, flows, seed))
            if progress is not None:
                progress.update(1)
    else:
        from ..sweep.runner import _client

        client, cluster = _client(workers, None)
        try:
            from dask.distributed import as_completed

            futs = client.map(run_path, [o for o, _ in jobs], [i for _, i in jobs], [flows] * len(jobs), [seed] * len(jobs), pure=False)
            for _ in as_completed(futs):
                if progress is not None:
                    progress.update(1)
            parts = client.gather(futs)  # in job order, whatever order they finished in
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    return {name: pa.concat_tables([p[name] for p in parts], promote_options="permissive") for name in ("whatif", "retransmissions", "connections", "inference")}


def _lossy(tables):
    """003 §IV-A: only connections with at least one retransmission (pandas frames)."""
    from ..tables import to_pandas

    wi = to_pandas(tables["whatif"])
    rx = to_pandas(tables["retransmissions"])
    conns = to_pandas(tables["connections"])
    lossy = conns[conns["retransmissions"] > 0][["capture", "conn_id"]]
    keep = lambda df: df.merge(lossy, on=["capture", "conn_id"], how="inner")  # noqa: E731
    return keep(wi), keep(rx), conns


def _confusion(rep: Report, tables) -> None:
    """OS inference against the profile that sent each connection (issue 11 part 1's goal:
    >= 0.99 right among connections with a timeout, never wrong where `unknown` was possible)."""
    from ..tables import to_pandas

    inf = to_pandas(tables["inference"])
    inf = inf[inf["retransmissions"] > 0].assign(model=lambda d: d["model"].astype(str), os=lambda d: d["os"].astype(str))
    f = rep.figure("os_inference", "OS inference: confusion matrix (connections with a retransmission)",
                   "Rows: the profile that sent the connection; columns: `tcplab_analyze::infer`'s answer "
                   "(`unknown` when no retransmission tells the candidates apart).")
    for os_name in OSES:
        g = inf[inf["os"] == os_name]
        for model, n in g["model"].value_counts().sort_index().items():
            f.add(PAPER_LABEL[os_name], model, "connections", int(n))
        timed = g[g["rexmit_rto"] > 0]
        named = timed[timed["model"] != "unknown"]
        f.add(PAPER_LABEL[os_name], "with_timeout", "named_share", float(len(named) / len(timed)) if len(timed) else None)
        f.add(PAPER_LABEL[os_name], "with_timeout", "right_of_named", float((named["model"] == os_name).mean()) if len(named) else None, 0.99)
    named = inf[inf["model"] != "unknown"]
    f.note(f"{len(inf)} connections with a retransmission; {len(named)} named, {int((named['model'] == named['os']).sum())} of them right.")


def run(out: Path, quick: bool, runs: int | None, progress) -> Report:
    from ..whatif.report import write_report

    paths = runs if runs is not None else (PATHS_QUICK if quick else PATHS_FULL)
    flows = FLOWS_QUICK if quick else FLOWS_FULL
    rep = Report(
        "rewaskar",
        "Rewaskar, Kaur & Smith, \"A Performance Study of Loss Detection/Recovery in Real-world TCP Implementations\" (003)",
        out,
        quick,
        intro=(
            "003's traces are not public: this corpus is **simulated** (`python/tcplab/reproduce/rewaskar.py` states every "
            f"distribution). {len(OSES)} sender profiles x {paths} paths x {flows} connections; path RTT lognormal "
            f"(median {RTT_MEDIAN_MS:g} ms, sigma {RTT_SIGMA}), bottleneck {BANDWIDTH_MBPS[0]:g}-{BANDWIDTH_MBPS[1]:g} Mb/s "
            f"log-uniform, data loss {LOSS_P[0] * 100:g}-{LOSS_P[1] * 100:g} % log-uniform, {REORDER_SHARE * 100:g} % of paths "
            f"reorder {REORDER_P * 100:g} % of packets, {SPIKE_SHARE * 100:g} % of paths have delay spikes (mean "
            f"{SPIKE_MEAN_INTERVAL_S:g} s apart, {SPIKE_DURATION_S[0]:g}-{SPIKE_DURATION_S[1]:g} s), Poisson arrivals "
            f"{MEAN_INTERARRIVAL_S:g} s apart, Pareto sizes (mean {SIZE_MEAN}, shape {SIZE_SHAPE}). Each connection is "
            "replayed by `tcplab whatif` with the profile that sent it as the model (as if the OS inference were "
            "perfect; 003 keeps only connections whose OS it identified unambiguously), and, separately, every "
            "connection's OS is inferred (`--model auto`) for the confusion matrix; as in 003 only connections with a "
            "retransmission are counted. Figures are in `whatif/`."
        ),
    )
    # The full corpus runs on the sweep engine's Dask cluster (one worker per core); --quick
    # in this process (a cluster's start-up would dominate).
    tables = corpus(paths, flows, workers=0 if quick else None, progress=progress)
    wi, rx, conns = _lossy(tables)
    wdir = Path(out) / "whatif"
    stats = write_report(wdir, rx, wi, title="(simulated corpus)")
    from ..whatif.report import table_iv, table_v

    t4 = table_iv(rx, wi).set_index("model")
    f = rep.figure("table4", "Table IV: retransmissions by cause and verdict (% of each OS's)",
                   f"{len(conns)} connections simulated, {wi[['capture', 'conn_id']].drop_duplicates().shape[0]} with a retransmission.")
    for os_name in OSES:
        lab = PAPER_LABEL[os_name]
        if os_name not in t4.index:
            f.note(f"{lab}: no retransmission in the corpus")
            continue
        row = t4.loc[os_name]
        total = max(int(row["total"]), 1)
        f.add(lab, "total", "retransmissions", int(row["total"]))
        for col, pv in zip(("needed_rto", "needed_frr", "spurious_rto", "spurious_frr"), PAPER_TABLE_IV[lab]):
            f.add(lab, col, "pct", 100.0 * row[col] / total, pv)
        f.add(lab, "undecided", "pct", 100.0 * row["undecided"] / total)
    t5 = table_v(rx, wi).set_index("model")
    f = rep.figure("table5", "Table V: impact of the dupACK threshold (net, % of retransmissions)")
    for os_name in OSES:
        lab = PAPER_LABEL[os_name]
        if os_name not in t5.index:
            continue
        row = t5.loc[os_name]
        for col, pv in zip(("low_rto_to_frr_pct", "low_spurious_caused_pct", "d4_frr_to_rto_pct", "d4_spurious_avoided_pct"), PAPER_TABLE_V[lab]):
            f.add(lab, f"{col}(D={row['D_low']})" if col.startswith("low") else col, "pct", row[col], pv)
    f = rep.figure("fig2", "Fig 2: loss detection durations (RTTs)")
    f.image = "whatif/fig2_detection.png"
    for os_name in OSES:
        lab = PAPER_LABEL[os_name]
        f.add(lab, "rto", "median_detection_rtts", stats.get(f"median_rto_detection_rtts/{os_name}"), PAPER_MEDIAN_RTO_RTTS[lab])
        f.add(lab, "frr", "median_detection_rtts", stats.get(f"median_frr_detection_rtts/{os_name}"))
    f = rep.figure("fig3", "Fig 3: Best-Case reduction in duration")
    f.image = "whatif/fig3_bestcase.png"
    for os_name in OSES:
        lab = PAPER_LABEL[os_name]
        f.add(lab, ">10%", "share_of_connections", stats.get(f"best_case_gt10pct/{os_name}"), PAPER_BEST_CASE_GT10[lab])
        f.add(lab, "<1%", "share_of_connections", stats.get(f"best_case_lt1pct/{os_name}"))
    f = rep.figure("fig4", "Fig 4: impact of k (mean reduction, RTTs; positive = shorter)")
    f.image = "whatif/fig4_k.png"
    for os_name in OSES:
        for k in (2, 4, 6, 8):
            f.add(PAPER_LABEL[os_name], f"k={k}", "mean_reduction_rtts", stats.get(f"mean_reduction_rtts/k={k}/{os_name}"))
    f.note("003: k = 2 reduces most connections' durations (within a factor of 5 of the Best-Case); k = 6 increases them.")
    f = rep.figure("fig5", "Fig 5: impact of minRTO, a and D (mean reduction, RTTs)")
    f.image = "whatif/fig5_minrto_a_d.png"
    for os_name in OSES:
        lab = PAPER_LABEL[os_name]
        for v in (100, 200, 400, 800, 1000):
            f.add(lab, f"minRTO={v}ms", "mean_reduction_rtts", stats.get(f"mean_reduction_rtts/min_rto={v}/{os_name}"))
        for a in ("1", "0.5", "0.25", "0.03125"):
            f.add(lab, f"a={a}", "mean_reduction_rtts", stats.get(f"mean_reduction_rtts/a={a}/{os_name}"))
        for d in ("2", "3", "4", "adaptive"):
            for size in ("small", "large"):
                f.add(lab, f"D={d}/{size}", "mean_reduction_rtts", stats.get(f"mean_reduction_rtts/D={d}/{size}/{os_name}"))
    f = rep.figure("fig6", "Fig 6: Smart-Config, change in duration")
    f.image = "whatif/fig6_smart.png"
    for os_name in OSES:
        lab = PAPER_LABEL[os_name]
        f.add(lab, "reduced>10%", "share_of_connections", stats.get(f"smart_reduced_gt10pct/{os_name}"), PAPER_SMART_GT10[lab])
        f.add(lab, "increased>10%", "share_of_connections", stats.get(f"smart_increased_gt10pct/{os_name}"), 0.03)
    _confusion(rep, tables)
    f = rep.figure("fig7", "Fig 7: Smart-Config vs Best-Case")
    f.image = "whatif/fig7_smart_vs_bestcase.png"
    for os_name in OSES:
        f.add(PAPER_LABEL[os_name], "mean", "smart_over_bestcase", stats.get(f"smart_over_bestcase/{os_name}"), 0.5)
    f.note("003: the average reduction is within a factor of 2 of the Best-Case (ratio >= 0.5).")
    return rep
