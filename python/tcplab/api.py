"""The Python API: ``tcplab.run`` and its result.

>>> res = tcplab.run("scenarios/dumbbell.toml", seed=3, overrides=["simulation.duration=5s"])
>>> res.summary["flows"][0]["goodput_bps"]
>>> res.events.query("kind == 'segment_retransmitted'")

A run is a pure function of (scenario, seed): the same inputs give the same summary (apart
from ``wall_s``) and identical tables.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, Union

from . import _core
from . import scenarios as shipped
from .errors import ScenarioError, TcplabError, _translate
from .outdir import show
from .tables import TableResult, to_arrow

if TYPE_CHECKING:  # pandas is imported only when a DataFrame is asked for (fast CLI start)
    import pandas as pd

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any], "Scenario"]

#: Table names written by ``RunResult.write`` (as ``<name>.parquet``); a run with a RED
#: queue also has ``queues`` (see docs/outputs.md).
TABLES = ("flows", "events", "timeseries")


@dataclass(frozen=True)
class Scenario:
    """A validated scenario, ready to run. Build it with :func:`load_scenario`."""

    _spec: Any = field(repr=False)
    name: str
    default_seed: int
    link_names: tuple[str, ...]


def _override_list(overrides: Iterable[str] | str) -> list[str]:
    """``overrides`` as a list: a single string is one override (not one per character)."""
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, (bytes, Mapping)) or not isinstance(overrides, Iterable):
        raise TypeError(
            f'overrides must be a string or a list of strings like "tcp.sack=false", '
            f"got {type(overrides).__name__}"
        )
    return [str(o) for o in overrides]


def load_scenario(scenario: ScenarioLike, overrides: Iterable[str] | str = ()) -> Scenario:
    """Load and validate a scenario from a TOML file path, TOML text or a dict.

    ``overrides`` are ``"path.to.key=value"`` strings, as ``tcplab run --set``: a list of them,
    or a single string for one override (``"tcp.sack=false"``). Any other type (a dict, bytes)
    raises ``TypeError``. Raises :class:`ScenarioError` with one line naming the field on any
    problem with the scenario or an override.
    """
    ov = _override_list(overrides)
    if isinstance(scenario, Scenario):
        if ov:
            raise ScenarioError("overrides cannot be applied to an already loaded Scenario")
        return scenario
    try:
        if isinstance(scenario, Mapping):
            name = str(scenario.get("name", "scenario"))
            spec = _core.load_scenario_json(json.dumps(scenario), name, ov)
        else:
            path = _resolve(Path(os.fsdecode(os.fspath(scenario))))
            if path.is_dir():
                raise ScenarioError(f"{show(path)}: is a directory, not a scenario file")
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as e:
                raise ScenarioError(f"{show(path)}: cannot read scenario file ({e.strerror or e})") from None
            except UnicodeDecodeError as e:
                raise ScenarioError(f"{show(path)}: cannot read scenario file ({e})") from None
            # The scenario's default name: the file stem as shown in messages (escaped when
            # it is not UTF-8).
            spec = _core.load_scenario(text, show(path.stem), ov)
    except _core.ScenarioError as e:
        raise _translate(e) from None
    return Scenario(spec, spec.name, spec.default_seed, tuple(spec.link_names))


def _resolve(path: Path) -> Path:
    """A scenario file, or the name of a shipped scenario (``dumbbell``, ``gprs.toml``)."""
    if path.exists():
        return path
    if path.parent == Path("."):
        try:
            return shipped.path(path.name)
        except KeyError:
            pass
    raise ScenarioError(
        f"{show(path)}: no such scenario file (shipped scenarios: {', '.join(shipped.names())})"
    )


class RunResult(TableResult):
    """Results of one run: ``summary`` (dict) and tables as pandas DataFrames or Arrow
    (``arrow(name)``); ``write(dir)`` writes ``summary.json`` and one Parquet file per table."""

    @property
    def flows(self) -> pd.DataFrame:
        return self._frame("flows")

    @property
    def events(self) -> pd.DataFrame:
        return self._frame("events")

    @property
    def timeseries(self) -> pd.DataFrame:
        return self._frame("timeseries")

    @property
    def queues(self) -> pd.DataFrame:
        """Occupancy of the RED queues over time (only runs with a RED queue have it)."""
        return self._frame("queues")

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<RunResult scenario={s['scenario']!r} seed={s['seed']} flows={len(s['flows'])} "
            f"sim_time_s={s['sim_time_s']:.3f} events={s['events']}>"
        )


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Iterable[str] | str = (),
    *,
    out: str | os.PathLike | None = None,
    pcap: Sequence[str] = (),
    trace: bool = True,
) -> RunResult:
    """Run one simulation.

    - ``scenario``: path to a TOML file, TOML as a dict, or a :class:`Scenario`.
    - ``seed``: overrides the scenario's ``simulation.seed``.
    - ``overrides``: ``"path.to.key=value"`` strings (as ``--set``), a list of them, or one
      string for a single override: ``overrides="tcp.sack=false"`` is
      ``overrides=["tcp.sack=false"]``. Another type (a dict, bytes) raises ``TypeError``.
    - ``out``: if given, outputs are written there (``summary.json``, Parquet tables, and
      ``<link>.pcap`` for each link named in ``pcap``).
    - ``trace``: record the ``events`` and ``timeseries`` tables (off for fast sweeps).

    Raises :class:`ScenarioError` for any invalid input.
    """
    sc = load_scenario(scenario, overrides)
    if seed is None:
        seed = sc.default_seed
    if not isinstance(seed, int) or isinstance(seed, bool) or not (0 <= seed < 2**64):
        raise ScenarioError(f"seed: must be an integer from 0 to 2^64-1, got {seed!r}")
    pcap_paths: list[tuple[str, str]] = []
    if pcap:
        if out is None:
            raise ScenarioError("pcap: writing pcap files needs an output directory (out=...)")
        Path(out).mkdir(parents=True, exist_ok=True)
        pcap_paths = [(name, str(Path(out) / f"{name}.pcap")) for name in pcap]
    t0 = time.perf_counter()
    try:
        raw = _core.run(sc._spec, seed, trace, pcap_paths)
    except _core.ScenarioError as e:
        raise _translate(e) from None
    wall_s = time.perf_counter() - t0
    summary = json.loads(raw.summary_json)
    summary = {"tcplab_version": _core.__version__, **summary, "wall_s": wall_s}
    tables = {name: to_arrow(raw.table(name)) for name in raw.table_names}
    result = RunResult(summary, tables)
    if out is not None:
        result.write(out)
    return result


__all__ = ["Scenario", "RunResult", "load_scenario", "run", "ScenarioError", "TcplabError"]
