"""``tcplab plot RUN_DIR``: one flow of a simulation, in the style of the source papers.

Four panels sharing the time axis, which fits the flow (its first to last event) unless
``--start``/``--end`` say otherwise:

* **time-sequence** (tcptrace / Stevens convention): each data segment sent is a short
  vertical bar from seq to seq+len (relative to the ISN); ACKs received are a step line and
  the receive window a line above it (ACK + advertised window); duplicate ACKs are ticks on
  the ACK line; retransmissions are coloured by tcplab's cause (spurious ones hollow); drops
  (the simulator's ground truth, which no capture has) are crosses: data at its bytes, ACKs
  on the ACK line.
* **window trace** (Aron & Druschel TR98-318, Appendix A, Figs. 11-12): ssthresh dashed,
  congestion window light grey, unacknowledged data as a thin line; black circles at the top
  for retransmission timeouts; thin vertical lines the whole height of the panel when a
  retransmitted segment was sent.
* **RTT/RTO**: the sender's RTT samples, its SRTT and its RTO (with backoff) over time,
  circles where the timer fired.
* **rug strip** under it: the paper's hash marks, one per segment sent, per retransmission
  (coloured by cause) and per ACK received, each on its own labelled row so they cannot be
  read as data on the KB axis. Above :data:`RUG_MAX_MARKS` marks in view a row shows every
  k-th mark only, and its label says so ("sent, 1 in 10").

Ambiguities resolved here:

- Duplicate ACK (RFC 5681 §2): an ACK whose acknowledgment number equals the previous ACK's
  while data is outstanding (the highest byte sent so far is above it). The simulator's
  ACKs carry no data and the advertised window never changes (below), so RFC 5681's other
  conditions hold for every ACK; the sender's own count is not in the trace.
- Receive window: the simulated receiver reads at once, so it always advertises
  ``recv_buffer``, clamped to 65535 bytes when window scaling is not on at both ends
  (``crates/tcplab-tcp/src/receiver/mod.rs``, module docs). The line is drawn from the
  resolved scenario the run recorded (``summary.json`` provenance), not measured; a run
  without provenance gets no line.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ..errors import ScenarioError
from .common import (  # noqa: F401 - CAUSE_COLOURS, IMAGE_FORMATS, RUG_MAX_MARKS: public names
    ACK_COLOUR, CAUSE_COLOURS, DROP_COLOUR, DUPACK_COLOUR, IMAGE_FORMATS, KB, RUG_MAX_MARKS, RWND_COLOUR,
    SEGMENT_COLOUR, check_image_path, check_range, fit_axis, fit_sequence_axis, plt, retransmission_marks, rug, save,
)

INF_SSTHRESH = 2**62
#: RFC 9293 §3.1: the window field is 16 bits (the receiver's clamp without scaling).
MAX_UNSCALED_WINDOW = 65_535

#: The RTT/RTO panel switches to a log axis when its largest value exceeds the median this
#: many times (RTTs would otherwise be a flat line at the bottom under the RTO).
RTT_PANEL_LOG_RATIO = 10

# Kept under their old names (tests and callers use them).
_check_image_path = check_image_path
_check_range = check_range
_rug = rug


def _read(results: Path, name: str, flow: int) -> pd.DataFrame:
    path = results / f"{name}.parquet"
    if not path.exists():
        raise ScenarioError(
            f"{path}: missing; run `tcplab run SCENARIO -o {results}` first (without --no-trace)"
        )
    table = pq.read_table(path, filters=[("flow", "=", flow)])
    return table.to_pandas()


def _num_rows(path: Path) -> int:
    return pq.read_metadata(path).num_rows if path.exists() else 0


def _fmt_size(n) -> str:
    if n is None:
        return "bulk"
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= div:
            return f"{n / div:.4g} {unit}"
    return f"{n} B"


def _title(results: Path, flow: int, summary: dict | None) -> str:
    """``scenario: flow N (src→dst, size)`` from summary.json, else the directory name."""
    if not summary:
        return f"{results.name}: flow {flow}"
    title = f"{summary.get('scenario', results.name)}: flow {flow}"
    flows = summary.get("flows") or []
    if 0 <= flow < len(flows):
        f = flows[flow]
        title += f" ({f['src']}→{f['dst']}, {_fmt_size(f.get('bytes_requested'))})"
    return title


def plot_flow(results: Path, flow: int, out: Path, t_start=None, t_end=None) -> Path:
    """Draw flow ``flow`` of the run in ``results`` to the image ``out`` (format from its
    suffix: .png, .pdf, .svg, ...). ``t_start``/``t_end`` (seconds) limit the time axis.
    Raises :class:`ScenarioError` (one line) for a bad directory, flow, range or format."""
    out = Path(out)
    check_image_path(out)
    return save(flow_figure(results, flow, t_start, t_end), out)


def flow_figure(results: Path, flow: int, t_start=None, t_end=None):
    """The matplotlib figure :func:`plot_flow` saves (the caller closes it)."""
    results = Path(results)
    if not results.is_dir():
        raise ScenarioError(f"{results}: no such results directory")
    _check_range(t_start, t_end)
    summary_path = results / "summary.json"
    try:
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    except (OSError, ValueError):
        summary = None
    n_flows = len(summary["flows"]) if summary and "flows" in summary else _num_rows(results / "flows.parquet")
    if not 0 <= flow < max(n_flows, 1):
        raise ScenarioError(f"--flow: no flow {flow} (the run has {n_flows} flows: 0..{max(n_flows - 1, 0)})")
    for name in ("events", "timeseries"):
        if not (results / f"{name}.parquet").exists():
            raise ScenarioError(
                f"{results / f'{name}.parquet'}: missing; run `tcplab run SCENARIO -o {results}` first"
            )
    if _num_rows(results / "events.parquet") == 0 and _num_rows(results / "timeseries.parquet") == 0:
        raise ScenarioError(
            f"{results}: the run has no trace (it was made with --no-trace); "
            f"re-run it without --no-trace to plot it"
        )
    ev = _read(results, "events", flow)
    ts = _read(results, "timeseries", flow)
    if ev.empty and ts.empty:
        raise ScenarioError(f"--flow: no events for flow {flow} (the run has {n_flows} flows: 0..{max(n_flows - 1, 0)})")
    for df in (ev, ts):
        df["t"] = df["t_ns"].to_numpy() / 1e9
    first = min(ev["t"].min() if not ev.empty else math.inf, ts["t"].min() if not ts.empty else math.inf)
    last = max(ev["t"].max() if not ev.empty else 0, ts["t"].max() if not ts.empty else 0)
    if t_start is not None and t_start > last:
        raise ScenarioError(f"--start {t_start:g}: after the flow's last event ({last:.3f} s)")
    lo, hi = fit_axis(first, last, t_start, t_end)
    kind_all = ev["kind"].astype(str)
    dup_all = duplicate_acks(ev[kind_all == "ack_received"],
                             ev[kind_all.isin(["segment_sent", "segment_retransmitted"])])
    ev = ev[(ev.t >= lo) & (ev.t <= hi)]
    ts = ts[(ts.t >= lo) & (ts.t <= hi)]
    dup = dup_all[(dup_all.t >= lo) & (dup_all.t <= hi)]

    kind = ev["kind"].astype(str)
    sent = ev[kind == "segment_sent"]
    rexmit = ev[kind == "segment_retransmitted"]
    acks = ev[kind == "ack_received"]
    rtos = ev[kind == "rto_fired"]
    drops = ev[kind == "packet_dropped"]
    samples = ev[kind == "rtt_sample"]
    rexmit_cause = rexmit["cause"].astype(str) if not rexmit.empty else pd.Series([], dtype=str)

    fig, (ax1, ax2, ax_rtt, ax3) = plt.subplots(
        4, 1, figsize=(11, 10.5), sharex=True, gridspec_kw={"height_ratios": [3, 1.8, 1.4, 0.55]}
    )
    fig.suptitle(_title(results, flow, summary))

    # --- time-sequence panel (segments above the ACK line, which would hide them)
    if not sent.empty:
        ax1.vlines(sent.t, sent.seq / KB, (sent.seq + sent.len) / KB, colors=SEGMENT_COLOUR, linewidth=0.8,
                   label="segment sent", zorder=2)
    if not acks.empty:
        ax1.step(acks.t, acks.ack / KB, where="post", color=ACK_COLOUR, linewidth=0.8, label="ACK received", zorder=1)
        rwnd = receive_window(summary, flow)
        if rwnd is not None:
            ax1.step(acks.t, (acks.ack + rwnd) / KB, where="post", color=RWND_COLOUR, linewidth=0.8,
                     label=f"receive window ({rwnd / KB:.4g} KB)", zorder=1)
    if not dup.empty:
        ax1.plot(dup.t, dup.ack / KB, linestyle="none", marker=2, markersize=5, color=DUPACK_COLOUR,
                 label="duplicate ACK", zorder=3)
    if not rexmit.empty:
        retransmission_marks(ax1, rexmit.t, rexmit.seq, rexmit.len, rexmit_cause,
                             rexmit["spurious"] if "spurious" in rexmit else [None] * len(rexmit))
    if not drops.empty:
        data = drops[drops.len > 0]
        ack_drops = drops[(drops.len == 0) & drops["ack"].notna()]
        if not data.empty:
            ax1.scatter(data.t, (data.seq + data.len / 2) / KB, marker="x", s=28, color=DROP_COLOUR,
                        label="data dropped", zorder=5)
        if not ack_drops.empty:
            ax1.scatter(ack_drops.t, ack_drops.ack / KB, marker="x", s=16, color=ACK_COLOUR, label="ACK dropped",
                        zorder=5)
    fit_sequence_axis(ax1, [sent.seq, sent.seq + sent.len, rexmit.seq, acks.ack])
    ax1.set_ylabel("sequence (KB, relative)")
    if ax1.get_legend_handles_labels()[0]:
        ax1.legend(loc="upper left", fontsize=7, ncol=2)
    ax1.grid(alpha=0.3)

    # --- window panel (Appendix A)
    if not ts.empty:
        ss = ts.ssthresh.where(ts.ssthresh < INF_SSTHRESH)
        ax2.step(ts.t, ss / KB, where="post", linestyle="--", color="black", linewidth=1, label="ssthresh")
        ax2.step(ts.t, ts.cwnd / KB, where="post", color="#a0a0a0", linewidth=2, label="congestion window")
        ax2.step(ts.t, ts.bytes_in_flight / KB, where="post", color="black", linewidth=0.6, label="unacked data")
    top = ax2.get_ylim()[1] if not ts.empty else 1.0
    if not rexmit.empty:
        ax2.vlines(rexmit.t, 0, 1, transform=ax2.get_xaxis_transform(), colors="#555555", linewidth=0.5,
                   alpha=0.7, label="retransmission sent")
    if not rtos.empty:
        ax2.plot(rtos.t, np.full(len(rtos), top * 1.06), "o", color="black", markersize=7, clip_on=False, label="timeout")
    ax2.set_ylim(0, top * 1.1)
    ax2.set_ylabel("KB")
    if ax2.get_legend_handles_labels()[0]:
        ax2.legend(loc="upper right", fontsize=7, framealpha=0.9)
    ax2.grid(alpha=0.3)

    # --- RTT / RTO panel
    rtt_panel(ax_rtt, samples, ts, rtos)

    # --- rug strip: one row of hash marks per kind
    rows = [
        rug(ax3, 2, sent.t, "black", "sent"),
        rug(ax3, 1, rexmit.t, [CAUSE_COLOURS.get(c, "black") for c in rexmit_cause], "rexmit"),
        rug(ax3, 0, acks.t, "black", "ACK rcvd"),
    ]
    ax3.set_ylim(-0.6, 2.6)
    ax3.set_yticks([2, 1, 0], rows, fontsize=7)
    ax3.tick_params(axis="y", length=0)
    ax3.grid(axis="x", alpha=0.3)
    ax3.set_xlabel("time (s)")
    ax3.set_xlim(lo, hi)

    fig.tight_layout()
    return fig


def rtt_panel(ax, samples: pd.DataFrame, ts: pd.DataFrame, rtos: pd.DataFrame) -> None:
    """RTT samples (``rtt_sample`` events), SRTT and RTO (timeseries, RTO with backoff) in
    seconds; circles where the timer fired, at the RTO that expired."""
    if not samples.empty:
        ax.plot(samples.t, samples["value"].astype(float) / 1e9, linestyle="none", marker=".", markersize=3,
                color=SEGMENT_COLOUR, label="RTT sample")
    if not ts.empty:
        srtt = ts.srtt_ns.astype(float).where(ts.srtt_ns > 0) / 1e9
        ax.step(ts.t, srtt, where="post", color="black", linewidth=1, label="SRTT")
        ax.step(ts.t, ts.rto_ns.astype(float) / 1e9, where="post", color=CAUSE_COLOURS["rto"], linewidth=1,
                label="RTO")
    if not rtos.empty and not ts.empty:
        # The RTO in force just before each expiry (the last timeseries row before it).
        at = np.searchsorted(ts.t.to_numpy(), rtos.t.to_numpy(), side="left") - 1
        ok = at >= 0
        ax.plot(rtos.t[ok], ts.rto_ns.to_numpy()[at[ok]] / 1e9, "o", color="black", markersize=5,
                label="timeout")
    ax.set_ylabel("RTT / RTO (s)")
    ys = [l.get_ydata() for l in ax.get_lines()]
    ys = np.concatenate([np.asarray(y, dtype=float) for y in ys]) if ys else np.array([])
    ys = ys[np.isfinite(ys) & (ys > 0)]
    if len(ys) and ys.max() / np.median(ys) > RTT_PANEL_LOG_RATIO:
        # A minimum RTO of 200 ms-1 s over RTTs of tens of ms: a linear axis flattens the RTTs.
        from matplotlib.ticker import FuncFormatter, LogLocator

        ax.set_yscale("log")
        ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
    else:
        ax.set_ylim(bottom=0)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper right", fontsize=7, framealpha=0.9)
    ax.grid(alpha=0.3)


def duplicate_acks(acks: pd.DataFrame, sent: pd.DataFrame) -> pd.DataFrame:
    """The ACKs that are duplicates in RFC 5681 §2's sense (module docs): same acknowledgment
    number as the previous ACK, while the highest byte sent before it is above that number."""
    if acks.empty or sent.empty:
        return acks.iloc[0:0]
    a = acks.sort_values("t_ns", kind="stable")
    ack = a["ack"].to_numpy(dtype=float)
    same = np.concatenate([[False], ack[1:] == ack[:-1]])
    s = sent.sort_values("t_ns", kind="stable")
    top = np.maximum.accumulate((s["seq"].to_numpy(dtype=float) + s["len"].to_numpy(dtype=float)))
    i = np.searchsorted(s["t_ns"].to_numpy(), a["t_ns"].to_numpy(), side="right") - 1
    highest = np.where(i >= 0, top[np.clip(i, 0, None)], 0.0)
    return a[same & (highest > ack)]


def receive_window(summary: dict | None, flow: int) -> int | None:
    """The window the flow's receiver advertises, from the resolved scenario in the run's
    provenance (module docs), or None if it cannot be read there."""
    try:
        doc = tomllib.loads(summary["provenance"]["scenario"])
        tcp = doc["flows"][flow]["tcp"]
        text = str(tcp["recv_buffer"])
        scale = bool(tcp.get("window_scale", False))
    except (KeyError, TypeError, IndexError, tomllib.TOMLDecodeError):
        return None
    # The resolved scenario writes sizes in bytes ("262144B"); anything else is not guessed.
    if not (text.endswith("B") and text[:-1].isdigit()):
        return None
    buf = int(text[:-1])
    return buf if scale else min(buf, MAX_UNSCALED_WINDOW)
