"""Issue 15: "no Rust panic and no Python traceback ever reaches a user, whatever the file,
path or name". A sweep over every CLI subcommand that takes a path, with hostile inputs and
outputs: a name that is not UTF-8, a URI-like name (``s3:x``), the empty string, a
directory, an unreadable file, a missing file, a symbolic-link loop and a FIFO (fed with
junk by a writer, as a pipe from ``<(...)`` would be). Each must end in exit 2 and one line
``tcplab: error: ...`` on stderr, nothing on stdout, names escaped as in every message
(``\\xe9``, never ``\\udce9``; a newline in a name as ``\\x0a``), and nothing left behind in the directory.

The commands run in this process (``click.testing.CliRunner`` over ``tcplab.cli.main``, with
the arguments as Python holds ``sys.argv``: bytes that are not UTF-8 as surrogate escapes),
so the sweep takes seconds; an exception escaping the CLI (a traceback, or a Rust panic
through the binding) fails the case. ``tests/test_paths_and_outdirs.py`` runs the same kind
of names through a real process (``_cli_bytes``).

A FIFO nobody writes to is not in the sweep: every reader of one (``cat``, ``tcpdump -r``)
waits for a writer, and refusing FIFOs would break ``tcplab run <(sed ... x.toml)``
(process substitution is a pipe), so tcplab reads them like files.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from tcplab.cli import main

CAPTURE = ROOT / "tests" / "fixtures" / "linux" / "burst-loss" / "sender.pcap"
#: Junk every reader must refuse: not TOML (no "="), not a capture (no magic number).
JUNK = b"junk junk\n"
#: How long the FIFO writer waits for the command to open the FIFO.
FIFO_WAIT_S = 20.0

#: Hostile input names (relative to the test's directory), by kind.
INPUTS = {
    "missing": "missing.x",
    "not_utf8": os.fsdecode(b"n\xe9ant"),  # exists, junk content, name not UTF-8
    "not_utf8_missing": os.fsdecode(b"absent\xff"),
    "uri_like": "s3:x",
    "newline_missing": "new\nline",  # a name with a newline must not make a second line
    "empty": "",
    "directory": "adir",
    "unreadable": "unread",  # mode 000 (readable anyway when the tests run as root: junk then)
    "link_loop": "loop",
    "fifo": "fifo",
}

#: Commands with a hostile input at H (a list of arguments; "CAP" is a good capture).
INPUT_COMMANDS = {
    "run": ["run", "H", "-o", "out"],
    "check": ["check", "H"],
    "analyze": ["analyze", "H", "-o", "out"],
    "analyze --scenario": ["analyze", "CAP", "--scenario", "H", "-o", "out"],
    "whatif": ["whatif", "H", "-o", "out"],
    "whatif --grid": ["whatif", "CAP", "--grid", "H", "-o", "out"],
    "compare": ["compare", "H"],
    "plot": ["plot", "H", "-o", "p.png"],
    "plot sweep": ["plot", "sweep", "H", "--metric", "goodput_bps", "--x", "tcp.min_rto", "-o", "p.png"],
    "sweep": ["sweep", "H", "-o", "out"],
    "reproduce": ["reproduce", "H", "-o", "out"],
    "profiles": ["profiles", "H"],
}

#: Hostile output paths, by kind ("directory" outputs; images get ".png").
OUTPUTS = {
    "empty": "",
    "regular_file": "afile",
    "fifo": "fifo",
    "parent_is_a_file": "afile/sub",
    "link_loop": "loop",
    "not_utf8_under_a_file": os.fsdecode(b"afile/n\xe9"),
}

OUTPUT_COMMANDS = {
    "run": ["run", "dumbbell", "-o", "H"],
    "analyze": ["analyze", "CAP", "-o", "H"],
    "whatif": ["whatif", "CAP", "-o", "H"],
    "reproduce": ["reproduce", "frto", "--quick", "-o", "H"],
    "sweep": ["sweep", "min_rto_3g", "-o", "H"],
    "plot": ["plot", "an", "-o", "H.png"],
}


def _tree(d: Path) -> list[str]:
    """Every name under ``d`` (not following links), for "nothing was left behind"."""
    out = []
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), d))
    return sorted(out)


@pytest.fixture
def hostile_dir(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_bytes(JUNK)
    with open(os.fsencode(tmp_path) + b"/n\xe9ant", "wb") as fh:
        fh.write(JUNK)
    (tmp_path / "unread").write_bytes(JUNK)
    os.chmod(tmp_path / "unread", 0)
    os.symlink("loop", tmp_path / "loop")
    os.mkfifo(tmp_path / "fifo")
    os.mkfifo(tmp_path / "fifo.png")
    os.symlink("loop.png", tmp_path / "loop.png")
    os.mkdir(tmp_path / "adir.png")
    shutil.copy(CAPTURE, tmp_path / "cap.pcap")
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    os.chmod(tmp_path / "unread", 0o600)


def _feed_fifo(path: Path, stop: threading.Event) -> None:
    """Writes JUNK into the FIFO once a reader has opened it (opening for writing without a
    reader fails with ENXIO in non-blocking mode: retry until the command opens it)."""
    end = time.monotonic() + FIFO_WAIT_S
    while not stop.is_set() and time.monotonic() < end:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.01)
            continue
        try:
            os.write(fd, JUNK)
        except OSError:
            pass
        finally:
            os.close(fd)
        # A reader may open the FIFO more than once (a check, then the read): keep feeding.
        time.sleep(0.05)


def _invoke(args: list[str], fifo: Path | None) -> tuple[int, str, str]:
    stop = threading.Event()
    feeder = None
    if fifo is not None:
        feeder = threading.Thread(target=_feed_fifo, args=(fifo, stop), daemon=True)
        feeder.start()
    try:
        res = CliRunner().invoke(main, args, catch_exceptions=True)
    finally:
        stop.set()
        if feeder is not None:
            feeder.join()
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(*res.exc_info))
        pytest.fail(f"tcplab {args!r} raised instead of one line:\n{tb}")
    return res.exit_code, res.stdout, res.stderr


def _check_one_line(code: int, stdout: str, stderr: str, args: list[str]) -> str:
    lines = stderr.splitlines()
    assert code == 2, (args, code, stdout, stderr)
    assert len(lines) == 1 and lines[0].startswith("tcplab: error: "), (args, stderr)
    assert stdout == "", (args, stdout)
    assert "Traceback" not in stderr and "panicked" not in stderr
    assert "\\udc" not in stderr and not any(0xDC80 <= ord(c) <= 0xDCFF for c in stderr), stderr
    return lines[0]


@pytest.mark.parametrize("kind", list(INPUTS))
@pytest.mark.parametrize("command", list(INPUT_COMMANDS))
def test_a_hostile_input_path_is_one_line_and_exit_2(hostile_dir: Path, command: str, kind: str):
    h = INPUTS[kind]
    args = [h if a == "H" else "cap.pcap" if a == "CAP" else a for a in INPUT_COMMANDS[command]]
    before = _tree(hostile_dir)
    line = _check_one_line(*_invoke(args, hostile_dir / "fifo" if kind == "fifo" else None), args)
    if kind == "not_utf8_missing" and command != "profiles":
        assert "absent\\xff" in line, line  # the name, escaped
    if kind == "newline_missing" and command not in ("reproduce", "profiles"):
        assert "new\\x0aline" in line, line
    if kind == "empty" and command not in ("reproduce", "profiles"):
        assert "empty path" in line, line
    assert _tree(hostile_dir) == before, f"{args!r} left files behind"


#: A scenario file that is not TOML (an unterminated table header, then a bare word).
NOT_TOML = "[simulation\nduration 10s\n"


@pytest.mark.parametrize("command", ["run", "check"])
def test_a_scenario_file_that_is_not_toml_is_named_in_its_one_line_error(tmp_path: Path, command: str):
    """Issue 15: the syntax error names the file (and the line), not only what the parser saw."""
    bad = tmp_path / "my-scen\u00e9.toml"
    bad.write_text(NOT_TOML, encoding="utf-8")
    args = [command, str(bad), *(["-o", str(tmp_path / "out")] if command == "run" else [])]
    line = _check_one_line(*_invoke(args, None), args)
    assert "my-scen\u00e9.toml: invalid TOML: " in line, line
    assert "(line 1, column " in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", list(OUTPUTS))
@pytest.mark.parametrize("command", list(OUTPUT_COMMANDS))
def test_a_hostile_output_path_is_one_line_and_exit_2(hostile_dir: Path, command: str, kind: str):
    if command == "plot":
        from tcplab.analyze import analyze

        analyze(["cap.pcap"], out="an")
    h = OUTPUTS[kind]
    args = [a.replace("H", h) if "H" in a else "cap.pcap" if a == "CAP" else a for a in OUTPUT_COMMANDS[command]]
    if command == "plot" and kind == "regular_file":
        args[-1] = "adir.png"  # an existing regular x.png is simply replaced; a directory is not
    before = _tree(hostile_dir)
    line = _check_one_line(*_invoke(args, None), args)
    if "\xe9" in os.fsencode(h).decode("latin-1"):
        assert "\\xe9" in line, line
    assert _tree(hostile_dir) == before, f"{args!r} left files behind"
