from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"

#: A small two-host scenario used across tests (one bottleneck, one finite flow).
SMALL = """
name = "small"
[simulation]
duration = "5s"
seed = 1

[tcp]
mss = "1460B"
recv_buffer = "64KB"

[[nodes]]
name = "a"
kind = "host"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
kind = "host"

[[links]]
name = "access"
a = "a"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
queue = "100pkt"

[[links]]
name = "bottleneck"
a = "r"
b = "b"
bandwidth = "10Mbps"
delay = "20ms"
queue = "20pkt"

[[flows]]
src = "a"
dst = "b"
start = "0s"
size = "200KB"
"""


@pytest.fixture
def small_scenario(tmp_path: Path) -> Path:
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p


def tcplab_cli(*args: str, cwd: Path | None = None, warnings: bool = False) -> subprocess.CompletedProcess:
    """Run the installed CLI as a user would (a separate process). Python warnings are
    silenced unless ``warnings`` (then stderr shows them, as a user would see them)."""
    env = dict(os.environ)
    if warnings:
        env.pop("PYTHONWARNINGS", None)
    else:
        env["PYTHONWARNINGS"] = "ignore"
    return subprocess.run(
        [sys.executable, "-m", "tcplab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env,
        timeout=600,
    )


#: The columns every reproduction's ``results.csv`` has (docs/outputs.md).
RESULT_COLUMNS = ["figure", "series", "x", "metric", "ours", "paper"]


def reproduce_quick(tmp_path_factory, name: str, *extra: str) -> Path:
    """``tcplab reproduce NAME --quick [EXTRA] -o DIR`` from inside DIR (nothing may be written
    elsewhere); asserts exit 0 and returns DIR."""
    out = tmp_path_factory.mktemp(name)
    r = tcplab_cli("reproduce", name, "--quick", *extra, "-o", str(out), cwd=out)
    assert r.returncode == 0, r.stderr
    return out


def results_rows(out: Path) -> list[dict[str, str]]:
    """The rows of ``out/results.csv``, after checking its header is :data:`RESULT_COLUMNS`."""
    import csv

    with open(out / "results.csv", newline="") as fh:
        assert next(csv.reader(fh)) == RESULT_COLUMNS
    with open(out / "results.csv", newline="") as fh:
        return list(csv.DictReader(fh))
