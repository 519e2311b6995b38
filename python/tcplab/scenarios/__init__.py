"""The scenarios shipped with tcplab (``scenarios/`` in the repository is a link to this folder).

>>> from tcplab.scenarios import path, names
>>> names()                      # ['aron98-fig1', 'aron98-fig2', 'dumbbell', ...]
>>> tcplab.run(path("dumbbell"))

The CLI accepts a shipped scenario's name wherever it takes a file: ``tcplab run dumbbell -o out``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

DIR = Path(__file__).resolve().parent


def names() -> list[str]:
    """Names of the shipped scenarios (file stems)."""
    return sorted(p.stem for p in DIR.glob("*.toml"))


def path(name: str) -> Path:
    """The file of shipped scenario ``name`` (with or without ``.toml``); KeyError if unknown."""
    stem = name[:-5] if name.endswith(".toml") else name
    p = DIR / f"{stem}.toml"
    if not p.is_file():
        raise KeyError(name)
    return p


def load(name: str) -> dict[str, Any]:
    """Shipped scenario ``name`` as a dict (e.g. to modify before ``tcplab.run``)."""
    return tomllib.loads(path(name).read_text(encoding="utf-8"))
