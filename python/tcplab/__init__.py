"""tcplab: a laboratory for how TCP starts up and recovers from loss.

One sans-IO TCP engine (Rust) drives a packet-level simulator; results come back as Arrow
tables / pandas DataFrames and Parquet files.

Entry points: :func:`run`, :func:`sweep`, :func:`whatif`, :func:`load_scenario`, :func:`check`, :class:`RunResult`, :class:`ScenarioError`.
"""

from typing import TYPE_CHECKING

from . import _core
from .errors import ScenarioError, TcplabError

if TYPE_CHECKING:
    from . import sweep  # callable: tcplab.sweep(study, out) runs a parameter study
    from . import whatif  # callable: tcplab.whatif(captures, out) on the sweep engine
    from .api import RunResult, Scenario, check, load_scenario, run

__version__: str = _core.__version__

#: Names re-exported from :mod:`tcplab.api`, imported on first use so that ``tcplab --help``
#: and commands that need no tables do not pay for numpy/pyarrow at start-up.
_LAZY = {"RunResult", "Scenario", "check", "load_scenario", "run"}


def __getattr__(name: str):
    if name in _LAZY:
        from . import api

        return getattr(api, name)
    if name in ("sweep", "whatif"):  # callable: tcplab.sweep(study, out), tcplab.whatif(captures, out)
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'tcplab' has no attribute {name!r}")

__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "TcplabError",
    "check",
    "load_scenario",
    "run",
    "sweep",
    "whatif",
    "__version__",
]
