"""Trace plots in the style of the source papers.

Three panels sharing the time axis:

* **time-sequence** (tcptrace / Wireshark "Stream Graph" convention): each data segment sent
  is a short vertical bar from seq to seq+len (relative to the ISN); ACKs received are a
  step line; retransmissions are coloured by tcplab's cause; spurious ones are hollow.
* **window trace** (Aron & Druschel TR98-318, Appendix A, Figs. 11-12): ssthresh dashed,
  congestion window light grey, unacknowledged data as a thin line; black circles at the top
  for retransmission timeouts; thin vertical lines the whole height of the panel when a
  retransmitted segment was sent.
* **rug strip** under it: the paper's hash marks, one per segment sent, per retransmission
  (coloured by cause) and per ACK received, each on its own labelled row so they cannot be
  read as data on the KB axis. Above :data:`RUG_MAX_MARKS` marks in view a row shows every
  k-th mark only, and its label says so ("sent, 1 in 10").
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

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
#: Most hash marks drawn per rug row; above this a row shows every k-th mark.
RUG_MAX_MARKS = 1000
#: Formats savefig can write without extra software (pgf needs a LaTeX installation).
IMAGE_FORMATS = tuple(sorted(set(FigureCanvasAgg.get_supported_filetypes()) - {"pgf"}))
_PREFERRED = ("png", "pdf", "svg")


def _check_image_path(out: Path) -> None:
    fmt = out.suffix.lower().lstrip(".")
    if fmt in IMAGE_FORMATS:
        return
    choices = ", ".join(f".{f}" for f in (*_PREFERRED, *(f for f in IMAGE_FORMATS if f not in _PREFERRED)))
    what = f'unsupported image format "{out.suffix}"' if out.suffix else f'"{out}" has no file extension to pick the image format from'
    raise ScenarioError(f"-o: {what} (use one of {choices})")


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


def _check_range(t_start, t_end) -> None:
    for flag, v in (("--start", t_start), ("--end", t_end)):
        if v is not None and (not math.isfinite(v) or v < 0):
            raise ScenarioError(f"{flag}: must be a time in seconds ≥ 0, got {v:g}")
    lo = t_start if t_start is not None else 0.0
    if t_end is not None and lo >= t_end:
        if t_start is None:
            raise ScenarioError(f"--end {t_end:g}: must be after the start of the run (0 s)")
        raise ScenarioError(f"--start {lo:g} must be before --end {t_end:g}")


def _rug(ax, y: float, t: pd.Series, colours, label: str) -> str:
    """Hash marks at height y; thinned to at most RUG_MAX_MARKS. Returns the row's label."""
    n = len(t)
    if n == 0:
        return label
    step = math.ceil(n / RUG_MAX_MARKS)
    idx = slice(None, None, step)
    ts = np.asarray(t)[idx]
    cs = colours if isinstance(colours, str) else np.asarray(colours)[idx]
    ax.vlines(ts, y - 0.35, y + 0.35, colors=cs, linewidth=0.6)
    return label if step == 1 else f"{label}, 1 in {step}"


def plot_flow(results: Path, flow: int, out: Path, t_start=None, t_end=None) -> Path:
    """Draw flow ``flow`` of the run in ``results`` to the image ``out`` (format from its
    suffix: .png, .pdf, .svg, ...). ``t_start``/``t_end`` (seconds) limit the time axis.
    Raises :class:`ScenarioError` (one line) for a bad directory, flow, range or format."""
    out = Path(out)
    _check_image_path(out)
    fig = flow_figure(results, flow, t_start, t_end)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(out, dpi=120)
    finally:
        plt.close(fig)
    return out


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
    last = max(ev["t"].max() if not ev.empty else 0, ts["t"].max() if not ts.empty else 0)
    lo = t_start if t_start is not None else 0.0
    hi = t_end if t_end is not None else last
    if lo > last:
        raise ScenarioError(f"--start {lo:g}: after the flow's last event ({last:.3f} s)")
    if hi <= lo:  # a trace that ends at 0 s (nothing after the SYN)
        hi = lo + 1.0
    ev = ev[(ev.t >= lo) & (ev.t <= hi)]
    ts = ts[(ts.t >= lo) & (ts.t <= hi)]

    kind = ev["kind"].astype(str)
    sent = ev[kind == "segment_sent"]
    rexmit = ev[kind == "segment_retransmitted"]
    acks = ev[kind == "ack_received"]
    rtos = ev[kind == "rto_fired"]
    rexmit_cause = rexmit["cause"].astype(str) if not rexmit.empty else pd.Series([], dtype=str)

    fig, (ax1, ax2, ax3) = plt.subplots(
        3, 1, figsize=(11, 8.6), sharex=True, gridspec_kw={"height_ratios": [3, 2, 0.55]}
    )
    fig.suptitle(_title(results, flow, summary))

    # --- time-sequence panel (segments above the ACK line, which would hide them)
    if not sent.empty:
        ax1.vlines(sent.t, sent.seq / KB, (sent.seq + sent.len) / KB, colors="#1f77b4", linewidth=0.8,
                   label="segment sent", zorder=2)
    if not acks.empty:
        ax1.step(acks.t, acks.ack / KB, where="post", color="#2ca02c", linewidth=0.8, label="ACK received", zorder=1)
    for cause, group in rexmit.groupby(rexmit_cause) if not rexmit.empty else []:
        colour = CAUSE_COLOURS.get(cause, "black")
        spurious = group["spurious"].fillna(False).astype(bool) if "spurious" in group else np.zeros(len(group), bool)
        ax1.vlines(group.t, group.seq / KB, (group.seq + group.len) / KB, colors=colour, linewidth=2.0, zorder=3)
        if (~spurious).any():
            ax1.scatter(group.t[~spurious], (group.seq[~spurious] + group.len[~spurious] / 2) / KB,
                        marker="o", s=14, color=colour, label=f"retransmit: {cause}", zorder=4)
        if spurious.any():
            ax1.scatter(group.t[spurious], (group.seq[spurious] + group.len[spurious] / 2) / KB, marker="o",
                        s=30, facecolors="none", edgecolors=colour, label=f"retransmit: {cause} (spurious)", zorder=4)
    ax1.set_ylabel("sequence (KB, relative)")
    if ax1.get_legend_handles_labels()[0]:
        ax1.legend(loc="upper left", fontsize=8)
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
        ax2.legend(loc="upper right", fontsize=8, framealpha=0.9)
    ax2.grid(alpha=0.3)

    # --- rug strip: one row of hash marks per kind
    rows = [
        _rug(ax3, 2, sent.t, "black", "sent"),
        _rug(ax3, 1, rexmit.t, [CAUSE_COLOURS.get(c, "black") for c in rexmit_cause], "rexmit"),
        _rug(ax3, 0, acks.t, "black", "ACK rcvd"),
    ]
    ax3.set_ylim(-0.6, 2.6)
    ax3.set_yticks([2, 1, 0], rows, fontsize=7)
    ax3.tick_params(axis="y", length=0)
    ax3.grid(axis="x", alpha=0.3)
    ax3.set_xlabel("time (s)")
    ax3.set_xlim(lo, hi)

    fig.tight_layout()
    return fig
