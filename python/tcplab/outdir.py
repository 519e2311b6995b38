"""Output directories written safely: every command that writes a directory (``run``,
``analyze``, ``reproduce``, ...) goes through :func:`staged`.

Rules (docs/outputs.md, "Output directories"):

- The output path is a local path, never a URI: ``-o run:1``, ``-o s3:bucket`` and
  ``-o hdfs:y`` are directories of those names. Every writer is handed an open file or a
  plain path, never a string pyarrow could parse as a filesystem URI.
- Any name a POSIX filesystem allows works, including bytes that are not UTF-8 (Python
  carries them as surrogate escapes, ``os.fsencode`` turns them back into the same bytes);
  messages show such names escaped (:func:`show`), ``caf\\xe9``.
- An existing non-empty directory is refused unless ``overwrite`` is given. ``overwrite``
  replaces only what an earlier tcplab command wrote there: it needs the manifest that every
  tcplab output directory carries (:data:`MANIFEST`), removes the files listed in it and
  leaves any other file (a plot you added) alone. A non-empty directory without a manifest
  is never cleared.
- Nothing half-written is left behind and two runs' files are never mixed: the command
  writes into a fresh temporary sibling directory (``.NAME.tmp-XXXXXX``, same filesystem),
  which is renamed to the output path only when everything was written; on any failure
  (including Ctrl-C) the temporary directory is removed and the output path is unchanged.
  When the output directory also holds files tcplab did not write, or is the working
  directory (which a rename would leave deleted under the shell), the swap cannot be one
  rename: the previous run's files are removed, then the new ones are moved in one by one
  and the manifest is written last.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from .errors import TcplabError

#: File listing what a tcplab command wrote into an output directory (JSON: the command and
#: the top-level names it wrote); ``--overwrite`` removes exactly those names.
MANIFEST = ".tcplab-output.json"
#: Infix of the temporary sibling directory a command writes into before the final rename.
_TMP_INFIX = ".tmp-"


class OutputDirError(TcplabError, ValueError):
    """The output path cannot be used (not a directory, not empty, not writable); one line."""


def show(path: str | bytes | os.PathLike) -> str:
    """``path`` for a message: bytes that are not UTF-8 as ``\\xNN``, control characters
    (a newline in a name) as ``\\xNN`` too, everything else as typed."""
    raw = os.fsencode(path)
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
                   for c in text)


def _entries(d: Path) -> list[str]:
    return sorted(os.listdir(d))


def _read_manifest(d: Path) -> list[str] | None:
    """The names the manifest in ``d`` lists, or ``None`` when there is no readable one."""
    try:
        data = json.loads((d / MANIFEST).read_text(encoding="utf-8", errors="surrogateescape"))
        files = data["files"]
        if isinstance(files, list) and all(isinstance(f, str) for f in files):
            return files
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def check(out: str | os.PathLike, *, overwrite: bool) -> Path:
    """Refuses an unusable output path before any work is done (one-line
    :class:`OutputDirError`); returns it as a :class:`Path`."""
    out = Path(os.fsdecode(os.fspath(out)))
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise OutputDirError(f"{show(out)}: exists and is not a directory")
        try:
            names = [n for n in _entries(out)]
        except OSError as e:
            raise OutputDirError(f"{show(out)}: cannot list output directory: {e.strerror or e}") from None
        if names and not overwrite:
            raise OutputDirError(
                f"{show(out)}: output directory is not empty; pass --overwrite to replace what an earlier "
                f"tcplab command wrote there, or choose another directory"
            )
        if names and _read_manifest(out) is None:
            raise OutputDirError(
                f"{show(out)}: not empty and not written by tcplab (no {MANIFEST}); "
                f"--overwrite only replaces tcplab's own outputs, so choose another directory"
            )
    return out


def _in_use(out: Path) -> bool:
    """``out`` is the working directory or one of its ancestors: it must not be replaced by a
    rename (the shell would be left in a deleted directory), so files are moved into it."""
    try:
        here = Path.cwd().resolve()
        target = out.resolve()
    except OSError:
        return False
    return target == here or target in here.parents


def _finish(tmp: Path, out: Path, command: str) -> None:
    """Moves the complete output in ``tmp`` to ``out`` (see the module doc)."""
    written = [n for n in _entries(tmp) if n != MANIFEST]
    (tmp / MANIFEST).write_text(
        json.dumps({"command": command, "files": written}, indent=2) + "\n",
        encoding="utf-8", errors="surrogateescape",
    )
    if not (out.exists() or out.is_symlink()):
        os.rename(tmp, out)
        return
    existing = _entries(out)
    in_use = _in_use(out)
    if not existing and not in_use:
        os.rename(tmp, out)  # POSIX rename(2) replaces an empty directory
        return
    previous = _read_manifest(out) if existing else []
    if previous is None:  # filled while this command ran; check() refused it before
        raise OutputDirError(f"{show(out)}: was filled by something else while this command ran")
    foreign = [n for n in existing if n not in previous and n != MANIFEST]
    if not foreign and not in_use:
        trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, trash / "old")
        os.rename(tmp, out)
        shutil.rmtree(trash, ignore_errors=True)
        return
    for n in [*previous, MANIFEST]:
        p = out / n
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()
    for n in written:
        os.replace(tmp / n, out / n)
    os.replace(tmp / MANIFEST, out / MANIFEST)
    shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def staged(out: str | os.PathLike, *, overwrite: bool = False, command: str = "tcplab") -> Iterator[Path]:
    """Yields a fresh temporary directory next to ``out`` to write every output into; on
    success it becomes ``out`` (with the manifest), on any exception it is removed and
    ``out`` is left as it was. Raises :class:`OutputDirError` (one line) when ``out`` cannot
    be used."""
    out = check(out, overwrite=overwrite)
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}{_TMP_INFIX}", dir=parent))
        # mkdtemp makes the directory 0700; the output gets the mode mkdir would give it.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
    except OSError as e:
        raise OutputDirError(f"{show(out)}: cannot create output directory: {e.strerror or e}") from None
    try:
        yield tmp
        _finish(tmp, out, command)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


__all__ = ["MANIFEST", "OutputDirError", "check", "show", "staged"]
