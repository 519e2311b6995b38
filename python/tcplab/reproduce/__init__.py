"""``tcplab reproduce NAME``: re-run a source paper's experiments and compare with its numbers.

Each experiment set is a module in this package exposing::

    TITLE: str                       # one line, shown by `tcplab reproduce --list`
    def run(out: Path, quick: bool, runs: int | None, progress) -> Report

and registered in :data:`EXPERIMENTS`. Simulations go through the experiment layer
(:mod:`tcplab.reproduce.experiment`: named points x seeds, measured on the sweep engine's
workers; the pattern is in docs/sweeps.md "Reproductions"). The common output contract (``DIR/report.md`` and
``DIR/results.csv`` with columns ``figure, series, x, metric, ours, paper``) is implemented
once, in :mod:`tcplab.reproduce.common`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: name → module (relative to this package). Modules are imported only when used.
EXPERIMENTS: dict[str, str] = {
    "aron98": ".aron98",
    "frto": ".frto",
    "pta": ".pta",
    "quickstart": ".quickstart",
    "rewaskar": ".rewaskar",
}


def names() -> list[str]:
    return sorted(EXPERIMENTS)


def load(name: str) -> ModuleType:
    """The module implementing experiment set ``name`` (KeyError if unknown or not built)."""
    mod = EXPERIMENTS[name]
    try:
        return importlib.import_module(mod, __name__)
    except ModuleNotFoundError as e:
        if e.name and e.name.endswith(mod.lstrip(".")):
            raise KeyError(name) from None
        raise
