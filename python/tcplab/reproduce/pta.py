"""Arianfar, Sarolahti & Ott, "Marooned Magic Numbers -- An Adaptive Congestion Control
Architecture" (seed 004): the Pathlet Transport Architecture against fixed initial windows
(ICW 3, ICW 10) and per-host sharing (RFC 9040), Figs 9-24.

What is reproduced, on the Fig 6 topology built here (:func:`fig6`): FCT CDFs without and with
congestion behind 4 Mb/s (Figs 9, 10), mean FCT against the mean inter-arrival time behind
43 kb/s and 100 Mb/s (Figs 11-13), FCT against flow size (Fig 14), the mean initial window PTA
chose (Fig 15), goodput (Figs 16-19), drops and queue length at the bottleneck (Figs 20-23),
and the FCT of long ICW-3 flows beside short flows of each variant (Fig 24).

The paper's figures are not in the text we have, so ``paper`` is empty in every row: what is
compared is the paper's *direction*, stated in each figure's notes and checked against our
numbers there (computed from the results, never written by hand).

Every run is a dict scenario built here and run on the experiment layer (points x seeds); the
measurements read only ``summary.json`` (flows, the bottleneck link's counters).
"""

from __future__ import annotations

import math
import statistics as st
from pathlib import Path
from typing import Any

from .common import Report
from .experiment import QUICK_WORKERS, Experiment, Point, run_experiments

TITLE = "Arianfar, Sarolahti & Ott (seed 004): Pathlet Transport Architecture vs ICW 3 / ICW 10 / per-host sharing (Figs 9-24)"

# ---------------------------------------------------------------------------------------------
# The Fig 6 topology. The text gives the bottleneck bandwidths (100 Mb/s, 4 Mb/s, 43 kb/s,
# 1 Gb/s elsewhere), four pathlets per path, RED marking between 10 % and 30 % of the queue,
# MTU 1500 B and, behind 4 Mb/s, an average RTT of 135 ms (§IV-A). The delays and queue sizes
# are in the figure only; ours are chosen to give that RTT, and buffers of about one
# bandwidth-delay product at the path's base RTT (one packet's transmission included), but
# never fewer than BUFFER_MIN_PKTS:
#
#   s1, s2, s3 --1 ms-- p1 --10 ms-- p2 ==bottleneck (delay d, RED)== g<k> --1 ms-- r<k>_1..r<k>_10
#
# p1, p2 and g<k> are pathlet routers: pathlets (s, p1), (p1, p2), (p2, g<k>), (g<k>, End-of-Path).
# The bottleneck queue is p2's towards g<k>: RED there marks CE, g<k> is the first pathlet
# router to see it and names (p2, g<k>) as the congested pathlet.

#: The smallest RED buffer: 10 packets, the least for which the paper's marking thresholds of
#: 10 % and 30 % of the queue are whole packets (1 and 3). It applies to 43 kb/s only, whose BDP
#: (1.4 packets) is below it. (Until the third round this link had 20 packets, chosen without a
#: stated rule; the `buffer43` sensitivity figure keeps that case.)
BUFFER_MIN_PKTS = 10
#: group -> (bandwidth, one-way delay of the bottleneck link, RED buffer in packets).
#: 4 Mb/s: 2 x (1 + 10 + 54 + 1) ms = 132 ms propagation + 3 ms to send a 1500-B packet = 135 ms,
#: BDP 45 packets -> 50. 100 Mb/s: 64 ms base RTT, BDP 533 packets -> 500. 43 kb/s: 124 ms
#: propagation + 279 ms per packet = 403 ms, BDP 1.4 packets -> BUFFER_MIN_PKTS.
GROUPS: dict[str, tuple[str, str, int]] = {
    "100M": ("100Mbps", "20ms", 500),
    "4M": ("4Mbps", "54ms", 50),
    "43k": ("43kbps", "50ms", BUFFER_MIN_PKTS),
}
#: The 43 kb/s buffer of the first two rounds (sensitivity figure `buffer43`).
OLD_BUFFER43_PKTS = 20
#: Bottleneck bandwidth in bit/s per group (offered load in the notes).
RATE_BPS = {"100M": 100e6, "4M": 4e6, "43k": 43e3}
#: Receivers per group ("many receivers that share the same bottleneck links").
RECEIVERS = 10
#: Traffic profiles (§IV): Pareto mean 40 KB / 200 KB, shape 1.5.
PROFILES = {1: "40KB", 2: "200KB"}
PARETO_SHAPE = 1.5
#: MTU 1500 B: MSS 1460 without the timestamps option (the paper's ns-3 TCP had none).
TCP_BASE: dict[str, Any] = {"mss": "1460B", "timestamps": False, "ecn": True, "recv_buffer": "4MB"}

#: The variants (series): initial window and state sharing. PTA and per-host sharing fall back
#: to ICW 3 (the IETF standard the paper compares with) when they know nothing.
VARIANTS: dict[str, dict[str, Any]] = {
    "icw3": {"initial_window": 3},
    "icw10": {"initial_window": 10},
    "pta": {"initial_window": 3, "sharing": "pathlet"},
    "host-sharing": {"initial_window": 3, "sharing": "host"},
}
#: Fig 24's long flows: 200 KB with ICW 3, one every LONG_INTERARRIVAL on average.
LONG_SIZE = "200KB"
LONG_INTERARRIVAL = "2s"


def fig6(group: str, variant: str, interarrival_s: float, flows: int, profile: int = 1,
         long_flows: int = 0, buffer43: int | None = None) -> dict[str, Any]:
    """The Fig 6 scenario: ``flows`` Poisson arrivals (profile sizes, mean inter-arrival
    ``interarrival_s``) from s1/s2 to group ``group``'s receivers with ``variant``'s TCP, and
    with ``long_flows`` > 0 that many 200-KB ICW-3 flows from s3 beside them (Fig 24). The
    run lasts until the arrivals are over plus time to drain the offered bytes three times.
    ``buffer43`` replaces the 43 kb/s link's buffer (packets)."""
    bw, delay, buf = GROUPS[group]
    rate = {"100Mbps": 100e6, "4Mbps": 4e6, "43kbps": 43e3}[bw]
    mean_bytes = {1: 40_000, 2: 200_000}[profile]
    span = flows * interarrival_s
    work = flows * mean_bytes * 8 / rate
    if long_flows:
        span = max(span, long_flows * 2.0)
        work += long_flows * 200_000 * 8 / rate
    duration = math.ceil(span + 3 * work + 30)
    nodes = [{"name": n, "kind": "host"} for n in ("s1", "s2", "s3")]
    nodes += [{"name": n, "kind": "router"} for n in ("p1", "p2")]
    links = [{"a": s, "b": "p1", "bandwidth": "1Gbps", "delay": "1ms"} for s in ("s1", "s2", "s3")]
    links.append({"a": "p1", "b": "p2", "bandwidth": "1Gbps", "delay": "10ms"})
    routers = ["p1", "p2"]
    receivers = []
    for g, (gbw, gdelay, gbuf) in GROUPS.items():
        if g == "43k" and buffer43:
            gbuf = buffer43
        gw = f"g{g}"
        nodes.append({"name": gw, "kind": "router"})
        routers.append(gw)
        links.append({"name": f"bottleneck{g}", "a": "p2", "b": gw, "bandwidth": gbw, "delay": gdelay,
                      "queue": {"kind": "red", "limit": f"{gbuf}pkt", "min_th": "10%", "max_th": "30%",
                                "gentle": True}})
        for i in range(1, RECEIVERS + 1):
            r = f"r{g}_{i}"
            nodes.append({"name": r, "kind": "host"})
            links.append({"a": gw, "b": r, "bandwidth": "1Gbps", "delay": "1ms"})
            if g == group:
                receivers.append(r)
    tcp = dict(TCP_BASE)
    tcp.update(VARIANTS[variant])
    workloads = [{
        "name": "short", "kind": "poisson", "senders": ["s1", "s2"], "receivers": receivers,
        "mean_interarrival": f"{interarrival_s * 1000:g}ms",
        "size": {"dist": "pareto", "mean": PROFILES[profile], "shape": PARETO_SHAPE},
        "max_flows": flows,
    }]
    if long_flows:
        workloads.append({
            "name": "long", "kind": "poisson", "senders": ["s3"], "receivers": receivers,
            "mean_interarrival": LONG_INTERARRIVAL, "size": LONG_SIZE, "max_flows": long_flows,
            "tcp": {"initial_window": 3, "sharing": "none"},
        })
    return {
        "name": f"pta-fig6-{group}",
        "simulation": {"duration": f"{duration}s"},
        "tcp": tcp,
        "nodes": nodes,
        "links": links,
        "pathlet": {"routers": routers},
        "workloads": workloads,
    }


# ---------------------------------------------------------------------------------------------
# Measurements (on the workers, from the run summary)


def _flow_metrics(flows: list[dict[str, Any]]) -> dict[str, Any]:
    done = [f for f in flows if f["fct_s"] is not None]
    fcts = [f["fct_s"] for f in done]
    iws = [f["initial_window_segments"] for f in flows if f.get("initial_window_segments") is not None]
    return {
        "flows": len(flows),
        "unfinished": len(flows) - len(done),
        "fct_mean_s": st.fmean(fcts) if fcts else math.nan,
        "goodput_mean_bps": st.fmean(f["bytes_requested"] * 8 / f["fct_s"] for f in done if f["fct_s"] > 0) if done else math.nan,
        "icw_segments": st.fmean(iws) if iws else math.nan,
        # Share of the flows that chose a 1-segment initial window (PTA / host sharing).
        "icw1_share": sum(w == 1 for w in iws) / len(iws) if iws else math.nan,
        "bytes_offered": sum(f["bytes_requested"] or 0 for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "spurious_retransmissions": sum(f["spurious_retransmissions"] for f in flows),
        "fct_median_s": st.median(fcts) if fcts else math.nan,
        "fcts": fcts,
        "sizes": [f["bytes_requested"] for f in done],
    }


#: MSS of the runs (bytes): the table's byte values in segments.
MSS_BYTES = 1460


def _table_metrics(rows: list[dict[str, Any]]) -> dict[str, float]:
    """What the senders' pathlet tables did (004 §III-C/D; `pathlet_tables` stats): the initial
    window's decomposition SAFE_CWND / k over all choices, and on each sender's bottleneck pathlet
    (the one most choices were made from) the periods closed, congested, cut, raised and held, the
    mean SAFE_CWND per period and what rule (b) cut to (segments). NaN without PTA."""
    rows = [r for r in rows if r["host"] in ("s1", "s2")]
    n = sum(r["iw_choices"] for r in rows)
    nan = math.nan

    def wmean(key: str, weight: str, src: list[dict[str, Any]]) -> float:
        w = sum(r[weight] for r in src if r[key] is not None)
        return sum(r[key] * r[weight] for r in src if r[key] is not None) / w if w else nan

    bott = [max((r for r in rows if r["host"] == h), key=lambda r: r["iw_choices"], default=None) for h in ("s1", "s2")]
    bott = [r for r in bott if r is not None and r["iw_choices"] > 0]
    periods = sum(r["periods"] for r in bott)
    return {
        "pt_iw_safe_segments": wmean("iw_safe_segments_mean", "iw_choices", rows) if n else nan,
        "pt_iw_share_k": wmean("iw_share_k_mean", "iw_choices", rows) if n else nan,
        "pt_iw_given": wmean("iw_given_mean", "iw_choices", rows) if n else nan,
        "pt_periods": periods if bott else nan,
        "pt_congested_share": sum(r["congested_periods"] for r in bott) / periods if periods else nan,
        "pt_cuts": sum(r["cuts"] for r in bott) if bott else nan,
        "pt_raises": sum(r["raises"] for r in bott) if bott else nan,
        "pt_held": sum(r["held"] for r in bott) if bott else nan,
        "pt_safe_period_segments": wmean("safe_cwnd_period_mean", "periods", bott) / MSS_BYTES if bott else nan,
        "pt_cut_to_segments": wmean("cut_to_mean", "congested_periods", bott) / MSS_BYTES if bott else nan,
        "pt_avg_rtt_s": st.fmean(r["avg_rtt_s"] for r in bott if r["avg_rtt_s"] is not None)
        if any(r["avg_rtt_s"] is not None for r in bott) else nan,
    }


def measure(res, point: Point) -> dict[str, Any]:
    """Short flows (from s1/s2): FCT, goodput, initial window; the bottleneck's drops (data
    direction, p2 -> g) and mean queue (packets found by arriving packets); long flows (s3)."""
    s = res.summary
    group = point.params["group"]
    short = [f for f in s["flows"] if f["src"] in ("s1", "s2")]
    long = [f for f in s["flows"] if f["src"] == "s3"]
    link = next(l for l in s["links"] if l["name"] == f"bottleneck{group}")
    red = link.get("red_ab") or {}
    out = _flow_metrics(short)
    out.update(_table_metrics(s.get("pathlet_tables") or []))
    out.update({
        "drops": link["drops_ab"],
        # RED's early drops: packets it may not mark (not ECN-capable: SYNs and
        # retransmissions, RFC 3168 §6.1.1 / §6.1.5) dropped with the marking probability.
        "early_drops": red.get("early_drops", 0),
        "marks": red.get("marks", 0),
        "queue_mean_pkts": red.get("mean_queue", math.nan),
        "retransmissions": sum(f["retransmissions"] for f in short),
        "long_fct_mean_s": st.fmean(f["fct_s"] for f in long if f["fct_s"] is not None) if any(f["fct_s"] is not None for f in long) else math.nan,
        "long_unfinished": sum(f["fct_s"] is None for f in long),
    })
    return out


# ---------------------------------------------------------------------------------------------
# The experiments (data): one per sweep of a bottleneck and profile


SERIES = tuple(VARIANTS)


def plan(quick: bool) -> dict[str, dict[str, Any]]:
    """Experiment name -> (group, profile, x values in seconds, flows, long flows, figures)."""
    if quick:
        return {
            "g43p1": dict(group="43k", profile=1, xs=[4.0, 16.0], flows=20, long=0),
            "g43p2": dict(group="43k", profile=2, xs=[40.0], flows=8, long=0),
            "g100p1": dict(group="100M", profile=1, xs=[0.003, 0.02], flows=200, long=0),
            "g100p2": dict(group="100M", profile=2, xs=[0.02], flows=100, long=0),
            "g4p1": dict(group="4M", profile=1, xs=[0.02, 0.3], flows=40, long=0),
            "fig24": dict(group="4M", profile=1, xs=[0.1, 0.4], flows=40, long=5),
        }
    return {
        "g43p1": dict(group="43k", profile=1, xs=[4.0, 8.0, 16.0, 32.0], flows=100, long=0),
        "g43p2": dict(group="43k", profile=2, xs=[40.0, 80.0, 160.0], flows=100, long=0),
        "g100p1": dict(group="100M", profile=1, xs=[0.002, 0.003, 0.005, 0.01, 0.02, 0.05], flows=1000, long=0),
        "g100p2": dict(group="100M", profile=2, xs=[0.015, 0.02, 0.03, 0.05, 0.1], flows=1000, long=0),
        "g4p1": dict(group="4M", profile=1, xs=[0.02, 0.3], flows=200, long=0),
        "fig24": dict(group="4M", profile=1, xs=[0.05, 0.1, 0.2, 0.4, 0.8], flows=200, long=20),
    }


#: Seeds of the 43 kb/s profile-1 sweep (Figs 11, 17, 20, 21) in the full run: its mean FCT
#: is a mean of Pareto (shape 1.5: infinite variance) sizes over 100 flows on a link that
#: carries about one flow at a time, so 5 seeds gave ±40-60 s around 140-160 s. These runs are
#: cheap (a few thousand packets each).
SEEDS_43_FULL = 20


def experiments(quick: bool, seeds: list[int], seeds43: list[int] | None = None) -> list[Experiment]:
    out = []
    for name, p in plan(quick).items():
        pts = [Point(v, x, [], scenario=fig6(p["group"], v, x, p["flows"], p["profile"], p["long"]),
                     params={"group": p["group"]})
               for v in SERIES for x in p["xs"]]
        out.append(Experiment(name, pts, measure, seeds=(seeds43 or seeds) if name == "g43p1" else seeds))
    # Sensitivity: the readings of 004 §III-C/D we had to settle (`[pathlet] share`,
    # `congested_flight`), on the 100 Mb/s sweep's ends and its first under-capacity point.
    p = plan(quick)["g100p1"]
    xs = sorted({min(p["xs"]), max(p["xs"])} | {x for x in p["xs"] if 0.004 < x < 0.006})
    pts = [Point(name, x, ov, scenario=fig6("100M", "pta", x, p["flows"]), params={"group": "100M"})
           for name, ov in READINGS for x in xs]
    out.append(Experiment("readings", pts, measure, seeds=seeds))
    # The table's other parameters (004 §II-B), off in the main runs: the initial RTO from
    # MIN_RTT / AVG_RTT and the initial ssthresh from SAFE_SSTHRESH, behind 43 kb/s (RTTs of
    # seconds under load, where a 1 s initial RTO fires before the SYN-ACK) and 100 Mb/s.
    pts = []
    for g, key in (("43k", "g43p1"), ("100M", "g100p1")):
        q = plan(quick)[key]
        for x in q["xs"][: (2 if g == "43k" else 3)]:
            for name, ov in TABLE_PARAMS:
                pts.append(Point(name, x, ov, scenario=fig6(g, "pta", x, q["flows"]), params={"group": g}))
    out.append(Experiment("table", pts, measure, seeds=seeds))
    # The 43 kb/s buffer of the first two rounds (20 packets) beside the rule-based one.
    q = plan(quick)["g43p1"]
    pts = [Point(v, x, [], scenario=fig6("43k", v, x, q["flows"], buffer43=OLD_BUFFER43_PKTS), params={"group": "43k"})
           for v in SERIES for x in q["xs"]]
    out.append(Experiment("buffer43", pts, measure, seeds=seeds))
    return out


#: The readings of 004 §III-C/D compared in the `readings` figure: (series, overrides).
READINGS: tuple[tuple[str, list[str]], ...] = (
    ("pta share=even", []),
    ("pta share=split", ["pathlet.share=split"]),
    ("pta share=budget", ["pathlet.share=budget"]),
    ("pta share=none", ["pathlet.share=none"]),
    ("pta flight=at_signal", ["pathlet.congested_flight=at_signal"]),
    ("pta loss=off", ["pathlet.loss_is_congestion=false"]),
)
#: `[pathlet]` switches of the `table` figure.
TABLE_PARAMS: tuple[tuple[str, list[str]], ...] = (
    ("pta", []),
    ("pta initial_rto", ["pathlet.initial_rto=true"]),
    ("pta ssthresh", ["pathlet.ssthresh=true"]),
)


# ---------------------------------------------------------------------------------------------
# Tabulation


def mean_ci(vals: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % Student t interval over seeds (NaN with one value)."""
    from scipy.stats import t

    vals = [v for v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return math.nan, math.nan
    m = st.fmean(vals)
    if len(vals) < 2:
        return m, math.nan
    return m, float(t.ppf(0.975, len(vals) - 1)) * st.stdev(vals) / math.sqrt(len(vals))


def by_point(df, metric: str) -> dict[tuple[str, float], tuple[float, float]]:
    """(series, x) -> (mean over seeds, 95 % CI half-width) of ``metric``."""
    out = {}
    for (s, x), g in df.groupby(["series", "x"], sort=False):
        out[(s, x)] = mean_ci(g[metric].tolist())
    return out


def _xlabel(x: float) -> str:
    return f"{x * 1000:g}ms" if x < 1 else f"{x:g}s"


def add_sweep(fig, df, metric: str, digits: int) -> dict[tuple[str, float], tuple[float, float]]:
    """Rows ``series, x = mean inter-arrival, metric`` and ``metric_ci95`` per point."""
    pts = by_point(df, metric)
    for (s, x), (m, ci) in pts.items():
        fig.add(s, _xlabel(x), metric, None if math.isnan(m) else round(m, digits))
        if not math.isnan(ci):
            fig.add(s, _xlabel(x), f"{metric}_ci95", round(ci, digits))
    return pts


def _flat(df, col: str, **where: Any) -> list[float]:
    sel = df
    for k, v in where.items():
        sel = sel[sel[k] == v]
    out: list[float] = []
    for v in sel[col].tolist():
        out.extend(v)
    return out


def _quantile(vals: list[float], q: float) -> float:
    if not vals:
        return math.nan
    v = sorted(vals)
    i = q * (len(v) - 1)
    lo = math.floor(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def _best(pts, x, series=SERIES, low=True):
    vals = {s: pts[(s, x)][0] for s in series if (s, x) in pts and not math.isnan(pts[(s, x)][0])}
    if not vals:
        return None
    return (min if low else max)(vals, key=vals.get)


def _plot_sweep(fig, pts, metric: str, ylabel: str, log_x: bool = True) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, ax = plt.subplots(figsize=(5, 3.2))
    for s in SERIES:
        xs = sorted(x for (ss, x) in pts if ss == s)
        if not xs:
            continue
        ys = [pts[(s, x)][0] for x in xs]
        es = [0 if math.isnan(pts[(s, x)][1]) else pts[(s, x)][1] for x in xs]
        ax.errorbar(xs, ys, yerr=es, marker="o", capsize=2, label=s)
    if log_x:
        ax.set_xscale("log")
        _plain_log_ticks(ax, sorted({x for (_, x) in pts}))
    ax.set_xlabel("mean inter-arrival time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(fig.title, fontsize=9)
    ax.legend(fontsize=7)
    fig.plot(f)
    plt.close(f)


def _plain_log_ticks(ax, ticks: list[float], axis: str = "x") -> None:
    """A log axis ticked at the measured values only, labelled as plain numbers (0.002, 4, 32)
    rather than matplotlib's default 2x10^-3 / 4x10^0 (qa finding; as ``plot/run.py``'s RTT
    panel does)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    a = ax.xaxis if axis == "x" else ax.yaxis
    a.set_major_locator(FixedLocator(ticks))
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_locator(NullLocator())


def _plain_log_axis(a) -> None:
    """A log axis (``ax.xaxis`` / ``ax.yaxis``) ticked at 1, 2, 3 and 5 times powers of ten and
    labelled as plain numbers (no minor labels)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    a.set_major_locator(LogLocator(subs=(1.0, 2.0, 3.0, 5.0)))
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_locator(NullLocator())


def _plot_lines(fig, lines: dict[str, list[tuple[float, float]]], xlabel: str, ylabel: str, log_y: bool = False,
                tick_labels: dict[float, str] | None = None) -> None:
    """One line per series through its (x, y) points, x logarithmic with plain labels (or
    ``tick_labels``), y too with ``log_y``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, ax = plt.subplots(figsize=(5, 3.2))
    xs: set[float] = set()
    for s, pts in lines.items():
        pts = [(x, y) for x, y in pts if y is not None and not math.isnan(y) and y > 0]
        if not pts:
            continue
        pts.sort()
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=s)
        xs.update(x for x, _ in pts)
    ax.set_xscale("log")
    _plain_log_ticks(ax, sorted(xs))
    if tick_labels:
        from matplotlib.ticker import FuncFormatter

        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: tick_labels.get(v, f"{v:g}")))
        ax.tick_params(axis="x", labelsize=7)
    if log_y:
        ax.set_yscale("log")
        _plain_log_axis(ax.yaxis)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.set_title(fig.title, fontsize=9)
    ax.legend(fontsize=7)
    fig.plot(f)
    plt.close(f)


def _plot_cdf(fig, samples: dict[str, list[float]], xlabel: str) -> None:
    """Empirical CDFs (step functions) of ``samples`` per series, one line each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, ax = plt.subplots(figsize=(5, 3.2))
    for s in SERIES:
        v = sorted(samples.get(s, []))
        if not v:
            continue
        ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", label=f"{s} ({len(v)} flows)")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    ax.set_title(fig.title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    _plain_log_axis(ax.xaxis)
    fig.plot(f)
    plt.close(f)


def run(out: Path, quick: bool, runs: int | None, progress=None) -> Report:
    n = runs or (1 if quick else 5)
    seeds = list(range(1, n + 1))
    n43 = n if (quick or runs) else SEEDS_43_FULL
    seeds43 = list(range(1, n43 + 1))
    rep = Report(
        "pta",
        "Arianfar, Sarolahti & Ott, Marooned Magic Numbers (seed 004): Figs 9-24",
        out,
        quick=quick,
        intro=(
            f"{n} seed(s) per point (seeds 1..{n}; {n43} for the 43 kb/s profile-1 sweep of Figs 11, 17, 20, "
            "21); `_ci95` rows are half-widths of 95 % t intervals of "
            "the mean over seeds. x is the mean inter-arrival time of the short flows. Topology "
            "(`python/tcplab/reproduce/pta.py` `fig6`): senders -1 ms- p1 -10 ms- p2 =bottleneck= g "
            "-1 ms- 10 receivers, p1/p2/g pathlet routers (four pathlets); bottlenecks 100 Mb/s (20 ms, "
            "500-packet RED buffer), 4 Mb/s (54 ms, 50 packets: 135 ms RTT with one packet's "
            "transmission, the paper's figure) and 43 kb/s (50 ms, 10 packets); buffers are one "
            "bandwidth-delay product at the base RTT (533 and 45 packets, rounded to 500 and 50) but "
            "at least 10 packets, the least for which RED's thresholds are whole packets (43 kb/s: BDP "
            "1.4 packets); RED marks between 10 % "
            "and 30 % of the buffer (gentle), every connection ECN-capable; 1 Gb/s elsewhere. The "
            "paper's delays and buffers are only in its Fig 6, which we do not have: these are our "
            "choices. Series: icw3 / icw10 fixed initial windows; pta = 004's pathlet table "
            "(defaults of `[pathlet]`: N = 4 periods, the initial window shared evenly among the flows "
            "started over the bottleneck pathlet in the last RTT, a congested flow's FlightSize its "
            "largest in the period, losses count on every pathlet), falling back to 3 segments; host-sharing "
            "= RFC 9040 cwnd/ssthresh/RTT cache per destination, falling back to 3. Each run drives "
            "one bottleneck group; the paper's figures are not in our copy, so `paper` is empty and "
            "the notes compare directions."
        ),
    )
    data = run_experiments(experiments(quick, seeds, seeds43), out, progress=progress,
                           workers=QUICK_WORKERS if quick else None)
    g43, g100, g4 = data["g43p1"], data["g100p1"], data["g4p1"]

    # Figs 9/10: FCT CDFs behind 4 Mb/s.
    xs4 = sorted(set(g4["x"]))
    for key, x, cond in (("fig9", max(xs4), "without congestion"), ("fig10", min(xs4), "with congestion")):
        fig = rep.figure(key, f"Fig {key[3:]}: CDF of FCT behind 4 Mb/s {cond} (mean inter-arrival {_xlabel(x)})",
                         "Quantiles of the flow completion times of all short flows over all seeds "
                         "(x = the quantile).")
        for s in SERIES:
            f = _flat(g4, "fcts", series=s, x=x)
            for q in (0.1, 0.25, 0.5, 0.75, 0.9):
                v = _quantile(f, q)
                fig.add(s, q, "fct_s", None if math.isnan(v) else round(v, 4))
        _plot_cdf(fig, {s: _flat(g4, "fcts", series=s, x=x) for s in SERIES}, "flow completion time (s)")
        med = {s: _quantile(_flat(g4, "fcts", series=s, x=x), 0.5) for s in SERIES}
        fig.note(f"Offered load (bytes requested / (flows x mean inter-arrival) / 4 Mb/s, mean over runs): "
                 f"{offered_load(g4[g4['x'] == x], '4M')[x]:.2f}.")
        fig.note("Median FCT: " + ", ".join(f"{s} {med[s]:.3f} s" for s in SERIES) + ".")
        if key == "fig9":
            fig.note(f"Paper: without congestion larger windows finish sooner and PTA is near ICW 10. Ours: "
                     f"ICW 10 {'<' if med['icw10'] < med['icw3'] else '>='} ICW 3; PTA's median is "
                     f"{med['pta'] / med['icw10']:.2f}x ICW 10's and {med['pta'] / med['icw3']:.2f}x ICW 3's.")
        else:
            fig.note(f"Paper: with congestion a larger window is no advantage and PTA behaves like ICW 3. Ours: "
                     f"ICW 10 / ICW 3 median {med['icw10'] / med['icw3']:.2f}x; PTA / ICW 3 {med['pta'] / med['icw3']:.2f}x.")

    # Figs 11-13: mean FCT vs inter-arrival.
    fig = rep.figure("fig11", "Fig 11: mean FCT, 43 kb/s bottleneck (profile 1)")
    p11 = add_sweep(fig, g43, "fct_mean_s", 3)
    _plot_sweep(fig, p11, "fct_mean_s", "mean FCT (s)")
    _direction_notes(fig, p11, "fct_mean_s", low=True,
                     claim="Paper: ICW 3 may already congest 43 kb/s; PTA finds the right (small) window.")
    fig.note("Offered load (bytes requested / (flows x mean inter-arrival) / 43 kb/s, mean over seeds): "
             + ", ".join(f"{_xlabel(x)} {v:.2f}" for x, v in offered_load(g43, "43k").items()) + ".")
    fig = rep.figure("fig11-paired", "Fig 11, paired: FCT differences between variants, 43 kb/s (profile 1)",
                     "Per seed, the variant's mean (median) FCT minus ICW 3's or ICW 10's in the same seed; "
                     "series `<a>-minus-<b>`; mean and 95 % t half-width over seeds. Also the median FCT per "
                     "variant (mean over seeds).")
    _paired_notes(fig, g43)
    fig = rep.figure("fig12", "Fig 12: mean FCT, 100 Mb/s bottleneck, low congestion (profile 1)")
    xs100 = sorted(set(g100["x"]))
    half = len(xs100) // 2
    p12 = add_sweep(fig, g100[g100["x"].isin(xs100[half:])], "fct_mean_s", 4)
    _plot_sweep(fig, p12, "fct_mean_s", "mean FCT (s)")
    _direction_notes(fig, p12, "fct_mean_s", low=True, claim="Paper: ICW 3 is clearly ineffective; PTA adapts.")
    fig = rep.figure("fig13", "Fig 13: mean FCT, 100 Mb/s bottleneck, high congestion (profile 1)")
    p13 = add_sweep(fig, g100[g100["x"].isin(xs100[:half])], "fct_mean_s", 4)
    _plot_sweep(fig, p13, "fct_mean_s", "mean FCT (s)")
    _direction_notes(fig, p13, "fct_mean_s", low=True,
                     claim="Paper: no benefit of a large window under heavy load; ICW 10 irregular, PTA adapts.")
    fig.note("Offered load (bytes requested / (flows x mean inter-arrival) / 100 Mb/s, mean over seeds): "
             + ", ".join(f"{_xlabel(x)} {v:.2f}" for x, v in offered_load(g100, "100M").items())
             + ". Share of PTA flows that started with 1 segment: "
             + ", ".join(f"{_xlabel(x)} {100 * m:.0f} %" for (_, x), (m, _) in
                         sorted(by_point(g100[g100["series"] == "pta"], "icw1_share").items(), key=lambda kv: kv[0][1]))
             + "; mean PTA initial window: "
             + ", ".join(f"{_xlabel(x)} {m:.1f}" for (_, x), (m, _) in
                         sorted(by_point(g100[g100["series"] == "pta"], "icw_segments").items(), key=lambda kv: kv[0][1]))
             + " segments.")

    # Fig 14: FCT vs flow size (100 Mb/s, the least loaded point).
    x14 = max(xs100)
    fig = rep.figure("fig14", f"Fig 14: mean FCT against flow size, 100 Mb/s (mean inter-arrival {_xlabel(x14)})",
                     "Short flows of all seeds binned by size; x = upper edge of the size bin (bytes).")
    edges = [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, float("inf")]
    gains = {}
    for s in SERIES:
        sel = g100[(g100["series"] == s) & (g100["x"] == x14)]
        pairs = [(z, t) for fl, sz in zip(sel["fcts"], sel["sizes"]) for t, z in zip(fl, sz)]
        lo = 0
        for e in edges:
            b = [t for z, t in pairs if lo < z <= e]
            lab = "inf" if e == float("inf") else int(e)
            if b:
                fig.add(s, lab, "fct_mean_s", round(st.fmean(b), 4))
                gains.setdefault(lab, {})[s] = st.fmean(b)
            lo = e
    _plot_lines(fig, {s: [(640_000 if lab == "inf" else lab, v[s]) for lab, v in gains.items() if s in v] for s in SERIES},
                "flow size bin, upper edge (bytes)", "mean FCT (s)", log_y=True, tick_labels={640_000: ">320000"})
    rel = [(lab, v["icw3"] / v["pta"]) for lab, v in gains.items() if "icw3" in v and "pta" in v and v["pta"] > 0]
    if rel:
        fig.note("ICW 3 / PTA mean FCT by size bin: " + ", ".join(f"≤{lab}: {r:.2f}" for lab, r in rel)
                 + " (paper: the relative benefit grows with flow size).")

    # Fig 15: mean initial window PTA chose (100 Mb/s, profiles 1 and 2).
    fig = rep.figure("fig15", "Fig 15: mean initial window PTA chose, 100 Mb/s",
                     "Series pta: profile 1 (40 KB); pta-profile2: profile 2 (200 KB). Mean over flows, then seeds.")
    p15 = {}
    for label, df in (("pta", g100), ("pta-profile2", data["g100p2"])):
        pts = by_point(df[df["series"] == "pta"], "icw_segments")
        for (_, x), (m, ci) in pts.items():
            fig.add(label, _xlabel(x), "icw_segments", None if math.isnan(m) else round(m, 2))
            if not math.isnan(ci):
                fig.add(label, _xlabel(x), "icw_segments_ci95", round(ci, 2))
            p15[(label, x)] = m
    _plot_lines(fig, {lab: sorted((x, m) for (l, x), m in p15.items() if l == lab) for lab in ("pta", "pta-profile2")},
                "mean inter-arrival time (s)", "mean initial window (segments)", log_y=True)
    lo_x, hi_x = min(xs100), max(xs100)
    fig.note(f"PTA's mean initial window (profile 1): {p15[('pta', hi_x)]:.1f} segments at {_xlabel(hi_x)}, "
             f"{p15[('pta', lo_x)]:.1f} at {_xlabel(lo_x)} (paper: smaller under more load; above 10 on a "
             "fast, lightly loaded link).")
    p15_43 = by_point(g43[g43["series"] == "pta"], "icw_segments")
    fig.note("Behind 43 kb/s PTA chose on average " + ", ".join(
        f"{m:.1f} at {_xlabel(x)}" for (_, x), (m, _) in sorted(p15_43.items(), key=lambda kv: kv[0][1]))
        + " segments (paper: 1 or 2).")

    # Figs 16-19: goodput.
    for key, title, df in (("fig16", "Fig 16: mean goodput, 100 Mb/s (profile 1)", g100),
                           ("fig17", "Fig 17: mean goodput, 43 kb/s (profile 1)", g43),
                           ("fig18", "Fig 18: mean goodput, 100 Mb/s (profile 2, 200 KB)", data["g100p2"]),
                           ("fig19", "Fig 19: mean goodput, 43 kb/s (profile 2, 200 KB)", data["g43p2"])):
        fig = rep.figure(key, title, "Goodput = flow size / FCT (handshake included), mean over flows, then seeds.")
        pts = add_sweep(fig, df, "goodput_mean_bps", 0)
        _plot_sweep(fig, pts, "goodput_mean_bps", "mean goodput (b/s)")
        _direction_notes(fig, pts, "goodput_mean_bps", low=False,
                         claim="Paper: ICW 10 better on the fast link, ICW 3 on the slow one; PTA better in both.")

    # Figs 20-23: drops and queue at the bottleneck.
    for key, title, metric, df, d in (("fig20", "Fig 20: drops at the 43 kb/s bottleneck", "drops", g43, 1),
                                      ("fig21", "Fig 21: mean queue at the 43 kb/s bottleneck", "queue_mean_pkts", g43, 2),
                                      ("fig22", "Fig 22: drops at the 100 Mb/s bottleneck", "drops", g100, 1),
                                      ("fig23", "Fig 23: mean queue at the 100 Mb/s bottleneck", "queue_mean_pkts", g100, 2)):
        fig = rep.figure(key, title, "drops: packets dropped by the bottleneck queue (data direction) per run; "
                                     "queue_mean_pkts: mean queue found by arriving packets.")
        pts = add_sweep(fig, df, metric, d)
        _plot_sweep(fig, pts, metric, metric)
        if metric == "drops":
            xs = sorted({x for _, x in pts})
            ratio = [(x, pts[("icw10", x)][0], pts[("icw3", x)][0], pts[("pta", x)][0]) for x in xs]
            fig.note("Drops icw10 / icw3 / pta per x: " + "; ".join(
                f"{_xlabel(x)}: {a:.0f} / {b:.0f} / {c:.0f}" for x, a, b, c in ratio)
                + (" (paper: ICW 10 raises drops sharply on 43 kb/s; PTA fewest)." if key == "fig20" else
                   " (paper: ICW 10 causes a significant number of losses at high load; PTA fewer)."))
            early = df["early_drops"].sum() / max(df["drops"].sum(), 1)
            fig.note(f"Of all drops in these runs, {100 * early:.0f} % are RED early drops of packets RED may not "
                     "mark (not ECN-capable: SYNs and retransmissions); the rest are forced drops (average queue above "
                     "the gentle range) or buffer overflows.")

    # Fig 24: long ICW-3 flows beside short flows of each variant.
    fig = rep.figure("fig24", "Fig 24: mean FCT of long 200-KB ICW-3 flows beside short flows, 4 Mb/s",
                     "Series: the short flows' variant (icw3 = all flows ICW 3). x: the short flows' mean inter-arrival.")
    p24 = add_sweep(fig, data["fig24"], "long_fct_mean_s", 3)
    _plot_sweep(fig, p24, "long_fct_mean_s", "long flows' mean FCT (s)")
    harm = []
    for x in sorted({x for _, x in p24}):
        base = p24[("icw3", x)][0]
        harm.append(f"{_xlabel(x)}: icw10 {p24[('icw10', x)][0] / base:.2f}x, pta {p24[('pta', x)][0] / base:.2f}x")
    fig.note("Long flows' FCT relative to the all-ICW-3 case: " + "; ".join(harm)
             + " (paper: PTA harms the long ICW-3 flows less than ICW 10).")

    _mechanism_figure(rep, g100, data["readings"])

    fig = rep.figure("readings", "Sensitivity: our readings of 004 §III-C/D (100 Mb/s, profile 1)",
                     "§III-D: \"The initial congestion window is shared between all flows started over the "
                     "bottleneck pathlet within a round-trip time\". even (default): a flow gets ICW/k, k = flows "
                     "started in the last RTT; split: fixed RTT windows, the k-th flow of one gets ICW/k; budget: "
                     "what the earlier ones of the window left; none: no sharing. §III-C rule (b) halves a congested "
                     "flow's FlightSize: its largest flight in the period (default) or, flight=at_signal, its flight "
                     "at the ACK carrying the indication. loss=off: retransmissions do not count as congestion "
                     "(`loss_is_congestion = false`; 004 §V-C says a confirmed loss should).")
    rd = data["readings"]
    for metric, d in (("fct_mean_s", 4), ("icw_segments", 2), ("drops", 1)):
        for (sr, x), (m, ci) in by_point(rd, metric).items():
            fig.add(sr, _xlabel(x), metric, None if math.isnan(m) else round(m, d))
            if not math.isnan(ci):
                fig.add(sr, _xlabel(x), f"{metric}_ci95", round(ci, d))
    pr = by_point(rd, "fct_mean_s")
    for x in sorted({x for _, x in pr}):
        fig.note(f"{_xlabel(x)}: mean FCT " + ", ".join(f"{n[4:]} {pr[(n, x)][0]:.3f} s" for n, _ in READINGS if (n, x) in pr)
                 + f" (icw3 {p13.get(('icw3', x), p12.get(('icw3', x), (math.nan,)))[0]:.3f} s, "
                 f"icw10 {p13.get(('icw10', x), p12.get(('icw10', x), (math.nan,)))[0]:.3f} s in the main runs).")

    fig = rep.figure("table", "The table's other parameters: initial RTO from AVG_RTT, initial ssthresh from SAFE_SSTHRESH",
                     "PTA as in the main runs (pta), with `[pathlet] initial_rto = true` (RTO of a new connection = "
                     "3 x AVG_RTT of the path's pathlet with the largest MIN_RTT, RFC 6298 (2.2) with AVG_RTT as the "
                     "first sample; clamped to the engine's RFC 6298 (2.4) minimum of 1 s) and with `ssthresh = true` (ssthresh = the smallest SAFE_SSTHRESH of the path). "
                     "timeouts: RTOs of the short flows per run (SYN timeouts included); spurious: their "
                     "retransmissions the receiver already had.")
    tb = data["table"]
    tbl = {}
    for metric, d in (("fct_mean_s", 4), ("timeouts", 1), ("spurious_retransmissions", 1), ("drops", 1)):
        for (sr, x), (m, ci) in by_point(tb, metric).items():
            fig.add(sr, _xlabel(x), metric, None if math.isnan(m) else round(m, d))
            if not math.isnan(ci):
                fig.add(sr, _xlabel(x), f"{metric}_ci95", round(ci, d))
            tbl[(sr, x, metric)] = m
    for x in sorted({x for _, x in by_point(tb, "fct_mean_s")}):
        fig.note(f"{_xlabel(x)}: timeouts per run " + ", ".join(f"{n} {tbl[(n, x, 'timeouts')]:.1f}" for n, _ in TABLE_PARAMS)
                 + "; mean FCT " + ", ".join(f"{n} {tbl[(n, x, 'fct_mean_s')]:.3f} s" for n, _ in TABLE_PARAMS) + ".")

    fig = rep.figure("buffer43", f"Sensitivity: the 43 kb/s bottleneck with the {OLD_BUFFER43_PKTS}-packet buffer of the earlier rounds",
                     f"Same runs as Figs 11, 17, 20, 21 with a {OLD_BUFFER43_PKTS}-packet RED buffer instead of "
                     f"{GROUPS['43k'][2]} (thresholds 10 % / 30 % of it).")
    b43 = data["buffer43"]
    bd = {}
    for metric, d in (("fct_mean_s", 3), ("drops", 1), ("queue_mean_pkts", 2)):
        for (sr, x), (m, ci) in by_point(b43, metric).items():
            fig.add(sr, _xlabel(x), metric, None if math.isnan(m) else round(m, d))
            if not math.isnan(ci):
                fig.add(sr, _xlabel(x), f"{metric}_ci95", round(ci, d))
            bd[(sr, x, metric)] = m
    p20 = by_point(g43, "drops")
    for x in sorted({x for _, x in by_point(b43, "drops")}):
        fig.note(f"{_xlabel(x)}: drops icw10 / icw3 / pta with {OLD_BUFFER43_PKTS} packets "
                 f"{bd[('icw10', x, 'drops')]:.0f} / {bd[('icw3', x, 'drops')]:.0f} / {bd[('pta', x, 'drops')]:.0f}, "
                 f"with {GROUPS['43k'][2]} {p20[('icw10', x)][0]:.0f} / {p20[('icw3', x)][0]:.0f} / {p20[('pta', x)][0]:.0f}.")
    unfinished = int(sum(sum(d["unfinished"]) for d in data.values()))
    fig.note(f"Unfinished short flows over all runs of the reproduction: {unfinished} (excluded from FCT means).")
    return rep


def paired(df, metric: str, a: str, b: str) -> dict[float, tuple[float, float, int]]:
    """x -> mean and 95 % t half-width over seeds of ``metric`` of series ``a`` minus ``b`` in
    the same seed, and the number of seeds. A seed fixes the workload (arrival times, sizes,
    receivers: the traffic source's own random stream), so the variants of one seed carry the
    same flows and the difference removes the flows' variance (common random numbers)."""
    out = {}
    for x, g in df.groupby("x"):
        va = g[g["series"] == a].set_index("seed")[metric]
        vb = g[g["series"] == b].set_index("seed")[metric]
        common = sorted(set(va.index) & set(vb.index))
        m, ci = mean_ci([float(va[k] - vb[k]) for k in common])
        out[x] = (m, ci, len(common))
    return dict(sorted(out.items()))


#: The paired comparisons of Fig 11: (variant, baseline).
PAIRS = (("icw10", "icw3"), ("pta", "icw3"), ("pta", "icw10"), ("host-sharing", "icw3"))


def _separates(m: float, ci: float) -> str:
    return "separates" if not math.isnan(ci) and abs(m) > ci else "overlaps 0"


def _paired_notes(fig, df) -> None:
    """Fig 11: paired differences of mean and median FCT against ICW 3 and ICW 10 (rows
    ``<series>-minus-icw3`` and ``<series>-minus-icw10``), the median FCT per variant, and the
    timeouts per flow, with a note per x saying which differences have intervals excluding 0."""
    for s in SERIES:
        for (sr, x), (m, ci) in by_point(df[df["series"] == s], "fct_median_s").items():
            fig.add(sr, _xlabel(x), "fct_median_s", round(m, 3))
            if not math.isnan(ci):
                fig.add(sr, _xlabel(x), "fct_median_s_ci95", round(ci, 3))
    notes = {}
    for s, base in PAIRS:
        for metric in ("fct_mean_s", "fct_median_s"):
            for x, (m, ci, _) in paired(df, metric, s, base).items():
                fig.add(f"{s}-minus-{base}", _xlabel(x), metric, round(m, 3))
                if not math.isnan(ci):
                    fig.add(f"{s}-minus-{base}", _xlabel(x), f"{metric}_ci95", round(ci, 3))
                notes.setdefault(x, []).append(
                    f"{s} - {base} {metric[4:-2]} {m:+.2f} ± {ci:.2f} s ({_separates(m, ci)})")
    pts = by_point(df, "fct_mean_s")
    to = by_point(df.assign(timeouts_per_flow=df["timeouts"] / df["flows"]), "timeouts_per_flow")
    for x in sorted(notes):
        nseeds = int((df[(df["x"] == x) & (df["series"] == "pta")]["seed"]).nunique())
        fig.note(f"{_xlabel(x)}, paired over {nseeds} seeds (same flows per seed): " + "; ".join(notes[x])
                 + ". Unpaired mean FCT ± 95 %: " + ", ".join(
                     f"{s} {pts[(s, x)][0]:.1f} ± {pts[(s, x)][1]:.1f}" for s in SERIES if (s, x) in pts)
                 + " s; timeouts per flow: " + ", ".join(
                     f"{s} {to[(s, x)][0]:.2f}" for s in SERIES if (s, x) in to) + ".")


#: Metrics of the `mechanism` figure (what the pathlet tables did), with their digits.
MECHANISM_METRICS = (("pt_avg_rtt_s", 3), ("pt_iw_safe_segments", 2), ("pt_iw_share_k", 2), ("pt_iw_given", 2),
                     ("icw1_share", 3), ("pt_periods", 1), ("pt_congested_share", 3), ("pt_cuts", 1),
                     ("pt_raises", 1), ("pt_held", 1), ("pt_safe_period_segments", 2), ("pt_cut_to_segments", 2))


def _mechanism_figure(rep, g100, readings) -> None:
    """Why PTA chose small windows at high load on 100 Mb/s, from the senders' tables."""
    fig = rep.figure(
        "mechanism", "Mechanism: what the pathlet tables did, 100 Mb/s (profile 1)",
        "From `pathlet_tables` of the two senders s1, s2 (each keeps its own table). pt_iw_safe_segments: "
        "SAFE_CWND of the bottleneck pathlet at a new flow's start (whole segments, before sharing); "
        "pt_iw_share_k: the flows it was shared among (004 §III-D, flows started in the last AVG_RTT, the "
        "new one included); pt_iw_given: the window given (segments); on each sender's bottleneck pathlet, "
        "summed over the two: pt_periods (update periods of AVG_RTT with a flow), pt_congested_share "
        "(share of them with a Congested Pathlet indication or a loss: rule (b) applied), pt_cuts (periods "
        "where rule (b) lowered SAFE_CWND), pt_raises (rule (a) raised it after N = 4 clean periods), "
        "pt_held (clean, but an indication in the last 4), pt_safe_period_segments (mean SAFE_CWND per "
        "period), pt_cut_to_segments (mean MIN_F(FlightSize_F/2) of the congested periods). Series pta: "
        "the main runs; the others: the `readings` runs.")
    sources = [("pta", g100[g100["series"] == "pta"])]
    sources += [(n, readings[readings["series"] == n]) for n, _ in READINGS if n != "pta share=even"]
    vals = {}
    for label, df in sources:
        for metric, d in MECHANISM_METRICS:
            for (_, x), (m, ci) in by_point(df, metric).items():
                if math.isnan(m):
                    continue
                fig.add(label, _xlabel(x), metric, round(m, d))
                if not math.isnan(ci):
                    fig.add(label, _xlabel(x), f"{metric}_ci95", round(ci, d))
                vals[(label, x, metric)] = m
    load = offered_load(g100, "100M")
    for x in sorted(load):
        v = lambda m, lab="pta": vals.get((lab, x, m), math.nan)  # noqa: E731
        # Flows one sender starts per AVG_RTT: two senders share the Poisson arrivals.
        per_rtt = v("pt_avg_rtt_s") / (2 * x)
        fig.note(
            f"{_xlabel(x)} (offered load {load[x]:.2f}): AVG_RTT {1000 * v('pt_avg_rtt_s'):.0f} ms, so one sender "
            f"starts {per_rtt:.1f} flows per AVG_RTT; a new flow found SAFE_CWND = {v('pt_iw_safe_segments'):.1f} "
            f"segments shared among k = {v('pt_iw_share_k'):.1f} flows and got {v('pt_iw_given'):.1f} "
            f"({100 * v('icw1_share'):.0f} % got 1). Bottleneck pathlet: {v('pt_periods'):.0f} periods, "
            f"{100 * v('pt_congested_share'):.0f} % congested, {v('pt_cuts'):.0f} cuts, {v('pt_raises'):.0f} "
            f"raises, {v('pt_held'):.0f} held; mean SAFE_CWND per period {v('pt_safe_period_segments'):.1f} "
            f"segments, rule (b) cut to {v('pt_cut_to_segments'):.1f} on average."
            + (f" Without sharing (share=none): SAFE_CWND {v('pt_iw_safe_segments', 'pta share=none'):.1f}, given "
               f"{v('pt_iw_given', 'pta share=none'):.1f}, {100 * v('pt_congested_share', 'pta share=none'):.0f} % "
               f"congested periods, {v('pt_raises', 'pta share=none'):.0f} raises."
               if ("pta share=none", x, "pt_iw_given") in vals else ""))


def offered_load(df, group: str) -> dict[float, float]:
    """x -> the offered load of the short flows as a fraction of the bottleneck (mean over runs):
    bytes requested over the arrival span, flows x mean inter-arrival time."""
    out = {}
    for x, g in df.groupby("x"):
        out[x] = st.fmean(b * 8 / (n * x) / RATE_BPS[group] for b, n in zip(g["bytes_offered"], g["flows"]))
    return dict(sorted(out.items()))


def values_of(df, metric: str, series: str, x: float) -> list[float]:
    return df[(df["series"] == series) & (df["x"] == x)][metric].tolist()


def _direction_notes(fig, pts, metric: str, low: bool, claim: str) -> None:
    """The best series at each x, computed from the results, after the paper's claim."""
    xs = sorted({x for _, x in pts})
    best = [f"{_xlabel(x)}: {_best(pts, x, low=low)}" for x in xs]
    pta_rank = []
    for x in xs:
        vals = sorted((pts[(s, x)][0], s) for s in SERIES if (s, x) in pts and not math.isnan(pts[(s, x)][0]))
        if not low:
            vals = vals[::-1]
        pta_rank.append(next((i + 1 for i, (_, s) in enumerate(vals) if s == "pta"), 0))
    fig.note(f"{claim} Ours, best by {metric}: " + ", ".join(best)
             + f"; PTA's rank among {len(SERIES)}: " + ", ".join(str(r) for r in pta_rank) + ".")
