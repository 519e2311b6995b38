"""What-if grid files (``tcplab whatif --grid FILE``).

A grid file is TOML with one ``[[point]]`` table per configuration; each key changes one
of 003's six parameters and every key left out keeps the sender model's own value::

    [[point]]
    D = 2                 # an integer 1..8, or "adaptive" (003 §V-D: max(1, min(3, F-2)))
    k = 2                 # RTO = m*srtt + k*rttvar (003 §II)
    a = "1/2"             # rttvar gain; b: srtt gain (fractions as "n/d" or numbers)
    m = 1
    min_rto = "100ms"     # a duration with its unit

Without ``--grid`` the default is 003's study (``tcplab_analyze::whatif::grid``: the 720
combinations of §V-B's k, minRTO, a and b, D = 2, 3, 4 and adaptive, and Smart-Config).
"""

from __future__ import annotations

import os
import tomllib
from fractions import Fraction

from ..errors import TcplabError

#: Keys a ``[[point]]`` may have.
KEYS = ("D", "a", "b", "m", "k", "min_rto")
#: Largest fixed D (the recorder keeps this many duplicate-ACK times).
MAX_D = 8
#: Unit suffixes of ``min_rto`` in nanoseconds.
_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


class GridError(TcplabError, ValueError):
    """A grid file that cannot be used; one line naming the file, point and key."""


def _fraction(where: str, v) -> tuple[int, int]:
    try:
        f = Fraction(v) if not isinstance(v, float) else Fraction(v).limit_denominator(1 << 16)
    except (ValueError, ZeroDivisionError, TypeError):
        raise GridError(f"{where}: {v!r} is not a number or fraction like \"1/4\"") from None
    if f <= 0 or f.numerator >= 1 << 32 or f.denominator >= 1 << 32:
        raise GridError(f"{where}: {v!r} must be a positive fraction")
    return (f.numerator, f.denominator)


def _duration_ns(where: str, v) -> int:
    if isinstance(v, str):
        s = v.strip()
        for unit in sorted(_UNITS, key=len, reverse=True):
            if s.endswith(unit):
                try:
                    x = Fraction(s[: -len(unit)].strip())
                except (ValueError, ZeroDivisionError):
                    break
                if x <= 0:
                    break
                return int(x * _UNITS[unit])
    raise GridError(f"{where}: {v!r} is not a duration with its unit, like \"200ms\"")


def _d(where: str, v) -> str:
    if v == "adaptive":
        return "adaptive"
    if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_D:
        return str(v)
    raise GridError(f"{where}: {v!r} is not an integer 1..{MAX_D} or \"adaptive\"")


def point_tuple(where: str, p: dict) -> tuple:
    """One point as the core takes it: (D, a, b, m, k, min_rto_ns), None = the model's."""
    unknown = [k for k in p if k not in KEYS]
    if unknown:
        raise GridError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
    return (
        _d(f"{where}.D", p["D"]) if "D" in p else None,
        _fraction(f"{where}.a", p["a"]) if "a" in p else None,
        _fraction(f"{where}.b", p["b"]) if "b" in p else None,
        _fraction(f"{where}.m", p["m"]) if "m" in p else None,
        _fraction(f"{where}.k", p["k"]) if "k" in p else None,
        _duration_ns(f"{where}.min_rto", p["min_rto"]) if "min_rto" in p else None,
    )


def read_grid(path: str | os.PathLike) -> list[tuple]:
    """The points of a grid file (see the module doc); :class:`GridError` on any problem."""
    from ..outdir import show

    name = show(path)
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except OSError as e:
        raise GridError(f"{name}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise GridError(f"{name}: not TOML: {e}") from None
    points = doc.get("point")
    extra = [k for k in doc if k != "point"]
    if extra:
        raise GridError(f"{name}: unknown top-level key {extra[0]!r} (write [[point]] tables)")
    if not isinstance(points, list) or not points or not all(isinstance(p, dict) for p in points):
        raise GridError(f"{name}: no [[point]] tables")
    return [point_tuple(f"{name}: point[{i}]", p) for i, p in enumerate(points)]


def parse_only(text: str) -> list[str]:
    """``--only D,k``: the parameters named, checked."""
    names = [s.strip() for s in text.split(",") if s.strip()]
    allowed = {"D", "d", "a", "b", "m", "k", "minRTO", "min_rto", "minrto"}
    for n in names:
        if n not in allowed:
            raise GridError(f"--only: {n!r} is not one of D, a, b, m, k, minRTO")
    if not names:
        raise GridError("--only: name at least one of D, a, b, m, k, minRTO")
    return names
