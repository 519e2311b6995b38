"""``tcplab plot ANALYZE_DIR [--conn N]``: one connection of an analyzed capture.

Three panels sharing the time axis (seconds since the connection's first packet; it fits the
connection unless ``--start``/``--end`` say otherwise):

* **time-sequence** (the Stevens / tcptrace view) of the connection's main data direction:
  every data segment seen is a vertical bar over its bytes (relative to the ISN, as the
  analyzer's ``seq``); the ACKs of the other direction are a step line, and the receive
  window a line above it (ACK + advertised window, RFC 7323-scaled); SACK blocks are short
  bars over the bytes they cover at the time of their ACK; duplicate ACKs are ticks on the
  ACK line; retransmissions are marked with tcplab's cause (colour) and spurious verdict
  (filled = needed, hollow = spurious, cross = undecided), from the analyzer's
  ``retransmissions`` table.
* **RTT/RTO**: RTT samples at the capture point (Karn's rule), the analyzer's handshake RTT
  and SRTT for the connection, and for each timeout retransmission the time from the first
  copy to it (the analyzer's ``detection_ns``: the expired RTO, backoff included, as seen at
  the capture point).
* **rug strip**: one row of hash marks per kind (data sent, retransmissions, ACKs).

The packets come from the capture itself, read again with the analyzer's reader and
connection tracker (``_core.capture_packets``), so connection ids and sequence numbers are
the analyzer's. The capture is looked up at the path ``summary.json`` recorded (as given to
``tcplab analyze``), from the current directory, then from the analysis directory.

Ambiguities resolved here:

- The main data direction is the one with more payload bytes (``connections``: ``c2s_bytes``
  vs ``s2c_bytes``), as the analyzer's ``vantage`` column chooses it.
- Duplicate ACK (RFC 5681 §2): a packet of the ACK direction that carries no data and no
  SYN/FIN/RST, acknowledges the same number as the previous packet of that direction and
  advertises the same window, while data is outstanding (the highest byte of the data
  direction seen so far is above the ACK). With SACK the sender itself counts by RFC 6675 §2
  (a duplicate must also carry new SACK information); that count is the analyzer's replay's,
  not in its outputs.
- RTT sample (RFC 6298 §3, Karn): a data segment seen exactly once whose end is the new
  cumulative ACK of a later packet; the sample is the time between the two at the capture
  point (a full RTT only at the sender; elsewhere the part beyond the capture point). The
  analyzer aggregates its own samples in ``connections`` (``rtt_min_ns`` ...); these are for
  the picture.
- Without ``--conn``: the connection with the most retransmissions, then the most bytes.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ScenarioError
from .common import (
    ACK_COLOUR, CAUSE_COLOURS, DUPACK_COLOUR, KB, RWND_COLOUR, SACK_COLOUR, SEGMENT_COLOUR, check_image_path,
    check_range, fit_axis, fit_sequence_axis, plt, read_table, retransmission_marks, rug_strip, save,
)

#: Files of an analysis directory this plot reads (docs/outputs.md "Outputs of tcplab analyze").
NEEDED = ("summary.json", "connections.parquet", "retransmissions.parquet")


def is_analysis_dir(d: Path) -> bool:
    """An analysis directory (``tcplab analyze -o``), not a run's."""
    return (Path(d) / "connections.parquet").exists() and not (Path(d) / "events.parquet").exists()


def plot_capture(analysis: Path, out: Path, conn: int | None = None, t_start=None, t_end=None) -> tuple[Path, str]:
    """Draw one connection of the analysis in ``analysis`` to the image ``out``; returns the
    path and a line saying which connection was drawn. Raises :class:`ScenarioError` (one
    line) for a bad directory, connection, range, capture path or format."""
    out = Path(out)
    check_image_path(out)
    fig, what = capture_figure(analysis, conn, t_start, t_end)
    return save(fig, out), what


def _load(analysis: Path) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    if not analysis.is_dir():
        raise ScenarioError(f"{analysis}: no such analysis directory")
    for name in NEEDED:
        if not (analysis / name).exists():
            raise ScenarioError(f"{analysis / name}: missing; run `tcplab analyze CAPTURE -o {analysis}` first")
    try:
        summary = json.loads((analysis / "summary.json").read_text())
        conns = read_table(analysis / "connections.parquet").to_pandas()
        rexmits = read_table(analysis / "retransmissions.parquet").to_pandas()
    except (OSError, ValueError) as e:
        raise ScenarioError(f"{analysis}: cannot read the analysis ({e})") from None
    return summary, conns, rexmits


def _pick(conns: pd.DataFrame, conn: int | None) -> pd.Series:
    if conns.empty:
        raise ScenarioError("the analysis has no connections to plot")
    ids = sorted(set(int(c) for c in conns["conn_id"]))
    if conn is None:
        order = conns.assign(_bytes=conns["c2s_bytes"] + conns["s2c_bytes"]).sort_values(
            ["retransmissions", "_bytes"], ascending=False, kind="stable")
        return order.iloc[0]
    rows = conns[conns["conn_id"] == conn]
    if rows.empty:
        listed = ", ".join(map(str, ids[:10])) + (", ..." if len(ids) > 10 else "")
        raise ScenarioError(f"--conn: no connection {conn} (the analysis has {len(ids)}: {listed})")
    if len(rows) > 1:
        names = ", ".join(rows["capture"].astype(str)[:3]) + (f", ... ({len(rows)} captures)" if len(rows) > 3 else "")
        raise ScenarioError(f"--conn {conn}: connection {conn} is in several captures ({names}); "
                            "analyse them one at a time to plot one")
    return rows.iloc[0]


def _recorded_path(summary: dict, shown: str) -> str:
    """The path as given to ``tcplab analyze`` of the capture whose ``capture`` column is
    ``shown``: summary.json's ``captures[].path`` (lossless: surrogate escapes for bytes that
    are not UTF-8) where its ``shown`` matches; ``shown`` itself for an analysis written
    before ``shown`` existed."""
    for entry in summary.get("captures", []):
        if isinstance(entry, dict) and entry.get("shown", entry.get("path")) == shown and isinstance(entry.get("path"), str):
            return entry["path"]
    return shown


def _capture_path(recorded: str, analysis: Path) -> Path:
    for cand in (Path(recorded), analysis / recorded):
        if cand.is_file():
            return cand
    from ..outdir import show

    raise ScenarioError(f"{show(recorded)}: the capture summary.json names is not there (looked from "
                        f"{show(os.getcwd())} and {show(analysis)}); run tcplab plot from where tcplab analyze ran")


def read_packets(path: Path, conn_id: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The connection's packets and SACK blocks (``_core.capture_packets``) as DataFrames."""
    from .. import _core
    from ..tables import to_arrow

    try:
        packets, sacks = _core.capture_packets(os.fsdecode(path), conn_id)
    except ValueError as e:
        from ..outdir import show

        raise ScenarioError(f"{show(path)}: {e}") from None
    return to_arrow(packets).to_pandas(), to_arrow(sacks).to_pandas()


def duplicate_acks(acks: pd.DataFrame, data: pd.DataFrame) -> pd.DataFrame:
    """RFC 5681 §2 duplicate ACKs among ``acks`` (every packet of the ACK direction, in
    capture order), given the data direction's packets (module docs)."""
    if acks.empty or data.empty:
        return acks.iloc[0:0]
    ack = acks["ack"].to_numpy(dtype=float)
    win = acks["win"].to_numpy(dtype=float)
    same = np.concatenate([[False], (ack[1:] == ack[:-1]) & (win[1:] == win[:-1])])
    pure = (acks["kind"].astype(str) == "ack").to_numpy() & (acks["len"].to_numpy() == 0)
    top = np.maximum.accumulate(data["seq"].to_numpy(dtype=float) + data["len"].to_numpy(dtype=float))
    i = np.searchsorted(data["ts_ns"].to_numpy(), acks["ts_ns"].to_numpy(), side="right") - 1
    highest = np.where(i >= 0, top[np.clip(i, 0, None)], -np.inf)
    return acks[same & pure & (highest > ack)]


def rtt_samples(acks: pd.DataFrame, data: pd.DataFrame) -> pd.DataFrame:
    """Karn samples at the capture point (module docs): columns ``ts_ns`` (of the ACK) and
    ``rtt_s``."""
    empty = pd.DataFrame({"ts_ns": pd.Series([], dtype="uint64"), "rtt_s": pd.Series([], dtype=float)})
    segs = data[data["len"] > 0]
    if acks.empty or segs.empty:
        return empty
    end = (segs["seq"] + segs["len"]).to_numpy()
    ends, counts = np.unique(end, return_counts=True)
    once = set(ends[counts == 1].tolist())
    first = segs.assign(end=end).drop_duplicates("end")
    sent_at = dict(zip(first["end"].tolist(), first["ts_ns"].tolist()))
    a = acks[acks["ack"].notna()]
    ackv = a["ack"].to_numpy(dtype=float)
    prior = np.concatenate([[-np.inf], np.maximum.accumulate(ackv)[:-1]])
    new = a[ackv > prior]
    rows = [(t, (t - sent_at[int(v)]) / 1e9) for t, v in zip(new["ts_ns"].tolist(), new["ack"].tolist())
            if int(v) in once and sent_at[int(v)] < t]
    if not rows:
        return empty
    return pd.DataFrame(rows, columns=["ts_ns", "rtt_s"])


def capture_figure(analysis: Path, conn: int | None = None, t_start=None, t_end=None):
    """The matplotlib figure :func:`plot_capture` saves (the caller closes it), and a line
    naming the connection drawn."""
    analysis = Path(analysis)
    check_range(t_start, t_end, origin="the connection's first packet (0 s)")
    summary, conns, rexmits = _load(analysis)
    row = _pick(conns, conn)
    cid = int(row["conn_id"])
    path = _capture_path(_recorded_path(summary, str(row["capture"])), analysis)
    packets, sacks = read_packets(path, cid)
    if packets.empty:
        from ..outdir import show

        raise ScenarioError(f"{show(path)}: no packets of connection {cid} (was the capture changed since the analysis?)")
    data_dir = "c2s" if int(row["c2s_bytes"]) >= int(row["s2c_bytes"]) else "s2c"
    t0 = int(packets["ts_ns"].min())
    packets["t"] = (packets["ts_ns"].astype("int64") - t0) / 1e9
    pdir = packets["dir"].astype(str)
    data = packets[pdir == data_dir]
    acks = packets[(pdir != data_dir)]
    last = float(packets["t"].max())
    if t_start is not None and t_start > last:
        raise ScenarioError(f"--start {t_start:g}: after the connection's last packet ({last:.3f} s)")
    lo, hi = fit_axis(0.0, last, t_start, t_end)

    mine = rexmits[(rexmits["capture"].astype(str) == str(row["capture"])) & (rexmits["conn_id"] == cid)
                   & (rexmits["dir"].astype(str) == data_dir)].copy()
    mine["t"] = (mine["ts_ns"].astype("int64") - t0) / 1e9
    dup = duplicate_acks(acks, data)
    samples = rtt_samples(acks, data)
    samples["t"] = (samples["ts_ns"].astype("int64") - t0) / 1e9
    sack = sacks.merge(acks[["frame", "t"]], on="frame", how="inner") if not sacks.empty else sacks.assign(t=[])

    def view(df):
        return df[(df["t"] >= lo) & (df["t"] <= hi)]

    data, acks, dup, mine, samples, sack = map(view, (data, acks, dup, mine, samples, sack))
    segs = data[data["len"] > 0]
    ack_line = acks[acks["ack"].notna()]

    fig, (ax1, ax_rtt, ax3) = plt.subplots(
        3, 1, figsize=(11, 8.6), sharex=True, gridspec_kw={"height_ratios": [3, 1.4, 0.55]}
    )
    who = f"{row['client']} → {row['server']}" if data_dir == "c2s" else f"{row['server']} → {row['client']}"
    title = f"{row.get('capture_name', path.name)}: connection {cid} (data {who}, capture at the {row.get('vantage', '?')})"
    fig.suptitle(title)

    if not segs.empty:
        ax1.vlines(segs.t, segs.seq / KB, (segs.seq + segs.len) / KB, colors=SEGMENT_COLOUR, linewidth=0.8,
                   label="segment", zorder=2)
    if not ack_line.empty:
        ax1.step(ack_line.t, ack_line.ack / KB, where="post", color=ACK_COLOUR, linewidth=0.8, label="ACK", zorder=1)
        w = ack_line[ack_line["rwnd"].notna()]
        if not w.empty:
            ax1.step(w.t, (w.ack + w.rwnd) / KB, where="post", color=RWND_COLOUR, linewidth=0.8,
                     label="receive window", zorder=1)
    if not sack.empty:
        ax1.vlines(sack.t, sack.left / KB, sack.right / KB, colors=SACK_COLOUR, linewidth=2.5, alpha=0.6,
                   label="SACK block", zorder=2)
    if not dup.empty:
        ax1.plot(dup.t, dup.ack / KB, linestyle="none", marker=2, markersize=5, color=DUPACK_COLOUR,
                 label="duplicate ACK", zorder=3)
    if not mine.empty:
        retransmission_marks(ax1, mine.t, mine.seq, mine.len, mine["cause"].astype(str), mine["spurious"])
    fit_sequence_axis(ax1, [segs.seq, segs.seq + segs.len, ack_line.ack, sack.right if not sack.empty else []])
    ax1.set_ylabel("sequence (KB, relative)")
    if ax1.get_legend_handles_labels()[0]:
        ax1.legend(loc="upper left", fontsize=7, ncol=2)
    ax1.grid(alpha=0.3)

    # --- RTT / RTO panel
    if not samples.empty:
        at_sender = str(row.get("vantage", "")) == "sender"
        ax_rtt.plot(samples.t, samples.rtt_s, linestyle="none", marker=".", markersize=3, color=SEGMENT_COLOUR,
                    label="RTT sample (Karn)" if at_sender else "sample beyond the capture point (Karn)")
    for col, style, label in (("rtt_handshake_ns", ":", "handshake RTT"), ("srtt_ns", "-", "SRTT (end)")):
        v = row.get(col)
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            ax_rtt.axhline(float(v) / 1e9, color="black", linestyle=style, linewidth=0.8, label=label)
    rto = mine[(mine["cause"].astype(str) == "rto") & mine["detection_ns"].notna()]
    if not rto.empty:
        ax_rtt.plot(rto.t, rto["detection_ns"].astype(float) / 1e9, "o", color=CAUSE_COLOURS["rto"], markersize=5,
                    label="timeout: first copy → retransmission")
    ax_rtt.set_ylabel("RTT / RTO (s)")
    ax_rtt.set_ylim(bottom=0)
    if ax_rtt.get_legend_handles_labels()[0]:
        ax_rtt.legend(loc="upper right", fontsize=7, framealpha=0.9)
    ax_rtt.grid(alpha=0.3)

    rug_strip(ax3, [
        (segs.t, "black", "data"),
        (mine.t, [CAUSE_COLOURS.get(c, "black") for c in mine["cause"].astype(str)], "rexmit"),
        (ack_line.t, "black", "ACK"),
    ], "time since the connection's first packet (s)", lo, hi)
    fig.tight_layout()
    # Connection ids are per capture: with several captures --conn cannot name every one.
    n_conns, n_ids = len(conns), len(set(conns["conn_id"]))
    what = f"connection {cid} of {path}"
    if n_conns > 1:
        how = "--conn N for another" if n_ids == n_conns else "analyse one capture to pick another with --conn N"
        what += f" ({n_conns} in the analysis; {how})"
    return fig, what
