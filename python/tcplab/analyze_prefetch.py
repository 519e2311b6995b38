"""The ``tcplab`` console script, and ``tcplab analyze``'s analysis started before click.

``tcplab analyze CAPTURES ...`` spends its first ≈ 0.05 s importing click and the command
modules and parsing the command line, and only then reads the captures. On a machine with
a free core that is time the analysis could already be running (issue 10 part 5: the
command faster than ``tcptrace -n -l`` end to end, docs/benchmarks.md). So :func:`main`
looks at the command line first, with nothing but ``os`` and the compiled core: when it is a
plain ``analyze`` of regular files without ``--scenario``, it starts the analysis on a thread
of the core (``_core.analyze_start``, GIL released, no Python on that thread) and then runs
the command. When the command reaches
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

Two more savings follow from knowing early that the command is such an ``analyze``
(:func:`main`): its success path runs without importing click at all (:func:`_fast`, the
command's body with the values click would have given it; anything but plain success is
handed to the click command line before a byte is written or printed), and the process
ends with ``os._exit`` after flushing, skipping the interpreter's teardown. Why each is
safe: docs/design.md, "Starting the analysis before the command line is parsed".
"""

from __future__ import annotations

import os
import stat
import sys

#: The one started analysis: ``(paths, vantage, model, tlp)`` and the core's pending handle.
_pending: tuple[tuple, object] | None = None

#: Options of ``tcplab analyze`` that take a value, by every name click accepts.
_VALUE_OPTIONS = {"-o": "out", "--out": "out", "--vantage": "vantage", "--model": "model"}
#: Flags of ``tcplab analyze``, by every name click accepts, and what each sets.
_FLAGS = {"--overwrite": "overwrite", "-q": "quiet", "--quiet": "quiet"}


def _parse(args: list[str]) -> tuple[list[str], str, str, bool | None, str, bool, bool] | None:
    """``(captures, vantage, model, tlp, out, overwrite, quiet)`` of an ``analyze`` command
    line, or ``None`` when it is anything this early look does not fully understand."""
    if not args or args[0] != "analyze":
        return None
    captures: list[str] = []
    values = {"vantage": "auto", "model": "auto", "out": None}
    flags = {"overwrite": False, "quiet": False}
    tlp: bool | None = None
    rest = iter(args[1:])
    for tok in rest:
        if tok == "--":
            captures.extend(rest)
            break
        if not tok.startswith("-") or tok == "-":
            captures.append(tok)
        elif tok in _FLAGS:
            flags[_FLAGS[tok]] = True
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
    return captures, values["vantage"], values["model"], tlp, values["out"], flags["overwrite"], flags["quiet"]


def as_click_path(p: str) -> str:
    """``str(pathlib.PurePosixPath(p))`` without importing pathlib (≈ 5 ms of start-up, more
    than the rest of this module): the string ``tcplab.analyze.capture_paths`` hands the core
    for a capture click gave as a ``Path`` (``path_type=Path``). As pathlib does on POSIX:
    exactly two leading slashes are kept, more collapse to one; empty and ``.`` components
    go; nothing else changes (``..`` stays)."""
    root = "//" if p.startswith("//") and not p.startswith("///") else "/" if p.startswith("/") else ""
    return root + "/".join(x for x in p.split("/") if x and x != ".") or "."


def start(args: list[str]):
    """Starts the analysis of an ``analyze`` command line ``args`` (``sys.argv[1:]``) if it is
    one this module understands (see the module doc) and returns its parse (``_parse``);
    otherwise does nothing and returns ``None``. Never raises."""
    global _pending
    try:
        parsed = _parse(args)
        if parsed is None:
            return None
        captures, vantage, model, tlp = parsed[:4]
        paths = [as_click_path(c) for c in captures]
        if not all(c and stat.S_ISREG(os.stat(p).st_mode) for c, p in zip(captures, paths)):
            return None
        from . import _core

        _pending = ((tuple(paths), vantage, model, tlp), _core.analyze_start(paths, vantage, model, tlp))
        return parsed
    except Exception:  # anything unexpected: no prefetch; the command itself will decide
        _pending = None
        return None


def take(paths: list[str], vantage: str, model: str, tlp: bool | None):
    """The started analysis' pending handle if it was started with exactly these arguments,
    else ``None``; either way nothing is pending afterwards (one use)."""
    global _pending
    pending, _pending = _pending, None
    if pending is None or pending[0] != (tuple(paths), vantage, model, tlp):
        return None
    return pending[1]


def _echo(line: str) -> None:
    """``click.echo(line)`` for the lines ``analyze`` prints (text, no ANSI styles: paths are
    escaped by ``outdir.show``): write, newline, flush."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _as_cli_error(e: BaseException) -> None:
    """Reports ``e`` exactly as the click command would (its ``_user_errors`` wrapper, then
    the group's closed-stdout rule): one line and exit status 2, 130 for Ctrl-C, 141 for a
    closed stdout; anything else propagates as it would there. click is imported here, on
    the error path only."""
    from . import cli

    def fail() -> None:
        raise e

    try:
        cli._user_errors(fail)()
    except OSError as e2:
        if cli._is_epipe(e2):
            cli._exit_stdout_closed()
        raise


def _fast(captures: list[str], vantage: str, model: str, tlp: bool | None, out: str, overwrite: bool,
          quiet: bool) -> int | None:
    """The ``analyze`` command's success path without click (its body in ``tcplab.cli``, with
    the values click would have given it): returns the exit status (0), or ``None`` —
    before anything is written or printed — whenever something is not the plain success
    path, and the click command line then runs the whole command (and reports the problem
    in its own words). A failure after the output directory is being written is reported
    as the command reports it (:func:`_as_cli_error`)."""
    from pathlib import Path

    stdout = sys.stdout
    encoding = (getattr(stdout, "encoding", None) or "").lower().replace("_", "-")
    if stdout is None or (not quiet and encoding not in ("utf-8", "utf8")):
        return None  # click.echo would pick another writer for this stream: let it
    from . import outdir
    from .analyze import VANTAGES, analyze as api_analyze
    from .errors import TcplabError

    if not out or vantage not in VANTAGES:
        return None  # click's usage errors
    out_path = Path(out)
    if out_path.exists() and not out_path.is_dir():
        return None  # click's usage error (_OutDir)
    try:
        outdir.check(out_path, overwrite=overwrite)
        res = api_analyze([Path(c) for c in captures], vantage=vantage, model=model, tlp=tlp)
    except TcplabError:
        return None  # a refused directory, nothing analysable: the command says so itself
    except KeyboardInterrupt as e:
        _as_cli_error(e)
        raise
    if any(c.get("error") for c in res.summary["captures"]):
        return None  # skipped captures are named by the command (it analyses again)
    try:
        with outdir.staged(out_path, overwrite=overwrite, command="analyze") as tmp:
            res.write(tmp)
        if not quiet:
            from .analyze_report import print_analysis

            print_analysis(res.summary, out_path, _echo)
    except Exception as e:
        _as_cli_error(e)
        raise
    except KeyboardInterrupt as e:
        _as_cli_error(e)
        raise
    return 0


def _flush_and_exit(code: int) -> None:
    """Flushes stdout and stderr and ends the process with ``code`` at once (see
    :func:`main`); a closed stdout ends it with 141, as the click command line does."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError as e:
        from . import cli

        if cli._is_epipe(e):
            cli._exit_stdout_closed()
        raise
    os._exit(code)


def main() -> None:
    """The ``tcplab`` console script.

    A plain ``analyze`` of regular files (:func:`start` started its analysis) runs without
    importing click when it succeeds (:func:`_fast`: ≈ 0.04 s of CPU less); anything else,
    and every failure before its outputs are written, goes to the click command line,
    unchanged. After such an ``analyze``, either way, the process ends with ``os._exit``
    once stdout and stderr are flushed, with the exit status the command set: the command
    has closed every file it wrote (its outputs are renamed into place before it returns),
    starts no Python thread and registers no ``atexit`` handler, so the interpreter's
    finalisation (a garbage collection and the freeing of every module, ≈ 0.012 s of CPU,
    docs/benchmarks.md) would only delay the prompt. Any other command, and a status that
    is not an integer, ends as before."""
    parsed = start(sys.argv[1:])
    if parsed is not None and _pending is not None:
        status = _fast(*parsed)
        if status is not None:
            _flush_and_exit(status)
    from .cli import main as cli_main

    if parsed is None:
        cli_main()
        return
    try:
        cli_main()
    except SystemExit as e:
        code = 0 if e.code is None else e.code
        if not isinstance(code, int):
            raise
        _flush_and_exit(code)
