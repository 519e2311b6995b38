"""Type stubs for the compiled module tcplab._core (crates/tcplab-py)."""

from typing import Any

import numpy as np

__version__: str
#: `git rev-parse HEAD` when the module was built, or "unknown".
__git_revision__: str
#: Tracked files differed from HEAD at build time (None: not built from a git checkout).
__git_dirty__: bool | None

class ScenarioError(ValueError):
    """A scenario, override or run request is invalid (one-line message naming the field)."""

class Spec:
    @property
    def name(self) -> str: ...
    @property
    def default_seed(self) -> int: ...
    @property
    def link_names(self) -> list[str]: ...
    @property
    def node_names(self) -> list[str]: ...
    @property
    def num_flows(self) -> int: ...
    @property
    def resolved_toml(self) -> str: ...
    @property
    def flow_names(self) -> list[str | None]: ...

Column = tuple[str, np.ndarray | tuple[np.ndarray, list[str]], np.ndarray | None]

class RunOutput:
    @property
    def summary_json(self) -> str: ...
    def table(self, name: str) -> list[Column]: ...

def load_scenario(text: str, name: str, overrides: list[str]) -> Spec: ...
def validate_overrides(text: str, name: str, overrides: list[str], is_json: bool = ...) -> Spec: ...
def schema_markdown() -> str: ...
def load_scenario_json(json: str, name: str, overrides: list[str]) -> Spec: ...
def run(spec: Spec, seed: int, trace: bool, pcap: list[tuple[str, str]]) -> RunOutput: ...
def bench_cases() -> list[str]: ...
def bench_spec(name: str) -> Spec: ...
def schema() -> str: ...
def profiles() -> list[dict[str, Any]]:
    """Every named OS profile: ``name``, ``description`` and each ``[tcp]`` key it sets, with
    values written as a scenario file accepts them (durations as ``"500ms"``, ratios as
    ``"1/4"``, clocks as ``"fine"``, a duration, or a table)."""
    ...

# Capture analyzer (crates/tcplab-py/src/analyze.rs)

class ModelError(ValueError): ...
class CaptureError(ValueError):
    """Nothing in the given captures could be analysed (one-line message naming the file)."""

class Analysis:
    @property
    def summary_json(self) -> str: ...
    def table(self, name: str) -> list[Column]: ...

def analyze(paths: list[str], vantage: str, model: str = ..., tlp: bool | None = ...) -> Analysis: ...

def fig6_rto_table(rtt_c: list[int], rtt_f: list[int]) -> dict[str, list[int]]:
    """Aron & Druschel Fig. 6: the RTO_O, RTO_B, RTO_Nf and RTO_Nc columns (``rto_o``,
    ``rto_b``, ``rto_nf``, ``rto_nc``) computed by the engine's estimators from the sample
    columns RTT_c (500 ms ticks) and RTT_f (1 ms ticks)."""

def capture_packets(path: str, conn_id: int | None = ...) -> tuple[list[Column], list[Column]]:
    """Every TCP packet of the capture at ``path`` (of connection ``conn_id`` only, when given)
    with the analyzer's connection ids: the ``packets`` and ``sack_blocks`` tables
    (crates/tcplab-py/src/packets.rs; columns in docs/outputs.md "Images of tcplab plot").
    Raises ``ValueError`` (one line) when the capture cannot be opened."""
