"""Sarolahti's dissertation (seed 002): F-RTO and Eifel (Ch. 4, Tables 4.1-4.3, Figs 4.5-4.7)
and the responses to a spurious RTO (Ch. 5, Tables 5.1-5.5).

Every run is one simulation of a shipped scenario (``gprs.toml`` for Ch. 4, ``frto-ch5-*.toml``
for Ch. 5) with ``--set``-style overrides; the variants differ only in the ``[tcp]`` keys the
thesis names. Metrics are computed from the run summary exactly as the thesis defines them
(spec part 1 §5.4, part 2 §2.3). Medians of the runs for Ch. 4, means for Ch. 5.
"""

from __future__ import annotations

import copy
import statistics as st
import tomllib
from pathlib import Path
from typing import Any

from .. import scenarios as shipped
from .common import Report
from .experiment import QUICK_WORKERS, Experiment, Point, add_rows, aggregate, run_experiments, values

TITLE = "Sarolahti's dissertation: F-RTO / Eifel (Tables 4.1-4.3), spurious-RTO responses (Tables 5.1-5.5)"

#: Ch. 4: "We use unidirectional 100 KB bulk transfers" (L2489-2490); KB = 1024 B.
CH4_BYTES = 100 * 1024
#: Ch. 5: "Each TCP sender transmits a 200 KB-sized file" (L3065-3068).
CH5_BYTES = 200 * 1024
#: The thesis' repetitions: "repeated 30 times" (L2491-2492) / "means of 30 replications" (L3124).
PAPER_RUNS = 30
QUICK_RUNS = 3

#: Ch. 4's hosts ran "Linux 2.4.7" (L2470-2487): the `linux-2.4` profile sets the Linux RTO
#: variant (rtt/linux.rs), 10 ms clocks, per-ACK RTT sampling, RTO 3 s initial / 200 ms min /
#: 120 s max and the RFC 3390 IW. The rest of the sender stays the RFC model (rate-halving was
#: off in the thesis, conservative SACK recovery and Limited Transmit on). The sensitivity table
#: shows the same rows with the RFC 6298 defaults.
CH4_BASE = ["tcp.profile=linux-2.4"]
_NEWRENO = ["tcp.sack=false", "tcp.recovery=newreno"]
#: Eifel needs timestamps; the MTU stays 296 B (footnote 4, L2440-2441), so the MSS drops by the
#: 12-byte option to 244 B ("the 12-byte timestamp overhead", L2594-2600).
_EIFEL = ["tcp.spurious_detection=eifel", "tcp.spurious_response=eifel", "tcp.timestamps=true", "tcp.mss=244B"]
#: Basic F-RTO with the thesis' Ch. 4 response: cwnd = ssthresh = half, congestion avoidance
#: (L2833-2835) -- the `conventional` response keeps what F-RTO itself did.
_FRTO = ["tcp.spurious_detection=frto", "tcp.spurious_response=conventional"]

#: Table 4.x rows in the thesis' order: (series, overrides).
CH4_VARIANTS: list[tuple[str, list[str]]] = [
    ("Eifel w/ SACK", _EIFEL),
    ("F-RTO w/ SACK", _FRTO),
    ("Regular SACK", []),
    ("Regular NewReno", _NEWRENO),
    ("F-RTO w/ NewReno", _NEWRENO + _FRTO),
    ("Eifel w/ NewReno", _NEWRENO + _EIFEL),
]

# Tables 4.1-4.3 verbatim (spec part 1 §5.5): series -> (time_s, pkts_lost, rexmits).
PAPER_CH4: dict[str, dict[str, tuple[float, float, float]]] = {
    "table4.1": {
        "Eifel w/ SACK": (77.94, 11, 16), "F-RTO w/ SACK": (76.23, 4, 12), "Regular SACK": (94.13, 9, 57),
        "Regular NewReno": (90.72, 10, 60), "F-RTO w/ NewReno": (75.18, 6, 13), "Eifel w/ NewReno": (79.21, 11, 19),
    },
    "table4.2": {
        "Eifel w/ SACK": (80.68, 39, 26), "F-RTO w/ SACK": (75.69, 36, 24), "Regular SACK": (76.18, 36, 22),
        "Regular NewReno": (82.38, 36, 26), "F-RTO w/ NewReno": (81.67, 36, 26), "Eifel w/ NewReno": (89.64, 38, 27),
    },
    "table4.3": {
        "Eifel w/ SACK": (123.89, 50, 45), "F-RTO w/ SACK": (64.94, 42, 40), "Regular SACK": (71.23, 42, 39),
        "Regular NewReno": (74.48, 42, 43), "F-RTO w/ NewReno": (67.80, 39, 43), "Eifel w/ NewReno": (80.03, 42, 42),
    },
}

#: Ch. 5 variants: Regular, and F-RTO (SACK-enhanced; basic for Table 5.5) with CC 1-3.
def ch5_variants(detector: str) -> list[tuple[str, list[str]]]:
    f = [f"tcp.spurious_detection={detector}"]
    return [
        ("Regular", []),
        ("CC 1", f + ["tcp.spurious_response=cc1"]),
        ("CC 2", f + ["tcp.spurious_response=cc2"]),
        ("CC 3", f + ["tcp.spurious_response=cc3"]),
    ]

# Tables 5.1-5.5 verbatim (spec part 2 §2.4): series -> (tput_low, tput_high, losses, rxmits).
PAPER_CH5: dict[str, dict[str, tuple[float, float, float, float]]] = {
    "table5.1": {"Regular": (4067, 4891, 25.3, 50.1), "CC 1": (4602, 5293, 18.6, 25.2),
                 "CC 2": (4480, 5103, 26.6, 31.7), "CC 3": (4427, 5052, 25.2, 32.6)},
    "table5.2": {"Regular": (4600, 5358, 22.0, 47.3), "CC 1": (4864, 5485, 23.5, 27.6),
                 "CC 2": (4885, 5409, 28.6, 33.1), "CC 3": (5256, 5847, 22.9, 28.5)},
    "table5.3": {"Regular": (4939, 6131, 29.5, 104.2), "CC 1": (5622, 7073, 22.7, 37.0),
                 "CC 2": (5767, 7512, 40.0, 55.4), "CC 3": (5223, 7082, 30.7, 46.5)},
    "table5.4": {"Regular": (2660, 3305, 22.6, 38.1), "CC 1": (2587, 3535, 19.0, 22.5),
                 "CC 2": (2654, 3590, 21.5, 25.4), "CC 3": (2878, 3789, 20.6, 24.5)},
    "table5.5": {"Regular": (4939, 6131, 29.5, 104.2), "CC 1": (5514, 7086, 31.2, 52.1),
                 "CC 2": (5899, 7420, 31.5, 48.8), "CC 3": (5359, 6466, 23.9, 43.9)},
}

#: (table, scenario file, detector, extra overrides, title)
CH5_TABLES = [
    ("table5.1", "frto-ch5-128k.toml", "frto-sack", [], "Two connections, 128 kb/s, 7 IP buffers, type I delays (Table 5.1)"),
    ("table5.2", "frto-ch5-128k.toml", "frto-sack", ["links.wireless.queue=30pkt"],
     "Two connections, 128 kb/s, 30 IP buffers, type I delays (Table 5.2)"),
    ("table5.3", "frto-ch5-384k.toml", "frto-sack", [], "Three connections, 384 kb/s, 30 IP buffers, type I delays (Table 5.3)"),
    ("table5.4", "frto-ch5-type2.toml", "frto-sack", [], "Two connections, 28.8/64/128 kb/s, type II delays (Table 5.4)"),
    ("table5.5", "frto-ch5-384k.toml", "frto", [], "Basic (non-SACK) F-RTO, 384 kb/s, as Table 5.3 (Table 5.5)"),
]


# ---------------------------------------------------------------------------------------------
# Scenario loading


def _scenario_dir() -> Path:
    """The shipped scenarios (package data: ``tcplab/scenarios/``)."""
    return shipped.DIR


def _load(name: str) -> dict[str, Any]:
    with open(_scenario_dir() / name, "rb") as fh:
        return tomllib.load(fh)


def _without_spikes(sc: dict[str, Any], loss: dict[str, Any]) -> dict[str, Any]:
    """The GPRS path with its delay spikes removed and a loss model on the wireless link
    (Ch. 4 "packet losses" and "bursty losses": "delays are fairly constant", L2450-2468)."""
    sc = copy.deepcopy(sc)
    for link in sc["links"]:
        if link.get("name") == "wireless":
            for k in ("delay_spikes", "spike_direction", "link_buffer"):
                link.pop(k, None)
            link["loss"] = loss
    return sc


# ---------------------------------------------------------------------------------------------
# Metrics (computed on the sweep engine's workers, from each run's result)


def ch4_metrics(summary: dict[str, Any]) -> dict[str, float]:
    """Spec part 1 §5.4: (i) elapsed time, (ii) packets lost on the link and in the router, ACKs
    included, (iii) retransmitted segments. Plus ours only: spurious retransmissions (ground truth)."""
    f = summary["flows"][0]
    t = f["fct_s"] if f["fct_s"] is not None else summary["sim_time_s"]
    lost = sum(l["drops_ab"] + l["drops_ba"] for l in summary["links"])
    return {
        "time_s": t,
        "pkts_lost": lost,
        "rexmits": f["retransmissions"],
        "spurious_rexmits": f["spurious_retransmissions"],
        "timeouts": f["timeouts"],
        "tput_bps": CH4_BYTES * 8 / t,
    }


def ch5_metrics(summary: dict[str, Any]) -> dict[str, float]:
    """Spec part 2 §2.3: throughput (bytes/s = 200 KB / connection duration) of the slowest and
    fastest connection, drops at the wireless access router, retransmitted segments (all
    connections summed; the thesis does not say per connection or total -- totals, since
    per-connection counts of 104 for 140-segment transfers would be implausible)."""
    tputs = []
    for f in summary["flows"]:
        t = f["fct_s"] if f["fct_s"] is not None else summary["sim_time_s"] - f["start_s"]
        tputs.append(CH5_BYTES / t)
    wl = next(l for l in summary["links"] if l["name"] == "wireless")
    losses = wl["drops_ab"] + wl["drops_ba"]
    rx = sum(f["retransmissions"] for f in summary["flows"])
    return {
        "tput_low": min(tputs),
        "tput_high": max(tputs),
        "losses": losses,
        "rxmits": rx,
        "spurious_rxmits": sum(f["spurious_retransmissions"] for f in summary["flows"]),
    }


def measure_ch4(res, point: Point) -> dict[str, float]:
    return ch4_metrics(res.summary)


def measure_ch5(res, point: Point) -> dict[str, float]:
    return ch5_metrics(res.summary)


#: The counts of :func:`decision_counts`, in its order.
DECISION_COUNTS = ("decisions_spurious", "false_positives", "spurious_with_window_losses", "decisions_genuine",
                   "missed_spurious")


def decision_counts(ev) -> dict[str, int]:
    """Detector decisions of one traced run against the simulator's ground truth. A decision is
    checked against the last RTO retransmission before it: spurious ground truth means every
    byte of it had already reached the receiver, i.e. the timeout was spurious.
    ``spurious_with_window_losses`` is the thesis' sense of a false positive (L2632-2678):
    declared spurious although data segments of the window outstanding at the timeout were lost
    (ACKs and data lost in the same burst): a later, non-spurious retransmission of data between
    the deciding ACK and the timeout's recovery point."""
    sp = fp = ge = miss = lossy = 0
    rto = ev[(ev["kind"] == "segment_retransmitted") & (ev["cause"] == "rto")]
    entered = ev[(ev["kind"] == "recovery_entered") & (ev["cause"] == "timeout")]
    rtx = ev[(ev["kind"] == "segment_retransmitted") & (ev["len"] > 0)]
    for _, d in ev[ev["kind"] == "spurious_decision"].iterrows():
        before = rto[(rto["flow"] == d["flow"]) & (rto["t_ns"] <= d["t_ns"])]
        if before.empty:
            continue
        truth = bool(before.iloc[-1]["spurious"])
        if int(d["value"]) == 1:
            sp += 1
            fp += not truth
            ent = entered[(entered["flow"] == d["flow"]) & (entered["t_ns"] <= d["t_ns"])]
            if not ent.empty:
                # Data of the timed-out window above the deciding ACK that later had to be
                # retransmitted for real (ground truth: not spurious).
                lo, hi = d["ack"], ent.iloc[-1]["seq"]
                w = rtx[(rtx["flow"] == d["flow"]) & (rtx["t_ns"] > d["t_ns"]) & (rtx["seq"] >= lo)
                        & (rtx["seq"] < hi) & (rtx["spurious"] == False)]  # noqa: E712
                lossy += not w.empty
        else:
            ge += 1
            miss += truth
    return dict(zip(DECISION_COUNTS, (sp, fp, lossy, ge, miss)))


def measure_decisions(res, point: Point) -> dict[str, int]:
    return decision_counts(res.events)


# ---------------------------------------------------------------------------------------------
# The experiments (data)


def _ch4_points(scenario: Any, extra: list[str] = ()) -> list[Point]:
    return [Point(series, "", CH4_BASE + ov + list(extra), scenario=scenario) for series, ov in CH4_VARIANTS]


def experiments(runs: int) -> list[Experiment]:
    """Every run of the reproduction: the Ch. 4 and Ch. 5 tables, the detector decisions and
    the sensitivity rows, seeds 1..runs each."""
    seeds = range(1, runs + 1)
    gprs = _load("gprs.toml")
    errors5 = _without_spikes(gprs, {"model": "bernoulli", "p": 0.05})
    bursty = _without_spikes(gprs, {"model": "outages"})
    ch4 = {"table4.1": gprs, "table4.2": errors5, "table4.3": bursty}
    exps = [Experiment(key, _ch4_points(sc), measure_ch4, seeds=seeds) for key, sc in ch4.items()]
    for key in ("table4.1", "table4.3"):
        pts = [Point(series, "", CH4_BASE + ov, scenario=ch4[key]) for series, ov in CH4_VARIANTS
               if "Regular" not in series]
        exps.append(Experiment(f"{key}.decisions", pts, measure_decisions, seeds=seeds, trace=True))
    for key, scen, det, extra, _ in CH5_TABLES:
        pts = [Point(series, "", ov + extra) for series, ov in ch5_variants(det)]
        exps.append(Experiment(key, pts, measure_ch5, scenario=_scenario_dir() / scen, seeds=seeds))
    exps += _sensitivity_experiments(gprs, seeds)
    return exps


def _sensitivity_experiments(gprs: dict[str, Any], seeds) -> list[Experiment]:
    """Open parameters (spec part 1 §8, part 2 §10) and how much the results move with them:
    one experiment of Ch. 4 runs (medians) and one of Ch. 5 runs (means); each point's series
    names the table and variant, x the setting."""
    regular, frto = CH4_VARIANTS[2], CH4_VARIANTS[1]
    bursty = _without_spikes(gprs, {"model": "outages"})
    pts: list[Point] = []
    # (1) Table 4.2's loss rate: 2 % and 10 % beside the 5 % of the table.
    for p in (0.02, 0.10):
        sc = _without_spikes(gprs, {"model": "bernoulli", "p": p})
        pts += [Point(f"table4.2 {s}", f"p={p}", CH4_BASE + ov, scenario=sc) for s, ov in (regular, frto)]
    # (2) Which direction the Table 4.1 delay spikes hit (not stated): data only vs both.
    for direction in ("a->b", "both"):
        pts += [Point(f"table4.1 {s}", f"spikes {direction}",
                      CH4_BASE + ov + [f'links.wireless.spike_direction="{direction}"'], scenario=gprs)
                for s, ov in (regular, frto)]
    # (3) The RFC 4138 "ACK covers everything sent before the RTO" condition (off in the thesis).
    for full in ("false", "true"):
        pts += [Point(f"{name} F-RTO w/ SACK", f"full_ack={full}",
                      CH4_BASE + frto[1] + [f"tcp.frto_require_full_ack={full}"], scenario=sc)
                for name, sc in (("table4.1", gprs), ("table4.3", bursty))]
    # (4) The sender's RTO estimator and timers: Linux 2.4 profile (used above) vs RFC 6298 defaults.
    for name, sc in (("table4.1", gprs), ("table4.3", bursty)):
        for series, ov in (regular, frto, CH4_VARIANTS[0]):
            pts += [Point(f"{name} {series}", f"profile {label}", base + ov, scenario=sc)
                    for label, base in (("linux-2.4", CH4_BASE), ("rfc6298", []))]
    # (6) The sender model: the RFC sender with the linux-2.4 profile (used above) vs the Linux 2.4
    # congestion-control engine of Ch. 3 (`tcp.sender=linux`: packet-counted cwnd, rate-halving,
    # ≤ 3 segments per ACK, timestamp/D-SACK undo -- with timestamps off, as in the Regular rows,
    # no undo), with and without rate-halving (the thesis' Ch. 4 hosts ran without, L2471-2472).
    # Only the Regular rows: the Linux engine does not run the F-RTO/Eifel seams.
    for name, sc in (("table4.1", gprs), ("table4.2", _without_spikes(gprs, {"model": "bernoulli", "p": 0.05})),
                     ("table4.3", bursty)):
        for series, ov in (regular, CH4_VARIANTS[3]):
            pts += [Point(f"{name} {series}", f"sender {label}", CH4_BASE + ov + model, scenario=sc)
                    for label, model in (("rfc", ["tcp.sender=rfc"]), ("linux", ["tcp.sender=linux"]),
                                         ("linux no-rh", ["tcp.sender=linux", "tcp.rate_halving=false"]))]
    # (5) Table 5.4's IP buffer (not stated): 7 (shipped) vs 30 packets.
    ch5 = [Point(f"table5.4 {s}", f"queue {q}", ov + [f"links.wireless.queue={q}"])
           for q in ("7pkt", "30pkt") for s, ov in ch5_variants("frto-sack")]
    return [Experiment("sensitivity.ch4", pts, measure_ch4, seeds=seeds),
            Experiment("sensitivity.ch5", ch5, measure_ch5, scenario=_scenario_dir() / "frto-ch5-type2.toml",
                       seeds=seeds)]


# ---------------------------------------------------------------------------------------------
# Tabulation, plots and the report


def _boxplot(fig_obj, key: str, title: str, data: dict[str, list[float]]) -> None:
    """Figs 4.5-4.7: throughput box plots, whiskers at min and max (L2498-2508)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    labels = list(data)
    ax.boxplot([data[k] for k in labels], whis=(0, 100), widths=0.5)
    ax.set_xticks(range(1, len(labels) + 1), [l.replace(" w/ ", " ").replace(" ", "\n") for l in labels], fontsize=8)
    ax.set_ylabel("throughput (bit/s)")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    fig_obj.plot(fig)
    plt.close(fig)


def _by_series(agg) -> dict[str, dict[str, float]]:
    return {r["series"]: r for r in agg.to_dict("records")}


def _ch4_table(rep: Report, key: str, title: str, desc: str, df, plot_title: str | None) -> dict[str, dict[str, float]]:
    fig = rep.figure(key, title, desc)
    med = _by_series(aggregate(df, CH4_METRICS, how="median"))
    paper = {(s, "", m): PAPER_CH4[key][s][i] for s in PAPER_CH4.get(key, {}) for i, m in enumerate(CH4_PAPER_METRICS)}
    add_rows(fig, aggregate(df, CH4_METRICS, how="median"), {"time_s": 2, "pkts_lost": 2, "rexmits": 2,
                                                             "spurious_rexmits": None}, paper)
    if plot_title:
        _boxplot(fig, key, plot_title, {s: values(df, "tput_bps", series=s) for s, _ in CH4_VARIANTS})
    return med


#: Ch. 4 metrics the tables show, and those the thesis gives (in its column order).
CH4_PAPER_METRICS = ("time_s", "pkts_lost", "rexmits")
CH4_METRICS = (*CH4_PAPER_METRICS, "spurious_rexmits")
CH5_PAPER_METRICS = ("tput_low", "tput_high", "losses", "rxmits")


def _ch5_table(rep: Report, key: str, title: str, df) -> dict[str, dict[str, float]]:
    fig = rep.figure(key, title)
    means = _by_series(aggregate(df, [*CH5_PAPER_METRICS, "spurious_rxmits"], how="mean"))
    for series, m in means.items():
        paper = PAPER_CH5[key][series]
        for i, name in enumerate(CH5_PAPER_METRICS):
            fig.add(series, "", name, round(m[name], 1), paper[i])
        ratio = m["losses"] / m["rxmits"] if m["rxmits"] else None
        fig.add(series, "", "losses_per_rxmit", round(ratio, 2) if ratio is not None else None,
                round(paper[2] / paper[3], 2))
        fig.add(series, "", "spurious_rxmits", round(m["spurious_rxmits"], 1), None)
    return means


def _pct(a: float, b: float) -> str:
    return f"{100.0 * (a - b) / b:+.0f} %" if b else "n/a"


def run(out: Path, quick: bool, runs: int | None, progress=None, workers: int | None = None) -> Report:
    """``workers``: local worker processes (0: in this process); default: none with ``quick``,
    else one per core."""
    runs = runs or (QUICK_RUNS if quick else PAPER_RUNS)
    rep = Report(
        "frto",
        "Sarolahti, TCP over wireless links (dissertation, seed 002): F-RTO and Eifel (Ch. 4), "
        "responses to spurious RTOs (Ch. 5)",
        out,
        quick=quick,
        intro=(
            f"{runs} runs (seeds 1..{runs}) per variant. Ch. 4 tables give medians, Ch. 5 tables means, "
            "as in the thesis. `ours` comes from tcplab's simulator with the RFC sender model (RFC 6675 "
            "SACK recovery / RFC 6582 NewReno, Limited Transmit) plus the spurious-RTO detectors and "
            "responses; Ch. 4 runs use the `linux-2.4` profile (Linux RTO variant and timers; the thesis' "
            "hosts ran Linux 2.4.7), Ch. 5 runs the RFC 6298 RTO (\"the standard retransmission timer "
            "algorithm\", L3111-3113); the thesis ran Linux 2.4 hosts over the Seawind emulator, so absolute "
            "numbers are not expected to match -- the direction and rough size of each effect is the goal. "
            "`spurious_rexmits` is tcplab's ground truth (retransmissions whose every byte had already "
            "reached the receiver); the thesis has no such column."
        ),
    )
    if workers is None:
        workers = QUICK_WORKERS if quick else None
    data = run_experiments(experiments(runs), out, progress=progress, workers=workers)

    t41 = _ch4_table(
        rep, "table4.1", "Sudden delays (Table 4.1, Fig. 4.5)",
        "gprs.toml as shipped: 28.8 kb/s, 200 ms, 7-packet router queue, 1776-B link buffer, per-packet "
        "delay spikes p = 0.02, Exp(3.5 s), both directions. Metrics: time_s = connection time for 100 KB, "
        "pkts_lost = drops on all links (data and ACKs), rexmits = retransmitted segments; medians.",
        data["table4.1"], "Fig. 4.5: throughput with sudden delays")
    t42 = _ch4_table(
        rep, "table4.2", "Packet errors, p = 5 % (Table 4.2, Fig. 4.6)",
        "gprs.toml without delay spikes, Bernoulli loss p = 0.05 on the wireless link in both directions "
        "(the table's loss rate is not stated; Fig. 4.6 is for p = 0.05 -- see the sensitivity table).",
        data["table4.2"], "Fig. 4.6: throughput with 5 % packet errors")
    t43 = _ch4_table(
        rep, "table4.3", "Bursty losses (Table 4.3, Fig. 4.7)",
        "gprs.toml without delay spikes; the link alternates Good ~ U(0.1 s, 20 s) and Bad ~ Exp(3.5 s) "
        "periods, every packet in both directions lost while Bad (`loss = { model = \"outages\" }`, starting Good).",
        data["table4.3"], "Fig. 4.7: throughput with bursty losses")

    def ch4_notes(fig_key: str, med: dict[str, dict[str, float]]) -> None:
        fig = next(f for f in rep.figures if f.key == fig_key)
        for proto in ("SACK", "NewReno"):
            reg, fr, ei = med[f"Regular {proto}"], med[f"F-RTO w/ {proto}"], med[f"Eifel w/ {proto}"]
            p = PAPER_CH4[fig_key]
            fig.note(
                f"{proto}: F-RTO vs Regular time {_pct(fr['time_s'], reg['time_s'])} (thesis "
                f"{_pct(p[f'F-RTO w/ {proto}'][0], p[f'Regular {proto}'][0])}), rexmits "
                f"{_pct(fr['rexmits'], reg['rexmits'])} (thesis {_pct(p[f'F-RTO w/ {proto}'][2], p[f'Regular {proto}'][2])}); "
                f"Eifel vs Regular time {_pct(ei['time_s'], reg['time_s'])} (thesis "
                f"{_pct(p[f'Eifel w/ {proto}'][0], p[f'Regular {proto}'][0])})."
            )

    ch4_notes("table4.1", t41)
    ch4_notes("table4.2", t42)
    ch4_notes("table4.3", t43)
    for key in ("table4.1", "table4.3"):
        fig = next(f for f in rep.figures if f.key == key)
        add_rows(fig, aggregate(data[f"{key}.decisions"], DECISION_COUNTS, how="sum"), DECISION_COUNTS)
        fig.note(
            "decisions_* / false_positives / missed_spurious: every detector decision over all runs, checked "
            "against the ground truth of the last RTO retransmission before it (a false positive declares "
            "spurious a timeout whose retransmission repaired a real loss; a miss is the reverse, e.g. F-RTO "
            "falling back on a duplicate ACK or for lack of new data). spurious_with_window_losses: declared "
            "spurious although data of the window outstanding at the timeout (above the deciding ACK) later had to be retransmitted because it was really lost -- the thesis' "
            "Eifel false positive under bursty losses (L2632-2678), where the RTO retransmission itself was "
            "unnecessary (its ACK was lost) but later segments were lost."
        )

    ch5 = {}
    for key, scen, det, extra, title in CH5_TABLES:
        ch5[key] = _ch5_table(rep, key, title, data[key])
    for key, means in ch5.items():
        fig = next(f for f in rep.figures if f.key == key)
        best = max(("CC 1", "CC 2", "CC 3"), key=lambda s: means[s]["tput_low"])
        pbest = max(("CC 1", "CC 2", "CC 3"), key=lambda s: PAPER_CH5[key][s][0])
        fewest = min(("CC 1", "CC 2", "CC 3"), key=lambda s: means[s]["losses"])
        pfewest = min(("CC 1", "CC 2", "CC 3"), key=lambda s: PAPER_CH5[key][s][2])
        fig.note(f"Best Tput low among CC 1-3: ours {best}, thesis {pbest}. Fewest losses: ours {fewest}, thesis {pfewest}.")
        reg = means["Regular"]
        fig.note(
            f"Regular Losses/Rxmits {reg['losses'] / max(reg['rxmits'], 1e-9):.2f} vs CC mean "
            f"{st.fmean(means[s]['losses'] / max(means[s]['rxmits'], 1e-9) for s in ('CC 1', 'CC 2', 'CC 3')):.2f} "
            "(thesis: Regular lowest in every table)."
        )

    fig = rep.figure(
        "sensitivity",
        "Sensitivity to parameters the thesis leaves open",
        "Each row: medians (Ch. 4) or means (Ch. 5) over the same seeds, one open parameter changed. "
        "x names the setting; no paper values.",
    )
    add_rows(fig, aggregate(data["sensitivity.ch4"], ["time_s", "rexmits"], how="median"),
             {"time_s": 2, "rexmits": None})
    add_rows(fig, aggregate(data["sensitivity.ch5"], ["tput_low", "losses"], how="mean"),
             {"tput_low": 1, "losses": 1})
    return rep
