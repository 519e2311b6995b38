"""Ch. 6's web-traffic setup (seed 002 §6.4, L3823-3864) as a scenario, and the metrics its
figures read from a run's summary.

Topology: servers ``srv<i>`` and reverse-path clients ``rcli<j>`` on R1, clients ``cli<i>``
and reverse-path servers ``rsrv<j>`` on R3; R1 - R2 - R3 links of ``bottleneck`` (10 Mb/s),
one-way 20 ms, 150-packet drop-tail queues; 1000 Mb/s access links. Web traffic: a ``web``
workload from the N servers to the N clients with N sessions, and a ``reverse`` one from
the N/2 servers on R3 to the N/2 clients on R1 with N/2 sessions (at least one). Every
router is Quick-Start capable (its routers' table is given by the caller); when Quick-Start is
on, all web servers request (L3844).

What the thesis leaves open, and what is chosen here:

- **Access delays** ("mean one-way link delay of 12 msec and a maximum delay of 110 msec ...
  using the process from [58]"): [58] is not available; host i of n gets the
  ((i + 0.5)/n)-quantile of an exponential of mean 12 ms, cut at 110 ms, servers in rising
  and clients in falling order so that server-client pairs mix short and long paths. The RTT
  range is narrower than the measured one the thesis used (a 10-host side reaches 36 ms).
- **Sessions**: the thesis's x-axis is "the number of web sessions" with N servers; one
  session per server is used (sessions = N).
- **Request size** in Figs 6.7/6.8 and 6.11-6.16 is not stated; the "ideal" requests of
  Fig 6.5's bottom plot are used (``size = "data"``: the object in one RTT, no request when it
  fits in the initial window), at most 2 MB/s.
"""

from __future__ import annotations

import math
import statistics as st
from typing import Any

#: §6.4 (L3826-3829): "Lbw = 10 Mbps and Ld = 20 msec", drop-tail "maximum queue size of 150
#: packets".
BOTTLENECK = "10Mbps"
LINK_DELAY_MS = 20
QUEUE = "150pkt"
#: §6.4: "dedicated 1000 Mbps links with a mean one-way link delay of 12 msec and a maximum
#: delay of 110 msec".
ACCESS_BW = "1000Mbps"
ACCESS_MEAN_MS = 12.0
ACCESS_MAX_MS = 110.0
#: §6.4: "Our web traffic simulations are run for 150 seconds."
DURATION_S = 150
#: §6.4: "an average object size of 400 packets"; Figs 6.5 and a 6.7 variant: 60 packets.
OBJECT_PACKETS = 400
SMALL_OBJECT_PACKETS = 60
#: §6.4 TCP: MSS 1460, IW 3 (the RFC 3390 default at this MSS), advertised window 10,000
#: segments, an ACK per segment.
MSS = 1460
TCP = {
    "mss": f"{MSS}B",
    "recv_buffer": f"{10_000 * MSS}B",
    "initial_rto": "3s",
    "delayed_ack": False,
    "timestamps": False,
}
#: Fig 6.5 top (L4003-4004): "a static Quick-Start request of 2 MB/sec for each connection".
STATIC_REQUEST = "2MB/s"
#: Fig 6.5 bottom: "ideal" requests sized to the object, no request within the IW.
IDEAL_REQUEST = {"request": True, "size": "data", "rate": STATIC_REQUEST}
STATIC = {"request": True, "size": "static", "rate": STATIC_REQUEST}
#: Fig 6.17 (L4598-4600): "The web servers make static Quick-Start requests of 2 Mbps for all TCP
#: connections, regardless of the object size" -- megabits, unlike Fig 6.5's 2 MB/sec (the
#: report until issue 12's third session used 2 MB/s here).
FIG617_REQUEST = "2Mbps"
STATIC_617 = {"request": True, "size": "static", "rate": FIG617_REQUEST}
#: §4.1 / Figs 6.11-6.14: Target, peak utilisation over 5 x 150 ms, recent_qs_approvals 150 ms.
TARGET = {"algorithm": "target", "qs_thresh": 0.9, "estimator": "peak", "intervals": 5, "interval": "150ms",
          "approval_memory": "150ms"}


def access_delay_ms(i: int, n: int, rising: bool = True) -> float:
    """The ((i + 0.5)/n)-quantile of an exponential of mean 12 ms, at most 110 ms (module docs);
    `rising = False` walks the quantiles from the top."""
    q = (i + 0.5) / n if rising else (n - i - 0.5) / n
    return min(ACCESS_MAX_MS, -ACCESS_MEAN_MS * math.log(1.0 - q))


def web_scenario(
    n: int,
    *,
    qs: dict[str, Any] | None,
    router: dict[str, Any] | None = None,
    bottleneck: str = BOTTLENECK,
    object_packets: float = OBJECT_PACKETS,
    duration_s: float = DURATION_S,
    pages: int | None = None,
    access_ms: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """The §6.4 setup with N = `n` web servers. `qs`: the servers' `[tcp.quick_start]` (None:
    no Quick-Start); `router`: the keys of every `[[quick_start.routers]]` entry (default
    Target as in §4.1); `access_ms`: (low, high) one-way access delays spread evenly instead of
    the exponential quantiles (Fig 6.15's narrow RTT range)."""
    m = max(1, n // 2)
    hosts = {
        "r1": [f"srv{i}" for i in range(n)] + [f"rcli{j}" for j in range(m)],
        "r3": [f"cli{i}" for i in range(n)] + [f"rsrv{j}" for j in range(m)],
    }
    nodes = [{"name": r, "kind": "router"} for r in ("r1", "r2", "r3")]
    links = []

    def link(name: str, a: str, b: str, bw: str, delay_ms: float, queue: str) -> dict[str, Any]:
        return {"name": name, "a": a, "b": b, "bandwidth": bw, "delay": f"{delay_ms:.3f}ms", "queue": queue}

    links.append(link("r1-r2", "r1", "r2", bottleneck, LINK_DELAY_MS, QUEUE))
    links.append(link("r2-r3", "r2", "r3", bottleneck, LINK_DELAY_MS, QUEUE))
    for router_name, names in hosts.items():
        for k, h in enumerate(names):
            nodes.append({"name": h, "kind": "host"})
            if access_ms is not None:
                lo, hi = access_ms
                d = lo + (hi - lo) * (k + 0.5) / len(names)
            else:
                d = access_delay_ms(k, len(names), rising=router_name == "r1")
            links.append(link(f"{h}-{router_name}", h, router_name, ACCESS_BW, d, "1000pkt"))
    tcp = dict(TCP)
    wl_tcp: dict[str, Any] = {}
    if qs is not None:
        wl_tcp["quick_start"] = dict(qs)
    common: dict[str, Any] = {"kind": "web", "object_size": {"mean": object_packets, "shape": 1.002}}
    if pages is not None:
        common["pages_per_session"] = pages
    if wl_tcp:
        common["tcp"] = wl_tcp
    workloads = [
        {"name": "web", "senders": [f"srv{i}" for i in range(n)], "receivers": [f"cli{i}" for i in range(n)],
         "sessions": n, **common},
        {"name": "reverse", "senders": [f"rsrv{j}" for j in range(m)], "receivers": [f"rcli{j}" for j in range(m)],
         "sessions": m, **common},
    ]
    sc: dict[str, Any] = {
        "name": f"quickstart-web-{n}",
        "simulation": {"duration": f"{duration_s}s"},
        "tcp": tcp,
        "nodes": nodes,
        "links": links,
        "workloads": workloads,
    }
    if qs is not None:
        r = dict(TARGET if router is None else router)
        sc["quick_start"] = {"routers": [{"node": x, **r} for x in ("r1", "r2", "r3")]}
    return sc


def forward(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The measured traffic: connections from the servers on R1 (L3839-3841)."""
    return [f for f in summary["flows"] if f["src"].startswith("srv")]


def link_metrics(summary: dict[str, Any]) -> dict[str, float]:
    """R1 -> R2 (the servers' direction): utilisation = bytes transmitted * 8 / (capacity *
    run time); drop rate = drops / (packets transmitted + drops)."""
    link = next(l for l in summary["links"] if l["name"] == "r1-r2")
    t = summary["sim_time_s"]
    sent, drops = link["packets_ab"], link["drops_ab"]
    return {
        "utilisation": link["bytes_ab"] * 8 / (link["bandwidth_bps"] * t),
        "drop_rate": drops / (sent + drops) if sent + drops else 0.0,
    }


def qs_metrics(summary: dict[str, Any]) -> dict[str, float]:
    """Over the forward connections that requested: fraction approved (Figs 6.11-6.14 middle/
    top), fraction of approved with a Quick-Start failure (a QS packet lost; bottom), and the
    share of the forward payload sent as QS packets (Figs 6.7 "QS Bandwidth", 6.15-6.17)."""
    fw = forward(summary)
    req = sum(f["quick_start"]["requests"] for f in fw if f.get("quick_start"))
    appr = sum(f["quick_start"]["approvals"] for f in fw if f.get("quick_start"))
    fail = sum(f["quick_start"]["failures"] for f in fw if f.get("quick_start"))
    qs_bytes = sum(f["quick_start"]["qs_bytes"] for f in fw if f.get("quick_start"))
    delivered = sum(f["bytes_delivered"] for f in fw)
    return {
        "requests": float(req),
        "approved_frac": appr / req if req else math.nan,
        "failed_frac": fail / appr if appr else math.nan,
        "qs_bytes_frac": qs_bytes / delivered if delivered else math.nan,
    }


#: Fig 6.8's object-size classes (packets of 1460 B): upper edges.
SIZE_BINS = (3, 10, 30, 100, 300, 1000, 10_000)


def size_bin(packets: int) -> int | None:
    for edge in SIZE_BINS:
        if packets <= edge:
            return edge
    return None


def _bps(bw: str) -> float:
    """`"10Mbps"` -> 10e6 (bits/s)."""
    units = {"Gbps": 1e9, "Mbps": 1e6, "kbps": 1e3}
    for u, f in units.items():
        if bw.endswith(u):
            return float(bw[: -len(u)]) * f
    raise ValueError(bw)


def _qs_n(bps: float) -> int:
    """The rate field an approval of `bps` bytes/s quantises down to (largest N with
    5000 * 2^N <= bps, at most 15; `QsRate::approve_floor`)."""
    n = 0
    while n < 15 and 5000 * 2 ** (n + 1) <= bps:
        n += 1
    return n


def mean_sd(vals: list[float]) -> tuple[float, float]:
    vals = [v for v in vals if not math.isnan(v)]
    if not vals:
        return math.nan, math.nan
    return float(st.fmean(vals)), float(st.stdev(vals)) if len(vals) > 1 else 0.0


# ---------------------------------------------------------------------------------------------
# The runs as data (`experiment.py`): every web figure is an experiment of points (series, x:
# a scenario built by web_scenario) x seeds, measured by `measure_web` on the sweep engine's
# workers. The figure functions read the rows.


def measure_web(res, point) -> dict[str, Any]:
    """One run's row: R1 -> R2 utilisation and drop rate, the forward connections' Quick-Start
    counts, and with `params["per_object"]` each forward object's size (packets), start and
    duration (NaN: unfinished) for Fig 6.8."""
    s = res.summary
    row: dict[str, Any] = {**link_metrics(s), **qs_metrics(s)}
    fw = forward(s)
    row["approved_conns"] = sum(1 for f in fw if (f.get("quick_start") or {}).get("approvals"))
    if point.params.get("per_object"):
        row["obj_packets"] = [math.ceil(f["bytes_requested"] / MSS) for f in fw]
        row["obj_start"] = [f["start_s"] for f in fw]
        row["obj_fct"] = [f["fct_s"] if f["fct_s"] is not None else math.nan for f in fw]
        row["obj_approved"] = [bool((f.get("quick_start") or {}).get("approvals")) for f in fw]
    return row


def _plan(quick: bool) -> dict[str, tuple[dict[str, Any], list[Any], bool]]:
    """Each web experiment: {series: (qs, router, web_scenario keywords)}, its x values (the
    number of servers N, or Fig 6.8's bottleneck), and whether it is a router sweep (fewer
    seeds)."""
    z = sizes_for_progress(quick)
    d = z["duration"]
    base = dict(TARGET)
    plan: dict[str, tuple[dict[str, Any], list[Any], bool]] = {
        "fig6.5": ({"static": (STATIC, None, {"object_packets": SMALL_OBJECT_PACKETS}),
                    "ideal": (IDEAL_REQUEST, None, {"object_packets": SMALL_OBJECT_PACKETS})}, [z["n65"]], False),
        "fig6.7": ({"noqs": (None, None, {}), "qs": (IDEAL_REQUEST, None, {})}, z["xs67"], False),
        "fig6.8": ({"noqs": (None, None, {}), "qs": (IDEAL_REQUEST, None, {})}, ["10Mbps", "100Mbps"], False),
        "fig6.11": ({f"share-{a}": (IDEAL_REQUEST, {**base, "algorithm": "share", "alloc_rate": a}, {})
                     for a in z["share"]}, z["xs_router"], True),
        "fig6.12": ({f"target-{t}": (IDEAL_REQUEST, {**base, "qs_thresh": t}, {}) for t in z["target"]},
                    z["xs_router"], True),
        "fig6.13": ({f"ewma-w{w}-{-1 / math.log(1 - w):.0f}pkts": (IDEAL_REQUEST, {**base, "estimator": "ewma", "ewma_weight": w}, {})
                     for w in z["ewma"]}, z["xs_router"], True),
        "fig6.14": ({f"peak-{k}x150ms": (IDEAL_REQUEST, {**base, "intervals": k}, {}) for k in z["peak"]},
                    z["xs_router"], True),
    }
    # Fig 6.15/6.16: RTTs 80-120 ms: 80 ms over the two 20 ms links, plus 0-40 ms of access
    # round trip (one-way access delays spread over 0-10 ms on each side).
    access = {"access_ms": EXTREME_ACCESS_MS}
    for key, memory, qs, extra in (("fig6.15", "100ms", IDEAL_REQUEST, {}), ("fig6.16", "1.5s", IDEAL_REQUEST, {}),
                                   ("fig6.17", "150ms", STATIC_617, {"usage_score": True, "usage_weight": 0.2})):
        basic = {**TARGET, "approval_memory": memory}
        extreme = {**TARGET, "approval_memory": memory, "extreme": True, "flow_rtt": "100ms", **extra}
        series = {"basic": (qs, basic, access), "extreme": (qs, extreme, access)}
        if key == "fig6.17":
            # The earlier model, for comparison: C measured over one router RTT after the
            # approval, which ends before the QS packets arrive (sim/quickstart/extreme.rs).
            series[FIG617_ONE_RTT] = (qs, {**extreme, "usage_interval": extreme["flow_rtt"]}, access)
        plan[key] = (series, z["xs_extreme"], True)
    for key, (series, xs, sweep) in plan.items():
        for name, (qs, router, kw) in series.items():
            kw.setdefault("duration_s", d)
    return plan


#: Fig 6.17's third series: Extreme with the usage C measured over one router RTT after the
#: approval (`usage_interval = flow_rtt`) instead of the thesis's 1.5 s monitoring period.
FIG617_ONE_RTT = "extreme-1rtt"

#: Figs 6.15/6.16's one-way access delays (ms), spread over each side's hosts.
EXTREME_ACCESS_MS = (0.0, 10.0)


def experiments(quick: bool, seeds: list[int]):
    """Every web run of the reproduction, as experiments (points x seeds)."""
    from .experiment import Experiment, Point

    z = sizes_for_progress(quick)
    exps = []
    for key, (series, xs, sweep) in _plan(quick).items():
        points = []
        for name, (qs, router, kw) in series.items():
            for x in xs:
                if key == "fig6.8":
                    sc = web_scenario(z["n68"], qs=qs, router=router, bottleneck=x, **kw)
                else:
                    sc = web_scenario(x, qs=qs, router=router, **kw)
                points.append(Point(name, x, scenario=sc, params={"per_object": True} if key == "fig6.8" else {}))
        exps.append(Experiment(key, points, measure_web, seeds=seeds[:z["sweep_runs"]] if sweep else seeds))
    return exps


def _rows(df, series: str, x: Any) -> list[dict[str, Any]]:
    """The rows (one per seed, in seed order) of point (series, x)."""
    return df[(df["series"] == series) & (df["x"] == x)].to_dict("records")


def _sweep(df, configs, xs) -> dict[tuple[str, Any], list[dict[str, Any]]]:
    return {(name, x): _rows(df, name, x) for name in configs for x in xs}


def _add_ms(fig, series: str, x: Any, metric: str, vals: list[float], digits: int = 4, paper: Any = None) -> float:
    m, sd = mean_sd(vals)
    fig.add(series, x, metric, round(m, digits) if not math.isnan(m) else m, paper)
    fig.add(series, x, f"{metric}_sd", round(sd, digits) if not math.isnan(sd) else sd, None)
    return m


#: Seeds of each point of the router sweeps (Figs 6.11-6.17): the thesis's 12 repetitions
#: (L3858-3861), as every other point (684 sweep runs of up to 20 servers; the whole full run's
#: wall time is in docs/reproductions/quickstart.md).
SWEEP_RUNS = 12


def sizes_for_progress(quick: bool) -> dict[str, Any]:
    """The sweep sizes (also for the progress bar's total)."""
    if quick:
        return {"n65": 3, "xs67": [3], "xs_router": [10], "share": [0.5], "target": [0.9], "ewma": [0.01],
                "peak": [5], "xs_extreme": [10], "duration": 40, "n68": 3, "sweep_runs": 1}
    return {"n65": 3, "xs67": [1, 3, 5, 10, 20], "xs_router": [5, 10, 20], "share": [0.25, 0.5, 0.9],
            "target": [0.5, 0.7, 0.9], "ewma": [0.001, 0.01, 0.1], "peak": [3, 5, 10, 20], "xs_extreme": [5, 10, 20],
            "duration": DURATION_S, "n68": 3, "sweep_runs": SWEEP_RUNS}


def count_runs(quick: bool, runs: int) -> int:
    z = sizes_for_progress(quick)
    n = 2  # Fig 6.5
    n += 2 * len(z["xs67"])
    n += 4  # Fig 6.8: two bottlenecks, with and without
    sweep = (len(z["share"]) + len(z["target"]) + len(z["ewma"]) + len(z["peak"])) * len(z["xs_router"])
    sweep += (3 * 2 + 1) * len(z["xs_extreme"])  # Fig 6.17 has a third series
    return n * runs + sweep * min(runs, z["sweep_runs"])


def fig_6_5(rep, data, quick: bool) -> None:
    z = sizes_for_progress(quick)
    n = z["n65"]
    fig = rep.figure(
        "fig6.5", "Fig. 6.5: request sizing with web traffic (static 2 MB/s vs ideal requests)",
        f"web_scenario(N = {n}), mean object {SMALL_OBJECT_PACKETS} packets, {z['duration']} s, Target routers "
        "(0.9, peak 5 x 150 ms, 150 ms memory). static: every connection requests 2 MB/s on its SYN; ideal: "
        "the object in one RTT (size = \"data\", at most 2 MB/s), no request when it fits in the IW of 3 segments. "
        "Forward connections only: requests, approved_frac (approvals / requests), approved_conns (approved "
        "connections), qs_bytes_frac (share of the forward payload sent as QS packets).")
    res = _sweep(data["fig6.5"], ["static", "ideal"], [n])
    got = {}
    for series in ("static", "ideal"):
        ms = res[(series, n)]
        appr = [m["approved_conns"] for m in ms]
        _add_ms(fig, series, n, "requests", [m["requests"] for m in ms], 1)
        got[series] = (_add_ms(fig, series, n, "approved_frac", [m["approved_frac"] for m in ms]),
                       _add_ms(fig, series, n, "approved_conns", [float(a) for a in appr], 1),
                       _add_ms(fig, series, n, "qs_bytes_frac", [m["qs_bytes_frac"] for m in ms]))
    fig.note(
        f"Static requests: {got['static'][0]:.1%} of the requests approved ({got['static'][1]:.0f} connections); ideal: "
        f"{got['ideal'][0]:.1%} ({got['ideal'][1]:.0f} connections); QS packets carry {got['static'][2]:.1%} vs "
        f"{got['ideal'][2]:.1%} of the forward bytes. Thesis: with static requests only the first connection of each "
        "page is usually approved (it takes all the QS bandwidth and cannot use it); with ideal requests approvals "
        "are more frequent. Ideal requests also skip every object that fits in the IW (most objects: the "
        "Pareto-II median is 1 packet), so there are fewer requests.")


def fig_6_7(rep, data, quick: bool) -> dict[str, Any]:
    z = sizes_for_progress(quick)
    xs = z["xs67"]
    fig = rep.figure(
        "fig6.7", "Fig. 6.7: utilisation and drop rate with web traffic, with and without Quick-Start",
        f"web_scenario(N) for N web sessions (one per server, plus N/2 reverse-path sessions), 10 Mb/s, mean "
        f"object {OBJECT_PACKETS} packets, {z['duration']} s. R1 -> R2: utilisation (bytes transmitted * 8 / "
        "capacity / run time) and drop rate (drops / (transmitted + drops)); qs_bytes_frac = share of the forward "
        "payload sent as QS packets (the thesis's \"QS Bandwidth\").")
    res = _sweep(data["fig6.7"], ["noqs", "qs"], xs)
    agg: dict[str, dict[str, list[float]]] = {"noqs": {"utilisation": [], "drop_rate": []},
                                              "qs": {"utilisation": [], "drop_rate": [], "qs_bytes_frac": []}}
    for series in ("noqs", "qs"):
        for x in xs:
            lm = res[(series, x)]
            for m in ("utilisation", "drop_rate"):
                agg[series][m].append(_add_ms(fig, series, x, m, [v[m] for v in lm]))
            if series == "qs":
                agg[series]["qs_bytes_frac"].append(
                    _add_ms(fig, series, x, "qs_bytes_frac", [s["qs_bytes_frac"] for s in res[(series, x)]]))
    du = max(abs(a - b) for a, b in zip(agg["qs"]["utilisation"], agg["noqs"]["utilisation"]))
    dd = [(a, b) for a, b in zip(agg["qs"]["drop_rate"], agg["noqs"]["drop_rate"])]
    fig.note(
        f"Utilisation with and without Quick-Start differs by at most {du:.3f} (absolute) over N = {xs}; drop rates "
        + ", ".join(f"N={x}: {a:.3%} with / {b:.3%} without" for x, (a, b) in zip(xs, dd))
        + "; QS packets carry " + ", ".join(f"{v:.1%}" for v in agg["qs"]["qs_bytes_frac"])
        + " of the forward bytes. Thesis: utilisation and drop rates largely independent of Quick-Start. "
        "The workload is identical with and without (open-loop sessions, a pure function of the seed).")
    if len(xs) > 1:
        _plot_lines(fig, "Fig 6.7", "web sessions N", xs, [
            ("utilisation", {s: agg[s]["utilisation"] for s in agg} | {"QS bytes": agg["qs"]["qs_bytes_frac"]}),
            ("drop rate", {s: agg[s]["drop_rate"] for s in agg}),
        ])
    return agg


def fig_6_8(rep, data, quick: bool) -> None:
    z = sizes_for_progress(quick)
    n = z["n68"]
    fig = rep.figure(
        "fig6.8", "Fig. 6.8: per-connection duration against object size, with and without Quick-Start",
        f"web_scenario(N = {n}) at 10 Mb/s and 100 Mb/s, {z['duration']} s, mean object {OBJECT_PACKETS} "
        "packets. The objects are the same with and without Quick-Start (same seed, open-loop sessions), so each "
        "forward object completed in both runs is compared with itself: x = size class (objects of at most x "
        "packets, above the previous class), duration_s = mean duration (SYN to last byte), speedup = median of "
        "duration without / duration with Quick-Start, objects = number compared (summed over seeds).")
    bws = ["10Mbps", "100Mbps"]
    res = _sweep(data["fig6.8"], ["noqs", "qs"], bws)
    speed: dict[str, dict[int, float]] = {}
    diag: dict[str, dict[str, float]] = {}
    for bw in bws:
        pairs: dict[int, list[tuple[float, float]]] = {}
        medium: dict[bool, list[float]] = {True: [], False: []}
        for s0, s1 in zip(res[("noqs", bw)], res[("qs", bw)]):
            if (s0["obj_packets"], s0["obj_start"]) != (s1["obj_packets"], s1["obj_start"]):
                raise RuntimeError("web objects differ with and without Quick-Start (the workload must not)")
            for pk, fa, fb, ok in zip(s0["obj_packets"], s0["obj_fct"], s1["obj_fct"], s1["obj_approved"]):
                if math.isnan(fa) or math.isnan(fb):
                    continue
                e = size_bin(pk)
                if e is not None:
                    pairs.setdefault(e, []).append((fa, fb))
                if 30 < pk <= 1000:
                    medium[ok].append(fa / fb)
        # Why the 10 Mb/s speedup is smaller: how often medium objects were approved, the
        # speedup of those that were, and the router's largest possible approval on this link.
        qs_runs = res[("qs", bw)]
        n_ok, n_all = len(medium[True]), len(medium[True]) + len(medium[False])
        cap = 5000 * 2 ** _qs_n(TARGET["qs_thresh"] * _bps(bw) / 8)
        diag[bw] = {"approved_frac": _nanmean([r["approved_frac"] for r in qs_runs]),
                    "medium_approved": n_ok / n_all if n_all else math.nan,
                    "speedup_approved": st.median(medium[True]) if medium[True] else math.nan,
                    "speedup_denied": st.median(medium[False]) if medium[False] else math.nan,
                    "utilisation": _nanmean([r["utilisation"] for r in qs_runs]),
                    "cap_Bps": float(cap), "cap_of_link": cap / (_bps(bw) / 8)}
        for m, v in diag[bw].items():
            fig.add(f"qs-{bw}", "medium", m, round(v, 4) if m != "cap_Bps" else v, None)
        speed[bw] = {}
        for e in SIZE_BINS:
            p = pairs.get(e, [])
            if not p:
                continue
            fig.add(f"noqs-{bw}", e, "duration_s", round(st.fmean(a for a, _ in p), 4), None)
            fig.add(f"qs-{bw}", e, "duration_s", round(st.fmean(b for _, b in p), 4), None)
            sp = st.median(a / b for a, b in p)
            speed[bw][e] = sp
            fig.add(f"qs-{bw}", e, "speedup", round(sp, 3), "2-3" if e >= 30 else None)
            fig.add(f"qs-{bw}", e, "objects", len(p), None)
    fig.note("Median speedup by size class (packets): " + "; ".join(
        f"{bw}: " + ", ".join(f"<={e}: {v:.2f}x" for e, v in speed[bw].items()) for bw in bws)
        + ". Thesis: medium to large transfers finish 2-3x sooner in many cases, more on the faster path; "
        "one- to three-packet objects cannot gain (they fit in the IW and ideal requests skip them).")
    d10, d100 = diag["10Mbps"], diag["100Mbps"]
    fig.note(
        "Why 10 Mb/s gains less (rows x = medium: objects of 31-1000 packets): "
        f"{d10['medium_approved']:.0%} of them were approved at 10 Mb/s against {d100['medium_approved']:.0%} at "
        f"100 Mb/s (all requests: {d10['approved_frac']:.0%} vs {d100['approved_frac']:.0%}), at a mean "
        f"utilisation of {d10['utilisation']:.0%} vs {d100['utilisation']:.0%}; the approved ones finish "
        f"{d10['speedup_approved']:.2f}x vs {d100['speedup_approved']:.2f}x sooner (median), the denied ones "
        f"{d10['speedup_denied']:.2f}x vs {d100['speedup_denied']:.2f}x. An approval can be at most "
        f"{TARGET['qs_thresh']} of the link quantised down: {d10['cap_Bps']:,.0f} B/s = {d10['cap_of_link']:.0%} of "
        f"10 Mb/s, {d100['cap_Bps']:,.0f} B/s = {d100['cap_of_link']:.0%} of 100 Mb/s. The open-loop sessions "
        "launch all their pages within about 30 pages x 0.8 s of the start, so the three servers' heavy-tailed "
        "objects overlap on the 10 Mb/s link and the peak estimate (5 x 150 ms) sees it busy when most medium "
        "objects ask; the thesis does not give its session launch times or request sizes for Fig 6.8 "
        "(quickstart_web.py's module docs).")


def fig_6_11_14(rep, data, quick: bool) -> None:
    z = sizes_for_progress(quick)
    plan = _plan(quick)
    xs = z["xs_router"]
    groups = [
        ("fig6.11", "Fig. 6.11: the Share algorithm for a range of ALLOC_RATE", plan["fig6.11"][0]),
        ("fig6.12", "Fig. 6.12: the Target algorithm for a range of qs_thresh", plan["fig6.12"][0]),
        ("fig6.13", "Fig. 6.13: Target 90 % with the moving-average (EWMA) utilisation estimator", plan["fig6.13"][0]),
        ("fig6.14", "Fig. 6.14: Target 90 % with peak utilisation over a range of 150 ms intervals", plan["fig6.14"][0]),
    ]
    figs, aggs = {}, {}
    for key, title, configs in groups:
        fig = figs[key] = rep.figure(
            key, title,
            f"web_scenario(N) for N web servers (x), 10 Mb/s, mean object {OBJECT_PACKETS} packets, {z['duration']} s, "
            f"{len(set(data[key]['seed']))} seeds per point, ideal requests; every router with the series' algorithm (peak over 5 x 150 ms and a 150 ms "
            "recent_qs_approvals unless the series says otherwise). utilisation of R1 -> R2; approved_frac = "
            "approvals / requests; failed_frac = approved requests whose QS packets saw a loss / approvals "
            "(forward connections). EWMA series are labelled with w and the estimation interval -1/ln(1-w) in "
            "departures, as the thesis's legend.")
        res = _sweep(data[key], configs, xs)
        agg: dict[str, dict[str, list[float]]] = aggs.setdefault(key, {})
        for name in configs:
            agg[name] = {"utilisation": [], "approved_frac": [], "failed_frac": []}
            for x in xs:
                lm = qm = res[(name, x)]
                agg[name]["utilisation"].append(_add_ms(fig, name, x, "utilisation", [v["utilisation"] for v in lm]))
                agg[name]["approved_frac"].append(_add_ms(fig, name, x, "approved_frac", [v["approved_frac"] for v in qm]))
                agg[name]["failed_frac"].append(_add_ms(fig, name, x, "failed_frac", [v["failed_frac"] for v in qm]))
        fig.note("Mean over N of approved_frac / failed_frac: " + ", ".join(
            f"{name} {_nanmean(agg[name]['approved_frac']):.3f} / {_nanmean(agg[name]['failed_frac']):.4f}" for name in agg) + ".")
        if len(xs) > 1:
            _plot_lines(fig, title.split(":")[0], "web servers N", xs, [
                ("utilisation", {k: v["utilisation"] for k, v in agg.items()}),
                ("approved fraction", {k: v["approved_frac"] for k, v in agg.items()}),
                ("failed fraction of approved", {k: v["failed_frac"] for k, v in agg.items()}),
            ])
    sh, tgt = aggs["fig6.11"], aggs["fig6.12"]
    figs["fig6.12"].note(
        "Share vs Target (means over N and over the parameter values): approved "
        f"{_nanmean([_nanmean(v['approved_frac']) for v in sh.values()]):.3f} vs "
        f"{_nanmean([_nanmean(v['approved_frac']) for v in tgt.values()]):.3f}, failed "
        f"{_nanmean([_nanmean(v['failed_frac']) for v in sh.values()]):.4f} vs "
        f"{_nanmean([_nanmean(v['failed_frac']) for v in tgt.values()]):.4f}. Thesis: Share approves more "
        "and fails more as the network gets congested; both failure fractions small.")
    ew, pk = aggs["fig6.13"], aggs["fig6.14"]
    figs["fig6.14"].note(
        "EWMA vs peak (means over N and the parameter values): approved "
        f"{_nanmean([_nanmean(v['approved_frac']) for v in ew.values()]):.3f} vs "
        f"{_nanmean([_nanmean(v['approved_frac']) for v in pk.values()]):.3f}, failed "
        f"{_nanmean([_nanmean(v['failed_frac']) for v in ew.values()]):.4f} vs "
        f"{_nanmean([_nanmean(v['failed_frac']) for v in pk.values()]):.4f}. Thesis (Figs 6.13/6.14): the estimator "
        "hardly changes the approval rate, but EWMA gives more failures than peak; with 3 intervals more failures "
        "above 50 servers, with 20 hardly any, and 10 or more intervals approve noticeably less.")


def fig_6_15_17(rep, data, quick: bool) -> None:
    z = sizes_for_progress(quick)
    xs = z["xs_extreme"]
    for key, title, memory, qs, extra in (
        ("fig6.15", "Fig. 6.15: Extreme vs basic Quick-Start, tuned (RTT 80-120 ms, recent_qs_approvals 100 ms)",
         "100ms", IDEAL_REQUEST, {}),
        ("fig6.16", "Fig. 6.16: Extreme vs basic Quick-Start, conservative (recent_qs_approvals 1.5 s)",
         "1.5s", IDEAL_REQUEST, {}),
        ("fig6.17", "Fig. 6.17: static 2 Mb/s requests for every connection: basic vs Extreme with the usage score",
         "150ms", STATIC_617, {"usage_score": True, "usage_weight": 0.2}),
    ):
        fig = rep.figure(
            key, title,
            f"web_scenario(N) for N web servers (x), 10 Mb/s, {z['duration']} s, {len(set(data[key]['seed']))} seeds per point, one-way "
            "access delays spread over "
            f"0-10 ms each side (RTTs 80-120 ms); basic = Target 0.9 with peak "
            f"utilisation (5 x 150 ms) and recent_qs_approvals {memory}; extreme = the same with Extreme Quick-Start's "
            "per-flow accounting (router RTT estimate 100 ms)"
            + (" and the usage score S(H) (eq. 6.5, w = 0.2)" if extra else "")
            + ". Requests: " + (f"static {FIG617_REQUEST}" if qs is STATIC_617 else "ideal") + ". utilisation of R1 -> R2; "
            "qs_bytes_frac = share of the forward payload sent as QS packets; approved_frac = approvals / requests.")
        names = ["basic", "extreme"] + ([FIG617_ONE_RTT] if key == "fig6.17" else [])
        res = _sweep(data[key], names, xs)
        agg: dict[str, dict[str, list[float]]] = {}
        for name in names:
            agg[name] = {"utilisation": [], "qs_bytes_frac": [], "approved_frac": []}
            for x in xs:
                lm = qm = res[(name, x)]
                agg[name]["utilisation"].append(_add_ms(fig, name, x, "utilisation", [v["utilisation"] for v in lm]))
                agg[name]["qs_bytes_frac"].append(_add_ms(fig, name, x, "qs_bytes_frac", [v["qs_bytes_frac"] for v in qm]))
                agg[name]["approved_frac"].append(_add_ms(fig, name, x, "approved_frac", [v["approved_frac"] for v in qm]))
        b, e = agg["basic"], agg["extreme"]
        fig.note(
            "QS share of the forward bytes, basic vs extreme: " + ", ".join(
                f"N={x}: {b['qs_bytes_frac'][i]:.3f} vs {e['qs_bytes_frac'][i]:.3f}" for i, x in enumerate(xs))
            + "; utilisation " + ", ".join(
                f"N={x}: {b['utilisation'][i]:.3f} vs {e['utilisation'][i]:.3f}" for i, x in enumerate(xs))
            + ". Thesis: utilisation about the same, a larger fraction of bytes sent with Quick-Start under Extreme "
            "QS" + (" (a larger gap with the conservative 1.5 s memory than in Fig 6.15)." if key == "fig6.16" else "."))
        if key == "fig6.17":
            o = agg[FIG617_ONE_RTT]
            fig.note(
                "Approved fraction of the requests, basic vs extreme vs extreme-1rtt: " + ", ".join(
                    f"N={x}: {b['approved_frac'][i]:.3f} vs {e['approved_frac'][i]:.3f} vs {o['approved_frac'][i]:.3f}"
                    for i, x in enumerate(xs))
                + "; QS share of the forward bytes with extreme-1rtt: " + ", ".join(
                    f"N={x}: {o['qs_bytes_frac'][i]:.3f}" for i, x in enumerate(xs))
                + f". Setup from the text (L4598-4600): static {FIG617_REQUEST} requests (megabits). The usage "
                "C = B(F)/A(F) of eq. 6.5 is measured over the thesis's \"measurement interval of 1.5 seconds\" "
                "after the approval (`usage_interval`, sim/quickstart/extreme.rs), with A(F) the allocation over one "
                "router RTT (100 ms). extreme-1rtt is the earlier model, C measured over one RTT after the approval: "
                "the Request rides on the SYN, so that period ends before the QS packets (sent when the Response "
                "is back, one RTT later) reach the router, C is about 0 and S(H) collapses.")
        if len(xs) > 1:
            _plot_lines(fig, title.split(":")[0], "web servers N", xs, [
                ("utilisation", {k: v["utilisation"] for k, v in agg.items()}),
                ("QS share of bytes", {k: v["qs_bytes_frac"] for k, v in agg.items()}),
            ])


def _nanmean(vals: list[float]) -> float:
    v = [x for x in vals if not math.isnan(x)]
    return float(st.fmean(v)) if v else math.nan


def _plot_lines(fig_obj, title: str, xlabel: str, xs: list[Any], panels: list[tuple[str, dict[str, list[float]]]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(panels), 1, figsize=(6.0, 2.2 * len(panels)), sharex=True, squeeze=False)
    for ax, (label, lines) in zip(axes[:, 0], panels):
        for name, ys in lines.items():
            ax.plot(xs, ys, marker="o", ms=3, label=name)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    axes[-1, 0].set_xlabel(xlabel)
    fig.suptitle(title, fontsize=9)
    fig_obj.plot(fig)
    plt.close(fig)
