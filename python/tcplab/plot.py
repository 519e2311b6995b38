"""Trace plots in the style of the source papers.

Two panels sharing the time axis:

* **time-sequence** (tcptrace / Wireshark "Stream Graph" convention): each data segment sent
  is a short vertical bar from seq to seq+len (relative to the ISN); ACKs received are a
  step line; retransmissions are coloured by tcplab's cause; spurious ones are hollow.
* **window trace** (Aron & Druschel TR98-318, Appendix A, Figs. 11-12): ssthresh dashed,
  congestion window light grey, unacknowledged data as a thin line; hash marks at the top
  for each segment sent and on the x-axis for each ACK received; black circles at the top
  for retransmission timeouts; solid vertical lines the whole height of the panel when a
  retransmitted segment was sent.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from .errors import ScenarioError  # noqa: E402

#: Colours per retransmission cause (kept stable across plots).
CAUSE_COLOURS = {
    "rto": "#d62728",
    "fast_retransmit": "#ff7f0e",
    "sack_recovery": "#9467bd",
    "probe": "#8c564b",
    "tlp": "#17becf",
}
KB = 1000.0
INF_SSTHRESH = 2**62


def _read(results: Path, name: str, flow: int) -> pd.DataFrame:
    path = results / f"{name}.parquet"
    if not path.exists():
        raise ScenarioError(
            f"{path}: missing; run `tcplab run SCENARIO -o {results}` first (without --no-trace)"
        )
    table = pq.read_table(path, filters=[("flow", "=", flow)])
    return table.to_pandas()


def plot_flow(results: Path, flow: int, out: Path, t_start=None, t_end=None) -> Path:
    results = Path(results)
    if not results.is_dir():
        raise ScenarioError(f"{results}: no such results directory")
    ev = _read(results, "events", flow)
    ts = _read(results, "timeseries", flow)
    if ev.empty and ts.empty:
        n = pq.read_metadata(results / "flows.parquet").num_rows if (results / "flows.parquet").exists() else 0
        raise ScenarioError(f"--flow: no events for flow {flow} (the run has {n} flows: 0..{max(n - 1, 0)})")
    for df in (ev, ts):
        df["t"] = df["t_ns"].to_numpy() / 1e9
    lo = t_start if t_start is not None else 0.0
    hi = t_end if t_end is not None else max(ev["t"].max() if not ev.empty else 0, ts["t"].max() if not ts.empty else 0)
    ev = ev[(ev.t >= lo) & (ev.t <= hi)]
    ts = ts[(ts.t >= lo) & (ts.t <= hi)]

    kind = ev["kind"].astype(str)
    sent = ev[kind == "segment_sent"]
    rexmit = ev[kind == "segment_retransmitted"]
    acks = ev[kind == "ack_received"]
    rtos = ev[kind == "rto_fired"]

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(11, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    fig.suptitle(f"{results.name}: flow {flow}")

    # --- time-sequence panel
    if not sent.empty:
        ax1.vlines(sent.t, sent.seq / KB, (sent.seq + sent.len) / KB, colors="#1f77b4", linewidth=0.8, label="segment sent")
    if not acks.empty:
        ax1.step(acks.t, acks.ack / KB, where="post", color="#2ca02c", linewidth=0.8, label="ACK received")
    for cause, group in rexmit.groupby(rexmit["cause"].astype(str)) if not rexmit.empty else []:
        colour = CAUSE_COLOURS.get(cause, "black")
        spurious = group["spurious"].fillna(False).astype(bool) if "spurious" in group else np.zeros(len(group), bool)
        ax1.vlines(group.t, group.seq / KB, (group.seq + group.len) / KB, colors=colour, linewidth=2.0)
        ax1.scatter(group.t[~spurious], (group.seq[~spurious] + group.len[~spurious] / 2) / KB,
                    marker="o", s=14, color=colour, label=f"retransmit: {cause}")
        if spurious.any():
            ax1.scatter(group.t[spurious], (group.seq[spurious] + group.len[spurious] / 2) / KB, marker="o",
                        s=30, facecolors="none", edgecolors=colour, label=f"retransmit: {cause} (spurious)")
    ax1.set_ylabel("sequence (KB, relative)")
    ax1.legend(loc="upper left", fontsize=8)
    ax1.grid(alpha=0.3)

    # --- window panel (Appendix A)
    if not ts.empty:
        ss = ts.ssthresh.where(ts.ssthresh < INF_SSTHRESH)
        ax2.step(ts.t, ss / KB, where="post", linestyle="--", color="black", linewidth=1, label="ssthresh")
        ax2.step(ts.t, ts.cwnd / KB, where="post", color="#a0a0a0", linewidth=2, label="congestion window")
        ax2.step(ts.t, ts.bytes_in_flight / KB, where="post", color="black", linewidth=0.6, label="unacked data")
    top = ax2.get_ylim()[1] if not ts.empty else 1.0
    for t in rexmit.t:
        ax2.axvline(t, color="black", linewidth=0.4, alpha=0.6)
    if not sent.empty:
        ax2.plot(sent.t, np.full(len(sent), top * 1.02), "|", color="black", markersize=4, clip_on=False)
    if not acks.empty:
        ax2.plot(acks.t, np.zeros(len(acks)), "|", color="black", markersize=4, clip_on=False)
    if not rtos.empty:
        ax2.plot(rtos.t, np.full(len(rtos), top * 1.06), "o", color="black", markersize=7, clip_on=False, label="timeout")
    ax2.set_ylim(0, top * 1.1)
    ax2.set_xlabel("time (s)")
    ax2.set_ylabel("KB")
    ax2.legend(loc="upper right", fontsize=8, framealpha=0.9)
    ax2.grid(alpha=0.3)
    ax2.set_xlim(lo, hi)

    out = Path(out)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
