"""The sweep's tables: one run file, the tidy ``flows.parquet``, and the summary with CIs.

``flows.parquet``: one row per run and flow; columns ``run_key``, one per swept key (named
by its dotted key, e.g. ``tcp.min_rto``), ``seed``, then the columns of ``tcplab run``'s
``flows.parquet`` (docs/outputs.md). Rows are in the study's order (points in file order,
seeds in the listed order, flows by id), whatever order the runs finished in, so the file is
a pure function of the study.

Summary: **the unit of replication is the run** (one seed), not the flow — the flows of one
run share a bottleneck and are not independent. Each metric is first averaged over the
flows of a run (``fct_s`` over the flows that finished; ``unfinished`` counts the others),
then summarised over the seeds of a point: n, mean, sample standard deviation, and the
95 % confidence interval of the mean from Student's t distribution,
``mean ± t(0.975, n−1) · s / √n`` (undefined, NaN, for n = 1).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from typing import TYPE_CHECKING

from .study import Study, label

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

# numpy and pyarrow are imported by the functions that use them: the sweep driver imports
# this module before its first run, and them after (runner.warm_up).

#: What the driver needs only once results arrive: filing's pyarrow (and tcplab.api, for the
#: provenance record), tabulation's pandas and scipy's special functions (the t quantile; about
#: 0.15–0.25 s, 0.3–0.4 s and 0.15 s of CPU on the project machine). Imported lazily, so that
#: the sweep driver can import them while the workers simulate (``runner.warm_up``) instead of
#: before the first run or after the last, when both workers wait for it.
TABULATION_MODULES = ("pyarrow", "pyarrow.parquet", "tcplab.api", "pandas", "scipy.special")

#: Metrics summarised when the study names none (flows.parquet columns; see docs/outputs.md).
DEFAULT_METRICS = ("fct_s", "goodput_bps", "retransmissions", "timeouts", "spurious_retransmissions")
#: A derived metric: flows of the run that did not finish (``fct_s`` null).
UNFINISHED = "unfinished"
#: Confidence level of the summary's intervals.
CONFIDENCE = 0.95


def column_type(values: Sequence[Any]) -> pa.DataType:
    """The Arrow type of a swept key's column, from all of its values in the study: bool,
    int64, float64 when every value is one, else string (lists and tables as TOML text)."""
    import pyarrow as pa

    vals = [label(v) for v in values]
    if all(isinstance(v, bool) for v in vals):
        return pa.bool_()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return pa.int64()
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return pa.float64()
    return pa.string()


def column_types(study: Study) -> dict[str, pa.DataType]:
    return {k: column_type([r[i] for r in g.rows]) for g in study.groups for i, k in enumerate(g.keys)}


def _cell(value: Any, typ: pa.DataType) -> Any:
    import pyarrow as pa

    v = label(value)
    if pa.types.is_string(typ):
        return v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)
    if pa.types.is_floating(typ):
        return float(v)
    return v


def run_table(flows: pa.Table, key: str, point: dict[str, Any], seed: int, types: dict[str, pa.DataType]) -> pa.Table:
    """A run's flows table with ``run_key``, the point's columns and ``seed`` in front."""
    import pyarrow as pa

    n = flows.num_rows
    cols = [pa.array([key] * n, pa.string())]
    names = ["run_key"]
    for k, typ in types.items():
        cols.append(pa.array([_cell(point[k], typ)] * n, typ))
        names.append(k)
    cols.append(pa.array([seed] * n, pa.uint64()))
    names.append("seed")
    fields = [pa.field(nm, c.type, nullable=False) for nm, c in zip(names, cols)]
    schema = pa.schema(fields + list(flows.schema))
    return pa.Table.from_arrays(cols + flows.columns, schema=schema)


def metrics_of(study: Study, flows: pd.DataFrame) -> list[str]:
    """The metrics to summarise: the study's ``metrics``, else the defaults present."""
    if study.metrics:
        return list(study.metrics)
    return [m for m in DEFAULT_METRICS if m in flows.columns] + [UNFINISHED]


def per_run(flows: pd.DataFrame, keys: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per run: the point's keys, ``seed``, and each metric averaged over its flows."""
    import pandas as pd

    df = flows.copy()
    cols = []
    for m in metrics:
        if m == UNFINISHED:
            df[UNFINISHED] = df["fct_s"].isna().astype("int64") if "fct_s" in df else 0
            cols.append((m, "sum"))
        else:
            if m not in df.columns:
                raise KeyError(m)
            df[m] = pd.to_numeric(df[m], errors="coerce").astype("float64")
            cols.append((m, "mean"))
    group = ["run_key", *keys, "seed"]
    agg = df.groupby(group, sort=False, observed=True, dropna=False).agg(**{m: (m, how) for m, how in cols})
    return agg.reset_index()


def t_quantile(n: int) -> float:
    """t(0.975, n−1) for a two-sided 95 % interval of a mean of n samples: the inverse of
    Student's t CDF, ``scipy.special.stdtrit`` (what ``scipy.stats.t.ppf`` calls, without
    importing all of scipy.stats)."""
    from scipy.special import stdtrit

    return float(stdtrit(n - 1, 0.5 + CONFIDENCE / 2))


def summarize(flows: pd.DataFrame, keys: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Mean and 95 % CI per point and metric (long format): the swept keys, ``metric``,
    ``n`` (seeds with a value), ``mean``, ``std``, ``ci95_low``, ``ci95_high``."""
    import numpy as np
    import pandas as pd

    runs = per_run(flows, keys, metrics)
    rows = []
    groups = runs.groupby(list(keys), sort=False, dropna=False) if keys else [((), runs)]
    for point, g in groups:
        point = point if isinstance(point, tuple) else (point,)
        for m in metrics:
            x = g[m].dropna().to_numpy(dtype=float)
            n = len(x)
            mean = float(np.mean(x)) if n else math.nan
            std = float(np.std(x, ddof=1)) if n > 1 else math.nan
            half = t_quantile(n) * std / math.sqrt(n) if n > 1 else math.nan
            rows.append({**dict(zip(keys, point)), "metric": m, "n": n, "mean": mean, "std": std,
                         "ci95_low": mean - half, "ci95_high": mean + half})
    return pd.DataFrame(rows, columns=[*keys, "metric", "n", "mean", "std", "ci95_low", "ci95_high"])


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    a = abs(x)
    if a >= 1e6:
        return f"{x:.4g}"
    if a >= 100:
        return f"{x:.1f}"
    return f"{x:.4g}"


def format_summary(summary: pd.DataFrame, keys: Sequence[str]) -> str:
    """The summary as a text table: one row per point, per metric ``mean [low, high]``."""
    if summary.empty:
        return "(no runs)"
    metrics = list(dict.fromkeys(summary["metric"]))
    head = [*keys, "n", *metrics]
    lines = []
    by_point = summary.groupby(list(keys), sort=False, dropna=False) if keys else [((), summary)]
    for point, g in by_point:
        point = point if isinstance(point, tuple) else (point,)
        cells = [str(v) for v in point]
        cells.append(str(int(g["n"].max())))
        for m in metrics:
            r = g[g["metric"] == m].iloc[0]
            ci = "" if math.isnan(r["ci95_low"]) else f" [{_fmt(r['ci95_low'])}, {_fmt(r['ci95_high'])}]"
            cells.append(f"{_fmt(r['mean'])}{ci}")
        lines.append(cells)
    widths = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(head)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip()]
    for c in lines:
        out.append("  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip())
    out.append("mean over seeds of the per-run mean over flows [95 % CI, Student t]")
    return "\n".join(out)
