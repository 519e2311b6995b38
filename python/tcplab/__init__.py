"""tcplab: a laboratory for how TCP starts up and recovers from loss.

One sans-IO TCP engine (Rust) drives a packet-level simulator; results come back as Arrow
tables / pandas DataFrames and Parquet files.

Entry points: :func:`run`, :func:`load_scenario`, :func:`check`, :class:`RunResult`, :class:`ScenarioError`.
"""

from . import _core
from .api import RunResult, Scenario, check, load_scenario, run
from .errors import ScenarioError, TcplabError

__version__: str = _core.__version__

__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "TcplabError",
    "check",
    "load_scenario",
    "run",
    "__version__",
]
