"""The ``tcplab`` console script, and ``tcplab analyze``'s analysis started before click.

``tcplab analyze CAPTURES ...`` spends its first ≈ 0.05 s importing click and the command
modules and parsing the command line, and only then reads the captures. On a machine with
a free core that is time the analysis could already be running (issue 10 part 5: the
command faster than ``tcptrace -n -l`` end to end, docs/benchmarks.md). So :func:`main`
looks at the command line first, with nothing but ``os`` and the compiled core: when it is a
plain ``analyze`` of regular files without ``--scenario``, it starts the analysis on a thread
of the core (``_core.analyze_start``, GIL released, no Python on that thread) and then runs
the click command line exactly as before. When the command reaches
:func:`tcplab.analyze.analyze`, that call takes the started analysis (:func:`take`) if, and
only if, it is the same call: the same paths (as strings, exactly), vantage, model and
``--tlp`` setting. Anything else — a usage error, ``--help``, a path click normalises
differently, a refused output directory — leaves the started analysis unused (the process
ends without waiting for it), and every message, file and exit status is what the command
gives without it, because the result taken is the result of the very function the command
would call with the very same arguments.

What the early look accepts (anything else: no prefetch, nothing changes): ``analyze``
as the first argument; the command's own options in the forms click accepts without
ambiguity (``-o DIR``, ``-oDIR``, ``--out DIR``, ``--out=DIR``, ``--overwrite``, ``-q``,
``--quiet``, ``--vantage V``, ``--vantage=V``, ``--model M``, ``--model=M``, ``--tlp``,
``--no-tlp``, ``--``); captures that are regular files (``os.stat``; reading a FIFO or a
device early could consume what the command, refusing its output directory, must not
read). Later options override earlier ones, as in click.
"""

from __future__ import annotations

import os
import stat
import sys

#: The one started analysis: ``(paths, vantage, model, tlp)`` and the core's pending handle.
_pending: tuple[tuple, object] | None = None

#: Options of ``tcplab analyze`` that take a value, by every name click accepts.
_VALUE_OPTIONS = {"-o": "out", "--out": "out", "--vantage": "vantage", "--model": "model"}
#: Flags of ``tcplab analyze`` and the ``--tlp`` setting each gives (``None``: not ``--tlp``).
_FLAGS = {"--overwrite": None, "-q": None, "--quiet": None}


def _parse(args: list[str]) -> tuple[list[str], str, str, bool | None] | None:
    """``(captures, vantage, model, tlp)`` of an ``analyze`` command line, or ``None`` when
    it is anything this early look does not fully understand."""
    if not args or args[0] != "analyze":
        return None
    captures: list[str] = []
    values = {"vantage": "auto", "model": "auto", "out": None}
    tlp: bool | None = None
    rest = iter(args[1:])
    for tok in rest:
        if tok == "--":
            captures.extend(rest)
            break
        if not tok.startswith("-") or tok == "-":
            captures.append(tok)
        elif tok in _FLAGS:
            pass
        elif tok in ("--tlp", "--no-tlp"):
            tlp = tok == "--tlp"
        elif tok in _VALUE_OPTIONS:
            value = next(rest, None)
            if value is None:
                return None
            values[_VALUE_OPTIONS[tok]] = value
        elif tok.startswith("--") and tok.split("=", 1)[0] in _VALUE_OPTIONS and "=" in tok:
            name, value = tok.split("=", 1)
            values[_VALUE_OPTIONS[name]] = value
        elif tok.startswith("-o") and not tok.startswith("--"):
            values["out"] = tok[2:]
        else:
            return None  # --scenario, --help, anything unknown: click decides
    if not captures or values["out"] is None:
        return None
    return captures, values["vantage"], values["model"], tlp


def as_click_path(p: str) -> str:
    """``str(pathlib.PurePosixPath(p))`` without importing pathlib (≈ 5 ms of start-up, more
    than the rest of this module): the string ``tcplab.analyze.capture_paths`` hands the core
    for a capture click gave as a ``Path`` (``path_type=Path``). As pathlib does on POSIX:
    exactly two leading slashes are kept, more collapse to one; empty and ``.`` components
    go; nothing else changes (``..`` stays)."""
    root = "//" if p.startswith("//") and not p.startswith("///") else "/" if p.startswith("/") else ""
    return root + "/".join(x for x in p.split("/") if x and x != ".") or "."


def start(args: list[str]) -> None:
    """Starts the analysis of an ``analyze`` command line ``args`` (``sys.argv[1:]``) if it is
    one this module understands (see the module doc); otherwise does nothing. Never raises."""
    global _pending
    try:
        parsed = _parse(args)
        if parsed is None:
            return
        captures, vantage, model, tlp = parsed
        paths = [as_click_path(c) for c in captures]
        if not all(c and stat.S_ISREG(os.stat(p).st_mode) for c, p in zip(captures, paths)):
            return
        from . import _core

        _pending = ((tuple(paths), vantage, model, tlp), _core.analyze_start(paths, vantage, model, tlp))
    except Exception:  # anything unexpected: no prefetch; the command itself will decide
        _pending = None


def take(paths: list[str], vantage: str, model: str, tlp: bool | None):
    """The started analysis' pending handle if it was started with exactly these arguments,
    else ``None``; either way nothing is pending afterwards (one use)."""
    global _pending
    pending, _pending = _pending, None
    if pending is None or pending[0] != (tuple(paths), vantage, model, tlp):
        return None
    return pending[1]


def main() -> None:
    """The ``tcplab`` console script: :func:`start`, then the click command line.

    After an ``analyze`` whose analysis was started early, the process ends with
    ``os._exit`` once stdout and stderr are flushed, with the exit status the command set:
    that command has closed every file it wrote (its outputs are renamed into place before
    it returns), starts no Python thread and registers no ``atexit`` handler, so the
    interpreter's finalisation (a garbage collection and the freeing of every module, about
    0.01 s of CPU, docs/benchmarks.md) would only delay the prompt. Any other command, and a
    status that is not an integer, ends as before."""
    start(sys.argv[1:])
    from .cli import main as cli_main

    if _pending is None:
        cli_main()
        return
    try:
        cli_main()
    except SystemExit as e:
        code = 0 if e.code is None else e.code
        if not isinstance(code, int):
            raise
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # a closed stream: let the interpreter's own exit deal with it
            raise e from None
        os._exit(code)
