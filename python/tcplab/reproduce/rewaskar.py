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

Execution: the corpus is declarative experiment data on the experiment layer
(:mod:`.experiment`, the pattern of ``aron98``, ``frto``, ``pta``, ``quickstart``): one
:class:`~.experiment.Point` per (OS, path) with the path's scenario, the scenario's own seed,
and a measurement (:func:`measure_path`, on a worker) that reads the path's capture
(``Experiment.pcap``), infers the OS of every connection and replays it under the grid, and
returns the tables as Arrow (:class:`~.experiment.Tables`). ``run_experiments`` runs the
points on the sweep engine (a LocalCluster of one worker per core; ``--quick`` in this
process) and files every path in ``DIR/runs/`` with the ledger, so a killed reproduction
resumes where it stopped when re-run into the same directory through the Python API. The
report is a tabulation of the concatenated tables (:func:`tabulate`); every note is
formatted from the numbers it sits beside (:func:`summary`).

Regenerating docs/reproductions/rewaskar.md is one command,
``python -m tcplab.reproduce.rewaskar --doc docs/reproductions`` (:func:`publish`: the full
run, then the report and its figures moved into the docs).
"""

from __future__ import annotations

import math
import re
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


#: The link whose capture is analysed: the sender's access link (003 captured at a vantage
#: near the servers).
CAPTURE_LINK = "access"
#: Columns of the inference table kept per connection (OS inference, 003 §IV-A).
INFERENCE_COLUMNS = ("conn_id", "model", "model_confidence", "model_replayed", "rexmit_rto", "retransmissions")


def capture_label(os_name: str, i: int) -> str:
    """The ``capture`` column of path ``i`` of ``os_name`` (the temporary file's name is not
    part of the result)."""
    return f"{os_name}/path{i}.pcap"


def measure_path(res, point) -> "Tables":
    """On a worker, with the path's capture: the ``whatif`` and ``retransmissions`` rows of
    the connections with at least one retransmission (003 §IV-A keeps only those), every
    connection's row (``connections``) and every connection's inferred OS (``inference``).

    What-if replays each connection with the profile that sent it (``point.params["os"]``; as
    if the inference were perfect, as 003 keeps only connections whose OS it identified);
    inference is ``--model auto`` over one grid point (the model itself), whose
    ``connections`` table carries the inferred model."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..whatif import whatif
    from .experiment import Tables

    cap = res.captures[CAPTURE_LINK]
    os_name, i = point.params["os"], point.params["path"]
    wres = whatif(cap, model=os_name, vantage="sender")
    inf = whatif(cap, model="auto", vantage="sender", grid=[(None,) * 6])
    c = inf.arrow("connections")
    out = Tables()
    label = capture_label(os_name, i)
    tables = {}
    for name in ("whatif", "retransmissions", "connections"):
        t = wres.arrow(name)
        for col in ("capture", "capture_name"):
            if col in t.column_names:
                t = t.set_column(t.column_names.index(col), col, pa.array([label] * t.num_rows))
        tables[name] = t.replace_schema_metadata(None)
    conns = tables["connections"]
    lossy = pc.filter(conns["conn_id"], pc.greater(conns["retransmissions"], 0))
    for name in ("whatif", "retransmissions"):
        t = tables[name]
        out[name] = t.filter(pc.is_in(t["conn_id"], value_set=lossy))
    out["connections"] = conns
    out["inference"] = c.select([n for n in INFERENCE_COLUMNS if n in c.column_names]).replace_schema_metadata(None)
    return out


def experiment(paths: int, flows: int, seed: int = SEED) -> "Experiment":
    """The corpus as experiment data: one point per (OS, path), in (OS, path) order; the
    scenario's own seed (``simulation.seed``, drawn per path)."""
    from .experiment import Experiment, Point

    points = [Point(os_name, i, scenario=scenario(os_name, i, flows, seed), params={"os": os_name, "path": i})
              for os_name in OSES for i in range(paths)]
    return Experiment("corpus", points, measure_path, seeds=(None,), pcap=(CAPTURE_LINK,))


def corpus(paths: int, flows: int, out: Path, *, workers: int | None = 0, seed: int = SEED, progress=None):
    """Runs the corpus (:func:`experiment`) into ``out`` (its ``runs/``, ledger and ``data/``)
    and returns its tables ``whatif``, ``retransmissions``, ``connections``, ``inference``
    as pandas frames, in (OS, path) order, with the columns ``os`` and ``path``."""
    from ..tables import to_pandas
    from .experiment import run_experiments

    tables = run_experiments([experiment(paths, flows, seed)], out, workers=workers, progress=progress)["corpus"]
    return {name: to_pandas(t) for name, t in tables.items()}


def _confusion(rep: Report, tables) -> None:
    """OS inference against the profile that sent each connection (issue 11 part 1's goal:
    >= 0.99 right among connections with a timeout, never wrong where `unknown` was possible)."""
    inf = tables["inference"]
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


def run(out: Path, quick: bool, runs: int | None, progress, workers: int | None = None) -> Report:
    """``tcplab reproduce rewaskar``: the corpus on the experiment layer (full run: one
    worker per core; ``--quick``: in this process, :data:`~.experiment.QUICK_WORKERS`), then
    the report tabulated from its tables."""
    from .experiment import QUICK_WORKERS

    paths = runs if runs is not None else (PATHS_QUICK if quick else PATHS_FULL)
    flows = FLOWS_QUICK if quick else FLOWS_FULL
    rep = Report(
        "rewaskar",
        "Rewaskar, Kaur & Smith, \"A Performance Study of Loss Detection/Recovery in Real-world TCP Implementations\" (003)",
        out,
        quick,
        intro=(
            f"Regenerate docs/reproductions/rewaskar.md with one command: `{REGENERATE}` (the full run below, "
            "its figures and results.csv moved to `rewaskar/`). "
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
    tables = corpus(paths, flows, Path(out), workers=(QUICK_WORKERS if quick else None) if workers is None else workers,
                    progress=progress)
    tabulate(rep, tables)
    return rep


def tabulate(rep: Report, tables) -> None:
    """The report's figures from the corpus tables (:func:`corpus`): Table IV, Table V,
    Figs 2-7, the OS-inference confusion matrix, and the summary (first), every number of
    which is formatted from the rows below it (:func:`summary`)."""
    from ..whatif.report import table_iv, table_v, write_report

    head = rep.figure("summary", "Summary: what matches 003 and what differs (computed from the tables below)")
    wi, rx, conns = tables["whatif"], tables["retransmissions"], tables["connections"]
    out = rep.out
    wdir = Path(out) / "whatif"
    stats = write_report(wdir, rx, wi, title="(simulated corpus)")

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
    n_lossy = wi[["capture", "conn_id"]].drop_duplicates().shape[0]
    for line in summary(rep, stats, len(conns), n_lossy):
        head.note(line)


def _rows(rep: Report) -> dict[tuple[str, str, Any, str], tuple[Any, Any]]:
    """(figure, series, x, metric) → (ours, paper) of every row of the report."""
    return {(r.figure, r.series, r.x, r.metric): (r.ours, r.paper) for r in rep.rows()}


def _num(v: Any) -> float | None:
    # `+ 0.0` turns a -0.0 into 0.0, so a zero never prints as "-0.00".
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) + 0.0


def _min_rto_ms(os_name: str) -> float | None:
    """The profile's minimum RTO in ms (`tcplab profiles`), or None if not stated in ms or s."""
    from .. import _core

    v = next((p.get("min_rto") for p in _core.profiles() if p["name"] == os_name), None)
    if not isinstance(v, str):
        return None
    for unit, scale in (("ms", 1.0), ("s", 1000.0)):
        if v.endswith(unit):
            try:
                return float(v[: -len(unit)]) * scale
            except ValueError:
                return None
    return None


def _span(vals: list[float], fmt: str) -> str:
    """``a-b`` (or ``a`` when equal) of the values, formatted."""
    lo, hi = min(vals), max(vals)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"


def _names(labels: list[str]) -> str:
    if not labels:
        return "no stack"
    if len(labels) == len(OSES):
        return "every stack"
    return ", ".join(labels)


def summary(rep: Report, stats: dict[str, Any], n_conns: int, n_lossy: int) -> list[str]:
    """The report's summary notes: each number is read from the report's own rows (or, for the
    what-if report's substitutions, from its stated notes); each direction word is decided by
    those numbers, so a regenerated report cannot keep a stale claim."""
    R = _rows(rep)
    labs = [PAPER_LABEL[o] for o in OSES]

    def ours(fig: str, lab: str, x: Any, metric: str) -> float | None:
        return _num(R.get((fig, lab, x, metric), (None, None))[0])

    def paper(fig: str, lab: str, x: Any, metric: str) -> float | None:
        return _num(R.get((fig, lab, x, metric), (None, None))[1])

    def have(fig: str, x: Any, metric: str) -> list[str]:
        return [lab for lab in labs if ours(fig, lab, x, metric) is not None]

    notes: list[str] = []
    notes.append(f"Simulated corpus, not 003's traces: {n_conns} connections, {n_lossy} with a retransmission (only "
                 "those count, as in 003 §IV-A).")

    # Fig 4: k.
    k_labs = have("fig4", "k=2", "mean_reduction_rtts")
    if k_labs:
        k2 = {lab: ours("fig4", lab, "k=2", "mean_reduction_rtts") for lab in k_labs}
        k6 = {lab: ours("fig4", lab, "k=6", "mean_reduction_rtts") for lab in k_labs}
        k8 = {lab: ours("fig4", lab, "k=8", "mean_reduction_rtts") for lab in k_labs}
        shorter = [lab for lab in k_labs if k2[lab] > 0]
        longer = [lab for lab in k_labs if (k6[lab] or 0) < 0 and (k8[lab] or 0) < 0]
        big = max(k_labs, key=lambda lab: k2[lab])
        notes.append(
            f"*k (Fig 4).* k = 2 shortens the connections of {_names(shorter)} on average and k = 6 and 8 lengthen "
            f"those of {_names(longer)} (003: k = 2 shortens, k = 6 lengthens). Mean reduction at k = 2 / 6 / 8 (RTTs): "
            + "; ".join(f"{lab} {k2[lab]:.2f} / {k6[lab]:.2f} / {k8[lab]:.2f}" for lab in k_labs)
            + f"; largest at k = 2: {big}.")
    for n in stats.get("notes", []):
        notes.append(f"*Substitution (what-if report).* {n}.")

    # Fig 5a: minRTO.
    m_labs = have("fig5", "minRTO=100ms", "mean_reduction_rtts")
    if m_labs:
        lo = {lab: ours("fig5", lab, "minRTO=100ms", "mean_reduction_rtts") for lab in m_labs}
        hi = {lab: ours("fig5", lab, "minRTO=1000ms", "mean_reduction_rtts") for lab in m_labs}
        mono = [lab for lab in m_labs if hi[lab] is not None and hi[lab] < lo[lab]]
        notes.append(
            f"*minRTO (Fig 5a).* A larger minRTO lengthens the connections of {_names(mono)} (mean reduction at "
            "100 ms vs 1000 ms, RTTs: " + "; ".join(f"{lab} {lo[lab]:.2f} vs {hi[lab]:.2f}" for lab in m_labs) + ").")

    # Table V and Fig 5c: D.
    t5 = [lab for lab in labs if ours("table5", lab, "d4_frr_to_rto_pct", "pct") is not None]
    if t5:
        d4 = [ours("table5", lab, "d4_frr_to_rto_pct", "pct") for lab in t5]
        low = {lab: next((ours("table5", lab, f"low_rto_to_frr_pct(D={d})", "pct") for d in (2, 3)
                          if ours("table5", lab, f"low_rto_to_frr_pct(D={d})", "pct") is not None), None) for lab in t5}
        d2s = {lab: ours("fig5", lab, "D=2/small", "mean_reduction_rtts") for lab in t5}
        ads = {lab: ours("fig5", lab, "D=adaptive/small", "mean_reduction_rtts") for lab in t5}
        d4l = {lab: (ours("fig5", lab, "D=4/small", "mean_reduction_rtts"), ours("fig5", lab, "D=4/large", "mean_reduction_rtts"))
               for lab in t5}
        d4_longer = [lab for lab in t5 if all(v is not None and v < 0 for v in d4l[lab])]
        best_ad = [lab for lab in t5 if ads[lab] is not None and ads[lab] > 0 and all(
            (ours("fig5", lab, f"D={d}/small", "mean_reduction_rtts") or 0) <= ads[lab] for d in ("2", "3", "4"))]
        notes.append(
            f"*D (Table V, Fig 5c).* D = 4 lengthens small and large connections of {_names(d4_longer)} and turns "
            f"{_span(d4, '{:.1f}')} % of retransmissions from FR/R into timeouts (003: "
            f"{_span([v[2] for v in PAPER_TABLE_V.values()], '{:.1f}')} %); the lower threshold (D = 2, 3 for Windows) "
            "turns " + "; ".join(f"{lab} {low[lab]:.1f} %" for lab in t5 if low[lab] is not None)
            + " of them from timeouts into FR/R (negative: the other way). Small connections with D = 2 (mean reduction, "
            "RTTs): " + "; ".join(f"{lab} {d2s[lab]:.2f}" for lab in t5 if d2s[lab] is not None)
            + (f"; the adaptive D helps small connections most for {_names(best_ad)}." if best_ad else "."))

    # Fig 6: Smart-Config.
    s_labs = have("fig6", "reduced>10%", "share_of_connections")
    if s_labs:
        red = {lab: ours("fig6", lab, "reduced>10%", "share_of_connections") for lab in s_labs}
        inc = {lab: ours("fig6", lab, "increased>10%", "share_of_connections") for lab in s_labs}
        more = [lab for lab in s_labs if red[lab] > (inc[lab] or 0)]
        notes.append(
            f"*Smart-Config (Fig 6).* More connections get >10 % shorter than >10 % longer for {_names(more)}: "
            + "; ".join(f"{lab} {100 * red[lab]:.0f} % shorter (003: ~{100 * paper('fig6', lab, 'reduced>10%', 'share_of_connections'):.0f} %)"
                        for lab in s_labs)
            + f"; at most {100 * max(v or 0 for v in inc.values()):.1f} % get >10 % longer (003: <3 %).")

    # Fig 7.
    f7 = have("fig7", "mean", "smart_over_bestcase")
    if f7:
        r = {lab: ours("fig7", lab, "mean", "smart_over_bestcase") for lab in f7}
        meet = [lab for lab in f7 if r[lab] >= 0.5]
        miss = [lab for lab in f7 if r[lab] < 0.5]
        notes.append(
            f"*Fig 7.* The mean Smart-Config reduction is {_span(list(r.values()), '{:.2f}')} of the Best-Case (003: "
            "within a factor of 2, i.e. >= 0.5): " + "; ".join(f"{lab} {r[lab]:.2f}" for lab in f7)
            + f"; {_names(meet)} meet{'s' if len(meet) == 1 else ''} it, {_names(miss) if miss else 'none'} "
            f"{'does' if len(miss) == 1 else 'do'} not.")

    # Table IV.
    t4 = [lab for lab in labs if ours("table4", lab, "needed_frr", "pct") is not None]
    if t4:
        col = lambda c: [ours("table4", lab, c, "pct") for lab in t4]  # noqa: E731
        pap = lambda c: [paper("table4", lab, c, "pct") for lab in t4]  # noqa: E731
        frr_more = sum(a > b for a, b in zip(col("needed_frr"), pap("needed_frr")))
        rto_less = sum(a < b for a, b in zip(col("needed_rto"), pap("needed_rto")))
        line = (f"*Table IV.* Needed FR/R is {_span(col('needed_frr'), '{:.0f}')} % of our retransmissions (003: "
                f"{_span(pap('needed_frr'), '{:.0f}')} %), needed timeouts {_span(col('needed_rto'), '{:.0f}')} % (003: "
                f"{_span(pap('needed_rto'), '{:.0f}')} %), spurious timeouts {_span(col('spurious_rto'), '{:.0f}')} % "
                f"(003: {_span(pap('spurious_rto'), '{:.0f}')} %), spurious FR/R {_span(col('spurious_frr'), '{:.0f}')} % "
                f"(003: {_span(pap('spurious_frr'), '{:.0f}')} %).")
        if frr_more == len(t4) and rto_less == len(t4):
            line += (" FR/R dominates in ours where timeouts dominate in 003. Our lossy connections are biased towards the "
                     "larger transfers of the Pareto tail (random per-packet loss rarely hits a connection of a few "
                     "packets), whose flights yield duplicate ACKs; 003's real traces have many small lossy connections "
                     "that can only time out.")
        if min(col("spurious_frr")) > max(pap("spurious_frr")):
            line += (f" Spurious FR/R is higher than in 003 because {REORDER_SHARE * 100:g} % of our paths reorder "
                     f"{REORDER_P * 100:g} % of packets by up to a one-way delay, more reordering than 003 saw; "
                     f"{SPIKE_SHARE * 100:g} % of the paths have delay spikes, the source of spurious timeouts.")
        notes.append(line)

    # Fig 2.
    f2 = have("fig2", "rto", "median_detection_rtts")
    if f2:
        notes.append("*Fig 2.* Median timeout detection (RTTs), ours vs 003: " + "; ".join(
            f"{lab} {ours('fig2', lab, 'rto', 'median_detection_rtts'):.1f} vs ~{paper('fig2', lab, 'rto', 'median_detection_rtts'):g}"
            for lab in f2) + f". Our paths' RTT median is {RTT_MEDIAN_MS:g} ms, so the profiles' minimum RTOs are "
            + ", ".join(f"{lab} {m:g} ms = {m / RTT_MEDIAN_MS:.1f}" for lab, m in
                        ((PAPER_LABEL[o], _min_rto_ms(o)) for o in OSES) if m is not None)
            + " such RTTs.")

    # Fig 3.
    f3 = have("fig3", ">10%", "share_of_connections")
    if f3:
        notes.append("*Fig 3.* Share of connections that could be >10 % shorter in the Best-Case, ours vs 003: " + "; ".join(
            f"{lab} {100 * ours('fig3', lab, '>10%', 'share_of_connections'):.0f} % vs "
            f"{'>' if lab == 'Lin' else '<'}{100 * paper('fig3', lab, '>10%', 'share_of_connections'):.0f} %" for lab in f3) + ".")

    # Fig 5b: a.
    a_labs = have("fig5", "a=0.5", "mean_reduction_rtts")
    if a_labs:
        a = {lab: ours("fig5", lab, "a=0.5", "mean_reduction_rtts") for lab in a_labs}
        line = ("*a (Fig 5b).* 003 finds a = 1/2 helps Linux; mean reduction at a = 1/2 (RTTs): "
                + "; ".join(f"{lab} {a[lab]:.2f}" for lab in a_labs) + ".")
        lin_a = [v for v in (ours("fig5", "Lin", f"a={x}", "mean_reduction_rtts") for x in ("1", "0.5", "0.25", "0.03125"))
                 if v is not None]
        if lin_a and all(v == 0 for v in lin_a):
            line += (" Linux is 0 at every a: the Linux 2.4 estimator floors its variance term at minRTO once per "
                     "window (`rtt/linux.rs`), and with the sender's RFC 7323 samples a moves no replayed Linux RTO "
                     "on our paths.")
        notes.append(line)

    # OS inference.
    sent_by = {PAPER_LABEL[o]: o for o in OSES}
    inf_rows = {(lab, x): _num(v[0]) or 0.0 for (fig, lab, x, m), v in R.items()
                if fig == "os_inference" and m == "connections"}
    if inf_rows:
        total = sum(inf_rows.values())
        named = sum(v for (lab, x), v in inf_rows.items() if x != "unknown")
        right = sum(v for (lab, x), v in inf_rows.items() if x == sent_by[lab])
        never = [lab for lab in labs if not any(v and x != "unknown" for (l2, x), v in inf_rows.items() if l2 == lab)]
        notes.append(
            f"*OS inference (confusion matrix).* Of {total:.0f} connections with a retransmission, {named:.0f} are "
            f"named, {right:.0f} of them right; issue 11's goal is >= 0.99 of those with a timeout named right. "
            + (f"{_names(never)} senders are never named in this corpus. " if never else "")
            + "The what-if study uses the profile that really sent each connection (docs/validation.md, "
              "\"Sender OS inference\", for the inference corpus).")
    # A value that rounds to zero prints as 0.00, not -0.00.
    return [re.sub(r"-(0\.0+)(?![0-9])", r"\1", n) for n in notes]


def publish(doc_dir: Path, *, quick: bool = False, workers: int | None = None) -> Path:
    """Regenerates ``doc_dir/rewaskar.md`` (and ``doc_dir/rewaskar/``: figures, results.csv)
    from a full run (``quick``: the quick one): the report as written, its figure links
    pointing at ``rewaskar/``."""
    from tqdm import tqdm

    doc_dir = Path(doc_dir)
    tmp = Path(tempfile.mkdtemp(prefix="tcplab-rewaskar-doc-"))
    try:
        with tqdm(desc="reproduce rewaskar", unit="run", disable=None) as bar:
            rep = run(tmp, quick, None, bar, workers)
        rep.write()
        assets = doc_dir / "rewaskar"
        assets.mkdir(parents=True, exist_ok=True)
        for old in assets.glob("*.png"):
            old.unlink()
        for png in sorted((tmp / "whatif").glob("*.png")):
            shutil.copy(png, assets / png.name)
        shutil.copy(tmp / "results.csv", assets / "results.csv")
        text = (tmp / "report.md").read_text(encoding="utf-8").replace("](whatif/", "](rewaskar/")
        text = text.replace("Figures are in `whatif/`.", "Figures are in `whatif/` of the output (here `rewaskar/`).")
        target = doc_dir / "rewaskar.md"
        target.write_text(text, encoding="utf-8")
        return target
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


REGENERATE = "python -m tcplab.reproduce.rewaskar --doc docs/reproductions"


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tcplab.reproduce.rewaskar",
                                 description="Regenerate docs/reproductions/rewaskar.md from a full run.")
    ap.add_argument("--doc", type=Path, required=True, help="the docs/reproductions directory")
    ap.add_argument("--quick", action="store_true", help="the quick run (not for the docs)")
    ap.add_argument("--workers", type=int, default=None, help="local worker processes (default: one per core)")
    a = ap.parse_args(argv)
    print(f"wrote {publish(a.doc, quick=a.quick, workers=a.workers)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
