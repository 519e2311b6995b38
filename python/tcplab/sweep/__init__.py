"""Parameter studies: ``tcplab sweep STUDY.toml -o DIR`` and ``tcplab.sweep(...)``.

>>> import tcplab
>>> flows = tcplab.sweep("scenarios/studies/min_rto_3g.toml", "out/min_rto")
>>> flows.groupby(["tcp.min_rto", "seed"])["fct_s"].mean()
>>> tcplab.sweep.load("out/min_rto").summary          # the summary table of a finished sweep

Modules: :mod:`.study` (the study file and its expansion), :mod:`.task` (one run on a
worker), :mod:`.ledger` (run files and the ledger), :mod:`.runner` (validation, Dask
execution, tabulation), :mod:`.results` (tidy table, mean and 95 % CI), :mod:`.plot`.
Syntax and semantics: docs/sweeps.md.

``tcplab.sweep`` is this module and is callable: ``tcplab.sweep(study, out)`` is
:func:`sweep`.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Light on purpose: `import tcplab` (and so the CLI's start) imports this package; pandas,
# pyarrow and dask are imported by the functions that need them.
from .study import Study, StudyError, load_study, parse_study

if TYPE_CHECKING:
    import pandas as pd


def _as_study(study: Any) -> Study:
    if isinstance(study, Study):
        return study
    return load_study(study)


def sweep(
    study: str | os.PathLike | Study,
    out: str | os.PathLike,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> "pd.DataFrame":
    """Run a study (a file, a shipped study's name, or a :class:`Study`) into ``out``,
    running only the runs not already filed there, and return the tidy flows table: one row
    per run and flow, a column per swept key, ``seed``, and the flow columns.

    ``workers``: local worker processes (default: one per core); ``scheduler``: the address
    of an existing Dask scheduler instead. The summary (mean and 95 % CI per point) is in
    ``out/summary.parquet`` and in ``df.attrs["summary"]``. Raises
    :class:`tcplab.ScenarioError` (:class:`StudyError`) for an invalid study or point,
    before anything runs."""
    from .runner import run_study

    res = run_study(_as_study(study), out, workers=workers, scheduler=scheduler, progress=progress)
    df = res.flows
    df.attrs["summary"] = res.summary
    return df


def load(out: str | os.PathLike):
    """A finished sweep directory's tables: ``.flows``, ``.summary`` (DataFrames) and
    ``.study`` (the ``study.json`` dict)."""
    from .plot import load_sweep

    return load_sweep(Path(out))


class _CallableModule(types.ModuleType):
    """Lets ``tcplab.sweep(...)`` call :func:`sweep` while ``tcplab.sweep.load`` etc. stay
    attributes of the module (module ``__class__`` assignment, Python ≥ 3.5)."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["Study", "StudyError", "load", "load_study", "parse_study", "sweep"]
