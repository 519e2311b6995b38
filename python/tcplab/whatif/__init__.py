"""What-if replay of captured connections (Rewaskar, Kaur & Smith (003) §IV-C/D, §V).

>>> import tcplab
>>> df = tcplab.whatif(["day1/", "day2.pcapng"], "out", workers=4)   # on the sweep engine
>>> df.groupby("grid_set")["delta_duration_s"].mean()
>>> tcplab.whatif.load("out").connections                             # the other tables

``tcplab.whatif(captures, out)`` (:func:`run`) computes every capture as one task of the
sweep engine, files it in ``out``'s ledger and resumes (:mod:`.engine`); it returns the
``whatif`` table. In memory, without an output directory:

>>> res = whatif(["trace.pcap"], model="linux")
>>> res.whatif.query("grid_set == 'smart'")[["conn_id", "delta_duration_s", "delta_pct"]]
>>> res.write("out")          # whatif/retransmissions/connections .parquet+.csv, summary.json

Every connection is replayed under each point of a grid of D, a, b, m, k and minRTO (003's
725-point study by default, a grid file, or ``only=["D", "k"]``), with the paper's
assumption that RTTs and losses do not change; the ``whatif`` table has one row per
connection and point with the events that changed (losses moved between FR/R and RTO,
spurious retransmissions avoided and caused, the change in timer detection time) and the
change in duration (``delta_duration_s``, ``delta_rtts``, ``delta_pct``; negative is
shorter) and 003 §V-A-3's Best-Case bound. Columns: docs/outputs.md ("whatif").
:func:`tcplab.whatif.report.write_report` draws Table IV, Table V and Figs 2-7.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from .. import _core
from ..analyze import AnalysisResult, CaptureError, ModelError, capture_paths
from ..tables import to_arrow
from .grid import GridError, parse_only, read_grid

if TYPE_CHECKING:
    import pandas as pd

#: Tables of a what-if result.
TABLES = ("whatif", "retransmissions", "connections")


class WhatIfResult(AnalysisResult):
    """``summary`` and the ``whatif`` table, beside the analysis it replayed (the
    ``retransmissions`` and ``connections`` tables of :class:`AnalysisResult`).

    ``whatif_file``: the ``whatif`` table is that Parquet file (``whatif.csv`` beside it),
    read only when asked for (a what-if directory's table can be much larger than memory
    should hold: the command writes it batch by batch and never holds it)."""

    def __init__(self, summary: dict, tables, whatif_file: str | os.PathLike | None = None):
        super().__init__(summary, tables)
        self._whatif_file = Path(whatif_file) if whatif_file is not None else None

    def arrow(self, name: str):
        if name == "whatif" and "whatif" not in self._arrow and self._whatif_file is not None:
            import pyarrow.parquet as pq

            with open(self._whatif_file, "rb") as fh:
                self._arrow["whatif"] = pq.read_table(fh)
        return super().arrow(name)

    def write(self, out_dir: str | os.PathLike) -> Path:
        out = super().write(out_dir)
        if "whatif" not in self._arrow and self._whatif_file is not None:
            import shutil

            for src in (self._whatif_file, self._whatif_file.with_suffix(".csv")):
                dst = out / src.name
                if not (dst.exists() and os.path.samefile(src, dst)):
                    shutil.copyfile(src, dst)
        return out

    @property
    def whatif(self) -> pd.DataFrame:
        return self._frame("whatif")

    def __repr__(self) -> str:
        s = self.summary
        return f"<WhatIfResult captures={len(s.get('captures', []))} grid_points={s.get('grid_points')} rows={s.get('rows')}>"


def whatif(
    captures: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    model: str = "auto",
    vantage: str = "auto",
    tlp: bool | None = None,
    grid: str | os.PathLike | Sequence[tuple] | None = None,
    only: str | Sequence[str] | None = None,
    out: str | os.PathLike | None = None,
) -> WhatIfResult:
    """Replay every connection of the captures under a grid of loss-detection parameters.

    - ``model``: ``auto`` (each connection's sender inferred, ``tcplab_analyze::infer``; the
      best-scoring candidate when the evidence does not decide, ``model_source``), ``rfc`` or
      a profile of ``tcplab profiles``: the model whose rules record each connection and whose
      own parameters are the baseline.
    - ``grid``: a grid file (:mod:`tcplab.whatif.grid`) or a list of core point tuples;
      ``only``: parameter names (``"D,k"`` or ``["D", "k"]``) crossed over 003's values;
      neither: 003's default grid.

    Raises :class:`~tcplab.analyze.CaptureError` when no capture can be read,
    :class:`~tcplab.analyze.ModelError` for an unknown model, :class:`GridError` for a bad
    grid.
    """
    import json

    paths = capture_paths(captures, vantage)
    points = None
    if grid is not None and only is not None:
        raise GridError("give either a grid file or --only, not both")
    if isinstance(grid, (str, bytes, os.PathLike)):
        points = read_grid(grid)
    elif grid is not None:
        points = list(grid)
    names = parse_only(only if isinstance(only, str) else ",".join(only)) if only is not None else None
    try:
        raw = _core.whatif(paths, vantage, model, tlp, points, names)
    except _core.CaptureError as e:
        message = e.args[0] if e.args else str(e)
        errors = e.args[1] if len(e.args) > 1 else None
        raise CaptureError(message, errors) from None
    except _core.ModelError as e:
        raise ModelError(str(e)) from None
    except ValueError as e:  # a grid value the core refuses (one line)
        raise GridError(str(e)) from None
    tables = {name: to_arrow(raw.table(name)) for name in TABLES}
    summary = {
        "tcplab_version": _core.__version__,
        "command": "whatif",
        "model": model,
        "vantage": vantage,
        "grid_points": raw.grid_points,
        # `path` as given, losslessly (docs/outputs.md, the rule of analyze's summary: bytes
        # that are not UTF-8 stay surrogate escapes, "\udcXX" in summary.json); `shown` as
        # in messages and the tables' `capture` column (`\xNN`).
        "captures": [{"path": given, "shown": p, "error": e} for given, (p, e) in zip(paths, raw.captures)],
        "connections": tables["connections"].num_rows,
        "rows": tables["whatif"].num_rows,
    }
    json.dumps(summary)
    result = WhatIfResult(summary, tables)
    if out is not None:
        result.write(out)
    return result


def run(
    captures: str | os.PathLike | Iterable[str | os.PathLike],
    out: str | os.PathLike,
    *,
    model: str = "auto",
    vantage: str = "auto",
    tlp: bool | None = None,
    grid: str | os.PathLike | Sequence[tuple] | None = None,
    only: str | Sequence[str] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    overwrite: bool = False,
    report: bool = True,
) -> pd.DataFrame:
    """The what-if of every capture (files, or directories of captures) on the sweep engine
    (:mod:`.engine`): one task per capture on ``workers`` local processes (default: one per
    core; a single capture runs in this process) or on the Dask cluster at ``scheduler``,
    each capture filed in ``out``'s ledger as it finishes, so that running the same call
    again computes only what is missing. Writes the combined tables, ``summary.json`` and
    (``report``) the report into ``out`` and returns the ``whatif`` table (one row per
    connection and grid point; ``df.attrs["summary"]`` is the summary). Other arguments as
    :func:`whatif`. ``tcplab.whatif(...)`` is this function."""
    from .engine import run_whatif

    res = run_whatif(captures, out, model=model, vantage=vantage, tlp=tlp, grid=grid, only=only, workers=workers,
                     scheduler=scheduler, progress=progress, overwrite=overwrite, report=report).result
    df = res.whatif
    df.attrs["summary"] = res.summary
    return df


def load(out: str | os.PathLike) -> WhatIfResult:
    """A finished what-if directory's tables (``.whatif``, ``.retransmissions``,
    ``.connections``) and ``.summary``."""
    import json

    import pyarrow.parquet as pq

    d = Path(os.fsdecode(os.fspath(out)))
    summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    tables = {}
    for name in TABLES:
        with open(d / f"{name}.parquet", "rb") as fh:
            tables[name] = pq.read_table(fh)
    return WhatIfResult(summary, tables)


class _CallableModule(types.ModuleType):
    """Lets ``tcplab.whatif(...)`` call :func:`run` while ``tcplab.whatif.whatif``,
    ``.load`` etc. stay attributes of the module (as ``tcplab.sweep``)."""

    def __call__(self, *args, **kwargs):
        return run(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["WhatIfResult", "GridError", "whatif", "run", "load", "TABLES"]
