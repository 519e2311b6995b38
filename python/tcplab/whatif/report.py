"""The what-if report: 003's Table IV, Table V and Figs 2-7 redrawn for given captures.

Every number is computed here from the ``whatif`` and ``retransmissions`` tables of one or
more :func:`tcplab.whatif.whatif` results (rows carry their sender ``model``, so a corpus of
several stacks gives one series per stack). Conventions (003 §V): a *reduction* is minus the
table's change (``-delta_rtts``), so positive is faster; the x axis of Figs 4, 5 and 7 is the
connection's Best-Case reduction in RTTs, binned logarithmically, with the per-bin mean and
95th percentile of the reduction; the dashed line is the Best-Case itself (slope 1).

Choices where 003's figure needs a value the default grid lacks: Fig 4 uses k = 2, 6, 8
(003 shows 2, 3, 6; 3 is not in §V-B's list); every other parameter is held at the model's
own value, or, for a model whose minRTO is not in §V-B's list (FreeBSD, 1200 ms), at the
nearest listed value (the report says which).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

#: 003 §V-C: "connections that transmit 15KB (~10 MSS-sized segments) or less as small".
SMALL_CONNECTION_BYTES = 15_000
#: Fig 4's k values (see the module doc).
FIG4_K = (2.0, 6.0, 8.0)
#: Fig 5(a)'s minRTO values, ms (003: Solaris with 100 ms, Linux with 400 ms).
FIG5_MIN_RTO_MS = (100.0, 400.0)
#: Fig 5(b)'s a (003: a = 1/2).
FIG5_A = 0.5
#: Log bins of the Best-Case axis (RTTs): edges 10^(i/BINS_PER_DECADE).
BINS_PER_DECADE = 2
#: 003's threshold for a "significant" change: more than 10 % of the duration.
SIGNIFICANT_PCT = 10.0
#: Percentile drawn as the error bar (003: "the 95-percentile").
UPPER_PERCENTILE = 95
#: The values whose mean reductions the report states, one parameter varied at a time
#: (every figure's values are among them; :func:`report_rows` reads only these points).
MEAN_K = (2.0, 4.0, 6.0, 8.0)
MEAN_MIN_RTO_MS = (100.0, 200.0, 400.0, 800.0, 1000.0)
MEAN_A = (1.0, 0.5, 0.25, 1 / 32)
MEAN_D = ("2", "3", "4", "adaptive")
#: The columns that label a (model, grid point).
POINT_COLUMNS = ("model", "point", "grid_set", "D", "a", "b", "m", "k", "min_rto_ms", "is_model")



def _legend(ax) -> None:
    """A legend only when some artist has a label (matplotlib warns on an empty one)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)

def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _with_model(retx, wi):
    """The retransmissions with their connection's model (from the whatif rows)."""
    m = wi[["capture", "conn_id", "model"]].drop_duplicates(["capture", "conn_id"])
    return retx.merge(m, on=["capture", "conn_id"], how="inner")


def _str(df, col):
    return df[col].astype(str)


def table_iv(retx, wi):
    """003 Table IV: retransmissions by cause (RTO, FR/R) and verdict, per model."""
    import pandas as pd

    r = _with_model(retx, wi)
    r = r.assign(cause=_str(r, "cause"), model=_str(r, "model"))
    fr = r["cause"].isin(["fast_retransmit", "sack_recovery"])
    rto = r["cause"] == "rto"
    sp = r["spurious"].astype("boolean")
    rows = []
    for model, g in r.groupby("model", sort=True):
        idx = g.index
        spg = sp.loc[idx]
        n = len(g)
        cell = lambda mask: int(mask.sum())  # noqa: E731
        row = {
            "model": model,
            "total": n,
            "needed_rto": cell(rto.loc[idx] & (spg == False)),  # noqa: E712
            "needed_frr": cell(fr.loc[idx] & (spg == False)),  # noqa: E712
            "spurious_rto": cell(rto.loc[idx] & (spg == True)),  # noqa: E712
            "spurious_frr": cell(fr.loc[idx] & (spg == True)),  # noqa: E712
            "undecided": cell(spg.isna()),
            "other_cause": cell(~(fr.loc[idx] | rto.loc[idx])),
        }
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", "total", "needed_rto", "needed_frr", "spurious_rto", "spurious_frr", "undecided", "other_cause"])


def _model_params(wi):
    """Each model's own (a, b, k, min_rto_ms), read off its D rows (RTO parameters its own)."""
    out = {}
    for model, g in wi.groupby(_str(wi, "model"), sort=True):
        own = g[g["is_model"]] if g["is_model"].any() else g[_str(g, "grid_set") == "dupthresh"]
        if own.empty:
            continue
        r = own.iloc[0]
        out[model] = {"a": r["a"], "b": r["b"], "m": r["m"], "k": r["k"], "min_rto_ms": r["min_rto_ms"], "D": str(r["D"])}
    return out


def select(wi, model: str, **vary) -> tuple[Any, str]:
    """The rows of ``model`` where the named parameters take the given values and the others
    the model's own (nearest listed minRTO when the model's is not in the grid); with a note
    of any substitution."""
    own = _model_params(wi).get(model)
    g = wi[_str(wi, "model") == model]
    if own is None or g.empty:
        return g.iloc[0:0], ""
    want = {k: v for k, v in own.items() if k != "D"}
    want.update({k: v for k, v in vary.items() if k != "D"})
    note = ""
    # The minimum RTOs the RTO grid crossed with the other parameters (the D and Smart rows
    # carry the model's own, which the RTO grid may not list).
    rto_rows = g[_str(g, "grid_set") == "rto"]
    avail = sorted(set((rto_rows if not rto_rows.empty else g)["min_rto_ms"]))
    varies_rto = any(k in vary for k in ("a", "b", "m", "k", "min_rto_ms"))
    if varies_rto and "min_rto_ms" not in vary and want["min_rto_ms"] not in avail and avail:
        near = min(avail, key=lambda v: abs(v - want["min_rto_ms"]))
        note = f"{model}: minRTO {want['min_rto_ms']:g} ms is not in the grid; {near:g} ms used"
        want["min_rto_ms"] = near
    mask = True
    for k, v in want.items():
        mask = mask & (g[k] == v)
    d = vary.get("D", own["D"])
    mask = mask & (_str(g, "D") == str(d))
    return g[mask], note


def table_v(retx, wi):
    """003 Table V per model: the net changes for D = 2 (D = 3 when the model's D is 2) and
    D = 4: losses moved from RTO to FR/R and spurious FR/R caused; FR/R moved to RTO and
    spurious FR/R avoided; counts and % of the model's retransmissions."""
    import pandas as pd

    t4 = table_iv(retx, wi).set_index("model")
    r = _with_model(retx, wi).assign(cause=lambda x: x["cause"].astype(str), model=lambda x: x["model"].astype(str))
    rows = []
    for model, own in _model_params(wi).items():
        low = "3" if own["D"] == "2" else "2"
        lo, _ = select(wi, model, D=low)
        hi, _ = select(wi, model, D="4")
        rm = r[r["model"] == model]
        total = int(t4.loc[model, "total"]) if model in t4.index else 0
        pct = (lambda v: 100.0 * v / total if total else float("nan"))
        tot = lambda df, c: int(df[c].astype("int64").sum())  # noqa: E731 (uint32 columns: no wrap-around)
        to_fr = tot(lo, "rto_to_fr") - tot(lo, "fr_to_rto")
        caused = tot(lo, "spurious_fr_caused") - tot(lo, "spurious_fr_avoided")
        to_rto = tot(hi, "fr_to_rto") - tot(hi, "rto_to_fr")
        avoided = tot(hi, "spurious_fr_avoided") - tot(hi, "spurious_fr_caused")
        rows.append({
            "model": model, "D_model": own["D"], "D_low": low,
            "frr": int(rm["cause"].isin(["fast_retransmit", "sack_recovery"]).sum()), "rto": int((rm["cause"] == "rto").sum()),
            "low_rto_to_frr": to_fr, "low_rto_to_frr_pct": pct(to_fr),
            "low_spurious_caused": caused, "low_spurious_caused_pct": pct(caused),
            "d4_frr_to_rto": to_rto, "d4_frr_to_rto_pct": pct(to_rto),
            "d4_spurious_avoided": avoided, "d4_spurious_avoided_pct": pct(avoided),
        })
    return pd.DataFrame(rows)


def per_connection(wi):
    """One row per connection (its Best-Case columns)."""
    return wi.drop_duplicates(["capture", "conn_id"])


def binned(rows):
    """Log bins of Best-Case reduction (RTTs): (bin mean x, mean y, upper-percentile y, n)."""
    import numpy as np

    x = -rows["best_case_rtts"].astype(float)
    y = -rows["delta_rtts"].astype(float)
    ok = x.notna() & y.notna() & (x > 0)
    x, y = x[ok].to_numpy(), y[ok].to_numpy()
    if len(x) == 0:
        return []
    b = np.floor(np.log10(x) * BINS_PER_DECADE)
    out = []
    for v in sorted(set(b)):
        m = b == v
        out.append((float(x[m].mean()), float(y[m].mean()), float(np.percentile(y[m], UPPER_PERCENTILE)), int(m.sum())))
    return out


def _cdf(ax, values, label, positive: bool = False) -> list[float]:
    """Draws the empirical CDF; returns the values drawn. ``positive``: only values > 0 (a
    log axis), the CDF still over all values."""
    import numpy as np

    v = np.sort(np.asarray(values, dtype=float))
    v = v[~np.isnan(v)]
    if not len(v):
        return []
    y = np.arange(1, len(v) + 1) / len(v)
    if positive:
        keep = v > 0
        v, y = v[keep], y[keep]
    if len(v):
        ax.step(v, y, where="post", label=f"{label} (n={len(y)})")
    return list(v)


def _scatter_bins(ax, rows, label) -> list[float]:
    """Draws the binned reduction; returns the bins' x (for the axis limits)."""
    bins = binned(rows)
    if not bins:
        return []
    xs, ys, ups, _ = zip(*bins)
    err = [max(0.0, u - y) for u, y in zip(ups, ys)]
    ax.errorbar(xs, ys, yerr=[[0] * len(err), err], marker="o", capsize=3, label=label)
    return list(xs)


def _log_limits(ax, values) -> None:
    """Log x axis over the positive finite values (a decade either side when there are
    none): an axis left to autoscale over nothing spans hundreds of decades."""
    import numpy as np

    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    lo, hi = (float(v.min()), float(v.max())) if len(v) else (0.1, 10.0)
    from matplotlib.ticker import NullFormatter

    ax.set_xscale("log")
    ax.set_xlim(lo / 2, hi * 2)
    ax.xaxis.set_minor_formatter(NullFormatter())  # labelled decades only (no overlapping minor labels)


def _bestcase_axes(ax, title, xs=()):
    _log_limits(ax, xs)
    lo, hi = ax.get_xlim()
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="Best-Case")
    ax.set_xlabel("Best-Case reduction (RTTs)")
    ax.set_ylabel("reduction in duration (RTTs)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    _legend(ax)


def figures(retx, wi, out: Path, title: str = "") -> dict[str, Any]:
    """Figs 2-7 as PNGs in ``out``; returns the numbers the report states."""
    plt = _plt()
    models = sorted(_model_params(wi))
    r = _with_model(retx, wi)
    r = r.assign(cause=_str(r, "cause"), model=_str(r, "model"))
    conns = per_connection(wi).assign(model=lambda x: x["model"].astype(str))
    notes: list[str] = []
    stats: dict[str, Any] = {"models": models}

    # Fig 2: detection durations in RTTs, FR/R and RTO.
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    drawn: list[list[float]] = [[], []]
    for model in models:
        g = r[r["model"] == model]
        drawn[0] += _cdf(axes[0], g[g["cause"].isin(["fast_retransmit", "sack_recovery"])]["detection_rtts"], model, True)
        drawn[1] += _cdf(axes[1], g[g["cause"] == "rto"]["detection_rtts"], model, True)
        rt = g[g["cause"] == "rto"]["detection_rtts"].dropna()
        stats[f"median_rto_detection_rtts/{model}"] = float(rt.median()) if len(rt) else None
        fr = g[g["cause"].isin(["fast_retransmit", "sack_recovery"])]["detection_rtts"].dropna()
        stats[f"median_frr_detection_rtts/{model}"] = float(fr.median()) if len(fr) else None
    for ax, name, xs in zip(axes, ["FR/R", "RTO"], drawn):
        _log_limits(ax, xs)
        ax.set_xlabel("detection duration (RTTs)")
        ax.set_ylabel("CDF")
        ax.set_title(f"Fig 2: {name} detection {title}", fontsize=9)
        ax.grid(alpha=0.3)
        _legend(ax)
    fig.tight_layout()
    fig.savefig(out / "fig2_detection.png", dpi=100)
    plt.close(fig)

    # Fig 3: Best-Case reduction, % of the duration.
    fig, ax = plt.subplots(figsize=(6, 4))
    drawn3: list[float] = []
    for model in models:
        g = conns[conns["model"] == model]
        v = -g["best_case_pct"].astype(float)
        drawn3 += _cdf(ax, v.clip(lower=1e-3), model)
        n = int(v.notna().sum())
        stats[f"best_case_gt10pct/{model}"] = float((v > SIGNIFICANT_PCT).sum() / n) if n else None
        stats[f"best_case_lt1pct/{model}"] = float((v < 1.0).sum() / n) if n else None
        stats[f"best_case_connections/{model}"] = n
    _log_limits(ax, drawn3)
    ax.set_xlabel("Best-Case reduction (% of duration)")
    ax.set_ylabel("CDF of connections")
    ax.set_title(f"Fig 3: Best-Case reduction {title}", fontsize=9)
    ax.grid(alpha=0.3)
    _legend(ax)
    fig.tight_layout()
    fig.savefig(out / "fig3_bestcase.png", dpi=100)
    plt.close(fig)

    def panel_set(fname, fig_title, panels):
        fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4), squeeze=False)
        for ax, (ptitle, sel) in zip(axes[0], panels):
            xs: list[float] = []
            for model in models:
                rows, note = sel(model)
                if note:
                    notes.append(note)
                xs += _scatter_bins(ax, rows, model)
            _bestcase_axes(ax, ptitle, xs)
        fig.suptitle(f"{fig_title} {title}", fontsize=10)
        fig.tight_layout()
        fig.savefig(out / fname, dpi=100)
        plt.close(fig)

    def mean_reduction(rows):
        v = -rows["delta_rtts"].astype(float)
        return float(v.mean()) if v.notna().any() else None

    def put_mean(key: str, rows) -> None:
        """A mean reduction and, beside it, the number of connections it rests on (qa
        finding: a mean over 2 connections must not read like one over 2000)."""
        stats[key] = mean_reduction(rows)
        stats[f"{key}/connections"] = int(rows["delta_rtts"].notna().sum())

    # Fig 4: k.
    panel_set("fig4_k.png", "Fig 4: impact of k", [(f"k = {k:g}", (lambda m, k=k: select(wi, m, k=k))) for k in FIG4_K])
    for model in models:
        for k in MEAN_K:
            rows, _ = select(wi, model, k=k)
            put_mean(f"mean_reduction_rtts/k={k:g}/{model}", rows)
    # Fig 5: minRTO, a, D.
    small = lambda rows: rows[rows["data_bytes"] <= SMALL_CONNECTION_BYTES]  # noqa: E731
    large = lambda rows: rows[rows["data_bytes"] > SMALL_CONNECTION_BYTES]  # noqa: E731
    panels = [(f"minRTO = {v:g} ms", (lambda m, v=v: select(wi, m, min_rto_ms=v))) for v in FIG5_MIN_RTO_MS]
    panels.append((f"a = {FIG5_A:g}", lambda m: select(wi, m, a=FIG5_A)))
    panels.append(("D = 2, small (<= 15 KB)", lambda m: (small(select(wi, m, D="2")[0]), "")))
    panels.append(("D = 2, large", lambda m: (large(select(wi, m, D="2")[0]), "")))
    panel_set("fig5_minrto_a_d.png", "Fig 5: impact of minRTO, a and D", panels)
    for model in models:
        for v in MEAN_MIN_RTO_MS:
            put_mean(f"mean_reduction_rtts/min_rto={v:g}/{model}", select(wi, model, min_rto_ms=v)[0])
        for a in MEAN_A:
            put_mean(f"mean_reduction_rtts/a={a:g}/{model}", select(wi, model, a=a)[0])
        for d in MEAN_D:
            rows, _ = select(wi, model, D=d)
            put_mean(f"mean_reduction_rtts/D={d}/small/{model}", small(rows))
            put_mean(f"mean_reduction_rtts/D={d}/large/{model}", large(rows))

    # Fig 6 and 7: Smart-Config.
    smart = wi[_str(wi, "grid_set") == "smart"].assign(model=lambda x: x["model"].astype(str))
    fig, ax = plt.subplots(figsize=(6, 4))
    for model in models:
        g = smart[smart["model"] == model]
        v = g["delta_pct"].astype(float)
        _cdf(ax, v, model)
        n = int(v.notna().sum())
        stats[f"smart_reduced_gt10pct/{model}"] = float((v < -SIGNIFICANT_PCT).sum() / n) if n else None
        stats[f"smart_increased_gt10pct/{model}"] = float((v > SIGNIFICANT_PCT).sum() / n) if n else None
        stats[f"smart_connections/{model}"] = n
    ax.axvline(0, color="k", lw=0.6)
    ax.set_xlabel("change in connection duration (%) with Smart-Config")
    ax.set_ylabel("CDF of connections")
    ax.set_title(f"Fig 6: Smart-Config {title}", fontsize=9)
    ax.grid(alpha=0.3)
    _legend(ax)
    fig.tight_layout()
    fig.savefig(out / "fig6_smart.png", dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    xs7: list[float] = []
    for model in models:
        xs7 += _scatter_bins(ax, smart[smart["model"] == model], model)
        g = smart[smart["model"] == model]
        x, y = -g["best_case_rtts"].astype(float), -g["delta_rtts"].astype(float)
        ok = x.notna() & y.notna() & (x > 0)
        stats[f"smart_over_bestcase/{model}"] = float(y[ok].mean() / x[ok].mean()) if ok.any() and x[ok].mean() > 0 else None
        stats[f"smart_over_bestcase/{model}/connections"] = int(ok.sum())
    _bestcase_axes(ax, f"Fig 7: Smart-Config vs Best-Case {title}", xs7)
    fig.tight_layout()
    fig.savefig(out / "fig7_smart_vs_bestcase.png", dpi=100)
    plt.close(fig)
    stats["notes"] = sorted(set(notes))
    return stats


def _selections():
    """Every ``select`` the report makes, as keyword arguments (figures, means, Table V)."""
    return ([{"k": k} for k in (*FIG4_K, *MEAN_K)] + [{"min_rto_ms": v} for v in (*FIG5_MIN_RTO_MS, *MEAN_MIN_RTO_MS)]
            + [{"a": a} for a in (FIG5_A, *MEAN_A)] + [{"D": d} for d in MEAN_D])


def report_rows(path: str | os.PathLike):
    """The rows of a written ``whatif.parquet`` the report draws from, read back row group by
    row group (one held at a time): per model, the points :func:`select` picks for every
    value the report shows (Table V's Ds among them), its own and D points
    (:func:`_model_params`), the Smart-Config points, one ``rto`` point per minimum RTO the
    grid lists (``select``'s nearest-minRTO rule reads which it lists) and point 0 (every
    connection's own columns). The report drawn from them is the report drawn from the whole
    table (a test compares the two); what is held is (connections x a few dozen points),
    not the grid."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from ..tables import to_pandas

    with open(path, "rb") as fh:
        pf = pq.ParquetFile(fh)
        # One row per (model, point): the grid's labels.
        labels = []
        for i in range(pf.num_row_groups):
            g = to_pandas(pf.read_row_group(i, columns=list(POINT_COLUMNS)))
            labels.append(g.assign(model=_str(g, "model"), grid_set=_str(g, "grid_set"), D=_str(g, "D"))
                          .drop_duplicates(["model", "point"]))
        if not labels:
            return to_pandas(pf.schema_arrow.empty_table())
        lab = pd.concat(labels, ignore_index=True).drop_duplicates(["model", "point"]).reset_index(drop=True)
        keep = lab["is_model"] | lab["grid_set"].isin(["dupthresh", "smart"]) | (lab["point"] == 0)
        keep |= lab.index.isin(lab[lab["grid_set"] == "rto"].drop_duplicates(["model", "min_rto_ms"]).index)
        for model in _model_params(lab):
            for vary in _selections():
                keep |= lab.index.isin(select(lab, model, **vary)[0].index)
        wanted = {m: pa.array(sorted(int(p) for p in g["point"]), pa.uint32())
                  for m, g in lab[keep].groupby("model", sort=True)}
        parts = []
        for i in range(pf.num_row_groups):
            t = pf.read_row_group(i)
            model = pc.cast(t["model"], pa.string())
            mask = pa.array([False] * t.num_rows) if not wanted else None
            for m, pts in wanted.items():
                sel = pc.and_(pc.equal(model, m), pc.is_in(t["point"], value_set=pts))
                mask = sel if mask is None else pc.or_(mask, sel)
            parts.append(t.filter(mask))
    return to_pandas(pa.concat_tables(parts).unify_dictionaries())


def connection_counts(wi):
    """Per model, the connections every number of the report rests on: all of them, how
    their model was chosen (``model_source``: inferred, the best-scoring candidate when the
    inference could not decide, or forced), those with a Best-Case bound (an RTT sample), and
    those in the Smart-Config rows."""
    import pandas as pd

    conns = per_connection(wi).assign(model=lambda x: x["model"].astype(str),
                                       model_source=lambda x: x["model_source"].astype(str))
    smart = wi[_str(wi, "grid_set") == "smart"].assign(model=lambda x: x["model"].astype(str))
    rows = []
    for model in sorted(_model_params(wi)):
        g = conns[conns["model"] == model]
        src = g["model_source"].value_counts()
        sm = smart[smart["model"] == model]
        rows.append({
            "model": model,
            "connections": len(g),
            "inferred": int(src.get("inferred", 0)),
            "best_candidate": int(src.get("best_candidate", 0)),
            "forced": int(src.get("forced", 0)),
            "with_best_case": int(g["best_case_rtts"].notna().sum()),
            "smart_config": int(sm.drop_duplicates(["capture", "conn_id"])["delta_pct"].notna().sum()),
        })
    return pd.DataFrame(rows, columns=["model", "connections", "inferred", "best_candidate", "forced",
                                       "with_best_case", "smart_config"])


def _md_table(df, floatfmt="{:.1f}") -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            cells.append(floatfmt.format(v) if isinstance(v, float) and not math.isnan(v) else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(v) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def write_report(out: str | os.PathLike, retx, wi, *, title: str = "", preamble: str = "") -> dict[str, Any]:
    """Writes ``report.md``, ``table_iv.csv``, ``table_v.csv`` and the figures into ``out``;
    returns the stated numbers (also ``report_stats.json``)."""
    import json

    out = Path(os.fsdecode(os.fspath(out)))
    out.mkdir(parents=True, exist_ok=True)
    t4 = table_iv(retx, wi)
    t5 = table_v(retx, wi)
    counts = connection_counts(wi)
    counts.to_csv(out / "connections_per_model.csv", index=False)
    t4.to_csv(out / "table_iv.csv", index=False)
    t5.to_csv(out / "table_v.csv", index=False)
    stats = figures(retx, wi, out, title)
    (out / "report_stats.json").write_text(json.dumps(stats, indent=2, default=str) + "\n", encoding="utf-8")
    lines = [f"# What-if report {title}".rstrip(), ""]
    if preamble:
        lines += [preamble, ""]
    lines += [
        "Every number below is computed from `whatif` and `retransmissions` by",
        "`tcplab.whatif.report` (003 = Rewaskar, Kaur & Smith). A reduction is minus the",
        "table's `delta_*` (positive = the connection would have been shorter).",
        "",
        "## Connections per model",
        "",
        "What each model's numbers rest on: its connections, how their model was chosen",
        "(`inferred`; `best_candidate`: the inference could not decide and the best-scoring",
        "candidate's replay is used; `forced`: `--model NAME`), those with a Best-Case bound",
        "(an RTT sample) and those in the Smart-Config rows. Each mean below is followed by",
        "the number of connections it averages (`.../connections`).",
        "",
        _md_table(counts),
        "",
        "## Table IV: retransmissions by cause and verdict",
        "",
        _md_table(t4),
        "",
        "## Table V: impact of the dupACK threshold (net changes)",
        "",
        _md_table(t5),
        "",
        "## Figures",
        "",
        "![Fig 2](fig2_detection.png)",
        "![Fig 3](fig3_bestcase.png)",
        "![Fig 4](fig4_k.png)",
        "![Fig 5](fig5_minrto_a_d.png)",
        "![Fig 6](fig6_smart.png)",
        "![Fig 7](fig7_smart_vs_bestcase.png)",
        "",
        "## Numbers",
        "",
        "| quantity | value |",
        "|---|---|",
    ]
    lines += [f"| {k} | {_fmt(v)} |" for k, v in stats.items() if k not in ("notes", "models")]
    if stats["notes"]:
        lines += ["", "Substitutions: " + "; ".join(stats["notes"]) + "."]
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return stats
