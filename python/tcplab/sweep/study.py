"""Study files: a base scenario, seeds and swept parameters, expanded into runs.

A study is a TOML file (syntax in ``docs/sweeps.md``)::

    name = "min_rto_3g"                 # optional; default: the file's stem
    scenario = "web-3g.toml"            # a path (relative to the study file) or a shipped name
    seeds = "1..10"                     # or [1, 2, 5]; default: the scenario's simulation.seed

    [set]                               # fixed overrides for every run (not swept)
    "simulation.duration" = "60s"

    [parameters]                        # swept: the runs are the Cartesian product
    "tcp.min_rto" = ["200ms", "1s"]     # a list of values
    "tcp.dupthresh" = "2..4"            # a range, OMNeT++'s ${2..4}: 2, 3, 4
    "links.radio.loss.p" = "0.01..0.03 step 0.01"
    [parameters.zip.link]               # a zipped group: these keys vary together
    "links.radio.bandwidth" = ["384kbps", "2Mbps"]
    "links.radio.delay" = ["150ms", "50ms"]

The design follows OMNeT++'s parameter studies (OMNeT++ Simulation Manual §11.4
"Parameter Studies"): ``${1..10}`` and ``${1..10 step 2}`` ranges with inclusive ends,
every iteration variable multiplied with every other, and "parallel iteration"
(``${..., !name}``) for values that change together, which is a ``[parameters.zip.NAME]``
table here. Seeds are OMNeT++'s repetitions: every point runs once per seed.

Ambiguities resolved here:

- The order of runs is the order of the file: the first parameter changes slowest, seeds
  fastest. Only the table and plot order depend on it; the run keys do not.
- A range's values are computed in decimal arithmetic from the written numbers
  (``0.01..0.03 step 0.01`` gives exactly 0.01, 0.02, 0.03, not 0.030000000000000002); the
  end is included when a whole number of steps reaches it, as in OMNeT++.
- A range may carry one unit, written on every number that has one (``"100ms..500ms step
  100ms"``); the values are then strings like ``"200ms"`` that the scenario loader reads.
- A parameter given one value (not a list) is an error: fixed values belong under ``[set]``,
  so that every column of the results varies.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import scenarios as shipped
from ..errors import ScenarioError

#: The table of zipped groups inside ``[parameters]`` (OMNeT++'s parallel iteration, ``!name``).
ZIP_TABLE = "zip"

#: Top-level keys a study file may have.
STUDY_KEYS = ("name", "scenario", "seeds", "set", "parameters", "metrics")

#: Upper bound on the values one range may produce and on the runs of one study: a typo
#: such as ``"1..1e9"`` is an error message, not an exhausted memory.
MAX_RUNS = 1_000_000

#: OMNeT++'s range syntax, ``FROM..TO`` or ``FROM..TO step STEP`` (numbers with an optional
#: unit suffix, e.g. ``100ms``).
_RANGE = re.compile(r"^\s*(?P<a>[^.\s][^\s]*?)\s*\.\.\s*(?P<b>[^\s]+)\s*(?:step\s+(?P<s>[^\s]+)\s*)?$")
_NUMBER_UNIT = re.compile(r"^(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(?P<unit>[A-Za-z/%]*)$")


class StudyError(ScenarioError):
    """A study file is invalid, or one of its points is (one line naming the key and value)."""


# --------------------------------------------------------------------------- values


def toml_literal(value: Any) -> str:
    """``value`` written as a TOML value, the form ``--set path=VALUE`` reads: strings quoted
    (so ``"true"`` stays a string), inline tables for dicts."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        # A TOML basic string accepts JSON's escapes (\" \\ \n \uXXXX).
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_literal(v)}" for k, v in value.items()) + " }"
    raise StudyError(f"cannot write {value!r} ({type(value).__name__}) as a scenario value")


def label(value: Any) -> Any:
    """``value`` as it appears in a result column: scalars as they are, lists and tables as
    their TOML text."""
    if isinstance(value, (list, tuple, Mapping)):
        return toml_literal(value)
    return value


def _decimal(text: str, where: str) -> tuple[Decimal, str]:
    m = _NUMBER_UNIT.match(text)
    if not m:
        raise StudyError(f"{where}: {text!r} is not a number (with an optional unit, like 100ms)")
    try:
        return Decimal(m["num"]), m["unit"]
    except InvalidOperation:  # pragma: no cover - the regex admits only valid decimals
        raise StudyError(f"{where}: {text!r} is not a number") from None


def _plain(d: Decimal) -> int | float:
    """A decimal as an int when whole, else a float (for unit-less values)."""
    if d == d.to_integral_value():
        return int(d)
    return float(d)


def _unit_text(d: Decimal, unit: str) -> str:
    """A decimal with its unit, without exponent or trailing zeros: ``Decimal('0.50')``,
    ``"s"`` → ``"0.5s"``."""
    t = format(d.normalize(), "f")
    return f"{t}{unit}"


def parse_range(text: str, where: str) -> list[Any] | None:
    """Values of an OMNeT++-style range ``"A..B"`` / ``"A..B step S"`` (inclusive), or None
    when ``text`` is not written as a range."""
    m = _RANGE.match(text)
    if not m:
        return None
    a, ua = _decimal(m["a"], where)
    b, ub = _decimal(m["b"], where)
    s, us = (Decimal(1), ua) if m["s"] is None else _decimal(m["s"], where)
    written = {ua, ub} | ({us} if m["s"] is not None else set())
    if len(written) > 1:
        raise StudyError(f"{where}: range {text!r}: write the same unit on every number, or none")
    if s <= 0:
        raise StudyError(f"{where}: range {text!r}: step must be > 0")
    if b < a:
        raise StudyError(f"{where}: range {text!r}: the end is below the start")
    steps = int((b - a) / s)
    if steps + 1 > MAX_RUNS:
        raise StudyError(f"{where}: range {text!r} has {steps + 1} values (at most {MAX_RUNS})")
    unit = ua
    values = [a + i * s for i in range(steps + 1)]
    return [_unit_text(v, unit) for v in values] if unit else [_plain(v) for v in values]


def parse_seeds(raw: Any, where: str = "seeds") -> tuple[int, ...]:
    """``seeds``: a list of integers, one integer, or a range string ``"1..10"``."""
    if isinstance(raw, str):
        vals = parse_range(raw, where)
        if vals is None or any(not isinstance(v, int) for v in vals):
            raise StudyError(f'{where}: {raw!r} is not a seed range; write "1..10" or a list like [1, 2, 3]')
    elif isinstance(raw, list):
        vals = raw
    elif isinstance(raw, int) and not isinstance(raw, bool):
        vals = [raw]
    else:
        raise StudyError(f'{where}: expected a list of integers or a range like "1..10", got {raw!r}')
    if not vals:
        raise StudyError(f"{where}: the list is empty")
    for v in vals:
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 2**64:
            raise StudyError(f"{where}: {v!r} is not a seed (an integer from 0 to 2^64-1)")
    dup = sorted({v for v in vals if vals.count(v) > 1})
    if dup:
        raise StudyError(f"{where}: seed {dup[0]} is listed twice")
    return tuple(vals)


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Group:
    """Swept keys whose values change together: one key (a plain parameter), or a zipped
    group ``[parameters.zip.NAME]`` whose lists have equal lengths."""

    name: str | None
    keys: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class Point:
    """One combination of swept values: ``((key, value), ...)`` in the study's key order."""

    values: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)

    def describe(self) -> str:
        return ", ".join(f"{k} = {toml_literal(v)}" for k, v in self.values) or "(base scenario)"


@dataclass(frozen=True)
class Run:
    """One simulation of the study: a point and a seed, named by its run key."""

    index: int
    point_index: int
    point: Point
    seed: int
    key: str


@dataclass(frozen=True)
class Study:
    """A parsed study. ``runs()`` lists every run in order; ``points()`` the combinations."""

    name: str
    source: str
    scenario_name: str
    scenario_text: str
    seeds: tuple[int, ...]
    fixed: tuple[tuple[str, Any], ...]
    groups: tuple[Group, ...]
    metrics: tuple[str, ...] | None = None
    version: str = field(default="")
    #: Where the base scenario was read from (a path), for the runs' provenance.
    scenario_source: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        """The swept keys, in file order: one column each in the results."""
        return tuple(k for g in self.groups for k in g.keys)

    def points(self) -> list[Point]:
        out = []
        for combo in itertools.product(*(g.rows for g in self.groups)):
            vals: list[tuple[str, Any]] = []
            for g, row in zip(self.groups, combo):
                vals.extend(zip(g.keys, row))
            out.append(Point(tuple(vals)))
        return out

    def overrides(self, point: Point) -> list[str]:
        """The ``--set`` strings of a point: the fixed ones, then the swept ones."""
        return [f"{k}={toml_literal(v)}" for k, v in (*self.fixed, *point.values)]

    def runs(self, resolved: Sequence[str]) -> list[Run]:
        """Every run, in order. ``resolved[i]``: the resolved scenario of point i (the TOML
        the loader gives after profiles and overrides, from :func:`tcplab.sweep.runner.validate`),
        which the run keys hash."""
        points = self.points()
        if len(resolved) != len(points):
            raise ValueError(f"{len(resolved)} resolved scenarios for {len(points)} points")
        out = []
        for pi, (p, doc) in enumerate(zip(points, resolved)):
            for seed in self.seeds:
                out.append(Run(len(out), pi, p, seed, run_key(doc, seed, self.version)))
        return out

    def describe(self) -> dict[str, Any]:
        """What the study is, as JSON (``DIR/study.json``)."""
        return {
            "name": self.name,
            "source": self.source,
            "scenario": self.scenario_name,
            "scenario_sha256": hashlib.sha256(self.scenario_text.encode()).hexdigest(),
            "seeds": list(self.seeds),
            "set": {k: label(v) for k, v in self.fixed},
            "parameters": [
                {"zip": g.name, "keys": list(g.keys), "values": [[label(v) for v in r] for r in g.rows]}
                for g in self.groups
            ],
            "metrics": list(self.metrics) if self.metrics else None,
            "tcplab_version": self.version,
        }


def run_key(resolved_scenario: str, seed: int, version: str) -> str:
    """The run key: a hash of everything that decides the run's result — the resolved point
    (the scenario as the loader resolved it, profiles and every override applied, so neither
    the order of keys in the study nor the spelling of a value, ``"1s"`` or ``"1000ms"``,
    nor a comment in the base file matters), the seed, and the tcplab version. Twenty hex
    digits (80 bits)."""
    canon = json.dumps(
        {"scenario": hashlib.sha256(resolved_scenario.encode()).hexdigest(), "seed": seed, "tcplab": version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canon.encode()).hexdigest()[:20]


# --------------------------------------------------------------------------- parsing


def _flatten(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """``{"tcp": {"min_rto": [...]}}`` (unquoted dotted keys) → ``[("tcp.min_rto", [...])]``.

    A quoted key with dots (``"links.bottleneck.loss" = { ... }``) is a whole path: its value
    is the key's value, so a table there replaces the scenario's table as ``--set`` does,
    rather than being merged key by key. A table with ``from``/``to`` is a range."""
    out = []
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and "." not in k and not ("from" in v and "to" in v):
            if not v:
                raise StudyError(f"[parameters] {key}: an empty table")
            out.extend(_flatten(v, key + "."))
        else:
            out.append((key, v))
    return out


def _values(key: str, raw: Any, where: str) -> list[Any]:
    """The values of one swept key: a list, a range string, or a range table."""
    w = f"{where} {key}"
    if isinstance(raw, list):
        if not raw:
            raise StudyError(f"{w}: the list of values is empty")
        return list(raw)
    if isinstance(raw, str):
        vals = parse_range(raw, w)
        if vals is not None:
            return vals
    if isinstance(raw, Mapping):
        extra = set(raw) - {"from", "to", "step", "unit"}
        if extra:
            raise StudyError(f"{w}: unknown range key {sorted(extra)[0]!r} (a range has from, to, step, unit)")
        unit = raw.get("unit", "")
        parts = []
        for name in ("from", "to", "step"):
            if name in raw:
                v = raw[name]
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise StudyError(f"{w}: range {name} must be a number, got {v!r}")
                parts.append(f"{v}{unit}")
        text = f"{parts[0]}..{parts[1]}" + (f" step {parts[2]}" if len(parts) == 3 else "")
        vals = parse_range(text, w)
        if vals is None:  # pragma: no cover - built in range syntax above
            raise StudyError(f"{w}: not a range")
        return vals
    raise StudyError(
        f"{w}: expected a list of values or a range like \"1..10\", got {toml_literal(raw) if raw is not None else raw}"
        " (a fixed value goes under [set])"
    )


def _check_key(key: str, where: str) -> None:
    parts = key.split(".")
    if not key or any(not p.strip() for p in parts):
        raise StudyError(f'{where} "{key}": not a dotted scenario key (like tcp.min_rto)')


def parse_study(text: str, *, source: str = "<study>", base_dir: Path | None = None, version: str | None = None) -> Study:
    """Parse a study's TOML text. ``base_dir`` resolves a relative scenario path (default:
    the current directory). Raises :class:`StudyError` with one line naming the problem."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{source}: {e}") from None
    for k in doc:
        if k not in STUDY_KEYS:
            raise StudyError(f"{source}: unknown key {k!r} (a study has {', '.join(STUDY_KEYS)})")
    if "scenario" not in doc or not isinstance(doc["scenario"], str):
        raise StudyError(f'{source}: scenario: missing; name the base scenario, like scenario = "dumbbell"')
    scen_path = _resolve_scenario(doc["scenario"], base_dir or Path("."), source)
    try:
        scen_text = scen_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"{source}: scenario: cannot read {scen_path} ({e})") from None
    name = doc.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise StudyError(f"{source}: name: expected a non-empty string")

    if "seeds" in doc:
        seeds = parse_seeds(doc["seeds"], f"{source}: seeds")
    else:
        seeds = (_scenario_seed(scen_text),)

    fixed_raw = doc.get("set", {})
    if not isinstance(fixed_raw, Mapping):
        raise StudyError(f"{source}: set: expected a table of dotted keys and values")
    fixed = []
    for k, v in _flatten(fixed_raw):
        _check_key(k, f"{source}: [set]")
        fixed.append((k, v))

    params = doc.get("parameters", {})
    if not isinstance(params, Mapping):
        raise StudyError(f"{source}: parameters: expected a table of dotted keys and lists of values")
    groups: list[Group] = []
    zips = params.get(ZIP_TABLE, {})
    if not isinstance(zips, Mapping) or any(not isinstance(g, Mapping) for g in zips.values()):
        raise StudyError(f"{source}: [parameters.zip]: expected tables [parameters.zip.NAME] of keys with lists")
    where = f"{source}: [parameters]"
    for key, raw in _flatten({k: v for k, v in params.items() if k != ZIP_TABLE}):
        _check_key(key, where)
        groups.append(Group(None, (key,), tuple((v,) for v in _values(key, raw, where))))
    for gname, table in zips.items():
        gw = f"{source}: [parameters.zip.{gname}]"
        cols = []
        for key, raw in _flatten(table):
            _check_key(key, gw)
            cols.append((key, _values(key, raw, gw)))
        if not cols:
            raise StudyError(f"{gw}: no keys")
        lens = {len(v) for _, v in cols}
        if len(lens) > 1:
            desc = ", ".join(f"{k} has {len(v)}" for k, v in cols)
            raise StudyError(f"{gw}: zipped keys need the same number of values ({desc})")
        groups.append(Group(gname, tuple(k for k, _ in cols), tuple(zip(*(v for _, v in cols)))))

    keys = [k for g in groups for k in g.keys]
    for k in keys:
        if keys.count(k) > 1:
            raise StudyError(f"{source}: [parameters] {k}: swept twice")
        if k in dict(fixed):
            raise StudyError(f"{source}: {k}: both under [set] and swept under [parameters]")
        if k == "seed":
            raise StudyError(f"{source}: [parameters] seed: sweep seeds with seeds = ... instead")

    metrics = doc.get("metrics")
    if metrics is not None:
        if not isinstance(metrics, list) or not metrics or not all(isinstance(m, str) for m in metrics):
            raise StudyError(f'{source}: metrics: expected a list of column names, like ["fct_s"]')
        metrics = tuple(metrics)

    if version is None:
        from .. import _core

        version = _core.__version__
    study = Study(
        name=name,
        source=source,
        scenario_name=scen_path.stem,
        scenario_text=scen_text,
        seeds=seeds,
        fixed=tuple(fixed),
        groups=tuple(groups),
        metrics=metrics,
        version=version,
        scenario_source=str(scen_path),
    )
    n = math.prod(len(g.rows) for g in groups) * len(seeds)
    if n > MAX_RUNS:
        raise StudyError(f"{source}: the study has {n} runs (at most {MAX_RUNS})")
    return study


def _scenario_seed(text: str) -> int:
    try:
        seed = tomllib.loads(text).get("simulation", {}).get("seed", 1)
    except tomllib.TOMLDecodeError:
        return 1  # the scenario's own error is reported when its points are validated
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 1


def _resolve_scenario(name: str, base: Path, source: str) -> Path:
    """A scenario path relative to the study file, else a shipped scenario's name."""
    p = Path(name)
    cand = p if p.is_absolute() else base / p
    if cand.is_file():
        return cand
    if p.parent == Path("."):
        try:
            return shipped.path(p.name)
        except KeyError:
            pass
    raise StudyError(
        f"{source}: scenario: {name!r} is neither a file next to the study nor a shipped scenario "
        f"({', '.join(shipped.names())})"
    )


def load_study(path: str | Path) -> Study:
    """Read and parse a study file, or a shipped study's name (``min_rto_3g``)."""
    p = Path(path)
    if not p.exists() and p.parent == Path("."):
        try:
            p = shipped_study(p.name)
        except KeyError:
            pass
    try:
        text = p.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise StudyError(f"{p}: is a directory, not a study file") from None
    except FileNotFoundError:
        raise StudyError(f"{p}: no such study file (shipped studies: {', '.join(shipped_studies())})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"{p}: cannot read study file ({e})") from None
    return parse_study(text, source=str(p), base_dir=p.parent)


#: Where shipped studies live (``scenarios/studies/`` in the repository).
STUDIES_DIR = shipped.DIR / "studies"


def shipped_studies() -> list[str]:
    return sorted(
        p.stem for p in STUDIES_DIR.glob("*.toml") if "scenario" in tomllib.loads(p.read_text(encoding="utf-8"))
    )


def shipped_study(name: str) -> Path:
    stem = name[:-5] if name.endswith(".toml") else name
    p = STUDIES_DIR / f"{stem}.toml"
    if not p.is_file() or stem not in shipped_studies():
        raise KeyError(name)
    return p
