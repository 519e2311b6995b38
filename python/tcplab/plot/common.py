"""What the run plot and the capture plot share: colours, image formats, range checks, the
hash-mark rows, saving."""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from ..errors import ScenarioError  # noqa: E402

#: Colours per retransmission cause (kept stable across plots; the analyzer's `unknown` grey).
CAUSE_COLOURS = {
    "rto": "#d62728",
    "fast_retransmit": "#ff7f0e",
    "sack_recovery": "#9467bd",
    "probe": "#8c564b",
    "tlp": "#17becf",
    "unknown": "#7f7f7f",
}
#: Drops (simulator ground truth): data and ACKs.
DROP_COLOUR = "#e377c2"
ACK_COLOUR = "#2ca02c"
#: The receive-window line: ACK + advertised window (tcptrace's "window line").
RWND_COLOUR = "#bcbd22"
SACK_COLOUR = "#8c564b"
DUPACK_COLOUR = "#1b5e20"
SEGMENT_COLOUR = "#1f77b4"
KB = 1000.0
#: Most hash marks drawn per rug row; above this a row shows every k-th mark.
RUG_MAX_MARKS = 1000
#: Formats savefig can write without extra software (pgf needs a LaTeX installation).
IMAGE_FORMATS = tuple(sorted(set(FigureCanvasAgg.get_supported_filetypes()) - {"pgf"}))
_PREFERRED = ("png", "pdf", "svg")
#: Share of the flow's duration left blank on each side of a fitted time axis.
AXIS_MARGIN = 0.02


def check_image_path(out: Path) -> None:
    fmt = out.suffix.lower().lstrip(".")
    if fmt in IMAGE_FORMATS:
        if (out.exists() or out.is_symlink()) and not out.is_file():
            # A directory, a FIFO (writing would wait for a reader forever), a device, a
            # dangling or looping link: refused before anything is drawn.
            from ..outdir import show

            raise ScenarioError(f"-o: {show(out)}: exists and is not a regular file")
        return
    choices = ", ".join(f".{f}" for f in (*_PREFERRED, *(f for f in IMAGE_FORMATS if f not in _PREFERRED)))
    what = f'unsupported image format "{out.suffix}"' if out.suffix else f'"{out}" has no file extension to pick the image format from'
    raise ScenarioError(f"-o: {what} (use one of {choices})")


def check_range(t_start, t_end, origin: str = "the start of the run (0 s)") -> None:
    for flag, v in (("--start", t_start), ("--end", t_end)):
        if v is not None and (not math.isfinite(v) or v < 0):
            raise ScenarioError(f"{flag}: must be a time in seconds ≥ 0, got {v:g}")
    lo = t_start if t_start is not None else 0.0
    if t_end is not None and lo >= t_end:
        if t_start is None:
            raise ScenarioError(f"--end {t_end:g}: must be after {origin}")
        raise ScenarioError(f"--start {lo:g} must be before --end {t_end:g}")


def fit_axis(first: float, last: float, t_start, t_end) -> tuple[float, float]:
    """The time axis: ``--start``/``--end`` where given, else the flow's own span (first to
    last event) with :data:`AXIS_MARGIN` on each side, never below 0."""
    span = max(last - first, 1e-3)
    lo = t_start if t_start is not None else max(0.0, first - AXIS_MARGIN * span)
    hi = t_end if t_end is not None else last + AXIS_MARGIN * span
    if hi <= lo:  # a trace that ends where it starts (nothing after the SYN)
        hi = lo + 1.0
    return lo, hi


#: Head room above the highest byte sent or acknowledged on a time-sequence panel.
SEQ_HEADROOM = 0.08


def fit_sequence_axis(ax, series) -> None:
    """The sequence axis spans the bytes sent and acknowledged in view (plus
    :data:`SEQ_HEADROOM`), not the receive-window line, which would otherwise squash the data
    whenever the window is much larger than what is in flight; that line is clipped."""
    vals = [np.asarray(v, dtype=float) for v in series if len(v)]
    vals = [v[np.isfinite(v)] for v in vals]
    vals = [v for v in vals if len(v)]
    if not vals:
        return
    lo = min(float(v.min()) for v in vals) / KB
    hi = max(float(v.max()) for v in vals) / KB
    pad = max(hi - lo, 1e-3) * SEQ_HEADROOM
    ax.set_ylim(lo - pad, hi + pad)


def rug(ax, y: float, t, colours, label: str) -> str:
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


def rug_strip(ax, rows: list[tuple[object, object, str]], xlabel: str, lo: float, hi: float) -> None:
    """The bottom panel: one row of hash marks (:func:`rug`) per ``(times, colours, label)``,
    top row first, labelled on the y axis; the shared time axis from ``lo`` to ``hi``."""
    ys = list(range(len(rows) - 1, -1, -1))
    labels = [rug(ax, y, t, colours, label) for y, (t, colours, label) in zip(ys, rows)]
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_yticks(ys, labels, fontsize=7)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel(xlabel)
    ax.set_xlim(lo, hi)


def read_table(path: Path, **kwargs):
    """``pyarrow.parquet.read_table`` through an open file: pyarrow's own path handling
    rejects names that are not UTF-8 (``out\\xff``), which Python's ``open`` takes."""
    with open(path, "rb") as f:
        return pq.read_table(f, **kwargs)


def num_rows(path: Path) -> int:
    """Rows of a Parquet file (0 if it is missing), read like :func:`read_table`."""
    if not path.exists():
        return 0
    with open(path, "rb") as f:
        return pq.read_metadata(f).num_rows


def save(fig, out: Path) -> Path:
    """Save and close ``fig`` as ``out`` (format from the suffix), creating the directory."""
    out = Path(out)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    # Drawn into a temporary sibling and renamed into place, so a failure (a full disk,
    # Ctrl-C) never leaves a half-written image under the name asked for.
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.tmp-", suffix=out.suffix, dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fig.savefig(fh, dpi=120, format=out.suffix.lower().lstrip("."))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 → the mode open() would have given
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
    return out


def _verdict(v) -> str:
    """``spurious`` as ``needed``/``spurious``/``undecided`` (null, NA or NaN)."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return "undecided"
    return "spurious" if bool(v) else "needed"


def retransmission_marks(ax, t, seq, length, cause, spurious, *, scale: float = KB) -> None:
    """Retransmissions on a time-sequence panel: a thick bar over the bytes resent, coloured by
    cause, with a dot: filled = needed, hollow = spurious, a cross = undecided (null verdict;
    the simulator's ground truth is never null for data)."""
    t = np.asarray(t, dtype=float)
    lo = np.asarray(seq, dtype=float) / scale
    hi = (np.asarray(seq, dtype=float) + np.asarray(length, dtype=float)) / scale
    cause = np.asarray(cause, dtype=object)
    sp = np.asarray(spurious, dtype=object)
    for c in dict.fromkeys(cause):
        m = cause == c
        colour = CAUSE_COLOURS.get(c, "black")
        ax.vlines(t[m], lo[m], hi[m], colors=colour, linewidth=2.0, zorder=3)
        mid = (lo[m] + hi[m]) / 2
        verdict = np.array([_verdict(v) for v in sp[m]], dtype=object)
        needed, spur = verdict == "needed", verdict == "spurious"
        undecided = ~(needed | spur)
        if needed.any():
            ax.scatter(t[m][needed], mid[needed], marker="o", s=14, color=colour, label=f"retransmit: {c}", zorder=4)
        if spur.any():
            ax.scatter(t[m][spur], mid[spur], marker="o", s=30, facecolors="none", edgecolors=colour,
                       label=f"retransmit: {c} (spurious)", zorder=4)
        if undecided.any():
            ax.scatter(t[m][undecided], mid[undecided], marker="x", s=24, color=colour,
                       label=f"retransmit: {c} (undecided)", zorder=4)
