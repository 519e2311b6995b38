"""``tcplab plot sweep DIR --metric M --x KEY``: a metric against one swept key, with 95 %
confidence bands, one series per combination of the other swept keys.

Each point is the mean over seeds of the per-run metric and its band the Student-t 95 %
interval of that mean (:func:`tcplab.sweep.results.summarize`; the same numbers as
``summary.csv``). A numeric key is a numeric axis; any other (``"200ms"``, ``"1s"``) is
categorical, in the study's order — tcplab does not re-parse unit strings in Python, the
scenario loader is the one place that reads them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import TcplabError
from ..tables import to_pandas
from .ledger import STUDY
from .results import UNFINISHED, summarize


class SweepPlotError(TcplabError):
    """The sweep directory or the metric/key asked for cannot be plotted (one line)."""


@dataclass
class SweepData:
    out: Path
    study: dict[str, Any]
    flows: pd.DataFrame
    summary: pd.DataFrame

    @property
    def keys(self) -> list[str]:
        return [k for g in self.study.get("parameters", []) for k in g["keys"]]

    def values(self, key: str) -> list[Any]:
        """The values of ``key`` in the study's order."""
        for g in self.study.get("parameters", []):
            if key in g["keys"]:
                i = g["keys"].index(key)
                return list(dict.fromkeys(row[i] for row in g["values"]))
        raise KeyError(key)


def load_sweep(out: Path) -> SweepData:
    """A finished sweep directory: ``study.json``, ``flows.parquet``, ``summary.parquet``."""
    import pyarrow.parquet as pq

    out = Path(out)
    if not (out / STUDY).is_file() or not (out / "flows.parquet").is_file():
        raise SweepPlotError(f"{out}: not a finished sweep directory (no {STUDY} or flows.parquet; run tcplab sweep)")
    study = json.loads((out / STUDY).read_text(encoding="utf-8"))
    flows = to_pandas(pq.read_table(out / "flows.parquet"))
    summary = pd.read_parquet(out / "summary.parquet") if (out / "summary.parquet").is_file() else pd.DataFrame()
    return SweepData(out, study, flows, summary)


def plot_sweep(out: str | Path, metric: str, x: str, image: str | Path) -> Path:
    """Draw ``metric`` against swept key ``x`` from sweep directory ``out`` into ``image``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = load_sweep(Path(out))
    keys = d.keys
    if x not in keys:
        raise SweepPlotError(f"--x {x}: not a swept key of this study (swept: {', '.join(keys) or 'none'})")
    if metric != UNFINISHED and metric not in d.flows.columns:
        numeric = [c for c in d.flows.columns if c not in keys and c not in ("run_key", "seed")
                   and pd.api.types.is_numeric_dtype(d.flows[c])]
        raise SweepPlotError(f"--metric {metric}: no such column (numeric columns: {', '.join(numeric)}, {UNFINISHED})")
    summ = summarize(d.flows, keys, [metric])
    others = [k for k in keys if k != x]
    xs = d.values(x)
    numeric_x = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs)
    pos = {v: (float(v) if numeric_x else i) for i, v in enumerate(xs)}

    fig, ax = plt.subplots(figsize=(7, 4.5))
    groups = summ.groupby(others, sort=False, dropna=False) if others else [((), summ)]
    n_seeds = int(summ["n"].max()) if len(summ) else 0
    for series, g in groups:
        series = series if isinstance(series, tuple) else (series,)
        g = g.assign(_x=g[x].map(lambda v: pos.get(v, math.nan))).sort_values("_x")
        lab = ", ".join(f"{k} = {v}" for k, v in zip(others, series)) or None
        (line,) = ax.plot(g["_x"], g["mean"], marker="o", label=lab)
        ax.fill_between(g["_x"], g["ci95_low"], g["ci95_high"], color=line.get_color(), alpha=0.2, linewidth=0)
        if not numeric_x:
            ax.errorbar(g["_x"], g["mean"], yerr=[g["mean"] - g["ci95_low"], g["ci95_high"] - g["mean"]],
                        fmt="none", ecolor=line.get_color(), capsize=4)
    if not numeric_x:
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_xlim(-0.5, len(xs) - 0.5)
    ax.set_xlabel(x)
    what = "flows per run that did not finish" if metric == UNFINISHED else f"{metric} (per-run mean over flows)"
    ax.set_ylabel(what)
    ax.set_title(f"{d.study.get('name', '')}: {metric} vs {x}\nmean over {n_seeds} seeds, 95 % CI (Student t)", fontsize=10)
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(fontsize=8)
    fig.tight_layout()
    image = Path(image)
    image.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(image, dpi=120)
    plt.close(fig)
    return image
