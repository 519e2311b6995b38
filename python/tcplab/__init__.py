"""tcplab: a laboratory for how TCP starts up and recovers from loss.

One sans-IO TCP engine (Rust) drives a packet-level simulator; results come back as Arrow
tables / pandas DataFrames and Parquet files.

Entry points: :func:`run`, :func:`sweep`, :func:`load_scenario`, :class:`RunResult`, :class:`ScenarioError`.
"""

from . import _core
from .api import RunResult, Scenario, load_scenario, run
from .errors import ScenarioError, TcplabError
from . import sweep  # callable: tcplab.sweep(study, out) runs a parameter study

__version__: str = _core.__version__

__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "TcplabError",
    "load_scenario",
    "run",
    "sweep",
    "__version__",
]
